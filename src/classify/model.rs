//! The occupancy model: an ONNX network loaded, optimised and planned once by tract,
//! then run on batches of crops. No tract type leaves this file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tract_onnx::prelude::*;
use tract_onnx::tract_core::dims;
use tract_onnx::tract_hir::internal::DimLike;

use super::crop::{CROP_H, CROP_W};

/// Classes the model tells apart, in output order.
pub const CLASSES: [&str; 4] = ["empty", "white", "black", "occluded"];

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("model file '{0}' does not exist (run `make model` to build it, or pass --model)")]
    Missing(PathBuf),
    #[error("model file '{path}' is not a usable occupancy model: {why}")]
    Corrupt { path: PathBuf, why: String },
    #[error("running the model: {0}")]
    Run(String),
}

type Plan = Arc<TypedRunnableModel>;

/// A planned occupancy network. Input: crops of `CROP_W` x `CROP_H` RGB floats in 0..1,
/// planar. Outputs: class logits, and (when the file has it) an embedding used to
/// adapt to the user's board.
pub struct OccupancyModel {
    plan: Plan,
    path: PathBuf,
    embedding_dim: Option<usize>,
}

/// One crop's reading: probabilities of empty / white / black / occluded, and the
/// embedding when the model exports one.
#[derive(Clone, Debug, PartialEq)]
pub struct RawReading {
    pub logits: [f32; 4],
    pub embedding: Vec<f32>,
}

impl OccupancyModel {
    pub fn load(path: &Path) -> Result<OccupancyModel, ModelError> {
        if !path.exists() {
            return Err(ModelError::Missing(path.to_path_buf()));
        }
        let corrupt = |e: anyhow::Error| ModelError::Corrupt {
            path: path.to_path_buf(),
            why: format!("{e:#}").lines().next().unwrap_or("").to_string(),
        };
        let model = tract_onnx::onnx().model_for_path(path).map_err(corrupt)?;
        let n = model.sym("N");
        let model = model
            .with_input_fact(
                0,
                f32::fact(dims!(n, 3, CROP_H as usize, CROP_W as usize)).into(),
            )
            .map_err(corrupt)?;
        let typed = model.into_optimized().map_err(corrupt)?;
        let outputs = typed.output_outlets().map_err(corrupt)?.len();
        let embedding_dim = if outputs >= 2 {
            let fact = typed.output_fact(1).map_err(corrupt)?;
            fact.shape.iter().last().and_then(|d| d.to_usize().ok())
        } else {
            None
        };
        let logits_fact = typed.output_fact(0).map_err(corrupt)?;
        let classes = logits_fact
            .shape
            .iter()
            .last()
            .and_then(|d| d.to_usize().ok());
        if classes != Some(CLASSES.len()) {
            return Err(ModelError::Corrupt {
                path: path.to_path_buf(),
                why: format!("expected {} class logits, found {classes:?}", CLASSES.len()),
            });
        }
        let plan = typed.into_runnable().map_err(corrupt)?;
        Ok(OccupancyModel {
            plan,
            path: path.to_path_buf(),
            embedding_dim,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn embedding_dim(&self) -> Option<usize> {
        self.embedding_dim
    }

    /// Runs the model on `crops` (n crops, planar RGB, back to back).
    pub fn run(&self, crops: &[f32]) -> Result<Vec<RawReading>, ModelError> {
        let per = 3 * (CROP_W * CROP_H) as usize;
        let n = crops.len() / per;
        if n == 0 {
            return Ok(Vec::new());
        }
        let input =
            Tensor::from_shape(&[n, 3, CROP_H as usize, CROP_W as usize], &crops[..n * per])
                .map_err(|e| ModelError::Run(e.to_string()))?;
        let out = self
            .plan
            .run(tvec!(input.into_tvalue()))
            .map_err(|e| ModelError::Run(e.to_string()))?;
        let logits = out[0]
            .to_plain_array_view::<f32>()
            .map_err(|e| ModelError::Run(e.to_string()))?;
        let logits = logits
            .as_slice()
            .ok_or_else(|| ModelError::Run("logits are not contiguous".into()))?;
        let emb = match (self.embedding_dim, out.get(1)) {
            (Some(_), Some(t)) => t
                .to_plain_array_view::<f32>()
                .ok()
                .and_then(|a| a.as_slice().map(|s| s.to_vec())),
            _ => None,
        };
        let d = self.embedding_dim.unwrap_or(0);
        Ok((0..n)
            .map(|i| RawReading {
                logits: [
                    logits[4 * i],
                    logits[4 * i + 1],
                    logits[4 * i + 2],
                    logits[4 * i + 3],
                ],
                embedding: emb
                    .as_ref()
                    .map(|e| e[i * d..(i + 1) * d].to_vec())
                    .unwrap_or_default(),
            })
            .collect())
    }
}

/// Softmax over logits.
pub fn softmax(logits: &[f32; 4]) -> [f32; 4] {
    let m = logits.iter().cloned().fold(f32::MIN, f32::max);
    let e = logits.map(|l| (l - m).exp());
    let s: f32 = e.iter().sum();
    e.map(|v| v / s)
}
