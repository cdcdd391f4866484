//! Every board in a frame: one camera over a table of two or four boards.
//!
//! The single-board search finds the best lattice among the frame's segments,
//! and a board seen whole is a better lattice than anything straddling two
//! boards or made of a board and its neighbour's edge. So the search is run over
//! and over on the same segments, each time without those lying on a board
//! already found (and a margin round it, its border and printed coordinates),
//! until what is left holds no lattice seeing enough of its lines. The segments
//! are found once per detector, whatever the number of boards.

use opencv::core::{Mat, Rect};
use opencv::prelude::*;

use super::order::reading_order;
use super::segments::{self, Segment, WorkImage};
use super::{detect, locate_among, Detector, LocateError, Located};
use crate::geometry::{quad_contains, Corners, GridSpec, Homography};

/// A board found by `locate_all`: which of the grids asked for, and where.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    /// The grid it was found as.
    pub grid: GridSpec,
    /// Its corners and confidence.
    pub located: Located,
}

/// Beyond the first board, a lattice seeing fewer of its lines than this share
/// is taken for chance: what is left of a table once its boards are out of the
/// search (a clock, a scoresheet, a tablecloth's weave).
pub(crate) const MIN_ALL_CONFIDENCE: f64 = super::MIN_CONFIDENCE;

/// A board beyond the first seeing at least this share of its lines would be taken
/// without showing alternating cells or ridged lines (see `looks_like_a_board`).
/// Above 1, every one must show them: the lattices a scoresheet's ruling makes see
/// up to 0.7 of their lines. Measured on composited tables (`boardscribe-lab locate
/// --eval-tables`), 0.5 let 2 lattices off the boards through in 80 frames of two
/// and four boards and 9 in 80 frames of one; always checking, none and 2, at the
/// cost of 2 of 80 boards on four-board tables that `locate` finds alone. (Checked
/// on the crop at full resolution instead, 4 of the 80 frames of one board.)
const SURE_CONFIDENCE: f64 = 1.01;

/// A board beyond the first spans at least this share of the largest found (the
/// square root of their areas on screen): boards on one table are 18 cm (a travel
/// set) to 45 cm (Go) across, while a scoresheet's ruling makes a lattice a fifth
/// of a board's size.
const MIN_EXTENT_RATIO: f64 = 0.3;

/// Two boards lie on one table when either, seen through the other's plane (its
/// grid's homography, in its cells), is a grid of square cells: its cells' sides
/// within this ratio of each other and its opposite sides within it too. Cells of
/// every board are square give or take a Go board's 1.07; the lens, the boards'
/// thickness and the corners' errors bend the view a little; a clock's face, a
/// lattice straddling two boards or a scoresheet seen through a board's plane is
/// a long rectangle or a trapezoid (a clock's face between two boards: 1.6).
const SAME_PLANE_RATIO: f64 = 1.3;

/// A found board's segments are left out of the further searches up to this many
/// cells past its grid: its border, with coordinates printed in it.
const MARGIN_CELLS: f64 = 1.0;

/// A board found is searched for again among the segments up to this many cells
/// past it: its lines carrying on past the run (which tell a run off by a line)
/// show within a cell.
const LOCAL_MARGIN_CELLS: f64 = 2.5;

/// No frame is searched for more boards than this.
pub(crate) const MAX_BOARDS: usize = 64;

/// Finds every board in a BGR or grey image, each one of `grids` (any number of
/// each), ordered in rows from the top, each row from the left: boards whose
/// centres lie within half a board's height of a row's are in it. Each board's
/// corners are as `locate` gives them. `NotFound` (of the first grid, or
/// `NoneOf` several) when there is no board at all.
pub fn locate_all(image: &Mat, grids: &[GridSpec]) -> Result<Vec<Board>, LocateError> {
    let Some(&first) = grids.first() else {
        return Err(LocateError::NoGrids);
    };
    let work = segments::work_image(image)?;
    let mut found_by: Vec<(Detector, Vec<Segment>)> = Vec::new();
    for &grid in grids {
        let d = Detector::of(grid);
        if !found_by.iter().any(|(x, _)| *x == d) {
            found_by.push((d, detect(&work.grey, d)?));
        }
    }
    let mut boards: Vec<Board> = Vec::new();
    let mut masks: Vec<Mask> = Vec::new();
    // Each look takes a board or puts a lattice that is none out of the search.
    for _ in 0..2 * MAX_BOARDS {
        if boards.len() == MAX_BOARDS {
            break;
        }
        let floor = if boards.is_empty() {
            0.0
        } else {
            MIN_ALL_CONFIDENCE
        };
        let mut found = Vec::new();
        for &grid in grids {
            let d = Detector::of(grid);
            let Some((_, segs)) = found_by.iter().find(|(x, _)| *x == d) else {
                continue;
            };
            let left: Vec<Segment> = segs
                .iter()
                .filter(|s| !masks.iter().any(|m| m.covers(mid(s))))
                .copied()
                .collect();
            let (located, rank) = match locate_among(&work, &left, grid) {
                Ok(l) => l,
                Err(LocateError::NotFound(_)) => continue,
                Err(e) => return Err(e),
            };
            let quad = located.corners.points();
            if located.confidence >= floor && !boards.iter().any(|b| overlap(&b.located, &quad)) {
                found.push((Board { grid, located }, rank));
            }
        }
        let Some(mut board) = choose(&found) else {
            break;
        };
        if let Some(l) = refit(image, &board) {
            board.located = l;
        }
        if let Some(m) = Mask::new(&board, &work, MARGIN_CELLS) {
            masks.push(m);
        }
        // The first board is taken as `locate` takes it; a further one must show
        // it is a board where few of its lines were seen.
        let sure = board.located.confidence >= SURE_CONFIDENCE;
        let largest = boards
            .iter()
            .map(|b| extent(&b.located))
            .fold(0.0, f64::max);
        let sized = extent(&board.located) >= MIN_EXTENT_RATIO * largest;
        if boards.is_empty() || (sized && (sure || looks_like_a_board(&work, &board))) {
            boards.push(board);
        }
    }
    let boards = on_one_table(image, boards);
    if boards.is_empty() {
        return Err(match grids {
            [_] => LocateError::NotFound(first),
            _ => LocateError::NoneOf(grids.to_vec()),
        });
    }
    let boxes: Vec<((f64, f64), f64)> = boards.iter().map(|b| centre_height(&b.located)).collect();
    Ok(reading_order(&boxes)
        .into_iter()
        .map(|i| boards[i])
        .collect())
}

/// Boards of a table seen on its plane (see `on_one_table`): a lattice off it
/// spanning less than this share of the smallest board on it (the square root
/// of the areas on screen) is something else: a clock's face between two
/// boards is 0.45, a scoresheet's ruling less; a travel set beside a Go board
/// (0.4) lies on the plane and is kept.
const OFF_TABLE_EXTENT: f64 = 0.6;

/// A lattice off the table's plane this many times as long as it is wide there
/// lies across boards lined up (two boards with a gap: 2 or more).
const ACROSS_BOARDS: f64 = 1.6;

/// The boards found, held to the table the others lie on: one camera sees one
/// table's plane, and boards of one table are of about one size. Of those on the
/// plane of no other while some others share one: a small one is something else
/// and dropped (a clock's face, a scoresheet's ruling); a long one lies across
/// boards lined up one behind the other, whose lines are in line, and its
/// search hid them: it is searched again for them (`boards_across`) and kept
/// where none is found (its board then records nothing rather than taking a
/// neighbour's number); any other is kept (a board the plane cannot judge: a
/// strong lens, a board on a stand). With none on a common table, all are kept.
fn on_one_table(image: &Mat, boards: Vec<Board>) -> Vec<Board> {
    let n = boards.len();
    let together = |i: usize, j: usize| {
        same_plane(&boards[i], &boards[j]) && same_plane(&boards[j], &boards[i])
    };
    let on_table: Vec<bool> = (0..n)
        .map(|i| (0..n).any(|j| j != i && together(i, j)))
        .collect();
    let Some(base) = (0..n)
        .filter(|&i| on_table[i])
        .max_by(|&a, &b| {
            let c = |i: usize| boards[i].located.confidence;
            c(a).total_cmp(&c(b))
        })
        .map(|i| boards[i])
    else {
        return boards;
    };
    let smallest = (0..n)
        .filter(|&i| on_table[i])
        .map(|i| extent(&boards[i].located))
        .fold(f64::INFINITY, f64::min);
    let mut out: Vec<Board> = (0..n).filter(|&i| on_table[i]).map(|i| boards[i]).collect();
    for (i, b) in boards.iter().enumerate() {
        if on_table[i] || extent(&b.located) < OFF_TABLE_EXTENT * smallest {
            continue;
        }
        let long = plane_sides(&base, b).is_some_and(|[top, right, bottom, left]| {
            let (across, down) = ((top + bottom) / 2.0, (left + right) / 2.0);
            across.max(down) >= ACROSS_BOARDS * across.min(down)
        });
        let found = if long {
            boards_across(image, &base, b, &out)
        } else {
            Vec::new()
        };
        if found.is_empty() {
            out.push(*b);
        } else {
            out.extend(found);
        }
    }
    out
}

/// The boards on the table that `wide`, a lattice across them, hides, none
/// overlapping `taken`. Seen on the table's plane it is a board wide and two
/// long; a window a board and a half long at each of its ends is cut from the
/// frame and searched as a lone board, and a board found there that lies on the
/// table and on no board already found is taken.
fn boards_across(image: &Mat, base: &Board, wide: &Board, taken: &[Board]) -> Vec<Board> {
    let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    let Some(h) = Homography::from_points(&unit, &base.located.corners.points()) else {
        return Vec::new();
    };
    let (br, bc) = base.grid.lattice_cells();
    let (sx, sy) = (bc.max(1) as f64, br.max(1) as f64);
    // The lattice on the base board's plane, in the base board's units (its side is 1).
    let mut q = [(0.0, 0.0); 4];
    for (k, p) in wide.located.corners.points().into_iter().enumerate() {
        let Some((u, v)) = h.apply_inverse(p) else {
            return Vec::new();
        };
        q[k] = (u * sx / sx.max(sy), v * sy / sx.max(sy));
    }
    let lerp =
        |a: (f64, f64), b: (f64, f64), t: f64| (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
    let len = |a: (f64, f64), b: (f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
    // Its long sides run from `s0` to `e0` and from `s1` to `e1`.
    let (s0, e0, s1, e1) = if len(q[0], q[3]) > len(q[0], q[1]) {
        (q[0], q[3], q[1], q[2])
    } else {
        (q[0], q[1], q[3], q[2])
    };
    let long = (len(s0, e0) + len(s1, e1)) / 2.0;
    let mut found: Vec<Board> = Vec::new();
    for (from, to) in [(-0.6, 1.1), (long - 1.1, long + 0.6)] {
        let (a, b) = (from / long.max(1e-9), to / long.max(1e-9));
        // Half a board wider than the lattice on each side.
        let wide_by = |p: (f64, f64), o: (f64, f64)| {
            let d = len(p, o).max(1e-9);
            (p.0 + (p.0 - o.0) * 0.5 / d, p.1 + (p.1 - o.1) * 0.5 / d)
        };
        let corners = [
            wide_by(lerp(s0, e0, a), lerp(s1, e1, a)),
            wide_by(lerp(s1, e1, a), lerp(s0, e0, a)),
            wide_by(lerp(s1, e1, b), lerp(s0, e0, b)),
            wide_by(lerp(s0, e0, b), lerp(s1, e1, b)),
        ];
        let mut pts = Vec::new();
        for (x, y) in corners {
            let (u, v) = (x * sx.max(sy) / sx, y * sx.max(sy) / sy);
            if let Some(p) = h.apply((u, v)) {
                pts.push(p);
            }
        }
        let Some(board) = lone_board_in(image, &pts, wide.grid) else {
            continue;
        };
        let clear = !taken
            .iter()
            .chain(&found)
            .any(|t| overlap(&t.located, &board.located.corners.points()));
        if clear && same_plane(base, &board) && same_plane(&board, base) {
            found.push(board);
        }
    }
    found
}

/// The board `locate` finds in the part of the frame that `pts` bound.
fn lone_board_in(image: &Mat, pts: &[(f64, f64)], grid: GridSpec) -> Option<Board> {
    if pts.len() < 4 {
        return None;
    }
    let (w, h) = (image.cols() as f64, image.rows() as f64);
    let x0 = pts
        .iter()
        .map(|p| p.0)
        .fold(f64::INFINITY, f64::min)
        .max(0.0)
        .floor();
    let y0 = pts
        .iter()
        .map(|p| p.1)
        .fold(f64::INFINITY, f64::min)
        .max(0.0)
        .floor();
    let x1 = pts
        .iter()
        .map(|p| p.0)
        .fold(f64::NEG_INFINITY, f64::max)
        .min(w)
        .ceil();
    let y1 = pts
        .iter()
        .map(|p| p.1)
        .fold(f64::NEG_INFINITY, f64::max)
        .min(h)
        .ceil();
    if !(x1 - x0 >= 16.0 && y1 - y0 >= 16.0) {
        return None;
    }
    let rect = Rect::new(x0 as i32, y0 as i32, (x1 - x0) as i32, (y1 - y0) as i32);
    let crop = Mat::roi(image, rect).ok()?.try_clone().ok()?;
    let l = super::locate(&crop, grid).ok()?;
    let moved = l.corners.points().map(|p| (p.0 + x0, p.1 + y0));
    Some(Board {
        grid,
        located: Located {
            corners: Corners::new(moved).ok()?,
            confidence: l.confidence,
        },
    })
}

/// `other`'s sides (top, right, bottom, left) seen on `base`'s plane, in
/// `base`'s cells (which are square).
fn plane_sides(base: &Board, other: &Board) -> Option<[f64; 4]> {
    let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    let h = Homography::from_points(&unit, &base.located.corners.points())?;
    let (br, bc) = base.grid.lattice_cells();
    let mut q = [(0.0, 0.0); 4];
    for (k, p) in other.located.corners.points().into_iter().enumerate() {
        let (u, v) = h.apply_inverse(p)?;
        q[k] = (u * bc.max(1) as f64, v * br.max(1) as f64);
    }
    let side = |a: usize, b: usize| ((q[a].0 - q[b].0).powi(2) + (q[a].1 - q[b].1).powi(2)).sqrt();
    Some([side(0, 1), side(1, 2), side(2, 3), side(3, 0)])
}

/// Whether `other`, seen on `base`'s plane, is a grid of square cells there
/// (see `SAME_PLANE_RATIO`).
fn same_plane(base: &Board, other: &Board) -> bool {
    let Some([top, right, bottom, left]) = plane_sides(base, other) else {
        return false;
    };
    let within = |a: f64, b: f64| a > 0.0 && b > 0.0 && a.max(b) / a.min(b) <= SAME_PLANE_RATIO;
    let (r, c) = other.grid.lattice_cells();
    let (r, c) = (r.max(1) as f64, c.max(1) as f64);
    let across = (top + bottom) / 2.0;
    let down = (left + right) / 2.0;
    // Its columns run along the top edge; a grid turned a quarter the other way.
    let square_cells = within(across / c, down / r) || within(across / r, down / c);
    within(top, bottom) && within(left, right) && square_cells
}

/// The board to take of those found as each grid: the one whose lattice ranks
/// highest. A board's own grid outranks a run of fewer lines within it, which its
/// lines carrying on past give away. (Preferring a larger grid around the best
/// lost more than it won: a chess board's one-cell border is a 10x10 lattice.)
fn choose(found: &[(Board, f64)]) -> Option<Board> {
    found
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(b, _)| *b)
}

/// The board found again in a crop of the image round it (`LOCAL_MARGIN_CELLS`
/// past it), as if it were alone in the view: the vanishing points of the frame's
/// other boards, turned a little against it, no longer pull its families' (the
/// search keeps a handful of families in all), and a large frame shrunk to the
/// working size is searched at full resolution where a board's lines are thin.
/// `None` when that search finds no board on the first one.
fn refit(image: &Mat, board: &Board) -> Option<Located> {
    let quad = board.located.corners.points();
    let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    let h = Homography::from_points(&unit, &quad)?;
    let (lr, lc) = board.grid.lattice_cells();
    let (mu, mv) = (
        LOCAL_MARGIN_CELLS / lc.max(1) as f64,
        LOCAL_MARGIN_CELLS / lr.max(1) as f64,
    );
    let mut wide = Vec::new();
    for (u, v) in [
        (-mu, -mv),
        (1.0 + mu, -mv),
        (1.0 + mu, 1.0 + mv),
        (-mu, 1.0 + mv),
    ] {
        wide.push(h.apply((u, v))?);
    }
    let again = lone_board_in(image, &wide, board.grid)?.located;
    let (centre, _) = centre_height(&again);
    quad_contains(&quad, centre).then_some(again)
}

/// Whether a lattice found shows a board both ways: its cells alternate in dark
/// and light along its rows and along its columns (a checkered board), or most
/// stretches of its lines between crossings are thin ridges in each family (a
/// lined board, a Go board). A table's planks, a tablecloth's weave or a
/// scoresheet's ruling show lines in one family, or lines without cells.
fn looks_like_a_board(work: &WorkImage, board: &Board) -> bool {
    let s = work.scale;
    let quad = board
        .located
        .corners
        .points()
        .map(|p| ((p.0 + 0.5) / s - 0.5, (p.1 + 0.5) / s - 0.5));
    let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    let Some(h) = Homography::from_points(&unit, &quad) else {
        return false;
    };
    let (lr, lc) = board.grid.lattice_cells();
    let (r, c) = (lr.max(1) as f64, lc.max(1) as f64);
    let at = |u: f64, v: f64| h.apply((u / c, v / r));
    let at_t = |u: f64, v: f64| h.apply((v / c, u / r));
    let along_rows = super::checker::median_alternation(&work.grey, &at, lc, lr);
    let along_cols = super::checker::median_alternation(&work.grey, &at_t, lr, lc);
    if along_rows.min(along_cols) >= super::CHECKERED_ALTERNATION {
        return true;
    }
    let (_, _, ridges) = super::profile::support_shift(&work.grey, &h, (lr, lc), 0);
    ridges >= super::MIN_RIDGE_SUPPORT
}

/// The square root of a board's area on screen, in pixels.
fn extent(l: &Located) -> f64 {
    l.corners.area().sqrt()
}

fn mid(s: &Segment) -> (f64, f64) {
    ((s.a.0 + s.b.0) / 2.0, (s.a.1 + s.b.1) / 2.0)
}

/// A board's centre (the crossing of its diagonals' midpoints, near enough) and
/// its height on screen, in original pixels.
fn centre_height(l: &Located) -> ((f64, f64), f64) {
    let p = l.corners.points();
    let cx = p.iter().map(|q| q.0).sum::<f64>() / 4.0;
    let cy = p.iter().map(|q| q.1).sum::<f64>() / 4.0;
    let (lo, hi) = p
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| {
            (lo.min(q.1), hi.max(q.1))
        });
    ((cx, cy), hi - lo)
}

/// Whether a quadrilateral overlaps a board found: a corner or the centre of
/// either lies inside the other.
fn overlap(found: &Located, quad: &[(f64, f64); 4]) -> bool {
    let f = found.corners.points();
    let centre = |q: &[(f64, f64); 4]| {
        (
            q.iter().map(|p| p.0).sum::<f64>() / 4.0,
            q.iter().map(|p| p.1).sum::<f64>() / 4.0,
        )
    };
    let probes = |q: &[(f64, f64); 4]| {
        let mut v = q.to_vec();
        v.push(centre(q));
        v
    };
    probes(quad).into_iter().any(|p| quad_contains(&f, p))
        || probes(&f).into_iter().any(|p| quad_contains(quad, p))
}

/// The part of the working image a found board and its margin cover.
struct Mask {
    /// The unit square to the board's quadrilateral, in working pixels.
    h: Homography,
    /// The margin, in the unit square's units across its columns and its rows.
    mu: f64,
    mv: f64,
}

impl Mask {
    /// The board's quadrilateral and `margin` cells round it.
    fn new(board: &Board, work: &WorkImage, margin: f64) -> Option<Mask> {
        let s = work.scale;
        // Original pixel centres sit at (i + 0.5) s - 0.5 in working pixels' terms.
        let quad = board
            .located
            .corners
            .points()
            .map(|p| ((p.0 + 0.5) / s - 0.5, (p.1 + 0.5) / s - 0.5));
        let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        let h = Homography::from_points(&unit, &quad)?;
        // Corners in canonical order run TL to TR along the columns, but a square
        // grid may be turned; the margin is the same either way there.
        let (lr, lc) = board.grid.lattice_cells();
        Some(Mask {
            h,
            mu: margin / lc.max(1) as f64,
            mv: margin / lr.max(1) as f64,
        })
    }

    fn covers(&self, p: (f64, f64)) -> bool {
        self.h.apply_inverse(p).is_some_and(|(u, v)| {
            u > -self.mu && u < 1.0 + self.mu && v > -self.mv && v < 1.0 + self.mv
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(q: [(f64, f64); 4], confidence: f64) -> Board {
        Board {
            grid: "8x8".parse().unwrap(),
            located: Located {
                corners: Corners::new(q).unwrap(),
                confidence,
            },
        }
    }

    fn square(x: f64, y: f64, side: f64) -> [(f64, f64); 4] {
        [(x, y), (x + side, y), (x + side, y + side), (x, y + side)]
    }

    #[test]
    fn a_small_lattice_off_the_tables_plane_is_dropped_and_a_large_one_kept() {
        // Two boards seen from above, a clock's face between them (a tall
        // rectangle: no square grid on the table).
        let clock = board(
            [
                (640.0, 400.0),
                (840.0, 400.0),
                (840.0, 740.0),
                (640.0, 740.0),
            ],
            0.2,
        );
        let found = vec![
            board(square(20.0, 300.0, 600.0), 0.9),
            clock,
            board(square(860.0, 300.0, 600.0), 0.9),
        ];
        let image = Mat::default();
        let kept = on_one_table(&image, found);
        assert_eq!(kept.len(), 2);
        assert!(kept.iter().all(|b| b.located.confidence > 0.5));
        // A lattice a board wide and two long, larger than the boards: kept.
        let across = board(
            [(20.0, 0.0), (320.0, 0.0), (320.0, 700.0), (20.0, 700.0)],
            0.6,
        );
        let found = vec![
            across,
            board(square(400.0, 0.0, 300.0), 0.9),
            board(square(400.0, 400.0, 300.0), 0.9),
        ];
        assert_eq!(on_one_table(&image, found).len(), 3);
        // One board alone: kept.
        assert_eq!(
            on_one_table(&image, vec![board(square(0.0, 0.0, 300.0), 0.4)]).len(),
            1
        );
        // Boards of one table turned against each other lie on one plane.
        let turned = board(
            [
                (900.0, 60.0),
                (1180.0, 110.0),
                (1130.0, 390.0),
                (850.0, 340.0),
            ],
            0.8,
        );
        let base = board(square(100.0, 100.0, 300.0), 0.9);
        assert!(same_plane(&base, &turned) && same_plane(&turned, &base));
    }
}
