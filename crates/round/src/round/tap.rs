//! A tap on a board's source that keeps a copy of the latest frame now and then
//! for the board's page to show: a round's (and `record --serve`'s) alone.

use std::sync::{Arc, Mutex};

use opencv::core::Mat;
use opencv::prelude::*;

use crate::capture::{CaptureError, Frame, FrameSource};

/// The latest frame a tap kept, with its time in the source.
pub(crate) struct TappedFrame {
    /// The frame, BGR.
    pub(crate) image: Mat,
    /// Counts up with every frame kept, so a reader can tell a new one.
    pub(crate) serial: u64,
}

/// Where a tap keeps its frame; shared with whoever shows it.
pub(crate) type FrameSlot = Arc<Mutex<Option<TappedFrame>>>;

/// Passes frames on unchanged and keeps a copy of one every `every_s` seconds of
/// source time in `slot`.
pub(crate) struct Tapped {
    inner: Box<dyn FrameSource>,
    slot: FrameSlot,
    every_s: f64,
    last: Option<f64>,
    serial: u64,
}

impl Tapped {
    /// `inner`, with a frame put into `slot` every `every_s` seconds of source time.
    pub(crate) fn new(inner: Box<dyn FrameSource>, slot: FrameSlot, every_s: f64) -> Tapped {
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

// Frames are not cut below the tap: the page is shown what the board sees.
boardscribe_vision::frame_source_of_inner!(FrameSource for Tapped);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::MemorySource;

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
