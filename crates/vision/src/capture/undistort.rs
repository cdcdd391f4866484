//! A frame source whose frames come out with the lens distortion removed.

use crate::geometry::Undistorter;

use super::{CaptureError, Frame, FrameSource};

/// A source whose frames are undistorted by a camera profile's lens model.
pub(crate) struct UndistortedSource {
    inner: Box<dyn FrameSource>,
    lens: Undistorter,
}

impl UndistortedSource {
    /// `inner` undistorted by `lens`.
    pub(crate) fn new(inner: Box<dyn FrameSource>, lens: Undistorter) -> UndistortedSource {
        UndistortedSource { inner, lens }
    }
}

impl Iterator for UndistortedSource {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut frame = match self.inner.next()? {
            Ok(f) => f,
            Err(e) => return Some(Err(e)),
        };
        match self.lens.undistort(&frame.image) {
            Ok(img) => {
                frame.image = img;
                Some(Ok(frame))
            }
            Err(e) => Some(Err(CaptureError::Undistort {
                source_name: self.inner.name().to_string(),
                index: frame.index,
                why: e.to_string(),
            })),
        }
    }
}

frame_source_of_inner!(FrameSource for UndistortedSource);
