//! boardscribe records board games played on a real board, from a camera.
//!
//! The pipeline, one module per stage: [`capture`] reads timestamped frames from a
//! video, a photo folder, a camera or a stream; [`geometry`] places the grid in the
//! image and rectifies it to a top-down view.
//!
//! ```no_run
//! use boardscribe::geometry::{BoardPose, Corners, GridSpec, RectifyLayout, rectify};
//! let grid: GridSpec = "8x8".parse()?;
//! let corners: Corners = "102,61 538,70 590,452 48,440".parse()?;
//! let pose = BoardPose::new(grid, corners);
//! for frame in boardscribe::capture::open("game.mp4", Default::default())? {
//!     let top_down = rectify(&frame?.image, &pose, &RectifyLayout::default())?;
//!     // ... classify, track, infer, record
//! #   let _ = top_down;
//! }
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod capture;
pub mod classify;
pub mod cli;
pub mod cputime;
pub mod geometry;
pub mod infer;
pub mod locate;
pub mod pipeline;
pub mod record;
pub mod round;
pub mod rules;
pub mod server;
pub mod sets;
pub mod synth;
pub mod track;
