//! Labelled images for training exports and evaluation: rendered scenes with exact
//! labels, and the real photo sets beside the project (`../shared/data`) with
//! hand-annotated corners. Labels are per site, row-major in the grid's image order:
//! 0 empty, 1 white piece, 2 black piece, 3 hidden by a hand.

mod games;
pub mod go;
mod go_roboflow;
pub mod locate_eval;
mod real;
pub mod synthetic;
pub mod tables;

use opencv::core::Mat;

use crate::geometry::BoardPose;

pub use games::{board_state, game_states, synth_piece};
pub use go_roboflow::{go_roboflow_set, GO_ROBOFLOW};
pub use real::{
    annotated_set, bgu_game, labels_json_set, placement_labels, real_set, split_of, RealSetError,
    Split, TRAINABLE_SETS,
};
pub use synthetic::{
    random_scene, random_state, render_random, rgb_to_bgr_mat, RandomRender, SynthSetOptions,
};

pub const EMPTY: u8 = 0;
pub const WHITE: u8 = 1;
pub const BLACK: u8 = 2;
pub const HIDDEN: u8 = 3;

/// One labelled image: a BGR image, where its grid is, and a label per site.
pub struct Labelled {
    pub name: String,
    pub image: Mat,
    pub pose: BoardPose,
    pub labels: Vec<u8>,
}

/// A labelled image to be loaded on demand (real sets are large photos).
pub struct LabelledRef {
    pub name: String,
    pub path: std::path::PathBuf,
    /// Read the file's pixels as stored, ignoring its EXIF orientation (a set whose
    /// labels and corners were made on the raw pixels).
    pub raw_pixels: bool,
    pub pose: BoardPose,
    pub labels: Vec<u8>,
}

impl LabelledRef {
    pub fn load(&self) -> Result<Labelled, crate::capture::CaptureError> {
        Ok(Labelled {
            name: self.name.clone(),
            image: if self.raw_pixels {
                crate::capture::read_image_raw(&self.path)?
            } else {
                crate::capture::read_image(&self.path)?
            },
            pose: self.pose,
            labels: self.labels.clone(),
        })
    }
}
