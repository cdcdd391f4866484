//! Settling a checkered grid's run by its colours: a border one cell wide ends in
//! an edge exactly where a grid line would be, so lines alone can take the
//! border for a column of cells. Border cells do not alternate; the board's do.

use opencv::core::Mat;
use opencv::prelude::*;

/// Grey level of a cell: the median of points around its rim, where a piece
/// standing in the middle rarely reaches.
fn cell_value(
    grey: &Mat,
    at: &impl Fn(f64, f64) -> Option<(f64, f64)>,
    u: f64,
    v: f64,
) -> Option<f64> {
    const RIM: [(f64, f64); 8] = [
        (0.15, 0.15),
        (0.85, 0.15),
        (0.15, 0.85),
        (0.85, 0.85),
        (0.5, 0.12),
        (0.5, 0.88),
        (0.12, 0.5),
        (0.88, 0.5),
    ];
    let mut vals = Vec::with_capacity(8);
    for (du, dv) in RIM {
        let (x, y) = at(u + du, v + dv)?;
        let (xi, yi) = (x.round() as i32, y.round() as i32);
        if xi < 0 || yi < 0 || xi >= grey.cols() || yi >= grey.rows() {
            return None;
        }
        let p: u8 = *grey.at_2d(yi, xi).ok()?;
        vals.push(p as f64);
    }
    vals.sort_by(f64::total_cmp);
    Some((vals[3] + vals[4]) / 2.0)
}

/// How strongly each column of cells `k` in `ks` alternates along the rows `0..rows`
/// (mean absolute alternating sum, grey levels).
fn alternation(
    grey: &Mat,
    at: &impl Fn(f64, f64) -> Option<(f64, f64)>,
    ks: std::ops::Range<i64>,
    rows: u32,
) -> Vec<f64> {
    ks.map(|k| {
        let (mut sum, mut n) = (0.0, 0);
        for r in 0..rows {
            if let Some(m) = cell_value(grey, at, k as f64, r as f64) {
                sum += if r % 2 == 0 { m } else { -m };
                n += 1;
            }
        }
        if n < rows.div_ceil(2) {
            0.0
        } else {
            (sum / n as f64).abs() * 2.0
        }
    })
    .collect()
}

/// How checkered a run of `cols` x `rows` cells looks stepping along its rows: the
/// median over its columns of their alternation (grey levels; 0 for plain cells).
pub(crate) fn median_alternation(
    grey: &Mat,
    at: &impl Fn(f64, f64) -> Option<(f64, f64)>,
    cols: u32,
    rows: u32,
) -> f64 {
    let mut alt = alternation(grey, at, 0..cols as i64, rows);
    alt.sort_by(f64::total_cmp);
    alt[alt.len() / 2]
}

/// The shift (-2..=2 cells) of the run of `cols` cell columns that best covers
/// alternating columns, or 0 when the cells do not alternate (a lined board).
/// `at(u, v)` maps lattice cell coordinates (columns, rows from the run's first
/// lines) to working pixels.
pub(crate) fn column_shift(
    grey: &Mat,
    at: &impl Fn(f64, f64) -> Option<(f64, f64)>,
    cols: u32,
    rows: u32,
) -> i64 {
    const S: i64 = 2;
    let alt = alternation(grey, at, -S..cols as i64 + S, rows);
    let window = |s: i64| -> f64 {
        alt[(s + S) as usize..(s + S) as usize + cols as usize]
            .iter()
            .sum()
    };
    let mut inside: Vec<f64> = alt[S as usize..S as usize + cols as usize].to_vec();
    inside.sort_by(f64::total_cmp);
    // Not checkered: leave the lines' choice alone.
    if inside[inside.len() / 2] < 10.0 {
        return 0;
    }
    let best = (-S..=S)
        .max_by(|&a, &b| window(a).total_cmp(&window(b)).then(b.abs().cmp(&a.abs())))
        .unwrap_or(0);
    // Move only for a clear gain: a whole column's worth of alternation.
    if window(best) > window(0) + 0.5 * inside[inside.len() / 2] {
        best
    } else {
        0
    }
}
