//! Tournament mode: many boards from one machine. A round file names the boards
//! ([`RoundFile`]); every board is recorded on its own thread (`run_round`) into
//! its own record, taken up again from disk after a restart or a failure; the
//! round's live state ([`Round`]) feeds the combined round PGN, rewritten after
//! every accepted move, and the live pages of [`crate::server`]. Arbiter actions
//! (`Action`) reach a running recorder as commands between frames.

/// `FrameSource` for one of the round's wrappers that passes frames on: all is
/// asked of its `inner` source. `cut`: the wrapper leaves the pixels alone, so
/// frames cut below it (`FrameSource::cut_to`) are what it would pass on cut.
macro_rules! source_of_inner {
    (cut $t:ty) => {
        source_of_inner!(@impl $t, {
            fn cut_to(&mut self, rect: opencv::core::Rect) -> bool {
                self.inner.cut_to(rect)
            }
        });
    };
    (@impl $t:ty, { $($extra:tt)* }) => {
        impl FrameSource for $t {
            fn name(&self) -> &str {
                self.inner.name()
            }
            fn is_offline(&self) -> bool {
                self.inner.is_offline()
            }
            fn len_hint(&self) -> Option<usize> {
                self.inner.len_hint()
            }
            fn fps(&self) -> f64 {
                self.inner.fps()
            }
            fn take_warnings(&mut self) -> Vec<String> {
                self.inner.take_warnings()
            }
            fn end_reason(&self) -> Option<String> {
                self.inner.end_reason()
            }
            fn photos(&self) -> Option<&[std::path::PathBuf]> {
                self.inner.photos()
            }
            fn memo(&self) -> Option<std::sync::Arc<boardscribe_vision::capture::SharedMemo>> {
                self.inner.memo()
            }
            $($extra)*
        }
    };
    ($t:ty) => {
        source_of_inner!(@impl $t, {});
    };
}

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
