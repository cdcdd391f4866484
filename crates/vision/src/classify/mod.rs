//! Per-site classification: empty, white piece, black piece, or hidden by a hand.
//! Never knows rules, moves or time.

pub(crate) mod crop;
mod direct;
mod learn;
mod model;

use opencv::core::Mat;

pub use crop::CropView;
pub use crop::CROP_H;
pub use crop::CROP_W;
pub(crate) use learn::GameLearner;
pub(crate) use model::softmax;
pub use model::ModelError;
pub use model::OccupancyModel;
pub(crate) use model::RawReading;
pub use model::Runtime;

/// What the classifier says of one site.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteReading {
    /// Probabilities of empty / white / black, given that the site is visible.
    pub probs: [f32; 3],
    /// Probability that a hand or arm hides the site.
    pub occluded: f32,
    /// The model's raw logits (empty, white, black, occluded).
    pub(crate) logits: [f32; 4],
    /// The model's embedding of the crop (empty when the model has none).
    pub(crate) embedding: Vec<f32>,
    /// Colour statistics of the crop (`crop::colour_stats`).
    pub(crate) colour: [f32; 7],
}

impl SiteReading {
    fn new(raw: RawReading, colour: [f32; 7], learner: &GameLearner) -> SiteReading {
        let mut r = SiteReading {
            probs: [0.0; 3],
            occluded: 0.0,
            logits: raw.logits,
            embedding: raw.embedding,
            colour,
        };
        r.rescore(learner);
        r
    }

    /// The features per-game learning reads.
    pub(crate) fn features(&self) -> Vec<f32> {
        learn::features(&self.logits, &self.embedding, &self.colour)
    }

    /// Recomputes the probabilities with what `learner` has learnt of this board
    /// (the occluded share stays the model's: labelled views show no hands).
    pub(crate) fn rescore(&mut self, learner: &GameLearner) {
        let p = softmax(&self.logits);
        self.occluded = p[3];
        let v = learner.correct(&self.features());
        let m = v.iter().cloned().fold(f32::MIN, f32::max);
        let e = v.map(|l| (l - m).exp());
        let sum: f32 = e.iter().sum();
        self.probs = e.map(|x| x / sum);
    }

    /// The most likely label: `.`, `w`, `b`, or `h` when hidden.
    pub fn label(&self) -> char {
        if self.occluded > 0.5 {
            return 'h';
        }
        let i = (0..3)
            .max_by(|&a, &b| self.probs[a].total_cmp(&self.probs[b]))
            .unwrap_or(0);
        ['.', 'w', 'b'][i]
    }
}

/// A hand is one blob: the model marks the sites it clearly hides, while the
/// sites at its edge, half covered, often read as pieces. A site whose image
/// changed (`changed`) next to a hidden site whose image changed too is taken
/// for hidden; a neighbour that did not change was not touched. One step.
pub(crate) fn widen_hands(
    readings: &mut [Option<SiteReading>],
    changed: &[bool],
    grid: crate::geometry::GridSpec,
) {
    let (rows, cols) = (grid.rows as i64, grid.cols as i64);
    let hidden: Vec<bool> = readings
        .iter()
        .zip(changed)
        .map(|(r, &c)| c && r.as_ref().is_some_and(|r| r.occluded > 0.5))
        .collect();
    let n = readings.len().min(changed.len());
    for i in 0..n {
        let own = readings[i].as_ref().is_some_and(|r| r.occluded > 0.5);
        if !changed[i] || own {
            continue;
        }
        let (r, c) = (i as i64 / cols, i as i64 % cols);
        let near = (-1..=1).any(|dr| {
            (-1..=1).any(|dc| {
                let (nr, nc) = (r + dr, c + dc);
                (dr, dc) != (0, 0)
                    && (0..rows).contains(&nr)
                    && (0..cols).contains(&nc)
                    && hidden[(nr * cols + nc) as usize]
            })
        });
        if near {
            if let Some(reading) = readings[i].as_mut() {
                reading.occluded = reading.occluded.max(HAND_EDGE);
            }
        }
    }
}

/// The hidden share given to a site at a hand's edge: over the 0.5 that hides.
const HAND_EDGE: f32 = 0.6;

/// The model plus what it has learnt of the board in use.
pub struct Classifier {
    model: OccupancyModel,
    learner: GameLearner,
    batch: usize,
}

impl Classifier {
    /// A classifier running `model`, not yet taught any board.
    pub fn new(model: OccupancyModel) -> Classifier {
        Classifier {
            model,
            learner: GameLearner::new(),
            batch: 64,
        }
    }

    /// The model it runs.
    pub fn model(&self) -> &OccupancyModel {
        &self.model
    }

    /// Forgets what was learnt of the last board (a new game, a new set).
    pub fn forget_board(&mut self) {
        self.learner = GameLearner::new();
    }

    /// Whether readings are corrected by what was learnt of this board.
    pub(crate) fn has_learnt(&self) -> bool {
        self.learner.is_fitted()
    }

    /// Learns from one view's readings whose classes are known (0 empty, 1
    /// white, 2 black); the first view taught stays for good.
    pub fn teach(&mut self, labelled: &[(&SiteReading, usize)]) {
        self.learner
            .teach(labelled.iter().map(|(r, c)| (r.features(), *c)).collect());
    }

    /// Re-reads earlier readings with what has been learnt since (no network run).
    pub(crate) fn rescore(&self, readings: &mut [Option<SiteReading>]) {
        for r in readings.iter_mut().flatten() {
            r.rescore(&self.learner);
        }
    }

    /// Reads the given sites (row, col in the user's grid order) of a rectified board
    /// made by `view.rectify`.
    pub(crate) fn read_sites(
        &self,
        view: &CropView,
        rectified: &Mat,
        sites: &[(u32, u32)],
    ) -> Result<Vec<SiteReading>, ModelError> {
        let per = 3 * (CROP_W * CROP_H) as usize;
        let mut out = Vec::with_capacity(sites.len());
        let mut buf = vec![0.0f32; per * self.batch.min(sites.len().max(1))];
        for chunk in sites.chunks(self.batch) {
            let mut colours = Vec::with_capacity(chunk.len());
            for (i, &(r, c)) in chunk.iter().enumerate() {
                let crop = &mut buf[i * per..(i + 1) * per];
                view.crop_rgb_planar(rectified, r, c, crop);
                colours.push(crop::colour_stats(crop));
            }
            let raw = self.model.run(&buf[..chunk.len() * per])?;
            out.extend(
                raw.into_iter()
                    .zip(colours)
                    .map(|(raw, colour)| SiteReading::new(raw, colour, &self.learner)),
            );
        }
        Ok(out)
    }

    /// Forgets the last board and learns this one from a view whose sites'
    /// classes are known (0 empty, 1 white, 2 black, one per site row-major; only
    /// sites in `used` count). Returns whether anything was learnt.
    pub fn adapt_to(
        &mut self,
        view: &CropView,
        rectified: &Mat,
        classes: &[usize],
        used: impl Fn(usize) -> bool,
    ) -> Result<bool, ModelError> {
        self.forget_board();
        let readings = self.read_all(view, rectified)?;
        let labelled: Vec<(&SiteReading, usize)> = readings
            .iter()
            .zip(classes.iter().copied())
            .enumerate()
            .filter(|(i, _)| used(*i))
            .map(|(_, x)| x)
            .collect();
        self.teach(&labelled);
        Ok(self.has_learnt())
    }

    /// Reads every site of the grid, row-major.
    pub fn read_all(
        &self,
        view: &CropView,
        rectified: &Mat,
    ) -> Result<Vec<SiteReading>, ModelError> {
        let g = view.pose.grid();
        let sites: Vec<(u32, u32)> = (0..g.rows)
            .flat_map(|r| (0..g.cols).map(move |c| (r, c)))
            .collect();
        self.read_sites(view, rectified, &sites)
    }
}
