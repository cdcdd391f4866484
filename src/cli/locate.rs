use std::path::{Path, PathBuf};

use clap::Args;
use opencv::core::Mat;
use serde_json::json;

use super::board::read_frame;
use crate::geometry::{draw_number, draw_overlay, BoardPose, GridSpec};
use crate::locate::{locate, locate_all, Board};
use boardscribe_cli::{usage, write_image};

#[derive(Args, Debug)]
pub struct LocateArgs {
    /// Grid: 8x8, 9x9, 18x18, 19x19:points (any RxC or RxC:points). With --all,
    /// give it once per kind of board the view holds.
    #[arg(long, required = true)]
    pub grid: Vec<GridSpec>,
    /// Every board in each image (one camera over several boards), numbered in
    /// rows from the top, each row from the left.
    #[arg(long)]
    pub all: bool,
    /// Print one JSON object per image and line.
    #[arg(long)]
    pub json: bool,
    /// Write each image with the located grid drawn into this folder.
    #[arg(long)]
    pub overlay: Option<PathBuf>,
    /// The images.
    #[arg(required = true)]
    pub images: Vec<PathBuf>,
}

pub fn run(a: LocateArgs) -> anyhow::Result<()> {
    if a.all {
        return each_image(&a, |name, img| {
            let boards = locate_all(img, &a.grid)?;
            print_boards(name, &boards, a.json);
            Ok(boards
                .iter()
                .enumerate()
                .map(|(i, b)| (BoardPose::new(b.grid, b.located.corners), Some(i + 1)))
                .collect())
        });
    }
    let [grid] = a.grid[..] else {
        return Err(usage!(
            "--grid is given once, or once per kind of board with --all"
        ));
    };
    each_image(&a, |name, img| {
        let found = locate(img, grid)?;
        let pts = found.corners.points();
        if a.json {
            let corners: Vec<[f64; 2]> = pts.iter().map(|p| [round2(p.0), round2(p.1)]).collect();
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
        Ok(vec![(BoardPose::new(grid, found.corners), None)])
    })
}

/// Runs `found` on each image (it prints what it found and returns the grids to
/// draw, numbered or not), writes the overlays, says each failure; an error
/// when any image failed.
fn each_image(
    a: &LocateArgs,
    mut found: impl FnMut(&str, &Mat) -> anyhow::Result<Vec<(BoardPose, Option<usize>)>>,
) -> anyhow::Result<()> {
    let mut failed = 0;
    for path in &a.images {
        let name = path.display().to_string();
        let result = read_frame(path, None).and_then(|img| Ok((found(&name, &img)?, img)));
        match result {
            Ok((poses, img)) => {
                if let Some(dir) = &a.overlay {
                    let out = overlay_path(dir, path);
                    let inputs: Vec<&Path> = a.images.iter().map(|p| p.as_path()).collect();
                    super::paths::check_outputs(&[("--overlay", &out)], &inputs)?;
                    let mut view = img;
                    for (pose, number) in &poses {
                        draw_overlay(&mut view, pose)?;
                        if let Some(n) = number {
                            draw_number(&mut view, pose, *n)?;
                        }
                    }
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

/// The boards found in one image, numbered from 1: `NAME: board N (GRID): --corners
/// "..." (confidence C)` a line, or one JSON object with a `boards` array.
fn print_boards(name: &str, boards: &[Board], json: bool) {
    if json {
        let list: Vec<serde_json::Value> = boards
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let corners: Vec<[f64; 2]> = b
                    .located
                    .corners
                    .points()
                    .iter()
                    .map(|p| [round2(p.0), round2(p.1)])
                    .collect();
                let conf = (b.located.confidence * 1000.0).round() / 1000.0;
                json!({"board": i + 1, "grid": b.grid.to_string(), "corners": corners, "confidence": conf})
            })
            .collect();
        outln!("{}", json!({"image": name, "boards": list}));
        return;
    }
    for (i, b) in boards.iter().enumerate() {
        let text: Vec<String> = b
            .located
            .corners
            .points()
            .iter()
            .map(|p| format!("{:.1},{:.1}", p.0, p.1))
            .collect();
        outln!(
            "{name}: board {} ({}): --corners \"{}\" (confidence {:.2})",
            i + 1,
            b.grid,
            text.join(" "),
            b.located.confidence
        );
    }
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
