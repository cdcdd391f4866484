//! Change evidence: between the view of the current position and the view now,
//! the image of a square that no piece entered or left stays the same, while a
//! move changes its squares strongly. Each candidate line predicts which squares
//! change; this model says how much a square's measured change supports "changed"
//! over "unchanged", as a log-likelihood ratio.
//!
//! Changes are measured in grey levels where a piece's base stands. They are
//! scaled by the view's noise level because light, focus and compression differ
//! from one camera to the next: the median change of the squares that held the
//! same kind of thing (empty, or a piece, whose body moves with every small shift
//! of the camera), most of which nothing changed. Then
//! the ratio is `slope * ln(z) + offset` (a line for each kind), bounded both ways so that one square (a
//! shadow, a hand, a nudged piece) can neither carry nor veto a line alone.
//! `slope` and `offset` were fitted by logistic regression on rendered photo
//! sequences (`training/fit_change.py`), and checked on the real sets.

use super::observation::{squares, Observation};
use crate::rules::Occupant;

/// The ratio's line for squares of one kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChangeLine {
    pub(crate) slope: f64,
    pub(crate) offset: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChangeModel {
    /// For squares that were empty: a piece arriving changes them far beyond the
    /// noise of empty squares.
    pub(crate) empty: ChangeLine,
    /// For squares that held a piece: leaving or being captured changes them,
    /// but less beyond the noise of standing pieces, whose bodies move with every
    /// small shift of the camera.
    pub(crate) piece: ChangeLine,
    /// Bounds on one square's log-likelihood ratio, in nats.
    pub(crate) min_llr: f64,
    pub(crate) max_llr: f64,
    /// Noise level floor, grey levels: a perfectly still, clean view (a render
    /// without noise) would otherwise make every flicker look like a change.
    pub(crate) min_noise: f64,
}

impl Default for ChangeModel {
    fn default() -> Self {
        // Fitted by training/fit_change.py on rendered photo sequences (seeds 4-6,
        // shake 3, hands over a quarter of the photos).
        ChangeModel {
            empty: ChangeLine {
                slope: 2.87,
                offset: -3.61,
            },
            piece: ChangeLine {
                slope: 5.35,
                offset: -3.15,
            },
            min_llr: -4.0,
            max_llr: 4.0,
            min_noise: 1.0,
        }
    }
}

impl ChangeModel {
    /// The log-likelihood ratio of "changed" over "unchanged" for a change `z`
    /// times the noise level of squares of its kind (`piece`: it held one).
    pub(crate) fn llr(&self, z: f64, piece: bool) -> f64 {
        let l = if piece { self.piece } else { self.empty };
        (l.slope * z.max(1e-3).ln() + l.offset).clamp(self.min_llr, self.max_llr)
    }

    /// The view's noise level: the median change over the squares whose change
    /// is known (most of which nothing changed), floored.
    pub(crate) fn noise(&self, obs: &Observation) -> f64 {
        let (files, ranks) = obs.dims();
        let mut known: Vec<f64> = squares(files, ranks)
            .filter_map(|sq| obs.change(sq).map(f64::from))
            .collect();
        if known.is_empty() {
            return self.min_noise;
        }
        let mid = known.len() / 2;
        known
            .select_nth_unstable_by(mid, f64::total_cmp)
            .1
            .max(self.min_noise)
    }

    /// Per square (rank by rank from a1), the log-likelihood ratio of its change
    /// since the view of the position whose occupancy is `base`, or None where the
    /// change is unknown.
    pub(crate) fn square_llrs(&self, obs: &Observation, base: &[Occupant]) -> Vec<Option<f64>> {
        let (files, ranks) = obs.dims();
        let changes: Vec<Option<f64>> = squares(files, ranks)
            .map(|sq| obs.change(sq).map(f64::from))
            .collect();
        let occupied = |i: usize| base.get(i).is_some_and(|o| *o != Occupant::Empty);
        let noise = |piece: bool| -> Option<f64> {
            let mut known: Vec<f64> = changes
                .iter()
                .enumerate()
                .filter(|(i, _)| occupied(*i) == piece)
                .filter_map(|(_, c)| *c)
                .collect();
            if known.is_empty() {
                return None;
            }
            let mid = known.len() / 2;
            Some(
                known
                    .select_nth_unstable_by(mid, f64::total_cmp)
                    .1
                    .max(self.min_noise),
            )
        };
        let (empty, piece) = (noise(false), noise(true));
        // A class with no square seen borrows the other's level.
        let Some(either) = empty.or(piece) else {
            return changes;
        };
        changes
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let n = if occupied(i) { piece } else { empty }.unwrap_or(either);
                c.map(|c| self.llr(c / n, occupied(i)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Square;

    #[test]
    fn strong_changes_support_a_change_and_the_noise_level_scales_them() {
        let m = ChangeModel::default();
        for piece in [false, true] {
            assert!(m.llr(0.5, piece) <= m.min_llr + 1e-9);
            assert!(m.llr(30.0, piece) >= m.max_llr - 1e-9);
            assert!(m.llr(1.0, piece) < 0.0 && m.llr(8.0, piece) > 0.0);
        }
        let mut obs = Observation::unknown(8, 8);
        for (i, sq) in squares(8, 8).enumerate() {
            obs.set_change(sq, Some(if i == 12 { 60.0 } else { 3.0 }));
        }
        obs.set_change(Square::new(0, 7), None);
        let llr = m.square_llrs(&obs, &[Occupant::Empty; 64]);
        // e2 (index 12) changed 20 times the noise; the others are the noise.
        assert!(llr[12].unwrap() > 3.0, "{llr:?}");
        assert!(llr[0].unwrap() < -3.0);
        assert_eq!(llr[56], None);
    }
}
