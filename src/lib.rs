//! boardscribe records board games played on a real board, from a camera.
//!
//! The product is a pipeline, one module per stage, each knowing only the ones
//! above it:
//!
//! ```text
//! capture   frames from a video, a photo folder, a camera or a stream
//! geometry  grid spec, corners, homography, rectification     (locate finds the corners)
//! classify  per-cell empty / white / black from the ONNX model
//! track     still or moving, hands over the board, stable views
//! rules     chess, Russian draughts, Tablut: legal moves      (no images, no files)
//! infer     legal continuations scored against what the camera saw
//! record    PGN, PDN and Tablut records of the accepted moves
//! pipeline  wires the stages; speaks in `Event`s             (round/server: tournaments)
//! ```
//!
//! The lab beside it (the renderer [`synth`], the photo sets and their measures
//! [`sets`]) is hidden from these docs: it builds and checks the product, it is no
//! part of it. The command line lives in the binary (`src/main.rs`, `src/cli/`).
//!
//! ```no_run
//! use boardscribe::{capture, rectify, BoardPose, Corners, GridSpec, RectifyLayout};
//! let grid: GridSpec = "8x8".parse()?;
//! let corners: Corners = "102,61 538,70 590,452 48,440".parse()?;
//! let pose = BoardPose::new(grid, corners);
//! for frame in capture::open("game.mp4", Default::default())? {
//!     let top_down = rectify(&frame?.image, &pose, &RectifyLayout::default())?;
//!     // ... classify, track, infer, record
//! #   let _ = top_down;
//! }
//! # Ok::<(), anyhow::Error>(())
//! ```

// The stages, downhill.
pub mod capture;
pub mod classify;
pub mod geometry;
pub mod infer;
pub mod locate;
pub mod pipeline;
pub mod record;
pub mod round;
pub mod rules;
pub mod server;
pub mod track;

// The lab and small shared parts: reachable for the binary and the tests, not API.
#[doc(hidden)]
pub mod cputime;
mod rng;
#[doc(hidden)]
pub mod sets;
#[doc(hidden)]
pub mod synth;

// What a user of the library needs, by stage.
pub use capture::{Frame, FrameSource, SourceOptions};
pub use classify::{Classifier, OccupancyModel};
pub use geometry::{
    rectify, BoardPose, Corners, CornersError, GeometryError, GridSpec, GridSpecError,
    RectifyLayout,
};
pub use infer::{InferConfig, WhiteSide};
pub use locate::{locate, LocateError, Located};
pub use pipeline::{Event, EventSink, RecordJob, RecordSummary};
pub use record::{EditError, PdnError, PgnError, ReadError, TablutRecordError};
pub use rules::chess::Chess;
pub use rules::russian_draughts::RussianDraughts;
pub use rules::tablut::Tablut;
pub use rules::{
    FenError, IllegalMove, MoveError, Occupant, Outcome, ReplayError, Rules, Side, Square,
};
pub use track::TrackConfig;
