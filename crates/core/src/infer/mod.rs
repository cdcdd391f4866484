//! Move inference, generic over the rules: legal continuations scored against the
//! observed cells. Never knows pixels or the classifier.

mod catchup;
mod change;
mod explain;
mod follow;
mod irregular;
mod join;
mod observation;
mod orientation;
mod placement;
mod sites;
mod start;
mod suspects;

pub use catchup::CatchUp;
pub use catchup::CatchUpGate;
pub use explain::explain;
#[cfg(test)]
pub(crate) use explain::moved_on;
pub(crate) use explain::occupancy;
pub use explain::ranked;
pub use explain::InferConfig;
#[cfg(test)]
pub(crate) use explain::Verdict;
pub use follow::Alternative;
pub use follow::Correction;
pub use follow::FollowEvent;
pub use follow::Follower;
pub use irregular::Irregularity;
pub use join::extend;
pub use join::join;
pub use join::last_mover;
pub use join::JoinConfig;
pub use join::JoinLine;
pub use join::Joined;
#[cfg(test)]
pub(crate) use observation::one_hot;
pub use observation::squares;
pub use observation::Observation;
pub use orientation::NotASide;
pub use orientation::WhiteSide;
pub use placement::placement_classes;
pub use placement::PlacementError;
pub use sites::SiteMap;
pub use sites::SiteProbs;
pub use start::check_start;
pub use start::start_likelihood;
pub use start::start_mismatch;
pub use start::view_set_up;
pub use start::StartCheck;
pub use start::StartMismatch;
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
mod go_tests;
#[cfg(test)]
mod tests;
