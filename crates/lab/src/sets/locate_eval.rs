//! Measuring location: corner error in cells on rendered scenes (by camera
//! elevation) and on the hand-annotated real photos, and the time it takes.

use std::path::Path;

use opencv::core::Mat;
use opencv::prelude::*;

use crate::cputime::thread_cpu_ms;
use crate::geometry::{rectify, BoardPose, Corners, GridSpec, RectifyLayout};
use crate::sets::{annotated_set, random_state, rgb_to_bgr_mat};
use crate::synth::{PieceKind, RandomRanges, Rng, SceneParams};

use crate::locate::locate;

/// One located frame: its worst corner's error in cells (`None` when nothing was
/// found) and the time location took: this thread's CPU time, which other work on
/// a shared machine barely moves (callers keep OpenCV on this thread).
#[derive(Clone, Debug)]
pub struct Trial {
    pub elevation_deg: f64,
    pub error_cells: Option<f64>,
    pub ms: f64,
    /// What was found, for overlays of the misses.
    pub found: Option<Corners>,
}

/// The worst corner's distance from the truth, in mean cell sides of the truth,
/// under the best of the orderings the grid allows (location cannot tell a square
/// board's quarter turns apart).
pub fn corner_error(grid: GridSpec, found: &Corners, truth: &Corners) -> f64 {
    let cell = BoardPose::new(grid, *truth).mean_cell_px();
    let (f, t) = (found.points(), truth.points());
    crate::locate::allowed_turns(grid)
        .iter()
        .map(|&k| {
            (0..4)
                .map(|i| {
                    let (a, b) = (f[(i + k) % 4], t[i]);
                    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
                })
                .fold(0.0, f64::max)
        })
        .fold(f64::INFINITY, f64::min)
        / cell
}

/// For a checkered board: whether the cell at the pose's TL corner is the light
/// colour. `None` when the cells do not alternate clearly (a lined board, or a
/// wrong pose). Medians over cells keep pieces from deciding it.
pub fn tl_cell_is_light(image: &Mat, pose: &BoardPose) -> Option<bool> {
    let layout = RectifyLayout::new(16, 0.0);
    let top = rectify(image, pose, &layout).ok()?;
    let mut grey = Mat::default();
    if top.channels() == 3 {
        opencv::imgproc::cvt_color_def(&top, &mut grey, opencv::imgproc::COLOR_BGR2GRAY).ok()?;
    } else {
        grey = top;
    }
    // The lattice the corners span: a points grid's crossings bound one cell fewer.
    let grid = pose.grid();
    let (lr, lc) = if grid.points {
        (grid.rows - 1, grid.cols - 1)
    } else {
        (grid.rows, grid.cols)
    };
    let (mut even, mut odd) = (Vec::new(), Vec::new());
    for r in 0..lr as i32 {
        for c in 0..lc as i32 {
            // The ring just inside the cell's border: a piece standing in the
            // middle hides the centre, rarely the corners.
            let mut vals = Vec::new();
            for (dy, dx) in [(3, 3), (3, 12), (12, 3), (12, 12), (3, 8), (12, 8)] {
                let v: u8 = *grey.at_2d(r * 16 + dy, c * 16 + dx).ok()?;
                vals.push(v as f64);
            }
            vals.sort_by(f64::total_cmp);
            let m = (vals[2] + vals[3]) / 2.0;
            if (r + c) % 2 == 0 {
                even.push(m);
            } else {
                odd.push(m);
            }
        }
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (e, o) = (med(&mut even), med(&mut odd));
    ((e - o).abs() > 12.0).then_some(e > o)
}

pub(crate) fn piece_kinds(grid: GridSpec) -> &'static [PieceKind] {
    use crate::sets::synthetic::{CHESS, DRAUGHTS, STONES, TABLUT};
    match (grid.points, grid.rows) {
        (true, _) => STONES,
        (false, 8) => CHESS,
        (false, 9) => TABLUT,
        _ => DRAUGHTS,
    }
}

/// Renders one random scene of `grid` (any style, table, light and pose within
/// `elevation`), with pieces on a random share of the sites, and locates it.
pub fn synth_trial(
    grid: GridSpec,
    seed: u64,
    size: (u32, u32),
    elevation: (f64, f64),
) -> anyhow::Result<(Trial, opencv::core::Mat)> {
    let mut rng = Rng::new(seed);
    let ranges = RandomRanges {
        sizes: vec![size],
        elevation_deg: elevation,
        ..RandomRanges::default()
    };
    let (rows, cols) = (grid.rows as usize, grid.cols as usize);
    let params = SceneParams::random(rows, cols, grid.points, &mut rng, &ranges);
    scene_trial(grid, &params, &mut rng)
}

/// Renders `params` (whose grid must be `grid`) with pieces on a random share of
/// the sites, and locates it.
pub fn scene_trial(
    grid: GridSpec,
    params: &SceneParams,
    rng: &mut Rng,
) -> anyhow::Result<(Trial, opencv::core::Mat)> {
    let fill = rng.range(0.05, 0.6);
    let state = random_state(grid, fill, piece_kinds(grid), rng);
    let rendered = crate::synth::render(params, &state, None)?;
    let image = rgb_to_bgr_mat(&rendered.image)?;
    let truth = Corners::new(rendered.corners.map(|[x, y]| (x, y)))?;
    let c0 = thread_cpu_ms();
    let found = locate(&image, grid);
    let ms = thread_cpu_ms() - c0;
    let found = found.ok().map(|l| l.corners);
    Ok((
        Trial {
            elevation_deg: params.camera.elevation_deg,
            error_cells: found.map(|c| corner_error(grid, &c, &truth)),
            ms,
            found,
        },
        image,
    ))
}

/// Summary figures of a set of trials, one line.
pub fn summary(trials: &[Trial]) -> String {
    if trials.is_empty() {
        return "no frames".into();
    }
    let n = trials.len();
    let mut errs: Vec<f64> = trials.iter().filter_map(|t| t.error_cells).collect();
    errs.sort_by(f64::total_cmp);
    let within = errs.iter().filter(|&&e| e < 0.25).count();
    let mut ms: Vec<f64> = trials.iter().map(|t| t.ms).collect();
    ms.sort_by(f64::total_cmp);
    let (mean, p95) = if errs.is_empty() {
        (f64::NAN, f64::NAN)
    } else {
        let p = ((errs.len() as f64 * 0.95).ceil() as usize).clamp(1, errs.len()) - 1;
        (errs.iter().sum::<f64>() / errs.len() as f64, errs[p])
    };
    format!(
        "frames {n:4}  found {:5.1}%  within 1/4 cell {:5.1}%  worst-corner error (cells) mean {mean:.3} p95 {p95:.3}  median {:.0} ms CPU",
        100.0 * errs.len() as f64 / n as f64,
        100.0 * within as f64 / n as f64,
        ms[n / 2],
    )
}

/// Elevation bands the synthetic report splits by.
pub const BANDS: [(f64, f64); 4] = [(30.0, 45.0), (45.0, 60.0), (60.0, 75.0), (75.0, 90.01)];

/// Locates every annotated photo of one real set; `Err` when the set is absent.
pub fn real_trials(
    data: &Path,
    corners_file: &Path,
    set: &str,
    mut each: impl FnMut(&str, &Trial),
) -> anyhow::Result<Vec<Trial>> {
    let refs = annotated_set(data, corners_file, set)?;
    let mut out = Vec::new();
    for r in refs {
        let img = r.load()?;
        let grid = r.pose.grid();
        let c0 = thread_cpu_ms();
        let found = locate(&img.image, grid);
        let ms = thread_cpu_ms() - c0;
        let found = found.ok().map(|l| l.corners);
        let t = Trial {
            elevation_deg: f64::NAN,
            error_cells: found.map(|c| corner_error(grid, &c, &r.pose.corners())),
            ms,
            found,
        };
        each(&r.name, &t);
        out.push(t);
    }
    Ok(out)
}

/// One composited table of several boards, located with `locate_all`.
#[derive(Clone, Debug)]
pub struct TableTrial {
    /// Per board of the truth, in its order: the worst-corner error (cells) of the
    /// board found nearest it as the same grid (`None`: none found as its grid).
    pub errors: Vec<Option<f64>>,
    /// Boards found within `TABLE_WITHIN_CELLS` of none of the truth's.
    pub extra: usize,
    /// Boards found where there is none: their centre on no board of the truth
    /// (the rest of `extra` lie on a board, placed wrong).
    pub invented: usize,
    /// Whether the boards found near the truth's came in the truth's order.
    pub in_order: bool,
    /// This thread's CPU time for `locate_all`.
    pub ms: f64,
    /// What was found: grid and corners, in the order found.
    pub found: Vec<(GridSpec, Corners)>,
    /// The confidence of each board found, in the same order.
    pub confidences: Vec<f64>,
    /// The boards of the table: grid and corners, in reading order.
    pub truth: Vec<(GridSpec, Corners)>,
    /// With `alone`: per board of the truth, the error of `locate` on its slot of
    /// the frame alone (`None`: not found): whether a miss is the table's doing.
    pub alone: Vec<Option<f64>>,
}

/// A board of a table counts as located within this many cells of the truth.
pub const TABLE_WITHIN_CELLS: f64 = 0.3;

/// Composites a table of `boards` boards (see `tables::composite_table`), locates
/// every board in it as any of the grids it holds, and compares.
pub fn table_trial(
    seed: u64,
    boards: usize,
    size: (u32, u32),
    mixed: bool,
    alone: bool,
) -> anyhow::Result<(TableTrial, Mat)> {
    let frame = crate::sets::tables::composite_table(seed, boards, size, mixed)?;
    let image = rgb_to_bgr_mat(&frame.image)?;
    let mut grids: Vec<GridSpec> = Vec::new();
    for b in &frame.boards {
        if !grids.contains(&b.grid) {
            grids.push(b.grid);
        }
    }
    let c0 = thread_cpu_ms();
    let found = crate::locate::locate_all(&image, &grids);
    let ms = thread_cpu_ms() - c0;
    let found = found.unwrap_or_default();
    let confidences = found.iter().map(|b| b.located.confidence).collect();
    let found: Vec<(GridSpec, Corners)> =
        found.iter().map(|b| (b.grid, b.located.corners)).collect();
    let truth: Vec<(GridSpec, Corners)> =
        frame.boards.iter().map(|b| (b.grid, b.corners)).collect();
    let mut trial = TableTrial {
        confidences,
        ..compare_table(&truth, &found, ms)
    };
    if alone {
        for b in &frame.boards {
            let (x, y, w, h) = b.slot;
            let rect = opencv::core::Rect::new(x as i32, y as i32, w as i32, h as i32);
            let crop = Mat::roi(&image, rect)?.try_clone()?;
            let shift = b.corners.points().map(|p| (p.0 - x as f64, p.1 - y as f64));
            let truth = Corners::new(shift)?;
            let found = locate(&crop, b.grid).ok();
            trial
                .alone
                .push(found.map(|l| corner_error(b.grid, &l.corners, &truth)));
        }
    }
    Ok((trial, image))
}

/// Matches boards found to the truth's: errors per truth board, extra boards, order.
pub fn compare_table(
    truth: &[(GridSpec, Corners)],
    found: &[(GridSpec, Corners)],
    ms: f64,
) -> TableTrial {
    let err = |t: &(GridSpec, Corners), f: &(GridSpec, Corners)| {
        (t.0 == f.0).then(|| corner_error(t.0, &f.1, &t.1))
    };
    let mut errors = Vec::new();
    let mut at = Vec::new();
    for t in truth {
        let best = found
            .iter()
            .enumerate()
            .filter_map(|(i, f)| err(t, f).map(|e| (i, e)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        errors.push(best.map(|b| b.1));
        if let Some((i, _)) = best.filter(|b| b.1 < TABLE_WITHIN_CELLS) {
            at.push(i);
        }
    }
    let extra = found
        .iter()
        .filter(|f| {
            !truth
                .iter()
                .any(|t| err(t, f).is_some_and(|e| e < TABLE_WITHIN_CELLS))
        })
        .count();
    let invented = found
        .iter()
        .filter(|f| !truth.iter().any(|t| quad_contains(&t.1, centre(&f.1))))
        .count();
    TableTrial {
        errors,
        extra,
        invented,
        in_order: at.windows(2).all(|w| w[0] < w[1]),
        ms,
        found: found.to_vec(),
        confidences: Vec::new(),
        truth: truth.to_vec(),
        alone: Vec::new(),
    }
}

fn centre(c: &Corners) -> (f64, f64) {
    let p = c.points();
    (
        p.iter().map(|q| q.0).sum::<f64>() / 4.0,
        p.iter().map(|q| q.1).sum::<f64>() / 4.0,
    )
}

/// Whether `p` lies inside the quadrilateral `c` (convex, either winding).
fn quad_contains(c: &Corners, p: (f64, f64)) -> bool {
    in_quad(&c.points(), p)
}

/// Whether `p` lies inside the convex quadrilateral `q` (either winding).
pub(crate) fn in_quad(q: &[(f64, f64); 4], p: (f64, f64)) -> bool {
    let sides: Vec<f64> = (0..4)
        .map(|i| {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
        })
        .collect();
    sides.iter().all(|&s| s > 0.0) || sides.iter().all(|&s| s < 0.0)
}
