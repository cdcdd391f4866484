//! Which sites changed between two still views: only those are classified again.

use opencv::core::{Mat, Rect};
use opencv::prelude::*;

/// Indices of the rectangles whose mean absolute difference between `reference` and
/// `now` (same-size images) exceeds `level` grey levels.
pub fn changed_rects(reference: &Mat, now: &Mat, rects: &[Rect], level: f32) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, r) in rects.iter().enumerate() {
        let (Ok(a), Ok(b)) = (Mat::roi(reference, *r), Mat::roi(now, *r)) else {
            out.push(i);
            continue;
        };
        let mut diff = Mat::default();
        if opencv::core::absdiff(&a, &b, &mut diff).is_err() {
            out.push(i);
            continue;
        }
        let m = opencv::core::mean(&diff, &opencv::core::no_array()).unwrap_or_default();
        let channels = a.channels().max(1) as usize;
        let mean = (0..channels.min(4)).map(|c| m[c]).sum::<f64>() / channels as f64;
        if mean as f32 > level {
            out.push(i);
        }
    }
    out
}
