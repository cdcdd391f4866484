//! Image evidence of each grid line at full working resolution, read off short
//! profiles across the line between its crossings (where a stone or piece on a
//! crossing rarely reaches). A lined board's line is a thin ridge, darker or
//! lighter than both sides; a checkered board's is a step. Settles a lined grid's
//! run: outside the outermost line there is no ridge at the same spacing, only
//! the margin and the board's edge (a step), where segments alone may take the
//! edge, or a table's planks, for one more line.

use opencv::core::Mat;
use opencv::prelude::*;

use crate::geometry::Homography;

/// Half the profile's length across a line, in cells.
const REACH: f64 = 0.35;
/// Samples per profile.
const N: usize = 29;
/// How far from a profile's middle (samples, 0.1 cell) a strip's crossing line is
/// looked for: the lattice is that close before it is refined.
const STRIP_MID: usize = 4;

/// The grey image with bilinear sampling.
pub(super) struct Grey<'a> {
    data: &'a [u8],
    w: usize,
    h: usize,
    step: usize,
}

impl Grey<'_> {
    pub(super) fn at(&self, x: f64, y: f64) -> Option<f64> {
        if !(x >= 0.0 && y >= 0.0 && x < (self.w - 1) as f64 && y < (self.h - 1) as f64) {
            return None;
        }
        let (x0, y0) = (x.floor() as usize, y.floor() as usize);
        let (fx, fy) = (x - x0 as f64, y - y0 as f64);
        let p = |xx: usize, yy: usize| self.data[yy * self.step + xx] as f64;
        let top = p(x0, y0) * (1.0 - fx) + p(x0 + 1, y0) * fx;
        let bot = p(x0, y0 + 1) * (1.0 - fx) + p(x0 + 1, y0 + 1) * fx;
        Some(top * (1.0 - fy) + bot * fy)
    }
}

/// One profile across a line: its strongest ridge and step (grey levels).
#[derive(Clone, Copy, Debug, Default)]
struct Reading {
    ridge: f64,
    step: f64,
}

/// The lattice in cell units: `h` maps the unit square to working pixels, the
/// lattice has `cols` x `rows` cells.
struct Lattice<'a> {
    h: &'a Homography,
    cols: f64,
    rows: f64,
}

impl Lattice<'_> {
    /// Pixel of lattice point `(u, v)` (cells), with `cols_family` swapping the
    /// roles: the line coordinate first, then the coordinate along it.
    fn px(&self, cols_family: bool, k: f64, t: f64) -> Option<(f64, f64)> {
        let (u, v) = if cols_family { (k, t) } else { (t, k) };
        self.h.apply((u / self.cols, v / self.rows))
    }
}

/// The profile across line `k` at `t` along it: its strongest ridge and step.
fn read(g: &Grey, lat: &Lattice, cols_family: bool, k: f64, t: f64) -> Option<Reading> {
    read_along(g, lat, cols_family, k, &[t], N)
}

/// The profile across line `k` that is the median of those at the points `ts` along
/// it (a line runs through them all; a speck of noise, a grain or a stone's rim
/// through few): its strongest ridge and step within `mid` samples of its middle.
fn read_along(
    g: &Grey,
    lat: &Lattice,
    cols_family: bool,
    k: f64,
    ts: &[f64],
    mid: usize,
) -> Option<Reading> {
    let t0 = *ts.first()?;
    let a = lat.px(cols_family, k - REACH, t0)?;
    let b = lat.px(cols_family, k + REACH, t0)?;
    let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
    if len < 2.0 {
        return None;
    }
    let mut prof = [0.0; N];
    let mut at_ts = Vec::with_capacity(ts.len());
    for (i, p) in prof.iter_mut().enumerate() {
        let d = k - REACH + 2.0 * REACH * i as f64 / (N - 1) as f64;
        at_ts.clear();
        for &t in ts {
            let q = lat.px(cols_family, d, t)?;
            at_ts.push(g.at(q.0, q.1)?);
        }
        *p = median(at_ts.iter().copied());
    }
    let spacing = len / (N - 1) as f64;
    // Filter half-widths in samples: a ridge's sides 2 px off, a step's 1.5 px.
    let w = ((2.0 / spacing).round() as usize).clamp(1, N / 4);
    let hs = ((1.5 / spacing).round() as usize).clamp(1, N / 4);
    let ridge = |i: usize| {
        let (l, c, rr) = (prof[i - w], prof[i], prof[i + w]);
        (l.min(rr) - c).max(c - l.max(rr)).max(0.0)
    };
    let step = |i: usize| (prof[i + hs] - prof[i - hs]).abs();
    let best = |f: &dyn Fn(usize) -> f64, m: usize| {
        let (lo, hi) = (
            (N / 2).saturating_sub(mid).max(m),
            (N / 2 + mid + 1).min(N - m),
        );
        (lo..hi).map(f).fold(0.0, f64::max)
    };
    Some(Reading {
        ridge: best(&ridge, w),
        step: best(&step, hs),
    })
}

/// Readings of line `k` between each pair of crossings along the other family's `m` cells.
fn readings(g: &Grey, lat: &Lattice, cols_family: bool, k: i64, m: u32) -> Vec<Reading> {
    (0..m)
        .filter_map(|j| read(g, lat, cols_family, k as f64, j as f64 + 0.5))
        .collect()
}

pub(super) fn grey_view(grey: &Mat) -> Option<Grey<'_>> {
    if grey.typ() != opencv::core::CV_8UC1 || !grey.is_continuous() {
        return None;
    }
    Some(Grey {
        data: grey.data_bytes().ok()?,
        w: grey.cols() as usize,
        h: grey.rows() as usize,
        step: grey.cols() as usize,
    })
}

fn median(v: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = v.collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        s / n as f64
    }
}

/// Whether the grid's lines are ridges (a lined board) rather than steps between
/// cells of two colours: the mean ridge of its inner lines against their mean step.
fn lined(g: &Grey, lat: &Lattice, (lr, lc): (u32, u32)) -> bool {
    let mut all = Vec::new();
    for k in 1..lc as i64 {
        all.extend(readings(g, lat, true, k, lr));
    }
    for k in 1..lr as i64 {
        all.extend(readings(g, lat, false, k, lc));
    }
    let ridge = mean(all.iter().map(|r| r.ridge));
    let step = mean(all.iter().map(|r| r.step));
    ridge > 0.6 * step && ridge > 3.0
}

/// Readings mostly outside the image (fewer than half of the `of` asked for) are no
/// evidence either way: the few there meet the frame's own border.
fn mostly_seen(v: Vec<f64>, of: u32) -> Option<Vec<f64>> {
    (2 * v.len() >= of as usize).then_some(v)
}

/// Five points along a line, up to `spread` cells either side of `t`.
fn along(t: f64, spread: f64) -> [f64; 5] {
    [
        t - spread,
        t - spread / 2.0,
        t,
        t + spread / 2.0,
        t + spread,
    ]
}

/// The mean ridge of line `k` between its crossings with the other family's `m`
/// cells; 0 for a line mostly outside the image.
fn line_ridge(g: &Grey, lat: &Lattice, cols_family: bool, k: i64, m: u32) -> f64 {
    let r: Vec<f64> = readings(g, lat, cols_family, k, m)
        .iter()
        .map(|r| r.ridge)
        .collect();
    mostly_seen(r, m).map_or(0.0, |v| mean(v.into_iter()))
}

/// Strip `j`, between this family's lines j and j + 1: the median ridge of the other
/// family's `m + 1` lines across it. They end at the outermost line, so the margin
/// beyond it has none, however much its edge looks like a line. 0 for a strip mostly
/// outside the image.
fn strip_ridge(g: &Grey, lat: &Lattice, cols_family: bool, j: i64, m: u32) -> f64 {
    let ts = along(j as f64 + 0.5, 0.3);
    let r: Vec<f64> = (0..=m as i64)
        .filter_map(|i| read_along(g, lat, !cols_family, i as f64, &ts, STRIP_MID))
        .map(|r| r.ridge)
        .collect();
    mostly_seen(r, m + 1).map_or(0.0, |v| median(v.into_iter()))
}

/// The shift (-2..=2 lines) of each family's run that covers the most ridge, for a
/// lined grid: its own lines' ridges, and across each strip between two of them the
/// other family's lines' (which stop at the outermost lines: a board's edge or a
/// plank past them may draw a line, but nothing crosses the margin before it).
/// (0, 0) for a checkered grid or without a clear gain. `h` maps the unit square
/// to working pixels; `cells` is (rows, cols). `known_lined` skips the
/// test of ridges against steps (see `lined`) for a grid lined by its spec (Go):
/// under many stones their edges' steps outweigh the lines' ridges, and the test
/// would leave a run one line off where it is.
pub(crate) fn run_shift(
    grey: &Mat,
    h: &Homography,
    (lr, lc): (u32, u32),
    known_lined: bool,
) -> (i64, i64) {
    let Some(g) = grey_view(grey) else {
        return (0, 0);
    };
    let lat = Lattice {
        h,
        cols: lc as f64,
        rows: lr as f64,
    };
    if !known_lined && !lined(&g, &lat, (lr, lc)) {
        return (0, 0);
    }
    const S: i64 = 2;
    let shift = |cols_family: bool, n: u32, m: u32| -> i64 {
        let ev: Vec<f64> = (-S..=n as i64 + S)
            .map(|k| line_ridge(&g, &lat, cols_family, k, m))
            .collect();
        let sv: Vec<f64> = (-S..n as i64 + S)
            .map(|j| strip_ridge(&g, &lat, cols_family, j, m))
            .collect();
        // Each cue in units of its typical level inside the run: under many
        // stones the strips' medians are low, and they would count for little
        // against one strong edge.
        let inner_median = |v: &[f64], len: usize| {
            median(v[S as usize..S as usize + len].iter().copied()).max(1.0)
        };
        let (me, ms) = (
            inner_median(&ev, n as usize + 1),
            inner_median(&sv, n as usize),
        );
        let window = |s: i64| -> f64 {
            let at = (s + S) as usize;
            ev[at..=at + n as usize].iter().sum::<f64>() / me
                + sv[at..at + n as usize].iter().sum::<f64>() / ms
        };
        let best = (-S..=S)
            .max_by(|&a, &b| window(a).total_cmp(&window(b)).then(b.abs().cmp(&a.abs())))
            .unwrap_or(0);
        if window(best) > window(0) + 0.5 {
            best
        } else {
            0
        }
    };
    (shift(true, lc, lr), shift(false, lr, lc))
}

/// The unit-square homography moved by whole lines: `dc` columns and `dr` rows.
pub(crate) fn shifted(
    h: &Homography,
    (lr, lc): (u32, u32),
    dc: i64,
    dr: i64,
) -> Option<Homography> {
    let moved = h.moved_unit_square((dc as f64 / lc as f64, dr as f64 / lr as f64))?;
    let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    Homography::from_points(&unit, &moved)
}

/// Share of line `k`'s profiles between crossings whose ridge on the line beats
/// a floor of a few grey levels and the ridge half a cell off it on either side.
fn line_support(g: &Grey, lat: &Lattice, cols_family: bool, k: i64, m: u32) -> Option<f64> {
    let (mut hit, mut all) = (0usize, 0usize);
    for j in 0..m {
        let t = j as f64 + 0.5;
        // Along the stretch between the stones on its two crossings.
        let ts = along(t, 0.15);
        let at =
            |d: f64| read_along(g, lat, cols_family, k as f64 + d, &ts, STRIP_MID).map(|r| r.ridge);
        let Some(on) = at(0.0) else {
            continue;
        };
        let off = match (at(-0.5), at(0.5)) {
            (Some(a), Some(b)) => a.max(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => continue,
        };
        all += 1;
        if on > 4.0 && on > 1.5 * off {
            hit += 1;
        }
    }
    (all > 0).then(|| hit as f64 / m as f64)
}

/// For a lattice few segments saw: the shift (up to `s` lines) of each family's
/// run whose lines carry the most ridge support, and the lower of the two
/// families' mean support over the shifted runs' lines (see `line_support`): a
/// table's planks show ridges in one family only. (0, 0, 0.0) for no image.
pub(crate) fn support_shift(
    grey: &Mat,
    h: &Homography,
    (lr, lc): (u32, u32),
    s: i64,
) -> (i64, i64, f64) {
    let Some(g) = grey_view(grey) else {
        return (0, 0, 0.0);
    };
    let lat = Lattice {
        h,
        cols: lc as f64,
        rows: lr as f64,
    };
    let fam = |cols_family: bool, n: u32, m: u32| -> (i64, f64) {
        let ev: Vec<f64> = (-s..=n as i64 + s)
            .map(|k| line_support(&g, &lat, cols_family, k, m).unwrap_or(0.0))
            .collect();
        let window = |d: i64| -> f64 {
            ev[(d + s) as usize..=(d + s) as usize + n as usize]
                .iter()
                .sum()
        };
        let best = (-s..=s)
            .max_by(|&a, &b| window(a).total_cmp(&window(b)).then(b.abs().cmp(&a.abs())))
            .unwrap_or(0);
        (best, window(best) / (n + 1) as f64)
    };
    let (dc, sc) = fam(true, lc, lr);
    let (dr, sr) = fam(false, lr, lc);
    (dc, dr, sc.min(sr))
}

/// Ridge support (see `line_support`) of the grid's outermost lines: the first
/// and last column lines, then the first and last row lines; 0 where unread.
pub(crate) fn edge_support(grey: &Mat, h: &Homography, (lr, lc): (u32, u32)) -> [f64; 4] {
    let Some(g) = grey_view(grey) else {
        return [0.0; 4];
    };
    let lat = Lattice {
        h,
        cols: lc as f64,
        rows: lr as f64,
    };
    let s = |cols_family: bool, k: u32, m: u32| {
        line_support(&g, &lat, cols_family, k as i64, m).unwrap_or(0.0)
    };
    [
        s(true, 0, lr),
        s(true, lc, lr),
        s(false, 0, lc),
        s(false, lr, lc),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Point, Rect, Scalar, CV_8UC1};
    use opencv::imgproc;

    /// Grid lines at 50 + 15 i px (i = 0..=18) on a plain board, 400 px square.
    fn lined_board() -> Mat {
        let mut m = Mat::new_rows_cols_with_default(400, 400, CV_8UC1, Scalar::all(200.0)).unwrap();
        for i in 0..19 {
            let v = 50 + 15 * i;
            let black = Scalar::all(60.0);
            imgproc::line(
                &mut m,
                Point::new(v, 50),
                Point::new(v, 320),
                black,
                2,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
            imgproc::line(
                &mut m,
                Point::new(50, v),
                Point::new(320, v),
                black,
                2,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        m
    }

    /// The unit square onto the 18x18-cell lattice whose first column line is line
    /// `c0` and first row line `r0` of `lined_board` (line 0 at 50.5 px).
    fn lattice(c0: i64, r0: i64) -> Homography {
        let at = |k: i64| 50.5 + 15.0 * k as f64;
        let (x0, y0) = (at(c0), at(r0));
        let (x1, y1) = (at(c0 + 18), at(r0 + 18));
        let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        Homography::from_points(&unit, &[(x0, y0), (x1, y0), (x1, y1), (x0, y1)]).unwrap()
    }

    fn assert_same(a: &Homography, b: &Homography) {
        for p in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            let (pa, pb) = (a.apply(p).unwrap(), b.apply(p).unwrap());
            assert!(
                (pa.0 - pb.0).abs() < 0.5 && (pa.1 - pb.1).abs() < 0.5,
                "{pa:?} vs {pb:?}"
            );
        }
    }

    #[test]
    fn a_grid_lined_by_spec_is_moved_back_under_many_stones() {
        // Stones on every crossing but those of columns 0, 7 and 14, seen obliquely
        // (dark discs reaching half a cell down): their edges' steps outweigh the
        // lines' ridges, so only a grid known to be lined is moved.
        let mut g = lined_board();
        for r in 0..19 {
            for c in 0..19 {
                if c % 7 != 0 {
                    let centre = Point::new(50 + 15 * c, 55 + 15 * r);
                    imgproc::circle(&mut g, centre, 8, Scalar::all(20.0), -1, imgproc::LINE_8, 0)
                        .unwrap();
                }
            }
        }
        let off = lattice(1, -1);
        assert_eq!(run_shift(&g, &off, (18, 18), false), (0, 0));
        assert_eq!(run_shift(&g, &off, (18, 18), true), (-1, 1));
    }

    #[test]
    fn a_run_one_line_off_is_moved_back_onto_the_lines() {
        let g = lined_board();
        assert_eq!(run_shift(&g, &lattice(0, 0), (18, 18), false), (0, 0));
        let off = lattice(1, -1);
        let (dc, dr) = run_shift(&g, &off, (18, 18), false);
        assert_eq!((dc, dr), (-1, 1));
        assert_same(&shifted(&off, (18, 18), dc, dr).unwrap(), &lattice(0, 0));
    }

    #[test]
    fn a_board_edge_beyond_the_outermost_lines_is_not_taken_for_one() {
        // The board's edges one cell past its last column and row lines draw thin
        // dark lines as strong as the grid's; the grid's other lines do not reach them.
        let mut g = lined_board();
        for (a, b) in [((335, 30), (335, 340)), ((30, 335), (340, 335))] {
            let (a, b) = (Point::new(a.0, a.1), Point::new(b.0, b.1));
            imgproc::line(&mut g, a, b, Scalar::all(60.0), 2, imgproc::LINE_8, 0).unwrap();
        }
        assert_eq!(run_shift(&g, &lattice(1, 1), (18, 18), true), (-1, -1));
        assert_eq!(run_shift(&g, &lattice(0, 0), (18, 18), true), (0, 0));
    }

    #[test]
    fn specks_neither_hide_the_lines_nor_move_the_run() {
        // Salt-and-pepper specks on 7% of the pixels (a photo's augmentation): the
        // run stays, and the outermost lines keep their ridge support (a profile
        // at a time read them at 0.5-0.6).
        let mut g = lined_board();
        let mut r = 12345u64;
        for _ in 0..12000 {
            r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (x, y) = (((r >> 33) % 400) as i32, ((r >> 13) % 400) as i32);
            let v = if r & 1 == 0 { 0.0 } else { 255.0 };
            imgproc::circle(
                &mut g,
                Point::new(x, y),
                0,
                Scalar::all(v),
                -1,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        assert_eq!(run_shift(&g, &lattice(0, 0), (18, 18), true), (0, 0));
        let edges = edge_support(&g, &lattice(0, 0), (18, 18));
        assert!(edges.iter().all(|&e| e > 0.8), "{edges:?}");
    }

    #[test]
    fn a_checkered_board_is_not_taken_for_a_lined_one() {
        let mut m = Mat::new_rows_cols_with_default(400, 400, CV_8UC1, Scalar::all(200.0)).unwrap();
        for r in 0..18 {
            for c in 0..18 {
                if (r + c) % 2 == 1 {
                    let cell = Rect::new(50 + 15 * c, 50 + 15 * r, 15, 15);
                    imgproc::rectangle(&mut m, cell, Scalar::all(90.0), -1, imgproc::LINE_8, 0)
                        .unwrap();
                }
            }
        }
        assert_eq!(run_shift(&m, &lattice(1, 0), (18, 18), false), (0, 0));
    }

    #[test]
    fn ridge_support_finds_a_run_several_lines_off_and_refuses_a_plain_board() {
        let g = lined_board();
        let (dc, dr, support) = support_shift(&g, &lattice(3, -2), (18, 18), 8);
        assert_eq!((dc, dr), (-3, 2));
        assert!(support > 0.8, "support {support}");
        let plain = Mat::new_rows_cols_with_default(400, 400, CV_8UC1, Scalar::all(200.0)).unwrap();
        let (_, _, none) = support_shift(&plain, &lattice(0, 0), (18, 18), 8);
        assert!(none < 0.1, "support {none}");
    }
}
