//! Tournament mode: many boards from one machine. A round file names the boards
//! ([`RoundFile`]); every board is recorded on its own thread (`run_round`) into
//! its own record, taken up again from disk after a restart or a failure; the
//! round's live state ([`Round`]) feeds the combined round PGN, rewritten after
//! every accepted move, and the live pages of [`crate::server`]. Arbiter actions
//! (`Action`) reach a running recorder as commands between frames.

mod diagram;
mod error;
mod file;
mod goban;
mod live;
mod place;
mod rewind;
mod sink;
mod supervise;
mod tap;

pub use diagram::Diagram;
// The game's kind, as the round file names it (`game = "chess"`).
pub use crate::game::GameKind;
pub(crate) use error::BoardError;
pub use error::RecordError;
pub use file::{
    BadValue, BoardSpec, EventInfo, LoadError, RoundFile, RoundFileError, FPS, MAX_FPS, QUIET_S,
};
pub(crate) use live::Action;
pub(crate) use live::ActionError;
pub(crate) use live::Audience;
pub(crate) use live::{board_tags, RemoteActs};
pub use live::{Alert, AlertKind, Board, BoardState, Round, Status, Update};
pub(crate) use place::{BoardSetup, PlaceError};
pub(crate) use sink::record_board;
pub(crate) use sink::BoardEnd;
pub use supervise::BoardReport;
pub(crate) use supervise::{run_round, BoardRunner};
pub(crate) use tap::{FrameSlot, Tapped};

/// A chess record of `ucis` from the start, as a recorder writes it (tests).
#[cfg(test)]
pub(crate) fn pgn_after(ucis: &[&str]) -> String {
    use crate::record::{GameRecord, PgnRecord, Tags};
    use crate::rules::{chess::Chess, Rules};
    let mut g = Chess::new();
    let mut rec = PgnRecord::start(&g, &Tags::default());
    for u in ucis {
        let m = g.parse_uci(u).expect("a legal move");
        GameRecord::push(&mut rec, &g, &m, None);
        g.play(&m).expect("a legal move");
    }
    rec.render()
}
