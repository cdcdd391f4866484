//! Grid geometry: grid specs, the board's corners in an image, homographies,
//! rectification to a canonical top-down view, board profiles, and lens calibration.
//! Knows nothing of pieces or rules.

mod corners;
mod grid;
mod homography;
mod lens;
pub(crate) mod mat3;
mod pose;
mod profile;
mod rectify;
#[cfg(test)]
mod rectify_tests;
#[cfg(any(test, feature = "testing"))]
mod testcard;
mod viewpoint;

pub(crate) use corners::quad_contains;
pub use corners::Corners;
pub use grid::GridSpec;
pub(crate) use homography::Homography;
pub use lens::calibrate;
pub use lens::find_checkerboard;
pub use lens::Calibration;
pub use lens::CameraProfile;
pub use lens::CheckerPattern;
pub use lens::Undistorter;
pub use pose::BoardPose;
pub use profile::{lens_profile, BoardProfile};
pub use rectify::draw_number;
pub use rectify::draw_overlay;
pub use rectify::draw_rectified_grid;
pub use rectify::draw_white_side;
pub use rectify::rectify;
pub use rectify::RectifyLayout;
pub(crate) use rectify::RectifyPlan;
#[cfg(any(test, feature = "testing"))]
pub use testcard::perspective_test_card;
pub(crate) use viewpoint::Viewpoint;

/// A grid spec (`8x8`, `19x19:points`) or a board's corners refused: text that
/// does not read, or four points that are not a board's outline. One type for
/// both, as they are given together (flags, profiles, round files) and reported
/// alike.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("bad {what} '{text}': {why}")]
#[non_exhaustive]
pub struct SpecError {
    /// What was refused: `grid` or `corners`.
    pub(crate) what: &'static str,
    /// The text as given (or as written, for corners given as numbers).
    pub(crate) text: String,
    /// Where in the text the problem starts (1 for the first character); None
    /// when the fault is the shape, not a place in the text.
    pub(crate) column: Option<usize>,
    /// What is wrong.
    pub(crate) why: String,
}

/// What can go wrong with geometry input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// A `--grid` or `--corners` that do not read, or corners that are not a board.
    #[error(transparent)]
    BadSpec(#[from] SpecError),
    /// A board profile that does not read.
    #[error("bad board profile '{path}': {why}")]
    BadProfile {
        /// The profile's file.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// A camera profile that does not read.
    #[error("bad camera profile '{path}': {why}")]
    BadCameraProfile {
        /// The profile's file.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// A calibration pattern that does not read.
    #[error("bad checkerboard pattern '{pattern}': {why}")]
    BadPattern {
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        why: String,
    },
    /// A camera profile measured at another aspect ratio than the frames.
    #[error("the frame is {}x{} but the camera profile was measured on {}x{} photos, another aspect ratio (a cropped camera mode?); calibrate again at {}x{}", frame.0, frame.1, profile.0, profile.1, frame.0, frame.1)]
    OtherAspect {
        /// The frame's size in pixels.
        frame: (u32, u32),
        /// The size the profile was measured at.
        profile: (u32, u32),
    },
    /// An image without pixels.
    #[error("the image is empty")]
    EmptyImage,
    /// A photo to calibrate from that cannot be read.
    #[error(transparent)]
    Photo(#[from] crate::capture::CaptureError),
    /// Photos to calibrate from of two sizes: two camera modes.
    #[error("the photos must all be one size, from one camera mode: '{}' is {}x{} but '{}' is {}x{}", photo.display(), size.0, size.1, first.display(), first_size.0, first_size.1)]
    PhotoSizes {
        /// The photo of another size.
        photo: std::path::PathBuf,
        /// Its size.
        size: (u32, u32),
        /// The first photo.
        first: std::path::PathBuf,
        /// Its size.
        first_size: (u32, u32),
    },
    /// The checkerboard found in too few photos to calibrate from.
    #[error("the {pattern} checkerboard was found in {found} of {photos} photos; at least {need} are needed (check --pattern counts inner corners: a board of 10x7 squares is 9x6; the whole board must be in the photo)")]
    TooFewViews {
        /// The pattern, as `--pattern` gives it.
        pattern: String,
        /// Photos it was found in.
        found: usize,
        /// Photos looked at.
        photos: usize,
        /// Photos it must be found in.
        need: usize,
    },
    /// OpenCV failed.
    #[error("OpenCV: {0}")]
    OpenCv(String),
}

/// The column (1-based, in characters) in `text` of byte `offset`.
fn column_at(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(1, |head| head.chars().count() + 1)
}

/// The byte offset of `part` within `within`, when it is a slice of it.
fn offset_in(within: &str, part: &str) -> Option<usize> {
    let (start, at) = (within.as_ptr() as usize, part.as_ptr() as usize);
    (at >= start && at <= start + within.len()).then(|| at - start)
}

impl GeometryError {
    fn cv(e: opencv::Error) -> GeometryError {
        GeometryError::OpenCv(e.message)
    }
}
