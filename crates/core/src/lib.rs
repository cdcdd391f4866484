//! boardscribe's core: what a board game recorder knows without a camera.
//!
//! ```text
//! game    which game is played: its kind and its parsed start, the one dispatch
//! rules   chess (shakmaty), Russian draughts, Tablut, Go: legal moves, FEN, perft
//! infer   legal continuations scored against what a camera saw; irregularities named
//! record  PGN, PDN, Tablut and SGF records of the accepted moves, written safely, read back
//! ```
//!
//! No images, no OpenCV, no files but the records: this crate builds and tests in
//! seconds, and anyone who wants the rules engines or the PGN reader needs only it.
//!
//! ```
//! use boardscribe_core::rules::{chess::Chess, Rules};
//! let game = Chess::default();
//! assert_eq!(game.legal_moves().len(), 20);
//! ```

#![warn(unreachable_pub)]
#![deny(missing_docs)]
pub mod game;
pub mod infer;
pub mod record;
pub mod rules;

// The workspace's seeded generator (a hash of views; random lines in tests).
use boardscribe_rng as rng;

pub use game::{GameKind, GameSetup, GameVisitor, Setup, SetupError};
pub use infer::{InferConfig, WhiteSide};
pub use record::{EditError, PgnError, ReadError, SgfError, TextError};
pub use rules::chess::Chess;
pub use rules::go::Go;
pub use rules::russian_draughts::RussianDraughts;
pub use rules::tablut::Tablut;
pub use rules::{
    FenError, IllegalMove, MoveError, Occupant, Outcome, ReplayError, Rules, Side, Square,
};
