//! Which sites changed between two still views: only those are classified again.

use opencv::core::{Mat, Rect, Scalar};
use opencv::prelude::*;

/// Indices of the rectangles whose mean absolute difference between `reference` and
/// `now` (same-size images) exceeds `level` grey levels, once the light is matched:
/// a cloud or the camera's exposure scales the whole board's brightness (light
/// squares more than dark ones), while a moving piece changes a few sites.
pub fn changed_rects(reference: &Mat, now: &Mat, rects: &[Rect], level: f32) -> Vec<usize> {
    rect_diffs(reference, now, rects)
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_none_or(|d| d > level))
        .map(|(i, _)| i)
        .collect()
}

/// Mean absolute difference over each rectangle after matching the reference's
/// brightness to `now` (None where a rectangle is not inside the images).
pub fn rect_diffs(reference: &Mat, now: &Mat, rects: &[Rect]) -> Vec<Option<f32>> {
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
fn rect_mean(img: &Mat, r: Rect) -> Option<f32> {
    let roi = Mat::roi(img, r).ok()?;
    let m: Scalar = opencv::core::mean(&roi, &opencv::core::no_array()).ok()?;
    let channels = img.channels().clamp(1, 4) as usize;
    Some(((0..channels).map(|c| m[c]).sum::<f64>() / channels as f64) as f32)
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
}
