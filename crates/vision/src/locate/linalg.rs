//! The least squares location needs: the eigenvectors of small symmetric
//! matrices, the point nearest to lines, lines through points, and homographies
//! from many points. Points, lines and 3x3 matrices are geometry's (`mat3`).

use crate::geometry::mat3::{self, Normaliser, V3};
use crate::geometry::Homography;

/// Eigen-decomposition of a symmetric n x n matrix (cyclic Jacobi): eigenvalues
/// ascending, with their eigenvectors as rows.
#[allow(clippy::needless_range_loop)] // index pairs (p, q) are the algorithm
pub(crate) fn sym_eigen(mut a: Vec<Vec<f64>>) -> (Vec<f64>, Vec<Vec<f64>>) {
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
pub(crate) fn least_squares_null(rows: &[(V3, f64)]) -> Option<V3> {
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
pub(crate) fn fit_line(pts: &[((f64, f64), f64)]) -> Option<V3> {
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
pub(crate) fn fit_homography(
    src: &[(f64, f64)],
    dst: &[(f64, f64)],
    w: &[f64],
) -> Option<Homography> {
    if src.len() < 4 || src.len() != dst.len() || w.len() != src.len() {
        return None;
    }
    let (ts, td) = (Normaliser::of(src)?, Normaliser::of(dst)?);
    let mut m = vec![vec![0.0; 9]; 9];
    for i in 0..src.len() {
        let (x, y) = ts.apply(src[i]);
        let (u, v) = td.apply(dst[i]);
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
    let full = mat3::denormalised(&hn, &ts, &td);
    let s = full[2][2];
    let full = if s.abs() > 1e-12 {
        full.map(|r| r.map(|v| v / s))
    } else {
        full
    };
    Homography::from_matrix(full)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::mat3::dot;

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
