//! The one crop specification: how a site of the board becomes the classifier's input.
//! Training exports its crops through this same code, so the model sees at run time
//! exactly what it was trained on.

use opencv::core::{Mat, Rect};
use opencv::prelude::*;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use crate::geometry::{
    rectify, BoardPose, GeometryError, GridSpec, RectifyLayout, RectifyPlan, Viewpoint,
};

/// Pixels per cell in the rectified board the crops are cut from.
pub(crate) const CELL_PX: u32 = 16;
/// Context around the site, in cells: a neighbour's worth left and right, more
/// above (away from the camera, where a standing piece's body projects in oblique
/// views) than below.
pub(crate) const LEFT: f64 = 0.5;
pub(crate) const RIGHT: f64 = 0.5;
pub(crate) const UP: f64 = 1.0;
pub(crate) const DOWN: f64 = 0.5;
/// The rectified board's margin, in cells: as far as a crop reaches out.
const MARGIN: f64 = 1.0;
/// The height (cells) whose lean sets a crop's turn: about a pawn's.
const LEAN_HEIGHT: f64 = 1.0;
/// A lean shorter than this (cells, for `LEAN_HEIGHT`) leaves the crop as the
/// board is turned: a piece seen from nearly above looks the same either way.
const MIN_TURN_LEAN: f64 = 0.3;
/// Crop size in pixels (width, height): 32 x 40.
pub const CROP_W: u32 = ((1.0 + LEFT + RIGHT) * CELL_PX as f64) as u32;
/// Height of a crop in pixels.
pub const CROP_H: u32 = ((1.0 + UP + DOWN) * CELL_PX as f64) as u32;

/// Where one site's crop is cut: the site's centre in the rectified board and the
/// rectified-board steps of one crop pixel right (`right`) and one down (`down`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct SiteFrame {
    centre: (f64, f64),
    right: (f64, f64),
    down: (f64, f64),
}

/// How the board is turned before cropping, so that the edge nearest the camera is
/// at the bottom, and how each site's crop is turned, so that "up" in it points
/// the way a piece standing there shows leaning (away from the camera in an
/// oblique view, outward from the point under the camera from above).
#[derive(Clone, Debug)]
pub struct CropView {
    /// The original pose (as the user gave the corners).
    pub(crate) pose: BoardPose,
    /// The pose turned by quarter turns so that "up" in a crop points away from the camera.
    turned: BoardPose,
    layout: RectifyLayout,
    /// Per site, row-major in the user's grid order.
    frames: Vec<SiteFrame>,
    /// Per site, how far (rectified pixels) the top of a piece a cell tall shows
    /// from its base, in the direction of `frames`' up.
    lean: Vec<f64>,
    /// The rectification's sample maps, worked out at the second frame rectified
    /// (a recording rectifies every frame with the same pose; planning costs about
    /// one warp more, which a view rectified once never pays).
    plan: OnceLock<Option<RectifyPlan>>,
    rectified: Arc<AtomicBool>,
}

impl CropView {
    /// The crops of every site of `pose`.
    pub fn new(pose: &BoardPose) -> CropView {
        let turns = camera_turns(pose);
        let grid = if turns % 2 == 1 {
            GridSpec {
                rows: pose.grid().cols,
                cols: pose.grid().rows,
                points: pose.grid().points,
            }
        } else {
            pose.grid()
        };
        let mut view = CropView {
            pose: *pose,
            turned: BoardPose::new(grid, pose.corners().rotated(turns)),
            layout: RectifyLayout {
                cell_px: CELL_PX,
                margin_cells: MARGIN,
            },
            frames: Vec::new(),
            lean: Vec::new(),
            plan: OnceLock::new(),
            rectified: Arc::new(AtomicBool::new(false)),
        };
        let camera = Viewpoint::of(pose);
        for (row, col) in pose.grid().sites() {
            let centre = view.site_center(row, col);
            let base = pose.grid().site_center(row, col);
            // The top of a standing piece, as it shows, in the rectified board.
            let top = camera
                .top_of(base, LEAN_HEIGHT)
                .and_then(|t| view.turned.to_board(pose.to_image(t)))
                .map(|b| view.layout.board_to_rectified(&view.turned, b));
            let (dx, dy) = top.map_or((0.0, 0.0), |t| (t.0 - centre.0, t.1 - centre.1));
            let len = dx.hypot(dy);
            // Up in the crop is the quarter turn nearest the lean, where there is
            // lean enough to matter; quarter turns keep crops exact pixel copies.
            let up = if len >= MIN_TURN_LEAN * CELL_PX as f64 && len.is_finite() {
                [(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)]
                    .into_iter()
                    .max_by(|a: &(f64, f64), b| {
                        (a.0 * dx + a.1 * dy).total_cmp(&(b.0 * dx + b.1 * dy))
                    })
                    .unwrap_or((0.0, -1.0))
            } else {
                (0.0, -1.0)
            };
            view.frames.push(SiteFrame {
                centre: (round6(centre.0), round6(centre.1)),
                right: (-up.1, up.0),
                down: (-up.0, -up.1),
            });
            view.lean.push(if len.is_finite() { len } else { 0.0 });
        }
        view
    }

    /// How far (rectified pixels) the top of a piece a cell tall standing on site
    /// (row, col) shows from its base: how much of it reaches into the cells its
    /// crop calls "up".
    #[cfg(test)]
    pub(crate) fn lean_px(&self, row: u32, col: u32) -> f64 {
        let i = (row * self.pose.grid().cols + col) as usize;
        self.lean.get(i).copied().unwrap_or(0.0)
    }

    /// The turned, rectified board that crops are cut from (BGR): `geometry::rectify`,
    /// byte for byte, through maps planned once per view.
    pub fn rectify(&self, image: &Mat) -> Result<Mat, GeometryError> {
        if !self.rectified.swap(true, Ordering::Relaxed) {
            return rectify(image, &self.turned, &self.layout);
        }
        let plan = self
            .plan
            .get_or_init(|| RectifyPlan::new(&self.turned, &self.layout).ok());
        match plan {
            Some(p) => p.apply(image),
            None => rectify(image, &self.turned, &self.layout),
        }
    }

    /// Size of the rectified board (width, height).
    #[cfg(test)]
    pub(crate) fn rectified_size(&self) -> (u32, u32) {
        self.layout.size(&self.turned)
    }

    /// Rectified-board pixel position of the centre of site (row, col), given in the
    /// original (user's) grid order.
    pub(crate) fn site_center(&self, row: u32, col: u32) -> (f64, f64) {
        let img = self.pose.site_center(row, col);
        let p = self.turned.to_board(img).unwrap_or((0.0, 0.0));
        self.layout.board_to_rectified(&self.turned, p)
    }

    /// The rectangle a site's own cell covers in the rectified board (for change
    /// detection and skin checks).
    pub fn cell_rect(&self, row: u32, col: u32) -> Rect {
        let (cx, cy) = self.site_center(row, col);
        let c = CELL_PX as f64;
        Rect::new(
            (cx - 0.5 * c).round() as i32,
            (cy - 0.5 * c).round() as i32,
            CELL_PX as i32,
            CELL_PX as i32,
        )
    }

    /// Copies a site's crop out of the rectified board as RGB floats in 0..1, planar
    /// (C, H, W): the model's input layout. The crop is turned so that its up is
    /// the site's lean (`SiteFrame`) and sampled bilinearly; pixels outside the
    /// rectified board are black.
    pub fn crop_rgb_planar(&self, rectified: &Mat, row: u32, col: u32, out: &mut [f32]) {
        let (w, h) = (CROP_W as usize, CROP_H as usize);
        debug_assert_eq!(out.len(), 3 * w * h);
        out.fill(0.0);
        let i = (row * self.pose.grid().cols + col) as usize;
        let Some(f) = self.frames.get(i) else {
            return;
        };
        let Some(src) = Source::of(rectified) else {
            return;
        };
        let (red, rest) = out.split_at_mut(w * h);
        let (green, blue) = rest.split_at_mut(w * h);
        let planes = Planes { red, green, blue };
        let inside = src.holds_crop(f);
        if inside && f.quarter_turned() {
            crop_quarter_turned(&src, f, planes);
        } else if inside {
            crop_inside(&src, f, planes);
        } else {
            crop_anywhere(&src, f, planes);
        }
    }
}

impl SiteFrame {
    /// Where crop pixel (x, y) samples the rectified board: centre + (x - cx0) right
    /// + (y - cy0) down, where (cx0, cy0) is the site's centre in the crop.
    #[inline(always)]
    fn at(&self, x: usize, y: usize) -> (f64, f64) {
        let cx0 = (0.5 + LEFT) * CELL_PX as f64;
        let cy0 = (0.5 + UP) * CELL_PX as f64;
        let (dx, dy) = (x as f64 - cx0, y as f64 - cy0);
        (
            self.centre.0 + dx * self.right.0 + dy * self.down.0,
            self.centre.1 + dx * self.right.1 + dy * self.down.1,
        )
    }

    /// Whether the crop is the board turned by quarter turns (every frame `new`
    /// makes is): each sample coordinate then follows one crop axis only.
    fn quarter_turned(&self) -> bool {
        let axis = |v: (f64, f64)| (v.0 == 0.0) != (v.1 == 0.0);
        axis(self.right) && axis(self.down) && (self.right.0 == 0.0) != (self.down.0 == 0.0)
    }
}

/// The rectified board's bytes as crops read them: BGR rows of `step` bytes.
struct Source<'a> {
    data: &'a [u8],
    step: isize,
    /// Width and height in pixels.
    rw: isize,
    rh: isize,
}

impl<'a> Source<'a> {
    /// The board's bytes, where it is a 3-channel image that holds all its rows.
    fn of(rectified: &'a Mat) -> Option<Source<'a>> {
        let (rw, rh) = (rectified.cols() as isize, rectified.rows() as isize);
        let data = rectified.data_bytes().unwrap_or(&[]);
        let step = rectified
            .mat_step()
            .first()
            .copied()
            .unwrap_or(rw as usize * 3) as isize;
        if rectified.channels() != 3 || data.len() < (step * rh) as usize {
            return None;
        }
        Some(Source { data, step, rw, rh })
    }

    /// Whether every sample of `f`'s crop, with its neighbours right and below, lies
    /// inside the board. The map is affine, so the crop's corners bound every sample:
    /// where they lie inside, no pixel needs a bounds check (the usual case; same
    /// values either way, bit for bit).
    fn holds_crop(&self, f: &SiteFrame) -> bool {
        let (w, h) = (CROP_W as usize, CROP_H as usize);
        [
            f.at(0, 0),
            f.at(w - 1, 0),
            f.at(0, h - 1),
            f.at(w - 1, h - 1),
        ]
        .iter()
        .all(|&(sx, sy)| {
            sx.is_finite()
                && sy.is_finite()
                && sx.floor() >= 0.0
                && sy.floor() >= 0.0
                && (sx.floor() as isize) + 1 < self.rw
                && (sy.floor() as isize) + 1 < self.rh
        })
    }
}

/// A crop's three planes, each `CROP_W * CROP_H` values.
struct Planes<'a> {
    red: &'a mut [f32],
    green: &'a mut [f32],
    blue: &'a mut [f32],
}

/// A crop of a quarter-turned frame inside the board: each sample coordinate
/// follows one crop axis only (the other term adds a zero), so it is worked out
/// once per crop column and row, with the per-pixel arithmetic.
fn crop_quarter_turned(src: &Source, f: &SiteFrame, planes: Planes) {
    let (w, h) = (CROP_W as usize, CROP_H as usize);
    let Planes { red, green, blue } = planes;
    let data = src.data;
    let step = src.step as usize;
    // Source x follows the crop's columns unless the crop is turned a quarter.
    let x_by_col = f.right.0 != 0.0;
    let split = |v: f64, scale: usize| {
        let v0 = floor_finite(v);
        (v0 as usize * scale, (v - v0) as f32)
    };
    let (sc, ss) = if x_by_col { (3, step) } else { (step, 3) };
    let cols: Vec<(usize, f32)> = (0..w)
        .map(|x| {
            let (sx, sy) = f.at(x, 0);
            split(if x_by_col { sx } else { sy }, sc)
        })
        .collect();
    let rows: Vec<(usize, f32)> = (0..h)
        .map(|y| {
            let (sx, sy) = f.at(0, y);
            split(if x_by_col { sy } else { sx }, ss)
        })
        .collect();
    let rgb = |o: usize| -> [f32; 3] {
        let p = &data[o..o + 3];
        [p[2] as f32, p[1] as f32, p[0] as f32]
    };
    if cols.iter().chain(&rows).all(|&(_, fr)| fr == 0.0) {
        // Whole-pixel centres (the usual case): the bilinear sample with zero
        // weights is the pixel itself, bit for bit.
        for (y, &(ro, _)) in rows.iter().enumerate() {
            for (x, &(co, _)) in cols.iter().enumerate() {
                let p = &data[ro + co..ro + co + 3];
                let i = y * w + x;
                red[i] = p[2] as f32 / 255.0;
                green[i] = p[1] as f32 / 255.0;
                blue[i] = p[0] as f32 / 255.0;
            }
        }
        return;
    }
    for (y, &(ro, rf)) in rows.iter().enumerate() {
        for (x, &(co, cf)) in cols.iter().enumerate() {
            let (fx, fy) = if x_by_col { (cf, rf) } else { (rf, cf) };
            let o = ro + co;
            let (a, b, c, d) = (rgb(o), rgb(o + 3), rgb(o + step), rgb(o + step + 3));
            let i = y * w + x;
            red[i] = bilinear(a[0], b[0], c[0], d[0], fx, fy);
            green[i] = bilinear(a[1], b[1], c[1], d[1], fx, fy);
            blue[i] = bilinear(a[2], b[2], c[2], d[2], fx, fy);
        }
    }
}

/// A crop of any frame inside the board: every sample bilinear, with no bounds
/// checks.
fn crop_inside(src: &Source, f: &SiteFrame, planes: Planes) {
    let (w, h) = (CROP_W as usize, CROP_H as usize);
    let Planes { red, green, blue } = planes;
    let data = src.data;
    let step = src.step as usize;
    let rgb = |o: usize| -> [f32; 3] {
        let p = &data[o..o + 3];
        [p[2] as f32, p[1] as f32, p[0] as f32]
    };
    for y in 0..h {
        for x in 0..w {
            let (sx, sy) = f.at(x, y);
            let (x0, y0) = (floor_finite(sx), floor_finite(sy));
            let (fx, fy) = ((sx - x0) as f32, (sy - y0) as f32);
            let o = y0 as usize * step + x0 as usize * 3;
            let (a, b, c, d) = (rgb(o), rgb(o + 3), rgb(o + step), rgb(o + step + 3));
            let i = y * w + x;
            red[i] = bilinear(a[0], b[0], c[0], d[0], fx, fy);
            green[i] = bilinear(a[1], b[1], c[1], d[1], fx, fy);
            blue[i] = bilinear(a[2], b[2], c[2], d[2], fx, fy);
        }
    }
}

/// A crop that reaches past the board: every sample bilinear, pixels outside black.
fn crop_anywhere(src: &Source, f: &SiteFrame, planes: Planes) {
    let (w, h) = (CROP_W as usize, CROP_H as usize);
    let Planes { red, green, blue } = planes;
    let (data, step, rw, rh) = (src.data, src.step, src.rw, src.rh);
    let px = |x: isize, y: isize| -> [f32; 3] {
        if x < 0 || y < 0 || x >= rw || y >= rh {
            return [0.0; 3];
        }
        let o = (y * step + x * 3) as usize;
        // BGR in, RGB out.
        [data[o + 2] as f32, data[o + 1] as f32, data[o] as f32]
    };
    for y in 0..h {
        for x in 0..w {
            let (sx, sy) = f.at(x, y);
            let (x0, y0) = (sx.floor(), sy.floor());
            let (fx, fy) = ((sx - x0) as f32, (sy - y0) as f32);
            let (x0, y0) = (x0 as isize, y0 as isize);
            let (a, b, c, d) = (
                px(x0, y0),
                px(x0 + 1, y0),
                px(x0, y0 + 1),
                px(x0 + 1, y0 + 1),
            );
            let i = y * w + x;
            red[i] = bilinear(a[0], b[0], c[0], d[0], fx, fy);
            green[i] = bilinear(a[1], b[1], c[1], d[1], fx, fy);
            blue[i] = bilinear(a[2], b[2], c[2], d[2], fx, fy);
        }
    }
}

/// One channel of a bilinear sample, in 0..1.
#[inline(always)]
fn bilinear(a: f32, b: f32, c: f32, d: f32, fx: f32, fy: f32) -> f32 {
    let top = a + (b - a) * fx;
    let bottom = c + (d - c) * fx;
    (top + (bottom - top) * fy) / 255.0
}

/// `x.floor()` for finite `x` within i64, without the library call the baseline
/// x86-64 target makes of it (no SSE4.1 rounding instruction there).
#[inline(always)]
fn floor_finite(x: f64) -> f64 {
    let t = x as i64 as f64;
    if t > x {
        t - 1.0
    } else {
        t
    }
}

/// `x` to the nearest millionth: site centres that are whole pixels up to
/// rounding error become exactly whole, so their crops are exact copies.
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Simple colour statistics of one planar crop (as `crop_rgb_planar` fills it),
/// for per-game learning: the mean colour where a piece's base stands (the
/// central half of the cell), the mean colour of the cell above it (where a
/// standing piece's body projects in oblique views) and the spread of brightness
/// over the cell.
pub(crate) fn colour_stats(planar: &[f32]) -> [f32; 7] {
    let (w, h) = (CROP_W as usize, CROP_H as usize);
    let c = CELL_PX as usize;
    let (cx0, cy0) = ((LEFT * c as f64) as usize, (UP * c as f64) as usize);
    let mean = |ch: usize, x0: usize, x1: usize, y0: usize, y1: usize| -> f32 {
        let plane = &planar[ch * w * h..(ch + 1) * w * h];
        let mut sum = 0.0;
        for y in y0..y1 {
            sum += plane[y * w + x0..y * w + x1].iter().sum::<f32>();
        }
        sum / ((x1 - x0) * (y1 - y0)).max(1) as f32
    };
    let q = c / 4;
    let base = |ch| mean(ch, cx0 + q, cx0 + c - q, cy0 + q, cy0 + c - q);
    let above = |ch| mean(ch, cx0, cx0 + c, cy0.saturating_sub(c), cy0);
    let mut lum = Vec::with_capacity(c * c);
    for y in cy0..cy0 + c {
        for x in cx0..cx0 + c {
            let i = y * w + x;
            lum.push((planar[i] + planar[w * h + i] + planar[2 * w * h + i]) / 3.0);
        }
    }
    let m = lum.iter().sum::<f32>() / lum.len() as f32;
    let spread = (lum.iter().map(|v| (v - m) * (v - m)).sum::<f32>() / lum.len() as f32).sqrt();
    [
        base(0),
        base(1),
        base(2),
        above(0),
        above(1),
        above(2),
        spread,
    ]
}

/// Quarter turns that bring the board edge nearest the camera to the bottom. The
/// nearest edge is the longest one in the image; a view from straight above has
/// no nearest edge and keeps the user's orientation.
pub(crate) fn camera_turns(pose: &BoardPose) -> usize {
    let p = pose.corners().points();
    let len = |i: usize| {
        let (a, b) = (p[i], p[(i + 1) % 4]);
        ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt()
    };
    let (lr, lc) = pose.grid().lattice_cells();
    // Per-cell lengths, so a non-square grid compares fairly. Edges: 0 top, 1 right,
    // 2 bottom, 3 left.
    let per_cell = [
        len(0) / lc as f64,
        len(1) / lr as f64,
        len(2) / lc as f64,
        len(3) / lr as f64,
    ];
    let (mut best, mut second) = (0, f64::MIN);
    for i in 0..4 {
        if per_cell[i] > per_cell[best] {
            best = i;
        }
    }
    for (i, v) in per_cell.iter().enumerate() {
        if i != best {
            second = second.max(*v);
        }
    }
    if per_cell[best] < 1.03 * second.max(per_cell[(best + 2) % 4]) {
        return 0;
    }
    (best + 2) % 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Corners;

    fn pose(c: &str) -> BoardPose {
        BoardPose::new(GridSpec::cells(8, 8), c.parse::<Corners>().unwrap())
    }

    #[test]
    fn crops_are_32_by_40() {
        assert_eq!((CROP_W, CROP_H), (32, 40));
    }

    #[test]
    fn the_edge_nearest_the_camera_goes_to_the_bottom() {
        // Camera at the bottom: bottom edge longest.
        assert_eq!(camera_turns(&pose("200,100 440,100 600,400 40,400")), 0);
        // Camera at the top: top edge longest.
        assert_eq!(camera_turns(&pose("40,100 600,100 440,400 200,400")), 2);
        // Camera at the left: left edge longest.
        assert_eq!(camera_turns(&pose("100,40 400,200 400,300 100,460")), 1);
        // Camera at the right.
        assert_eq!(camera_turns(&pose("100,200 400,40 400,460 100,300")), 3);
        // From straight above: no turn.
        assert_eq!(camera_turns(&pose("100,100 500,100 500,500 100,500")), 0);
    }

    #[test]
    fn site_centres_survive_the_turn() {
        let p = pose("100,40 400,200 400,300 100,460");
        let v = CropView::new(&p);
        // Site (0,0) is at the user's TL corner, which is the turned board's BL.
        let (w, h) = v.rectified_size();
        let (x, y) = v.site_center(0, 0);
        let m = MARGIN * CELL_PX as f64;
        assert!((x - (m + 8.0)).abs() < 1e-6, "{x}");
        assert!((y - (h as f64 - m - 8.0)).abs() < 1e-6, "{y} of {h}");
        assert!(w > 0);
    }

    /// A rectified-board-sized image whose pixels differ everywhere.
    fn pattern(v: &CropView) -> Mat {
        use opencv::core::{Scalar, Vec3b, CV_8UC3};
        let (w, h) = v.rectified_size();
        let mut m =
            Mat::new_rows_cols_with_default(h as i32, w as i32, CV_8UC3, Scalar::all(0.0)).unwrap();
        for y in 0..h as i32 {
            for x in 0..w as i32 {
                let p = ((x * 7 + y * 13) % 256) as u8;
                *m.at_2d_mut::<Vec3b>(y, x).unwrap() =
                    Vec3b::from([p, p.wrapping_mul(3), p.wrapping_add(101)]);
            }
        }
        m
    }

    /// The crop pixel (x, y) of site (r, c), channel `ch` (RGB), as 0..255.
    fn at(v: &CropView, m: &Mat, r: u32, c: u32, x: usize, y: usize, ch: usize) -> f32 {
        let mut out = vec![0.0; 3 * (CROP_W * CROP_H) as usize];
        v.crop_rgb_planar(m, r, c, &mut out);
        out[ch * (CROP_W * CROP_H) as usize + y * CROP_W as usize + x] * 255.0
    }

    fn rect_px(m: &Mat, x: f64, y: f64, ch: usize) -> f32 {
        let (x, y) = (x.round() as i32, y.round() as i32);
        if x < 0 || y < 0 || x >= m.cols() || y >= m.rows() {
            return 0.0;
        }
        let (x, y) = (x as f64, y as f64);
        let px = m
            .at_2d::<opencv::core::Vec3b>(y.round() as i32, x.round() as i32)
            .unwrap();
        px[2 - ch] as f32
    }

    #[test]
    fn an_oblique_view_crops_straight_up() {
        // Camera in front of the bottom edge: every site leans up the board.
        let v = CropView::new(&pose("150,100 490,100 560,400 80,400"));
        for (r, c) in [(0, 0), (3, 4), (7, 7), (0, 7)] {
            let f = v.frames[(r * 8 + c) as usize];
            assert_eq!(f.down, (0.0, 1.0), "site {r},{c}: {f:?}");
            assert!(v.lean_px(r, c) > 0.0);
        }
    }

    #[test]
    fn from_above_crops_turn_outward_and_copy_the_board_exactly() {
        let v = CropView::new(&pose("100,100 400,100 400,400 100,400"));
        let m = pattern(&v);
        let (cx0, cy0) = (16.0, 24.0);
        // Bottom-middle site: up in its crop points down the board (a half turn);
        // the centre keeps the board's turn.
        let f = v.frames[7 * 8 + 4];
        assert_eq!((f.down, f.right), ((0.0, -1.0), (-1.0, 0.0)));
        assert_eq!(v.frames[3 * 8 + 4].down, (0.0, 1.0));
        assert_eq!(v.frames[4 * 8].down, (1.0, 0.0));
        for (x, y) in [(0usize, 0usize), (16, 24), (31, 39), (5, 30)] {
            let (sx, sy) = (
                f.centre.0 + (x as f64 - cx0) * f.right.0 + (y as f64 - cy0) * f.down.0,
                f.centre.1 + (x as f64 - cx0) * f.right.1 + (y as f64 - cy0) * f.down.1,
            );
            if (sx - sx.round()).abs() < 1e-9 && (sy - sy.round()).abs() < 1e-9 {
                for ch in 0..3 {
                    assert_eq!(at(&v, &m, 7, 4, x, y, ch), rect_px(&m, sx, sy, ch));
                }
            }
        }
        // The centre pixel is the site's centre, whichever way the crop turns.
        for (r, c) in [(0, 0), (7, 7), (2, 5)] {
            let f = v.frames[(r * 8 + c) as usize];
            let got = at(&v, &m, r, c, 16, 24, 0);
            let want = rect_px(&m, f.centre.0, f.centre.1, 0);
            assert!(
                (got - want).abs() < 1.0 + 1e-3,
                "site {r},{c}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn crops_beyond_the_image_are_black_and_never_read_out_of_bounds() {
        let v = CropView::new(&pose("100,100 400,100 400,400 100,400"));
        let small = Mat::new_rows_cols_with_default(
            5,
            7,
            opencv::core::CV_8UC3,
            opencv::core::Scalar::all(200.0),
        )
        .unwrap();
        let mut out = vec![1.0; 3 * (CROP_W * CROP_H) as usize];
        v.crop_rgb_planar(&small, 7, 7, &mut out);
        assert!(out.iter().all(|&x| x == 0.0));
        v.crop_rgb_planar(&small, 0, 0, &mut out);
        assert!(out.iter().all(|&x| (0.0..=1.0).contains(&x)));
    }

    /// The crop as the plain per-pixel sampler cut it before the bounds-free path
    /// (issue 23): the same floats, bit for bit, on oblique and overhead views whose
    /// centres fall between pixels, at every site (edge crops included).
    #[test]
    fn crops_are_the_plain_samplers_bit_for_bit() {
        fn plain(v: &CropView, m: &Mat, r: u32, c: u32) -> Vec<f32> {
            let (w, h) = (CROP_W as usize, CROP_H as usize);
            let f = v.frames[(r * v.pose.grid().cols + c) as usize];
            let (cx0, cy0) = ((0.5 + LEFT) * CELL_PX as f64, (0.5 + UP) * CELL_PX as f64);
            let px = |x: isize, y: isize| -> [f32; 3] {
                if x < 0 || y < 0 || x >= m.cols() as isize || y >= m.rows() as isize {
                    return [0.0; 3];
                }
                let p = m.at_2d::<opencv::core::Vec3b>(y as i32, x as i32).unwrap();
                [p[2] as f32, p[1] as f32, p[0] as f32]
            };
            let mut out = vec![0f32; 3 * w * h];
            for y in 0..h {
                for x in 0..w {
                    let (dx, dy) = (x as f64 - cx0, y as f64 - cy0);
                    let sx = f.centre.0 + dx * f.right.0 + dy * f.down.0;
                    let sy = f.centre.1 + dx * f.right.1 + dy * f.down.1;
                    let (x0, y0) = (sx.floor(), sy.floor());
                    let (fx, fy) = ((sx - x0) as f32, (sy - y0) as f32);
                    let (x0, y0) = (x0 as isize, y0 as isize);
                    let (a, b, cc, d) = (
                        px(x0, y0),
                        px(x0 + 1, y0),
                        px(x0, y0 + 1),
                        px(x0 + 1, y0 + 1),
                    );
                    for k in 0..3 {
                        let top = a[k] + (b[k] - a[k]) * fx;
                        let bottom = cc[k] + (d[k] - cc[k]) * fx;
                        out[k * w * h + y * w + x] = (top + (bottom - top) * fy) / 255.0;
                    }
                }
            }
            out
        }
        for corners in [
            "150.3,100.7 490.1,100.2 560.9,400.4 80.6,400.5",
            "100.25,100.5 400.75,100.1 400.4,400.9 100.6,400.3",
            "100,40 400,200 400,300 100,460",
        ] {
            let v = CropView::new(&pose(corners));
            let m = pattern(&v);
            let mut out = vec![0f32; 3 * (CROP_W * CROP_H) as usize];
            for r in 0..8 {
                for c in 0..8 {
                    v.crop_rgb_planar(&m, r, c, &mut out);
                    let want = plain(&v, &m, r, c);
                    assert!(
                        out.iter()
                            .zip(&want)
                            .all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{corners}: site {r},{c}"
                    );
                }
            }
        }
    }
}
