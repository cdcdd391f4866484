//! Image conversions between the `image` crate's RGB buffers and OpenCV's BGR
//! matrices (frames are BGR; renders and decoded photos are RGB).

use image::RgbImage;
use opencv::core::{Mat, CV_8UC3};
use opencv::prelude::*;

/// An RGB image as an OpenCV BGR matrix of the same size.
pub fn rgb_to_bgr_mat(img: &RgbImage) -> opencv::Result<Mat> {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let mut mat = Mat::new_rows_cols_with_default(h, w, CV_8UC3, opencv::core::Scalar::all(0.0))?;
    let dst = mat.data_bytes_mut()?;
    for (d, s) in dst.chunks_exact_mut(3).zip(img.as_raw().chunks_exact(3)) {
        d[0] = s[2];
        d[1] = s[1];
        d[2] = s[0];
    }
    Ok(mat)
}
