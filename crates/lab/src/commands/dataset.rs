use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::classify::CropView;
use crate::export::CropSet;
use crate::sets::{self, Labelled, SynthSetOptions, EMPTY};
use crate::synth::Rng;

#[derive(Args, Debug)]
pub struct DatasetArgs {
    #[command(subcommand)]
    pub kind: DatasetKind,
}

#[derive(Subcommand, Debug)]
pub enum DatasetKind {
    /// Crops of rendered scenes (every grid kind, style, pose, light; with hands).
    Synth {
        /// Number of scenes to render.
        #[arg(long)]
        count: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
        /// Share of scenes with a hand over the board.
        #[arg(long, default_value_t = 0.3, value_parser = super::values::float_in(0.0, 1.0))]
        hands: f64,
        /// Keep this share of empty sites (boards are mostly empty).
        #[arg(long, default_value_t = 0.5, value_parser = super::values::float_in(0.0, 1.0))]
        keep_empty: f64,
        /// Share of scenes drawn from the renderer's presets (overhead club webcam,
        /// vinyl board, travel set, Tablut, oblique Go) with random positions.
        #[arg(long, default_value_t = 0.0, value_parser = super::values::float_in(0.0, 1.0))]
        presets: f64,
    },
    /// Crops of a real photo set whose licence allows training, with hand-annotated
    /// corners (go-roboflow: located automatically, kept where its stones' boxes sit
    /// on the crossings). Never bgu-chess: it is for evaluation only.
    Real {
        /// chess-ray-vision, chesscog-grey, raspberry-turk, webcam-pcwawc, imago-go or
        /// go-roboflow.
        #[arg(long)]
        set: String,
        #[arg(long, default_value = "../shared/data")]
        data: PathBuf,
        #[arg(long, default_value = "tests/data/real_corners.json")]
        corners: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// Copies of each photo with the corners jittered (small photo sets).
        #[arg(long, default_value_t = 4)]
        copies: u32,
        /// Corner jitter, in cells.
        #[arg(long, default_value_t = 0.06, value_parser = super::values::float_in(0.0, 0.5))]
        jitter: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Keep this share of empty sites.
        #[arg(long, default_value_t = 1.0, value_parser = super::values::float_in(0.0, 1.0))]
        keep_empty: f64,
        /// Leave out images whose path in the set starts with this (a held-out
        /// evaluation part, such as t3/ of imago-go).
        #[arg(long)]
        exclude: Vec<String>,
        /// Which photos: the part kept for training (train, the default), the
        /// held-out part (val), or all.
        #[arg(long, default_value = "train", value_parser = ["all", "train", "val"])]
        split: String,
    },
}

pub fn run(a: DatasetArgs) -> anyhow::Result<()> {
    match a.kind {
        DatasetKind::Synth {
            count,
            seed,
            out,
            hands,
            keep_empty,
            presets,
        } => {
            let opts = SynthSetOptions {
                hands,
                presets,
                ..SynthSetOptions::default()
            };
            let mut set = CropSet::default();
            let mut rng = Rng::new(seed ^ 0x5eed);
            for i in 0..count {
                let l = sets::random_scene(Rng::derive(seed, i).next_u64(), &opts)?;
                add(&mut set, &l, keep_empty, &mut rng)?;
                if (i + 1) % 100 == 0 {
                    errln!("{} scenes, {} crops", i + 1, set.len());
                }
            }
            set.write(
                &out,
                &serde_json::json!({"source": if presets > 0.0 { "synth-presets" } else { "synth" },
                    "scenes": count, "seed": seed, "hands": hands, "presets": presets}),
            )?;
            outln!(
                "{} crops {:?} in {}",
                set.len(),
                set.counts(),
                out.display()
            );
        }
        DatasetKind::Real {
            set: name,
            data,
            corners,
            out,
            copies,
            jitter,
            seed,
            keep_empty,
            exclude,
            split,
        } => {
            anyhow::ensure!(
                name != "bgu-chess",
                "bgu-chess is evaluation-only: it must never be used for training"
            );
            let refs: Vec<_> = sets::real_set(&data, &corners, &name, &split)?
                .into_iter()
                .filter(|r| {
                    !exclude
                        .iter()
                        .any(|x| r.name.starts_with(&format!("{name}/{x}")))
                })
                .filter(|r| super::eval::in_split(&split, &name, &r.name))
                .collect();
            let mut set = CropSet::default();
            let mut rng = Rng::new(seed);
            for r in &refs {
                let l = r.load()?;
                for k in 0..copies.max(1) {
                    let mut lj = Labelled {
                        name: l.name.clone(),
                        image: l.image.clone(),
                        pose: l.pose,
                        labels: l.labels.clone(),
                    };
                    if k > 0 {
                        lj.pose = jitter_pose(&l.pose, jitter, &mut rng);
                    }
                    add(&mut set, &lj, keep_empty, &mut rng)?;
                }
            }
            set.write(
                &out,
                &serde_json::json!({"source": name, "split": split, "images": refs.len(), "copies": copies}),
            )
            .with_context(|| format!("writing {}", out.display()))?;
            outln!(
                "{} crops {:?} in {}",
                set.len(),
                set.counts(),
                out.display()
            );
        }
    }
    Ok(())
}

fn jitter_pose(
    pose: &crate::geometry::BoardPose,
    jitter: f64,
    rng: &mut Rng,
) -> crate::geometry::BoardPose {
    let cell = pose.mean_cell_px();
    let pts = pose.corners().points().map(|(x, y)| {
        (
            x + rng.normal() * jitter * cell,
            y + rng.normal() * jitter * cell,
        )
    });
    crate::geometry::Corners::new(pts)
        .map(|c| crate::geometry::BoardPose::new(pose.grid(), c))
        .unwrap_or(*pose)
}

fn add(set: &mut CropSet, l: &Labelled, keep_empty: f64, rng: &mut Rng) -> anyhow::Result<()> {
    let view = CropView::new(&l.pose);
    let rect = view.rectify(&l.image)?;
    let g = l.pose.grid();
    let sites: Vec<(u32, u32, u8)> = (0..g.rows)
        .flat_map(|r| (0..g.cols).map(move |c| (r, c)))
        .map(|(r, c)| (r, c, l.labels[(r * g.cols + c) as usize]))
        .filter(|&(_, _, label)| label != EMPTY || rng.chance(keep_empty))
        .collect();
    set.add(&view, &rect, &sites);
    Ok(())
}
