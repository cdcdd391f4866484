//! A frame source whose frames come out cut to one region: one board's part of
//! a camera view that holds several.

use opencv::core::{Mat, Rect};
use opencv::prelude::*;

use super::{CaptureError, Frame, FrameSource};

/// A source whose frames are cut to `rect` (in the inner source's pixels).
pub(crate) struct Cropped {
    inner: Box<dyn FrameSource>,
    rect: Rect,
}

impl Cropped {
    /// `inner`'s frames cut to `rect`, which is kept within each frame. The inner
    /// source is asked to cut them itself (a shared input then copies the region
    /// alone for each board).
    pub(crate) fn new(mut inner: Box<dyn FrameSource>, rect: Rect) -> Cropped {
        inner.cut_to(rect);
        Cropped { inner, rect }
    }
}

/// `image` cut to `rect` (clipped to the image), as a picture of its own.
pub fn crop(image: &Mat, rect: Rect) -> opencv::Result<Mat> {
    let r = rect & Rect::new(0, 0, image.cols(), image.rows());
    if r.width <= 0 || r.height <= 0 {
        return Ok(Mat::default());
    }
    // A copy: later steps read the pixels as one continuous block.
    Mat::roi(image, r)?.try_clone()
}

impl Iterator for Cropped {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut frame = match self.inner.next()? {
            Ok(f) => f,
            Err(e) => return Some(Err(e)),
        };
        // Frames the inner source cut are of the region's size (it cuts only a
        // region within the frame); those it held from before it was asked, and
        // all where it does not cut, are whole, and larger unless the region is
        // the whole frame.
        if (frame.image.cols(), frame.image.rows()) == (self.rect.width, self.rect.height) {
            return Some(Ok(frame));
        }
        match crop(&frame.image, self.rect) {
            Ok(img) => {
                frame.image = img;
                Some(Ok(frame))
            }
            Err(e) => Some(Err(CaptureError::OpenCv {
                source_name: self.inner.name().to_string(),
                why: e.to_string(),
            })),
        }
    }
}

frame_source_of_inner!(FrameSource for Cropped);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::MemorySource;
    use opencv::core::{Scalar, CV_8UC3};

    #[test]
    fn frames_come_out_cut_to_the_region_and_clipped_to_the_frame() {
        let frame = Mat::new_rows_cols_with_default(100, 200, CV_8UC3, Scalar::all(7.0)).unwrap();
        let inner = MemorySource::new(vec![frame], 10.0);
        let mut cut = Cropped::new(Box::new(inner), Rect::new(150, 20, 80, 30));
        let f = cut.next().unwrap().unwrap();
        assert_eq!((f.image.cols(), f.image.rows()), (50, 30));
        assert!(f.image.is_continuous());
    }
}
