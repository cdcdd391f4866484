//! boardscribe's vision: from frames to the moves of a game.
//!
//! The pipeline, one module per stage, each knowing only the ones above it:
//!
//! ```text
//! capture   frames from a video, a photo folder, a camera or a stream
//! geometry  grid spec, corners, homography, rectification     (locate finds the corners)
//! classify  per-cell empty / white / black from the ONNX model
//! track     still or moving, hands over the board, stable views
//! pipeline  wires the stages to the core's inference and records; speaks in `Event`s
//! ```
//!
//! The rules, the inference and the records are `boardscribe-core`'s.
//!
//! ```no_run
//! use boardscribe_vision::{capture, rectify, BoardPose, Corners, GridSpec, RectifyLayout};
//! let grid: GridSpec = "8x8".parse()?;
//! let corners: Corners = "102,61 538,70 590,452 48,440".parse()?;
//! let pose = BoardPose::new(grid, corners);
//! for frame in capture::open("game.mp4", Default::default())? {
//!     let top_down = rectify(&frame?.image, &pose, &RectifyLayout::default())?;
//!     // ... classify, track, infer, record
//! #   let _ = top_down;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The core's modules under the names the stages use (`crate::rules`, ...).
#![warn(unreachable_pub)]
#![deny(missing_docs)]
use boardscribe_core::{game, infer, record, rules};
// The workspace's seeded generator (the locator's sampling).
use boardscribe_rng as rng;

// The stages, downhill.
pub mod capture;
pub mod classify;
pub mod geometry;
pub mod locate;
pub mod pipeline;
pub mod track;

// What a user of the library needs, by stage.
pub use capture::{Frame, FrameSource, SourceOptions};
pub use classify::{Classifier, OccupancyModel};
pub use geometry::{
    rectify, BoardPose, Corners, GeometryError, GridSpec, RectifyLayout, SpecError,
};
pub use locate::{locate, LocateError, Located};
pub use pipeline::{Event, EventSink, RecordJob, RecordSummary};
pub use track::TrackConfig;
