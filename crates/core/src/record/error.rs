//! What the record readers and editors refuse, each saying where in the text:
//! line and column, counted from 1. PGN and SGF have errors of their own (a PGN
//! text's game number, SGF's prefix); PDN, the Tablut record and the free log
//! share [`TextError`].

use std::path::PathBuf;

use crate::rules::{FenError, IllegalMove, MoveError, ReplayError};

/// A place in a text: line and column (in characters), both from 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextPos {
    /// The line, from 1.
    pub line: usize,
    /// The column in characters (not bytes), from 1.
    pub column: usize,
}

impl TextPos {
    /// The place of byte `offset` in `text`.
    pub(crate) fn of(text: &str, offset: usize) -> TextPos {
        let head = text.get(..offset.min(text.len())).unwrap_or(text);
        let line_start = head.rfind('\n').map_or(0, |i| i + 1);
        TextPos {
            line: head.matches('\n').count() + 1,
            column: head[line_start..].chars().count() + 1,
        }
    }
}

impl std::fmt::Display for TextPos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// A PGN text refused: malformed, or a move the rules do not allow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("PGN game {game}, {at}: {why}")]
pub struct PgnError {
    /// Which game of the text, from 1.
    pub game: usize,
    /// Where in the text.
    pub at: TextPos,
    /// What is wrong there, in words.
    pub why: String,
}

/// A record's text refused (PDN for Russian draughts, the Tablut record, the free
/// log of `record --game free`): `at` says where. For a Tablut record built in
/// memory and written or replayed, its moves or tags (`at` is None).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct TextError {
    /// Where in the text; None for a record built in memory.
    pub at: Option<TextPos>,
    /// What is wrong, in words.
    pub why: String,
}

impl std::fmt::Display for TextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some(at) => write!(f, "{at}: {}", self.why),
            None => f.write_str(&self.why),
        }
    }
}

/// An SGF record refused (Go): its text (`at` says where), or a move or
/// property that makes no game (`at` is None when no place in a text applies).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SgfError {
    /// Where in the text; None when no place in a text applies.
    pub at: Option<TextPos>,
    /// What is wrong, in words.
    pub why: String,
}

impl std::fmt::Display for SgfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some(at) => write!(f, "SGF {at}: {}", self.why),
            None => write!(f, "SGF: {}", self.why),
        }
    }
}

/// A tag line of a Tablut record refused; `line` is the tag as written
/// (trimmed). Its message goes into the [`TextError`] that names the
/// tag's place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TagError {
    #[error("tag `{line}` must look like [Name \"value\"]")]
    NotATag { line: String },
    #[error("tag `{line}` has no value")]
    NoValue { line: String },
    #[error("tag `{line}`: bad tag name `{name}`")]
    BadName { line: String, name: String },
    #[error("tag `{line}`: the value must be in double quotes")]
    Unquoted { line: String },
    /// A backslash in the value not followed by `\` or `"`.
    #[error("tag `{line}`: bad escape after `\\`")]
    BadEscape { line: String },
    #[error("tag `{line}`: unescaped `\"` inside the value")]
    StrayQuote { line: String },
}

/// A record read back to go on with its game (`record --resume`, `event`) that
/// cannot be: its text, its start position or one of its moves.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The PGN text.
    #[error(transparent)]
    Pgn(#[from] PgnError),
    /// The PDN text or the Tablut record's.
    #[error(transparent)]
    Text(#[from] TextError),
    /// The SGF text.
    #[error(transparent)]
    Sgf(#[from] SgfError),
    /// The start position or a move, replayed.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// Move `number` (from 1) is not legal where it stands.
    #[error("move {number} of the record is not legal")]
    Illegal {
        /// The move's number in the record, from 1.
        number: usize,
    },
}

impl From<FenError> for ReadError {
    fn from(e: FenError) -> ReadError {
        ReadError::Replay(e.into())
    }
}

impl From<MoveError> for ReadError {
    fn from(e: MoveError) -> ReadError {
        ReadError::Replay(e.into())
    }
}

/// An edit of a record refused (an arbiter's result, a tag, a comment, a move).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// Not one of the result tokens an arbiter may set.
    #[error("'{0}' is not a result: use 1-0, 0-1, 1/2-1/2 or *")]
    NotAResult(String),
    /// Not one of the result tokens this game's record format takes (the second
    /// field lists them).
    #[error("'{0}' is not a result: use {1}")]
    NotAResultOf(String, String),
    /// Not a result a PDN file can hold.
    #[error("{0:?} is not a PDN result")]
    NotAPdnResult(String),
    /// A tag name PDN does not allow (letters, digits and `_` only).
    #[error("tag name {0:?} is not a PDN tag name")]
    BadTagName(String),
    /// A tag the record writes from the game itself (the result, the start).
    #[error("tag {0:?} is derived from the game; use set_result or the start position")]
    DerivedTag(String),
    /// A comment on a move the record does not hold.
    #[error("no move {index} to comment (the record has {moves} moves)")]
    NoMove {
        /// The move asked for, from 0.
        index: usize,
        /// How many moves the record holds.
        moves: usize,
    },
    /// A move the rules do not allow where it stands.
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
    /// A move that cannot be read.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// The record to edit cannot be read back.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A result against the one the rules gave (a mate on the board is not
    /// overruled).
    #[error("the rules already ended the game {ruled} ({reason}); the result {token} is not set")]
    RulesEnded {
        /// The rules' result token.
        ruled: String,
        /// Why the rules ended the game.
        reason: String,
        /// The result refused.
        token: String,
    },
}

/// A lock not taken ([`crate::record::Lock::record`],
/// [`crate::record::Lock::folder`]).
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The folder of the lock cannot be made.
    #[error("cannot create the folder '{}': {source}", dir.display())]
    Folder {
        /// The folder.
        dir: PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// The lock file cannot be opened or created.
    #[error("cannot open the lock file '{}': {source}", path.display())]
    Open {
        /// The lock file.
        path: PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// The lock file's name holds something no lock is written into.
    #[error(
        "the lock file '{}' is {what}; it is left untouched: remove it (when no recorder is running there) and start again",
        path.display()
    )]
    NotALockFile {
        /// The lock file's path.
        path: PathBuf,
        /// What is there instead (a folder, a non-empty file of another kind).
        what: String,
    },
    /// Another recorder holds the record; `holder` says who, when it wrote it.
    #[error(
        "another recorder{} is writing '{}'; stop it first, or record into another file",
        holder_text(.holder),
        record.display()
    )]
    Held {
        /// The record.
        record: PathBuf,
        /// The holder's command line and start time, when it wrote them.
        holder: Option<String>,
    },
    /// Another `event` records into the folder.
    #[error(
        "another event{} is recording into the folder '{}'; stop it first, or give another --out",
        holder_text(.holder),
        dir.display()
    )]
    FolderHeld {
        /// The round's folder.
        dir: PathBuf,
        /// The holder's command line and start time, when it wrote them.
        holder: Option<String>,
    },
}

fn holder_text(holder: &Option<String>) -> String {
    match holder {
        Some(who) => format!(" ({who})"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::TextPos;

    #[test]
    fn text_positions_count_lines_and_characters() {
        let text = "[Event \"é\"]\n1. e4 é5";
        assert_eq!(TextPos::of(text, 0), TextPos { line: 1, column: 1 });
        let at = text.find("é5").unwrap();
        assert_eq!(TextPos::of(text, at), TextPos { line: 2, column: 7 });
        let at = text.find('"').unwrap();
        assert_eq!(TextPos::of(text, at), TextPos { line: 1, column: 8 });
        assert_eq!(TextPos::of(text, 999).line, 2);
    }
}
