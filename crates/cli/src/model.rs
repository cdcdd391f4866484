//! Finding and loading the occupancy model.

use std::path::PathBuf;

use clap::Args;

use boardscribe_vision::classify::{Classifier, OccupancyModel};

#[derive(Args, Debug, Clone, Default)]
pub struct ModelArgs {
    /// The occupancy model (ONNX). Default: models/occupancy.onnx in the current
    /// folder, else the one in the source tree the program was built from.
    #[arg(long)]
    pub model: Option<PathBuf>,
}

impl ModelArgs {
    pub fn path(&self) -> PathBuf {
        if let Some(p) = &self.model {
            return p.clone();
        }
        let local = PathBuf::from("models/occupancy.onnx");
        if local.exists() {
            return local;
        }
        // This crate lives in crates/cli of the source tree.
        let tree = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        tree.ancestors()
            .nth(2)
            .unwrap_or(tree)
            .join("models/occupancy.onnx")
    }

    pub fn load(&self) -> anyhow::Result<Classifier> {
        Ok(Classifier::new(OccupancyModel::load(&self.path())?))
    }
}
