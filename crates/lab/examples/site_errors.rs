//! Where on the board a labelled set's sites are misread: per site of the grid,
//! how often the classifier's reading differs from the label, as a grid.
//!
//! `cargo run --example site_errors -- SET [GAME]` with SET bgu-chess (evaluation
//! only: for diagnosis, never for tuning) or a real set `eval` knows.

use boardscribe_cli::outln;
use std::path::Path;

use boardscribe_lab::sets;
use boardscribe_vision::classify::{Classifier, CropView, OccupancyModel};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let data = Path::new("../shared/data");
    let refs = match args.first().map(String::as_str) {
        Some("bgu-chess") => sets::bgu_game(data, args.get(1).map_or(Ok(5), |g| g.parse())?)?,
        Some(set) => sets::annotated_set(data, Path::new("tests/data/real_corners.json"), set)?,
        None => anyhow::bail!("usage: site_errors SET [GAME]"),
    };
    let classifier = Classifier::new(OccupancyModel::load(Path::new("models/occupancy.onnx"))?);
    let g = refs[0].pose.grid();
    let mut wrong = vec![0usize; g.len()];
    let mut seen = vec![0usize; g.len()];
    for r in &refs {
        let l = r.load()?;
        let view = CropView::new(&l.pose);
        let rect = view.rectify(&l.image)?;
        for (i, reading) in classifier.read_all(&view, &rect)?.iter().enumerate() {
            let label = l.labels[i];
            if label > 2 {
                continue;
            }
            seen[i] += 1;
            let got = match reading.label() {
                '.' => 0,
                'w' => 1,
                'b' => 2,
                _ => 3,
            };
            wrong[i] += usize::from(got != label);
        }
    }
    for row in 0..g.rows as usize {
        let line: Vec<String> = (0..g.cols as usize)
            .map(|c| format!("{:4}", wrong[row * g.cols as usize + c]))
            .collect();
        outln!("{}", line.join(""));
    }
    outln!(
        "{} images, {} misread sites",
        refs.len(),
        wrong.iter().sum::<usize>()
    );
    Ok(())
}
