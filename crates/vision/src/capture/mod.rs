//! Frame sources: a video file, a folder of photos, a camera or a stream URL, all
//! behind one iterator of timestamped frames, optionally undistorted by a camera
//! profile. Never knows boards.

/// `FrameSource` for a wrapper that changes frames but not what the source is:
/// everything is asked of its `inner` field. `frame_source_of_inner!(FrameSource
/// for Wrapper)`; `frame_source_of_inner!(cut FrameSource for Wrapper)` for a
/// wrapper that leaves the pixels alone, so that frames may be cut below it. The
/// round's and the lab's wrappers use it too (with `FrameSource` and `opencv` in
/// scope).
#[macro_export]
macro_rules! frame_source_of_inner {
    // `cut`: a wrapper that leaves the pixels alone, so frames cut before it
    // (see `FrameSource::cut_to`) are what it would have passed on cut.
    (cut $($t:tt)*) => {
        $crate::frame_source_of_inner!(@impl {
            fn cut_to(&mut self, rect: opencv::core::Rect) -> bool {
                self.inner.cut_to(rect)
            }
        } $($t)*);
    };
    (@impl { $($extra:tt)* } $($t:tt)*) => {
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
            fn end_reason(&self) -> Option<String> {
                self.inner.end_reason()
            }
            fn photos(&self) -> Option<&[std::path::PathBuf]> {
                self.inner.photos()
            }
            fn memo(&self) -> Option<std::sync::Arc<$crate::capture::SharedMemo>> {
                self.inner.memo()
            }
            $($extra)*
        }
    };
    ($($t:tt)*) => {
        $crate::frame_source_of_inner!(@impl {} $($t)*);
    };
}

mod checked;
mod convert;
mod crop;
mod folder;
mod jpeg_end;
mod memo;
#[cfg(any(test, feature = "testing"))]
mod memory;
mod natural;
mod orient;
mod paced;
mod prepend;
mod undistort;
mod video;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use opencv::core::Mat;

use crate::geometry::Undistorter;

/// The most pixels an image or frame may have: 150 million (a 108-megapixel
/// phone photo fits). Larger ones are refused before they are decoded, since
/// decoding and rectifying them takes gigabytes.
pub(crate) const MAX_PIXELS: u64 = 150_000_000;

pub(crate) use checked::Checked;
pub use convert::rgb_to_bgr_mat;
pub use crop::crop;
pub(crate) use crop::Cropped;
pub use folder::photo_files;
pub(crate) use folder::FolderSource;
pub use memo::SharedMemo;
#[cfg(any(test, feature = "testing"))]
pub use memory::MemorySource;
pub(crate) use natural::natural_cmp;
pub use paced::Paced;
pub(crate) use prepend::Prepended;
pub(crate) use undistort::UndistortedSource;
pub use video::VideoSource;

/// One frame with the time it was taken, in seconds from the start of the source.
pub struct Frame {
    /// Position in the source (counting skipped files too, for folders).
    pub index: usize,
    /// Seconds from the start of the source.
    pub time_s: f64,
    /// BGR, 8 bits per channel, as OpenCV reads it.
    pub image: Mat,
    /// The file a photo came from (folders only).
    pub path: Option<std::path::PathBuf>,
}

/// Why frames could not be had, naming the input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CaptureError {
    /// The input names no file, folder, camera or stream that exists.
    #[error("input '{0}' does not exist")]
    Missing(String),
    /// A folder without images.
    #[error(
        "folder '{0}' holds no images (looked for .jpg, .jpeg, .png, .bmp, .tif, .tiff, .webp)"
    )]
    NoImages(String),
    /// A folder that cannot be listed.
    #[error("cannot read folder '{path}': {why}")]
    Folder {
        /// The folder.
        path: String,
        /// The system's reason.
        why: String,
    },
    /// A camera that does not open.
    #[error("camera {0} could not be opened (is it connected, and free?)")]
    Camera(i32),
    /// `camera:` followed by something else than an index.
    #[error("'{0}' is not a camera: use camera:N with N a camera index such as 0")]
    BadCamera(String),
    /// A stream URL that does not open.
    #[error("stream '{0}' could not be opened")]
    Stream(String),
    /// A video file that does not open.
    #[error("video '{0}' could not be opened (not a video OpenCV's FFmpeg backend reads)")]
    Video(String),
    /// An image file that does not decode.
    #[error("image '{0}' could not be read")]
    Image(String),
    /// A JPEG without its end.
    #[error("image '{0}' is cut short (a JPEG without its end): its missing part would read as grey squares")]
    CutShort(String),
    /// OpenCV failed while reading.
    #[error("reading '{source_name}': OpenCV: {why}")]
    OpenCv {
        /// The input.
        source_name: String,
        /// OpenCV's message.
        why: String,
    },
    /// An image too large to read safely.
    #[error("image '{name}' is {width}x{height} pixels, more than the {} million this program reads; scale it down first", MAX_PIXELS / 1_000_000)]
    TooLarge {
        /// The image.
        name: String,
        /// Its width in pixels.
        width: u64,
        /// Its height in pixels.
        height: u64,
    },
    /// A frame of another size than the first.
    #[error("frame {index} of '{source_name}' is {size}, where the first frame was {first}: the input changed its picture size")]
    SizeChanged {
        /// The input.
        source_name: String,
        /// The frame's index, from 0.
        index: usize,
        /// The frame's size, `WxH`.
        size: String,
        /// The first frame's size, `WxH`.
        first: String,
    },
    /// An input read for several boards failed; its error, as said.
    #[error("{0}")]
    Shared(String),
    /// A frame that could not be undistorted.
    #[error("undistorting frame {index} of '{source_name}': {why}")]
    Undistort {
        /// The input.
        source_name: String,
        /// The frame's index, from 0.
        index: usize,
        /// OpenCV's message.
        why: String,
    },
}

/// Options that apply to whatever source is opened: `SourceOptions::default()`
/// and the `with_` setters.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct SourceOptions {
    /// Cameras and streams: how long to try to get frames again after they stop
    /// (reconnecting) before the source ends, in seconds. None: 60.
    pub(crate) reconnect_s: Option<f64>,
    /// Set by the caller to stop waiting for a stalled camera or stream.
    pub(crate) interrupt: Option<Arc<AtomicBool>>,
    /// Frames per second for photo folders (timestamps); also overrides a video's
    /// own rate when set. Folders default to 1.
    pub(crate) fps: Option<f64>,
    /// Videos, cameras and streams: decode every frame but hand on at most this
    /// many a second (the rest are never converted to pictures). None: all.
    pub(crate) max_fps: Option<f64>,
}

impl SourceOptions {
    /// These options with `fps` frames per second for photo folders (and over a
    /// video's own rate when set).
    pub fn with_fps(mut self, fps: Option<f64>) -> SourceOptions {
        self.fps = fps;
        self
    }

    /// These options handing on at most `max_fps` frames a second (None: all).
    pub fn with_max_fps(mut self, max_fps: Option<f64>) -> SourceOptions {
        self.max_fps = max_fps;
        self
    }

    /// These options trying a stalled camera or stream again for `seconds`, and
    /// giving up waiting when `interrupt` is set.
    pub fn with_reconnect(mut self, seconds: f64, interrupt: Arc<AtomicBool>) -> SourceOptions {
        self.reconnect_s = Some(seconds);
        self.interrupt = Some(interrupt);
        self
    }
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
    /// Why the source ended before its end, when it did: a damaged video that stops
    /// decoding, a stream that stalled and did not come back.
    fn end_reason(&self) -> Option<String> {
        None
    }
    /// The photos read, in order, for a folder of photos (or a single photo).
    fn photos(&self) -> Option<&[std::path::PathBuf]> {
        None
    }
    /// What the readers of one shared input (the boards of one camera view) work
    /// out alike from its frames, kept once for all of them; `None` for a source
    /// read by one reader.
    fn memo(&self) -> Option<Arc<SharedMemo>> {
        None
    }
    /// Asks for frames cut to `rect` from now on, where the source can cut them
    /// more cheaply than its caller (a shared input's copy for each reader is then
    /// of the region alone); whether it will. Frames held from before are whole.
    fn cut_to(&mut self, _rect: opencv::core::Rect) -> bool {
        false
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
/// images, a single image, or a video file. Every frame is checked: no more than
/// 150 million pixels, and all of one size (a photo of another size is skipped with
/// a warning; a video or stream that changes size is an error).
pub fn open(input: &str, opts: SourceOptions) -> Result<Box<dyn FrameSource>, CaptureError> {
    Ok(Box::new(Checked::new(open_unchecked(input, opts)?)))
}

/// Opens `input` as [`open`] does, every frame undistorted through `lens` when
/// one is given (a camera profile's).
pub fn open_undistorted(
    input: &str,
    opts: SourceOptions,
    lens: Option<Undistorter>,
) -> Result<Box<dyn FrameSource>, CaptureError> {
    let source = open(input, opts)?;
    Ok(match lens {
        Some(lens) => Box::new(UndistortedSource::new(source, lens)),
        None => source,
    })
}

fn open_unchecked(input: &str, opts: SourceOptions) -> Result<Box<dyn FrameSource>, CaptureError> {
    let live = |v: VideoSource| {
        v.with_max_fps(opts.max_fps)
            .with_reconnect(opts.reconnect_s.unwrap_or(60.0), opts.interrupt.clone())
    };
    if let Some(idx) = input.strip_prefix("camera:") {
        let idx: i32 = idx
            .trim()
            .parse()
            .map_err(|_| CaptureError::BadCamera(input.to_string()))?;
        return Ok(Box::new(live(VideoSource::camera(idx)?)));
    }
    if is_stream_url(input) {
        return Ok(Box::new(live(VideoSource::stream(input)?)));
    }
    open_file(Path::new(input), opts)
}

/// Opens a folder of images, a single image or a video file by its path, which
/// need not be UTF-8 (a name `open`'s text cannot hold), with the same checks.
pub fn open_path(path: &Path, opts: SourceOptions) -> Result<Box<dyn FrameSource>, CaptureError> {
    Ok(Box::new(Checked::new(open_file(path, opts)?)))
}

fn open_file(path: &Path, opts: SourceOptions) -> Result<Box<dyn FrameSource>, CaptureError> {
    if !path.exists() {
        return Err(CaptureError::Missing(path.display().to_string()));
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

/// Whether `input` names a network stream.
pub fn is_stream_url(input: &str) -> bool {
    let lower = input.to_ascii_lowercase();
    ["rtsp://", "rtmp://", "http://", "https://"]
        .iter()
        .any(|p| lower.starts_with(p))
}

/// Refuses an image whose header says it has more than [`MAX_PIXELS`], before it
/// is decoded (PNG and JPEG headers are read here; OpenCV's own limit guards the
/// other formats).
fn check_image_size(path: &Path) -> Result<(), CaptureError> {
    let dims = image::ImageReader::open(path)
        .ok()
        .and_then(|r| r.with_guessed_format().ok())
        .and_then(|r| r.into_dimensions().ok());
    if let Some((w, h)) = dims {
        let (w, h) = (u64::from(w), u64::from(h));
        if w * h > MAX_PIXELS {
            return Err(CaptureError::TooLarge {
                name: path.display().to_string(),
                width: w,
                height: h,
            });
        }
    }
    Ok(())
}

/// Whether the file is a JPEG cut short (only JPEGs are read for it; a file that
/// cannot be read is left to the decoder to say so).
fn is_cut_short(path: &Path) -> bool {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut bytes = Vec::new();
    let mut head = [0u8; 2];
    if f.read_exact(&mut head).is_err() || head != [0xFF, 0xD8] {
        return false;
    }
    bytes.extend_from_slice(&head);
    if f.read_to_end(&mut bytes).is_err() {
        return false;
    }
    jpeg_end::cut_short(&bytes)
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
    check_image_size(path)?;
    if is_cut_short(path) {
        return Err(CaptureError::CutShort(path.display().to_string()));
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
