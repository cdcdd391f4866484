//! Tracking: deciding when the board is still and visible, and which sites changed
//! since the last still view. Knows nothing of rules or pieces.

mod change;
mod motion;
mod regrid;
mod skin;

pub use change::{changed_rects, rect_diffs};
pub use motion::{BoardThumb, StillEvent, TrackConfig, Tracker};
pub use regrid::{GridCheck, GridGuard};
pub use skin::skin_fraction;
