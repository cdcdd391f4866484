//! A frame source with frames already taken from it put back in front: for
//! callers that look at the first frames (to find the board) before recording.

use super::{CaptureError, Frame, FrameSource};

/// Frames already read (while the board was being found), then the rest of the
/// source.
pub(crate) struct Prepended {
    held: std::collections::VecDeque<Frame>,
    inner: Box<dyn FrameSource>,
}

impl Prepended {
    /// `held` first, then `inner`.
    pub(crate) fn new(held: Vec<Frame>, inner: Box<dyn FrameSource>) -> Prepended {
        Prepended {
            held: held.into(),
            inner,
        }
    }
}

impl Iterator for Prepended {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.held.pop_front() {
            Some(f) => Some(Ok(f)),
            None => self.inner.next(),
        }
    }
}

frame_source_of_inner!(cut FrameSource for Prepended);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::MemorySource;
    use opencv::core::Mat;

    #[test]
    fn held_frames_come_first_then_the_rest() {
        let mut inner = MemorySource::new(vec![Mat::default(); 3], 10.0);
        let first = inner.next().unwrap().unwrap();
        let all: Vec<usize> = Prepended::new(vec![first], Box::new(inner))
            .map(|f| f.unwrap().index)
            .collect();
        assert_eq!(all, [0, 1, 2]);
    }
}
