//! Has the grid moved in the image? A knocked camera or a nudged board shifts the
//! whole grid; the recorder must notice before it reads any site, and find the
//! grid again. Patches of the previous still frame centred on the grid outline's
//! line crossings (board edge and grid lines: texture in both directions, rarely
//! a piece's centre) are searched for in the new frame: a short search says
//! whether anything moved, a wide one plus a RANSAC homography says where to.

use opencv::calib3d;
use opencv::core::{self, Mat, Point2f, Rect, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use crate::geometry::{BoardPose, Corners};

/// Cell side, in pixels of the working image the search runs on.
const WORK_CELL_PX: f64 = 16.0;
/// Patch side in cells.
const PATCH_CELLS: f64 = 1.0;
/// Search radius of the per-view check, and of a search after a bump, in cells.
const CHECK_RADIUS: f64 = 0.4;
const FIND_RADIUS: f64 = 2.5;
/// Fewest patches inside the frame for the check to judge, and for a homography.
const MIN_PATCHES: usize = 6;
/// A patch counts as found at this normalised correlation.
const MATCH_SCORE: f32 = 0.6;
/// The grid has moved when the found patches moved this far (median, in cells),
/// or when fewer than half of them are found close by.
const MOVED_CELLS: f64 = 0.1;

/// What a still frame says about the grid.
#[derive(Clone, Debug, PartialEq)]
pub enum GridCheck {
    /// Where it was.
    Same,
    /// It moved; these are its corners now.
    Moved(Corners),
    /// It moved and cannot be found again in this frame.
    Lost,
}

/// The last still frame, as a reference to compare the next ones with.
pub struct GridGuard {
    grey: Mat,
    scale: f64,
    /// The part of the frame kept (the grid and a wide search margin).
    roi: Rect,
}

impl GridGuard {
    /// Keeps `frame` (BGR) as the reference for `pose`.
    pub fn new(frame: &Mat, pose: &BoardPose) -> opencv::Result<GridGuard> {
        let scale = (WORK_CELL_PX / pose.mean_cell_px().max(1.0)).min(1.0);
        let roi = region(frame, pose);
        Ok(GridGuard {
            grey: work_image(frame, roi, scale)?,
            scale,
            roi,
        })
    }

    /// Compares `frame` with the reference, where the grid had `pose`. Keeps
    /// `frame` as the new reference unless the grid is lost.
    pub fn check(&mut self, frame: &Mat, pose: &BoardPose) -> opencv::Result<GridCheck> {
        let now = work_image(frame, self.roi, self.scale)?;
        let cell = pose.mean_cell_px() * self.scale;
        let points = outline_points(pose, self.roi, self.scale);
        let near = track(&self.grey, &now, &points, cell, CHECK_RADIUS)?;
        let seen = near.iter().filter(|t| **t != Track::Outside).count();
        let found: Vec<f64> = near
            .iter()
            .filter_map(|t| match t {
                Track::Moved(dx, dy) => Some(dx.hypot(*dy) / cell),
                _ => None,
            })
            .collect();
        // A grid filling the frame leaves too few patches inside it to judge: the
        // check then has nothing to say, and must not stop the recording.
        if seen < MIN_PATCHES || (found.len() * 2 >= seen && median(found) <= MOVED_CELLS) {
            self.grey = now;
            return Ok(GridCheck::Same);
        }
        match relocate(&self.grey, &now, &points, pose, self.roi, self.scale)? {
            Some(c) => {
                *self = GridGuard::new(frame, &BoardPose::new(pose.grid(), c))?;
                Ok(GridCheck::Moved(c))
            }
            None => Ok(GridCheck::Lost),
        }
    }
}

/// The grid's bounding box grown by the wide search margin, within the frame.
fn region(frame: &Mat, pose: &BoardPose) -> Rect {
    let pts = pose.corners().points();
    let margin = (FIND_RADIUS + PATCH_CELLS) * pose.mean_cell_px();
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for (x, y) in pts {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    let r = Rect::new(
        (x0 - margin).floor() as i32,
        (y0 - margin).floor() as i32,
        (x1 - x0 + 2.0 * margin).ceil() as i32,
        (y1 - y0 + 2.0 * margin).ceil() as i32,
    );
    r & Rect::new(0, 0, frame.cols(), frame.rows())
}

fn work_image(frame: &Mat, roi: Rect, scale: f64) -> opencv::Result<Mat> {
    super::shrunk_grey(&Mat::roi(frame, roi)?, scale)
}

/// The grid lines' crossings with the grid outline, in working-image pixels.
fn outline_points(pose: &BoardPose, roi: Rect, scale: f64) -> Vec<(f64, f64)> {
    let (lr, lc) = pose.grid().lattice_cells();
    let mut uv = Vec::new();
    for c in 0..=lc {
        let u = c as f64 / lc as f64;
        uv.push((u, 0.0));
        uv.push((u, 1.0));
    }
    for r in 1..lr {
        let v = r as f64 / lr as f64;
        uv.push((0.0, v));
        uv.push((1.0, v));
    }
    uv.into_iter()
        .map(|p| {
            let (x, y) = pose.to_image(p);
            ((x - roi.x as f64) * scale, (y - roi.y as f64) * scale)
        })
        .collect()
}

/// What became of one patch.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Track {
    /// The patch is not wholly inside the frame: no evidence either way.
    Outside,
    NotFound,
    /// Found, moved by this much (working pixels).
    Moved(f64, f64),
}

/// Per point: its displacement from `reference` to `now` when its patch is found
/// within `radius` cells.
fn track(
    reference: &Mat,
    now: &Mat,
    points: &[(f64, f64)],
    cell: f64,
    radius: f64,
) -> opencv::Result<Vec<Track>> {
    let half = (PATCH_CELLS * cell / 2.0).round().max(3.0) as i32;
    let reach = (radius * cell).round().max(2.0) as i32;
    let bounds = Rect::new(0, 0, reference.cols(), reference.rows());
    let mut out = Vec::with_capacity(points.len());
    for &(x, y) in points {
        let (cx, cy) = (x.round() as i32, y.round() as i32);
        let patch = Rect::new(cx - half, cy - half, 2 * half + 1, 2 * half + 1);
        let area = Rect::new(
            patch.x - reach,
            patch.y - reach,
            patch.width + 2 * reach,
            patch.height + 2 * reach,
        );
        // The patch must lie in the frame; its search area is cut to fit.
        let area = area & bounds;
        if (patch & bounds) != patch || area.width <= patch.width || area.height <= patch.height {
            out.push(Track::Outside);
            continue;
        }
        let template = Mat::roi(reference, patch)?;
        let search = Mat::roi(now, area)?;
        let mut result = Mat::default();
        imgproc::match_template_def(&search, &template, &mut result, imgproc::TM_CCOEFF_NORMED)?;
        let mut best = 0.0f64;
        let mut at = core::Point::default();
        core::min_max_loc(
            &result,
            None,
            Some(&mut best),
            None,
            Some(&mut at),
            &core::no_array(),
        )?;
        if (best as f32) < MATCH_SCORE || !best.is_finite() {
            out.push(Track::NotFound);
            continue;
        }
        let (sx, sy) = subpixel(&result, at)?;
        out.push(Track::Moved(
            area.x as f64 + sx - patch.x as f64,
            area.y as f64 + sy - patch.y as f64,
        ));
    }
    Ok(out)
}

/// The peak of a correlation surface to a fraction of a pixel (a parabola
/// through the peak and its neighbours, per axis).
fn subpixel(result: &Mat, at: core::Point) -> opencv::Result<(f64, f64)> {
    let v = |x: i32, y: i32| -> opencv::Result<f64> { Ok(*result.at_2d::<f32>(y, x)? as f64) };
    let fit = |a: f64, b: f64, c: f64| {
        let d = a - 2.0 * b + c;
        if d.abs() < 1e-9 {
            0.0
        } else {
            (0.5 * (a - c) / d).clamp(-0.5, 0.5)
        }
    };
    let (x, y) = (at.x, at.y);
    let dx = if x > 0 && x + 1 < result.cols() {
        fit(v(x - 1, y)?, v(x, y)?, v(x + 1, y)?)
    } else {
        0.0
    };
    let dy = if y > 0 && y + 1 < result.rows() {
        fit(v(x, y - 1)?, v(x, y)?, v(x, y + 1)?)
    } else {
        0.0
    };
    Ok((x as f64 + dx, y as f64 + dy))
}

/// The grid's corners in `now`, from the outline patches found in a wide search
/// and a RANSAC homography between the two frames.
fn relocate(
    reference: &Mat,
    now: &Mat,
    points: &[(f64, f64)],
    pose: &BoardPose,
    roi: Rect,
    scale: f64,
) -> opencv::Result<Option<Corners>> {
    let cell = pose.mean_cell_px() * scale;
    let moved = track(reference, now, points, cell, FIND_RADIUS)?;
    let mut src = Vector::<Point2f>::new();
    let mut dst = Vector::<Point2f>::new();
    for (&(x, y), d) in points.iter().zip(&moved) {
        if let Track::Moved(dx, dy) = d {
            src.push(Point2f::new(x as f32, y as f32));
            dst.push(Point2f::new((x + dx) as f32, (y + dy) as f32));
        }
    }
    let seen = moved.iter().filter(|t| **t != Track::Outside).count();
    let needed = (seen * 2 / 5).max(MIN_PATCHES);
    if src.len() < needed {
        return Ok(None);
    }
    let mut inliers = Mat::default();
    let h = calib3d::find_homography(&src, &dst, &mut inliers, calib3d::RANSAC, 1.5)?;
    if h.empty() || core::count_non_zero(&inliers)? < needed as i32 {
        return Ok(None);
    }
    let m = |r: i32, c: i32| -> opencv::Result<f64> { Ok(*h.at_2d::<f64>(r, c)?) };
    let mut out = [(0.0, 0.0); 4];
    let (ox, oy) = (roi.x as f64, roi.y as f64);
    for (o, &(x, y)) in out.iter_mut().zip(pose.corners().points().iter()) {
        let (x, y) = ((x - ox) * scale, (y - oy) * scale);
        let w = m(2, 0)? * x + m(2, 1)? * y + m(2, 2)?;
        if w.abs() < 1e-9 {
            return Ok(None);
        }
        *o = (
            (m(0, 0)? * x + m(0, 1)? * y + m(0, 2)?) / w / scale + ox,
            (m(1, 0)? * x + m(1, 1)? * y + m(1, 2)?) / w / scale + oy,
        );
    }
    Ok(Corners::new(out).ok())
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::INFINITY;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::GridSpec;
    use opencv::core::{Scalar, CV_8UC3};

    /// A checkered 8x8 board of `cell` px at `origin` in a `w` x `h` frame.
    fn board(w: i32, h: i32, origin: (i32, i32), cell: i32) -> Mat {
        let mut m = Mat::new_rows_cols_with_default(h, w, CV_8UC3, Scalar::all(90.0)).unwrap();
        for r in 0..8 {
            for c in 0..8 {
                let v = if (r + c) % 2 == 0 { 220.0 } else { 40.0 };
                let rect = Rect::new(origin.0 + c * cell, origin.1 + r * cell, cell, cell);
                imgproc::rectangle(&mut m, rect, Scalar::all(v), -1, imgproc::LINE_8, 0).unwrap();
            }
        }
        m
    }

    fn pose(origin: (f64, f64), side: f64) -> BoardPose {
        let (x, y) = origin;
        let c = Corners::new([(x, y), (x + side, y), (x + side, y + side), (x, y + side)]);
        BoardPose::new(GridSpec::cells(8, 8), c.unwrap())
    }

    #[test]
    fn a_still_board_has_not_moved_even_when_it_fills_the_frame() {
        let img = board(240, 240, (0, 0), 30);
        let p = pose((-0.5, -0.5), 240.0);
        let mut g = GridGuard::new(&img, &p).unwrap();
        assert_eq!(g.check(&img, &p).unwrap(), GridCheck::Same);
        let img = board(400, 300, (60, 40), 24);
        let p = pose((59.5, 39.5), 192.0);
        let mut g = GridGuard::new(&img, &p).unwrap();
        assert_eq!(g.check(&img, &p).unwrap(), GridCheck::Same);
    }

    #[test]
    fn a_shifted_board_is_found_where_it_went() {
        let before = board(400, 300, (60, 40), 24);
        let after = board(400, 300, (75, 31), 24);
        let p = pose((59.5, 39.5), 192.0);
        let mut g = GridGuard::new(&before, &p).unwrap();
        match g.check(&after, &p).unwrap() {
            GridCheck::Moved(c) => {
                let tl = c.points()[0];
                assert!(
                    (tl.0 - 74.5).abs() < 1.0 && (tl.1 - 30.5).abs() < 1.0,
                    "{tl:?}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
