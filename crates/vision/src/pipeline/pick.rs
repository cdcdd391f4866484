//! One board of several in a camera view: which part of the frame is its own.
//! The boards are found in the first frames (`locate_all`, in reading order),
//! and the one asked for is cut out of every frame with a margin round it, so
//! that finding its grid, its stillness, its hands and finding it again after a
//! knock see that board alone: a neighbour's moves, hands and grid never reach
//! it except where they cross its region.

use std::sync::atomic::AtomicBool;

use opencv::core::Rect;
use opencv::prelude::MatTraitConst;

use super::find::{find_board, FindError, Found, Held, Placement};
use super::{Command, Event, EventSink};
use crate::capture::{self, FrameSource};
use crate::geometry::{Corners, GridSpec};

/// A board's region reaches this many of its cells past its grid: its border
/// with coordinates, hands coming in from outside (the rectified view's margin
/// is one cell), room to find it again after a knock, and its lines carrying on
/// past it, which tell `locate` a run off by a line (as `locate_all` places each
/// board again: with 1.5 cells, a rendered four-board table's board was placed a
/// row off in its region and recorded nothing, seed 11).
pub(crate) const REGION_CELLS: f64 = 2.5;

/// Seconds between the frames looked at for the boards of a view.
const PICK_STEP_S: f64 = 0.5;

/// Frames looked at, at the least, before a board is taken: a hand over one
/// board in the first frame may hide it, which would number the others wrong;
/// the frame showing the most boards is taken.
const PICK_LOOKS: usize = 3;

/// Frames looked at, at the most, while fewer boards than the one asked for
/// are found.
const PICK_MAX_LOOKS: usize = 10;

/// Frames held to be put back in front stop the search at this many bytes.
const HELD_BYTES: usize = 192 << 20;

/// The `board`-th board (from 1) of the view, its frames cut to its region and
/// its grid placed there as `find_board` places a lone board's. The events'
/// corners are in the input's pixels.
pub(super) fn one_of(
    grid: GridSpec,
    board: usize,
    source: Box<dyn FrameSource>,
    stop: &AtomicBool,
    input: &str,
    debug: bool,
    events: &mut dyn EventSink,
) -> Result<Found, FindError> {
    let (rect, source) = pick(grid, board, source, stop)?;
    let cropped = Box::new(capture::Cropped::new(source, rect));
    let mut shifted = Shifted::new(events, rect);
    let mut found = find_board(
        Placement::Locate(grid),
        cropped,
        stop,
        input,
        debug,
        &mut shifted,
    )?;
    found.region = Some(rect);
    Ok(found)
}

/// The region of the `board`-th board of the view (from 1), from the frame of
/// the first seconds that shows the most boards, and the source with the
/// frames read put back in front.
pub fn pick(
    grid: GridSpec,
    board: usize,
    mut source: Box<dyn FrameSource>,
    stop: &AtomicBool,
) -> Result<(Rect, Box<dyn FrameSource>), FindError> {
    let photos = source.photos().is_some();
    let half_frame = 0.5 / source.fps().max(1e-3);
    let mut held = Held::default();
    let mut next_look = f64::NEG_INFINITY;
    let (mut looked, mut most) = (0usize, 0usize);
    let mut best: Option<(Corners, (u32, u32))> = None;
    while looked < PICK_MAX_LOOKS && held.bytes <= HELD_BYTES {
        if best.is_some() && looked >= PICK_LOOKS {
            break;
        }
        let Some((_, frame)) = held.next(source.as_mut(), stop)? else {
            break;
        };
        if !photos && frame.time_s + half_frame < next_look {
            continue;
        }
        next_look = frame.time_s + PICK_STEP_S;
        looked += 1;
        // Every board of a shared view looks at the same frames: the first to
        // come finds the view's boards, the others take what it found.
        let boards = match source.memo() {
            Some(memo) => {
                let key = format!("boards of the view: {grid}, frame {}", frame.index);
                memo.get_or_make(&key, || boards_of_view(&frame.image, grid))
                    .map(|b| b.as_ref().clone())
                    .unwrap_or_else(|| boards_of_view(&frame.image, grid))
            }
            None => boards_of_view(&frame.image, grid),
        };
        if boards.len() > most {
            most = boards.len();
            if let Some(b) = boards.get(board.saturating_sub(1)).filter(|_| board > 0) {
                let size = (
                    frame.image.cols().max(0) as u32,
                    frame.image.rows().max(0) as u32,
                );
                best = Some((*b, size));
            }
        }
    }
    let Some((corners, (w, h))) = best else {
        if held.frames.is_empty() {
            if let Some(why) = source.end_reason() {
                return Err(FindError::Ended(why));
            }
            return Err(FindError::NoFrames);
        }
        return Err(FindError::TooFewBoards {
            board,
            most,
            looked,
        });
    };
    let rect = region(&corners, grid, w, h);
    Ok((rect, Box::new(capture::Prepended::new(held.frames, source))))
}

/// The boards of a table in a frame, in reading order; none where no board
/// is found.
fn boards_of_view(image: &opencv::core::Mat, grid: GridSpec) -> Vec<Corners> {
    crate::locate::locate_all(image, &[grid])
        .map(|found| table_boards(found.iter().map(|b| b.located.corners).collect()))
        .unwrap_or_default()
}

/// A board of a table covers at least this share of the area of the largest
/// found with it: boards of one table are of one size, give or take the
/// perspective, and a much smaller lattice is something else's (a chess
/// clock's face, a score sheet's ruling).
const TABLE_AREA_SHARE: f64 = 0.25;

/// The boards of a table among the grids found in a view, in their order:
/// those of about the largest's size.
fn table_boards(found: Vec<Corners>) -> Vec<Corners> {
    let largest = found.iter().map(Corners::area).fold(0.0, f64::max);
    found
        .into_iter()
        .filter(|c| c.area() >= TABLE_AREA_SHARE * largest)
        .collect()
}

/// A board's region: the bounding box of its grid grown by `REGION_CELLS`
/// cells, within a `w`x`h` frame.
pub fn region(corners: &Corners, grid: GridSpec, w: u32, h: u32) -> Rect {
    let pts = corners.points();
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for (x, y) in pts {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    let cells = grid.rows.max(grid.cols).max(1) as f64;
    let margin = REGION_CELLS * ((x1 - x0).max(y1 - y0) / cells);
    let r = Rect::new(
        (x0 - margin).floor() as i32,
        (y0 - margin).floor() as i32,
        (x1 - x0 + 2.0 * margin).ceil() as i32,
        (y1 - y0 + 2.0 * margin).ceil() as i32,
    );
    r & Rect::new(0, 0, w as i32, h as i32)
}

/// Events of a board seen through its region, passed on with their corners in
/// the input's pixels.
pub(crate) struct Shifted<'a> {
    inner: &'a mut dyn EventSink,
    dx: f64,
    dy: f64,
}

impl<'a> Shifted<'a> {
    /// Events of a board seen through `region` of the frames, to `inner`.
    pub(crate) fn new(inner: &'a mut dyn EventSink, region: Rect) -> Shifted<'a> {
        Shifted {
            inner,
            dx: region.x as f64,
            dy: region.y as f64,
        }
    }

    fn shift(&self, c: &mut [[f64; 2]; 4]) {
        for p in c.iter_mut() {
            p[0] += self.dx;
            p[1] += self.dy;
        }
    }
}

impl EventSink for Shifted<'_> {
    fn emit(&mut self, mut event: Event) {
        match &mut event {
            Event::GridSnapped { corners, .. }
            | Event::Regrid { corners, .. }
            | Event::Relocated { corners, .. }
            | Event::PlacedAgain { corners, .. }
            | Event::BoardFound { corners, .. } => self.shift(corners),
            Event::Looked {
                corners: Some(corners),
                ..
            } => self.shift(corners),
            _ => {}
        }
        self.inner.emit(event)
    }

    fn poll(&mut self) -> Option<Command> {
        self.inner.poll()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_is_the_grid_with_a_margin_within_the_frame() {
        let grid: GridSpec = "8x8".parse().unwrap();
        let c =
            Corners::new([(100.0, 50.0), (900.0, 50.0), (900.0, 850.0), (100.0, 850.0)]).unwrap();
        // 2.5 cells of 100 pixels round the grid, cut at the frame's edges.
        let r = region(&c, grid, 1920, 880);
        assert_eq!((r.x, r.y, r.width, r.height), (0, 0, 1150, 880));
        let r = region(&c, grid, 1920, 1080);
        assert_eq!((r.x, r.y, r.width, r.height), (0, 0, 1150, 1080));
    }

    #[test]
    fn a_lattice_much_smaller_than_the_tables_boards_is_none_of_them() {
        let square = |x: f64, side: f64| {
            Corners::new([
                (x, 100.0),
                (x + side, 100.0),
                (x + side, 100.0 + side),
                (x, 100.0 + side),
            ])
            .unwrap()
        };
        // Two boards of 600 pixels with a clock's face between them.
        let found = vec![
            square(100.0, 600.0),
            square(800.0, 200.0),
            square(1100.0, 580.0),
        ];
        let kept = table_boards(found);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[1].points()[0].0, 1100.0);
    }

    #[test]
    fn events_of_a_region_say_corners_in_the_frame() {
        let mut got: Vec<Event> = Vec::new();
        let mut s = Shifted::new(&mut got, Rect::new(10, 20, 5, 5));
        s.emit(Event::Relocated {
            time: 1.0,
            corners: [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        });
        let Event::Relocated { corners, .. } = &got[0] else {
            panic!("{:?}", got[0]);
        };
        assert_eq!(corners[2], [11.0, 21.0]);
    }
}
