//! `bench --what photos`: recording a folder of photos (480x480, corners given) against
//! reading the same photos with `detect`'s loop (decode, rectify, classify every site),
//! in the same run: the reference for what the recorder adds (issue 23).

use std::path::Path;
use std::time::Instant;

use anyhow::Context;

use super::bench_record::TempDir;
use super::ModelArgs;
use crate::capture::{self, SourceOptions};
use crate::classify::{Classifier, CropView};
use crate::cputime::process_cpu_ms;
use crate::geometry::{BoardPose, Corners};
use crate::infer::WhiteSide;
use crate::pipeline::{self, RecordJob};
use crate::record::parse_pgn;
use crate::rules::chess::Chess;
use crate::sets::board_state;
use crate::synth::photos::{render_photos, PhotoOptions};
use crate::synth::SceneParams;

/// The game the rendered folder shows: the Immortal Game, 45 half-moves, 46 photos.
const GAME: &str = include_str!("../../../../tests/data/games/immortal.pgn");

/// Wall and process CPU seconds of one run.
#[derive(Clone, Copy)]
struct Times {
    wall: f64,
    cpu: f64,
}

fn time(f: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<Times> {
    let (s, c) = (Instant::now(), process_cpu_ms());
    f()?;
    Ok(Times {
        wall: s.elapsed().as_secs_f64(),
        cpu: (process_cpu_ms() - c) / 1000.0,
    })
}

fn median(mut v: Vec<Times>) -> Times {
    v.sort_by(|a, b| a.cpu.total_cmp(&b.cpu));
    v[v.len() / 2]
}

/// The job `record` runs on a folder of photos: every photo a still view.
fn photo_job(pose: BoardPose, out: std::path::PathBuf) -> RecordJob {
    let (track, infer) = crate::pipeline::still_policy(true, None);
    RecordJob {
        timeline: Default::default(),
        pose,
        white: Some(WhiteSide::Bottom),
        track,
        infer,
        tags: Default::default(),
        out,
        debug: false,
        progress: false,
        adapt: true,
    }
}

pub fn bench_photos(model: &ModelArgs, data: &Path, runs: usize) -> anyhow::Result<()> {
    let mut classifier = model.load()?;
    let dir = TempDir::new("photos")?;
    let (folder, pose) = render_folder(&dir.0.join("rendered"))?;
    measure(
        &mut classifier,
        "rendered Immortal Game",
        &folder,
        pose,
        &dir.0,
        runs,
    )?;
    for game in [4, 5, 7] {
        let refs = match crate::sets::bgu_game(data, game) {
            Ok(r) => r,
            Err(e) => {
                outln!("photos bgu-chess game {game}: skipped ({e})");
                continue;
            }
        };
        let Some(pose) = refs.first().map(|r| r.pose) else {
            continue;
        };
        let folder = data
            .join("bgu-chess")
            .join(format!("game{game}_per_frame"))
            .join("tagged_images");
        measure(
            &mut classifier,
            &format!("bgu-chess game {game}"),
            &folder,
            pose,
            &dir.0,
            runs,
        )?;
    }
    Ok(())
}

/// The Immortal Game photographed position by position at 480x480 (the overhead
/// preset, default shake, light and hands), and the first photo's corners.
fn render_folder(out: &Path) -> anyhow::Result<(std::path::PathBuf, BoardPose)> {
    let rec = parse_pgn(GAME).map_err(anyhow::Error::msg)?;
    let mut g = Chess::new();
    let mut states = vec![board_state(&g, WhiteSide::Bottom)];
    for u in rec.ucis() {
        g.play_uci(&u).map_err(anyhow::Error::msg)?;
        states.push(board_state(&g, WhiteSide::Bottom));
    }
    let mut p = SceneParams::chess_overhead(5, false);
    (p.width, p.height) = (480, 480);
    std::fs::create_dir_all(out)?;
    let mut first = None;
    render_photos(&p, &states, &PhotoOptions::default(), |i, r| {
        if i == 0 {
            first = Some(r.corners);
        }
        let path = out.join(format!("photo_{:04}.jpg", i + 1));
        let err = |e: String| crate::synth::SynthError(format!("writing photos: {e}"));
        let file = std::fs::File::create(&path).map_err(|e| err(e.to_string()))?;
        image::codecs::jpeg::JpegEncoder::new_with_quality(std::io::BufWriter::new(file), 90)
            .encode_image(&r.image)
            .map_err(|e| err(e.to_string()))
    })?;
    let c = first.context("no photos rendered")?;
    let corners = Corners::new(c.map(|[x, y]| (x, y)))?;
    Ok((out.to_path_buf(), BoardPose::new("8x8".parse()?, corners)))
}

/// Times `record` on the folder and `detect`'s loop on the same photos, medians of
/// `runs` (at least 3) each, alternating.
fn measure(
    classifier: &mut Classifier,
    name: &str,
    folder: &Path,
    pose: BoardPose,
    tmp: &Path,
    runs: usize,
) -> anyhow::Result<()> {
    let input = folder.to_string_lossy().to_string();
    let mut photos = 0;
    let mut plies = 0;
    let (mut rec, mut det) = (Vec::new(), Vec::new());
    for _ in 0..runs.clamp(3, 7) {
        det.push(time(|| {
            let view = CropView::new(&pose);
            photos = 0;
            for frame in capture::open(&input, SourceOptions::default())? {
                let frame = frame?;
                let rect = view.rectify(&frame.image)?;
                classifier.read_all(&view, &rect)?;
                photos += 1;
            }
            Ok(())
        })?);
        let job = photo_job(pose, tmp.join("photos.pgn"));
        rec.push(time(|| {
            classifier.forget_board();
            let mut src = capture::open(&input, SourceOptions::default())?;
            let sum = pipeline::record(Chess::new(), classifier, src.as_mut(), &job, &mut |_| {})?;
            plies = sum.plies;
            classifier.forget_board();
            Ok(())
        })?);
    }
    let (r, d) = (median(rec), median(det));
    let rate = |t: f64| photos as f64 / t;
    outln!(
        "photos {name}: {photos} photos, {} plies recorded; record {:.2} s CPU ({:.1} photos/s; wall {:.2} s), detect's loop {:.2} s CPU ({:.1} photos/s): record takes {:.2}x detect's time (medians of {})",
        plies,
        r.cpu,
        rate(r.cpu),
        r.wall,
        d.cpu,
        rate(d.cpu),
        r.cpu / d.cpu,
        runs.clamp(3, 7)
    );
    Ok(())
}
