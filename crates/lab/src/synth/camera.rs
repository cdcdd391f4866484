//! Perspective camera with optional radial distortion.
//!
//! World frame: origin at the centre of the cell grid on the board's top
//! surface, x along increasing column, y along increasing row, z up; metres.
//! Pixel coordinates put (0, 0) at the centre of the top-left pixel.
//!
//! Distortion is applied as a warp of the pinhole render: a pinhole point at
//! normalised coordinates p moves to p * (1 + k1 |p|^2 + k2 |p|^4). The
//! rasteriser draws a pinhole image on a canvas big enough for the warp and
//! every output pixel samples it at the undistorted position.

use super::math::{v3, V3};
use super::params::CameraParams;

#[derive(Clone, Debug)]
pub struct Camera {
    pub pos: V3,
    pub right: V3,
    pub up: V3,
    pub fwd: V3,
    pub focal_px: f64,
    /// Principal point in output pixels.
    pub cx: f64,
    pub cy: f64,
    pub k1: f64,
    pub k2: f64,
    /// Offset of the output principal point inside the pinhole canvas.
    pub canvas_off: (f64, f64),
    pub canvas_w: usize,
    pub canvas_h: usize,
}

/// Small per-frame pose perturbation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shake {
    pub d_az_deg: f64,
    pub d_el_deg: f64,
    pub d_roll_deg: f64,
    pub d_target: [f64; 2],
}

/// Camera orientation and position for a pose, before the distance is known.
fn basis(el: f64, az: f64, roll: f64) -> (V3, V3, V3) {
    let (se, ce) = (el.sin() as f32, el.cos() as f32);
    // Horizontal direction from the target towards the camera; azimuth 0 puts
    // the camera beyond the bottom edge (large y).
    let h = v3(az.sin() as f32, az.cos() as f32, 0.0);
    let z = v3(0.0, 0.0, 1.0);
    let fwd = -(h * ce + z * se);
    let up0 = z * ce - h * se;
    let right0 = up0.cross(fwd);
    let (sr, cr) = (roll.sin() as f32, roll.cos() as f32);
    let right = right0 * cr + up0 * sr;
    let up = up0 * cr - right0 * sr;
    (right, up, fwd)
}

impl Camera {
    /// Builds the camera so that `outline` (board corners) spans `fill` of
    /// the shorter image side.
    pub fn new(p: &CameraParams, outline: &[V3], w: u32, h: u32, shake: Shake) -> Camera {
        let focal_px = p.focal_35mm / 36.0 * w as f64;
        let (right, up, fwd) = basis(
            (p.elevation_deg + shake.d_el_deg)
                .clamp(5.0, 90.0)
                .to_radians(),
            (p.azimuth_deg + shake.d_az_deg).to_radians(),
            (p.roll_deg + shake.d_roll_deg).to_radians(),
        );
        let (mut ext_x, mut ext_y) = (0.0f32, 0.0f32);
        for c in outline {
            ext_x = ext_x.max(c.x.abs());
            ext_y = ext_y.max(c.y.abs());
        }
        let target = v3(
            (p.target_offset[0] * 2.0 * ext_x as f64 + shake.d_target[0]) as f32,
            (p.target_offset[1] * 2.0 * ext_y as f64 + shake.d_target[1]) as f32,
            0.0,
        );
        let half_min = 0.5 * w.min(h) as f64 / focal_px;
        let want = (p.fill * half_min).max(1e-3);
        // Fixed-point iteration on the distance: perspective makes the board
        // extent depend on it, but it converges in a few steps.
        let mut dist = (ext_x.max(ext_y) as f64 / want).max(0.05);
        for _ in 0..6 {
            let pos = target - fwd * dist as f32;
            let mut m = 0.0f64;
            for c in outline {
                let d = *c - pos;
                let z = d.dot(fwd).max(1e-4) as f64;
                m = m
                    .max((d.dot(right) as f64 / z).abs())
                    .max((d.dot(up) as f64 / z).abs());
            }
            dist *= (m / want).clamp(0.5, 2.0);
        }
        let pos = target - fwd * dist as f32;
        // Shake must not dip the camera under the table.
        let pos = v3(pos.x, pos.y, pos.z.max(0.02));
        Camera {
            pos,
            right,
            up,
            fwd,
            focal_px,
            cx: w as f64 / 2.0 - 0.5,
            cy: h as f64 / 2.0 - 0.5,
            k1: p.k1,
            k2: p.k2,
            canvas_off: (0.0, 0.0),
            canvas_w: w as usize,
            canvas_h: h as usize,
        }
    }

    pub fn has_distortion(&self) -> bool {
        self.k1 != 0.0 || self.k2 != 0.0
    }

    /// Camera-space coordinates: x right, y up, z depth along the view.
    #[inline]
    pub fn to_cam(&self, p: V3) -> V3 {
        let d = p - self.pos;
        v3(d.dot(self.right), d.dot(self.up), d.dot(self.fwd))
    }

    /// Distortion factor at squared normalised radius r2.
    #[inline]
    pub fn dist_factor(&self, r2: f64) -> f64 {
        1.0 + self.k1 * r2 + self.k2 * r2 * r2
    }

    /// Undistorted normalised point whose distorted image is (xd, yd).
    pub fn undistort(&self, xd: f64, yd: f64) -> (f64, f64) {
        let (mut x, mut y) = (xd, yd);
        for _ in 0..12 {
            let f = self.dist_factor(x * x + y * y).max(0.1);
            x = xd / f;
            y = yd / f;
        }
        (x, y)
    }

    /// Projects a world point to output pixels, distortion included.
    pub fn project(&self, p: V3) -> Option<[f64; 2]> {
        let c = self.to_cam(p);
        if c.z <= 1e-6 {
            return None;
        }
        let x = c.x as f64 / c.z as f64;
        let y = -(c.y as f64) / c.z as f64;
        let f = self.dist_factor(x * x + y * y);
        Some([
            self.cx + self.focal_px * x * f,
            self.cy + self.focal_px * y * f,
        ])
    }

    /// Projects a world point to pinhole-canvas pixels (no distortion).
    pub fn project_canvas(&self, p: V3) -> Option<[f64; 2]> {
        let c = self.to_cam(p);
        if c.z <= 1e-6 {
            return None;
        }
        Some([
            self.cx + self.canvas_off.0 + self.focal_px * c.x as f64 / c.z as f64,
            self.cy + self.canvas_off.1 - self.focal_px * c.y as f64 / c.z as f64,
        ])
    }
}

/// One output pixel's bilinear sample of the canvas: the index of the
/// top-left texel of its 2x2 footprint and the weights of the right and
/// lower neighbours.
#[derive(Clone, Copy, Debug)]
pub struct Tap {
    pub k: u32,
    pub tx: f32,
    pub ty: f32,
}

/// For each output pixel, the canvas position to sample, plus the canvas
/// size and offset needed to hold all of them.
pub struct Remap {
    pub taps: Vec<Tap>,
    pub canvas_w: usize,
    pub canvas_h: usize,
    pub off: (f64, f64),
}

/// Builds the distortion warp table. `cam` only contributes intrinsics.
/// The inverse is solved on a coarse lattice and interpolated, since the
/// warp is smooth and the iteration is the costly part.
pub fn build_remap(cam: &Camera, w: usize, h: usize) -> Remap {
    const STEP: usize = 8;
    let (gw, gh) = (w.div_ceil(STEP) + 1, h.div_ceil(STEP) + 1);
    let mut grid = Vec::with_capacity(gw * gh);
    for gj in 0..gh {
        let yd = ((gj * STEP) as f64 - cam.cy) / cam.focal_px;
        for gi in 0..gw {
            let xd = ((gi * STEP) as f64 - cam.cx) / cam.focal_px;
            let (x, y) = cam.undistort(xd, yd);
            grid.push((cam.cx + cam.focal_px * x, cam.cy + cam.focal_px * y));
        }
    }
    // Canvas positions first (as `Tap`s: k unused, tx and ty holding x and y),
    // turned into texel indices and weights once the canvas size is known.
    let mut taps: Vec<Tap> = super::pool::take(w * h);
    let (mut minx, mut miny, mut maxx, mut maxy) = (0.0f64, 0.0f64, (w - 1) as f64, (h - 1) as f64);
    // The lattice rows above and below a band of STEP pixel rows,
    // interpolated along x once per band.
    let mut top = vec![(0.0f64, 0.0f64); w];
    let mut bot = vec![(0.0f64, 0.0f64); w];
    for j in 0..h {
        let (gj, tj) = (j / STEP, (j % STEP) as f64 / STEP as f64);
        if j % STEP == 0 {
            for i in 0..w {
                let (gi, ti) = (i / STEP, (i % STEP) as f64 / STEP as f64);
                let a = grid[gj * gw + gi];
                let b = grid[gj * gw + gi + 1];
                let c = grid[(gj + 1) * gw + gi];
                let d = grid[(gj + 1) * gw + gi + 1];
                top[i] = (a.0 + (b.0 - a.0) * ti, a.1 + (b.1 - a.1) * ti);
                bot[i] = (c.0 + (d.0 - c.0) * ti, c.1 + (d.1 - c.1) * ti);
            }
        }
        // Positions move monotonically from a band's first row to its last,
        // so the extremes lie on those rows.
        let at =
            |(t, b): (&(f64, f64), &(f64, f64))| (t.0 + (b.0 - t.0) * tj, t.1 + (b.1 - t.1) * tj);
        if j % STEP == 0 || j % STEP == STEP - 1 || j == h - 1 {
            for (px, py) in top.iter().zip(&bot).map(at) {
                minx = minx.min(px);
                miny = miny.min(py);
                maxx = maxx.max(px);
                maxy = maxy.max(py);
            }
        }
        taps.extend(top.iter().zip(&bot).map(at).map(|(px, py)| Tap {
            k: 0,
            tx: px as f32,
            ty: py as f32,
        }));
    }
    // Strong pincushion/barrel settings can ask for a huge canvas; cap it and
    // let the outermost pixels clamp to the edge.
    let lim_x = w as f64 * 0.5;
    let lim_y = h as f64 * 0.5;
    let ox = (-minx).clamp(0.0, lim_x).ceil() + 1.0;
    let oy = (-miny).clamp(0.0, lim_y).ceil() + 1.0;
    let ex = (maxx - (w - 1) as f64).clamp(0.0, lim_x).ceil() + 1.0;
    let ey = (maxy - (h - 1) as f64).clamp(0.0, lim_y).ceil() + 1.0;
    let (cw, ch) = (w + (ox + ex) as usize, h + (oy + ey) as usize);
    // Split a clamped coordinate into a texel and the weight of the next
    // one; the last texel is the next one of its left neighbour at weight 1.
    // Canvas sides are far below 2^31, so the texel arithmetic stays in i32
    // (which converts to and from f32 in vector lanes, unlike usize).
    let split = |v: f32, n: i32| -> (i32, f32) {
        let v = v.clamp(0.0, (n - 1) as f32);
        let i = (v as i32).min(n - 2);
        (i, v - i as f32)
    };
    let (oxf, oyf, cwi, chi) = (ox as f32, oy as f32, cw as i32, ch as i32);
    for t in taps.iter_mut() {
        let (ix, tx) = split(t.tx + oxf, cwi);
        let (iy, ty) = split(t.ty + oyf, chi);
        *t = Tap {
            k: (iy * cwi + ix) as u32,
            tx,
            ty,
        };
    }
    Remap {
        taps,
        canvas_w: cw,
        canvas_h: ch,
        off: (ox, oy),
    }
}
