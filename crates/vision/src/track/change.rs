//! Which sites changed between two still views: only those are classified again.

#[cfg(test)]
use opencv::core::Scalar;
use opencv::core::{Mat, Rect};
use opencv::prelude::*;

/// Indices of the rectangles whose mean absolute difference between `reference` and
/// `now` (same-size images) exceeds `level` grey levels, once the light is matched:
/// a cloud or the camera's exposure scales the whole board's brightness (light
/// squares more than dark ones), while a moving piece changes a few sites.
#[cfg(test)]
pub(crate) fn changed_rects(reference: &Mat, now: &Mat, rects: &[Rect], level: f32) -> Vec<usize> {
    rect_diffs(reference, now, rects)
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_none_or(|d| d > level))
        .map(|(i, _)| i)
        .collect()
}

/// Mean absolute difference over each rectangle after matching the reference's
/// brightness to `now` (None where a rectangle is not inside the images).
#[cfg(test)]
pub(crate) fn rect_diffs(reference: &Mat, now: &Mat, rects: &[Rect]) -> Vec<Option<f32>> {
    let gain = brightness_gain(reference, now, rects);
    let mut scaled = Mat::default();
    let mut diff = Mat::default();
    let ok = reference
        .convert_to(&mut scaled, -1, gain, 0.0)
        .and_then(|_| opencv::core::absdiff(&scaled, now, &mut diff))
        .is_ok();
    rects
        .iter()
        .map(|r| if ok { rect_mean(&diff, *r) } else { None })
        .collect()
}

/// The factor that best maps the reference's brightness onto `now`: the median ratio
/// of the rectangles' mean brightness (robust to the few that really changed).
#[cfg(test)]
fn brightness_gain(reference: &Mat, now: &Mat, rects: &[Rect]) -> f64 {
    let mut ratios: Vec<f64> = rects
        .iter()
        .filter_map(|r| {
            let a = rect_mean(reference, *r)? as f64;
            let b = rect_mean(now, *r)? as f64;
            (a > 8.0).then(|| b / a)
        })
        .collect();
    if ratios.is_empty() {
        return 1.0;
    }
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2].clamp(0.5, 2.0)
}

/// Mean over a rectangle, averaged over channels.
#[cfg(test)]
fn rect_mean(img: &Mat, r: Rect) -> Option<f32> {
    let roi = Mat::roi(img, r).ok()?;
    let m: Scalar = opencv::core::mean(&roi, &opencv::core::no_array()).ok()?;
    let channels = img.channels().clamp(1, 4) as usize;
    Some(((0..channels).map(|c| m[c]).sum::<f64>() / channels as f64) as f32)
}

/// Share of a cell's side, around its centre, where a standing piece's base sits:
/// change is measured there, where a piece that came or went changes the image
/// most and a tall neighbour leaning over the cell changes it least.
const BASE_SHARE: f64 = 0.5;
/// Whole-image shifts tried (pixels of the rectified board each way): a board
/// photographed anew, or rectified photo by photo, lands a pixel or two off.
const GLOBAL_SHIFT: i32 = 2;
/// Further shift each site may take on its own (a nudged piece, a lens).
const LOCAL_SHIFT: i32 = 1;

/// Per site, how much the image where a piece's base stands changed between two
/// still views of the board (same-size BGR images), in grey levels: the mean
/// absolute difference over the central part of each rectangle after matching
/// each colour channel's brightness, and after the shift of the whole image and
/// then of each site (a pixel or so) that makes the two agree best. None where a
/// rectangle is not inside the images.
pub fn site_changes(reference: &Mat, now: &Mat, rects: &[Rect]) -> Vec<Option<f32>> {
    let (Some(a), Some(b)) = (Plane::of(reference), Plane::of(now)) else {
        return vec![None; rects.len()];
    };
    if (a.w, a.h) != (b.w, b.h) {
        return vec![None; rects.len()];
    }
    let gains = channel_gains(&a, &b, rects);
    let bases: Vec<Option<Rect>> = rects.iter().map(|r| base_of(*r, &a)).collect();
    let diff_at = |r: &Rect, dx: i32, dy: i32| a.mean_diff(&b, r, dx, dy, &gains);
    // The whole image's shift: the one that leaves the median site least changed
    // (the few sites that really changed do not move the median).
    let mut best = (f32::MAX, 0, 0);
    for dy in -GLOBAL_SHIFT..=GLOBAL_SHIFT {
        for dx in -GLOBAL_SHIFT..=GLOBAL_SHIFT {
            let mut d: Vec<f32> = bases
                .iter()
                .flatten()
                .filter_map(|r| diff_at(r, dx, dy))
                .collect();
            if d.is_empty() {
                continue;
            }
            let mid = d.len() / 2;
            let m = *d.select_nth_unstable_by(mid, f32::total_cmp).1;
            // Prefer no shift on a tie.
            let m = m + 1e-3 * (dx.abs() + dy.abs()) as f32;
            if m < best.0 {
                best = (m, dx, dy);
            }
        }
    }
    let (_, gx, gy) = best;
    bases
        .iter()
        .map(|r| {
            let r = r.as_ref()?;
            let mut least: Option<f32> = None;
            for dy in -LOCAL_SHIFT..=LOCAL_SHIFT {
                for dx in -LOCAL_SHIFT..=LOCAL_SHIFT {
                    if let Some(d) = diff_at(r, gx + dx, gy + dy) {
                        least = Some(least.map_or(d, |l: f32| l.min(d)));
                    }
                }
            }
            least
        })
        .collect()
}

/// The central part of a cell where a piece's base stands, if the rectangle and
/// every shift tried stay inside the image.
fn base_of(r: Rect, img: &Plane) -> Option<Rect> {
    let side = |n: i32| ((n as f64 * BASE_SHARE).round() as i32).max(1);
    let (w, h) = (side(r.width), side(r.height));
    let base = Rect::new(r.x + (r.width - w) / 2, r.y + (r.height - h) / 2, w, h);
    let m = GLOBAL_SHIFT + LOCAL_SHIFT;
    (base.x - m >= 0
        && base.y - m >= 0
        && base.x + base.width + m <= img.w as i32
        && base.y + base.height + m <= img.h as i32)
        .then_some(base)
}

/// Per colour channel, the factor that maps the reference's brightness onto
/// `now`: the median over sites of the ratio of their means.
fn channel_gains(a: &Plane, b: &Plane, rects: &[Rect]) -> [f32; 3] {
    std::array::from_fn(|c| {
        let mut ratios: Vec<f32> = rects
            .iter()
            .filter_map(|r| {
                let (ma, mb) = (a.channel_mean(r, c)?, b.channel_mean(r, c)?);
                (ma > 8.0).then(|| mb / ma)
            })
            .collect();
        if ratios.is_empty() {
            return 1.0;
        }
        let mid = ratios.len() / 2;
        ratios
            .select_nth_unstable_by(mid, f32::total_cmp)
            .1
            .clamp(0.5, 2.0)
    })
}

/// A BGR image's bytes, for arithmetic over small regions.
struct Plane<'a> {
    data: &'a [u8],
    w: usize,
    h: usize,
    step: usize,
}

impl<'a> Plane<'a> {
    fn of(m: &'a Mat) -> Option<Plane<'a>> {
        if m.channels() != 3 || m.depth() != opencv::core::CV_8U || !m.is_continuous() {
            return None;
        }
        Some(Plane {
            data: m.data_bytes().ok()?,
            w: m.cols() as usize,
            h: m.rows() as usize,
            step: m.cols() as usize * 3,
        })
    }

    fn inside(&self, r: &Rect) -> bool {
        r.x >= 0
            && r.y >= 0
            && r.width > 0
            && r.height > 0
            && (r.x + r.width) as usize <= self.w
            && (r.y + r.height) as usize <= self.h
    }

    fn channel_mean(&self, r: &Rect, c: usize) -> Option<f32> {
        if !self.inside(r) {
            return None;
        }
        let mut sum = 0u64;
        for y in r.y as usize..(r.y + r.height) as usize {
            let row = &self.data[y * self.step..];
            for x in r.x as usize..(r.x + r.width) as usize {
                sum += row[x * 3 + c] as u64;
            }
        }
        Some(sum as f32 / (r.width * r.height) as f32)
    }

    /// Mean over `r` in `other` of the absolute difference from this image shifted
    /// by (dx, dy) and scaled by `gains`, averaged over channels.
    fn mean_diff(
        &self,
        other: &Plane,
        r: &Rect,
        dx: i32,
        dy: i32,
        gains: &[f32; 3],
    ) -> Option<f32> {
        let moved = Rect::new(r.x + dx, r.y + dy, r.width, r.height);
        if !self.inside(&moved) || !other.inside(r) {
            return None;
        }
        let mut sum = 0.0f32;
        for y in 0..r.height as usize {
            let ra = &self.data[(moved.y as usize + y) * self.step + moved.x as usize * 3..];
            let rb = &other.data[(r.y as usize + y) * other.step + r.x as usize * 3..];
            for i in 0..r.width as usize * 3 {
                sum += (ra[i] as f32 * gains[i % 3] - rb[i] as f32).abs();
            }
        }
        Some(sum / (3 * r.width * r.height) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::CV_8UC3;

    /// A chequered 64x64 board of 16 sites, light squares `hi`, dark `lo`.
    fn board(hi: f64, lo: f64) -> (Mat, Vec<Rect>) {
        let mut m = Mat::new_rows_cols_with_default(64, 64, CV_8UC3, Scalar::all(lo)).unwrap();
        let rects: Vec<Rect> = (0..16)
            .map(|i| Rect::new((i % 4) * 16, (i / 4) * 16, 16, 16))
            .collect();
        for (i, r) in rects.iter().enumerate() {
            if (i % 4 + i / 4) % 2 == 0 {
                Mat::roi_mut(&mut m, *r)
                    .unwrap()
                    .set_to(&Scalar::all(hi), &opencv::core::no_array())
                    .unwrap();
            }
        }
        (m, rects)
    }

    #[test]
    fn a_moved_piece_is_a_change_and_a_light_change_is_not() {
        let (before, rects) = board(200.0, 80.0);
        // 15% brighter everywhere: light squares gain 30 levels, dark ones 12.
        let (brighter, _) = board(230.0, 92.0);
        assert!(changed_rects(&before, &brighter, &rects, 6.0).is_empty());
        // Brighter, and a piece appeared on one site.
        let mut after = brighter.clone();
        Mat::roi_mut(&mut after, Rect::new(84 - 64, 20, 8, 8))
            .unwrap()
            .set_to(&Scalar::all(20.0), &opencv::core::no_array())
            .unwrap();
        assert_eq!(changed_rects(&before, &after, &rects, 6.0), vec![5]);
    }

    #[test]
    fn site_changes_ignore_a_shifted_board_and_find_the_moved_piece() {
        let (before, rects) = board(200.0, 80.0);
        // The whole board a pixel to the right and a little brighter: no site changed.
        let mut shifted = Mat::default();
        let m = Mat::from_slice_2d(&[[1.0f64, 0.0, 1.0], [0.0, 1.0, 0.0]]).unwrap();
        opencv::imgproc::warp_affine(
            &before,
            &mut shifted,
            &m,
            before.size().unwrap(),
            opencv::imgproc::INTER_NEAREST,
            opencv::core::BORDER_REPLICATE,
            Scalar::default(),
        )
        .unwrap();
        let mut brighter = Mat::default();
        shifted.convert_to(&mut brighter, -1, 1.1, 0.0).unwrap();
        let d = site_changes(&before, &brighter, &rects);
        let inner = [5usize, 6, 9, 10];
        for &i in &inner {
            assert!(d[i].unwrap() < 1.0, "site {i}: {d:?}");
        }
        // A piece on site 5's centre.
        let mut after = brighter.clone();
        Mat::roi_mut(&mut after, Rect::new(21, 21, 8, 8))
            .unwrap()
            .set_to(&Scalar::all(20.0), &opencv::core::no_array())
            .unwrap();
        let d = site_changes(&before, &after, &rects);
        assert!(d[5].unwrap() > 60.0, "{d:?}");
        assert!(d[6].unwrap() < 1.0 && d[9].unwrap() < 1.0, "{d:?}");
    }
}
