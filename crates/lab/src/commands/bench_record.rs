//! `bench --what record|memory`: the recorder's speed on 640x480 and 1280x720 30 fps clips,
//! from memory and from a video file (decoding included), and its resident memory
//! over a long recording.

use std::time::Instant;

use anyhow::Context;
use opencv::core::{Mat, Size};
use opencv::prelude::*;
use opencv::videoio::VideoWriter;

use super::ModelArgs;
use crate::capture::{self, FrameSource, MemorySource, SourceOptions};
use crate::classify::Classifier;
use crate::geometry::{BoardPose, Corners};
use crate::infer::{InferConfig, WhiteSide};
use crate::memory::MemorySampled;
use crate::pipeline::{self, RecordJob};
use crate::rules::chess::Chess;
use crate::sets::{board_state, rgb_to_bgr_mat};
use crate::synth::clip::{render_clip, ClipOptions};
use crate::synth::{BoardState, SceneParams};

pub(super) const FPS: f64 = 30.0;
const MOVES: [&str; 4] = ["e2e4", "e7e5", "g1f3", "b8c6"];

/// A `w`x`h` 30 fps clip of four moves with hands, as BGR frames.
fn bench_clip(w: u32, h: u32) -> anyhow::Result<(Vec<Mat>, BoardPose)> {
    let mut p = SceneParams::chess_overhead(3, false);
    p.width = w;
    p.height = h;
    let mut g = Chess::new();
    let mut states = vec![board_state(&g, WhiteSide::Bottom)];
    for u in MOVES {
        g.play_uci(u).map_err(anyhow::Error::msg)?;
        states.push(board_state(&g, WhiteSide::Bottom));
    }
    bench_frames(&p, &states, "8x8")
}

/// `states` filmed as the benches film them (30 fps, a second still, 1.2 s a move,
/// hands), as BGR frames, with the board's pose on `grid` in the first frame.
pub(super) fn bench_frames(
    p: &SceneParams,
    states: &[BoardState],
    grid: &str,
) -> anyhow::Result<(Vec<Mat>, BoardPose)> {
    let opts = ClipOptions {
        fps: FPS,
        still_s: 1.0,
        move_s: 1.2,
        ..ClipOptions::default()
    };
    let mut rgb = Vec::new();
    let truth = render_clip(p, states, &opts, |img, _| {
        rgb.push(img.clone());
        Ok(())
    })?;
    let frames = rgb.iter().map(rgb_to_bgr_mat).collect::<Result<_, _>>()?;
    let corners = Corners::new(truth.frames[0].corners.map(|[x, y]| (x, y)))?;
    Ok((frames, BoardPose::new(grid.parse()?, corners)))
}

/// The job the benches record with: `pose`, White at `white` (None: found).
pub(super) fn job(
    pose: &BoardPose,
    out: std::path::PathBuf,
    white: Option<WhiteSide>,
) -> RecordJob {
    RecordJob {
        pose: *pose,
        white,
        track: Default::default(),
        infer: InferConfig::default(),
        tags: Default::default(),
        out,
        debug: false,
        progress: false,
        adapt: true,
        timeline: Default::default(),
    }
}

/// One line of a recording bench: the median run (by CPU) of `times` (wall, CPU
/// seconds) over `frames` frames at 30 fps, against the clip's duration.
pub(super) fn report(clip: &str, what: &str, frames: usize, mut times: Vec<(f64, f64)>) {
    let seconds = frames as f64 / FPS;
    times.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (wall, cpu) = times[times.len() / 2];
    outln!(
        "record {clip}, {what}: {frames} frames ({seconds:.1} s of video) in {cpu:.2} s CPU: {:.1}x real time, {:.2} ms a frame (wall {wall:.2} s, {:.1}x; median of {})",
        seconds / cpu,
        1000.0 * cpu / frames as f64,
        seconds / wall,
        times.len()
    );
}

/// Wall and process CPU seconds of recording `source`.
fn timed(
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
) -> anyhow::Result<(f64, f64)> {
    let (s, c) = (Instant::now(), crate::cputime::process_cpu_ms());
    let sum = pipeline::record(Chess::new(), classifier, source, job, &mut |_| {})?;
    let t = (
        s.elapsed().as_secs_f64(),
        (crate::cputime::process_cpu_ms() - c) / 1000.0,
    );
    anyhow::ensure!(
        sum.plies == MOVES.len(),
        "the bench clip was recorded wrongly ({} plies)",
        sum.plies
    );
    Ok(t)
}

pub fn bench_record(model: &ModelArgs) -> anyhow::Result<()> {
    let mut classifier = model.load()?;
    for (w, h) in [(640, 480), (1280, 720)] {
        bench_size(&mut classifier, w, h)?;
    }
    Ok(())
}

/// The recorder on a `w`x`h` clip: frames in memory, then from an .mp4 file. The
/// reference is the clip's duration; times are process CPU (every thread), wall
/// alongside.
fn bench_size(classifier: &mut Classifier, w: u32, h: u32) -> anyhow::Result<()> {
    let (frames, pose) = bench_clip(w, h)?;
    let dir = TempDir::new("record")?;
    let job = job(&pose, dir.0.join("bench.pgn"), Some(WhiteSide::Bottom));
    let clip = format!("{w}x{h} 30 fps");
    let report = |what: &str, times| report(&clip, what, frames.len(), times);
    let mut times = Vec::new();
    for _ in 0..3 {
        let mut src = MemorySource::new(frames.clone(), FPS);
        times.push(timed(classifier, &mut src, &job)?);
    }
    report("frames in memory", times);
    if w == 1280 {
        bench_grid_check(&frames[0], &frames[1], &pose)?;
    }

    // The same clip as an H.264-class file (MPEG-4 part 2, what OpenCV writes
    // everywhere), read back through the normal video source.
    let video = dir.0.join("bench.mp4");
    write_mp4(&frames, &video)?;
    for (max_fps, what) in FILE_READS {
        let mut times = Vec::new();
        for _ in 0..3 {
            let opts = SourceOptions::default().with_max_fps(max_fps);
            let mut src = capture::open(&video.to_string_lossy(), opts)?;
            times.push(timed(classifier, src.as_mut(), &job)?);
        }
        report(what, times);
    }
    Ok(())
}

/// How the benches read a clip back from a file: every frame, then at
/// `record`'s default frame rate.
pub(super) const FILE_READS: [(Option<f64>, &str); 2] = [
    (None, "from an .mp4 file, every frame, decoding included"),
    (
        Some(15.0),
        "from an .mp4 file, `record`'s default --max-fps 15, decoding included",
    ),
];

/// `frames` (BGR, 30 fps) written to `path` as MPEG-4 part 2, which OpenCV writes
/// everywhere.
pub(super) fn write_mp4(frames: &[Mat], path: &std::path::Path) -> anyhow::Result<()> {
    let size = Size::new(frames[0].cols(), frames[0].rows());
    let code = VideoWriter::fourcc('m', 'p', '4', 'v')?;
    let mut writer = VideoWriter::new(&*path.to_string_lossy(), code, FPS, size, true)?;
    anyhow::ensure!(writer.is_opened()?, "cannot write {}", path.display());
    for f in frames {
        writer.write(f)?;
    }
    writer.release()?;
    Ok(())
}

/// The per-still-view check that the grid has not moved, and finding it again
/// after a knock (the frame shifted by 12 px and turned by 1.5 degrees).
fn bench_grid_check(a: &Mat, b: &Mat, pose: &BoardPose) -> anyhow::Result<()> {
    use crate::track::{GridCheck, GridGuard};
    let mut guard = GridGuard::new(a, pose)?;
    let mut same = Vec::new();
    for _ in 0..30 {
        let s = Instant::now();
        let c = guard.check(b, pose)?;
        same.push(s.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(c == GridCheck::Same, "a still frame counted as moved");
    }
    let centre = opencv::core::Point2f::new(a.cols() as f32 / 2.0, a.rows() as f32 / 2.0);
    let mut m = opencv::imgproc::get_rotation_matrix_2d(centre, 1.5, 1.0)?;
    *m.at_2d_mut::<f64>(0, 2)? += 12.0;
    let mut knocked = Mat::default();
    opencv::imgproc::warp_affine_def(b, &mut knocked, &m, b.size()?)?;
    let mut moved = Vec::new();
    for _ in 0..10 {
        let mut guard = GridGuard::new(a, pose)?;
        let s = Instant::now();
        let c = guard.check(&knocked, pose)?;
        moved.push(s.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(
            matches!(c, GridCheck::Moved(_)),
            "a knocked frame was not found again"
        );
    }
    same.sort_by(f64::total_cmp);
    moved.sort_by(f64::total_cmp);
    outln!(
        "grid check 1280x720: unmoved {:.2} ms, knocked and found again {:.2} ms (medians)",
        same[same.len() / 2],
        moved[moved.len() / 2]
    );
    Ok(())
}

/// Watches `minutes` of video made of the bench clip played forward and back and
/// prints the resident memory every tenth of the way. The free recorder runs it:
/// it shares every frame-handling stage with the chess recorder but never ends,
/// while a chess game played back and forth soon ends by repetition.
pub fn bench_memory(model: &ModelArgs, minutes: f64) -> anyhow::Result<()> {
    let mut classifier = model.load()?;
    let (frames, pose) = bench_clip(1280, 720)?;
    let dir = TempDir::new("memory")?;
    let job = job(&pose, dir.0.join("memory.txt"), Some(WhiteSide::Bottom));
    let total = (minutes * 60.0 * FPS).round() as usize;
    let mut src = MemorySampled::new(MemorySource::cycling(frames, FPS, total), total / 10);
    let start = Instant::now();
    let sum = pipeline::record_free(&mut classifier, &mut src, &job, &mut |_| {})
        .context("recording the memory run")?;
    let mb = |b: u64| b as f64 / 1_048_576.0;
    for (frame, rss) in &src.samples {
        outln!(
            "memory: {:6.1} min of video, resident {:.1} MB",
            *frame as f64 / FPS / 60.0,
            mb(*rss)
        );
    }
    let after_first = src.samples.iter().skip(1).map(|s| s.1);
    let (lo, hi) = after_first.fold((u64::MAX, 0), |(lo, hi), r| (lo.min(r), hi.max(r)));
    outln!(
        "memory: {minutes:.0} min of 1280x720 30 fps video ({} changes logged) in {:.0} s; resident memory from the first tenth on stays within {:.1}-{:.1} MB",
        sum.changes,
        start.elapsed().as_secs_f64(),
        mb(lo),
        mb(hi)
    );
    Ok(())
}

/// The soak's second half: the same minutes of 1280x720 video as a Motion-JPEG
/// stream over HTTP on the loopback, read through `record`'s stream source, with
/// two stalls of 8 s (longer than the 5 s read timeout, so the source reconnects)
/// at a third and two thirds of the way. Resident memory is sampled as before;
/// the warnings the source gave (stalled, back) are printed.
pub fn bench_stalling_stream(model: &ModelArgs, minutes: f64) -> anyhow::Result<()> {
    use crate::capture::VideoSource;
    use crate::mjpeg::{MjpegServer, StallPlan};
    let mut classifier = model.load()?;
    let (frames, pose) = bench_clip(1280, 720)?;
    let mut jpegs = Vec::with_capacity(frames.len());
    for f in &frames {
        let mut buf = opencv::core::Vector::<u8>::new();
        opencv::imgcodecs::imencode(".jpg", f, &mut buf, &opencv::core::Vector::new())?;
        jpegs.push(buf.to_vec());
    }
    let total = (minutes * 60.0 * FPS).round() as usize;
    let plan = StallPlan {
        stalls: vec![(total / 3, 8.0), (2 * total / 3, 8.0)],
        total,
        fps: 0.0,
        burst: 0,
    };
    let server = MjpegServer::start(jpegs, plan)?;
    let dir = TempDir::new("soak")?;
    let mut job = job(&pose, dir.0.join("soak.txt"), Some(WhiteSide::Bottom));
    // The stream is read as fast as it decodes, many times real time, and a live
    // source's clock is the wall clock: a still second of the clip lasts a small
    // part of one here.
    job.track.quiet_s = 0.05;
    let stream = VideoSource::stream(&server.url)?.with_reconnect(20.0, None);
    let mut src = MemorySampled::new(stream, total / 10);
    let start = Instant::now();
    let mut warnings = Vec::new();
    let sum = pipeline::record_free(&mut classifier, &mut src, &job, &mut |e| {
        if let crate::pipeline::Event::SourceWarning { message } = e {
            warnings.push((start.elapsed().as_secs_f64(), message));
        }
    })
    .context("recording the stalling stream")?;
    let mb = |b: u64| b as f64 / 1_048_576.0;
    for (frame, rss) in &src.samples {
        outln!("soak stream: frame {frame:7}, resident {:.1} MB", mb(*rss));
    }
    for (t, w) in &warnings {
        outln!("soak stream: at {t:.0} s: {w}");
    }
    let after_first = src.samples.iter().skip(1).map(|s| s.1);
    let (lo, hi) = after_first.fold((u64::MAX, 0), |(lo, hi), r| (lo.min(r), hi.max(r)));
    let sent = server.sent.load(std::sync::atomic::Ordering::SeqCst);
    let connections = server.connections.load(std::sync::atomic::Ordering::SeqCst);
    outln!(
        "soak stream: {sent} of {total} frames sent over {connections} connections, {} read, {} still views, {} changes logged in {:.0} s; resident memory from the first tenth on within {:.1}-{:.1} MB",
        sum.frames,
        sum.still_views,
        sum.changes,
        start.elapsed().as_secs_f64(),
        mb(lo),
        mb(hi)
    );
    anyhow::ensure!(
        connections >= 3,
        "the stream was not reconnected after its stalls ({connections} connections)"
    );
    Ok(())
}

/// A scratch folder, removed when dropped.
pub(super) struct TempDir(pub(super) std::path::PathBuf);

impl TempDir {
    pub(super) fn new(what: &str) -> std::io::Result<TempDir> {
        let d =
            std::env::temp_dir().join(format!("boardscribe-bench-{what}-{}", std::process::id()));
        std::fs::create_dir_all(&d)?;
        Ok(TempDir(d))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
