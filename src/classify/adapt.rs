//! Adapting to the user's board: when the position on one frame is known (the start
//! position, or a FEN the user gives), the model's embeddings of that frame's sites
//! give a prototype per class; later readings mix the model's own logits with the
//! distance to those prototypes. A board, a piece set and a light the model never
//! saw then count for what they look like here.

use super::model::RawReading;

/// Squared distance to the nearest prototype, in units of the typical in-class
/// distance, within which the prototypes are trusted fully.
const TRUST_RADIUS: f32 = 1.0;

/// Per-class prototypes (mean embedding) learnt from one labelled frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Adaptation {
    /// Mean embedding per class (empty, white, black); None for a class the frame
    /// did not show.
    prototypes: [Option<Vec<f32>>; 3],
    /// Typical squared distance of a site to its own prototype: the scale of the
    /// prototype logits.
    scale: f32,
    /// Weight of the prototype logits against the model's.
    weight: f32,
}

impl Adaptation {
    /// Fits prototypes from readings whose true class (0 empty, 1 white, 2 black) is
    /// known. `None` when the model has no embedding or too few sites were given.
    pub fn fit(readings: &[(RawReading, usize)], weight: f32) -> Option<Adaptation> {
        let dim = readings.first()?.0.embedding.len();
        if dim == 0 || readings.len() < 4 {
            return None;
        }
        let mut sums = vec![vec![0.0f32; dim]; 3];
        let mut counts = [0usize; 3];
        for (r, class) in readings {
            if *class < 3 && r.embedding.len() == dim {
                for (s, v) in sums[*class].iter_mut().zip(&r.embedding) {
                    *s += v;
                }
                counts[*class] += 1;
            }
        }
        let prototypes: [Option<Vec<f32>>; 3] = std::array::from_fn(|c| {
            (counts[c] > 0).then(|| sums[c].iter().map(|s| s / counts[c] as f32).collect())
        });
        let mut total = 0.0;
        let mut n = 0;
        for (r, class) in readings {
            if let Some(Some(p)) = prototypes.get(*class) {
                total += dist2(&r.embedding, p);
                n += 1;
            }
        }
        let scale = (total / n.max(1) as f32).max(1e-6);
        Some(Adaptation {
            prototypes,
            scale,
            weight,
        })
    }

    /// The adjusted logits of one reading: each visible class gains its prototype
    /// term; the occluded logit gains the best of them, so the balance between
    /// "hidden" and "visible" stays the model's (a labelled frame shows no hands).
    pub fn adjust(&self, raw: &RawReading) -> [f32; 4] {
        let mut out = raw.logits;
        if raw.embedding.is_empty() {
            return out;
        }
        let known: [Option<f32>; 3] = std::array::from_fn(|c| {
            self.prototypes[c]
                .as_ref()
                .map(|p| dist2(&raw.embedding, p) / self.scale)
        });
        // A site far from every prototype (a marked throne, a logo, a coin) looks
        // like nothing the labelled frame showed, so the prototypes know little
        // about it: their pull shrinks with the distance to the nearest one and
        // the model's own reading decides. Without this, squared distances in the
        // hundreds turn a small difference into certainty.
        let nearest = known.iter().flatten().copied().fold(f32::MAX, f32::min);
        let trust = (TRUST_RADIUS / nearest.max(1e-6)).min(1.0);
        // A class the frame never showed ties with the nearest one, or sits at the
        // typical distance: neither favoured nor barred.
        let d = known.map(|k| k.unwrap_or(nearest.max(1.0)));
        let mut best = f32::MIN;
        for c in 0..3 {
            let term = -0.5 * d[c] * trust;
            out[c] += self.weight * term;
            best = best.max(term);
        }
        out[3] += self.weight * best;
        out
    }
}

fn dist2(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(logits: [f32; 4], e: &[f32]) -> RawReading {
        RawReading {
            logits,
            embedding: e.to_vec(),
        }
    }

    #[test]
    fn prototypes_pull_readings_towards_the_nearest_class() {
        let labelled = vec![
            (r([0.0; 4], &[0.0, 0.0]), 0),
            (r([0.0; 4], &[0.1, 0.0]), 0),
            (r([0.0; 4], &[1.0, 1.0]), 1),
            (r([0.0; 4], &[1.1, 1.0]), 1),
            (r([0.0; 4], &[-1.0, 1.0]), 2),
            (r([0.0; 4], &[-1.0, 1.1]), 2),
        ];
        let a = Adaptation::fit(&labelled, 1.0).unwrap();
        // The model is unsure; the embedding sits on the white prototype.
        let adj = a.adjust(&r([0.0, 0.1, 0.0, -5.0], &[1.05, 1.0]));
        assert!(adj[1] > adj[0] && adj[1] > adj[2], "{adj:?}");
        assert!(adj[3] < adj[1], "{adj:?}");
        assert!(Adaptation::fit(&labelled[..2], 1.0).is_none());
    }

    #[test]
    fn a_site_unlike_every_prototype_keeps_the_models_reading() {
        let labelled = vec![
            (r([0.0; 4], &[0.0, 0.0]), 0),
            (r([0.0; 4], &[0.1, 0.0]), 0),
            (r([0.0; 4], &[1.0, 1.0]), 1),
            (r([0.0; 4], &[1.1, 1.0]), 1),
        ];
        let a = Adaptation::fit(&labelled, 1.0).unwrap();
        // A marked square (a throne) far from both prototypes, a little nearer the
        // white one; the model reads it as empty.
        let adj = a.adjust(&r([2.0, 0.0, -3.0, -5.0], &[30.0, 40.0]));
        assert!(adj[0] > adj[1], "{adj:?}");
    }
}
