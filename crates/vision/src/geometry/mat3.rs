//! The 3x3 matrices and homogeneous 3-vectors of plane geometry, for the
//! homographies (`Homography`) and for locating grids (`locate`'s points, lines,
//! vanishing points and least-squares fits): one place for both.
//!
//! Written out rather than taken from nalgebra, because for this size it is faster:
//! measured 2026-12-03 on the 2-core development machine against nalgebra 0.35
//! (`default-features = false, features = ["std"]`), both at opt-level 3, medians of
//! 31 runs (a throwaway program timing this code and nalgebra's on the same data):
//!
//! | operation                                         | here     | nalgebra |
//! |---------------------------------------------------|----------|----------|
//! | homography from 4 points (8x8 solve, 3x3 inverse) | 435-487 ns | 579 ns |
//! | map 1000 points                                   | 1.89 us  | 1.80-1.89 us |
//! | 3x3 product                                       | 3.8 ns   | 10.2-10.6 ns |
//! | 3x3 inverse                                       | 9.5 ns   | 21.9-22.2 ns |
//!
//! nalgebra's 9x9 symmetric eigensolver was faster than `locate`'s Jacobi (5.4 us
//! against 19 us), but a location makes a handful of such fits against tens of
//! milliseconds of image work, so it is no reason to take in the crate. OpenCV
//! works on whole images here; mapping points needs none of its types.

/// A 3x3 matrix, rows first.
pub(crate) type Mat3 = [[f64; 3]; 3];

/// A homogeneous point or line of the plane.
pub(crate) type V3 = [f64; 3];

/// The product `a * b`.
pub(crate) fn mul(a: &Mat3, b: &Mat3) -> Mat3 {
    let mut r = [[0.0; 3]; 3];
    for (i, row) in r.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    r
}

/// The inverse; `None` when `m` is singular (or nearly, for its scale) or not finite.
pub(crate) fn invert(m: &Mat3) -> Option<Mat3> {
    let c =
        |r0: usize, c0: usize, r1: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
    let cof = [
        [c(1, 1, 2, 2), -c(1, 0, 2, 2), c(1, 0, 2, 1)],
        [-c(0, 1, 2, 2), c(0, 0, 2, 2), -c(0, 0, 2, 1)],
        [c(0, 1, 1, 2), -c(0, 0, 1, 2), c(0, 0, 1, 1)],
    ];
    let det = m[0][0] * cof[0][0] + m[0][1] * cof[0][1] + m[0][2] * cof[0][2];
    let scale = m.iter().flatten().map(|v| v.abs()).fold(0.0, f64::max);
    if !det.is_finite() || det.abs() <= 1e-12 * scale.powi(3) {
        return None;
    }
    let mut inv = [[0.0; 3]; 3];
    for (i, row) in inv.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = cof[j][i] / det;
        }
    }
    Some(inv)
}

/// The point `m` maps `(x, y)` to; `None` when it lands on the line at infinity.
pub(crate) fn apply(m: &Mat3, (x, y): (f64, f64)) -> Option<(f64, f64)> {
    let w = m[2][0] * x + m[2][1] * y + m[2][2];
    if w.abs() < 1e-12 {
        return None;
    }
    Some((
        (m[0][0] * x + m[0][1] * y + m[0][2]) / w,
        (m[1][0] * x + m[1][1] * y + m[1][2]) / w,
    ))
}

/// The similarity moving points to their centroid with a mean distance of √2
/// from it (Hartley's normalisation), so that a fit from points of very
/// different scales (thousands of pixels against the unit square) is well
/// conditioned.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Normaliser {
    scale: f64,
    cx: f64,
    cy: f64,
}

impl Normaliser {
    /// `None` for no points, points all in one place, or points not finite.
    pub(crate) fn of(points: &[(f64, f64)]) -> Option<Normaliser> {
        let n = points.len() as f64;
        let cx = points.iter().map(|q| q.0).sum::<f64>() / n;
        let cy = points.iter().map(|q| q.1).sum::<f64>() / n;
        let mean = points
            .iter()
            .map(|q| (q.0 - cx).hypot(q.1 - cy))
            .sum::<f64>()
            / n;
        (mean.is_finite() && mean > 1e-12).then(|| Normaliser {
            scale: std::f64::consts::SQRT_2 / mean,
            cx,
            cy,
        })
    }

    /// A point moved.
    pub(crate) fn apply(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (self.scale * (x - self.cx), self.scale * (y - self.cy))
    }

    pub(crate) fn matrix(&self) -> Mat3 {
        let s = self.scale;
        [
            [s, 0.0, -s * self.cx],
            [0.0, s, -s * self.cy],
            [0.0, 0.0, 1.0],
        ]
    }

    pub(crate) fn inverse_matrix(&self) -> Mat3 {
        [
            [1.0 / self.scale, 0.0, self.cx],
            [0.0, 1.0 / self.scale, self.cy],
            [0.0, 0.0, 1.0],
        ]
    }
}

/// The map `h`, fitted between normalised points, in the points' own
/// coordinates: `to^-1 * h * from`.
pub(crate) fn denormalised(h: &Mat3, from: &Normaliser, to: &Normaliser) -> Mat3 {
    mul(&to.inverse_matrix(), &mul(h, &from.matrix()))
}

pub(crate) fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub(crate) fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn unit(a: V3) -> V3 {
    let n = dot(a, a).sqrt();
    if n > 0.0 {
        [a[0] / n, a[1] / n, a[2] / n]
    } else {
        a
    }
}

/// A line scaled so that (a, b) is a unit normal: `dot(l, p)` is then a signed distance.
pub(crate) fn line_normalised(l: V3) -> V3 {
    let n = (l[0] * l[0] + l[1] * l[1]).sqrt();
    if n > 0.0 {
        [l[0] / n, l[1] / n, l[2] / n]
    } else {
        l
    }
}

/// Intersection of two lines as a Euclidean point; `None` when they are parallel.
pub(crate) fn meet(a: V3, b: V3) -> Option<(f64, f64)> {
    let p = cross(a, b);
    let scale = (p[0].abs() + p[1].abs()).max(1e-300);
    (p[2].abs() > 1e-12 * scale).then(|| (p[0] / p[2], p[1] / p[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Mat3 = [[2.0, 0.5, 10.0], [0.1, 1.5, -4.0], [0.001, 0.002, 1.0]];

    #[test]
    fn a_matrix_times_its_inverse_is_the_identity() {
        let i = mul(&M, &invert(&M).unwrap());
        for (r, row) in i.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                assert!((v - f64::from(u8::from(r == c))).abs() < 1e-12, "{i:?}");
            }
        }
    }

    #[test]
    fn singular_and_unfinite_matrices_have_no_inverse() {
        assert!(invert(&[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]]).is_none());
        assert!(invert(&[[f64::NAN, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]).is_none());
    }

    #[test]
    fn mapping_and_mapping_back_returns_the_point() {
        let p = apply(&M, (120.0, -30.0)).unwrap();
        let q = apply(&invert(&M).unwrap(), p).unwrap();
        assert!((q.0 - 120.0).abs() < 1e-9 && (q.1 + 30.0).abs() < 1e-9);
        // A point the map sends to infinity.
        assert!(apply(
            &[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
            (0.0, 5.0)
        )
        .is_none());
    }

    #[test]
    fn normalised_points_sit_round_the_origin_at_mean_distance_root_two() {
        let pts = [(100.0, 50.0), (500.0, 80.0), (520.0, 400.0), (60.0, 380.0)];
        let n = Normaliser::of(&pts).unwrap();
        let moved: Vec<(f64, f64)> = pts.iter().map(|&p| n.apply(p)).collect();
        let (sx, sy) = moved.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
        assert!(sx.abs() < 1e-9 && sy.abs() < 1e-9);
        let mean = moved.iter().map(|p| p.0.hypot(p.1)).sum::<f64>() / 4.0;
        assert!((mean - std::f64::consts::SQRT_2).abs() < 1e-12);
        // The matrix form agrees, and undoing it is the identity.
        let back = denormalised(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], &n, &n);
        let p = apply(&back, (7.0, 9.0)).unwrap();
        assert!((p.0 - 7.0).abs() < 1e-9 && (p.1 - 9.0).abs() < 1e-9);
        assert!(Normaliser::of(&[(3.0, 3.0); 4]).is_none());
        assert!(Normaliser::of(&[]).is_none());
    }

    #[test]
    fn lines_through_points_meet_where_they_cross() {
        let a = cross([0.0, 0.0, 1.0], [2.0, 2.0, 1.0]);
        let b = cross([0.0, 2.0, 1.0], [2.0, 0.0, 1.0]);
        let p = meet(a, b).unwrap();
        assert!((p.0 - 1.0).abs() < 1e-12 && (p.1 - 1.0).abs() < 1e-12);
        assert!(meet(a, a).is_none());
        let l = line_normalised([3.0, 4.0, 10.0]);
        assert!((dot(l, [0.0, 0.0, 1.0]) - 2.0).abs() < 1e-12);
        assert!((dot(unit([3.0, 0.0, 4.0]), [0.6, 0.0, 0.8]) - 1.0).abs() < 1e-12);
    }
}
