//! Per-site classification: empty, white piece, black piece, or hidden by a hand.
//! Never knows rules, moves or time.

pub mod adapt;
pub mod crop;
pub mod export;
mod model;

use opencv::core::Mat;

pub use adapt::Adaptation;
pub use crop::{CropView, CROP_H, CROP_W};
pub use model::{softmax, ModelError, OccupancyModel, RawReading, CLASSES};

/// What the classifier says of one site.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteReading {
    /// Probabilities of empty / white / black, given that the site is visible.
    pub probs: [f32; 3],
    /// Probability that a hand or arm hides the site.
    pub occluded: f32,
    /// The model's embedding of the crop (empty when the model has none).
    pub embedding: Vec<f32>,
}

impl SiteReading {
    fn from_raw(raw: RawReading, adapt: Option<&Adaptation>) -> SiteReading {
        let logits = match adapt {
            Some(a) => a.adjust(&raw),
            None => raw.logits,
        };
        let p = softmax(&logits);
        let visible = (p[0] + p[1] + p[2]).max(1e-6);
        SiteReading {
            probs: [p[0] / visible, p[1] / visible, p[2] / visible],
            occluded: p[3],
            embedding: raw.embedding,
        }
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

/// Weight of the board's own class prototypes against the model's logits.
const ADAPT_WEIGHT: f32 = 1.0;

/// The model plus an optional per-session correction.
pub struct Classifier {
    model: OccupancyModel,
    adaptation: Option<Adaptation>,
    batch: usize,
}

impl Classifier {
    pub fn new(model: OccupancyModel) -> Classifier {
        Classifier {
            model,
            adaptation: None,
            batch: 64,
        }
    }

    pub fn model(&self) -> &OccupancyModel {
        &self.model
    }

    pub fn set_adaptation(&mut self, a: Option<Adaptation>) {
        self.adaptation = a;
    }

    pub fn adaptation(&self) -> Option<&Adaptation> {
        self.adaptation.as_ref()
    }

    /// Reads the given sites (row, col in the user's grid order) of a rectified board
    /// made by `view.rectify`.
    pub fn read_sites(
        &self,
        view: &CropView,
        rectified: &Mat,
        sites: &[(u32, u32)],
    ) -> Result<Vec<SiteReading>, ModelError> {
        Ok(self
            .raw_sites(view, rectified, sites)?
            .into_iter()
            .map(|r| SiteReading::from_raw(r, self.adaptation.as_ref()))
            .collect())
    }

    /// The model's raw outputs (logits and embedding) for the given sites.
    pub fn raw_sites(
        &self,
        view: &CropView,
        rectified: &Mat,
        sites: &[(u32, u32)],
    ) -> Result<Vec<RawReading>, ModelError> {
        let per = 3 * (CROP_W * CROP_H) as usize;
        let mut out = Vec::with_capacity(sites.len());
        let mut buf = vec![0.0f32; per * self.batch.min(sites.len().max(1))];
        for chunk in sites.chunks(self.batch) {
            for (i, &(r, c)) in chunk.iter().enumerate() {
                view.crop_rgb_planar(rectified, r, c, &mut buf[i * per..(i + 1) * per]);
            }
            out.extend(self.model.run(&buf[..chunk.len() * per])?);
        }
        Ok(out)
    }

    /// Fits the per-session correction from a view whose sites' classes are known
    /// (0 empty, 1 white, 2 black, one per site row-major; only sites in `used`
    /// count). Returns whether the model supports it (it needs an embedding output).
    pub fn adapt_to(
        &mut self,
        view: &CropView,
        rectified: &Mat,
        classes: &[usize],
        used: impl Fn(usize) -> bool,
    ) -> Result<bool, ModelError> {
        let g = view.pose.grid;
        let (sites, classes): (Vec<(u32, u32)>, Vec<usize>) = (0..g.rows)
            .flat_map(|r| (0..g.cols).map(move |c| (r, c)))
            .zip(classes.iter().copied())
            .enumerate()
            .filter(|(i, _)| used(*i))
            .map(|(_, x)| x)
            .unzip();
        let raw = self.raw_sites(view, rectified, &sites)?;
        let labelled: Vec<(RawReading, usize)> =
            raw.into_iter().zip(classes.iter().copied()).collect();
        self.adaptation = Adaptation::fit(&labelled, ADAPT_WEIGHT);
        Ok(self.adaptation.is_some())
    }

    /// Reads every site of the grid, row-major.
    pub fn read_all(
        &self,
        view: &CropView,
        rectified: &Mat,
    ) -> Result<Vec<SiteReading>, ModelError> {
        let g = view.pose.grid;
        let sites: Vec<(u32, u32)> = (0..g.rows)
            .flat_map(|r| (0..g.cols).map(move |c| (r, c)))
            .collect();
        self.read_sites(view, rectified, &sites)
    }
}
