use std::path::PathBuf;

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use super::ModelArgs;
use crate::classify::{Classifier, CropView};
use crate::sets::{self, Labelled, SynthSetOptions, HIDDEN};
use crate::synth::Rng;

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// synth (fresh renders), bgu-chess (evaluation only), chess-ray-vision,
    /// chesscog-grey, raspberry-turk, webcam-pcwawc, imago-go or go-roboflow (its
    /// stones' photos, each board located automatically).
    #[arg(long)]
    pub set: String,
    /// Real sets other than bgu-chess: all photos, only the part held out of
    /// training (val), or only the part trained on (train).
    #[arg(long, default_value = "all", value_parser = ["all", "train", "val"])]
    pub split: String,
    /// bgu-chess game numbers (default 4, 5 and 7, each reported apart).
    #[arg(long, value_delimiter = ',')]
    pub game: Vec<u32>,
    /// synth: number of scenes.
    #[arg(long, default_value_t = 200)]
    pub count: u64,
    /// synth: seed (use one the training set did not use).
    #[arg(long, default_value_t = 999)]
    pub seed: u64,
    /// synth: share of scenes drawn from the renderer's presets (1 = only the
    /// overhead webcam, vinyl, travel set, Tablut and oblique Go scenes).
    #[arg(long, default_value_t = 0.0, value_parser = super::values::float_in(0.0, 1.0))]
    pub presets: f64,
    #[arg(long, default_value = "../shared/data")]
    pub data: PathBuf,
    /// The annotated corners of the real sets (a JSON file; `--corners` is kept
    /// as another name for it).
    #[arg(
        long = "annotations",
        alias = "corners",
        default_value = "tests/data/real_corners.json"
    )]
    pub corners: PathBuf,
    /// Only images whose path in the set starts with one of these (e.g. t3/).
    #[arg(long)]
    pub only: Vec<String>,
    /// Adapt to each game's board on its first image (its position is known).
    #[arg(long)]
    pub adapt: bool,
    /// Learn each game's board as the recorder does: every image is read with what
    /// the images before it in the same folder taught (their labels), and then
    /// teaches its own.
    #[arg(long, conflicts_with = "adapt")]
    pub adapt_online: bool,
    /// Real sets: find the board with `locate` instead of using the annotated corners
    /// (which then only settle a square board's quarter turn, as the game would).
    /// A photo where no board is found counts every site wrong.
    #[arg(long)]
    pub locate: bool,
    /// bgu-chess: record each game from its photos as `record` would (White at the
    /// bottom, corners the image's) and count the half-moves that match the true game.
    #[arg(long)]
    pub record: bool,
    /// --record: where the recorded PGN files go (default: a folder in the temp dir).
    #[arg(long)]
    pub out_dir: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// Accuracy figures for one labelled set.
#[derive(Debug, Default, Serialize, Clone)]
pub struct EvalReport {
    pub name: String,
    pub images: usize,
    /// Visible sites (label not hidden).
    pub sites: usize,
    pub correct: usize,
    pub accuracy: f64,
    /// Visible sites that the model itself flags as hidden (counted wrong above).
    pub flagged_hidden: usize,
    /// Accuracy over the visible sites the model does not flag as hidden.
    pub accuracy_unflagged: f64,
    /// Images with every visible site right.
    pub exact_boards: usize,
    /// rows: truth empty/white/black/hidden; columns: predicted empty/white/black/hidden.
    pub confusion: [[usize; 4]; 4],
    /// With `--locate`: photos where no board was found.
    pub not_located: usize,
}

pub fn run(a: EvalArgs) -> anyhow::Result<()> {
    // Go's sets are read by the model for stones on line crossings.
    let points = matches!(a.set.as_str(), "imago-go" | "go-roboflow");
    let mut classifier = a.model.load_for(points)?;
    let mut reports = Vec::new();
    match a.set.as_str() {
        "synth" => {
            let opts = SynthSetOptions {
                corner_jitter: 0.0,
                presets: a.presets,
                ..SynthSetOptions::default()
            };
            let presets = if a.presets > 0.0 {
                format!(", presets {}", a.presets)
            } else {
                String::new()
            };
            let mut rep = EvalReport {
                name: format!("synth (seed {}, {} scenes{presets})", a.seed, a.count),
                ..EvalReport::default()
            };
            for i in 0..a.count {
                let l = sets::random_scene(Rng::derive(a.seed, i).next_u64(), &opts)?;
                score(&classifier, &l, &mut rep)?;
            }
            reports.push(finish(rep));
        }
        "bgu-chess" => {
            let games = if a.game.is_empty() {
                vec![4, 5, 7]
            } else {
                a.game.clone()
            };
            if a.record {
                let dir = a
                    .out_dir
                    .clone()
                    .unwrap_or_else(|| std::env::temp_dir().join("boardscribe-eval"));
                for g in games {
                    let s = super::eval_record::record_bgu_game(
                        &mut classifier,
                        &a.data,
                        g,
                        &dir,
                        a.locate,
                    )?;
                    if a.json {
                        outln!("{}", serde_json::to_string(&s)?);
                    } else {
                        super::eval_record::print_score(&s);
                    }
                }
                return Ok(());
            }
            for g in games {
                let refs = sets::bgu_game(&a.data, g)?;
                reports.push(eval_refs(
                    &mut classifier,
                    &format!("bgu-chess game {g}"),
                    &refs,
                    Adapt::of(&a),
                    a.locate,
                )?);
            }
        }
        set if sets::TRAINABLE_SETS.contains(&set) => {
            let refs: Vec<_> = sets::real_set(&a.data, &a.corners, &a.set, &a.split)?
                .into_iter()
                .filter(|r| {
                    a.only.is_empty()
                        || a.only
                            .iter()
                            .any(|x| r.name.starts_with(&format!("{}/{x}", a.set)))
                })
                .filter(|r| in_split(&a.split, set, &r.name))
                .collect();
            let mut name = if a.only.is_empty() {
                a.set.clone()
            } else {
                format!("{} ({})", a.set, a.only.join(", "))
            };
            if a.split != "all" {
                name = format!("{name}, {} split", a.split);
            }
            let name = if a.locate {
                format!("{name}, board located automatically")
            } else {
                name
            };
            reports.push(eval_refs(
                &mut classifier,
                &name,
                &refs,
                Adapt::of(&a),
                a.locate,
            )?);
        }
        other => bail!(
            "unknown set '{other}': use synth, bgu-chess or one of {}",
            sets::TRAINABLE_SETS.join(", ")
        ),
    }
    for r in &reports {
        if a.json {
            outln!("{}", serde_json::to_string(r)?);
        } else {
            print_report(r);
        }
    }
    Ok(())
}

/// Whether photo `name` of `set` is in the split asked for (`all`, `train`, `val`).
pub(super) fn in_split(split: &str, set: &str, name: &str) -> bool {
    match split {
        "train" => sets::split_of(set, name) == sets::Split::Train,
        "val" => sets::split_of(set, name) == sets::Split::Val,
        _ => true,
    }
}

/// How the classifier learns each board while it is measured.
#[derive(Clone, Copy, PartialEq)]
enum Adapt {
    Never,
    /// From the first image of each board.
    First,
    /// From every image, after it is read.
    Online,
}

impl Adapt {
    fn of(a: &EvalArgs) -> Adapt {
        match (a.adapt, a.adapt_online) {
            (_, true) => Adapt::Online,
            (true, _) => Adapt::First,
            _ => Adapt::Never,
        }
    }
}

fn eval_refs(
    classifier: &mut Classifier,
    name: &str,
    refs: &[sets::LabelledRef],
    adapt: Adapt,
    locate: bool,
) -> anyhow::Result<EvalReport> {
    let mut rep = EvalReport {
        name: format!(
            "{name}{}",
            match adapt {
                Adapt::Never => "",
                Adapt::First => " (adapted on the first image of each board)",
                Adapt::Online => " (learning each board from the images before)",
            }
        ),
        ..EvalReport::default()
    };
    classifier.forget_board();
    let mut group = None;
    for r in refs {
        let mut l = r.load()?;
        if locate {
            match crate::locate::locate(&l.image, l.pose.grid()) {
                Ok(found) => {
                    // The quarter turn nearest the annotation: the game settles it
                    // when recording.
                    let best = crate::locate::turned_like(
                        l.pose.grid(),
                        &found.corners,
                        &l.pose.corners(),
                    );
                    l.pose = crate::geometry::BoardPose::new(l.pose.grid(), best);
                }
                Err(_) => {
                    rep.not_located += 1;
                    rep.images += 1;
                    rep.sites += l.labels.iter().filter(|&&c| c < 3).count();
                    continue;
                }
            }
        }
        // A new board or camera (a bgu game, an imago-go sequence folder) starts a
        // new session: adapt on its first image, whose position is known.
        let g = r.path.parent().map(|p| p.to_path_buf());
        let new_board = g != group;
        group = g;
        if adapt == Adapt::First && new_board {
            let view = CropView::new(&l.pose);
            let rect = view.rectify(&l.image)?;
            let classes: Vec<usize> = l.labels.iter().map(|&c| c as usize).collect();
            classifier.adapt_to(&view, &rect, &classes, |_| true)?;
        }
        if adapt == Adapt::Online && new_board {
            classifier.forget_board();
        }
        let readings = score(classifier, &l, &mut rep)?;
        if adapt == Adapt::Online {
            // Sites read as hidden are not taught, as the recorder would not.
            let labelled: Vec<_> = readings
                .iter()
                .zip(&l.labels)
                .filter(|(r, &c)| r.occluded <= 0.5 && c < 3)
                .map(|(r, &c)| (r, c as usize))
                .collect();
            classifier.teach(&labelled);
        }
    }
    classifier.forget_board();
    Ok(finish(rep))
}

fn score(
    classifier: &Classifier,
    l: &Labelled,
    rep: &mut EvalReport,
) -> anyhow::Result<Vec<crate::classify::SiteReading>> {
    let view = CropView::new(&l.pose);
    let rect = view.rectify(&l.image)?;
    let readings = classifier.read_all(&view, &rect)?;
    let mut exact = true;
    for (reading, &truth) in readings.iter().zip(&l.labels) {
        let predicted = match reading.label() {
            '.' => 0,
            'w' => 1,
            'b' => 2,
            _ => 3,
        };
        rep.confusion[truth as usize][predicted] += 1;
        if truth == HIDDEN {
            continue;
        }
        rep.sites += 1;
        if predicted == truth as usize {
            rep.correct += 1;
        } else {
            exact = false;
        }
        if predicted == 3 {
            rep.flagged_hidden += 1;
        }
    }
    rep.images += 1;
    rep.exact_boards += exact as usize;
    Ok(readings)
}

fn finish(mut r: EvalReport) -> EvalReport {
    r.accuracy = r.correct as f64 / r.sites.max(1) as f64;
    r.accuracy_unflagged = r.correct as f64 / (r.sites - r.flagged_hidden).max(1) as f64;
    r
}

fn print_report(r: &EvalReport) {
    outln!("{}", r.name);
    if r.not_located > 0 {
        outln!(
            "  no board found in {} photos (their sites count wrong)",
            r.not_located
        );
    }
    outln!(
        "  sites {}  accuracy {:.4}%  exact boards {}/{}  flagged hidden {} (accuracy on the rest {:.4}%)",
        r.sites,
        100.0 * r.accuracy,
        r.exact_boards,
        r.images,
        r.flagged_hidden,
        100.0 * r.accuracy_unflagged
    );
    outln!("  confusion (rows truth, columns predicted): empty white black hidden");
    for (name, row) in ["empty", "white", "black", "hidden"]
        .iter()
        .zip(r.confusion)
    {
        outln!(
            "  {name:>7} {:>7} {:>7} {:>7} {:>7}",
            row[0],
            row[1],
            row[2],
            row[3]
        );
    }
}
