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

/// The order boards are numbered in: rows from the top, each from the left. A
/// board joins a row when its centre lies within half a board's height (the
/// taller of it and the row's boards so far) of the row's mean centre height;
/// boards are taken from the top. `boxes` holds each board's centre and height.
pub(crate) fn reading_order(boxes: &[((f64, f64), f64)]) -> Vec<usize> {
    let mut by_height: Vec<usize> = (0..boxes.len()).collect();
    by_height.sort_by(|&a, &b| boxes[a].0 .1.total_cmp(&boxes[b].0 .1));
    // Each row: its boards, the sum of their centres' heights, the tallest.
    let mut rows: Vec<(Vec<usize>, f64, f64)> = Vec::new();
    for i in by_height {
        let ((_, y), h) = boxes[i];
        let joins = rows.last().is_some_and(|(members, sum, tallest)| {
            (y - sum / members.len() as f64).abs() < 0.5 * tallest.max(h)
        });
        match rows.last_mut() {
            Some((members, sum, tallest)) if joins => {
                members.push(i);
                *sum += y;
                *tallest = tallest.max(h);
            }
            _ => rows.push((vec![i], y, h)),
        }
    }
    rows.into_iter()
        .flat_map(|(mut members, _, _)| {
            members.sort_by(|&a, &b| boxes[a].0 .0.total_cmp(&boxes[b].0 .0));
            members
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_are_numbered_in_rows_from_the_top_each_from_the_left() {
        // Four boards, the right-hand ones a little higher (a camera turned a
        // little), given in no order.
        let boxes = [
            ((1400.0, 760.0), 400.0),
            ((500.0, 300.0), 420.0),
            ((1450.0, 250.0), 400.0),
            ((520.0, 800.0), 410.0),
        ];
        assert_eq!(reading_order(&boxes), vec![1, 2, 3, 0]);
        // Two side by side, one much smaller: still one row.
        let pair = [((1500.0, 560.0), 300.0), ((480.0, 520.0), 850.0)];
        assert_eq!(reading_order(&pair), vec![1, 0]);
        assert!(reading_order(&[]).is_empty());
    }

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
