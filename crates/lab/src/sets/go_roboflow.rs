//! go-roboflow's stone photos (`../shared/data/go-roboflow/stones`, CC BY 4.0: the
//! Roboflow Universe projects `test-pfq3c/go-board-4kjuw` and
//! `hubbleunit/stone-detection-k4yeu`): a YOLO box round each stone and no grid.
//!
//! Each photo's grid is found by `locate` and each box's centre put on the nearest
//! crossing. The held-out part is the data's own test and valid folders, read only
//! where `tests/data/go_roboflow_stones_boards.json` (judged by eye) says the whole
//! board is in view, at its board's size, as a user would give it. A training photo
//! has no such judgement: it is tried at 19, 13 and 9 lines and kept at the size
//! where its boxes sit on the located crossings, and left out where they do not (a
//! board cut by the frame, a grid found a line off), so that no label comes from a
//! grid placed wrong.

use std::path::Path;

use opencv::core::{Point2f, Vector};
use serde::Deserialize;

use super::real::{bad, read, RealSetError};
use super::{LabelledRef, BLACK, EMPTY, WHITE};
use crate::geometry::{BoardPose, GridSpec};

/// The set's name, as `eval --set` and `dataset real --set` take it.
pub const GO_ROBOFLOW: &str = "go-roboflow";

/// A box centre farther than this from every crossing (cells) is off the grid.
const ON_CROSSING: f64 = 0.35;
/// A training photo is kept only where at most this share of its boxes is off the
/// located grid.
const MAX_OFF: f64 = 0.05;

#[derive(Deserialize)]
struct Judged {
    size: Option<u32>,
    view: String,
}

#[derive(Deserialize)]
struct JudgedFile {
    photos: std::collections::HashMap<String, Judged>,
}

/// The data's folders that hold `split` (`train`, `val` or `all`).
pub fn parts_of(split: &str) -> &'static [&'static str] {
    match split {
        "train" => &["train"],
        "val" => &["test", "valid"],
        _ => &["train", "test", "valid"],
    }
}

/// The labelled photos of the folders `parts` of go-roboflow's `stones/`; `judged`
/// is the by-eye file of the test and valid photos.
pub fn go_roboflow_set(
    data: &Path,
    judged: &Path,
    parts: &[&str],
) -> Result<Vec<LabelledRef>, RealSetError> {
    let root = data.join(GO_ROBOFLOW).join("stones");
    if !root.is_dir() {
        return Err(RealSetError::Absent(root));
    }
    let judged: JudgedFile =
        serde_json::from_str(&read(judged)?).map_err(|e| bad(judged, e.to_string()))?;
    let mut out = Vec::new();
    for part in parts {
        let dir = root.join(part).join("images");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| bad(&dir, e.to_string()))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".jpg"))
            .collect();
        names.sort();
        for name in names {
            let sizes: Vec<u32> = if *part == "train" {
                vec![19, 13, 9]
            } else {
                match judged.photos.get(&format!("{part}/{name}")) {
                    Some(Judged {
                        size: Some(n),
                        view,
                    }) if view.starts_with("whole") => vec![*n],
                    _ => continue,
                }
            };
            let held_out = *part != "train";
            if let Some(r) = labelled(&root, part, &name, &sizes, held_out)? {
                out.push(r);
            }
        }
    }
    Ok(out)
}

/// Photo `name` of folder `part` located at the first of `sizes` whose crossings its
/// boxes fit best; `None` where no grid is found or (for a training photo) too many
/// boxes miss its crossings.
fn labelled(
    root: &Path,
    part: &str,
    name: &str,
    sizes: &[u32],
    held_out: bool,
) -> Result<Option<LabelledRef>, RealSetError> {
    let path = root.join(part).join("images").join(name);
    let image = crate::capture::read_image(&path).map_err(|e| bad(&path, e.to_string()))?;
    let stem = name.trim_end_matches(".jpg");
    let boxes = yolo_centres(&root.join(part).join("labels").join(format!("{stem}.txt")))?;
    use opencv::prelude::MatTraitConst;
    let (w, h) = (image.cols() as f64, image.rows() as f64);
    let boxes: Vec<(u8, f64, f64)> = boxes
        .into_iter()
        .map(|(c, x, y)| (c, x * w, y * h))
        .collect();
    let mut best: Option<(usize, GridSpec, crate::geometry::Corners, Vec<u8>)> = None;
    for &n in sizes {
        let grid = GridSpec::points(n, n);
        let Ok(found) = crate::locate::locate(&image, grid) else {
            continue;
        };
        let Some((labels, off)) = place(&boxes, &found.corners.points(), n, held_out) else {
            continue;
        };
        if best.as_ref().is_none_or(|b| off < b.0) {
            best = Some((off, grid, found.corners, labels));
        }
    }
    let Some((off, grid, corners, labels)) = best else {
        return Ok(None);
    };
    // A training photo's crossings must all be in the frame: one outside it has no
    // pixels, and no box there says it is empty.
    let cell = BoardPose::new(grid, corners).mean_cell_px();
    let inside = corners.points().iter().all(|&(x, y)| {
        x >= -0.5 * cell && y >= -0.5 * cell && x <= w + 0.5 * cell && y <= h + 0.5 * cell
    });
    if !held_out && (boxes.is_empty() || off as f64 > MAX_OFF * boxes.len() as f64 || !inside) {
        return Ok(None);
    }
    Ok(Some(LabelledRef {
        name: format!("{GO_ROBOFLOW}/{part}/{name}"),
        raw_pixels: false,
        path,
        pose: BoardPose::new(grid, corners),
        labels,
    }))
}

/// Class and centre (0..1 of the image) of each box of a YOLO label file: class 0
/// a black stone, 1 a white one.
fn yolo_centres(path: &Path) -> Result<Vec<(u8, f64, f64)>, RealSetError> {
    let text = read(path)?;
    let mut out = Vec::new();
    for line in text.lines() {
        let v: Vec<&str> = line.split_whitespace().collect();
        if v.len() < 5 {
            continue;
        }
        let num = |s: &str| {
            s.parse::<f64>()
                .map_err(|_| bad(path, format!("bad number in '{line}'")))
        };
        let class = match v[0] {
            "0" => BLACK,
            "1" => WHITE,
            other => return Err(bad(path, format!("unknown class '{other}'"))),
        };
        out.push((class, num(v[1])?, num(v[2])?));
    }
    Ok(out)
}

/// The labels (row-major from the grid's TL corner) that the boxes give an `n` x `n`
/// grid of crossings with corners `quad` (TL TR BR BL), and how many boxes are off it.
/// A box more than `ON_CROSSING` from its nearest crossing is off it, unless
/// `nearest`: then every box on the board stands on its nearest crossing, as a
/// Go player records a stone set down off its point (held-out photos are scored
/// so; training labels keep only the sure ones), and only a box off the board or
/// a second box on one crossing is off.
fn place(
    boxes: &[(u8, f64, f64)],
    quad: &[(f64, f64); 4],
    n: u32,
    nearest: bool,
) -> Option<(Vec<u8>, usize)> {
    let m = (n - 1) as f32;
    let src: Vector<Point2f> = quad
        .iter()
        .map(|&(x, y)| Point2f::new(x as f32, y as f32))
        .collect();
    let dst: Vector<Point2f> = [(0.0, 0.0), (m, 0.0), (m, m), (0.0, m)]
        .iter()
        .map(|&(x, y)| Point2f::new(x, y))
        .collect();
    let h = opencv::imgproc::get_perspective_transform(&src, &dst, opencv::core::DECOMP_LU).ok()?;
    let pts: Vector<Point2f> = boxes
        .iter()
        .map(|&(_, x, y)| Point2f::new(x as f32, y as f32))
        .collect();
    let mut on: Vector<Point2f> = Vector::new();
    if !pts.is_empty() {
        opencv::core::perspective_transform(&pts, &mut on, &h).ok()?;
    }
    let mut labels = vec![EMPTY; (n * n) as usize];
    let mut off = 0;
    for (&(class, _, _), p) in boxes.iter().zip(on.iter()) {
        let (u, v) = (p.x as f64, p.y as f64);
        let (c, r) = (u.round(), v.round());
        let inside = (0.0..=m as f64).contains(&c) && (0.0..=m as f64).contains(&r);
        let near = nearest || (u - c).abs().max((v - r).abs()) <= ON_CROSSING;
        let at = r as usize * n as usize + c as usize;
        if !inside || !near || labels[at] != EMPTY {
            off += 1;
            continue;
        }
        labels[at] = class;
    }
    Some((labels, off))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_go_to_their_crossings_and_those_between_are_off() {
        // A 9x9 grid of crossings 10 px apart from (100, 50).
        let quad = [(100.0, 50.0), (180.0, 50.0), (180.0, 130.0), (100.0, 130.0)];
        let boxes = [
            (BLACK, 100.5, 50.0),
            (WHITE, 180.0, 131.0),
            (BLACK, 145.0, 90.0),
        ];
        let (labels, off) = place(&boxes, &quad, 9, false).unwrap();
        assert_eq!(labels[0], BLACK);
        assert_eq!(labels[80], WHITE);
        assert_eq!(labels.iter().filter(|&&l| l != EMPTY).count(), 2);
        assert_eq!(off, 1);
        // Scored as a Go player reads it: the stone between two crossings
        // stands on the nearer (4.5, 4.0 rounds to 5, 4); a second box on a
        // crossing, or one off the board, is off.
        let more = [(WHITE, 150.0, 90.0), (BLACK, 250.0, 90.0)];
        let all: Vec<_> = boxes.iter().chain(&more).copied().collect();
        let (labels, off) = place(&all, &quad, 9, true).unwrap();
        assert_eq!(labels[4 * 9 + 5], BLACK);
        assert_eq!(labels.iter().filter(|&&l| l != EMPTY).count(), 3);
        assert_eq!(off, 2);
    }

    #[test]
    fn the_held_out_part_is_the_datas_test_and_valid_folders() {
        assert_eq!(parts_of("val"), &["test", "valid"]);
        assert_eq!(parts_of("train"), &["train"]);
    }
}
