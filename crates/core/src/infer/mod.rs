//! Move inference, generic over the rules: legal continuations scored against the
//! observed cells. Never knows pixels or the classifier.

mod catchup;
mod change;
mod explain;
mod follow;
mod irregular;
/// Joining a game under way: the line from the start that reaches a first view.
pub mod join;
mod observation;
mod orientation;
mod placement;
mod sites;
mod start;
mod suspects;

pub use catchup::{CatchUp, CatchUpGate};
pub use explain::InferConfig;
pub use explain::{explain, moved_on, occupancy, ranked, Verdict};
pub use follow::{Alternative, FollowEvent, Follower};
pub use irregular::{diagnose, irregular_position, noticed, reads_clearly, Irregularity};
pub use join::{extend, join, last_mover, JoinConfig, JoinLine, Joined};
pub use observation::{occ_index, one_hot, squares, Observation};
pub use orientation::{NotASide, WhiteSide};
pub use placement::{placement_classes, PlacementError};
pub use sites::{SiteMap, SiteProbs};
pub use start::{check_start, start_likelihood, start_mismatch, StartCheck, StartMismatch};
pub use suspects::Suspects;

/// Sure readings of `game` seen with White at `side` on an 8x8 grid (tests).
#[cfg(test)]
pub(crate) fn sure_view(game: &crate::rules::chess::Chess, side: WhiteSide) -> Vec<SiteProbs> {
    use crate::rules::Rules;
    let map = SiteMap::for_game(game, side, 8, 8).expect("chess fits 8x8");
    (0..64)
        .map(|i| Some(one_hot(game.occupant(map.square(i)), 0.95)))
        .collect()
}

#[cfg(test)]
mod alternatives_tests;
#[cfg(test)]
mod tests;
