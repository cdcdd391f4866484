//! Video files, cameras and network streams through OpenCV's VideoCapture.

use std::path::Path;
use std::time::Instant;

use opencv::core::Mat;
use opencv::prelude::*;
use opencv::videoio::{self, VideoCapture};

use super::{CaptureError, Frame, FrameSource};

enum Clock {
    /// Frame index over a frame rate: exact and repeatable for files.
    Rate,
    /// Wall-clock time since the first frame: live sources drop frames.
    Wall(Option<Instant>),
}

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
}

impl VideoSource {
    pub fn file(path: &Path, fps: Option<f64>) -> Result<VideoSource, CaptureError> {
        let name = path.display().to_string();
        let cap = VideoCapture::from_file(path, videoio::CAP_FFMPEG)
            .ok()
            .filter(|c| c.is_opened().unwrap_or(false))
            .ok_or_else(|| CaptureError::Video(name.clone()))?;
        let native = cap.get(videoio::CAP_PROP_FPS).unwrap_or(0.0);
        let count = cap.get(videoio::CAP_PROP_FRAME_COUNT).unwrap_or(0.0);
        let fps = fps
            .filter(|f| f.is_finite() && *f > 0.0)
            .or((native.is_finite() && native > 0.0).then_some(native))
            .unwrap_or(30.0);
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
        })
    }

    pub fn camera(index: i32) -> Result<VideoSource, CaptureError> {
        let cap = VideoCapture::new(index, videoio::CAP_ANY)
            .ok()
            .filter(|c| c.is_opened().unwrap_or(false))
            .ok_or(CaptureError::Camera(index))?;
        Ok(Self::live(format!("camera:{index}"), cap))
    }

    pub fn stream(url: &str) -> Result<VideoSource, CaptureError> {
        let cap = VideoCapture::from_file(url, videoio::CAP_FFMPEG)
            .ok()
            .filter(|c| c.is_opened().unwrap_or(false))
            .ok_or_else(|| CaptureError::Stream(url.to_string()))?;
        Ok(Self::live(url.to_string(), cap))
    }

    /// Hands on at most `max_fps` frames a second; the frames between are decoded
    /// (a video cannot skip them) but never converted, which is most of the saving.
    pub fn with_max_fps(mut self, max_fps: Option<f64>) -> VideoSource {
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

    fn live(name: String, cap: VideoCapture) -> VideoSource {
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
        let (index, time_s) = loop {
            match self.cap.grab() {
                Ok(true) => {}
                Ok(false) => {
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
                self.done = true;
                return None;
            }
            Err(e) => {
                self.done = true;
                return Some(Err(opencv_error(&self.name, e)));
            }
        }
        self.last_s = Some(time_s);
        Some(Ok(Frame {
            index,
            time_s,
            image,
            path: None,
        }))
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
}
