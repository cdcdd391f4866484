//! Straight edge segments of the image (the line segment detector, or OpenCV's fast
//! line detector for Go boards), found at a working resolution that keeps a 1280x720
//! frame whole but shrinks phone photos.

use opencv::core::{Mat, Size, Vec4f, Vector};
use opencv::imgproc;
use opencv::prelude::*;
use opencv::ximgproc;

use super::LocateError;

/// Largest side of the working image: 1280x720 frames are searched at full size,
/// because the far lines of an oblique 19x19 board are only a few pixels apart.
pub(crate) const WORK_MAX_SIDE: i32 = 1280;

/// One edge segment in working-image pixels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Segment {
    pub(crate) a: (f64, f64),
    pub(crate) b: (f64, f64),
}

impl Segment {
    pub(crate) fn len(&self) -> f64 {
        ((self.b.0 - self.a.0).powi(2) + (self.b.1 - self.a.1).powi(2)).sqrt()
    }
}

/// The grey working image and the factor from its pixels to the original's.
pub(crate) struct WorkImage {
    pub(crate) grey: Mat,
    /// Original pixels per working pixel (1 when not shrunk).
    pub(crate) scale: f64,
}

pub(crate) fn work_image(image: &Mat) -> Result<WorkImage, LocateError> {
    if image.empty() {
        return Err(LocateError::EmptyImage);
    }
    let mut grey = Mat::default();
    if image.channels() == 1 {
        grey = image.clone();
    } else {
        imgproc::cvt_color_def(image, &mut grey, imgproc::COLOR_BGR2GRAY)?;
    }
    let side = grey.cols().max(grey.rows());
    if side <= WORK_MAX_SIDE {
        return Ok(WorkImage { grey, scale: 1.0 });
    }
    let scale = side as f64 / WORK_MAX_SIDE as f64;
    let size = Size::new(
        (grey.cols() as f64 / scale).round() as i32,
        (grey.rows() as f64 / scale).round() as i32,
    );
    let mut small = Mat::default();
    imgproc::resize(&grey, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
    Ok(WorkImage { grey: small, scale })
}

/// The detector's own scale for 8x8 and 9x9 grids and the like: a slight shrink
/// that costs less than full resolution and, measured, places their corners no
/// worse (full scale lost an 8x8 scene of seed 3000; 0.7, with OpenCV's LSD, placed
/// the corners less well: mean error 0.110 against 0.092 cell on the 8x8 scenes).
pub(crate) const SPARSE_SCALE: f64 = 0.8;

/// Line segments by OpenCV's FastLineDetector (Canny edges joined into lines) at
/// full resolution, at least `min_len` px long: about a third of LSD's time, ends
/// on whole pixels.
pub(crate) fn detect_fast(grey: &Mat, min_len: f64) -> Result<Vec<Segment>, LocateError> {
    // Joining gap 1.414 px, Canny thresholds 50 and 50, aperture 3, no merging.
    let mut fld = ximgproc::create_fast_line_detector(min_len as i32, 1.414, 50.0, 50.0, 3, false)?;
    let mut lines: Vector<Vec4f> = Vector::new();
    fld.detect(grey, &mut lines)?;
    Ok(at_least(&lines, min_len))
}

/// The detector's lines (x1, y1, x2, y2) at least `min_len` long.
fn at_least(lines: &Vector<Vec4f>, min_len: f64) -> Vec<Segment> {
    lines
        .iter()
        .map(|l| Segment {
            a: (l[0] as f64, l[1] as f64),
            b: (l[2] as f64, l[3] as f64),
        })
        .filter(|s| s.len() >= min_len)
        .collect()
}

/// Segments at least `min_len` working pixels long, found by the line segment
/// detector (`super::lsd`) on the image shrunk by `scale` (1 = full working
/// resolution, which the thin lines of dense grids need), as OpenCV's LSD would
/// shrink it: a Gaussian of sigma 0.6 / scale, then bilinear. Ends are in working
/// pixels.
pub(crate) fn detect(grey: &Mat, min_len: f64, scale: f64) -> Result<Vec<Segment>, LocateError> {
    // The image itself at full scale (no copy), else its shrunk copy.
    let mut small = Mat::default();
    let mut img = grey;
    if scale != 1.0 {
        let sigma = 0.6 / scale;
        let h = (sigma * (2.0 * 3.0 * 10f64.ln()).sqrt()).ceil() as i32;
        let mut blurred = Mat::default();
        let k = Size::new(1 + 2 * h, 1 + 2 * h);
        imgproc::gaussian_blur_def(grey, &mut blurred, k, sigma)?;
        let inter = imgproc::INTER_LINEAR_EXACT;
        imgproc::resize(&blurred, &mut small, Size::default(), scale, scale, inter)?;
        img = &small;
    }
    let packed;
    if !img.is_continuous() {
        packed = img.try_clone()?;
        img = &packed;
    }
    let (w, h) = (img.cols() as usize, img.rows() as usize);
    let segs = super::lsd::detect(img.data_bytes()?, w, h);
    Ok(segs
        .into_iter()
        .map(|s| Segment {
            a: (s.a.0 / scale, s.a.1 / scale),
            b: (s.b.0 / scale, s.b.1 / scale),
        })
        .filter(|s| s.len() >= min_len)
        .collect())
}
