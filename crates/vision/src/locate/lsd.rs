//! The line segment detector (von Gioi et al., "LSD: a Line Segment Detector",
//! IPOL 2012), with the standard refinement and no NFA test, as OpenCV's
//! `createLineSegmentDetector(LSD_REFINE_STD, ..)` runs it, written here because
//! OpenCV's orders every pixel of the frame with a comparison sort (a 1280x720
//! frame: 0.9M points through `std::sort`, then visited in that order, a cache miss
//! each) and that was most of a dense grid's location time. Here only the pixels
//! with a defined gradient are ordered, by a counting sort into the same 1024
//! magnitude bins (raster order within a bin), and alignment is tested on unit
//! gradient vectors (cosine against the tolerance's cosine) instead of angles.

use super::segments::Segment;

/// Gradient angle tolerance (22.5 degrees) and the quantisation bound on the
/// gradient norm (2 grey levels), LSD's defaults.
const ANGLE_TOLERANCE: f64 = 22.5 * std::f64::consts::PI / 180.0;
const QUANT: f64 = 2.0;
/// Minimal share of a region's rectangle its points must fill.
const DENSITY: f64 = 0.7;
/// Magnitude bins of the pseudo-ordering.
const BINS: usize = 1024;

/// Pixel states: free (defined gradient, in no region yet), used, undefined.
const FREE: u8 = 0;
const USED: u8 = 1;
const UNDEFINED: u8 = 2;

/// The segments of a grey image (`width` x `height` bytes, row-major).
pub(crate) fn detect(grey: &[u8], width: usize, height: usize) -> Vec<Segment> {
    if width < 2 || height < 2 {
        return Vec::new();
    }
    let mut d = Detector::new(grey, width, height);
    let p = ANGLE_TOLERANCE / std::f64::consts::PI;
    // Fewer points than this cannot make a meaningful segment (LSD's bound from
    // the number of tests, log10 of about 11 (w h)^(5/2)).
    let log_nt = 5.0 * ((width as f64).log10() + (height as f64).log10()) / 2.0 + 11f64.log10();
    let min_region = (-log_nt / p.log10()) as usize;
    let order = d.ordered();
    let mut reg = Vec::new();
    let mut out = Vec::new();
    let cos_tol = ANGLE_TOLERANCE.cos();
    for &i in &order {
        if d.state[i as usize] != FREE {
            continue;
        }
        let dir = d.grow(i as usize, cos_tol, &mut reg);
        if reg.len() < min_region {
            continue;
        }
        let Some(rect) = d.rect(&reg, dir) else {
            continue;
        };
        let Some(rect) = d.refine(&mut reg, rect) else {
            continue;
        };
        // Gradients are taken at pixel corners: (x + 0.5, y + 0.5).
        out.push(Segment {
            a: (rect.x1 + 0.5, rect.y1 + 0.5),
            b: (rect.x2 + 0.5, rect.y2 + 0.5),
        });
    }
    out
}

/// A region's rectangle: its segment's ends and width.
#[derive(Clone, Copy, Debug)]
struct Rect {
    x1: f64,
    y1: f64,
    x2: f64,
    y2: f64,
    width: f64,
}

impl Rect {
    fn density(&self, n: usize) -> f64 {
        let len = ((self.x2 - self.x1).powi(2) + (self.y2 - self.y1).powi(2)).sqrt();
        n as f64 / (len * self.width)
    }
}

struct Detector {
    width: usize,
    height: usize,
    /// Unit level-line direction per pixel (the gradient turned a quarter), zero
    /// where undefined.
    dir: Vec<(f32, f32)>,
    norm: Vec<f32>,
    state: Vec<u8>,
    max_norm: f32,
}

impl Detector {
    fn new(grey: &[u8], width: usize, height: usize) -> Detector {
        let n = width * height;
        let mut dir = vec![(0.0f32, 0.0f32); n];
        let mut norm = vec![0.0f32; n];
        let mut state = vec![UNDEFINED; n];
        let threshold = QUANT / ANGLE_TOLERANCE.sin();
        // norm = |g| / 2 with g from the 2x2 differences; compared squared.
        let t2 = (4.0 * threshold * threshold) as f32;
        let mut max_norm = 0.0f32;
        for y in 0..height - 1 {
            let (r0, r1) = (&grey[y * width..], &grey[(y + 1) * width..]);
            for x in 0..width - 1 {
                let da = r1[x + 1] as i32 - r0[x] as i32;
                let bc = r0[x + 1] as i32 - r1[x] as i32;
                let (gx, gy) = (da + bc, da - bc);
                let g2 = (gx * gx + gy * gy) as f32;
                let i = y * width + x;
                let g = g2.sqrt();
                norm[i] = g / 2.0;
                if g2 > t2 {
                    // LSD's angle is atan2(gx, -gy): the direction (-gy, gx).
                    dir[i] = (-gy as f32 / g, gx as f32 / g);
                    state[i] = FREE;
                    max_norm = max_norm.max(g / 2.0);
                }
            }
        }
        Detector {
            width,
            height,
            dir,
            norm,
            state,
            max_norm,
        }
    }

    /// The defined pixels, strongest gradient bin first, raster order within a bin.
    fn ordered(&self) -> Vec<u32> {
        let coef = if self.max_norm > 0.0 {
            (BINS - 1) as f64 / self.max_norm as f64
        } else {
            0.0
        };
        let bin = |i: usize| BINS - 1 - ((self.norm[i] as f64 * coef) as usize).min(BINS - 1);
        let mut start = vec![0u32; BINS + 1];
        for (i, &s) in self.state.iter().enumerate() {
            if s == FREE {
                start[bin(i) + 1] += 1;
            }
        }
        for b in 0..BINS {
            start[b + 1] += start[b];
        }
        let mut out = vec![0u32; start[BINS] as usize];
        for (i, &s) in self.state.iter().enumerate() {
            if s == FREE {
                let b = bin(i);
                out[start[b] as usize] = i as u32;
                start[b] += 1;
            }
        }
        out
    }

    /// Grows a region from `seed` over free 8-neighbours aligned with its mean
    /// direction within `cos_tol`; returns that direction (unit).
    fn grow(&mut self, seed: usize, cos_tol: f64, reg: &mut Vec<usize>) -> (f64, f64) {
        reg.clear();
        reg.push(seed);
        self.state[seed] = USED;
        let d0 = self.dir[seed];
        let mut sum = (d0.0 as f64, d0.1 as f64);
        let mut len = 1.0;
        let (w, h) = (self.width, self.height);
        let mut k = 0;
        while k < reg.len() {
            let (x, y) = (reg[k] % w, reg[k] / w);
            k += 1;
            for yy in y.saturating_sub(1)..=(y + 1).min(h - 1) {
                for xx in x.saturating_sub(1)..=(x + 1).min(w - 1) {
                    let j = yy * w + xx;
                    if self.state[j] != FREE {
                        continue;
                    }
                    let u = self.dir[j];
                    if (u.0 as f64 * sum.0 + u.1 as f64 * sum.1) < cos_tol * len {
                        continue;
                    }
                    self.state[j] = USED;
                    reg.push(j);
                    sum = (sum.0 + u.0 as f64, sum.1 + u.1 as f64);
                    len = (sum.0 * sum.0 + sum.1 * sum.1).sqrt();
                }
            }
        }
        if len > 0.0 {
            (sum.0 / len, sum.1 / len)
        } else {
            (d0.0 as f64, d0.1 as f64)
        }
    }

    /// The rectangle of a region: centred on its gradient-weighted centroid, along
    /// its principal axis of inertia, turned to agree with the region's direction.
    fn rect(&self, reg: &[usize], dir: (f64, f64)) -> Option<Rect> {
        let w = self.width;
        let (mut sx, mut sy, mut sum) = (0.0, 0.0, 0.0);
        for &i in reg {
            let m = self.norm[i] as f64;
            sx += (i % w) as f64 * m;
            sy += (i / w) as f64 * m;
            sum += m;
        }
        if sum <= 0.0 {
            return None;
        }
        let (cx, cy) = (sx / sum, sy / sum);
        let (mut ixx, mut iyy, mut ixy) = (0.0, 0.0, 0.0);
        for &i in reg {
            let m = self.norm[i] as f64;
            let (dx, dy) = ((i % w) as f64 - cx, (i / w) as f64 - cy);
            ixx += dy * dy * m;
            iyy += dx * dx * m;
            ixy -= dx * dy * m;
        }
        if ixx.abs() < 1e-12 && iyy.abs() < 1e-12 && ixy.abs() < 1e-12 {
            return None;
        }
        let lambda = 0.5 * (ixx + iyy - ((ixx - iyy).powi(2) + 4.0 * ixy * ixy).sqrt());
        let theta = if ixx.abs() > iyy.abs() {
            (lambda - ixx).atan2(ixy)
        } else {
            ixy.atan2(lambda - iyy)
        };
        let (mut dx, mut dy) = (theta.cos(), theta.sin());
        if dx * dir.0 + dy * dir.1 < ANGLE_TOLERANCE.cos() {
            (dx, dy) = (-dx, -dy);
        }
        let (mut l0, mut l1, mut w0, mut w1) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for &i in reg {
            let (rx, ry) = ((i % w) as f64 - cx, (i / w) as f64 - cy);
            let l = rx * dx + ry * dy;
            let t = -rx * dy + ry * dx;
            l0 = l0.min(l);
            l1 = l1.max(l);
            w0 = w0.min(t);
            w1 = w1.max(t);
        }
        Some(Rect {
            x1: cx + l0 * dx,
            y1: cy + l0 * dy,
            x2: cx + l1 * dx,
            y2: cy + l1 * dy,
            width: (w1 - w0).max(1.0),
        })
    }

    /// LSD's standard refinement of a region too sparse for its rectangle (an arc,
    /// two lines meeting): grown again from its seed with the tolerance narrowed to
    /// twice the spread of directions near the seed, then cut to smaller radii.
    fn refine(&mut self, reg: &mut Vec<usize>, rect: Rect) -> Option<Rect> {
        if rect.density(reg.len()) >= DENSITY {
            return Some(rect);
        }
        let w = self.width;
        let seed = reg[0];
        let (xc, yc) = ((seed % w) as f64, (seed / w) as f64);
        let s = self.dir[seed];
        let (mut sum, mut s_sum, mut n) = (0.0, 0.0, 0usize);
        for &i in reg.iter() {
            self.state[i] = FREE;
            let (x, y) = ((i % w) as f64, (i / w) as f64);
            if ((x - xc).powi(2) + (y - yc).powi(2)).sqrt() < rect.width {
                let u = self.dir[i];
                let cross = s.0 as f64 * u.1 as f64 - s.1 as f64 * u.0 as f64;
                let dot = s.0 as f64 * u.0 as f64 + s.1 as f64 * u.1 as f64;
                let d = cross.atan2(dot);
                sum += d;
                s_sum += d * d;
                n += 1;
            }
        }
        let mean = sum / n as f64;
        let tau = 2.0 * (s_sum / n as f64 - mean * mean).max(0.0).sqrt();
        let cos_tau = if tau >= std::f64::consts::PI {
            -2.0
        } else {
            tau.cos()
        };
        let dir = self.grow(seed, cos_tau, reg);
        if reg.len() < 2 {
            return None;
        }
        let mut rect = self.rect(reg, dir)?;
        if rect.density(reg.len()) >= DENSITY {
            return Some(rect);
        }
        // Cut the region to 75% of its radius around the seed until dense enough.
        let r1 = (xc - rect.x1).powi(2) + (yc - rect.y1).powi(2);
        let r2 = (xc - rect.x2).powi(2) + (yc - rect.y2).powi(2);
        let mut rad2 = r1.max(r2);
        while rect.density(reg.len()) < DENSITY {
            rad2 *= 0.75 * 0.75;
            let state = &mut self.state;
            reg.retain(|&i| {
                let (x, y) = ((i % w) as f64, (i / w) as f64);
                let keep = (x - xc).powi(2) + (y - yc).powi(2) <= rad2;
                if !keep {
                    state[i] = FREE;
                }
                keep
            });
            if reg.len() < 2 {
                return None;
            }
            rect = self.rect(reg, dir)?;
        }
        Some(rect)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Mat, Vec4f, Vector};
    use opencv::imgproc;
    use opencv::prelude::*;

    /// OpenCV's detector with the settings this one reproduces.
    fn opencv_lsd(grey: &Mat) -> Vec<Segment> {
        let mut lsd = imgproc::create_line_segment_detector(
            imgproc::LSD_REFINE_STD,
            1.0,
            0.6,
            QUANT,
            22.5,
            0.0,
            DENSITY,
            BINS as i32,
        )
        .unwrap();
        let mut lines: Vector<Vec4f> = Vector::new();
        let (mut w, mut p, mut n) = (Mat::default(), Mat::default(), Mat::default());
        lsd.detect(grey, &mut lines, &mut w, &mut p, &mut n)
            .unwrap();
        lines
            .iter()
            .map(|l| Segment {
                a: (l[0] as f64, l[1] as f64),
                b: (l[2] as f64, l[3] as f64),
            })
            .collect()
    }

    /// Distance from `p` to the segment `s`.
    fn off(s: &Segment, p: (f64, f64)) -> f64 {
        let (dx, dy) = (s.b.0 - s.a.0, s.b.1 - s.a.1);
        let t = (((p.0 - s.a.0) * dx + (p.1 - s.a.1) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
        (p.0 - s.a.0 - t * dx).hypot(p.1 - s.a.1 - t * dy)
    }

    #[test]
    fn finds_the_long_segments_opencv_finds_on_a_board_in_perspective() {
        // A board seen in perspective (the geometry's test card: no import of the
        // renderer, which sits downstream of the locator).
        let pose = crate::geometry::BoardPose::new(
            "8x8".parse().unwrap(),
            "150,90 490,100 600,420 40,410".parse().unwrap(),
        );
        let bgr = crate::geometry::perspective_test_card(&pose, (640, 480)).unwrap();
        let mut grey = Mat::default();
        imgproc::cvt_color_def(&bgr, &mut grey, imgproc::COLOR_BGR2GRAY).unwrap();
        let ours = detect(grey.data_bytes().unwrap(), 640, 480);
        let theirs = opencv_lsd(&grey);
        let long = |v: &[Segment]| {
            v.iter()
                .filter(|s| s.len() >= 30.0)
                .copied()
                .collect::<Vec<_>>()
        };
        let (ours, theirs) = (long(&ours), long(&theirs));
        assert!(theirs.len() >= 20, "only {} long segments", theirs.len());
        // Every long segment of one detector lies along one of the other's
        // (both ends within a pixel), both ways round.
        let matched = |a: &[Segment], b: &[Segment]| {
            a.iter()
                .filter(|s| b.iter().any(|t| off(t, s.a) < 1.0 && off(t, s.b) < 1.0))
                .count()
        };
        let (m1, m2) = (matched(&theirs, &ours), matched(&ours, &theirs));
        assert!(
            m1 as f64 >= 0.9 * theirs.len() as f64,
            "{m1} of OpenCV's {} found",
            theirs.len()
        );
        assert!(
            m2 as f64 >= 0.9 * ours.len() as f64,
            "{m2} of our {} confirmed",
            ours.len()
        );
    }

    #[test]
    fn a_step_edge_gives_one_segment_along_it() {
        // A vertical step at x = 20 in a 40x30 image.
        let (w, h) = (40, 30);
        let grey: Vec<u8> = (0..w * h)
            .map(|i| if i % w < 20 { 40 } else { 200 })
            .collect();
        let segs = detect(&grey, w, h);
        assert_eq!(segs.len(), 1, "{segs:?}");
        let s = segs[0];
        assert!(
            (s.a.0 - 20.0).abs() < 0.6 && (s.b.0 - 20.0).abs() < 0.6,
            "{s:?}"
        );
        assert!((s.a.1 - s.b.1).abs() > 25.0, "{s:?}");
    }
}
