//! Grid geometry: grid specs, the board's corners in an image, homographies,
//! rectification to a canonical top-down view, board profiles, and lens calibration.
//! Knows nothing of pieces or rules.

mod corners;
mod grid;
mod homography;
mod lens;
mod pose;
mod profile;
mod rectify;
mod testcard;
mod viewpoint;

pub use corners::Corners;
pub use grid::{GridSpec, MAX_CELLS, MIN_CELLS};
pub use homography::Homography;
pub use lens::{
    calibrate, find_checkerboard, Calibration, CameraProfile, CheckerPattern, Undistorter,
};
pub use pose::BoardPose;
pub use profile::BoardProfile;
pub use rectify::{
    draw_orientation, draw_overlay, draw_rectified_grid, rectify, RectifyLayout, RectifyPlan,
};
pub use testcard::perspective_test_card;
pub use viewpoint::Viewpoint;

/// What can go wrong with geometry input.
#[derive(Debug, thiserror::Error)]
pub enum GeometryError {
    #[error("bad grid '{spec}': {why}")]
    BadGrid { spec: String, why: String },
    #[error("bad corners '{corners}': {why}")]
    BadCorners { corners: String, why: String },
    #[error("bad board profile '{path}': {why}")]
    BadProfile { path: String, why: String },
    #[error("bad camera profile '{path}': {why}")]
    BadCameraProfile { path: String, why: String },
    #[error("bad checkerboard pattern '{pattern}': {why}")]
    BadPattern { pattern: String, why: String },
    #[error("the image is empty")]
    EmptyImage,
    #[error("OpenCV: {0}")]
    OpenCv(String),
}

impl GeometryError {
    fn cv(e: opencv::Error) -> GeometryError {
        GeometryError::OpenCv(e.message)
    }
}
