//! `bench --what go`: the recorder on a 19x19 Go board (issue 30 asks for at least 30x
//! real time on one core for 640x480 video). A rendered 640x480 30 fps clip of a Go
//! game with hands over the board, read with Go's model, from memory and from an .mp4
//! file (decoding included); the reference is the clip's own duration. Run it under
//! `taskset -c 1` for one core: times are the process's CPU (every thread).

use std::time::Instant;

use opencv::core::Mat;

use super::bench_record::{bench_frames, job, report, write_mp4, TempDir, FILE_READS, FPS};
use super::ModelArgs;
use crate::capture::{self, FrameSource, MemorySource, SourceOptions};
use crate::classify::Classifier;
use crate::geometry::BoardPose;
use crate::pipeline::{self, RecordJob};
use crate::rules::go::{Go, GoOptions};
use crate::sets::go::{random_go_game, GoGame};
use crate::synth::SceneParams;

/// Stones of the bench game: a clip of about half a minute.
const STONES: usize = 12;
const SEED: u64 = 7;

/// The bench game and its 640x480 30 fps clip, as BGR frames, with the board's pose.
fn go_clip() -> anyhow::Result<(GoGame, Vec<Mat>, BoardPose)> {
    let game = random_go_game(19, STONES, SEED)?;
    let mut p = SceneParams::go_oblique(SEED);
    (p.width, p.height) = (640, 480);
    let (frames, pose) = bench_frames(&p, &game.states(false).0, "19x19:points")?;
    Ok((game, frames, pose))
}

/// Wall and process CPU seconds of recording `source`; the record must be the game.
fn timed(
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
    game: &GoGame,
) -> anyhow::Result<(f64, f64)> {
    let go = Go::new(GoOptions::default())?;
    let (s, c) = (Instant::now(), crate::cputime::process_cpu_ms());
    let sum = pipeline::record(go, classifier, source, job, &mut |_| {})?;
    let t = (
        s.elapsed().as_secs_f64(),
        (crate::cputime::process_cpu_ms() - c) / 1000.0,
    );
    let written = std::fs::read_to_string(&job.out)?;
    let like = Go::new(GoOptions::default())?;
    let got = GoGame::from_sgf(&written, &like).map_err(|e| anyhow::anyhow!("{e}"))?;
    anyhow::ensure!(
        sum.plies == game.moves.len() && got.moves == game.moves,
        "the bench clip was recorded wrongly ({} plies for {}): {written}, not {}",
        sum.plies,
        game.moves.len(),
        game.to_sgf()
    );
    Ok(t)
}

pub fn bench_record_go(model: &ModelArgs, runs: usize) -> anyhow::Result<()> {
    let mut classifier = model.load_for(true)?;
    let (game, frames, pose) = go_clip()?;
    let dir = TempDir::new("record-go")?;
    let job = job(&pose, dir.0.join("bench.sgf"), None);
    let clip = format!("go 19x19 640x480 30 fps, {} stones", game.moves.len());
    let report = |what: &str, times| report(&clip, what, frames.len(), times);
    let runs = runs.clamp(1, 9);
    let mut times = Vec::new();
    for _ in 0..runs {
        let _ = std::fs::remove_file(&job.out);
        let mut src = MemorySource::new(frames.clone(), FPS);
        times.push(timed(&mut classifier, &mut src, &job, &game)?);
    }
    report("frames in memory", times);

    let video = dir.0.join("bench.mp4");
    write_mp4(&frames, &video)?;
    for (max_fps, what) in FILE_READS {
        let mut times = Vec::new();
        for _ in 0..runs {
            let _ = std::fs::remove_file(&job.out);
            let opts = SourceOptions::default().with_max_fps(max_fps);
            let mut src = capture::open(&video.to_string_lossy(), opts)?;
            times.push(timed(&mut classifier, src.as_mut(), &job, &game)?);
        }
        report(what, times);
    }
    Ok(())
}
