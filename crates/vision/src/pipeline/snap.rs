//! A located grid settled by what the game knows: recording starts from the game's
//! start position, and a grid found a rank or two off (the start's pieces hide the
//! outer ranks' lines, and the border or the table carries on the lattice) reads
//! that position badly, while the grid moved back onto the board reads it well.

use opencv::core::Mat;
use opencv::prelude::*;

use crate::classify::{Classifier, CropView};
use crate::geometry::{BoardPose, Corners};
use crate::rules::Rules;

use super::PipelineError;

use crate::infer::{check_start, start_likelihood, InferConfig};

/// Whole cells a located grid may be moved each way.
const MAX_SHIFT: i32 = 2;
/// Log-likelihood (nats) the moved grid must gain over the located one for each
/// cell it moves (a rank of start-position squares read right is worth about
/// 8 x 4.6). Moves along a rank barely change how a chess start reads (every file
/// starts the same), so without this price a grid a rank off was also moved two
/// files (by 0.3 nats).
const MIN_GAIN: f64 = 20.0;

/// A moved grid may read at most one site in this many as hidden.
const MAX_HIDDEN_SHARE: usize = 16;

/// The pose moved by whole cells (rows, columns; up to `MAX_SHIFT` each way, the
/// moved grid within the image) to where `image` reads most like `game`'s
/// position in some orientation, and the move; the pose itself when no move
/// gains `MIN_GAIN` a cell.
pub fn snap_to_start<R: Rules>(
    game: &R,
    classifier: &Classifier,
    image: &Mat,
    pose: BoardPose,
) -> Result<(BoardPose, (i32, i32)), PipelineError> {
    let g = pose.grid();
    let (w, h) = (image.cols() as f64, image.rows() as f64);
    let inside = |(x, y): (f64, f64)| x >= 0.0 && y >= 0.0 && x <= w - 1.0 && y <= h - 1.0;
    let (lr, lc) = g.lattice_cells();
    let reading = |p: &BoardPose| -> Result<Vec<crate::infer::SiteProbs>, PipelineError> {
        let view = CropView::new(p);
        let rect = view.rectify(image)?;
        Ok(super::visible_probs(
            &classifier
                .read_all(&view, &rect)?
                .into_iter()
                .map(Some)
                .collect::<Vec<_>>(),
        ))
    };
    let score = |p: &BoardPose| -> Result<f64, PipelineError> {
        let probs = reading(p)?;
        Ok(start_likelihood(game, &probs, g.rows, g.cols).map_or(f64::NEG_INFINITY, |(ll, _)| ll))
    };
    // Only a grid that then shows the start position, every site in sight, is
    // moved: on a board not yet set up, the best-reading place means nothing, and
    // a grid moved off the board onto the table reads its wood and its edge as
    // hidden sites, which contradict nothing.
    let shows_start = |p: &BoardPose| -> Result<bool, PipelineError> {
        let probs = reading(p)?;
        let hidden = probs.iter().filter(|p| p.is_none()).count();
        if hidden * MAX_HIDDEN_SHARE > probs.len() {
            return Ok(false);
        }
        Ok(
            start_likelihood(game, &probs, g.rows, g.cols).is_some_and(|(_, map)| {
                check_start(game, &map, &probs, &InferConfig::default()).is_start()
            }),
        )
    };
    let base = score(&pose)?;
    let mut best = (base, None);
    for dr in -MAX_SHIFT..=MAX_SHIFT {
        for dc in -MAX_SHIFT..=MAX_SHIFT {
            if (dr, dc) == (0, 0) {
                continue;
            }
            let moved = (dc as f64 / lc as f64, dr as f64 / lr as f64);
            let Some(quad) = pose.homography().moved_unit_square(moved) else {
                continue;
            };
            if !quad.iter().all(|&p| inside(p)) {
                continue;
            }
            let Ok(corners) = Corners::new(quad) else {
                continue;
            };
            let moved = BoardPose::new(g, corners);
            let s = score(&moved)? - MIN_GAIN * (dr.abs() + dc.abs()) as f64;
            if s > best.0 {
                best = (s, Some((moved, (dr, dc))));
            }
        }
    }
    Ok(match best.1 {
        Some((moved, shift)) if shows_start(&moved)? => (moved, shift),
        _ => (pose, (0, 0)),
    })
}
