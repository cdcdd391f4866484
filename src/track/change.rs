//! Which sites changed between two still views: only those are classified again.

use opencv::core::{Mat, Rect};
use opencv::prelude::*;

/// Indices of the rectangles whose mean absolute difference between `reference` and
/// `now` (same-size images) exceeds the typical difference by `level` grey levels.
/// The typical (median) difference is light changing over the whole board, a cloud
/// or the camera's exposure; a piece moving changes a few sites much more.
pub fn changed_rects(reference: &Mat, now: &Mat, rects: &[Rect], level: f32) -> Vec<usize> {
    let diffs: Vec<Option<f32>> = rects
        .iter()
        .map(|r| rect_diff(reference, now, *r))
        .collect();
    let mut known: Vec<f32> = diffs.iter().flatten().copied().collect();
    known.sort_by(f32::total_cmp);
    let typical = known.get(known.len() / 2).copied().unwrap_or(0.0);
    diffs
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_none_or(|d| d - typical > level))
        .map(|(i, _)| i)
        .collect()
}

/// Mean absolute difference over one rectangle, averaged over channels; None when
/// the rectangle is not inside both images.
fn rect_diff(reference: &Mat, now: &Mat, r: Rect) -> Option<f32> {
    let a = Mat::roi(reference, r).ok()?;
    let b = Mat::roi(now, r).ok()?;
    let mut diff = Mat::default();
    opencv::core::absdiff(&a, &b, &mut diff).ok()?;
    let m = opencv::core::mean(&diff, &opencv::core::no_array()).ok()?;
    let channels = a.channels().clamp(1, 4) as usize;
    Some(((0..channels).map(|c| m[c]).sum::<f64>() / channels as f64) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Scalar, CV_8UC3};

    fn board(v: f64) -> Mat {
        Mat::new_rows_cols_with_default(64, 64, CV_8UC3, Scalar::all(v)).unwrap()
    }

    #[test]
    fn a_moved_piece_is_a_change_and_a_light_change_is_not() {
        let rects: Vec<Rect> = (0..16)
            .map(|i| Rect::new((i % 4) * 16, (i / 4) * 16, 16, 16))
            .collect();
        let before = board(100.0);
        // Everything 20 levels brighter: the light changed, nothing moved.
        assert!(changed_rects(&before, &board(120.0), &rects, 6.0).is_empty());
        // Brighter, and one site changed much more.
        let mut after = board(120.0);
        Mat::roi_mut(&mut after, rects[5])
            .unwrap()
            .set_to(&Scalar::all(200.0), &opencv::core::no_array())
            .unwrap();
        assert_eq!(changed_rects(&before, &after, &rects, 6.0), vec![5]);
    }
}
