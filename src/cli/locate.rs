use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use super::board::read_frame;
use super::rectify::write_image;
use crate::geometry::{draw_overlay, BoardPose, GridSpec};
use crate::locate::locate;
use crate::sets::locate_eval::{real_trials, summary, synth_trial, Trial, BANDS};

#[derive(Args, Debug)]
pub struct LocateArgs {
    /// Grid: 8x8, 9x9, 18x18, 19x19:points (any RxC or RxC:points). With
    /// --eval-synth, a comma-separated list.
    #[arg(long, required_unless_present = "eval_real", value_parser = grid_list)]
    pub grid: Option<String>,
    /// Print one JSON object per image and line.
    #[arg(long)]
    pub json: bool,
    /// Write each image with the located grid drawn into this folder.
    #[arg(long)]
    pub overlay: Option<PathBuf>,
    /// Measure instead: render this many random scenes per grid (elevation 30 to 90
    /// degrees, pieces on the board) and report corner errors by elevation band.
    #[arg(long)]
    pub eval_synth: Option<u64>,
    /// Measure instead on the annotated real photos (chess-ray-vision, imago-go).
    #[arg(long)]
    pub eval_real: bool,
    /// --eval-synth: first seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// --eval-synth: frame size.
    #[arg(long, default_value = "1280x720")]
    pub size: String,
    /// --eval-real: the real photo sets.
    #[arg(long, default_value = "../shared/data")]
    pub data: PathBuf,
    /// --eval-real: the annotated corners (a JSON file; `--corners` elsewhere is a
    /// quadrilateral, so this is `--annotations`, with `--corners` kept as before).
    #[arg(
        long = "annotations",
        alias = "corners",
        default_value = "tests/data/real_corners.json"
    )]
    pub corners: PathBuf,
    /// --eval-synth: write the frames located worse than a quarter cell here, grid drawn.
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// --eval-real: also print every photo's figures.
    #[arg(long)]
    pub verbose: bool,
    /// The images.
    #[arg(required_unless_present_any = ["eval_synth", "eval_real"])]
    pub images: Vec<PathBuf>,
}

pub fn run(a: LocateArgs) -> anyhow::Result<()> {
    if let Some(n) = a.eval_synth {
        return eval_synth(&a, n);
    }
    if a.eval_real {
        return eval_real(&a);
    }
    let grid: GridSpec = a.grid.as_deref().unwrap_or_default().parse()?;
    let mut failed = 0;
    for path in &a.images {
        let name = path.display().to_string();
        let result = read_frame(path, None).and_then(|img| Ok((locate(&img, grid)?, img)));
        match result {
            Ok((found, img)) => {
                let pts = found.corners.points();
                if a.json {
                    let corners: Vec<[f64; 2]> =
                        pts.iter().map(|p| [round2(p.0), round2(p.1)]).collect();
                    let conf = (found.confidence * 1000.0).round() / 1000.0;
                    outln!(
                        "{}",
                        json!({"image": name, "corners": corners, "confidence": conf})
                    );
                } else {
                    let text: Vec<String> = pts
                        .iter()
                        .map(|p| format!("{:.1},{:.1}", p.0, p.1))
                        .collect();
                    outln!(
                        "{name}: --corners \"{}\" (confidence {:.2})",
                        text.join(" "),
                        found.confidence
                    );
                }
                if let Some(dir) = &a.overlay {
                    let out = overlay_path(dir, path);
                    let inputs: Vec<&Path> = a.images.iter().map(|p| p.as_path()).collect();
                    super::paths::check_outputs(&[("--overlay", &out)], &inputs)?;
                    let mut view = img;
                    draw_overlay(&mut view, &BoardPose::new(grid, found.corners))?;
                    write_image(&out, &view)?;
                }
            }
            Err(e) => {
                failed += 1;
                if a.json {
                    outln!("{}", json!({"image": name, "error": format!("{e:#}")}));
                } else {
                    outln!("{name}: {e:#}");
                }
            }
        }
    }
    anyhow::ensure!(
        failed == 0,
        "{failed} of {}: no grid located",
        super::values::plural(a.images.len(), "image", "images")
    );
    Ok(())
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The overlay of `image` in `dir`: the photo's own name, so `photo7.jpeg` stays
/// `photo7.jpeg`; a video's first frame becomes `clip.mp4.jpg`.
fn overlay_path(dir: &Path, image: &Path) -> PathBuf {
    let name = image
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "image".into());
    if crate::capture::is_image_path(image) {
        dir.join(name)
    } else {
        dir.join(format!("{name}.jpg"))
    }
}

fn eval_synth(a: &LocateArgs, n: u64) -> anyhow::Result<()> {
    // One core, all of it on this thread: the times are its CPU time.
    opencv::core::set_num_threads(1)?;
    let (w, h) = a
        .size
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
        .ok_or_else(|| anyhow::anyhow!("--size '{}' is not WIDTHxHEIGHT", a.size))?;
    let grids: Vec<GridSpec> = a
        .grid
        .as_deref()
        .unwrap_or("8x8")
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

#[cfg(test)]
mod tests {
    #[test]
    fn overlays_keep_the_photo_name_and_extension() {
        let dir = std::path::Path::new("out");
        let p = |s: &str| super::overlay_path(dir, std::path::Path::new(s));
        assert_eq!(p("a/photo7.jpeg"), dir.join("photo7.jpeg"));
        assert_eq!(p("b/IMG_1.PNG"), dir.join("IMG_1.PNG"));
        assert_eq!(p("clip.mp4"), dir.join("clip.mp4.jpg"));
    }
}
