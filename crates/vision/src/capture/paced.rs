//! Wrappers for live use: a file played at the pace it was filmed (a rehearsal of
//! a round, a benchmark of boards kept up with in real time), and a tap that keeps
//! a copy of the latest frame now and then for a page to show.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opencv::core::Mat;
use opencv::prelude::*;

use super::{CaptureError, Frame, FrameSource};

/// Hands on each frame no earlier than its time after the first frame was asked
/// for, as a camera would.
pub struct Paced {
    inner: Box<dyn FrameSource>,
    started: Option<Instant>,
    /// How late the last frame was handed on (how far the consumer is behind), s.
    pub late_s: f64,
}

impl Paced {
    /// `inner`, each frame handed on no earlier than its time, as a camera would.
    pub fn new(inner: Box<dyn FrameSource>) -> Paced {
        Paced {
            inner,
            started: None,
            late_s: 0.0,
        }
    }
}

impl Iterator for Paced {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        let started = *self.started.get_or_insert_with(Instant::now);
        let frame = self.inner.next()?;
        if let Ok(f) = &frame {
            let due = started + Duration::from_secs_f64(f.time_s.max(0.0));
            let now = Instant::now();
            if due > now {
                self.late_s = 0.0;
                std::thread::sleep(due - now);
            } else {
                self.late_s = (now - due).as_secs_f64();
            }
        }
        Some(frame)
    }
}

frame_source_of_inner!(cut FrameSource for Paced);

/// The latest frame a tap kept, with its time in the source.
pub struct TappedFrame {
    /// The frame, BGR.
    pub image: Mat,
    /// Counts up with every frame kept, so a reader can tell a new one.
    pub serial: u64,
}

/// Where a tap keeps its frame; shared with whoever shows it.
pub type FrameSlot = Arc<Mutex<Option<TappedFrame>>>;

/// Passes frames on unchanged and keeps a copy of one every `every_s` seconds of
/// source time in `slot`.
pub struct Tapped {
    inner: Box<dyn FrameSource>,
    slot: FrameSlot,
    every_s: f64,
    last: Option<f64>,
    serial: u64,
}

impl Tapped {
    /// `inner`, with a frame put into `slot` every `every_s` seconds of source time.
    pub fn new(inner: Box<dyn FrameSource>, slot: FrameSlot, every_s: f64) -> Tapped {
        Tapped {
            inner,
            slot,
            every_s,
            last: None,
            serial: 0,
        }
    }
}

impl Iterator for Tapped {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        let frame = self.inner.next()?;
        if let Ok(f) = &frame {
            let due = self
                .last
                .is_none_or(|t| f.time_s - t >= self.every_s || f.time_s < t);
            if due {
                if let Ok(image) = f.image.try_clone() {
                    self.serial += 1;
                    self.last = Some(f.time_s);
                    if let Ok(mut slot) = self.slot.lock() {
                        *slot = Some(TappedFrame {
                            image,
                            serial: self.serial,
                        });
                    }
                }
            }
        }
        Some(frame)
    }
}

frame_source_of_inner!(FrameSource for Tapped);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::MemorySource;

    #[test]
    fn paced_frames_come_no_sooner_than_their_time() {
        let inner = MemorySource::new(vec![Mat::default(); 3], 20.0);
        let t = Instant::now();
        let n = Paced::new(Box::new(inner)).count();
        assert_eq!(n, 3);
        assert!(
            t.elapsed() >= Duration::from_millis(95),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn the_tap_keeps_a_frame_now_and_then() {
        let inner = MemorySource::new(vec![Mat::default(); 10], 10.0);
        let slot: FrameSlot = Arc::default();
        let n = Tapped::new(Box::new(inner), slot.clone(), 0.45).count();
        assert_eq!(n, 10);
        let kept = slot.lock().unwrap();
        let kept = kept.as_ref().unwrap();
        // Frames at 0, 0.5 s: the second kept, numbered 2.
        assert_eq!(kept.serial, 2);
    }
}
