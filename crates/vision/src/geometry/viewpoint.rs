//! Where the camera stands over the board, estimated from the grid's homography
//! alone: what tells in which direction, and how far, anything standing on a site
//! shows displaced from its base. From straight above, standing things lean
//! outward from the point under the camera; from the side, away from the camera.
//!
//! The principal point is taken to be where the board's centre shows (people aim
//! at the board), the focal length is solved from the homography when the view's
//! perspective is strong enough to tell it (Zhang's two constraints on the board
//! plane's axes), and otherwise assumed.

use super::BoardPose;

/// Focal length assumed when the view shows too little perspective to tell it, in
/// board widths as they show in the image (a lens that sees the board over about
/// 40 degrees).
const DEFAULT_FOCAL_BOARDS: f64 = 1.3;
/// Perspective weaker than this (the relative change of scale across the board)
/// cannot tell the focal length.
const MIN_PERSPECTIVE: f64 = 0.03;
/// Focal lengths outside this range (in board widths) are not believed.
const FOCAL_RANGE: (f64, f64) = (0.25, 20.0);

/// The camera's position in cell units: x along the grid's columns from its left
/// edge, y along its rows from its top edge (as the user gave the corners), and
/// the height above the board.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Viewpoint {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) height: f64,
    /// Cells per board unit along x and y (the grid's lattice size).
    cells: (f64, f64),
}

impl Viewpoint {
    /// The camera seen by `pose`.
    pub(crate) fn of(pose: &BoardPose) -> Viewpoint {
        let (lr, lc) = pose.grid().lattice_cells();
        let cells = (lc as f64, lr as f64);
        let h = pose.homography().matrix();
        // Board cells to image pixels, with the principal point at the origin.
        let centre = pose.to_image((0.5, 0.5));
        let m = {
            let mut m = [[0.0; 3]; 3];
            for r in 0..3 {
                m[r][0] = h[r][0] / cells.0;
                m[r][1] = h[r][1] / cells.1;
                m[r][2] = h[r][2];
            }
            let last = m[2];
            for (c, l) in last.iter().enumerate() {
                m[0][c] -= centre.0 * l;
                m[1][c] -= centre.1 * l;
            }
            m
        };
        let col = |c: usize| [m[0][c], m[1][c], m[2][c]];
        let (a, b, t) = (col(0), col(1), col(2));
        let board_px = pose.mean_cell_px() * cells.0.max(cells.1);
        let focal = solve_focal(a, b, t, cells).unwrap_or(DEFAULT_FOCAL_BOARDS * board_px);
        let focal = focal.clamp(FOCAL_RANGE.0 * board_px, FOCAL_RANGE.1 * board_px);
        // K^-1 applied to the columns.
        let k = |v: [f64; 3]| [v[0] / focal, v[1] / focal, v[2]];
        let (ka, kb, kt) = (k(a), k(b), k(t));
        let norm = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        let mut lambda = 2.0 / (norm(ka) + norm(kb)).max(1e-12);
        // The board lies in front of the camera.
        if kt[2] * lambda < 0.0 {
            lambda = -lambda;
        }
        let s = |v: [f64; 3]| v.map(|x| x * lambda);
        let (r1, r2, tv) = (s(ka), s(kb), s(kt));
        let r3 = [
            r1[1] * r2[2] - r1[2] * r2[1],
            r1[2] * r2[0] - r1[0] * r2[2],
            r1[0] * r2[1] - r1[1] * r2[0],
        ];
        let dot = |p: [f64; 3], q: [f64; 3]| p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
        // Camera centre C = -R^T t. The board's normal r1 x r2 points away from a
        // camera that sees the board's top (x right, y down), so height is -C.z.
        Viewpoint {
            x: -dot(r1, tv),
            y: -dot(r2, tv),
            height: dot(r3, tv),
            cells,
        }
        .sane()
    }

    /// A camera below the board or at its level is a bad estimate: it is put
    /// straight above the board's centre at the assumed distance instead.
    fn sane(self) -> Viewpoint {
        if self.height.is_finite() && self.height > 0.5 && self.x.is_finite() && self.y.is_finite()
        {
            return self;
        }
        Viewpoint {
            x: self.cells.0 / 2.0,
            y: self.cells.1 / 2.0,
            height: DEFAULT_FOCAL_BOARDS * self.cells.0.max(self.cells.1),
            cells: self.cells,
        }
    }

    /// Where the top of something `height` cells tall standing at board point `p`
    /// (board units) shows, in board units: displaced from `p` away from the point
    /// under the camera. None when it stands as tall as the camera.
    pub(crate) fn top_of(&self, p: (f64, f64), height: f64) -> Option<(f64, f64)> {
        let gap = self.height - height;
        if gap <= 1e-6 {
            return None;
        }
        let (px, py) = (p.0 * self.cells.0, p.1 * self.cells.1);
        let s = height / gap;
        Some((
            (px + s * (px - self.x)) / self.cells.0,
            (py + s * (py - self.y)) / self.cells.1,
        ))
    }
}

/// The focal length (pixels) that makes the homography's two board axes
/// orthogonal and of equal length through K, or None when the view has too
/// little perspective to tell it or the answer is impossible.
fn solve_focal(a: [f64; 3], b: [f64; 3], t: [f64; 3], cells: (f64, f64)) -> Option<f64> {
    // Relative change of scale across the board: how much perspective there is.
    let across = (a[2] * cells.0).abs().max((b[2] * cells.1).abs()) / t[2].abs().max(1e-12);
    if across < MIN_PERSPECTIVE {
        return None;
    }
    let (a1, b1) = (a[0] * b[0] + a[1] * b[1], a[2] * b[2]);
    let (a2, b2) = (
        a[0] * a[0] + a[1] * a[1] - b[0] * b[0] - b[1] * b[1],
        a[2] * a[2] - b[2] * b[2],
    );
    let den = a1 * a1 + a2 * a2;
    if den <= 0.0 {
        return None;
    }
    // u = 1/f^2 in the least-squares sense over both constraints.
    let u = -(a1 * b1 + a2 * b2) / den;
    (u > 0.0 && u.is_finite()).then(|| 1.0 / u.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Corners, GridSpec};

    /// A pinhole camera of focal `f` pixels at `c` (cells; the board's frame: x
    /// right, y down the board, z into the table, so a camera above has z < 0)
    /// looking at `target` on the board, principal point at (320, 240): the image
    /// of the board's corners.
    fn project(f: f64, c: [f64; 3], target: [f64; 2], cells: f64) -> Corners {
        let dot = |p: [f64; 3], q: [f64; 3]| p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
        let norm = |v: [f64; 3]| {
            let n = dot(v, v).sqrt();
            v.map(|x| x / n)
        };
        let fwd = norm([target[0] - c[0], target[1] - c[1], -c[2]]);
        // Image down: the board's y, made orthogonal to the view; right = down x fwd.
        let k = fwd[1];
        let down = norm([-k * fwd[0], 1.0 - k * fwd[1], -k * fwd[2]]);
        let right = [
            down[1] * fwd[2] - down[2] * fwd[1],
            down[2] * fwd[0] - down[0] * fwd[2],
            down[0] * fwd[1] - down[1] * fwd[0],
        ];
        let pt = |x: f64, y: f64| {
            let d = [x - c[0], y - c[1], -c[2]];
            let z = dot(d, fwd);
            (320.0 + f * dot(d, right) / z, 240.0 + f * dot(d, down) / z)
        };
        Corners::new([
            pt(0.0, 0.0),
            pt(cells, 0.0),
            pt(cells, cells),
            pt(0.0, cells),
        ])
        .unwrap()
    }

    #[test]
    fn an_oblique_camera_is_found_where_it_stands() {
        // Camera 9 cells behind the bottom edge, 10 cells up, aimed at the centre.
        let corners = project(600.0, [4.0, 17.0, -10.0], [4.0, 4.0], 8.0);
        let v = Viewpoint::of(&BoardPose::new(GridSpec::cells(8, 8), corners));
        assert!((v.x - 4.0).abs() < 0.3, "{v:?}");
        assert!((v.y - 17.0).abs() < 1.0, "{v:?}");
        assert!((v.height - 10.0).abs() < 1.0, "{v:?}");
        // Things standing on the board show displaced away from the camera (up
        // the board, to smaller y).
        let top = v.top_of((0.5, 0.5), 1.0).unwrap();
        assert!(top.1 < 0.5 && (top.0 - 0.5).abs() < 1e-3, "{top:?}");
    }

    #[test]
    fn from_straight_above_things_lean_outward_from_the_centre() {
        let corners: Corners = "100,100 500,100 500,500 100,500".parse().unwrap();
        let v = Viewpoint::of(&BoardPose::new(GridSpec::cells(8, 8), corners));
        assert!(
            (v.x - 4.0).abs() < 1e-6 && (v.y - 4.0).abs() < 1e-6,
            "{v:?}"
        );
        assert!(v.height > 5.0, "{v:?}");
        let (x, y) = v.top_of((0.9, 0.95), 1.0).unwrap();
        assert!(x > 0.9 && y > 0.95);
        let (x, y) = v.top_of((0.1, 0.5), 1.0).unwrap();
        assert!(x < 0.1 && (y - 0.5).abs() < 1e-9);
        assert_eq!(v.top_of((0.5, 0.5), 1.0), Some((0.5, 0.5)));
    }

    #[test]
    fn a_camera_to_one_side_of_an_overhead_view_is_found() {
        // Straight down but shifted: the board fills the image's left part. The
        // principal point is assumed at the board's centre, so the estimate is
        // the board's centre; what matters is that it stays finite and above.
        let corners = project(500.0, [6.0, 4.0, -12.0], [6.0, 4.001], 8.0);
        let v = Viewpoint::of(&BoardPose::new(GridSpec::cells(8, 8), corners));
        assert!(
            v.height > 1.0 && v.x.is_finite() && v.y.is_finite(),
            "{v:?}"
        );
    }

    #[test]
    fn degenerate_views_fall_back_to_a_camera_above_the_centre() {
        let v = Viewpoint {
            x: f64::NAN,
            y: 0.0,
            height: -3.0,
            cells: (8.0, 8.0),
        }
        .sane();
        assert_eq!((v.x, v.y), (4.0, 4.0));
        assert!(v.height > 0.0);
    }
}
