use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use super::board::read_frame;
use crate::geometry::{draw_overlay, BoardPose, GridSpec};
use crate::locate::locate;
use boardscribe_cli::write_image;

#[derive(Args, Debug)]
pub struct LocateArgs {
    /// Grid: 8x8, 9x9, 18x18, 19x19:points (any RxC or RxC:points).
    #[arg(long)]
    pub grid: GridSpec,
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
    let grid = a.grid;
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
