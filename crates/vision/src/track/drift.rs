//! A camera held by hand drifts: the board slides by a fraction of a pixel of
//! the thumbnail from frame to frame, and the stones' and lines' edges then
//! differ as much as a small hand would. The previous thumbnail is first moved
//! onto the new one (one translation, found by Lucas-Kanade steps), and only
//! what still differs counts as motion.

use super::motion::BoardThumb;

/// The largest slide between two frames taken for drift, in thumbnail pixels
/// (a quarter cell each): a faster slide blurs the frame, and is motion.
pub(crate) const MAX_DRIFT_PX: f32 = 1.0;

/// Gauss-Newton steps: a slide of under a pixel settles in two or three.
const STEPS: usize = 3;

/// The translation (dx, dy) that moves `prev` onto `next` (a point at x in
/// `prev` is at x + dx in `next`), or None where the thumbnails are flat (no
/// edges to follow) or of other sizes.
pub(crate) fn slide(prev: &BoardThumb, next: &BoardThumb) -> Option<(f32, f32)> {
    if prev.pixels.len() != next.pixels.len() || prev.width < 8 || prev.height < 8 {
        return None;
    }
    let (w, h) = (prev.width, prev.height);
    let at = |t: &BoardThumb, x: usize, y: usize| f32::from(t.pixels[y * w + x]);
    let (mut dx, mut dy) = (0.0f32, 0.0f32);
    for _ in 0..STEPS {
        let (mut sxx, mut sxy, mut syy, mut sxt, mut syt) = (0.0f64, 0.0, 0.0, 0.0, 0.0);
        for y in 2..h - 2 {
            for x in 2..w - 2 {
                // Gradient of the new frame; the old one sampled where the
                // slide so far puts this pixel.
                let gx = (at(next, x + 1, y) - at(next, x - 1, y)) / 2.0;
                let gy = (at(next, x, y + 1) - at(next, x, y - 1)) / 2.0;
                let Some(old) = sample(prev, x as f32 - dx, y as f32 - dy) else {
                    continue;
                };
                let t = at(next, x, y) - old;
                sxx += f64::from(gx * gx);
                sxy += f64::from(gx * gy);
                syy += f64::from(gy * gy);
                sxt += f64::from(gx * t);
                syt += f64::from(gy * t);
            }
        }
        let det = sxx * syy - sxy * sxy;
        if det <= 1e-6 * (sxx + syy).max(1.0).powi(2) {
            return None;
        }
        // next(x) ≈ prev(x - d): the residual t ≈ -g·δ for the step δ.
        let sx = (-(syy * sxt) + sxy * syt) / det;
        let sy = (sxy * sxt - sxx * syt) / det;
        dx += sx as f32;
        dy += sy as f32;
        if dx.abs() > 2.0 * MAX_DRIFT_PX || dy.abs() > 2.0 * MAX_DRIFT_PX {
            break;
        }
    }
    Some((dx, dy))
}

/// `prev` moved by (dx, dy) onto `next`'s pixels, bilinear, and brought to
/// `next`'s mean grey level (a phone's exposure follows the light from frame
/// to frame: a change of the whole picture is no hand); the border the slide
/// leaves without a source keeps `next`'s own pixels (no difference).
pub(crate) fn moved_onto(prev: &BoardThumb, next: &BoardThumb, (dx, dy): (f32, f32)) -> BoardThumb {
    let (w, h) = (next.width, next.height);
    let mut moved = vec![None; w * h];
    let (mut sum_old, mut sum_new, mut n) = (0.0f64, 0.0f64, 0usize);
    for y in 0..h {
        for x in 0..w {
            if let Some(v) = sample(prev, x as f32 - dx, y as f32 - dy) {
                moved[y * w + x] = Some(v);
                sum_old += f64::from(v);
                sum_new += f64::from(next.pixels[y * w + x]);
                n += 1;
            }
        }
    }
    let offset = if n > 0 {
        ((sum_new - sum_old) / n as f64) as f32
    } else {
        0.0
    };
    let mut pixels = next.pixels.clone();
    for (p, v) in pixels.iter_mut().zip(moved) {
        if let Some(v) = v {
            *p = (v + offset).round().clamp(0.0, 255.0) as u8;
        }
    }
    BoardThumb {
        width: w,
        height: h,
        pixels,
        tile: next.tile,
    }
}

/// The thumbnail's grey level at (x, y), bilinear; None outside it.
fn sample(t: &BoardThumb, x: f32, y: f32) -> Option<f32> {
    if x < 0.0 || y < 0.0 {
        return None;
    }
    let (x0, y0) = (x.floor() as usize, y.floor() as usize);
    if x0 + 1 >= t.width || y0 + 1 >= t.height {
        return None;
    }
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let p = |xx: usize, yy: usize| f32::from(t.pixels[yy * t.width + xx]);
    let top = p(x0, y0) * (1.0 - fx) + p(x0 + 1, y0) * fx;
    let bottom = p(x0, y0 + 1) * (1.0 - fx) + p(x0 + 1, y0 + 1) * fx;
    Some(top * (1.0 - fy) + bottom * fy)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A board of soft-edged discs (stones) on lines, slid by (sx, sy).
    fn board(sx: f32, sy: f32) -> BoardThumb {
        let (w, h) = (60, 60);
        let mut pixels = vec![0u8; w * h];
        for y in 0..h {
            for x in 0..w {
                let (fx, fy) = (x as f32 - sx, y as f32 - sy);
                // Soft edges, as a camera's blur and the thumbnail's
                // averaging make them.
                let line = |f: f32| {
                    let d = f.rem_euclid(6.0) - 3.0;
                    (-d * d / 1.3).exp()
                };
                let mut v = 170.0 - 110.0 * line(fx).max(line(fy));
                for (cx, cy, c) in [(21.0, 27.0, 250.0), (33.0, 15.0, 20.0), (39.0, 39.0, 250.0)] {
                    let d = ((fx - cx) * (fx - cx) + (fy - cy) * (fy - cy)).sqrt();
                    let k = ((3.5 - d) / 2.0).clamp(0.0, 1.0);
                    v = v * (1.0 - k) + c * k;
                }
                pixels[y * w + x] = v as u8;
            }
        }
        BoardThumb {
            width: w,
            height: h,
            pixels,
            tile: 4,
        }
    }

    #[test]
    fn a_slide_of_under_a_pixel_is_found_and_undone() {
        let (a, b) = (board(0.0, 0.0), board(0.6, -0.4));
        let (dx, dy) = slide(&a, &b).unwrap();
        assert!(
            (dx - 0.6).abs() < 0.15 && (dy + 0.4).abs() < 0.15,
            "{dx} {dy}"
        );
        let undone = moved_onto(&a, &b, (dx, dy));
        let diff = |p: &BoardThumb| {
            p.pixels
                .iter()
                .zip(&b.pixels)
                .map(|(x, y)| u32::from(x.abs_diff(*y)))
                .sum::<u32>()
        };
        assert!(
            diff(&undone) * 2 < diff(&a),
            "{} vs {}",
            diff(&undone),
            diff(&a)
        );
    }

    #[test]
    fn a_flat_picture_has_no_slide() {
        let flat = BoardThumb {
            width: 20,
            height: 20,
            pixels: vec![90; 400],
            tile: 4,
        };
        assert_eq!(slide(&flat, &flat), None);
    }
}
