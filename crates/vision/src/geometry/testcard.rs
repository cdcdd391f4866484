//! A known grid seen in perspective: a flat chequered board with a dot at every site
//! centre, warped into a camera image. Lets tests and the first-run demo check
//! rectification without any renderer or model.

use opencv::core::{Mat, Point, Scalar, Size, BORDER_CONSTANT, CV_8UC3};
use opencv::imgproc;

use super::{BoardPose, GeometryError, Homography};

/// Pixels per cell of the flat card before warping.
const CARD_CELL: f64 = 40.0;

/// Draws `pose.grid` as a flat card (squares for a cell grid, lines for a points grid,
/// a red dot on every site centre) and warps it so that its lattice corners land on
/// `pose.corners` in an image of `size` (width, height) on a grey-blue background.
pub fn perspective_test_card(pose: &BoardPose, size: (u32, u32)) -> Result<Mat, GeometryError> {
    let cv = GeometryError::cv;
    let (lr, lc) = pose.grid().lattice_cells();
    let margin = CARD_CELL;
    let (w, h) = (
        (lc as f64 * CARD_CELL + 2.0 * margin) as i32,
        (lr as f64 * CARD_CELL + 2.0 * margin) as i32,
    );
    let mut card =
        Mat::new_rows_cols_with_default(h, w, CV_8UC3, Scalar::new(90.0, 150.0, 190.0, 0.0))
            .map_err(cv)?;
    let at = |u: f64, v: f64| {
        Point::new(
            (margin + u * lc as f64 * CARD_CELL).round() as i32,
            (margin + v * lr as f64 * CARD_CELL).round() as i32,
        )
    };
    if pose.grid().points {
        for r in 0..=lr {
            let v = r as f64 / lr as f64;
            imgproc::line(
                &mut card,
                at(0.0, v),
                at(1.0, v),
                Scalar::all(20.0),
                2,
                imgproc::LINE_AA,
                0,
            )
            .map_err(cv)?;
        }
        for c in 0..=lc {
            let u = c as f64 / lc as f64;
            imgproc::line(
                &mut card,
                at(u, 0.0),
                at(u, 1.0),
                Scalar::all(20.0),
                2,
                imgproc::LINE_AA,
                0,
            )
            .map_err(cv)?;
        }
    } else {
        for r in 0..lr {
            for c in 0..lc {
                let shade = if (r + c) % 2 == 0 { 225.0 } else { 70.0 };
                let tl = at(c as f64 / lc as f64, r as f64 / lr as f64);
                let br = at((c + 1) as f64 / lc as f64, (r + 1) as f64 / lr as f64);
                imgproc::rectangle_points(
                    &mut card,
                    tl,
                    Point::new(br.x - 1, br.y - 1),
                    Scalar::all(shade),
                    -1,
                    imgproc::LINE_8,
                    0,
                )
                .map_err(cv)?;
            }
        }
    }
    for r in 0..pose.grid().rows {
        for c in 0..pose.grid().cols {
            let (u, v) = pose.grid().site_center(r, c);
            imgproc::circle(
                &mut card,
                at(u, v),
                (CARD_CELL * 0.12) as i32,
                Scalar::new(0.0, 0.0, 255.0, 0.0),
                -1,
                imgproc::LINE_AA,
                0,
            )
            .map_err(cv)?;
        }
    }
    let card_pts = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)].map(|(u, v)| {
        let p = at(u, v);
        (p.x as f64, p.y as f64)
    });
    let hmg = Homography::from_points(&card_pts, &pose.corners().points())
        .ok_or_else(|| GeometryError::OpenCv("degenerate test card".into()))?;
    let m = Mat::from_slice_2d(&hmg.matrix()).map_err(cv)?;
    let mut out = Mat::default();
    imgproc::warp_perspective(
        &card,
        &mut out,
        &m,
        Size::new(size.0 as i32, size.1 as i32),
        imgproc::INTER_LINEAR,
        BORDER_CONSTANT,
        Scalar::new(120.0, 100.0, 80.0, 0.0),
    )
    .map_err(cv)?;
    Ok(out)
}
