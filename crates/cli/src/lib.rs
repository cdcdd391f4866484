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

/// Silences FFmpeg's own log lines ("Connection refused" at every reconnection
/// try, "Stream ends prematurely"), which come from inside OpenCV; it resets
/// FFmpeg's level at every open unless told otherwise by this variable. What
/// matters reaches the user as the program's own warnings and errors. Call it
/// first in `main`, before any thread starts; a user's own setting wins.
pub fn quiet_ffmpeg() {
    if std::env::var_os("OPENCV_FFMPEG_LOGLEVEL").is_none()
        && std::env::var_os("OPENCV_FFMPEG_DEBUG").is_none()
    {
        std::env::set_var("OPENCV_FFMPEG_LOGLEVEL", "-8");
    }
}
