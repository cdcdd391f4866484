//! Frame sources: a video file, a folder of photos, a camera or a stream URL, all
//! behind one iterator of timestamped frames, optionally undistorted by a camera
//! profile. Never knows boards.

/// `FrameSource` for a wrapper that changes frames but not what the source is:
/// everything is asked of its `inner` source.
macro_rules! frame_source_of_inner {
    ($($t:tt)*) => {
        impl $($t)* {
            fn name(&self) -> &str {
                self.inner.name()
            }
            fn is_offline(&self) -> bool {
                self.inner.is_offline()
            }
            fn len_hint(&self) -> Option<usize> {
                self.inner.len_hint()
            }
            fn fps(&self) -> f64 {
                self.inner.fps()
            }
            fn take_warnings(&mut self) -> Vec<String> {
                self.inner.take_warnings()
            }
        }
    };
}

mod folder;
mod memory;
mod natural;
mod paced;
mod prepend;
mod undistort;
mod video;

use std::path::Path;

use opencv::core::Mat;

pub use folder::FolderSource;
pub use memory::{resident_bytes, MemorySampled, MemorySource};
pub use natural::natural_cmp;
pub use paced::{FrameSlot, Paced, Tapped, TappedFrame};
pub use prepend::Prepended;
pub use undistort::UndistortedSource;
pub use video::VideoSource;

/// One frame with the time it was taken, in seconds from the start of the source.
pub struct Frame {
    /// Position in the source (counting skipped files too, for folders).
    pub index: usize,
    pub time_s: f64,
    /// BGR, 8 bits per channel, as OpenCV reads it.
    pub image: Mat,
    /// The file a photo came from (folders only).
    pub path: Option<std::path::PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("input '{0}' does not exist")]
    Missing(String),
    #[error(
        "folder '{0}' holds no images (looked for .jpg, .jpeg, .png, .bmp, .tif, .tiff, .webp)"
    )]
    NoImages(String),
    #[error("cannot read folder '{path}': {why}")]
    Folder { path: String, why: String },
    #[error("camera {0} could not be opened (is it connected, and free?)")]
    Camera(i32),
    #[error("'{0}' is not a camera: use camera:N with N a camera index such as 0")]
    BadCamera(String),
    #[error("stream '{0}' could not be opened")]
    Stream(String),
    #[error("video '{0}' could not be opened (not a video OpenCV's FFmpeg backend reads)")]
    Video(String),
    #[error("image '{0}' could not be read")]
    Image(String),
    #[error("reading '{source_name}': OpenCV: {why}")]
    OpenCv { source_name: String, why: String },
    #[error("undistorting frame {index} of '{source_name}': {why}")]
    Undistort {
        source_name: String,
        index: usize,
        why: String,
    },
}

/// Options that apply to whatever source is opened.
#[derive(Clone, Copy, Debug, Default)]
pub struct SourceOptions {
    /// Frames per second for photo folders (timestamps); also overrides a video's
    /// own rate when set. Folders default to 1.
    pub fps: Option<f64>,
    /// Videos, cameras and streams: decode every frame but hand on at most this
    /// many a second (the rest are never converted to pictures). None: all.
    pub max_fps: Option<f64>,
}

/// A source of frames. `next` yields frames in order; unreadable photos in a folder are
/// skipped with a warning (`take_warnings`), other read errors end the source with an
/// error.
pub trait FrameSource: Iterator<Item = Result<Frame, CaptureError>> {
    /// A short name for messages.
    fn name(&self) -> &str;
    /// Whether the source is a file or folder that can end (a progress bar makes sense).
    fn is_offline(&self) -> bool;
    /// Number of frames, when known in advance.
    fn len_hint(&self) -> Option<usize>;
    /// Nominal frame rate.
    fn fps(&self) -> f64;
    /// What went wrong but did not end the source (a photo skipped) since the last
    /// call; the caller reports it.
    fn take_warnings(&mut self) -> Vec<String> {
        Vec::new()
    }
}

const IMAGE_EXTENSIONS: [&str; 7] = ["jpg", "jpeg", "png", "bmp", "tif", "tiff", "webp"];

/// Whether a path names an image file by its extension.
pub fn is_image_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Opens `input`: `camera:N`, an `rtsp://`, `http://` or `https://` URL, a folder of
/// images, a single image, or a video file.
pub fn open(input: &str, opts: SourceOptions) -> Result<Box<dyn FrameSource>, CaptureError> {
    if let Some(idx) = input.strip_prefix("camera:") {
        let idx: i32 = idx
            .trim()
            .parse()
            .map_err(|_| CaptureError::BadCamera(input.to_string()))?;
        return Ok(Box::new(
            VideoSource::camera(idx)?.with_max_fps(opts.max_fps),
        ));
    }
    let lower = input.to_ascii_lowercase();
    if ["rtsp://", "rtmp://", "http://", "https://"]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return Ok(Box::new(
            VideoSource::stream(input)?.with_max_fps(opts.max_fps),
        ));
    }
    let path = Path::new(input);
    if !path.exists() {
        return Err(CaptureError::Missing(input.to_string()));
    }
    if path.is_dir() {
        return Ok(Box::new(FolderSource::open(path, opts.fps.unwrap_or(1.0))?));
    }
    if is_image_path(path) {
        return Ok(Box::new(FolderSource::single(
            path,
            opts.fps.unwrap_or(1.0),
        )));
    }
    Ok(Box::new(
        VideoSource::file(path, opts.fps)?.with_max_fps(opts.max_fps),
    ))
}

/// Reads one image file as BGR, with a clear error naming it. The EXIF orientation
/// is applied, as photo viewers do.
pub fn read_image(path: &Path) -> Result<Mat, CaptureError> {
    read_image_flags(path, opencv::imgcodecs::IMREAD_COLOR)
}

/// Reads one image file as BGR in its stored pixel order, ignoring EXIF orientation.
pub fn read_image_raw(path: &Path) -> Result<Mat, CaptureError> {
    read_image_flags(
        path,
        opencv::imgcodecs::IMREAD_COLOR | opencv::imgcodecs::IMREAD_IGNORE_ORIENTATION,
    )
}

fn read_image_flags(path: &Path, flags: i32) -> Result<Mat, CaptureError> {
    if !path.exists() {
        return Err(CaptureError::Missing(path.display().to_string()));
    }
    let img = opencv::imgcodecs::imread(path, flags).map_err(|e| CaptureError::OpenCv {
        source_name: path.display().to_string(),
        why: e.message,
    })?;
    use opencv::prelude::MatTraitConst;
    if img.empty() {
        return Err(CaptureError::Image(path.display().to_string()));
    }
    Ok(img)
}
