//! Automatic board location: the four corners of the playing grid in a frame,
//! from the grid spec alone.
//!
//! Classical and training-free: edge segments, two families converging on
//! vanishing points, an equally spaced lattice of exactly the board's line count
//! fitted in the affinely rectified view, then a least-squares refinement on every
//! segment that lies along a grid line. See `docs` of each stage.

pub(crate) mod across;
mod all;
mod checker;
mod lattice;
mod linalg;
mod lsd;
mod order;
mod profile;
mod refine;
mod segments;
mod subpixel;
mod vanishing;

use opencv::core::Mat;
use opencv::prelude::*;

use crate::geometry::{Corners, GridSpec, Homography};

pub use across::apart_cells;
pub(crate) use across::Across;
pub(crate) use across::Look;
pub(crate) use across::Sampling;
pub use all::{locate_all, Board};
pub(crate) use order::canonical;
pub use order::{allowed_turns, turned_like};

/// A located grid: corners TL TR BR BL in canonical order (TL nearest the image's
/// top left, clockwise) and a confidence from 0 to 1, the share of the grid's lines
/// seen in the image.
#[derive(Clone, Copy, Debug)]
pub struct Located {
    /// The grid's corners, TL TR BR BL.
    pub corners: Corners,
    /// How sure the finder is, 0 to 1.
    pub confidence: f64,
}

/// Why no grid was found in an image.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LocateError {
    /// An image without pixels.
    #[error("the image is empty")]
    EmptyImage,
    /// No grid of this size was found in the image.
    #[error("no {0} grid found")]
    NotFound(GridSpec),
    /// None of several grids was found in the image.
    #[error("no {} grid found", grid_list(.0))]
    NoneOf(Vec<GridSpec>),
    /// No grid was given to look for.
    #[error("no grid to look for")]
    NoGrids,
    /// OpenCV failed.
    #[error("OpenCV: {0}")]
    OpenCv(String),
}

/// Grids as a reader says them: "8x8, 9x9 or 19x19:points".
fn grid_list(grids: &[GridSpec]) -> String {
    let names: Vec<String> = grids.iter().map(|g| g.to_string()).collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

impl From<opencv::Error> for LocateError {
    fn from(e: opencv::Error) -> Self {
        LocateError::OpenCv(e.message)
    }
}

/// Below this share of grid lines seen, a lattice is more likely chance than a board.
pub(crate) const MIN_CONFIDENCE: f64 = 0.15;

/// A lattice with fewer lines seen, down to this share (a Go board under many
/// stones), is still taken when, with its runs moved up to `RIDGE_SHIFT` lines to
/// where its lines show the most ridge, at least `MIN_RIDGE_SUPPORT` of its lines'
/// stretches between crossings are thin ridges in each family (see
/// `profile::support_shift`); a table's planks show them in one family only.
const MIN_RIDGED_CONFIDENCE: f64 = 0.03;
const MIN_RIDGE_SUPPORT: f64 = 0.5;
const RIDGE_SHIFT: i64 = 8;

/// A Go board's lattice with fewer lines seen than this share is taken only where
/// its four outermost lines show, on average, at least `MIN_EDGE_SUPPORT` ridge
/// support (see `profile::edge_support`): a lattice run a line or more past the
/// board has its outermost lines on the board's edge, its side or the table.
const EDGES_CHECKED_BELOW: f64 = 0.25;
const MIN_EDGE_SUPPORT: f64 = 0.45;

/// Finds the grid `grid` in a BGR or grey image.
pub fn locate(image: &Mat, grid: GridSpec) -> Result<Located, LocateError> {
    let work = segments::work_image(image)?;
    let segs = detect(&work.grey, Detector::of(grid))?;
    locate_among(&work, &segs, grid).map(|(l, _)| l)
}

/// Which segments a grid is searched among.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Detector {
    /// The fast line detector at full working resolution.
    Fast,
    /// The line segment detector on the working image shrunk by this factor.
    Lsd(f64),
}

impl Detector {
    /// Dense grids' thin lines need full resolution. A Go board's segments come
    /// from the fast detector (a third of LSD's time, and more boards found), whose
    /// whole-pixel placement the ridges make up for.
    pub(crate) fn of(grid: GridSpec) -> Detector {
        let (lr, lc) = grid.lattice_cells();
        let dense = lr.max(lc) > 12;
        if dense && grid.points {
            Detector::Fast
        } else if dense {
            Detector::Lsd(1.0)
        } else {
            Detector::Lsd(segments::SPARSE_SCALE)
        }
    }
}

/// The segments of the working image `grey` that `detector` finds.
pub(crate) fn detect(
    grey: &Mat,
    detector: Detector,
) -> Result<Vec<segments::Segment>, LocateError> {
    match detector {
        Detector::Fast => segments::detect_fast(grey, 8.0),
        Detector::Lsd(scale) => segments::detect(grey, 8.0, scale),
    }
}

/// Finds the grid `grid` in the working image `work` among the segments `segs`
/// (those `Detector::of(grid)` finds there, or some of them), with the lattice's
/// rank (see `Fit::rank`).
pub(crate) fn locate_among(
    work: &segments::WorkImage,
    segs: &[segments::Segment],
    grid: GridSpec,
) -> Result<(Located, f64), LocateError> {
    let (w, h) = (work.grey.cols(), work.grey.rows());
    let (lr, lc) = grid.lattice_cells();
    let frame = vanishing::Frame::new(w, h);
    let not_found = || LocateError::NotFound(grid);
    // A Go board: many thin lines, sharpened on their ridges in the end.
    let go = lr.max(lc) > 12 && grid.points;
    let best = fit_lattice(segs, frame, grid);
    let mut fit = best.ok_or_else(not_found)?;
    if fit.score < MIN_RIDGED_CONFIDENCE {
        return Err(not_found());
    }
    undo_half_pitch(&work.grey, &mut fit, (lr, lc));
    let at = |u: f64, v: f64| fit.point(u, v);
    let ds = checker::column_shift(&work.grey, &at, lc, lr);
    let at_t = |u: f64, v: f64| fit.point(v, u);
    let dr = checker::column_shift(&work.grey, &at_t, lr, lc);
    fit.cols.0.k0 += ds;
    fit.rows.0.k0 += dr;
    let (c, r) = (lc as f64, lr as f64);
    let quad = [
        fit.point(0.0, 0.0),
        fit.point(c, 0.0),
        fit.point(c, r),
        fit.point(0.0, r),
    ];
    let [Some(a), Some(b), Some(c), Some(d)] = quad else {
        return Err(not_found());
    };
    let (score, rank) = (fit.score, fit.rank);
    let quad = [a, b, c, d];
    let quad = canonical(grid, quad);
    let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    let coarse = Homography::from_points(&unit, &quad).ok_or_else(not_found)?;
    // A lined grid's run, settled by the ridges of its lines; a grid of points is
    // lined by its spec.
    let (dc, dr) = profile::run_shift(&work.grey, &coarse, (lr, lc), grid.points);
    let mut coarse = profile::shifted(&coarse, (lr, lc), dc, dr).unwrap_or(coarse);
    // Few lines seen: the runs moved to where the lines show the most ridge, and
    // taken only where those are ridges in both families.
    if score < MIN_CONFIDENCE {
        let (dc, dr, support) = profile::support_shift(&work.grey, &coarse, (lr, lc), RIDGE_SHIFT);
        coarse = profile::shifted(&coarse, (lr, lc), dc, dr).unwrap_or(coarse);
        if support < MIN_RIDGE_SUPPORT {
            return Err(not_found());
        }
    }
    let mut fine = refine::by_lines(&coarse, (lr, lc), segs);
    if go {
        if score < EDGES_CHECKED_BELOW {
            let edges = profile::edge_support(&work.grey, &fine, (lr, lc));
            if edges.iter().sum::<f64>() < 4.0 * MIN_EDGE_SUPPORT {
                return Err(not_found());
            }
        }
        fine = subpixel::by_ridges(&work.grey, &fine, (lr, lc));
    }
    let s = work.scale;
    let full = unit.map(|u| {
        let p = fine.apply(u).unwrap_or((f64::NAN, f64::NAN));
        // Working pixel centres sit at (i + 0.5) s - 0.5 in the original.
        ((p.0 + 0.5) * s - 0.5, (p.1 + 0.5) * s - 0.5)
    });
    let corners = Corners::new(canonical(grid, full)).map_err(|_| not_found())?;
    Ok((
        Located {
            corners,
            confidence: score,
        },
        rank,
    ))
}

/// Cells of a checkered board alternate at least this much (grey levels) where the
/// run's pitch is right, and less than `HALF_PITCH_ALTERNATION` stepping across a
/// family fitted at half the pitch (two runs of cells in each real one).
const CHECKERED_ALTERNATION: f64 = 20.0;
const HALF_PITCH_ALTERNATION: f64 = 10.0;

/// A checkered board whose outer rows stand full of pieces (the start of a chess
/// game) shows its lines only between them, and a run of the grid's line count at
/// half the pitch fits those lines as well as the true one: every line, and one
/// between each pair. Its cells then alternate along the other family but not
/// across this one. Such a family is given twice its pitch, its run placed where
/// the cells alternate most (over the old run and up to its own length before it).
fn undo_half_pitch(grey: &Mat, fit: &mut Fit, (lr, lc): (u32, u32)) {
    // Alternation stepping across the rows family's lines (true) or the columns'.
    let alt = |f: &Fit, rows: bool| {
        if rows {
            checker::median_alternation(grey, &|u, v| f.point(u, v), lc, lr)
        } else {
            checker::median_alternation(grey, &|u, v| f.point(v, u), lr, lc)
        }
    };
    let (rows_alt, cols_alt) = (alt(fit, true), alt(fit, false));
    for rows_family in [true, false] {
        let (this, other, n) = if rows_family {
            (rows_alt, cols_alt, lr)
        } else {
            (cols_alt, rows_alt, lc)
        };
        if this >= HALF_PITCH_ALTERNATION || other < CHECKERED_ALTERNATION {
            continue;
        }
        let old = fit.family(rows_family);
        let doubled = lattice::Lattice {
            d: 2.0 * old.d,
            o: old.o + old.k0 as f64 * old.d,
            k0: 0,
            ..old
        };
        let best = (-(n as i64 / 2)..=0)
            .map(|k0| {
                let mut f = fit.clone();
                f.set_family(rows_family, lattice::Lattice { k0, ..doubled });
                (alt(&f, rows_family), f)
            })
            .max_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((a, f)) = best {
            if a >= CHECKERED_ALTERNATION {
                *fit = f;
                return;
            }
        }
    }
}

/// The best lattice of `grid`'s line counts among the segments, by mean coverage.
fn fit_lattice(segs: &[segments::Segment], frame: vanishing::Frame, grid: GridSpec) -> Option<Fit> {
    let (lr, lc) = grid.lattice_cells();
    let nsegs: Vec<_> = segs.iter().map(|s| frame.segment(s)).collect();
    let fams = vanishing::families(&nsegs, 1.5 / frame.f, 0.1, 4);
    let (n_cols, n_rows) = (lc as usize + 1, lr as usize + 1);
    let mut best: Option<Fit> = None;
    for i in 0..fams.len() {
        for j in i + 1..fams.len() {
            let (f1, f2) = (&fams[i], &fams[j]);
            let (d1, d2) = (f1.direction_at((0.0, 0.0)), f2.direction_at((0.0, 0.0)));
            if (d1.0 * d2.1 - d1.1 * d2.0).abs() < 0.35 {
                continue;
            }
            let Some(aff) = lattice::Affine::new(f1.vp, f2.vp) else {
                continue;
            };
            let (n1, n2) = (aff.normal(f1.vp), aff.normal(f2.vp));
            let obs1 = lattice::observe(&nsegs, f1, &aff, n1, n2);
            let obs2 = lattice::observe(&nsegs, f2, &aff, n2, n1);
            let mut assignments = vec![(n_cols, n_rows, true)];
            if n_cols != n_rows {
                assignments.push((n_rows, n_cols, false));
            }
            for (c1, c2, f1_is_cols) in assignments {
                let eps = 1.2 / frame.f;
                let range = |n: usize| {
                    (
                        (0.12 / (n - 1) as f64).max(3.5 / frame.f),
                        3.0 / (n - 1) as f64,
                    )
                };
                let h1 = lattice::hypotheses(&obs1, c1, range(c1), eps);
                let h2 = lattice::hypotheses(&obs2, c2, range(c2), eps);
                let Some((l1, l2, score, rank)) = lattice::joint(&obs1, &h1, c1, &obs2, &h2, c2)
                else {
                    continue;
                };
                if best.as_ref().is_some_and(|b| b.score >= score) {
                    continue;
                }
                let (cols, rows) = if f1_is_cols {
                    ((l1, n1), (l2, n2))
                } else {
                    ((l2, n2), (l1, n1))
                };
                best = Some(Fit {
                    aff,
                    frame,
                    cols,
                    rows,
                    score,
                    rank,
                });
            }
        }
    }
    best
}

/// A lattice fitted in the affinely rectified view: the column lines' run and their
/// normal, the row lines' run and theirs.
#[derive(Clone)]
struct Fit {
    aff: lattice::Affine,
    frame: vanishing::Frame,
    cols: (lattice::Lattice, (f64, f64)),
    rows: (lattice::Lattice, (f64, f64)),
    score: f64,
    /// The pair's score in the lattice search (see `lattice::joint`), which
    /// tells a grid from a run of fewer lines within a larger one.
    rank: f64,
}

impl Fit {
    /// The rows family's run (true) or the columns'.
    fn family(&self, rows: bool) -> lattice::Lattice {
        if rows {
            self.rows.0
        } else {
            self.cols.0
        }
    }

    fn set_family(&mut self, rows: bool, l: lattice::Lattice) {
        if rows {
            self.rows.0 = l;
        } else {
            self.cols.0 = l;
        }
    }

    /// Working pixel of lattice point (u, v): u column lines and v row lines from the
    /// runs' first lines (fractions allowed).
    fn point(&self, u: f64, v: f64) -> Option<(f64, f64)> {
        let ((lc, nc), (lr, nr)) = (self.cols, self.rows);
        let a = lc.o + (lc.k0 as f64 + u) * lc.d;
        let b = lr.o + (lr.k0 as f64 + v) * lr.d;
        let det = nc.0 * nr.1 - nc.1 * nr.0;
        if det.abs() < 1e-9 {
            return None;
        }
        let q = ((a * nr.1 - b * nc.1) / det, (nc.0 * b - nr.0 * a) / det);
        Some(self.frame.to_px(self.aff.inverse(q)?))
    }
}
