//! Where `record` and `event` find the board: the corners given, or else the grid
//! placed from the frames of the input's first seconds (`locate::across`).

use anyhow::bail;
use opencv::prelude::MatTraitConst;

use super::board::{check_grid_in_frame, corners_text, BoardArgs};
use super::values::plural;
use crate::capture::{self, Frame, FrameSource};
use crate::geometry::BoardPose;
use crate::locate::{Across, Choice, Look, Sampling};

/// Frames held to be replayed once the grid is placed stop the sampling at this
/// many bytes (once a grid is found): about two seconds of 1920x1080 at 15 frames
/// a second, the whole span at 640x480.
const HELD_BYTES: usize = 192 << 20;

/// The board as `find_board` leaves it.
pub(super) struct Found {
    pub pose: BoardPose,
    /// The frame the grid was chosen from; `None` when its corners were given.
    pub located_in: Option<opencv::core::Mat>,
    /// The source, with the frames looked at put back in front.
    pub source: Box<dyn FrameSource>,
    /// The first frame (None: the input has none).
    pub first: Option<opencv::core::Mat>,
}

/// The board's pose: from the corners given (checked against the first frame),
/// or else placed from frames sampled over the first seconds of a video (the
/// first photo with a grid for photos); see [`Sampling`]. Every frame read is
/// held and put back in front of the source. A signal stops the search; `debug`
/// prints each frame looked at.
pub(super) fn find_board(
    board: &BoardArgs,
    mut source: Box<dyn FrameSource>,
    stop: &std::sync::atomic::AtomicBool,
    input: &str,
    debug: bool,
) -> anyhow::Result<Found> {
    let stopped = || stop.load(std::sync::atomic::Ordering::SeqCst);
    if !board.needs_locating()? {
        let pose = board.pose()?;
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
        return Ok(Found {
            pose,
            located_in: None,
            source: Box::new(capture::Prepended::new(held, source)),
            first,
        });
    }
    let profile = board.load_profile()?;
    let grid = board.grid(profile.as_ref())?;
    let photos = source.photos().is_some();
    let sampling = if photos {
        Sampling::PHOTOS
    } else {
        Sampling::VIDEO
    };
    let frame_s = 1.0 / source.fps().max(1e-3);
    let mut across = Across::new(grid, sampling);
    let mut held: Vec<Frame> = Vec::new();
    let mut held_bytes = 0usize;
    let mut last_error = None;
    while !across.done() {
        let Some(frame) = source.next() else {
            break;
        };
        if stopped() {
            bail!(
                "stopped by {} before the board was found",
                super::signals::caught()
                    .map(super::signals::name)
                    .unwrap_or_else(|| "a signal".into())
            );
        }
        let frame = frame?;
        held_bytes += frame.image.total() * frame.image.elem_size().unwrap_or(3);
        held.push(frame);
        let n = held.len() - 1;
        let frame = &held[n];
        if !across.wants(frame.time_s, frame_s) {
            continue;
        }
        let found = match crate::locate::locate(&frame.image, grid) {
            Ok(found) => Some(found),
            Err(e) => {
                let what = frame_name(frame);
                last_error = Some(anyhow::Error::new(e).context(format!(
                    "no --corners given, and locating the board in {what}"
                )));
                None
            }
        };
        if debug {
            errln!(
                "locate: {}: {}",
                frame_name(frame),
                found.map_or_else(
                    || "no grid".to_string(),
                    |f| format!(
                        "\"{}\" (confidence {:.2})",
                        corners_text(&f.corners),
                        f.confidence
                    )
                )
            );
        }
        across.add(Look {
            frame: n,
            time_s: frame.time_s,
            found,
        });
        if held_bytes > HELD_BYTES && across.choice().is_some() {
            break;
        }
    }
    let Some(choice) = across.choice() else {
        if let Some(why) = source.end_reason() {
            bail!("{why}");
        }
        return Err(last_error.unwrap_or_else(|| anyhow::anyhow!("the input has no frames")));
    };
    let chosen = &held[choice.frame];
    errln!("{}", found_message(grid, &choice, &frame_name(chosen)));
    let image = chosen.image.clone();
    let first = held.first().map(|f| f.image.clone());
    Ok(Found {
        pose: BoardPose::new(grid, choice.located.corners),
        located_in: Some(image),
        source: Box::new(capture::Prepended::new(held, source)),
        first,
    })
}

/// A frame as messages name it: a photo by its file, a video frame by its time.
fn frame_name(frame: &Frame) -> String {
    match &frame.path {
        Some(p) => format!("'{}'", p.display()),
        None => format!("the frame at {:.1} s", frame.time_s),
    }
}

/// Says where the grid is, and which frames placed it there.
fn found_message(grid: crate::geometry::GridSpec, c: &Choice, chosen: &str) -> String {
    let corners = corners_text(&c.located.corners);
    let confidence = c.located.confidence;
    if c.looked <= 1 {
        return format!(
            "found the {grid} grid in {chosen}: --corners \"{corners}\" (confidence {confidence:.2})"
        );
    }
    let elsewhere = if c.elsewhere > 0 {
        format!(
            "; {} placed it elsewhere, with less support",
            plural(c.elsewhere, "other frame", "other frames")
        )
    } else {
        String::new()
    };
    format!(
        "found the {grid} grid in {} of {} frames from {:.1} s to {:.1} s{elsewhere}: --corners \"{corners}\" (confidence {confidence:.2}, {chosen})",
        c.agreeing, c.looked, c.from_s, c.to_s
    )
}
