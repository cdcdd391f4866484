//! Which way up a folder's photos are. A phone held flat over a board reports
//! its orientation unreliably: the EXIF tag of one game's photos can change
//! from photo to photo while the pixels keep one way up. Every photo of a
//! folder is therefore turned as the first one is, unless its own tag is the
//! only one that gives it the first photo's size (the phone really turned).

use std::path::Path;

use image::metadata::Orientation;
use opencv::core::{self as cv, Mat};
use opencv::prelude::*;

use super::CaptureError;

/// The photo's EXIF orientation; none (no turn) where it has no tag or cannot
/// be read (the pixel reader then says what is wrong with the file).
pub(crate) fn exif_orientation(path: &Path) -> Orientation {
    let decoder = image::ImageReader::open(path)
        .ok()
        .and_then(|r| r.with_guessed_format().ok())
        .and_then(|r| r.into_decoder().ok());
    match decoder {
        Some(mut d) => {
            use image::ImageDecoder;
            d.orientation().unwrap_or(Orientation::NoTransforms)
        }
        None => Orientation::NoTransforms,
    }
}

/// The size (width, height) of a `w` x `h` picture once turned by `o`.
pub(crate) fn turned_size((w, h): (i32, i32), o: Orientation) -> (i32, i32) {
    match o {
        Orientation::Rotate90
        | Orientation::Rotate270
        | Orientation::Rotate90FlipH
        | Orientation::Rotate270FlipH => (h, w),
        _ => (w, h),
    }
}

/// The picture turned by `o`, as photo viewers (and OpenCV's reader) show it.
pub(crate) fn turn(img: Mat, o: Orientation, path: &Path) -> Result<Mat, CaptureError> {
    let err = |e: opencv::Error| CaptureError::OpenCv {
        source_name: path.display().to_string(),
        why: e.message,
    };
    // OpenCV's own EXIF turns: a transpose for the quarter turns, then a flip
    // (1 about the vertical axis, 0 about the horizontal, -1 both).
    let (transpose, flip) = match o {
        Orientation::NoTransforms => return Ok(img),
        Orientation::FlipHorizontal => (false, 1),
        Orientation::Rotate180 => (false, -1),
        Orientation::FlipVertical => (false, 0),
        Orientation::Rotate270FlipH => (true, 2),
        Orientation::Rotate90 => (true, 1),
        Orientation::Rotate90FlipH => (true, -1),
        Orientation::Rotate270 => (true, 0),
    };
    let mut out = img;
    if transpose {
        let mut t = Mat::default();
        cv::transpose(&out, &mut t).map_err(err)?;
        out = t;
    }
    if flip != 2 {
        let mut f = Mat::default();
        cv::flip(&out, &mut f, flip).map_err(err)?;
        out = f;
    }
    Ok(out)
}

/// The size of a picture.
pub(crate) fn size_of(img: &Mat) -> (i32, i32) {
    (img.cols(), img.rows())
}
