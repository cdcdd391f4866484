//! Where `record` and `event` find the board: the corners given, or else the grid
//! placed from the frames of the input's first seconds (`locate::Across`).

use std::sync::atomic::{AtomicBool, Ordering};

use opencv::core::{Mat, Rect};
use opencv::prelude::MatTraitConst;

use super::pick::one_of;
use super::{Event, EventSink};
use crate::capture::{self, CaptureError, Frame, FrameSource};
use crate::geometry::{BoardPose, Corners, GridSpec};
use crate::locate::LocateError;
use crate::locate::{Across, Look, Sampling};

/// Frames held to be replayed once the grid is placed stop the sampling at this
/// many bytes (once a grid is found): about two seconds of 1920x1080 at 15 frames
/// a second, the whole span at 640x480.
const HELD_BYTES: usize = 192 << 20;

/// How the board is placed in the image.
#[derive(Clone, Copy, Debug)]
pub enum Placement {
    /// The corners were given (by flag or profile).
    Given(BoardPose),
    /// The grid is to be found in the first frames.
    Locate(GridSpec),
    /// The view holds several boards (a camera over a tournament table): the
    /// `board`-th of them (from 1, in reading order: rows from the top, each
    /// from the left), found in the first frames; everything after sees only
    /// its region of the frame.
    OneOf {
        /// The grid of the boards.
        grid: GridSpec,
        /// Which board, from 1.
        board: usize,
    },
}

/// The board as [`find_board`] leaves it.
pub struct Found {
    /// Where the board is.
    pub pose: BoardPose,
    /// The frame the grid was chosen from; `None` when its corners were given.
    pub located_in: Option<Mat>,
    /// The source, with the frames looked at put back in front.
    pub source: Box<dyn FrameSource>,
    /// The first frame (None: the input has none).
    pub first: Option<Mat>,
    /// The part of the input's frames the source hands on, for one of several
    /// boards in a view (`Placement::OneOf`); None: whole frames. The pose, the
    /// frames and the events' corners are in its pixels.
    pub region: Option<Rect>,
}

/// Why the board could not be found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FindError {
    /// The stop flag was raised while the grid was sought.
    #[error("stopped before the board was found")]
    Stopped,
    /// A frame could not be read.
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// The corners given leave the grid outside the first frame.
    #[error(transparent)]
    Outside(#[from] OutsideError),
    /// No frame showed a grid; the last one's reason.
    #[error("no --corners given, and locating the board in {what}")]
    Locate {
        /// The frame, as messages name it.
        what: String,
        /// Why no grid was found there.
        #[source]
        source: LocateError,
    },
    /// The source ended early, for this reason.
    #[error("{0}")]
    Ended(String),
    /// The source has no frame at all.
    #[error("the input has no frames")]
    NoFrames,
    /// Fewer boards were found in the view than the one asked for.
    #[error("board {board} was asked for, but the most boards found in one frame of the first {looked} looked at was {most}")]
    TooFewBoards {
        /// The board asked for, from 1.
        board: usize,
        /// The most boards found in one frame.
        most: usize,
        /// Frames looked at.
        looked: usize,
    },
}

/// Corners that put the grid outside an image.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutsideError {
    /// No site of the grid lies in the image.
    #[error("the corners \"{corners}\" put the board outside {what}, which is {w}x{h} pixels: no square of the grid lies in it")]
    Board {
        /// The corners, as `--corners` takes them.
        corners: String,
        /// The image, as messages name it.
        what: String,
        /// The image's width.
        w: u32,
        /// The image's height.
        h: u32,
    },
    /// Some squares of the grid lie outside the image.
    #[error("the corners \"{corners}\" put {outside} of the {total} squares of the grid outside {what}, which is {w}x{h} pixels: the corners lie outside the frame, and a square outside it cannot be read; give corners that keep the whole grid in the frame (`boardscribe locate` finds them)")]
    Squares {
        /// The corners, as `--corners` takes them.
        corners: String,
        /// Squares outside.
        outside: usize,
        /// Squares in all.
        total: usize,
        /// The image, as messages name it.
        what: String,
        /// The image's width.
        w: u32,
        /// The image's height.
        h: u32,
    },
}

/// Refuses corners that put the whole board outside the image (a typo, corners
/// of another photo's size): no site of the grid would be seen.
pub fn check_in_image(pose: &BoardPose, image: &Mat, what: &str) -> Result<(), OutsideError> {
    let (w, h) = (image.cols().max(0) as u32, image.rows().max(0) as u32);
    if pose.sites_in_image(w, h) == 0 {
        return Err(OutsideError::Board {
            corners: format!("{:.1}", pose.corners()),
            what: what.to_string(),
            w,
            h,
        });
    }
    Ok(())
}

/// Refuses corners that put any square of the grid outside the frame a recording
/// starts from: a square outside cannot be read, so the view could never be
/// checked against the start position and a move there would go unseen.
pub(crate) fn check_grid_in_frame(
    pose: &BoardPose,
    image: &Mat,
    what: &str,
) -> Result<(), OutsideError> {
    check_in_image(pose, image, what)?;
    let (w, h) = (image.cols().max(0) as u32, image.rows().max(0) as u32);
    let total = (pose.grid().rows * pose.grid().cols) as usize;
    let outside = total - pose.sites_in_image(w, h).min(total);
    if outside > 0 {
        return Err(OutsideError::Squares {
            corners: format!("{:.1}", pose.corners()),
            outside,
            total,
            what: what.to_string(),
            w,
            h,
        });
    }
    Ok(())
}

/// The board's pose: from the corners given (checked against the first frame),
/// or else placed from frames sampled over the first seconds of a video (the
/// first photo with a grid for photos); see `Sampling`. Every frame read is
/// held and put back in front of the source. `stop` ends the search; `debug`
/// reports each frame looked at ([`Event::Looked`]); the grid placed is
/// reported as [`Event::BoardFound`]. `input` names the source in messages.
pub fn find_board(
    placement: Placement,
    mut source: Box<dyn FrameSource>,
    stop: &AtomicBool,
    input: &str,
    debug: bool,
    events: &mut dyn EventSink,
) -> Result<Found, FindError> {
    let grid = match placement {
        Placement::Given(pose) => return given(pose, source, input),
        Placement::Locate(grid) => grid,
        Placement::OneOf { grid, board } => {
            return one_of(grid, board, source, stop, input, debug, events)
        }
    };
    let sampling = if source.photos().is_some() {
        Sampling::PHOTOS
    } else {
        Sampling::VIDEO
    };
    let frame_s = 1.0 / source.fps().max(1e-3);
    let mut across = Across::new(grid, sampling);
    let mut held = Held::default();
    let mut last_error = None;
    while !across.done() {
        let Some((n, frame)) = held.next(source.as_mut(), stop)? else {
            break;
        };
        if !across.wants(frame.time_s, frame_s) {
            continue;
        }
        let found = match crate::locate::locate(&frame.image, grid) {
            Ok(found) => Some(found),
            Err(source) => {
                last_error = Some(FindError::Locate {
                    what: frame_name(frame),
                    source,
                });
                None
            }
        };
        if debug {
            events.emit(Event::Looked {
                photo: photo_name(frame),
                time: frame.time_s,
                corners: found.as_ref().map(|f| points(&f.corners)),
                confidence: found.as_ref().map_or(0.0, |f| f.confidence),
            });
        }
        across.add(Look {
            frame: n,
            time_s: frame.time_s,
            found,
        });
        if held.bytes > HELD_BYTES && across.choice().is_some() {
            break;
        }
    }
    let Some(c) = across.choice() else {
        if let Some(why) = source.end_reason() {
            return Err(FindError::Ended(why));
        }
        return Err(last_error.unwrap_or(FindError::NoFrames));
    };
    let held = held.frames;
    let chosen = &held[c.frame];
    events.emit(Event::BoardFound {
        grid: grid.to_string(),
        corners: points(&c.located.corners),
        confidence: c.located.confidence,
        photo: photo_name(chosen),
        time: chosen.time_s,
        looked: c.looked,
        agreeing: c.agreeing,
        elsewhere: c.elsewhere,
        from_s: c.from_s,
        to_s: c.to_s,
    });
    let image = chosen.image.clone();
    let first = held.first().map(|f| f.image.clone());
    Ok(Found {
        pose: BoardPose::new(grid, c.located.corners),
        located_in: Some(image),
        source: Box::new(capture::Prepended::new(held, source)),
        first,
        region: None,
    })
}

/// The corners given, checked against the first frame (named by its file, or
/// as `input`'s first frame).
fn given(
    pose: BoardPose,
    mut source: Box<dyn FrameSource>,
    input: &str,
) -> Result<Found, FindError> {
    let mut held = Vec::new();
    if let Some(frame) = source.next() {
        let frame = frame?;
        let what = frame.path.as_ref().map_or_else(
            || format!("the first frame of '{input}'"),
            |p| format!("'{}'", p.display()),
        );
        check_grid_in_frame(&pose, &frame.image, &what)?;
        held.push(frame);
    }
    let first = held.first().map(|f| f.image.clone());
    Ok(Found {
        pose,
        located_in: None,
        source: Box::new(capture::Prepended::new(held, source)),
        first,
        region: None,
    })
}

/// The corners as events carry them, unrounded.
fn points(c: &Corners) -> [[f64; 2]; 4] {
    c.points().map(|(x, y)| [x, y])
}

/// A photo's file, as messages name it; None for a video's frame.
fn photo_name(frame: &Frame) -> Option<String> {
    frame.path.as_ref().map(|p| p.display().to_string())
}

/// A frame as messages name it: a photo by its file, a video frame by its time.
pub(crate) fn frame_name(frame: &Frame) -> String {
    frame_text(photo_name(frame).as_deref(), frame.time_s)
}

/// A frame as messages name it, from a photo's file (or None) and its time.
pub fn frame_text(photo: Option<&str>, time: f64) -> String {
    match photo {
        Some(p) => format!("'{p}'"),
        None => format!("the frame at {time:.1} s"),
    }
}

/// Frames read while the board is looked for, to be put back in front of the
/// source once it is found.
#[derive(Default)]
pub(super) struct Held {
    pub(super) frames: Vec<Frame>,
    /// Their pixels' bytes.
    pub(super) bytes: usize,
}

impl Held {
    /// The source's next frame, held, and its place among those held; `None` at
    /// the source's end.
    pub(super) fn next(
        &mut self,
        source: &mut dyn FrameSource,
        stop: &AtomicBool,
    ) -> Result<Option<(usize, &Frame)>, FindError> {
        let Some(frame) = source.next() else {
            return Ok(None);
        };
        if stop.load(Ordering::SeqCst) {
            return Err(FindError::Stopped);
        }
        let frame = frame?;
        self.bytes += frame.image.total() * frame.image.elem_size().unwrap_or(3);
        self.frames.push(frame);
        let n = self.frames.len() - 1;
        Ok(Some((n, &self.frames[n])))
    }
}
