//! What can go wrong with a board of the round: its record on disk, and one
//! attempt at recording it.

use std::error::Error;
use std::path::PathBuf;

use crate::record::ReadError;

/// A board's record on disk could not be read, taken up, edited or written (nor
/// the round PGN written).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The file could not be read.
    #[error("cannot read '{}'", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// The file could not be written (atomically, over what stood there).
    #[error("cannot write '{}'", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// The record's last game cannot be taken up to go on with it. The reason is
    /// said inside the sentence, so it is not given again as a source.
    #[error(
        "board {board}: the record '{}' cannot be taken up ({why}); move it away to start the game afresh",
        path.display()
    )]
    TakeUp {
        /// The board's number.
        board: u32,
        /// The record.
        path: PathBuf,
        /// What its reader refused.
        why: ReadError,
    },
    /// An arbiter's edit or note finds no record on disk.
    #[error("board {board} has no record yet")]
    NoRecord {
        /// The board's number.
        board: u32,
    },
    /// A take-back finds no move in the record's last game.
    #[error("board {board} has no move to take back")]
    NoMove {
        /// The board's number.
        board: u32,
    },
    /// A take-back of a move that is no longer the record's last (`moves`, its
    /// number, and `last` are what the record ends with; `ply` and `san` what
    /// the arbiter meant).
    #[error(
        "board {board}'s record ends with move {moves} ({last}), not move {ply}{}: nothing taken back",
        san.as_ref().map_or(String::new(), |s| format!(" ({s})"))
    )]
    NotLast {
        /// The board's number.
        board: u32,
        /// The number of the record's last half-move.
        moves: usize,
        /// The record's last half-move, in its notation.
        last: String,
        /// The half-move the arbiter meant, from 1.
        ply: usize,
        /// That move as the page showed it, when it did.
        san: Option<String>,
    },
    /// A result the record refuses (not one of its tokens, or against the one
    /// the rules gave), in the record's words.
    #[error("board {board}: {why}")]
    Result {
        /// The board's number.
        board: u32,
        /// The record's reason.
        why: crate::record::EditError,
    },
}

/// One attempt at recording a board failed (`record_board`,
/// `BoardRunner::run`); the board is tried again or given up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum BoardError {
    /// The board's record on disk.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The recording itself (the pipeline reading the frames) failed.
    #[error(transparent)]
    Recording(Box<dyn Error + Send + Sync>),
    /// The runner failed before or around the recording: the board's input could
    /// not be opened, its grid not found, the model not loaded. The runner is the
    /// caller's, and so is its error.
    #[error(transparent)]
    Runner(Box<dyn Error + Send + Sync>),
    /// The recorder panicked; the payload's text, when it had one.
    #[error("the recorder panicked: {0}")]
    Panicked(String),
}

/// An error and its causes on one line, joined by `: `, as the command line says
/// them: what the arbiter reads on the page and in the board's alerts.
pub(crate) fn said(e: &(dyn Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_are_said_after_the_error_as_the_command_line_says_them() {
        let io = std::io::Error::other("disk full");
        let e = BoardError::from(RecordError::Write {
            path: "b.pgn".into(),
            source: io,
        });
        assert_eq!(said(&e), "cannot write 'b.pgn': disk full");
        let e = RecordError::NotLast {
            board: 2,
            moves: 4,
            last: "Nf6".into(),
            ply: 3,
            san: Some("e5".into()),
        };
        assert_eq!(
            said(&e),
            "board 2's record ends with move 4 (Nf6), not move 3 (e5): nothing taken back"
        );
    }
}
