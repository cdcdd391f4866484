//! Per-game learning: every position the recorder settles labels every visible
//! site of its still view with certainty (the rules know what stands where).
//! Those labels fit a small correction to the model's readings for this board,
//! these pieces and this light: a softmax regression on the model's logits, its
//! embedding and simple colour statistics of the crop, added to the model's own
//! logits and pulled towards zero, so that with little data the model decides and
//! with more the board's own evidence does.
//!
//! Guarding against confirming its own mistakes is the caller's part (only
//! positions settled with a clear margin are taught); here, the first view taught
//! (the start position, known for certain) is kept for good, later views only
//! while they are recent.

use ndarray::{Array1, Array2, ArrayView1, Axis};

/// Views kept besides the first one: the board's look drifts with the light.
const RECENT_VIEWS: usize = 24;
/// L2 pull of the correction's weights towards zero (standardised features).
const RIDGE: f32 = 0.05;
/// Gradient steps per fit, from the previous fit's weights.
const STEPS: usize = 60;
const RATE: f32 = 0.5;
/// Fewest labelled samples of at least two classes before any correction is used.
const MIN_SAMPLES: usize = 12;
/// Fewest samples of a class before the correction learns about it. A class seen
/// less (no white stone yet on a Go board, one white piece on a draughts board
/// being set up) keeps the model's own margin over the others: a correction fitted
/// without it would only learn to push it down, and read a first white stone black.
const MIN_CLASS: usize = 6;

/// One labelled sample: its features and class (0 empty, 1 white, 2 black).
#[derive(Clone, Debug)]
struct Sample {
    x: Vec<f32>,
    class: usize,
}

/// A fitted correction.
#[derive(Clone, Debug)]
struct Fit {
    mean: Array1<f32>,
    inv_std: Array1<f32>,
    /// (3, d) weights and 3 biases added to the model's visible logits.
    w: Array2<f32>,
    b: Array1<f32>,
    /// The classes the correction was fitted on (enough samples of each).
    learnt: [bool; 3],
}

#[derive(Clone, Debug, Default)]
pub(crate) struct GameLearner {
    first: Vec<Sample>,
    recent: std::collections::VecDeque<Vec<Sample>>,
    fit: Option<Fit>,
}

/// The features of one reading: the model's visible logits, its embedding and
/// colour statistics, end to end.
pub(crate) fn features(logits: &[f32; 4], embedding: &[f32], colour: &[f32]) -> Vec<f32> {
    let mut x = Vec::with_capacity(3 + embedding.len() + colour.len());
    x.extend_from_slice(&logits[..3]);
    x.extend_from_slice(embedding);
    x.extend_from_slice(colour);
    x
}

impl GameLearner {
    pub(crate) fn new() -> GameLearner {
        GameLearner::default()
    }

    /// Whether a correction is in use.
    pub(crate) fn is_fitted(&self) -> bool {
        self.fit.is_some()
    }

    /// Teaches one view's labelled readings (features, class) and refits. The
    /// first view taught stays for good.
    pub(crate) fn teach(&mut self, view: Vec<(Vec<f32>, usize)>) {
        let samples: Vec<Sample> = view
            .into_iter()
            .filter(|(_, c)| *c < 3)
            .map(|(x, class)| Sample { x, class })
            .collect();
        if samples.is_empty() {
            return;
        }
        if self.first.is_empty() {
            self.first = samples;
        } else {
            self.recent.push_back(samples);
            while self.recent.len() > RECENT_VIEWS {
                self.recent.pop_front();
            }
        }
        self.refit();
    }

    fn refit(&mut self) {
        let all: Vec<&Sample> = self
            .first
            .iter()
            .chain(self.recent.iter().flatten())
            .collect();
        let d = all[0].x.len();
        let all: Vec<&Sample> = all.into_iter().filter(|s| s.x.len() == d).collect();
        let mut counts = [0usize; 3];
        for s in &all {
            counts[s.class] += 1;
        }
        let learnt = counts.map(|c| c >= MIN_CLASS);
        let all: Vec<&Sample> = all.into_iter().filter(|s| learnt[s.class]).collect();
        let counts = [0, 1, 2].map(|c| if learnt[c] { counts[c] } else { 0 });
        if all.len() < MIN_SAMPLES || learnt.iter().filter(|&&l| l).count() < 2 {
            self.fit = None;
            return;
        }
        let n = all.len();
        let mut x = Array2::<f32>::zeros((n, d));
        for (i, s) in all.iter().enumerate() {
            x.row_mut(i).assign(&ArrayView1::from(&s.x[..]));
        }
        let mean = x.mean_axis(Axis(0)).unwrap_or_else(|| Array1::zeros(d));
        let std = x.std_axis(Axis(0), 0.0);
        let inv_std = std.mapv(|s| if s > 1e-6 { 1.0 / s } else { 0.0 });
        let z = (&x - &mean) * &inv_std;
        // The model's own logits, to which the correction adds.
        let base = x.slice(ndarray::s![.., 0..3]).to_owned();
        // Every class weighs the same in all, however many sites show it.
        let present = counts.iter().filter(|&&c| c > 0).count() as f32;
        let weight: Vec<f32> = all
            .iter()
            .map(|s| n as f32 / (present * counts[s.class] as f32))
            .collect();
        let (mut w, mut b) = match &self.fit {
            Some(f) if f.w.ncols() == d => (f.w.clone(), f.b.clone()),
            _ => (Array2::zeros((3, d)), Array1::zeros(3)),
        };
        for _ in 0..STEPS {
            let logits = &base + &z.dot(&w.t()) + &b;
            let mut grad = Array2::<f32>::zeros((n, 3));
            for i in 0..n {
                // The softmax over the classes learnt; the others take no part.
                let row = logits.row(i);
                let m = (0..3)
                    .filter(|&c| learnt[c])
                    .fold(f32::MIN, |a, c| a.max(row[c]));
                let e: Vec<f32> = (0..3)
                    .map(|c| if learnt[c] { (row[c] - m).exp() } else { 0.0 })
                    .collect();
                let sum: f32 = e.iter().sum();
                for c in (0..3).filter(|&c| learnt[c]) {
                    let target = (all[i].class == c) as u8 as f32;
                    grad[[i, c]] = weight[i] * (e[c] / sum - target) / n as f32;
                }
            }
            let gw = grad.t().dot(&z) + &(&w * RIDGE);
            let gb = grad.sum_axis(Axis(0)) + &(&b * RIDGE);
            w = w - gw * RATE;
            b = b - gb * RATE;
        }
        self.fit = Some(Fit {
            mean,
            inv_std,
            w,
            b,
            learnt,
        });
    }

    /// The corrected visible logits (empty, white, black) of a reading, or the
    /// model's own where nothing is fitted.
    pub(crate) fn correct(&self, x: &[f32]) -> [f32; 3] {
        let own = [x[0], x[1], x[2]];
        let Some(f) = &self.fit else {
            return own;
        };
        if x.len() != f.mean.len() {
            return own;
        }
        let z = (&ArrayView1::from(x) - &f.mean) * &f.inv_std;
        let add = f.w.dot(&z) + &f.b;
        // A class not learnt rises with the most favoured of the others, so that
        // the correction never moves a reading away from it.
        let top = (0..3)
            .filter(|&c| f.learnt[c])
            .fold(f32::MIN, |a, c| a.max(add[c]));
        let add = [0, 1, 2].map(|c| if f.learnt[c] { add[c] } else { top });
        [own[0] + add[0], own[1] + add[1], own[2] + add[2]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A feature row: the model's logits, then a 2-d "embedding" and no colour.
    fn row(logits: [f32; 3], e: [f32; 2]) -> Vec<f32> {
        features(&[logits[0], logits[1], logits[2], -5.0], &e, &[])
    }

    #[test]
    fn a_steady_misread_of_this_board_is_corrected_once_taught() {
        // The model reads this board's white pawns (embedding near (1, 0)) as
        // black; empty squares near (0, 1) it reads right.
        let mut view = Vec::new();
        for k in 0..16 {
            let j = k as f32 * 0.01;
            view.push((row([-2.0, 0.0, 1.0], [1.0 + j, 0.0]), 1));
            view.push((row([2.0, -2.0, -2.0], [0.0, 1.0 + j]), 0));
            view.push((row([-2.0, -2.0, 2.0], [-1.0, -1.0 - j]), 2));
        }
        let mut l = GameLearner::new();
        assert_eq!(l.correct(&row([-2.0, 0.0, 1.0], [1.0, 0.0]))[1], 0.0);
        l.teach(view);
        assert!(l.is_fitted());
        let c = l.correct(&row([-2.0, 0.0, 1.0], [1.02, 0.0]));
        assert!(c[1] > c[2] && c[1] > c[0], "{c:?}");
        // What the model already read right stays right.
        let e = l.correct(&row([2.0, -2.0, -2.0], [0.0, 1.05]));
        assert!(e[0] > e[1] && e[0] > e[2], "{e:?}");
        let b = l.correct(&row([-2.0, -2.0, 2.0], [-1.0, -1.05]));
        assert!(b[2] > b[1] && b[2] > b[0], "{b:?}");
    }

    #[test]
    fn a_class_not_yet_seen_keeps_the_models_margin() {
        // A Go board's first view: empty points and black stones only. The model
        // reads white stones (embedding near (1, 1)) right; learning empty against
        // black must not turn them black (it did: the class's logit only went down).
        let mut view = Vec::new();
        for k in 0..40 {
            let j = k as f32 * 0.01;
            view.push((row([2.0, -2.0, -2.0], [0.0, 1.0 + j]), 0));
        }
        for k in 0..8 {
            let j = k as f32 * 0.01;
            view.push((row([-2.0, -1.0, 2.0], [1.0 + j, 1.0]), 2));
        }
        let mut l = GameLearner::new();
        l.teach(view);
        assert!(l.is_fitted());
        let own = [-2.0, 1.5, 0.5];
        let c = l.correct(&row(own, [1.0, 1.02]));
        assert!(c[1] - c[2] >= own[1] - own[2] - 1e-4, "{c:?}");
        assert!(c[1] - c[0] >= own[1] - own[0] - 1e-4, "{c:?}");
    }

    #[test]
    fn too_little_to_learn_from_leaves_the_model_alone() {
        let mut l = GameLearner::new();
        l.teach(vec![(row([1.0, 0.0, 0.0], [0.0, 0.0]), 0); 20]);
        assert!(!l.is_fitted(), "one class only");
        assert_eq!(
            l.correct(&row([1.0, 0.0, 0.0], [0.0, 0.0])),
            [1.0, 0.0, 0.0]
        );
    }
}
