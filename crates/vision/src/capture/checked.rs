//! Every frame checked before anything looks at it: no more pixels than the
//! program reads, and all of one size, since the board's corners, the reference
//! views and the tracking all assume one picture size.

use opencv::prelude::*;

use super::{CaptureError, Frame, FrameSource, MAX_PIXELS};

pub(crate) struct Checked {
    inner: Box<dyn FrameSource>,
    first: Option<(i32, i32)>,
    warnings: Vec<String>,
}

impl Checked {
    pub(crate) fn new(inner: Box<dyn FrameSource>) -> Checked {
        Checked {
            inner,
            first: None,
            warnings: Vec::new(),
        }
    }
}

impl Iterator for Checked {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let frame = match self.inner.next()? {
                Ok(f) => f,
                Err(e) => return Some(Err(e)),
            };
            let size = (frame.image.cols(), frame.image.rows());
            let named = frame.path.as_ref().map(|p| p.display().to_string());
            if size.0 as u64 * size.1 as u64 > MAX_PIXELS {
                return Some(Err(CaptureError::TooLarge {
                    name: named.unwrap_or_else(|| {
                        format!("frame {} of {}", frame.index, self.inner.name())
                    }),
                    width: size.0 as u64,
                    height: size.1 as u64,
                }));
            }
            let first = *self.first.get_or_insert(size);
            if first == size {
                return Some(Ok(frame));
            }
            let text = |(w, h): (i32, i32)| format!("{w}x{h}");
            match named {
                // One photo of another size (a screenshot, a phone turned
                // sideways) does not end a recording: it is left out, said once.
                Some(name) => self.warnings.push(format!(
                    "skipping photo '{name}': it is {}, the first photo {} (all photos of a game must be of one size and way up)",
                    text(size),
                    text(first)
                )),
                None => {
                    return Some(Err(CaptureError::SizeChanged {
                        source_name: self.inner.name().to_string(),
                        index: frame.index,
                        size: text(size),
                        first: text(first),
                    }))
                }
            }
        }
    }
}

impl FrameSource for Checked {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn is_offline(&self) -> bool {
        self.inner.is_offline()
    }
    fn len_hint(&self) -> Option<usize> {
        self.inner.len_hint()
    }
    fn fps(&self) -> f64 {
        self.inner.fps()
    }
    fn take_warnings(&mut self) -> Vec<String> {
        let mut w = self.inner.take_warnings();
        w.append(&mut self.warnings);
        w
    }
    fn end_reason(&self) -> Option<String> {
        self.inner.end_reason()
    }
    fn photos(&self) -> Option<&[std::path::PathBuf]> {
        self.inner.photos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::MemorySource;
    use opencv::core::{Mat, Scalar, CV_8UC3};

    fn mat(w: i32, h: i32) -> Mat {
        Mat::new_rows_cols_with_default(h, w, CV_8UC3, Scalar::all(0.0)).unwrap()
    }

    #[test]
    fn a_frame_of_another_size_is_an_error_naming_the_source() {
        let src = MemorySource::new(vec![mat(64, 48), mat(64, 48), mat(48, 64)], 10.0);
        let got: Vec<_> = Checked::new(Box::new(src)).collect();
        assert!(got[0].is_ok() && got[1].is_ok());
        let err = got[2].as_ref().err().unwrap().to_string();
        assert!(err.contains("48x64") && err.contains("64x48"), "{err}");
    }
}
