//! Which corner is which. Location alone cannot tell a square board's quarter
//! turns apart, so it reports one canonical order (TL = the corner nearest the
//! image's top left, then clockwise on screen); the game decides the rest.

use crate::geometry::{Corners, GridSpec};

/// Puts corners found in lattice order (first and last column line by first and
/// last row line) into canonical order. `quads[0]..[3]` are TL TR BR BL of the
/// lattice as found, possibly mirrored.
pub(crate) fn canonical(grid: GridSpec, quad: [(f64, f64); 4]) -> [(f64, f64); 4] {
    let mut q = quad;
    if signed_area(&q) < 0.0 {
        // Mirrored: swap the column order, which keeps TL-TR along the columns.
        q = [q[1], q[0], q[3], q[2]];
    }
    let (lr, lc) = grid.lattice_cells();
    // A quarter turn swaps rows and columns, so only a square lattice may take one.
    let turns: &[usize] = if lr == lc { &[0, 1, 2, 3] } else { &[0, 2] };
    let k = turns
        .iter()
        .copied()
        .min_by(|&a, &b| {
            let (pa, pb) = (q[a], q[b]);
            (pa.0 + pa.1).total_cmp(&(pb.0 + pb.1))
        })
        .unwrap_or(0);
    [q[k], q[(k + 1) % 4], q[(k + 2) % 4], q[(k + 3) % 4]]
}

/// Twice the signed area, positive for clockwise on screen (y down).
fn signed_area(p: &[(f64, f64); 4]) -> f64 {
    (0..4)
        .map(|i| {
            let (a, b) = (p[i], p[(i + 1) % 4]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum()
}

/// The quarter turns a grid may be found in: any for a square grid, a half turn
/// for an oblong one (a quarter turn would swap its rows and columns).
pub fn allowed_turns(grid: GridSpec) -> &'static [usize] {
    let (lr, lc) = grid.lattice_cells();
    if lr == lc {
        &[0, 1, 2, 3]
    } else {
        &[0, 2]
    }
}

/// `found` turned by the allowed quarter turn that puts its corners nearest
/// `like`'s: keeps sites' names when the same board is found again, or matches
/// an annotation.
pub fn turned_like(grid: GridSpec, found: &Corners, like: &Corners) -> Corners {
    let gap = |c: &Corners| -> f64 {
        c.points()
            .iter()
            .zip(like.points())
            .map(|(a, b)| (a.0 - b.0).hypot(a.1 - b.1))
            .sum()
    };
    allowed_turns(grid)
        .iter()
        .map(|&k| found.rotated(k))
        .min_by(|a, b| gap(a).total_cmp(&gap(b)))
        .unwrap_or(*found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_starts_top_left_and_runs_clockwise() {
        let g = GridSpec::cells(8, 8);
        // Found starting at the bottom right, anticlockwise.
        let found = [
            (500.0, 400.0),
            (500.0, 100.0),
            (100.0, 100.0),
            (100.0, 400.0),
        ];
        let c = canonical(g, found);
        assert_eq!(c[0], (100.0, 100.0));
        assert_eq!(c[1], (500.0, 100.0));
        assert_eq!(c[2], (500.0, 400.0));
    }

    #[test]
    fn a_long_grid_keeps_its_columns_along_the_top() {
        let g = GridSpec::cells(3, 9);
        // Columns run down the image here, so TL-TR must follow them.
        let found = [(100.0, 400.0), (100.0, 50.0), (200.0, 50.0), (200.0, 400.0)];
        let c = canonical(g, found);
        let d = |a: (f64, f64), b: (f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
        assert!(d(c[0], c[1]) > d(c[1], c[2]));
    }
}
