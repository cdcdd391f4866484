//! Which game is played, parsed once: a [`GameKind`] names a game with rules and a
//! record format; a [`Setup`] is what the user said (the kind, a start position as
//! text, rule options) and a [`GameSetup`] the same checked, its start position
//! parsed. Everything that depends on the game takes it through
//! [`GameSetup::visit`], the one place that turns a kind into its rules type: a
//! new game is added here (its kind, its tables, its arm in `visit` and `parse`)
//! and nowhere else.
//!
//! ```
//! use boardscribe_core::game::{GameKind, GameSetup, GameVisitor};
//! use boardscribe_core::record::Resume;
//!
//! struct Moves;
//! impl GameVisitor for Moves {
//!     type Output = usize;
//!     fn visit<G: Resume>(self, start: &G) -> usize {
//!         start.legal_moves().len()
//!     }
//! }
//!
//! let kind: GameKind = "draughts".parse().unwrap();
//! let setup = GameSetup::standard(kind);
//! assert_eq!(setup.visit(Moves), 7);
//! ```

mod setup;

pub use setup::{GameSetup, GameVisitor, Setup, SetupError};

use std::fmt;
use std::str::FromStr;

use crate::infer::WhiteSide;

/// A game with rules and a record format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum GameKind {
    /// Chess, FIDE's rules; records in PGN.
    #[default]
    Chess,
    /// Russian draughts; records in PDN.
    RussianDraughts,
    /// Tablut, Linnaeus' rules; records as a move list.
    Tablut,
    /// Go, on 19x19, 13x13 or 9x9 points; records in SGF.
    Go,
}

impl GameKind {
    /// Every game, in the order the command line lists them.
    pub const ALL: [GameKind; 4] = [
        GameKind::Chess,
        GameKind::RussianDraughts,
        GameKind::Tablut,
        GameKind::Go,
    ];

    /// The name as the command line and the round file spell it.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Chess => "chess",
            GameKind::RussianDraughts => "russian-draughts",
            GameKind::Tablut => "tablut",
            GameKind::Go => "go",
        }
    }

    /// Other names taken for it (`draughts`).
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            GameKind::RussianDraughts => &["draughts"],
            _ => &[],
        }
    }

    /// The name in a sentence: `Russian draughts`.
    pub fn display_name(self) -> &'static str {
        match self {
            GameKind::Chess => "chess",
            GameKind::RussianDraughts => "Russian draughts",
            GameKind::Tablut => "Tablut",
            GameKind::Go => "Go",
        }
    }

    /// The record's file extension.
    pub fn extension(self) -> &'static str {
        match self {
            GameKind::Chess => "pgn",
            GameKind::RussianDraughts => "pdn",
            GameKind::Tablut => "txt",
            GameKind::Go => "sgf",
        }
    }

    /// The media type a record of this game is served with.
    pub fn content_type(self) -> &'static str {
        match self {
            GameKind::Chess => "application/x-chess-pgn; charset=utf-8",
            GameKind::Go => "application/x-go-sgf; charset=utf-8",
            _ => "text/plain; charset=utf-8",
        }
    }

    /// The grid the game is played on, as (rows, columns) of cells: for Go,
    /// the cells between the lines of its default board (18x18 for 19 lines).
    pub(crate) fn cells(self) -> (u32, u32) {
        match self {
            GameKind::Chess | GameKind::RussianDraughts => (8, 8),
            GameKind::Tablut => (9, 9),
            GameKind::Go => (18, 18),
        }
    }

    /// Half-move `ply`'s number (from 1) and the dots after it, as records
    /// write it: one number for both sides' moves (`1. e4`, `1... e5`), but
    /// every Go move its own (`1. Q16 2. D4`).
    pub fn move_number(self, ply: usize) -> (usize, &'static str) {
        match (self.points(), ply % 2) {
            (true, _) => (ply, "."),
            (false, 1) => (ply.div_ceil(2), "."),
            (false, _) => (ply.div_ceil(2), "..."),
        }
    }

    /// Whether pieces stand on the crossings of the lines (Go) rather than in
    /// the cells.
    pub fn points(self) -> bool {
        matches!(self, GameKind::Go)
    }

    /// The sites pieces stand on, as (rows, columns): cells, or for Go the
    /// crossings of its default board (19x19).
    pub(crate) fn sites(self) -> (u32, u32) {
        let (rows, cols) = self.cells();
        match self.points() {
            true => (rows + 1, cols + 1),
            false => (rows, cols),
        }
    }

    /// The grid as the command line writes it: `8x8`, or `19x19:points` for Go
    /// (rows and columns of sites, then `:points` when they are crossings).
    pub fn default_grid(self) -> String {
        let (rows, cols) = self.sites();
        match self.points() {
            true => format!("{rows}x{cols}:points"),
            false => format!("{rows}x{cols}"),
        }
    }

    /// Every grid the game is played on, the default first: Go's three board
    /// sizes, one grid for the others.
    pub fn grids(self) -> Vec<String> {
        match self {
            GameKind::Go => crate::rules::go::SIZES
                .iter()
                .map(|n| format!("{n}x{n}:points"))
                .collect(),
            _ => vec![self.default_grid()],
        }
    }

    /// Whether the game is played on `grid` (as [`GameKind::grids`] writes
    /// grids: `8x8`, `13x13:points`).
    pub fn plays_on(self, grid: &str) -> bool {
        self.grids().iter().any(|g| g == grid)
    }

    /// The board size (lines a side) a grid of this game means: `13x13:points`
    /// is Go on 13 lines. None when the game is not played on that grid, or
    /// has one size only (every game but Go).
    pub fn board_size(self, grid: &str) -> Option<u8> {
        if self != GameKind::Go {
            return None;
        }
        let grid = grid.trim().to_ascii_lowercase();
        crate::rules::go::SIZES
            .into_iter()
            .find(|n| grid == format!("{n}x{n}:points"))
    }

    /// White's edge of the grid for a recording given `given` (None: decided
    /// from the first view): a Go board has none, and its record keeps the
    /// picture's way up (the SGF's first line is the image's top edge).
    pub fn white_edge(self, given: Option<WhiteSide>) -> Option<WhiteSide> {
        match self.points() {
            false => given,
            true => given.or(Some(WhiteSide::Bottom)),
        }
    }

    /// Whether the board's squares alternate dark and light (a1 dark); Tablut's
    /// are plain, its corners and throne marked; Go has lines, not squares.
    pub fn checkered(self) -> bool {
        !matches!(self, GameKind::Tablut | GameKind::Go)
    }

    /// The round file's key for a set-up start: `fen`, or `position` for Tablut
    /// and Go.
    pub fn start_key(self) -> &'static str {
        match self {
            GameKind::Tablut | GameKind::Go => "position",
            _ => "fen",
        }
    }

    /// The games' names for a message: `chess, russian-draughts (or draughts), tablut`.
    pub(crate) fn names() -> String {
        let names: Vec<String> = GameKind::ALL
            .iter()
            .map(|k| match k.aliases() {
                [] => k.name().to_string(),
                a => format!("{} (or {})", k.name(), a.join(", ")),
            })
            .collect();
        names.join(", ")
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GameKind {
    type Err = SetupError;

    fn from_str(s: &str) -> Result<GameKind, SetupError> {
        GameKind::ALL
            .into_iter()
            .find(|k| k.name() == s || k.aliases().contains(&s))
            .ok_or_else(|| SetupError::UnknownGame(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_draughts_is_russian_draughts() {
        for k in GameKind::ALL {
            assert_eq!(k.name().parse::<GameKind>(), Ok(k));
            assert_eq!(k.to_string(), k.name());
        }
        assert_eq!("draughts".parse(), Ok(GameKind::RussianDraughts));
        let e = "goo".parse::<GameKind>().unwrap_err().to_string();
        assert!(e.contains("'goo'") && e.contains("tablut, go"), "{e}");
        assert_eq!(
            GameKind::names(),
            "chess, russian-draughts (or draughts), tablut, go"
        );
    }

    #[test]
    fn tables_say_what_the_records_and_grids_have_always_been() {
        let rows: Vec<_> = GameKind::ALL
            .iter()
            .map(|k| {
                (
                    k.extension(),
                    k.default_grid(),
                    k.extension() == "pgn",
                    k.start_key(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("pgn", "8x8".to_string(), true, "fen"),
                ("pdn", "8x8".to_string(), false, "fen"),
                ("txt", "9x9".to_string(), false, "position"),
                ("sgf", "19x19:points".to_string(), false, "position"),
            ]
        );
    }

    #[test]
    fn go_is_played_on_points_and_recorded_in_sgf() {
        let go = GameKind::Go;
        assert_eq!(
            (go.name(), go.display_name(), go.extension()),
            ("go", "Go", "sgf")
        );
        assert_eq!(go.default_grid(), "19x19:points");
        assert_eq!((go.cells(), go.sites()), ((18, 18), (19, 19)));
        assert_eq!(go.grids(), ["19x19:points", "13x13:points", "9x9:points"]);
        assert_eq!(go.board_size("9X9:points"), Some(9));
        assert_eq!(go.board_size("9x9"), None);
        assert_eq!(GameKind::Chess.board_size("8x8"), None);
        assert_eq!(GameKind::Tablut.grids(), ["9x9"]);
        assert!(!go.checkered() && go.points());
        assert_eq!((go.move_number(1), go.move_number(2)), ((1, "."), (2, ".")));
        let chess = GameKind::Chess;
        assert_eq!(
            (chess.move_number(1), chess.move_number(4)),
            ((1, "."), (2, "..."))
        );
        assert_eq!(go.start_key(), "position");
        assert!(GameKind::ALL.contains(&go));
    }
}
