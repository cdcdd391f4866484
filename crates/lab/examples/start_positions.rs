//! Locates the chess start position, the frame `record` locates most, on 120
//! renders at 40 to 55 degrees (480x360, light and dark wood, boards turned 0 to
//! 42 degrees), then moves each grid as `record` does by what the start position
//! reads (`pipeline::snap_to_start`), and prints the frames either step leaves more
//! than a quarter cell off.
//!
//! `cargo run --example start_positions` (from the repository root: it loads
//! models/occupancy.onnx).

use boardscribe_cli::outln;
use boardscribe_core::infer::WhiteSide;
use boardscribe_core::rules::chess::Chess;
use boardscribe_lab::sets::locate_eval::corner_error;
use boardscribe_lab::sets::{board_state, rgb_to_bgr_mat};
use boardscribe_lab::synth::{render, SceneParams};
use boardscribe_vision::classify::{Classifier, OccupancyModel};
use boardscribe_vision::geometry::{BoardPose, Corners, GridSpec};
use boardscribe_vision::locate::locate;
use boardscribe_vision::pipeline::snap_to_start;

fn main() -> anyhow::Result<()> {
    let grid: GridSpec = "8x8".parse()?;
    let model = OccupancyModel::load(std::path::Path::new("models/occupancy.onnx"))?;
    let classifier = Classifier::new(model);
    let game = Chess::new();
    let state = board_state(&game, WhiteSide::Bottom);
    let (mut frames, mut off_located, mut off_snapped) = (0, 0, 0);
    for seed in 0..60u64 {
        for dark in [true, false] {
            let mut p = SceneParams::chess_overhead(seed, dark);
            (p.width, p.height) = (480, 360);
            p.camera.elevation_deg = 40.0 + (seed % 5) as f64 * 5.0;
            p.camera.azimuth_deg = (seed % 7) as f64 * 7.0;
            let r = render(&p, &state, None)?;
            let image = rgb_to_bgr_mat(&r.image)?;
            let truth = Corners::new(r.corners.map(|[x, y]| (x, y)))?;
            frames += 1;
            let name = format!(
                "seed {seed} {} elevation {} azimuth {}",
                if dark { "dark" } else { "light" },
                p.camera.elevation_deg,
                p.camera.azimuth_deg
            );
            let Ok(found) = locate(&image, grid) else {
                outln!("{name}: not found");
                off_located += 1;
                off_snapped += 1;
                continue;
            };
            let located = corner_error(grid, &found.corners, &truth);
            let pose = BoardPose::new(grid, found.corners);
            let (moved, shift) = snap_to_start(&game, &classifier, &image, pose)?;
            let snapped = corner_error(grid, &moved.corners(), &truth);
            off_located += usize::from(located > 0.25);
            off_snapped += usize::from(snapped > 0.25);
            if located > 0.25 || snapped > 0.25 || shift != (0, 0) {
                outln!(
                    "{name}: located {located:.3} cells off, moved {shift:?} (rows, columns), then {snapped:.3}"
                );
            }
        }
    }
    outln!(
        "{frames} start positions: {off_located} located more than a quarter cell off, {off_snapped} after moving by the start position"
    );
    Ok(())
}
