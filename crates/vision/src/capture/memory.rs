//! Frames already in memory as a frame source: for benchmarks and long-running
//! checks that must not be limited by decoding or disk.

use opencv::core::Mat;

use super::{CaptureError, Frame, FrameSource};

/// Plays `frames` once, or for `total` frames going forward and back again (a
/// long recording made of a short clip).
pub struct MemorySource {
    frames: Vec<Mat>,
    total: usize,
    next: usize,
    fps: f64,
}

impl MemorySource {
    /// `frames` played once at `fps`.
    pub fn new(frames: Vec<Mat>, fps: f64) -> MemorySource {
        let total = frames.len();
        MemorySource::cycling(frames, fps, total)
    }

    /// `total` frames: the clip forward, then backward, and so on.
    pub fn cycling(frames: Vec<Mat>, fps: f64, total: usize) -> MemorySource {
        MemorySource {
            frames,
            total,
            next: 0,
            fps,
        }
    }

    fn clip_index(&self, i: usize) -> usize {
        let n = self.frames.len();
        if n < 2 {
            return 0;
        }
        let period = 2 * n - 2;
        let k = i % period;
        if k < n {
            k
        } else {
            period - k
        }
    }
}

impl Iterator for MemorySource {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.total || self.frames.is_empty() {
            return None;
        }
        let index = self.next;
        self.next += 1;
        Some(Ok(Frame {
            index,
            time_s: index as f64 / self.fps,
            image: self.frames[self.clip_index(index)].clone(),
            path: None,
        }))
    }
}

impl FrameSource for MemorySource {
    fn name(&self) -> &str {
        "memory"
    }
    fn is_offline(&self) -> bool {
        true
    }
    fn len_hint(&self) -> Option<usize> {
        Some(self.total)
    }
    fn fps(&self) -> f64 {
        self.fps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycling_source_goes_forward_and_back() {
        let frames: Vec<Mat> = (0..3).map(|_| Mat::default()).collect();
        let s = MemorySource::cycling(frames, 10.0, 9);
        let order: Vec<usize> = (0..9).map(|i| s.clip_index(i)).collect();
        assert_eq!(order, [0, 1, 2, 1, 0, 1, 2, 1, 0]);
        assert_eq!(s.count(), 9);
    }
}
