//! Per-site image change between consecutive photos of a game, beside the truth:
//! the data the change model of `infer` is fitted and checked on.
//!
//! `cargo run --example change_dump -- photos DIR` (a folder from `render photos`)
//! or `cargo run --example change_dump -- bgu N` (bgu-chess game N, evaluation
//! only). Prints CSV on stdout: pair, site, change, changed, before, after,
//! neighbours_changed, hand.

use boardscribe_cli::outln;
use std::path::Path;

use boardscribe_vision::classify::CropView;
use boardscribe_vision::geometry::{BoardPose, Corners, GridSpec};
use boardscribe_vision::track::site_changes;

struct Photo {
    path: std::path::PathBuf,
    labels: Vec<u8>,
    hand: bool,
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (photos, pose) = match args.first().map(String::as_str) {
        Some("photos") => rendered(Path::new(&args[1]))?,
        Some("bgu") => bgu(args[1].parse()?)?,
        _ => anyhow::bail!("usage: change_dump photos DIR | bgu N"),
    };
    let view = CropView::new(&pose);
    let g = pose.grid();
    let rects: Vec<_> = (0..g.rows)
        .flat_map(|r| (0..g.cols).map(move |c| (r, c)))
        .map(|(r, c)| view.cell_rect(r, c))
        .collect();
    outln!("pair,site,change,changed,before,after,neighbours_changed,hand");
    let mut prev: Option<(opencv::core::Mat, &Photo)> = None;
    for p in &photos {
        let img = boardscribe_vision::capture::read_image(&p.path)?;
        let rect = view.rectify(&img)?;
        if let Some((a, pa)) = &prev {
            let d = site_changes(a, &rect, &rects);
            let cols = g.cols as i32;
            for (i, x) in d.iter().enumerate() {
                let changed = |j: usize| pa.labels[j] != p.labels[j];
                let (r, c) = (i as i32 / cols, i as i32 % cols);
                let mut n = 0;
                for dr in -1..=1 {
                    for dc in -1..=1 {
                        let (rr, cc) = (r + dr, c + dc);
                        if (dr, dc) != (0, 0)
                            && (0..g.rows as i32).contains(&rr)
                            && (0..cols).contains(&cc)
                            && changed((rr * cols + cc) as usize)
                        {
                            n += 1;
                        }
                    }
                }
                outln!(
                    "{},{},{:.3},{},{},{},{},{}",
                    p.path.file_name().unwrap().to_string_lossy(),
                    i,
                    x.unwrap_or(-1.0),
                    changed(i) as u8,
                    pa.labels[i],
                    p.labels[i],
                    n,
                    p.hand as u8
                );
            }
        }
        prev = Some((rect, p));
    }
    Ok(())
}

fn rendered(dir: &Path) -> anyhow::Result<(Vec<Photo>, BoardPose)> {
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("truth.json"))?)?;
    let grid: GridSpec = truth["grid"].as_str().unwrap_or("8x8").parse()?;
    let mut photos = Vec::new();
    let mut corners = None;
    for p in truth["photos"].as_array().into_iter().flatten() {
        let labels = p["cells"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|row| row.as_array().cloned().unwrap_or_default())
            .map(|c| match c.as_str() {
                Some("w") => 1,
                Some("b") => 2,
                _ => 0,
            })
            .collect();
        if corners.is_none() {
            let c: Vec<(f64, f64)> = p["corners"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|xy| (xy[0].as_f64().unwrap_or(0.0), xy[1].as_f64().unwrap_or(0.0)))
                .collect();
            corners = Some(Corners::new([c[0], c[1], c[2], c[3]])?);
        }
        photos.push(Photo {
            path: dir.join(p["image"].as_str().unwrap_or("")),
            labels,
            hand: p["hand_occludes"].as_bool().unwrap_or(false),
        });
    }
    let corners = corners.ok_or_else(|| anyhow::anyhow!("no photos"))?;
    Ok((photos, BoardPose::new(grid, corners)))
}

fn bgu(game: u32) -> anyhow::Result<(Vec<Photo>, BoardPose)> {
    let refs = boardscribe_lab::sets::bgu_game(Path::new("../shared/data"), game)?;
    let pose = refs[0].pose;
    let photos = refs
        .into_iter()
        .map(|r| Photo {
            path: r.path,
            labels: r.labels,
            hand: false,
        })
        .collect();
    Ok((photos, pose))
}
