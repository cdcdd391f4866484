//! Video files, cameras and network streams through OpenCV's VideoCapture.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use opencv::core::{Mat, Vector};
use opencv::prelude::*;
use opencv::videoio::{self, VideoCapture};

use super::{CaptureError, Frame, FrameSource};

enum Clock {
    /// Frame index over a frame rate: exact and repeatable for files.
    Rate,
    /// Wall-clock time since the first frame: live sources drop frames.
    Wall(Option<Instant>),
}

/// A video file, camera or network stream read by OpenCV's FFmpeg backend.
pub struct VideoSource {
    name: String,
    cap: VideoCapture,
    fps: f64,
    frames: Option<usize>,
    next: usize,
    clock: Clock,
    done: bool,
    /// Seconds between frames handed on, and when the last one was.
    min_gap_s: f64,
    last_s: Option<f64>,
    /// Live sources: how to open the input again after frames stop.
    reopen: Option<Reopen>,
    /// How long to keep trying, in seconds.
    reconnect_s: f64,
    interrupt: Option<Arc<AtomicBool>>,
    warnings: Vec<String>,
    /// Why the source ended early, once it has.
    end_reason: Option<String>,
}

/// What a live source was opened from.
#[derive(Clone, Debug)]
enum Reopen {
    Camera(i32),
    Stream(String),
}

impl Reopen {
    fn open(&self) -> Option<VideoCapture> {
        let cap = match self {
            Reopen::Camera(i) => VideoCapture::new(*i, camera_backend()).ok()?,
            Reopen::Stream(url) => open_stream(url)?,
        };
        quiet_ffmpeg();
        cap.is_opened().unwrap_or(false).then_some(cap)
    }
}

/// Turns off FFmpeg's own log lines ("Stream ends prematurely", "overread"),
/// which it writes to stderr from inside OpenCV: what matters reaches the caller
/// as errors, warnings and end reasons, and the library never prints. OpenCV sets
/// FFmpeg's level when it first opens a capture, so this runs after each open.
fn quiet_ffmpeg() {
    #[cfg(unix)]
    // SAFETY: av_log_set_level(int) from the libavutil OpenCV loaded, looked up
    // by name; nothing is called when it is not there.
    unsafe {
        let f = libc::dlsym(libc::RTLD_DEFAULT, c"av_log_set_level".as_ptr());
        if !f.is_null() {
            let set: extern "C" fn(libc::c_int) = std::mem::transmute(f);
            // AV_LOG_QUIET
            set(-8);
        }
    }
}

/// Cameras through V4L2 on Linux: the default backend order tries GStreamer
/// first, whose warnings are no use to anyone when a camera is missing.
fn camera_backend() -> i32 {
    if cfg!(target_os = "linux") {
        videoio::CAP_V4L2
    } else {
        videoio::CAP_ANY
    }
}

/// Opens a stream with timeouts, so that a stalled stream is noticed within
/// seconds (OpenCV's FFmpeg default waits 30 s) and reconnected.
fn open_stream(url: &str) -> Option<VideoCapture> {
    let params = Vector::from_slice(&[
        videoio::CAP_PROP_OPEN_TIMEOUT_MSEC,
        10_000,
        videoio::CAP_PROP_READ_TIMEOUT_MSEC,
        5_000,
    ]);
    VideoCapture::from_file_with_params(url, videoio::CAP_FFMPEG, &params)
        .ok()
        .filter(|c| c.is_opened().unwrap_or(false))
}

/// Whether a file is a bare video stream with no container (a Raspberry Pi
/// camera's `.h264`, an `.mjpeg` dump), by its name.
fn is_raw_stream(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["h264", "264", "h265", "265", "hevc", "mjpeg", "mjpg"]
            .contains(&e.to_ascii_lowercase().as_str())
    })
}

impl VideoSource {
    pub(crate) fn file(path: &Path, fps: Option<f64>) -> Result<VideoSource, CaptureError> {
        let name = path.display().to_string();
        let cap = VideoCapture::from_file(path, videoio::CAP_FFMPEG)
            .ok()
            .filter(|c| c.is_opened().unwrap_or(false));
        quiet_ffmpeg();
        let cap = cap.ok_or_else(|| CaptureError::Video(name.clone()))?;
        let native = cap.get(videoio::CAP_PROP_FPS).unwrap_or(0.0);
        let count = cap.get(videoio::CAP_PROP_FRAME_COUNT).unwrap_or(0.0);
        let given = fps.filter(|f| f.is_finite() && *f > 0.0);
        let fps = given
            .or((native.is_finite() && native > 0.0).then_some(native))
            .unwrap_or(30.0);
        let mut warnings = Vec::new();
        if given.is_none() && is_raw_stream(path) {
            // A bare elementary stream carries no frame times: the demuxer's
            // rate is a guess, and every time in the record rests on it.
            warnings.push(format!(
                "'{name}' is a raw stream with no frame times: assuming {fps} frames a second (give --fps to set the camera's rate)"
            ));
        }
        Ok(VideoSource {
            name,
            cap,
            fps,
            frames: (count.is_finite() && count >= 1.0).then_some(count as usize),
            next: 0,
            clock: Clock::Rate,
            done: false,
            min_gap_s: 0.0,
            last_s: None,
            reopen: None,
            reconnect_s: 0.0,
            interrupt: None,
            warnings,
            end_reason: None,
        })
    }

    pub(crate) fn camera(index: i32) -> Result<VideoSource, CaptureError> {
        let reopen = Reopen::Camera(index);
        let cap = reopen.open().ok_or(CaptureError::Camera(index))?;
        Ok(Self::live(format!("camera:{index}"), cap, reopen))
    }

    /// The network stream at `url` (rtsp, rtmp, http, https).
    pub fn stream(url: &str) -> Result<VideoSource, CaptureError> {
        let reopen = Reopen::Stream(url.to_string());
        let cap = reopen
            .open()
            .ok_or_else(|| CaptureError::Stream(url.to_string()))?;
        Ok(Self::live(url.to_string(), cap, reopen))
    }

    /// Live sources: when frames stop, open the input again (every second, for up
    /// to `seconds`) before ending; `interrupt` stops the waiting.
    pub fn with_reconnect(
        mut self,
        seconds: f64,
        interrupt: Option<Arc<AtomicBool>>,
    ) -> VideoSource {
        self.reconnect_s = if seconds.is_finite() {
            seconds.max(0.0)
        } else {
            0.0
        };
        self.interrupt = interrupt;
        self
    }

    fn interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
    }

    /// Frames stopped coming. A file that ends well before its frame count is
    /// damaged or cut short: said, and the source ends. A live source is opened
    /// again until it gives frames or the time for it runs out. Returns whether
    /// frames may come again.
    fn stopped(&mut self) -> bool {
        let Some(reopen) = self.reopen.clone() else {
            if let Some(total) = self.frames {
                // Frame counts from a container's duration can be a few frames off.
                if self.next + (total / 100).max(2) < total {
                    let why = format!(
                        "the video '{}' ended at frame {} of {}: damaged or cut short",
                        self.name, self.next, total
                    );
                    self.warnings.push(why.clone());
                    self.end_reason = Some(why);
                }
            }
            return false;
        };
        let since = Instant::now();
        let at = self.last_s.unwrap_or(0.0);
        self.warnings.push(format!(
            "no frames from '{}' since {at:.1} s; trying to reconnect for {:.0} s",
            self.name, self.reconnect_s
        ));
        while since.elapsed().as_secs_f64() < self.reconnect_s {
            // Wait a second between tries, awake to an interrupt.
            for _ in 0..10 {
                if self.interrupted() {
                    return false;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            if let Some(cap) = reopen.open() {
                self.cap = cap;
                self.warnings.push(format!(
                    "'{}' is back after {:.0} s",
                    self.name,
                    since.elapsed().as_secs_f64()
                ));
                return true;
            }
        }
        let why = format!(
            "'{}' stopped sending frames at {at:.1} s and did not come back within {:.0} s",
            self.name, self.reconnect_s
        );
        self.warnings.push(why.clone());
        self.end_reason = Some(why);
        false
    }

    /// Hands on at most `max_fps` frames a second; the frames between are decoded
    /// (a video cannot skip them) but never converted, which is most of the saving.
    pub(crate) fn with_max_fps(mut self, max_fps: Option<f64>) -> VideoSource {
        self.min_gap_s = max_fps
            .filter(|f| f.is_finite() && *f > 0.0)
            .map_or(0.0, |f| 1.0 / f);
        self
    }

    fn time_of(&mut self, index: usize) -> f64 {
        match &mut self.clock {
            Clock::Rate => index as f64 / self.fps,
            Clock::Wall(start) => start
                .get_or_insert_with(Instant::now)
                .elapsed()
                .as_secs_f64(),
        }
    }

    fn live(name: String, cap: VideoCapture, reopen: Reopen) -> VideoSource {
        let fps = cap.get(videoio::CAP_PROP_FPS).unwrap_or(0.0);
        VideoSource {
            name,
            cap,
            fps: if fps.is_finite() && fps > 0.0 {
                fps
            } else {
                30.0
            },
            frames: None,
            next: 0,
            clock: Clock::Wall(None),
            done: false,
            min_gap_s: 0.0,
            last_s: None,
            reopen: Some(reopen),
            reconnect_s: 60.0,
            interrupt: None,
            warnings: Vec::new(),
            end_reason: None,
        }
    }
}

impl Iterator for VideoSource {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let opencv_error = |name: &str, e: opencv::Error| CaptureError::OpenCv {
            source_name: name.to_string(),
            why: e.message,
        };
        // Skip (grab without converting) until the next frame is due; a small
        // tolerance keeps exact multiples of the frame period.
        loop {
            let (index, time_s) = loop {
                if self.interrupted() && self.reopen.is_some() {
                    self.done = true;
                    return None;
                }
                match self.cap.grab() {
                    Ok(true) => {}
                    Ok(false) => {
                        if self.stopped() {
                            continue;
                        }
                        self.done = true;
                        return None;
                    }
                    Err(e) => {
                        self.done = true;
                        return Some(Err(opencv_error(&self.name, e)));
                    }
                }
                let index = self.next;
                self.next += 1;
                let t = self.time_of(index);
                let due = self
                    .last_s
                    .is_none_or(|last| t - last >= self.min_gap_s - 1e-3 / self.fps.max(1.0));
                if due {
                    break (index, t);
                }
            };
            let mut image = Mat::default();
            match self.cap.retrieve(&mut image, 0) {
                Ok(true) if !image.empty() => {}
                Ok(_) => {
                    if self.stopped() {
                        continue;
                    }
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(opencv_error(&self.name, e)));
                }
            }
            self.last_s = Some(time_s);
            return Some(Ok(Frame {
                index,
                time_s,
                image,
                path: None,
            }));
        }
    }
}

impl FrameSource for VideoSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn is_offline(&self) -> bool {
        matches!(self.clock, Clock::Rate)
    }

    fn len_hint(&self) -> Option<usize> {
        self.frames
    }

    fn fps(&self) -> f64 {
        self.fps
    }

    fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    fn end_reason(&self) -> Option<String> {
        self.end_reason.clone()
    }
}
