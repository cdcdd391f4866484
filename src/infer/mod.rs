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
mod sites;
mod start;
mod suspects;

pub use catchup::{CatchUp, CatchUpGate};
pub use change::ChangeModel;
pub use explain::{explain, moved_on, occupancy, ranked, InferConfig, Verdict};
pub use follow::{Alternative, FollowEvent, Follower};
pub use irregular::{diagnose, irregular_position, noticed, reads_clearly, Irregularity};
pub use join::{join, JoinConfig, JoinLine, Joined};
pub use observation::{occ_index, one_hot, squares, Observation};
pub use orientation::WhiteSide;
pub use sites::{SiteMap, SiteProbs};
pub use start::{check_start, start_likelihood, start_mismatch, StartCheck, StartMismatch};
pub use suspects::Suspects;

#[cfg(test)]
mod alternatives_tests;
#[cfg(test)]
mod tests;
