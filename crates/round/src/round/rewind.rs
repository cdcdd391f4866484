//! A frame source that can show its last moments again: a recording stopped for an
//! arbiter's edit (a take-back) starts anew and must read the board as it stands,
//! even where the input has no frame left to give (a video that ended). Only a
//! round's board runner stops and restarts a recording so, hence here.

use std::collections::VecDeque;

use opencv::core::MatTraitConst;

use crate::capture::{CaptureError, Frame, FrameSource};

/// A source that keeps its latest frames to show them again: a recording restarted
/// after an arbiter's edit reads the board as it stands.
pub(crate) struct Rewind<'a> {
    inner: &'a mut dyn FrameSource,
    /// The latest frames, covering at least `keep_s` seconds (and two frames).
    kept: VecDeque<Frame>,
    /// Frames to give again before the inner source's next.
    again: VecDeque<Frame>,
    keep_s: f64,
}

/// The most frames kept, whatever their rate.
const MOST_KEPT: usize = 48;

impl<'a> Rewind<'a> {
    /// Keeps the frames of the last `keep_s` seconds of `inner`.
    pub(crate) fn new(inner: &'a mut dyn FrameSource, keep_s: f64) -> Rewind<'a> {
        Rewind {
            inner,
            kept: VecDeque::new(),
            again: VecDeque::new(),
            keep_s,
        }
    }

    /// The frames kept are given again, in order, before any new one.
    pub(crate) fn rewind(&mut self) {
        let mut again: VecDeque<Frame> = self.kept.iter().filter_map(copy).collect();
        again.append(&mut self.again);
        self.again = again;
    }

    fn keep(&mut self, f: &Frame) {
        let Some(c) = copy(f) else { return };
        self.kept.push_back(c);
        while self.kept.len() > 2
            && (self.kept.len() > MOST_KEPT
                || self
                    .kept
                    .front()
                    .is_some_and(|o| f.time_s - o.time_s > self.keep_s))
        {
            self.kept.pop_front();
        }
    }
}

/// A frame's own copy (its pixels too); None where OpenCV cannot copy it.
fn copy(f: &Frame) -> Option<Frame> {
    Some(Frame {
        index: f.index,
        time_s: f.time_s,
        image: f.image.try_clone().ok()?,
        path: f.path.clone(),
    })
}

impl Iterator for Rewind<'_> {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(f) = self.again.pop_front() {
            return Some(Ok(f));
        }
        let next = self.inner.next();
        if let Some(Ok(f)) = &next {
            self.keep(f);
        }
        next
    }
}

boardscribe_vision::frame_source_of_inner!(cut FrameSource for Rewind<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::MemorySource;
    use opencv::core::Mat;

    #[test]
    fn the_last_moments_are_given_again_after_a_rewind() {
        let mut inner = MemorySource::new(vec![Mat::default(); 10], 10.0);
        let mut r = Rewind::new(&mut inner, 0.25);
        let first: Vec<usize> = r.by_ref().take(6).map(|f| f.unwrap().index).collect();
        assert_eq!(first, [0, 1, 2, 3, 4, 5]);
        r.rewind();
        let rest: Vec<usize> = r.map(|f| f.unwrap().index).collect();
        // The frames of the last quarter second (3, 4, 5), then the rest.
        assert_eq!(rest, [3, 4, 5, 6, 7, 8, 9]);
    }
}
