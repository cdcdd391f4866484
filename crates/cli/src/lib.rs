//! The command-line kit the `boardscribe` and `boardscribe-lab` binaries share, as
//! ripgrep's `grep-cli` is its binary's: flag values checked as clap reads them,
//! output that never panics, a progress bar, output paths checked before a run,
//! the model's flag, and exit statuses by kind of error. It prints: it is for
//! binaries, not for the libraries.

// The library crates' modules under the names the kit uses.
use boardscribe_core::record;
use boardscribe_vision::capture;

#[macro_use]
pub mod out;
mod bar;
mod exit;
mod image;
mod model;
pub mod paths;
pub mod values;

pub use bar::Bar;
pub use exit::{error_line, exit_code, Incomplete, UsageError};
pub use image::write_image;
pub use model::ModelArgs;
