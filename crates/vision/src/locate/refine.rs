//! Sharpening a coarse grid: every segment that lies along a lattice line (judged in
//! board space, so tolerances are in cells whatever the perspective) is assigned to
//! it, each line is refitted, and the homography is fitted to all their crossings.

use super::linalg::{fit_homography, fit_line};
use super::segments::Segment;
use crate::geometry::mat3::{meet, V3};
use crate::geometry::Homography;

/// Board units (unit square) to working pixels, refined. `cells` is (rows, cols)
/// of the lattice.
pub(crate) fn by_lines(h: &Homography, cells: (u32, u32), segs: &[Segment]) -> Homography {
    let mut h = *h;
    for tol in [0.15, 0.08, 0.06] {
        match refit(&h, cells, segs, tol) {
            Some(next) => h = next,
            None => break,
        }
    }
    h
}

fn refit(h: &Homography, (lr, lc): (u32, u32), segs: &[Segment], tol: f64) -> Option<Homography> {
    let (nr, nc) = (lr as f64, lc as f64);
    // Points along each column line (x = i) and row line (y = j), with weights.
    let mut cols: Vec<Vec<((f64, f64), f64)>> = vec![Vec::new(); lc as usize + 1];
    let mut rows: Vec<Vec<((f64, f64), f64)>> = vec![Vec::new(); lr as usize + 1];
    let mut col_span = vec![0.0; lc as usize + 1];
    let mut row_span = vec![0.0; lr as usize + 1];
    for s in segs {
        let (Some(a), Some(b)) = (h.apply_inverse(s.a), h.apply_inverse(s.b)) else {
            continue;
        };
        let (a, b) = ((a.0 * nc, a.1 * nr), (b.0 * nc, b.1 * nr));
        let (du, dv) = ((b.0 - a.0).abs(), (b.1 - a.1).abs());
        let w = s.len();
        let along = |p: f64, q: f64, n: f64| p.max(q) > -0.2 && p.min(q) < n + 0.2;
        if dv > 2.0 * du && dv > 0.2 {
            let k = a.0.round();
            if (a.0 - k).abs() < tol
                && (b.0 - k).abs() < tol
                && (0.0..=nc).contains(&k)
                && along(a.1, b.1, nr)
            {
                let v = &mut cols[k as usize];
                v.push((s.a, w));
                v.push((s.b, w));
                col_span[k as usize] += dv;
            }
        } else if du > 2.0 * dv && du > 0.2 {
            let k = a.1.round();
            if (a.1 - k).abs() < tol
                && (b.1 - k).abs() < tol
                && (0.0..=nr).contains(&k)
                && along(a.0, b.0, nc)
            {
                let v = &mut rows[k as usize];
                v.push((s.a, w));
                v.push((s.b, w));
                row_span[k as usize] += du;
            }
        }
    }
    let fitted = |pts: &[((f64, f64), f64)], span: f64| -> Option<V3> {
        (span >= 0.5).then(|| fit_line(pts)).flatten()
    };
    let col_lines: Vec<Option<V3>> = cols
        .iter()
        .zip(&col_span)
        .map(|(p, &s)| fitted(p, s))
        .collect();
    let row_lines: Vec<Option<V3>> = rows
        .iter()
        .zip(&row_span)
        .map(|(p, &s)| fitted(p, s))
        .collect();
    from_lines(h, (lr, lc), &col_lines, &row_lines)
}

/// The homography fitted to the crossings of the refitted image lines: column line
/// `i` is `col_lines[i]` and row line `j` `row_lines[j]` where fitted; a missing
/// line is taken where `h` predicts it, with little weight. `None` for fewer than
/// four fitted lines.
pub(crate) fn from_lines(
    h: &Homography,
    (lr, lc): (u32, u32),
    col_lines: &[Option<V3>],
    row_lines: &[Option<V3>],
) -> Option<Homography> {
    let (nr, nc) = (lr as f64, lc as f64);
    let fitted_count = col_lines.iter().chain(row_lines).flatten().count();
    if fitted_count < 4 {
        return None;
    }
    let predicted = |board_line: V3| -> V3 {
        // A line maps by the inverse transpose of the point map.
        let m = h.inverse().matrix();
        [
            m[0][0] * board_line[0] + m[1][0] * board_line[1] + m[2][0] * board_line[2],
            m[0][1] * board_line[0] + m[1][1] * board_line[1] + m[2][1] * board_line[2],
            m[0][2] * board_line[0] + m[1][2] * board_line[1] + m[2][2] * board_line[2],
        ]
    };
    let (mut src, mut dst, mut wts) = (Vec::new(), Vec::new(), Vec::new());
    for (i, cl) in col_lines.iter().enumerate() {
        for (j, rl) in row_lines.iter().enumerate() {
            let u = (i as f64 / nc, j as f64 / nr);
            let w = match (cl, rl) {
                (Some(_), Some(_)) => 1.0,
                (Some(_), None) | (None, Some(_)) => 0.2,
                (None, None) => 0.02,
            };
            let c = cl.unwrap_or_else(|| predicted([1.0, 0.0, -u.0]));
            let r = rl.unwrap_or_else(|| predicted([0.0, 1.0, -u.1]));
            let Some(p) = meet(c, r) else { continue };
            src.push(u);
            dst.push(p);
            wts.push(w);
        }
    }
    fit_homography(&src, &dst, &wts)
}
