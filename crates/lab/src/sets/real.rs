//! The real photo sets in `../shared/data` (see its README): bgu-chess (evaluation
//! only), chess-ray-vision and imago-go (corners annotated by hand in
//! `tests/data/real_corners.json`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{LabelledRef, BLACK, EMPTY, WHITE};
use crate::geometry::{BoardPose, Corners, GridSpec};
use crate::infer::{placement_classes, NotASide, WhiteSide};

#[derive(Debug, thiserror::Error)]
pub enum RealSetError {
    #[error("data folder '{0}' is absent")]
    Absent(PathBuf),
    #[error("reading '{path}': {why}")]
    Read { path: PathBuf, why: String },
}

pub(super) fn read(path: &Path) -> Result<String, RealSetError> {
    std::fs::read_to_string(path).map_err(|e| RealSetError::Read {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}

pub(super) fn bad(path: &Path, why: impl Into<String>) -> RealSetError {
    RealSetError::Read {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

/// Labels (grid order) of an 8x8 chess piece placement seen with White at `side`.
pub fn placement_labels(placement: &str, side: WhiteSide) -> Option<Vec<u8>> {
    let classes = placement_classes(placement, side, 8, 8).ok()?;
    Some(classes.into_iter().map(|c| c as u8).collect())
}

/// One bgu-chess game: every tagged frame with its position. The photos are cropped
/// to the playing area with a8 at the top left, so the corners are the image's own.
pub fn bgu_game(data: &Path, game: u32) -> Result<Vec<LabelledRef>, RealSetError> {
    let dir = data.join("bgu-chess").join(format!("game{game}_per_frame"));
    if !dir.is_dir() {
        return Err(RealSetError::Absent(dir));
    }
    let csv_path = dir.join(format!("game{game}.csv"));
    let csv = read(&csv_path)?;
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for line in csv.lines().skip(1) {
        let parts: Vec<&str> = line.trim().split(',').collect();
        if parts.len() < 3 {
            continue;
        }
        let from: u32 = parts[0]
            .parse()
            .map_err(|_| bad(&csv_path, format!("bad frame number in '{line}'")))?;
        // A frame that carries two positions (two half-moves between frames) is
        // labelled by its first; its second row is skipped.
        if !seen.insert(from) {
            continue;
        }
        let path = dir
            .join("tagged_images")
            .join(format!("frame_{from:06}.jpg"));
        if !path.exists() {
            continue;
        }
        let labels = placement_labels(parts[2], WhiteSide::Bottom)
            .ok_or_else(|| bad(&csv_path, format!("bad FEN in '{line}'")))?;
        let size = image_size(&path)?;
        let corners = Corners::new([
            (-0.5, -0.5),
            (size.0 as f64 - 0.5, -0.5),
            (size.0 as f64 - 0.5, size.1 as f64 - 0.5),
            (-0.5, size.1 as f64 - 0.5),
        ])
        .map_err(|e| bad(&path, e.to_string()))?;
        out.push(LabelledRef {
            name: format!("game{game}/frame_{from:06}"),
            raw_pixels: false,
            path,
            pose: BoardPose::new(GridSpec::cells(8, 8), corners),
            labels,
        });
    }
    Ok(out)
}

fn image_size(path: &Path) -> Result<(u32, u32), RealSetError> {
    let img = crate::capture::read_image(path).map_err(|e| bad(path, e.to_string()))?;
    use opencv::prelude::MatTraitConst;
    Ok((img.cols() as u32, img.rows() as u32))
}

#[derive(Deserialize)]
struct Annotation {
    image: String,
    grid: String,
    corners: [[f64; 2]; 4],
    #[serde(default)]
    white: Option<String>,
    /// "raw" when corners and labels refer to the stored pixels, not the
    /// EXIF-rotated image.
    #[serde(default)]
    pixels: Option<String>,
}

/// The real sets that may be trained on, as `dataset real` and `eval` name them.
pub const TRAINABLE_SETS: [&str; 6] = [
    "chess-ray-vision",
    "chesscog-grey",
    "raspberry-turk",
    "webcam-pcwawc",
    "imago-go",
    "go-roboflow",
];

/// Which part of a real set a photo is kept for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Train,
    /// Held out of training: the set's validation figures come from these.
    Val,
}

/// The part of `set` that photo `name` (as `LabelledRef::name`) belongs to. The
/// held-out parts are whole runs of photos, never near-duplicates of trained ones:
/// chesscog-grey's game from IMG_4830 on (consecutive photos show nearly the same
/// position), every fifth raspberry-turk arrangement, two webcam-pcwawc boards
/// (chessBoard003/004, one board, and 012), imago-go's third sequence (t3),
/// go-roboflow's own test and valid folders.
/// chess-ray-vision is too small to split and is all trained on.
pub fn split_of(set: &str, name: &str) -> Split {
    let file = name.rsplit('/').next().unwrap_or(name);
    let digits = |s: &str| -> Option<u32> {
        let d: String = s
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(|c| c.is_ascii_digit())
            .collect();
        d.parse().ok()
    };
    let val = match set {
        "chesscog-grey" => digits(file).is_some_and(|n| n >= 4830),
        "raspberry-turk" => digits(file).is_some_and(|n| n % 5 == 0),
        "webcam-pcwawc" => ["chessBoard003", "chessBoard004", "chessBoard012"]
            .contains(&file.split('.').next().unwrap_or("")),
        "imago-go" => name.starts_with("imago-go/t3/"),
        "go-roboflow" => {
            name.starts_with("go-roboflow/test/") || name.starts_with("go-roboflow/valid/")
        }
        _ => false,
    };
    if val {
        Split::Val
    } else {
        Split::Train
    }
}

#[derive(Deserialize)]
struct LabelEntry {
    image: String,
    grid: String,
    corners: [[f64; 2]; 4],
    placement: String,
    white: String,
}

/// A set with its own `labels.json` (chesscog-grey, raspberry-turk,
/// webcam-pcwawc): per photo its grid, corners (TL TR BR BL as they show), FEN
/// placement and White's edge.
pub fn labels_json_set(data: &Path, set: &str) -> Result<Vec<LabelledRef>, RealSetError> {
    let dir = data.join(set);
    let path = dir.join("labels.json");
    if !path.is_file() {
        return Err(RealSetError::Absent(path));
    }
    let entries: Vec<LabelEntry> =
        serde_json::from_str(&read(&path)?).map_err(|e| bad(&path, e.to_string()))?;
    let mut out = Vec::new();
    for e in entries {
        let grid: GridSpec = e
            .grid
            .parse()
            .map_err(|x| bad(&path, format!("{}: {x}", e.image)))?;
        let corners = Corners::new(e.corners.map(|[x, y]| (x, y)))
            .map_err(|x| bad(&path, format!("{}: {x}", e.image)))?;
        let side: WhiteSide = e
            .white
            .parse()
            .map_err(|x: NotASide| bad(&path, x.to_string()))?;
        let labels = placement_labels(&e.placement, side).ok_or_else(|| {
            bad(
                &path,
                format!("{}: bad placement '{}'", e.image, e.placement),
            )
        })?;
        if labels.len() != grid.len() {
            return Err(bad(
                &path,
                format!("{}: labels do not match the grid", e.image),
            ));
        }
        out.push(LabelledRef {
            name: format!("{set}/{}", e.image),
            raw_pixels: false,
            path: dir.join(&e.image),
            pose: BoardPose::new(grid, corners),
            labels,
        });
    }
    Ok(out)
}

/// A real set by name, only the photos of `split` (`train`, `val` or `all`) where
/// the set is costly to read whole (go-roboflow locates every photo): go-roboflow's
/// stones (with the by-eye file beside `corners_file`), or see `annotated_set`.
pub fn real_set(
    data: &Path,
    corners_file: &Path,
    set: &str,
    split: &str,
) -> Result<Vec<LabelledRef>, RealSetError> {
    if set == super::go_roboflow::GO_ROBOFLOW {
        let judged = corners_file.with_file_name("go_roboflow_stones_boards.json");
        return super::go_roboflow::go_roboflow_set(
            data,
            &judged,
            super::go_roboflow::parts_of(split),
        );
    }
    annotated_set(data, corners_file, set)
}

/// A real set by name: one with its own `labels.json`, or a hand-annotated one
/// (`chess-ray-vision`, `imago-go`) from the corners file.
pub fn annotated_set(
    data: &Path,
    corners_file: &Path,
    set: &str,
) -> Result<Vec<LabelledRef>, RealSetError> {
    let dir = data.join(set);
    if !dir.is_dir() {
        return Err(RealSetError::Absent(dir));
    }
    if dir.join("labels.json").is_file() {
        return labels_json_set(data, set);
    }
    let json: serde_json::Value =
        serde_json::from_str(&read(corners_file)?).map_err(|e| bad(corners_file, e.to_string()))?;
    let entries: Vec<Annotation> =
        serde_json::from_value(json.get(set).cloned().unwrap_or_default())
            .map_err(|e| bad(corners_file, format!("{set}: {e}")))?;
    let mut out = Vec::new();
    for a in entries {
        let path = dir.join(&a.image);
        let grid: GridSpec = a
            .grid
            .parse()
            .map_err(|e| bad(corners_file, format!("{e}")))?;
        let corners = Corners::new(a.corners.map(|[x, y]| (x, y)))
            .map_err(|e| bad(corners_file, format!("{}: {e}", a.image)))?;
        let labels = match set {
            "imago-go" => go_labels(&path.with_extension("txt"), grid)?,
            _ => {
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let side: WhiteSide = a
                    .white
                    .as_deref()
                    .unwrap_or("bottom")
                    .parse()
                    .map_err(|e: NotASide| bad(corners_file, e.to_string()))?;
                placement_labels(&stem, side)
                    .ok_or_else(|| bad(&path, "the file name is not a FEN placement"))?
            }
        };
        if labels.len() != grid.len() {
            return Err(bad(&path, "labels do not match the grid"));
        }
        out.push(LabelledRef {
            name: format!("{set}/{}", a.image),
            raw_pixels: a.pixels.as_deref() == Some("raw"),
            path,
            pose: BoardPose::new(grid, corners),
            labels,
        });
    }
    Ok(out)
}

/// An imago-go label file: one line per row of crossings (top of the image first),
/// tokens `.`, `B`, `W`.
fn go_labels(path: &Path, grid: GridSpec) -> Result<Vec<u8>, RealSetError> {
    let text = read(path)?;
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        for tok in line.split_whitespace() {
            out.push(match tok {
                "." => EMPTY,
                "W" => WHITE,
                "B" => BLACK,
                _ => return Err(bad(path, format!("unknown token '{tok}'"))),
            });
        }
    }
    if out.len() != grid.len() {
        return Err(bad(path, format!("{} labels for a {grid} grid", out.len())));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_out_parts_are_whole_runs() {
        assert_eq!(
            split_of("chesscog-grey", "chesscog-grey/images/IMG_4829.jpg"),
            Split::Train
        );
        assert_eq!(
            split_of("chesscog-grey", "chesscog-grey/images/IMG_4830.jpg"),
            Split::Val
        );
        assert_eq!(
            split_of("raspberry-turk", "raspberry-turk/images/05_1.jpg"),
            Split::Val
        );
        assert_eq!(
            split_of("raspberry-turk", "raspberry-turk/images/06_1.jpg"),
            Split::Train
        );
        assert_eq!(split_of("imago-go", "imago-go/t3/a.jpg"), Split::Val);
        assert_eq!(split_of("imago-go", "imago-go/t1/a.jpg"), Split::Train);
        assert_eq!(
            split_of("webcam-pcwawc", "webcam-pcwawc/images/chessBoard012.jpg"),
            Split::Val
        );
        assert_eq!(
            split_of("chess-ray-vision", "chess-ray-vision/originals/x.jpeg"),
            Split::Train
        );
    }

    #[test]
    fn placements_follow_the_orientation() {
        let l = placement_labels(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            WhiteSide::Bottom,
        )
        .unwrap();
        assert_eq!(&l[..8], &[BLACK; 8]);
        assert_eq!(&l[56..], &[WHITE; 8]);
        assert!(placement_labels("8/8/8", WhiteSide::Bottom).is_none());
        assert!(placement_labels("9/8/8/8/8/8/8/8", WhiteSide::Bottom).is_none());
    }
}
