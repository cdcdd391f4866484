//! A wrapper for live use: a file played at the pace it was filmed (a rehearsal of
//! a round, a benchmark of boards kept up with in real time).

use std::time::{Duration, Instant};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::MemorySource;
    use opencv::core::Mat;

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
}
