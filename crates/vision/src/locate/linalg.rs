//! The little linear algebra location needs: homogeneous points and lines, the
//! eigenvectors of small symmetric matrices, and least-squares homographies.

use crate::geometry::Homography;

pub type V3 = [f64; 3];

pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn unit(a: V3) -> V3 {
    let n = dot(a, a).sqrt();
    if n > 0.0 {
        [a[0] / n, a[1] / n, a[2] / n]
    } else {
        a
    }
}

/// A line scaled so that (a, b) is a unit normal: `dot(l, p)` is then a signed distance.
pub fn line_normalised(l: V3) -> V3 {
    let n = (l[0] * l[0] + l[1] * l[1]).sqrt();
    if n > 0.0 {
        [l[0] / n, l[1] / n, l[2] / n]
    } else {
        l
    }
}

/// Intersection of two lines as a Euclidean point; `None` when they are parallel.
pub fn meet(a: V3, b: V3) -> Option<(f64, f64)> {
    let p = cross(a, b);
    let scale = (p[0].abs() + p[1].abs()).max(1e-300);
    (p[2].abs() > 1e-12 * scale).then(|| (p[0] / p[2], p[1] / p[2]))
}

/// Eigen-decomposition of a symmetric n x n matrix (cyclic Jacobi): eigenvalues
/// ascending, with their eigenvectors as rows.
#[allow(clippy::needless_range_loop)] // index pairs (p, q) are the algorithm
pub fn sym_eigen(mut a: Vec<Vec<f64>>) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = a.len();
    let mut v: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for _sweep in 0..60 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        let diag: f64 = (0..n).map(|i| a[i][i] * a[i][i]).sum();
        if off <= 1e-30 * diag.max(1e-300) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                if a[p][q].abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k][p], a[k][q]);
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p][k], a[q][k]);
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for row in v.iter_mut() {
                    let (vp, vq) = (row[p], row[q]);
                    row[p] = c * vp - s * vq;
                    row[q] = s * vp + c * vq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[i][i].total_cmp(&a[j][j]));
    let vals = order.iter().map(|&i| a[i][i]).collect();
    let vecs = order
        .iter()
        .map(|&i| (0..n).map(|k| v[k][i]).collect())
        .collect();
    (vals, vecs)
}

/// The unit vector `x` minimising `sum w (l . x)^2`: the point nearest to all lines
/// (or the line nearest to all points).
pub fn least_squares_null(rows: &[(V3, f64)]) -> Option<V3> {
    let mut m = vec![vec![0.0; 3]; 3];
    for (l, w) in rows {
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += w * l[i] * l[j];
            }
        }
    }
    let (_, vecs) = sym_eigen(m);
    let v = &vecs[0];
    let out = [v[0], v[1], v[2]];
    out.iter().all(|x| x.is_finite()).then_some(out)
}

/// The weighted total-least-squares line through points, normalised.
pub fn fit_line(pts: &[((f64, f64), f64)]) -> Option<V3> {
    let sw: f64 = pts.iter().map(|p| p.1).sum();
    if pts.len() < 2 || sw <= 0.0 {
        return None;
    }
    let mx = pts.iter().map(|((x, _), w)| x * w).sum::<f64>() / sw;
    let my = pts.iter().map(|((_, y), w)| y * w).sum::<f64>() / sw;
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for ((x, y), w) in pts {
        let (dx, dy) = (x - mx, y - my);
        sxx += w * dx * dx;
        sxy += w * dx * dy;
        syy += w * dy * dy;
    }
    // The normal is the eigenvector of the scatter matrix with the smaller eigenvalue.
    let angle = 0.5 * (2.0 * sxy).atan2(sxx - syy);
    let (nx, ny) = (-angle.sin(), angle.cos());
    Some([nx, ny, -(nx * mx + ny * my)])
}

/// The homography mapping `src[i]` to `dst[i]` best in the algebraic least-squares
/// sense (normalised DLT), from four or more correspondences.
pub fn fit_homography(src: &[(f64, f64)], dst: &[(f64, f64)], w: &[f64]) -> Option<Homography> {
    if src.len() < 4 || src.len() != dst.len() || w.len() != src.len() {
        return None;
    }
    let (ts, td) = (normaliser(src)?, normaliser(dst)?);
    let mut m = vec![vec![0.0; 9]; 9];
    for i in 0..src.len() {
        let (x, y) = (ts.0 * (src[i].0 - ts.1), ts.0 * (src[i].1 - ts.2));
        let (u, v) = (td.0 * (dst[i].0 - td.1), td.0 * (dst[i].1 - td.2));
        let r1 = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, -u];
        let r2 = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, -v];
        for r in [r1, r2] {
            for a in 0..9 {
                for b in 0..9 {
                    m[a][b] += w[i] * r[a] * r[b];
                }
            }
        }
    }
    let (_, vecs) = sym_eigen(m);
    let h = &vecs[0];
    let hn = [[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], h[8]]];
    // Undo the normalisations: H = Td^-1 * Hn * Ts.
    let t_s = [
        [ts.0, 0.0, -ts.0 * ts.1],
        [0.0, ts.0, -ts.0 * ts.2],
        [0.0, 0.0, 1.0],
    ];
    let td_inv = [
        [1.0 / td.0, 0.0, td.1],
        [0.0, 1.0 / td.0, td.2],
        [0.0, 0.0, 1.0],
    ];
    let full = mul(&td_inv, &mul(&hn, &t_s));
    let s = full[2][2];
    let full = if s.abs() > 1e-12 {
        full.map(|r| r.map(|v| v / s))
    } else {
        full
    };
    Homography::from_matrix(full)
}

/// Scale and centre that give points mean distance sqrt(2) from the origin.
fn normaliser(p: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n = p.len() as f64;
    let cx = p.iter().map(|q| q.0).sum::<f64>() / n;
    let cy = p.iter().map(|q| q.1).sum::<f64>() / n;
    let d = p
        .iter()
        .map(|q| ((q.0 - cx).powi(2) + (q.1 - cy).powi(2)).sqrt())
        .sum::<f64>()
        / n;
    (d > 1e-12).then(|| (std::f64::consts::SQRT_2 / d, cx, cy))
}

pub fn mul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut r = [[0.0; 3]; 3];
    for (i, row) in r.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_homography_recovers_a_known_map() {
        let truth = Homography::from_points(
            &[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
            &[(100.0, 50.0), (500.0, 80.0), (520.0, 400.0), (60.0, 380.0)],
        )
        .unwrap();
        let src: Vec<(f64, f64)> = (0..5)
            .flat_map(|i| (0..5).map(move |j| (i as f64 / 4.0, j as f64 / 4.0)))
            .collect();
        let dst: Vec<(f64, f64)> = src.iter().map(|&p| truth.apply(p).unwrap()).collect();
        let h = fit_homography(&src, &dst, &vec![1.0; src.len()]).unwrap();
        for (s, d) in src.iter().zip(&dst) {
            let p = h.apply(*s).unwrap();
            assert!((p.0 - d.0).abs() < 1e-6 && (p.1 - d.1).abs() < 1e-6);
        }
    }

    #[test]
    fn eigen_of_a_diagonal_matrix_sorts_ascending() {
        let (vals, vecs) = sym_eigen(vec![
            vec![3.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0],
            vec![0.0, 0.0, 2.0],
        ]);
        assert_eq!(vals, vec![1.0, 2.0, 3.0]);
        assert!((vecs[0][1].abs() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn fitted_line_passes_through_collinear_points() {
        let pts: Vec<_> = (0..10)
            .map(|i| ((i as f64, 2.0 * i as f64 + 1.0), 1.0))
            .collect();
        let l = fit_line(&pts).unwrap();
        for ((x, y), _) in pts {
            assert!(dot(l, [x, y, 1.0]).abs() < 1e-9);
        }
    }
}
