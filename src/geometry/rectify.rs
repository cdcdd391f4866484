//! Rectification: the camera view of a board warped to a canonical top-down image.

use opencv::core::{Mat, Point, Scalar, Size, BORDER_CONSTANT};
use opencv::imgproc;
use opencv::prelude::*;

use super::{BoardPose, GeometryError, Homography};

/// The canonical top-down image: a fixed number of pixels per cell plus a margin
/// around the grid, because pieces stick out of their cells in oblique views and a
/// crop around an edge site needs context.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RectifyLayout {
    /// Pixels per cell side.
    pub cell_px: u32,
    /// Margin on every side, in cells.
    pub margin_cells: f64,
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
    fn margin_px(&self) -> f64 {
        self.margin_cells * self.cell_px as f64
    }

    /// Size of the rectified image for a pose's grid, in pixels (width, height).
    pub fn size(&self, pose: &BoardPose) -> (u32, u32) {
        let (lr, lc) = pose.grid.lattice_cells();
        let m = 2.0 * self.margin_px();
        (
            (lc as f64 * self.cell_px as f64 + m).round() as u32,
            (lr as f64 * self.cell_px as f64 + m).round() as u32,
        )
    }

    /// Board units to rectified pixels.
    pub fn board_to_rectified(&self, pose: &BoardPose, p: (f64, f64)) -> (f64, f64) {
        let (lr, lc) = pose.grid.lattice_cells();
        let c = self.cell_px as f64;
        (
            self.margin_px() + p.0 * lc as f64 * c,
            self.margin_px() + p.1 * lr as f64 * c,
        )
    }

    /// Rectified pixel position of a site centre.
    pub fn site_center(&self, pose: &BoardPose, row: u32, col: u32) -> (f64, f64) {
        self.board_to_rectified(pose, pose.grid.site_center(row, col))
    }

    /// The map from camera-image pixels to rectified pixels.
    pub fn image_to_rectified(&self, pose: &BoardPose) -> Homography {
        let dst = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
            .map(|p| self.board_to_rectified(pose, p));
        // Corners::new refuses corners for which this has no solution.
        Homography::from_points(&pose.corners.points(), &dst)
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

/// Draws the lattice onto a rectified image (what `rectify -o` shows).
pub fn draw_rectified_grid(
    img: &mut Mat,
    pose: &BoardPose,
    layout: &RectifyLayout,
) -> Result<(), GeometryError> {
    let (lr, lc) = pose.grid.lattice_cells();
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
    for (p, colour) in pose.corners.points().iter().zip(colours) {
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

/// Marks one site (outlined, labelled) and one edge of the grid (a thick line,
/// labelled): where a record's a1 and White's side are, to check at a glance
/// (`record --overlay`). Edges: 0 TL-TR, 1 TR-BR, 2 BR-BL, 3 BL-TL.
pub fn draw_orientation(
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
    let corners = pose.corners.points();
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
