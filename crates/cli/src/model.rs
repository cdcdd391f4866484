//! Finding and loading the occupancy model.

use std::path::PathBuf;

use clap::Args;

use boardscribe_vision::classify::{Classifier, OccupancyModel};

#[derive(Args, Debug, Clone, Default)]
pub struct ModelArgs {
    /// The occupancy model (ONNX). Default: models/occupancy.onnx for boards of
    /// cells, models/occupancy-points.onnx for pieces on line crossings (Go), in
    /// the current folder, else the ones in the source tree the program was
    /// built from.
    #[arg(long)]
    pub model: Option<PathBuf>,
}

/// The model for boards of cells (chess, draughts, Tablut).
const CELLS: &str = "models/occupancy.onnx";
/// The model for pieces on the crossings of the lines (Go): the same network
/// trained on Go photos too (models/README.md).
const POINTS: &str = "models/occupancy-points.onnx";

impl ModelArgs {
    /// The model for boards of cells.
    pub fn path(&self) -> PathBuf {
        self.path_for(false)
    }

    /// The model for a grid whose sites are line crossings (`points`) or cells.
    pub fn path_for(&self, points: bool) -> PathBuf {
        if let Some(p) = &self.model {
            return p.clone();
        }
        let name = if points { POINTS } else { CELLS };
        let local = PathBuf::from(name);
        if local.exists() {
            return local;
        }
        // This crate lives in crates/cli of the source tree.
        let tree = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        tree.ancestors().nth(2).unwrap_or(tree).join(name)
    }

    /// The classifier for boards of cells.
    pub fn load(&self) -> anyhow::Result<Classifier> {
        self.load_for(false)
    }

    /// The classifier for a grid whose sites are line crossings (`points`) or
    /// cells.
    pub fn load_for(&self, points: bool) -> anyhow::Result<Classifier> {
        Ok(Classifier::new(OccupancyModel::load(
            &self.path_for(points),
        )?))
    }
}
