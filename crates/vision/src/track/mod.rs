//! Tracking: deciding when the board is still and visible, and which sites changed
//! since the last still view. Knows nothing of rules or pieces.

mod change;
mod drift;
mod motion;
mod regrid;
mod skin;

pub use change::site_changes;
pub use motion::TrackConfig;
pub(crate) use motion::{BoardThumb, StillEvent, Tracker};
pub use regrid::GridCheck;
pub use regrid::GridGuard;
pub(crate) use skin::skin_fraction;

use opencv::core::{Mat, Size, ToInputArray};
use opencv::imgproc;

/// A BGR image shrunk by `scale` (area averaging; none at 1 or more) and made grey:
/// what the motion thumbnail and the grid check compare.
pub(crate) fn shrunk_grey(bgr: &impl ToInputArray, scale: f64) -> opencv::Result<Mat> {
    let mut grey = Mat::default();
    if scale >= 1.0 {
        imgproc::cvt_color_def(bgr, &mut grey, imgproc::COLOR_BGR2GRAY)?;
        return Ok(grey);
    }
    let mut small = Mat::default();
    imgproc::resize(
        bgr,
        &mut small,
        Size::default(),
        scale,
        scale,
        imgproc::INTER_AREA,
    )?;
    imgproc::cvt_color_def(&small, &mut grey, imgproc::COLOR_BGR2GRAY)?;
    Ok(grey)
}
