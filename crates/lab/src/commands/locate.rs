//! `boardscribe-lab locate`: how well `locate` finds grids, measured on rendered
//! scenes by elevation band and on the annotated real photos.

use std::path::PathBuf;

use clap::Args;

use boardscribe_cli::write_image;

use crate::geometry::{draw_overlay, BoardPose, GridSpec};
use crate::sets::locate_eval::{real_trials, summary, synth_trial, Trial, BANDS};

#[derive(Args, Debug)]
pub struct LocateArgs {
    /// Grids, comma-separated: 8x8, 9x9, 18x18, 19x19:points (any RxC or RxC:points).
    #[arg(long, default_value = "8x8", value_parser = grid_list)]
    pub grid: String,
    /// Render this many random scenes per grid (elevation 30 to 90 degrees, pieces
    /// on the board) and report corner errors by elevation band.
    #[arg(long, required_unless_present_any = ["eval_real", "eval_tables"])]
    pub eval_synth: Option<u64>,
    /// Composite this many tables of several boards (rendered boards side by side
    /// in one frame of --size, default 1920x1080 here) and locate every board in
    /// each (`locate --all`): boards within 0.3 cell, boards invented, order.
    #[arg(long, conflicts_with_all = ["eval_synth", "eval_real"])]
    pub eval_tables: Option<u64>,
    /// --eval-tables: boards per table (2: side by side; 4: two rows of two).
    #[arg(long, default_value_t = 2)]
    pub boards: usize,
    /// --eval-tables: a mix of games (8x8, 9x9, 10x10, 19x19:points) rather than chess only.
    #[arg(long)]
    pub mixed: bool,
    /// --eval-tables: write every table's frame here (PNG) with its truth (JSON).
    #[arg(long)]
    pub frames: Option<PathBuf>,
    /// Measure on the annotated real photos (chess-ray-vision, imago-go).
    #[arg(long)]
    pub eval_real: bool,
    /// --eval-synth: first seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// --eval-synth, --eval-tables: frame size (default 1280x720, or 1920x1080
    /// for --eval-tables).
    #[arg(long)]
    pub size: Option<String>,
    /// --eval-real: the real photo sets.
    #[arg(long, default_value = "../shared/data")]
    pub data: PathBuf,
    /// --eval-real: the annotated corners (a JSON file).
    #[arg(
        long = "annotations",
        alias = "corners",
        default_value = "tests/data/real_corners.json"
    )]
    pub corners: PathBuf,
    /// --eval-synth: write the frames located worse than a quarter cell here, grid
    /// drawn (--eval-tables: those with a board missed or invented).
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// --eval-real: also print every photo's figures (--eval-tables: also locate
    /// each board in its slot of the frame alone).
    #[arg(long)]
    pub verbose: bool,
}

pub fn run(a: LocateArgs) -> anyhow::Result<()> {
    match (a.eval_synth, a.eval_tables) {
        (Some(n), _) => eval_synth(&a, n),
        (None, Some(n)) => super::locate_tables::eval_tables(&a, n),
        (None, None) => eval_real(&a),
    }
}

/// `--size`, or `default` when not given.
pub(super) fn frame_size(a: &LocateArgs, default: (u32, u32)) -> anyhow::Result<(u32, u32)> {
    let Some(size) = &a.size else {
        return Ok(default);
    };
    size.split_once('x')
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
        .ok_or_else(|| anyhow::anyhow!("--size '{size}' is not WIDTHxHEIGHT"))
}

fn eval_synth(a: &LocateArgs, n: u64) -> anyhow::Result<()> {
    // One core, all of it on this thread: the times are its CPU time.
    opencv::core::set_num_threads(1)?;
    let (w, h) = frame_size(a, (1280, 720))?;
    let grids: Vec<GridSpec> = a
        .grid
        .split(',')
        .map(|g| g.parse::<GridSpec>())
        .collect::<Result<_, _>>()?;
    outln!(
        "rendered scenes {w}x{h}, seeds from {}, elevation 30-90 degrees, pieces on 5-60% of sites",
        a.seed
    );
    for grid in grids {
        let mut trials = Vec::new();
        for i in 0..n {
            let (t, img) = synth_trial(grid, a.seed + i, (w, h), (30.0, 90.0))?;
            if let Some(dir) = a
                .dump
                .as_ref()
                .filter(|_| t.error_cells.is_none_or(|e| e >= 0.25))
            {
                let mut view = img;
                if let Some(c) = t.found {
                    draw_overlay(&mut view, &BoardPose::new(grid, c))?;
                }
                let name = format!(
                    "{}-seed{}-{:.2}.png",
                    grid.to_string().replace(':', "-"),
                    a.seed + i,
                    t.error_cells.unwrap_or(99.0)
                );
                write_image(&dir.join(name), &view)?;
            }
            trials.push(t);
        }
        outln!("{grid}: all        {}", summary(&trials));
        for (lo, hi) in BANDS {
            let band: Vec<Trial> = trials
                .iter()
                .filter(|t| (lo..hi).contains(&t.elevation_deg))
                .cloned()
                .collect();
            outln!(
                "{grid}: {lo:2.0}-{:2.0} deg  {}",
                hi.floor(),
                summary(&band)
            );
        }
    }
    Ok(())
}

fn eval_real(a: &LocateArgs) -> anyhow::Result<()> {
    opencv::core::set_num_threads(1)?;
    for set in ["chess-ray-vision", "imago-go"] {
        let verbose = a.verbose;
        let trials = match real_trials(&a.data, &a.corners, set, |name, t| {
            if verbose {
                match t.error_cells {
                    Some(e) => outln!("  {name}: error {e:.3} cells, {:.0} ms", t.ms),
                    None => outln!("  {name}: not found, {:.0} ms", t.ms),
                }
            }
        }) {
            Ok(t) => t,
            Err(e) => {
                outln!("{set}: skipped ({e:#})");
                continue;
            }
        };
        outln!("{set}: {}", summary(&trials));
    }
    Ok(())
}

/// `--grid` as given: one grid, or (with --eval-synth) several separated by
/// commas, each checked as the command line reads it, so that a bad one is a
/// usage error (exit 2) like every other flag's.
fn grid_list(text: &str) -> Result<String, String> {
    for part in text.split(',') {
        part.trim().parse::<GridSpec>().map_err(|e| e.to_string())?;
    }
    Ok(text.to_string())
}
