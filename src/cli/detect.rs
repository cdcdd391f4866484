use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::board::read_frame;
use super::{BoardArgs, ModelArgs};
use crate::classify::CropView;
use crate::geometry::GridSpec;
use crate::infer::placement_classes;
use crate::infer::WhiteSide;
use crate::record::{RecordFile, Tags};
use crate::rules::go::{Go, GoOptions};
use crate::rules::{Occupant, Rules, Square};
use boardscribe_cli::usage;

#[derive(Args, Debug)]
pub struct DetectArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Print one JSON object per image and line.
    #[arg(long)]
    pub json: bool,
    /// Adapt to this board using the first image, whose position this FEN-style
    /// placement gives (ranks top to bottom as White sees them, `/` between ranks;
    /// upper case white, lower case black, digits for empty runs).
    #[arg(long)]
    pub adapt_fen: Option<String>,
    /// Where White sits, to map --adapt-fen onto the grid (default bottom).
    #[arg(long, default_value = "bottom")]
    pub white: String,
    /// The game whose position the photo shows: `go` reads a 19x19:points grid
    /// unless --grid says otherwise, and with --out writes the position.
    #[arg(long, value_parser = ["go"])]
    pub game: Option<String>,
    /// With --game go and one photo: write its position as an SGF set-up (AB, AW;
    /// the SGF's first line is the photo's top edge).
    #[arg(long, requires = "game")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// The images.
    #[arg(required = true)]
    pub images: Vec<PathBuf>,
}

#[derive(Serialize)]
struct DetectJson<'a> {
    image: &'a str,
    rows: u32,
    cols: u32,
    cells: Vec<Vec<String>>,
    probs: Vec<Vec<[f32; 3]>>,
    occluded: Vec<Vec<bool>>,
}

pub fn run(mut a: DetectArgs) -> anyhow::Result<()> {
    if a.game.is_some() {
        a.board.default_grid = Some(GridSpec::points(19, 19));
    }
    if a.out.is_some() && a.images.len() > 1 {
        return Err(usage!("--out writes one photo's position: give one image"));
    }
    let mut lens = a.board.undistorter()?;
    let locating = a.board.needs_locating()?;
    let first = read_frame(&a.images[0], lens.as_mut())?;
    let mut pose = a
        .board
        .pose_in(&first, &format!("'{}'", a.images[0].display()))?;
    let grid = pose.grid();
    let mut classifier = a.model.load_for(grid.points)?;
    if let Some(fen) = &a.adapt_fen {
        let side: WhiteSide = a.white.parse().map_err(anyhow::Error::msg)?;
        let classes = placement_classes(fen, side, grid.rows, grid.cols)
            .map_err(|e| anyhow::anyhow!("--adapt-fen '{fen}': {e}"))?;
        let view = CropView::new(&pose);
        let rect = view.rectify(&first)?;
        if !classifier.adapt_to(&view, &rect, &classes, |_| true)? {
            errln!("warning: this model has no embedding output; --adapt-fen has no effect");
        }
    }
    for (k, path) in a.images.iter().enumerate() {
        let image = if k == 0 {
            first.clone()
        } else {
            read_frame(path, lens.as_mut())?
        };
        // Without corners, every photo has its own view of the board.
        if locating && k > 0 {
            pose = a.board.pose_in(&image, &format!("'{}'", path.display()))?;
        }
        let view = CropView::new(&pose);
        let rect = view.rectify(&image)?;
        let readings = classifier.read_all(&view, &rect)?;
        let at = |r: u32, c: u32| &readings[(r * grid.cols + c) as usize];
        let rows = 0..grid.rows;
        let name = path.to_string_lossy();
        if let Some(out) = &a.out {
            let label = |r: u32, c: u32| visible_label(&at(r, c).probs);
            write_go_setup(out, grid, &label)?;
        }
        if a.json {
            let j = DetectJson {
                image: &name,
                rows: grid.rows,
                cols: grid.cols,
                cells: rows
                    .clone()
                    .map(|r| {
                        (0..grid.cols)
                            .map(|c| {
                                let l = at(r, c).label();
                                // Hidden sites still get their best visible label.
                                let l = if l == 'h' {
                                    visible_label(&at(r, c).probs)
                                } else {
                                    l
                                };
                                l.to_string()
                            })
                            .collect()
                    })
                    .collect(),
                probs: rows
                    .clone()
                    .map(|r| (0..grid.cols).map(|c| at(r, c).probs).collect())
                    .collect(),
                occluded: rows
                    .map(|r| (0..grid.cols).map(|c| at(r, c).occluded > 0.5).collect())
                    .collect(),
            };
            outln!("{}", serde_json::to_string(&j)?);
        } else {
            outln!("{name}");
            for r in rows {
                let line: String = (0..grid.cols).map(|c| at(r, c).label()).collect();
                outln!("{line}");
            }
        }
    }
    Ok(())
}

/// A photo's stones as a Go game's set-up, written as an SGF to `out`.
fn write_go_setup(
    out: &Path,
    grid: GridSpec,
    label: &dyn Fn(u32, u32) -> char,
) -> anyhow::Result<()> {
    let size = u8::try_from(grid.rows)
        .ok()
        .filter(|_| grid.points && grid.rows == grid.cols);
    let Some(game) = size.and_then(|n| Go::new(GoOptions::sized(n)).ok()) else {
        return Err(usage!(
            "--game go reads a square points grid such as 19x19:points, not {grid}"
        ));
    };
    // Rows from the photo's top edge: the bottom row is Go's row 1.
    let occupant = |sq: Square| match label(grid.rows - 1 - u32::from(sq.rank), u32::from(sq.file))
    {
        'w' => Occupant::White,
        'b' => Occupant::Black,
        _ => Occupant::Empty,
    };
    let set = game.set_up(&occupant).ok_or_else(|| {
        anyhow::anyhow!("the stones read make no Go position (a group without a liberty)")
    })?;
    let tags = Tags {
        date: crate::record::today(),
        ..Tags::default()
    };
    let text = RecordFile::new(&set, &tags).render();
    crate::record::write_atomic(out, &text)
        .map_err(|e| anyhow::anyhow!("cannot write '{}': {e}", out.display()))?;
    errln!("position written to {}", out.display());
    Ok(())
}

fn visible_label(p: &[f32; 3]) -> char {
    let i = (0..3).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap_or(0);
    ['.', 'w', 'b'][i]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::WhiteSide;

    #[test]
    fn placement_maps_to_grid_order() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let c = placement_classes(start, WhiteSide::Bottom, 8, 8).unwrap();
        assert_eq!(&c[0..8], &[2; 8]);
        assert_eq!(&c[56..64], &[1; 8]);
        let c = placement_classes(start, WhiteSide::Left, 8, 8).unwrap();
        // White on the left: columns 0 and 1 are white.
        assert_eq!((c[0], c[1], c[6], c[7]), (1, 1, 2, 2));
        assert!(placement_classes("8/8", WhiteSide::Bottom, 8, 8).is_err());
        assert!(placement_classes(
            "rnbqkbnr/pppp?ppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            WhiteSide::Bottom,
            8,
            8
        )
        .is_err());
    }
}
