//! The one crop specification: how a site of the board becomes the classifier's input.
//! Training exports its crops through this same code, so the model sees at run time
//! exactly what it was trained on.

use opencv::core::{Mat, Rect};
use opencv::prelude::*;

use crate::geometry::{rectify, BoardPose, GeometryError, GridSpec, RectifyLayout};

/// Pixels per cell in the rectified board the crops are cut from.
pub const CELL_PX: u32 = 16;
/// Context around the site, in cells: a neighbour's worth left and right, more
/// above (away from the camera, where a standing piece's body projects in oblique
/// views) than below.
pub const LEFT: f64 = 0.5;
pub const RIGHT: f64 = 0.5;
pub const UP: f64 = 1.0;
pub const DOWN: f64 = 0.5;
/// Crop size in pixels (width, height): 32 x 40.
pub const CROP_W: u32 = ((1.0 + LEFT + RIGHT) * CELL_PX as f64) as u32;
pub const CROP_H: u32 = ((1.0 + UP + DOWN) * CELL_PX as f64) as u32;

/// `i / 255.0` for every byte: the same values as dividing, at the cost of a lookup.
static UNIT: [f32; 256] = unit_table();

const fn unit_table() -> [f32; 256] {
    let mut t = [0.0; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i as f32 / 255.0;
        i += 1;
    }
    t
}

/// How the board is turned before cropping, so that the edge nearest the camera is
/// at the bottom and "up" in every crop points away from the camera.
#[derive(Clone, Debug)]
pub struct CropView {
    /// The original pose (as the user gave the corners).
    pub pose: BoardPose,
    /// The pose turned by `turns` quarter turns.
    turned: BoardPose,
    pub turns: usize,
    layout: RectifyLayout,
}

impl CropView {
    pub fn new(pose: &BoardPose) -> CropView {
        let turns = camera_turns(pose);
        let grid = if turns % 2 == 1 {
            GridSpec {
                rows: pose.grid.cols,
                cols: pose.grid.rows,
                points: pose.grid.points,
            }
        } else {
            pose.grid
        };
        CropView {
            pose: *pose,
            turned: BoardPose::new(grid, pose.corners.rotated(turns)),
            turns,
            layout: RectifyLayout {
                cell_px: CELL_PX,
                margin_cells: UP.max(DOWN).max(LEFT).max(RIGHT),
            },
        }
    }

    /// The turned, rectified board that crops are cut from (BGR).
    pub fn rectify(&self, image: &Mat) -> Result<Mat, GeometryError> {
        rectify(image, &self.turned, &self.layout)
    }

    /// Size of the rectified board (width, height).
    pub fn rectified_size(&self) -> (u32, u32) {
        self.layout.size(&self.turned)
    }

    /// Rectified-board pixel position of the centre of site (row, col), given in the
    /// original (user's) grid order.
    pub fn site_center(&self, row: u32, col: u32) -> (f64, f64) {
        let img = self.pose.site_center(row, col);
        let p = self.turned.to_board(img).unwrap_or((0.0, 0.0));
        self.layout.board_to_rectified(&self.turned, p)
    }

    /// The crop rectangle of a site in the rectified board.
    pub fn crop_rect(&self, row: u32, col: u32) -> Rect {
        let (cx, cy) = self.site_center(row, col);
        let c = CELL_PX as f64;
        let x = (cx - (0.5 + LEFT) * c).round() as i32;
        let y = (cy - (0.5 + UP) * c).round() as i32;
        Rect::new(x, y, CROP_W as i32, CROP_H as i32)
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
    /// (C, H, W): the model's input layout. Pixels outside the board are black.
    pub fn crop_rgb_planar(&self, rectified: &Mat, row: u32, col: u32, out: &mut [f32]) {
        let r = self.crop_rect(row, col);
        let (w, h) = (CROP_W as usize, CROP_H as usize);
        debug_assert_eq!(out.len(), 3 * w * h);
        out.fill(0.0);
        let (rw, rh) = (rectified.cols(), rectified.rows());
        let data = rectified.data_bytes().unwrap_or(&[]);
        let step = rectified
            .mat_step()
            .first()
            .copied()
            .unwrap_or(rw as usize * 3);
        // The columns inside the image are the same on every row: clip them once, then
        // walk each row as a slice (this loop ran at a tenth of the model's time).
        let x0 = (-r.x).clamp(0, w as i32) as usize;
        let x1 = (rw - r.x).clamp(0, w as i32) as usize;
        if x0 >= x1 {
            return;
        }
        let (red, rest) = out.split_at_mut(w * h);
        let (green, blue) = rest.split_at_mut(w * h);
        for y in 0..h {
            let sy = r.y + y as i32;
            if sy < 0 || sy >= rh {
                continue;
            }
            let start = sy as usize * step + (r.x + x0 as i32) as usize * 3;
            let src = &data[start..start + (x1 - x0) * 3];
            let o = y * w + x0;
            let rows = red[o..o + x1 - x0]
                .iter_mut()
                .zip(green[o..o + x1 - x0].iter_mut())
                .zip(blue[o..o + x1 - x0].iter_mut());
            // BGR in, RGB planes out.
            for (((r, g), b), px) in rows.zip(src.chunks_exact(3)) {
                *r = UNIT[px[2] as usize];
                *g = UNIT[px[1] as usize];
                *b = UNIT[px[0] as usize];
            }
        }
    }

    /// The same crop as 8-bit RGB interleaved (H, W, 3), for exporting training data.
    pub fn crop_rgb8(&self, rectified: &Mat, row: u32, col: u32) -> Vec<u8> {
        let mut planar = vec![0.0; 3 * (CROP_W * CROP_H) as usize];
        self.crop_rgb_planar(rectified, row, col, &mut planar);
        let n = (CROP_W * CROP_H) as usize;
        let mut out = Vec::with_capacity(3 * n);
        for i in 0..n {
            for c in 0..3 {
                out.push((planar[c * n + i] * 255.0).round() as u8);
            }
        }
        out
    }
}

/// Simple colour statistics of one planar crop (as `crop_rgb_planar` fills it),
/// for per-game learning: the mean colour where a piece's base stands (the
/// central half of the cell), the mean colour of the cell above it (where a
/// standing piece's body projects in oblique views) and the spread of brightness
/// over the cell.
pub fn colour_stats(planar: &[f32]) -> [f32; 7] {
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
pub fn camera_turns(pose: &BoardPose) -> usize {
    let p = pose.corners.points();
    let len = |i: usize| {
        let (a, b) = (p[i], p[(i + 1) % 4]);
        ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt()
    };
    let (lr, lc) = pose.grid.lattice_cells();
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
        assert_eq!(v.turns, 1);
        // Site (0,0) is at the user's TL corner, which is the turned board's BL.
        let (w, h) = v.rectified_size();
        let (x, y) = v.site_center(0, 0);
        let m = CELL_PX as f64; // margin of one cell
        assert!((x - (m + 8.0)).abs() < 1e-6, "{x}");
        assert!((y - (h as f64 - m - 8.0)).abs() < 1e-6, "{y} of {h}");
        assert!(w > 0);
    }

    /// Per-pixel reference for `crop_rgb_planar`: black outside, BGR to RGB planes.
    fn naive_crop(m: &Mat, r: Rect) -> Vec<f32> {
        let (w, h) = (CROP_W as usize, CROP_H as usize);
        let mut out = vec![0.0; 3 * w * h];
        for y in 0..h {
            for x in 0..w {
                let (sx, sy) = (r.x + x as i32, r.y + y as i32);
                if sx < 0 || sy < 0 || sx >= m.cols() || sy >= m.rows() {
                    continue;
                }
                let px = m.at_2d::<opencv::core::Vec3b>(sy, sx).unwrap();
                for c in 0..3 {
                    out[c * w * h + y * w + x] = px[2 - c] as f32 / 255.0;
                }
            }
        }
        out
    }

    #[test]
    fn crops_match_a_pixel_by_pixel_copy_inside_and_across_the_edges() {
        use opencv::core::{Scalar, Vec3b, CV_8UC3};
        let v = CropView::new(&pose("100,100 400,100 400,400 100,400"));
        let (w, h) = v.rectified_size();
        // Full size, and smaller than the board so crops hang over every edge.
        for (mw, mh) in [(w as i32, h as i32), (40, 30), (5, 3)] {
            let mut m = Mat::new_rows_cols_with_default(mh, mw, CV_8UC3, Scalar::all(0.0)).unwrap();
            for y in 0..mh {
                for x in 0..mw {
                    let p = ((x * 7 + y * 13) % 256) as u8;
                    *m.at_2d_mut::<Vec3b>(y, x).unwrap() =
                        Vec3b::from([p, p.wrapping_mul(3), p.wrapping_add(101)]);
                }
            }
            for (r, c) in [(0, 0), (0, 7), (7, 0), (7, 7), (3, 4)] {
                let mut out = vec![1.0; 3 * (CROP_W * CROP_H) as usize];
                v.crop_rgb_planar(&m, r, c, &mut out);
                assert_eq!(
                    out,
                    naive_crop(&m, v.crop_rect(r, c)),
                    "site {r},{c} on {mw}x{mh}"
                );
            }
        }
    }
}
