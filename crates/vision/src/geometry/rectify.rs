//! Rectification: the camera view of a board warped to a canonical top-down image.

use opencv::core::{Mat, Point, Scalar, Size, BORDER_CONSTANT};
use opencv::imgproc;
use opencv::prelude::*;

use super::{BoardPose, GeometryError, Homography};
use crate::infer::WhiteSide;
use crate::rules::Square;

/// The canonical top-down image: a fixed number of pixels per cell plus a margin
/// around the grid, because pieces stick out of their cells in oblique views and a
/// crop around an edge site needs context.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct RectifyLayout {
    /// Pixels per cell side.
    pub(crate) cell_px: u32,
    /// Margin on every side, in cells.
    pub(crate) margin_cells: f64,
}

impl Default for RectifyLayout {
    fn default() -> Self {
        RectifyLayout {
            cell_px: 32,
            margin_cells: 1.0,
        }
    }
}

impl RectifyLayout {
    /// A layout of `cell_px` pixels per cell side and `margin_cells` cells of margin
    /// on every side.
    pub fn new(cell_px: u32, margin_cells: f64) -> RectifyLayout {
        RectifyLayout {
            cell_px,
            margin_cells,
        }
    }

    fn margin_px(&self) -> f64 {
        self.margin_cells * self.cell_px as f64
    }

    /// Size of the rectified image for a pose's grid, in pixels (width, height).
    pub(crate) fn size(&self, pose: &BoardPose) -> (u32, u32) {
        let (lr, lc) = pose.grid().lattice_cells();
        let m = 2.0 * self.margin_px();
        (
            (lc as f64 * self.cell_px as f64 + m).round() as u32,
            (lr as f64 * self.cell_px as f64 + m).round() as u32,
        )
    }

    /// Board units to rectified pixels.
    pub(crate) fn board_to_rectified(&self, pose: &BoardPose, p: (f64, f64)) -> (f64, f64) {
        let (lr, lc) = pose.grid().lattice_cells();
        let c = self.cell_px as f64;
        (
            self.margin_px() + p.0 * lc as f64 * c,
            self.margin_px() + p.1 * lr as f64 * c,
        )
    }

    /// Rectified pixel position of a site centre (what the rectification tests
    /// measure against; the crops find the centres through the pose).
    #[cfg(test)]
    pub(crate) fn site_center(&self, pose: &BoardPose, row: u32, col: u32) -> (f64, f64) {
        self.board_to_rectified(pose, pose.grid().site_center(row, col))
    }

    /// The map from camera-image pixels to rectified pixels.
    pub(crate) fn image_to_rectified(&self, pose: &BoardPose) -> Homography {
        let dst = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
            .map(|p| self.board_to_rectified(pose, p));
        // Corners::new refuses corners for which this has no solution.
        Homography::from_points(&pose.corners().points(), &dst)
            .expect("validated corners always give an invertible homography")
    }
}

/// Warps `image` (any type OpenCV reads: BGR or grey) to the canonical top-down view.
pub fn rectify(
    image: &Mat,
    pose: &BoardPose,
    layout: &RectifyLayout,
) -> Result<Mat, GeometryError> {
    if image.empty() {
        return Err(GeometryError::EmptyImage);
    }
    let h = layout.image_to_rectified(pose).matrix();
    let m = Mat::from_slice_2d(&h).map_err(GeometryError::cv)?;
    let (w, hgt) = layout.size(pose);
    let mut out = Mat::default();
    imgproc::warp_perspective(
        image,
        &mut out,
        &m,
        Size::new(w as i32, hgt as i32),
        imgproc::INTER_LINEAR,
        BORDER_CONSTANT,
        Scalar::all(0.0),
    )
    .map_err(GeometryError::cv)?;
    Ok(out)
}

/// A rectification worked out once for a pose: for every rectified pixel, the camera
/// pixel it samples, in OpenCV's fixed-point form (the whole pixel, and the index of
/// its 1/32-pixel fraction), so that each frame is one `remap`. `warpPerspective`
/// works the same maps out again for every frame, at most of its cost.
#[derive(Clone, Debug)]
pub(crate) struct RectifyPlan {
    xy: Mat,
    fraction: Mat,
}

impl RectifyPlan {
    pub(crate) fn new(
        pose: &BoardPose,
        layout: &RectifyLayout,
    ) -> Result<RectifyPlan, GeometryError> {
        use opencv::core::{self as cv, CV_16SC2, CV_16UC1};
        // The inverse as warpPerspective takes it (OpenCV's LU inversion of the same
        // matrix), and its per-pixel arithmetic in double.
        let forward = Mat::from_slice_2d(&layout.image_to_rectified(pose).matrix())
            .map_err(GeometryError::cv)?;
        let mut inv = Mat::default();
        cv::invert(&forward, &mut inv, cv::DECOMP_LU).map_err(GeometryError::cv)?;
        let mut m = [0f64; 9];
        for (i, v) in m.iter_mut().enumerate() {
            *v = *inv
                .at_2d::<f64>(i as i32 / 3, i as i32 % 3)
                .map_err(GeometryError::cv)?;
        }
        let (w, h) = layout.size(pose);
        let (w, h) = (w as usize, h as usize);
        const BITS: i32 = 5;
        const TAB: f64 = (1 << BITS) as f64;
        let mut xy = Vec::with_capacity(2 * w * h);
        let mut fraction = Vec::with_capacity(w * h);
        for y in 0..h {
            let (x0, y0, w0) = (
                m[1] * y as f64 + m[2],
                m[4] * y as f64 + m[5],
                m[7] * y as f64 + m[8],
            );
            for x in 0..w {
                let wt = w0 + m[6] * x as f64;
                let wt = if wt != 0.0 { TAB / wt } else { 0.0 };
                let clamp = |v: f64| v.clamp(i32::MIN as f64, i32::MAX as f64);
                let fx = clamp((x0 + m[0] * x as f64) * wt);
                let fy = clamp((y0 + m[3] * x as f64) * wt);
                let (ix, iy) = (fx.round_ties_even() as i32, fy.round_ties_even() as i32);
                let short = |v: i32| (v >> BITS).clamp(i16::MIN as i32, i16::MAX as i32) as i16;
                xy.push(short(ix));
                xy.push(short(iy));
                let mask = (1 << BITS) - 1;
                fraction.push((((iy & mask) << BITS) + (ix & mask)) as u16);
            }
        }
        let to_mat = |typ: i32, bytes: &[u8]| -> Result<Mat, GeometryError> {
            let mut mat = Mat::new_rows_cols_with_default(
                h as i32,
                w as i32,
                typ,
                opencv::core::Scalar::all(0.0),
            )
            .map_err(GeometryError::cv)?;
            mat.data_bytes_mut()
                .map_err(GeometryError::cv)?
                .copy_from_slice(bytes);
            Ok(mat)
        };
        let xy_bytes: Vec<u8> = xy.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let fr_bytes: Vec<u8> = fraction.iter().flat_map(|v| v.to_ne_bytes()).collect();
        Ok(RectifyPlan {
            xy: to_mat(CV_16SC2, &xy_bytes)?,
            fraction: to_mat(CV_16UC1, &fr_bytes)?,
        })
    }

    /// `image` rectified: what `rectify` gives for the plan's pose and layout.
    pub(crate) fn apply(&self, image: &Mat) -> Result<Mat, GeometryError> {
        if image.empty() {
            return Err(GeometryError::EmptyImage);
        }
        let mut out = Mat::default();
        imgproc::remap(
            image,
            &mut out,
            &self.xy,
            &self.fraction,
            imgproc::INTER_LINEAR,
            BORDER_CONSTANT,
            Scalar::all(0.0),
        )
        .map_err(GeometryError::cv)?;
        Ok(out)
    }
}

/// Draws the lattice onto a rectified image (what `rectify -o` shows).
pub fn draw_rectified_grid(
    img: &mut Mat,
    pose: &BoardPose,
    layout: &RectifyLayout,
) -> Result<(), GeometryError> {
    let (lr, lc) = pose.grid().lattice_cells();
    let mut segs = Vec::new();
    for r in 0..=lr {
        let v = r as f64 / lr as f64;
        segs.push(((0.0, v), (1.0, v)));
    }
    for c in 0..=lc {
        let u = c as f64 / lc as f64;
        segs.push(((u, 0.0), (u, 1.0)));
    }
    for (a, b) in segs {
        let (a, b) = (
            layout.board_to_rectified(pose, a),
            layout.board_to_rectified(pose, b),
        );
        draw_segment(img, a, b, Scalar::new(0.0, 255.0, 0.0, 0.0), 1)?;
    }
    Ok(())
}

/// Draws the projected lattice and the four corners on the camera image (what
/// `rectify --overlay` shows): the view a user checks before recording.
pub fn draw_overlay(img: &mut Mat, pose: &BoardPose) -> Result<(), GeometryError> {
    let thick = ((img.cols().max(img.rows()) as f64) / 600.0)
        .ceil()
        .max(1.0) as i32;
    for (a, b) in pose.lattice_segments() {
        draw_segment(img, a, b, Scalar::new(0.0, 255.0, 0.0, 0.0), thick)?;
    }
    let colours = [
        Scalar::new(0.0, 0.0, 255.0, 0.0),   // TL red
        Scalar::new(0.0, 255.0, 255.0, 0.0), // TR yellow
        Scalar::new(255.0, 0.0, 0.0, 0.0),   // BR blue
        Scalar::new(255.0, 0.0, 255.0, 0.0), // BL magenta
    ];
    for (p, colour) in pose.corners().points().iter().zip(colours) {
        imgproc::circle(
            img,
            Point::new(p.0.round() as i32, p.1.round() as i32),
            4 * thick,
            colour,
            -1,
            imgproc::LINE_AA,
            0,
        )
        .map_err(GeometryError::cv)?;
    }
    Ok(())
}

/// Marks where a record's a1 and White's edge are on the grid when White sits
/// at `side`, to check at a glance (`record --overlay`): a1 outlined, White's
/// edge a thick line, both labelled.
pub fn draw_white_side(
    img: &mut Mat,
    pose: &BoardPose,
    side: WhiteSide,
) -> Result<(), GeometryError> {
    let (rows, cols) = (pose.grid().rows, pose.grid().cols);
    let a1 = side.site(Square::new(0, 0), rows, cols);
    let edge = match side {
        WhiteSide::Top => 0,
        WhiteSide::Right => 1,
        WhiteSide::Bottom => 2,
        WhiteSide::Left => 3,
    };
    draw_orientation(img, pose, a1, "a1", edge, "White")
}

/// Writes `number` large at the middle of the grid (white, outlined in black so
/// that it reads on light and dark squares alike): which board is which when one
/// view holds several (`locate --all --overlay`).
pub fn draw_number(img: &mut Mat, pose: &BoardPose, number: usize) -> Result<(), GeometryError> {
    let p = pose.corners().points();
    let centre = (
        p.iter().map(|q| q.0).sum::<f64>() / 4.0,
        p.iter().map(|q| q.1).sum::<f64>() / 4.0,
    );
    // A tenth of the board's width on screen, whatever the frame's size.
    let width = p.iter().map(|q| q.0).fold(f64::NEG_INFINITY, f64::max)
        - p.iter().map(|q| q.0).fold(f64::INFINITY, f64::min);
    let scale = (width / 150.0).max(0.8);
    let thick = (scale * 2.0).ceil() as i32;
    let text = number.to_string();
    let font = imgproc::FONT_HERSHEY_SIMPLEX;
    let mut base = 0;
    let size =
        imgproc::get_text_size(&text, font, scale, thick, &mut base).map_err(GeometryError::cv)?;
    let at = Point::new(
        (centre.0 - size.width as f64 / 2.0).round() as i32,
        (centre.1 + size.height as f64 / 2.0).round() as i32,
    );
    for (colour, t) in [
        (Scalar::new(0.0, 0.0, 0.0, 0.0), 3 * thick),
        (Scalar::new(255.0, 255.0, 255.0, 0.0), thick),
    ] {
        imgproc::put_text(
            img,
            &text,
            at,
            font,
            scale,
            colour,
            t,
            imgproc::LINE_AA,
            false,
        )
        .map_err(GeometryError::cv)?;
    }
    Ok(())
}

/// Marks one site (outlined, labelled) and one edge of the grid (a thick line,
/// labelled). Edges: 0 TL-TR, 1 TR-BR, 2 BR-BL, 3 BL-TL.
fn draw_orientation(
    img: &mut Mat,
    pose: &BoardPose,
    site: (u32, u32),
    site_label: &str,
    edge: usize,
    edge_label: &str,
) -> Result<(), GeometryError> {
    let thick = ((img.cols().max(img.rows()) as f64) / 400.0)
        .ceil()
        .max(1.0) as i32;
    let orange = Scalar::new(0.0, 140.0, 255.0, 0.0);
    let cyan = Scalar::new(255.0, 255.0, 0.0, 0.0);
    let corners = pose.corners().points();
    let (a, b) = (corners[edge % 4], corners[(edge + 1) % 4]);
    draw_segment(img, a, b, cyan, 3 * thick)?;
    let poly = pose.site_polygon(site.0, site.1);
    for i in 0..4 {
        draw_segment(img, poly[i], poly[(i + 1) % 4], orange, 2 * thick)?;
    }
    let scale = 0.5 * thick as f64;
    let mut label = |text: &str, at: (f64, f64), colour: Scalar| -> Result<(), GeometryError> {
        if !(at.0.is_finite() && at.1.is_finite()) {
            return Ok(());
        }
        imgproc::put_text(
            img,
            text,
            Point::new(at.0.round() as i32, at.1.round() as i32),
            imgproc::FONT_HERSHEY_SIMPLEX,
            scale,
            colour,
            thick,
            imgproc::LINE_AA,
            false,
        )
        .map_err(GeometryError::cv)
    };
    let centre = pose.site_center(site.0, site.1);
    label(
        site_label,
        (centre.0 - 10.0 * scale, centre.1 + 5.0 * scale),
        orange,
    )?;
    let mid = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
    label(edge_label, mid, cyan)?;
    Ok(())
}

fn draw_segment(
    img: &mut Mat,
    a: (f64, f64),
    b: (f64, f64),
    colour: Scalar,
    thickness: i32,
) -> Result<(), GeometryError> {
    if !(a.0.is_finite() && a.1.is_finite() && b.0.is_finite() && b.1.is_finite()) {
        return Ok(());
    }
    imgproc::line(
        img,
        Point::new(a.0.round() as i32, a.1.round() as i32),
        Point::new(b.0.round() as i32, b.1.round() as i32),
        colour,
        thickness,
        imgproc::LINE_AA,
        0,
    )
    .map_err(GeometryError::cv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Corners, GridSpec};
    use opencv::core::{Vec3b, CV_8UC3};

    /// A camera image whose pixels differ everywhere, so any other sample shows.
    fn pattern(w: i32, h: i32) -> Mat {
        let mut m = Mat::new_rows_cols_with_default(h, w, CV_8UC3, Scalar::all(0.0)).unwrap();
        for y in 0..h {
            for x in 0..w {
                let p = ((x * 7 + y * 13) % 256) as u8;
                *m.at_2d_mut::<Vec3b>(y, x).unwrap() =
                    Vec3b::from([p, p.wrapping_mul(3), (x ^ y) as u8]);
            }
        }
        m
    }

    /// The plan's remap gives warpPerspective's image byte for byte, on oblique and
    /// overhead poses, boards partly outside the image included (issue 23).
    #[test]
    fn a_planned_rectification_is_warp_perspectives_byte_for_byte() {
        let layout = RectifyLayout {
            cell_px: 16,
            margin_cells: 1.0,
        };
        for (grid, corners, (w, h)) in [
            (
                "8x8",
                "152.3,88.1 508.7,112.2 574.4,430.9 84.5,402.6",
                (640, 480),
            ),
            ("8x8", "100,100 400,100 400,400 100,400", (480, 480)),
            ("9x9", "300,60 980,84 1040,690 250,650", (1280, 720)),
            ("19x19:points", "-20,30 700,10 660,470 10,500", (640, 480)),
        ] {
            let pose = BoardPose::new(
                grid.parse::<GridSpec>().unwrap(),
                corners.parse::<Corners>().unwrap(),
            );
            let image = pattern(w, h);
            let want = rectify(&image, &pose, &layout).unwrap();
            let got = RectifyPlan::new(&pose, &layout)
                .unwrap()
                .apply(&image)
                .unwrap();
            let (a, b) = (want.data_bytes().unwrap(), got.data_bytes().unwrap());
            assert_eq!(a.len(), b.len());
            let differ = a.iter().zip(b).filter(|(x, y)| x != y).count();
            assert_eq!(
                differ,
                0,
                "{grid} {corners}: {differ} of {} bytes differ",
                a.len()
            );
        }
    }
}
