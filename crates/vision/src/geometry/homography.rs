//! Plane-to-plane projective maps. Solved here in plain Rust (a 4-point DLT) so
//! that mapping points needs no OpenCV types; OpenCV only warps whole images.

/// A 3x3 projective map with its inverse cached, since overlays and crops map
/// both ways many times per frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Homography {
    m: [[f64; 3]; 3],
    inv: [[f64; 3]; 3],
}

impl Homography {
    /// The map taking each `src[i]` to `dst[i]`. `None` when the points are degenerate
    /// (three collinear, repeated points).
    pub fn from_points(src: &[(f64, f64); 4], dst: &[(f64, f64); 4]) -> Option<Homography> {
        // Points of very different scales (thousands of pixels against the unit
        // square) can defeat the plain solve; the same solve on points moved to
        // their centroid and scaled to unit size then finds the map.
        Homography::from_points_plain(src, dst).or_else(|| {
            let (ts, ns) = normalising(src)?;
            let (td, nd) = normalising(dst)?;
            let h = Homography::from_points_plain(&ns, &nd)?;
            let td_inv = invert3(&td)?;
            let m = mul3(&td_inv, &mul3(&h.m, &ts));
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
    pub fn from_matrix(m: [[f64; 3]; 3]) -> Option<Homography> {
        let inv = invert3(&m)?;
        Some(Homography { m, inv })
    }

    pub fn matrix(&self) -> [[f64; 3]; 3] {
        self.m
    }

    pub fn inverse(&self) -> Homography {
        Homography {
            m: self.inv,
            inv: self.m,
        }
    }

    /// Maps a point; `None` when it lands on the line at infinity.
    pub fn apply(&self, p: (f64, f64)) -> Option<(f64, f64)> {
        apply(&self.m, p)
    }

    pub fn apply_inverse(&self, p: (f64, f64)) -> Option<(f64, f64)> {
        apply(&self.inv, p)
    }

    /// Where this map sends the corners TL TR BR BL of the unit square moved by
    /// `(dx, dy)` (in the square's own units): the quadrilateral of a grid moved by
    /// whole cells, for a map of the unit square onto a grid. `None` when one lands
    /// on the line at infinity.
    pub fn moved_unit_square(&self, (dx, dy): (f64, f64)) -> Option<[(f64, f64); 4]> {
        let [a, b, c, d] = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
            .map(|(u, v)| self.apply((u + dx, v + dy)));
        Some([a?, b?, c?, d?])
    }

    /// The map `self` followed by `other`.
    pub fn then(&self, other: &Homography) -> Option<Homography> {
        Homography::from_matrix(mul3(&other.m, &self.m))
    }
}

type Matrix3 = [[f64; 3]; 3];

/// The similarity moving points to their centroid with a mean distance of √2, and
/// the points moved.
fn normalising(p: &[(f64, f64); 4]) -> Option<(Matrix3, [(f64, f64); 4])> {
    let (cx, cy) = (
        p.iter().map(|q| q.0).sum::<f64>() / 4.0,
        p.iter().map(|q| q.1).sum::<f64>() / 4.0,
    );
    let mean = p.iter().map(|q| (q.0 - cx).hypot(q.1 - cy)).sum::<f64>() / 4.0;
    if !(mean.is_finite() && mean > 0.0) {
        return None;
    }
    let s = std::f64::consts::SQRT_2 / mean;
    let t = [[s, 0.0, -s * cx], [0.0, s, -s * cy], [0.0, 0.0, 1.0]];
    Some((t, p.map(|q| (s * (q.0 - cx), s * (q.1 - cy)))))
}

fn apply(m: &[[f64; 3]; 3], (x, y): (f64, f64)) -> Option<(f64, f64)> {
    let w = m[2][0] * x + m[2][1] * y + m[2][2];
    if w.abs() < 1e-12 {
        return None;
    }
    Some((
        (m[0][0] * x + m[0][1] * y + m[0][2]) / w,
        (m[1][0] * x + m[1][1] * y + m[1][2]) / w,
    ))
}

fn mul3(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut r = [[0.0; 3]; 3];
    for (i, row) in r.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    r
}

fn invert3(m: &[[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
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
    for i in 0..3 {
        for j in 0..3 {
            inv[i][j] = cof[j][i] / det;
        }
    }
    Some(inv)
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
