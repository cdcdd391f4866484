//! What can stop a recording: the frames, the classifier, the record's file, or a
//! game that the grid cannot hold.

use std::path::PathBuf;

use crate::capture::CaptureError;
use crate::classify::ModelError;
use crate::geometry::{GeometryError, GridSpec};
use crate::infer::WhiteSide;

/// Why a recording (or a step of it) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// The source could not give a frame.
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// The classifier could not read the sites.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The board could not be rectified.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// OpenCV failed on a frame.
    #[error(transparent)]
    OpenCv(#[from] opencv::Error),
    /// The record could not be written.
    #[error("cannot write the record '{}'", path.display())]
    Write {
        /// The record's path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The game's board does not fit the grid (with White at `side`, when given).
    #[error("a {files}x{ranks} game does not fit the {grid} grid{}", side.map_or(String::new(), |s| format!(" with White at the {s} edge")))]
    DoesNotFit {
        /// The game's files.
        files: u8,
        /// The game's ranks.
        ranks: u8,
        /// The grid given.
        grid: GridSpec,
        /// White's edge, when given.
        side: Option<WhiteSide>,
    },
}
