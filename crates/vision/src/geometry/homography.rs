//! Plane-to-plane projective maps. Solved here in plain Rust (a 4-point DLT) so
//! that mapping points needs no OpenCV types; OpenCV only warps whole images.

use super::mat3::{self, Mat3, Normaliser};

/// A 3x3 projective map with its inverse cached, since overlays and crops map
/// both ways many times per frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Homography {
    m: Mat3,
    inv: Mat3,
}

impl Homography {
    /// The map taking each `src[i]` to `dst[i]`. `None` when the points are degenerate
    /// (three collinear, repeated points).
    pub(crate) fn from_points(src: &[(f64, f64); 4], dst: &[(f64, f64); 4]) -> Option<Homography> {
        // Points of very different scales (thousands of pixels against the unit
        // square) can defeat the plain solve; the same solve on points moved to
        // their centroid and scaled to unit size then finds the map.
        Homography::from_points_plain(src, dst).or_else(|| {
            let (ns, nd) = (Normaliser::of(src)?, Normaliser::of(dst)?);
            let h = Homography::from_points_plain(
                &src.map(|p| ns.apply(p)),
                &dst.map(|p| nd.apply(p)),
            )?;
            let m = mat3::denormalised(&h.m, &ns, &nd);
            if m[2][2].abs() < 1e-300 || !m[2][2].is_finite() {
                return None;
            }
            let m = m.map(|row| row.map(|v| v / m[2][2]));
            Homography::from_matrix(m)
        })
    }

    fn from_points_plain(src: &[(f64, f64); 4], dst: &[(f64, f64); 4]) -> Option<Homography> {
        // Unknowns h00..h21 with h22 = 1; two equations per correspondence.
        let mut a = [[0.0f64; 9]; 8];
        for i in 0..4 {
            let (x, y) = src[i];
            let (u, v) = dst[i];
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        let h = solve8(a)?;
        if h.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let m = [[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], 1.0]];
        Homography::from_matrix(m)
    }

    /// Wraps a matrix; `None` when it is singular.
    pub(crate) fn from_matrix(m: [[f64; 3]; 3]) -> Option<Homography> {
        let inv = mat3::invert(&m)?;
        Some(Homography { m, inv })
    }

    pub(crate) fn matrix(&self) -> [[f64; 3]; 3] {
        self.m
    }

    pub(crate) fn inverse(&self) -> Homography {
        Homography {
            m: self.inv,
            inv: self.m,
        }
    }

    /// Maps a point; `None` when it lands on the line at infinity.
    pub(crate) fn apply(&self, p: (f64, f64)) -> Option<(f64, f64)> {
        mat3::apply(&self.m, p)
    }

    pub(crate) fn apply_inverse(&self, p: (f64, f64)) -> Option<(f64, f64)> {
        mat3::apply(&self.inv, p)
    }

    /// Where this map sends the corners TL TR BR BL of the unit square moved by
    /// `(dx, dy)` (in the square's own units): the quadrilateral of a grid moved by
    /// whole cells, for a map of the unit square onto a grid. `None` when one lands
    /// on the line at infinity.
    pub(crate) fn moved_unit_square(&self, (dx, dy): (f64, f64)) -> Option<[(f64, f64); 4]> {
        let [a, b, c, d] = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
            .map(|(u, v)| self.apply((u + dx, v + dy)));
        Some([a?, b?, c?, d?])
    }
}

/// Gaussian elimination with partial pivoting on an 8x9 augmented matrix.
fn solve8(mut a: [[f64; 9]; 8]) -> Option<[f64; 8]> {
    for col in 0..8 {
        let pivot = (col..8).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-10 {
            return None;
        }
        a.swap(col, pivot);
        let p = a[col];
        for (row, r) in a.iter_mut().enumerate() {
            if row != col {
                let f = r[col] / p[col];
                for (x, pk) in r[col..].iter_mut().zip(&p[col..]) {
                    *x -= f * pk;
                }
            }
        }
    }
    let mut x = [0.0; 8];
    for i in 0..8 {
        x[i] = a[i][8] / a[i][i];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_corners_and_back() {
        let src = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        let dst = [(100.0, 50.0), (500.0, 80.0), (520.0, 400.0), (60.0, 380.0)];
        let h = Homography::from_points(&src, &dst).unwrap();
        for (s, d) in src.iter().zip(&dst) {
            let p = h.apply(*s).unwrap();
            assert!((p.0 - d.0).abs() < 1e-9 && (p.1 - d.1).abs() < 1e-9);
            let q = h.apply_inverse(*d).unwrap();
            assert!((q.0 - s.0).abs() < 1e-9 && (q.1 - s.1).abs() < 1e-9);
        }
    }

    #[test]
    fn degenerate_points_give_none() {
        let src = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        let collinear = [(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0)];
        assert!(Homography::from_points(&src, &collinear).is_none());
    }
}
