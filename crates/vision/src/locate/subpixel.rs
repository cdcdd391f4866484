//! Sharpening a lined grid from the image itself: each grid line's thin dark
//! ridge is found with sub-pixel accuracy on short profiles across the line
//! between its crossings (the centroid of its darkness), each line is
//! robustly refitted to those points (stones, their shadows and glints cover some),
//! and the homography is fitted to the refitted lines' crossings. Edge segments
//! from a fast detector sit on whole pixels; the ridges do not.

use opencv::core::Mat;

use super::linalg::fit_line;
use super::profile::{grey_view, Grey};
use super::refine::from_lines;
use crate::geometry::mat3::{line_normalised, V3};
use crate::geometry::Homography;

/// Spacing of the samples along a profile, px.
const STEP: f64 = 0.25;
/// A ridge shallower than this many grey levels below both its sides is not read.
const MIN_DEPTH: f64 = 5.0;

/// The thin dark ridge crossing the profile through `p` along the unit vector `n`,
/// searched within `reach` px of `p`, with its sides `w` px off its centre: the
/// centre's signed offset from `p` along `n` (px) and the ridge's depth (grey
/// levels). `None` where no ridge of `MIN_DEPTH` is within reach.
pub(super) fn ridge_offset(
    g: &Grey,
    p: (f64, f64),
    n: (f64, f64),
    reach: f64,
    w: f64,
) -> Option<(f64, f64)> {
    let k = (reach / STEP).round().max(1.0) as i64;
    let kw = (w / STEP).round().max(2.0) as i64;
    // The centroid's window reaches a pixel past the sides: bilinear sampling
    // spreads the darkness that far.
    let kc = kw + (1.0 / STEP) as i64;
    let m = k + 2 * kc;
    let prof: Vec<f64> = (-m..=m)
        .map(|i| {
            let s = i as f64 * STEP;
            g.at(p.0 + n.0 * s, p.1 + n.1 * s)
        })
        .collect::<Option<_>>()?;
    let at = |i: i64| prof[(i + m) as usize];
    // The deepest ridge within reach, on the samples.
    let depth = |i: i64| at(i - kw).min(at(i + kw)) - at(i);
    let (best, deepest) = (-k..=k)
        .map(|i| (i, depth(i)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    if deepest < MIN_DEPTH {
        return None;
    }
    // Its centre: the centroid of the darkness below the straight line through
    // the two sides, recentred until it settles (a window centred on the ridge
    // makes an error in the sides' level cancel).
    let mut c = best as f64;
    for _ in 0..3 {
        let ci = c.round() as i64;
        let (lo, hi) = (ci - kc, ci + kc);
        if lo < -m || hi > m {
            return None;
        }
        let (bl, bh) = (at(lo), at(hi));
        let (mut s0, mut s1) = (0.0, 0.0);
        for i in lo..=hi {
            let t = (i - lo) as f64 / (hi - lo) as f64;
            let d = (bl + (bh - bl) * t - at(i)).max(0.0);
            s0 += d;
            s1 += d * i as f64;
        }
        if s0 <= 0.0 {
            return None;
        }
        c = s1 / s0;
    }
    Some((c * STEP, deepest))
}

/// The lattice's pixel at line coordinate `k` and coordinate `t` along it (cells),
/// `cols_family` telling which family's line `k` is.
fn px(
    h: &Homography,
    (lr, lc): (u32, u32),
    cols_family: bool,
    k: f64,
    t: f64,
) -> Option<(f64, f64)> {
    let (u, v) = if cols_family { (k, t) } else { (t, k) };
    h.apply((u / lc as f64, v / lr as f64))
}

/// Line `k`'s ridge points between each pair of crossings, searched within
/// `reach` cells (at most `max_px` px) of where `h` puts the line.
fn ridge_points(
    g: &Grey,
    h: &Homography,
    cells: (u32, u32),
    cols_family: bool,
    k: i64,
    reach: f64,
    max_px: f64,
) -> Vec<(f64, f64)> {
    let m = if cols_family { cells.0 } else { cells.1 };
    let k = k as f64;
    let mut out = Vec::new();
    for j in 0..m {
        let t = j as f64 + 0.5;
        let (Some(p), Some(a), Some(b), Some(l), Some(r)) = (
            px(h, cells, cols_family, k, t),
            px(h, cells, cols_family, k, t - 0.1),
            px(h, cells, cols_family, k, t + 0.1),
            px(h, cells, cols_family, k - 0.5, t),
            px(h, cells, cols_family, k + 0.5, t),
        ) else {
            continue;
        };
        let (tx, ty) = (b.0 - a.0, b.1 - a.1);
        let tl = (tx * tx + ty * ty).sqrt();
        if tl < 1e-9 {
            continue;
        }
        let n = (-ty / tl, tx / tl);
        // The cell's size across the line, px.
        let cell = ((r.0 - l.0) * n.0 + (r.1 - l.1) * n.1).abs();
        if cell < 4.0 {
            continue;
        }
        let w = (0.2 * cell).clamp(1.5, 3.0);
        let reach_px = (reach * cell).min(max_px);
        if let Some((o, _)) = ridge_offset(g, p, n, reach_px, w) {
            out.push((p.0 + n.0 * o, p.1 + n.1 * o));
        }
    }
    out
}

/// The line through `pts`, refitted without the points far off it; `None` for
/// too few points (fewer than `min_pts` kept).
pub(super) fn robust_line(pts: &[(f64, f64)], min_pts: usize) -> Option<V3> {
    let mut kept: Vec<((f64, f64), f64)> = pts.iter().map(|&p| (p, 1.0)).collect();
    let mut line = None;
    for _ in 0..3 {
        if kept.len() < min_pts.max(2) {
            return None;
        }
        let l = line_normalised(fit_line(&kept)?);
        let dist = |p: (f64, f64)| (l[0] * p.0 + l[1] * p.1 + l[2]).abs();
        let mut r: Vec<f64> = kept.iter().map(|&(p, _)| dist(p)).collect();
        r.sort_by(f64::total_cmp);
        let tol = (3.0 * 1.4826 * r[r.len() / 2]).max(0.35);
        let before = kept.len();
        kept.retain(|&(p, _)| dist(p) <= tol);
        line = Some(l);
        if kept.len() == before {
            break;
        }
    }
    if kept.len() < min_pts.max(2) {
        return None;
    }
    line
}

/// The unit-square homography `h` (to working pixels) of a lined grid of `cells`
/// (rows, cols) sharpened on its lines' ridges; `h` itself where the image shows
/// too few of them.
pub(crate) fn by_ridges(grey: &Mat, h: &Homography, (lr, lc): (u32, u32)) -> Homography {
    let Some(g) = grey_view(grey) else {
        return *h;
    };
    let mut h = *h;
    for (reach, max_px) in [(0.3, 3.0), (0.15, 1.5)] {
        let fam = |cols_family: bool, n: u32, m: u32| -> Vec<Option<V3>> {
            (0..=n as i64)
                .map(|k| {
                    let pts = ridge_points(&g, &h, (lr, lc), cols_family, k, reach, max_px);
                    robust_line(&pts, (m as usize / 3).max(3))
                })
                .collect()
        };
        let cols = fam(true, lc, lr);
        let rows = fam(false, lr, lc);
        match from_lines(&h, (lr, lc), &cols, &rows) {
            Some(next) => h = next,
            None => break,
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Scalar, CV_8UC1};
    use opencv::prelude::*;

    /// A 60 x 40 image of level 200 with a dark vertical line centred at x =
    /// `x0` (pixel centres at whole x), 1.2 px wide and blurred by a lens of
    /// `sigma` px (none for 0), each pixel the mean over its area.
    fn vertical_line(x0: f64, sigma: f64) -> Mat {
        let mut m = Mat::new_rows_cols_with_default(40, 60, CV_8UC1, Scalar::all(200.0)).unwrap();
        // Coverage of the line at x, blurred: the box's width through a Gaussian.
        let dark = |x: f64| -> f64 {
            let (a, b) = (x0 - 0.6, x0 + 0.6);
            if sigma == 0.0 {
                return f64::from((a..b).contains(&x));
            }
            let taps = 41;
            (0..taps)
                .map(|i| {
                    let d = 4.0 * sigma * (2.0 * i as f64 / (taps - 1) as f64 - 1.0);
                    let wgt = (-0.5 * (d / sigma).powi(2)).exp();
                    (wgt * f64::from((a..b).contains(&(x - d)) as u8), wgt)
                })
                .fold((0.0, 0.0), |(s, t), (v, w)| (s + v, t + w))
                .0
                / (0..taps)
                    .map(|i| {
                        let d = 4.0 * sigma * (2.0 * i as f64 / (taps - 1) as f64 - 1.0);
                        (-0.5 * (d / sigma).powi(2)).exp()
                    })
                    .sum::<f64>()
        };
        for x in 0..60 {
            let sub = 50;
            let cover = (0..sub)
                .map(|i| dark(x as f64 - 0.5 + (i as f64 + 0.5) / sub as f64))
                .sum::<f64>()
                / sub as f64;
            let v = (200.0 - 140.0 * cover).round() as u8;
            for y in 0..40 {
                *m.at_2d_mut::<u8>(y, x).unwrap() = v;
            }
        }
        m
    }

    #[test]
    fn a_thin_line_is_found_to_a_twentieth_of_a_pixel() {
        // Blurred as a camera's lens blurs: within 0.05 px; hard-edged (only
        // area sampling), whose centroid is biased by the pixels: within 0.1 px.
        for (sigma, tol) in [(0.6, 0.05), (0.0, 0.1)] {
            for x0 in [30.0, 30.2, 30.37, 30.5, 30.81] {
                let m = vertical_line(x0, sigma);
                let g = grey_view(&m).unwrap();
                for start in [28.6, 29.5, 31.4] {
                    let (o, depth) = ridge_offset(&g, (start, 20.0), (1.0, 0.0), 3.0, 2.0).unwrap();
                    assert!(depth > 40.0, "depth {depth}");
                    let x = start + o;
                    assert!(
                        (x - x0).abs() < tol,
                        "line at {x0} (blur {sigma}), from {start}: {x}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_plain_image_shows_no_ridge() {
        let m = Mat::new_rows_cols_with_default(40, 60, CV_8UC1, Scalar::all(200.0)).unwrap();
        let g = grey_view(&m).unwrap();
        assert!(ridge_offset(&g, (30.0, 20.0), (1.0, 0.0), 3.0, 2.0).is_none());
    }

    #[test]
    fn a_line_is_refitted_without_its_outliers() {
        let mut pts: Vec<(f64, f64)> = (0..18)
            .map(|i| (10.3 + 0.01 * i as f64, 5.0 * i as f64))
            .collect();
        pts[4].0 += 3.0;
        pts[11].0 -= 2.0;
        let l = robust_line(&pts, 6).unwrap();
        for y in [0.0, 40.0, 85.0] {
            let x = -(l[1] * y + l[2]) / l[0];
            assert!((x - (10.3 + 0.002 * y)).abs() < 0.01, "x {x} at y {y}");
        }
    }

    /// A lattice of 18 x 18 cells with dark lines 1.5 px wide at x, y = 40.3 +
    /// 16.1 i, area-sampled: a homography off by a pixel or so is brought onto it.
    #[test]
    fn a_lattice_is_brought_onto_its_ridges() {
        let (n, size) = (18u32, 380);
        let at = |i: f64| 40.3 + 16.1 * i;
        let cover = |x: i32| -> f64 {
            (0..=n)
                .map(|i| {
                    let (a, b) = (at(i as f64) - 0.75, at(i as f64) + 0.75);
                    ((x as f64 + 0.5).min(b) - (x as f64 - 0.5).max(a)).max(0.0)
                })
                .sum::<f64>()
                .min(1.0)
        };
        let mut m =
            Mat::new_rows_cols_with_default(size, size, CV_8UC1, Scalar::all(200.0)).unwrap();
        for y in 0..size {
            for x in 0..size {
                let (cx, cy) = (cover(x), cover(y));
                let dark = if (at(0.0) - 1.0..at(18.0) + 1.0).contains(&(x as f64))
                    && (at(0.0) - 1.0..at(18.0) + 1.0).contains(&(y as f64))
                {
                    cx.max(cy)
                } else {
                    0.0
                };
                *m.at_2d_mut::<u8>(y, x).unwrap() = (200.0 - 140.0 * dark).round() as u8;
            }
        }
        let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        let (a, b) = (at(0.0), at(18.0));
        let off = [
            (a + 1.2, a - 0.8),
            (b + 0.3, a + 0.9),
            (b - 1.1, b + 0.6),
            (a - 0.4, b - 1.0),
        ];
        let h = Homography::from_points(&unit, &off).unwrap();
        let fine = by_ridges(&m, &h, (n, n));
        let truth = [(a, a), (b, a), (b, b), (a, b)];
        for (u, t) in unit.iter().zip(truth) {
            let p = fine.apply(*u).unwrap();
            assert!(
                (p.0 - t.0).abs() < 0.05 && (p.1 - t.1).abs() < 0.05,
                "{p:?} vs {t:?}"
            );
        }
    }
}
