//! `bench --what boards`: how many simultaneous 640x480 15 fps boards one core keeps
//! up with in real time. A rendered clip of the Opera Game is played by N boards at
//! once, each at the pace it was filmed (starts staggered, as real boards are not
//! in step), decoded from MPEG-4 and recorded as `event` records it, with the
//! whole process held to one core. A board keeps up when it is never more than
//! `LAG_S` behind the clock; resident memory is sampled as it runs.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;

use super::ModelArgs;
use crate::capture::{self, FrameSource, Paced, SourceOptions};
use crate::cputime::thread_cpu_ms;
use crate::geometry::{BoardPose, Corners};
use crate::infer::{InferConfig, WhiteSide};
use crate::memory::resident_bytes;
use crate::pipeline::{self, Event, RecordJob};
use crate::record::parse_pgn;
use crate::rules::chess::Chess;
use crate::sets::board_state;
use crate::synth::clip::{write_clip, ClipOptions};
use crate::synth::SceneParams;

/// How far behind the clock a board may fall and still count as keeping up, s.
pub const LAG_S: f64 = 1.0;

/// The first plies of the Opera Game, Morphy's 1858 game.
const MOVES: [&str; 16] = [
    "e2e4", "e7e5", "g1f3", "d7d6", "d2d4", "c8g4", "d4e5", "g4f3", "d1f3", "d6e5", "f1c4", "g8f6",
    "f3b3", "d8e7", "b1c3", "c7c6",
];

/// Renders (once; kept in `dir`) the 640x480 15 fps clip; returns it and its grid.
fn clip(dir: &Path) -> anyhow::Result<(PathBuf, BoardPose)> {
    let path = dir.join("opera-640x480-15fps.mp4");
    let pose_file = dir.join("opera-640x480-15fps.corners");
    if let (true, Ok(c)) = (path.exists(), std::fs::read_to_string(&pose_file)) {
        return Ok((path, BoardPose::new("8x8".parse()?, c.trim().parse()?)));
    }
    std::fs::create_dir_all(dir)?;
    let mut p = SceneParams::chess_overhead(3, false);
    p.width = 640;
    p.height = 480;
    let mut g = Chess::new();
    let mut states = vec![board_state(&g, WhiteSide::Bottom)];
    for u in MOVES {
        g.play_uci(u).map_err(anyhow::Error::msg)?;
        states.push(board_state(&g, WhiteSide::Bottom));
    }
    let opts = ClipOptions {
        fps: 15.0,
        still_s: 1.5,
        move_s: 1.5,
        ..ClipOptions::default()
    };
    errln!("rendering {} (once)...", path.display());
    let truth = write_clip(&path, &p, &states, &opts)?;
    let corners = Corners::new(truth.frames[0].corners.map(|[x, y]| (x, y)))?;
    std::fs::write(&pose_file, corners.to_string())?;
    Ok((path, BoardPose::new("8x8".parse()?, corners)))
}

/// Holds this thread, and every thread it starts from now on, to CPU `core`.
fn pin_to(core: usize) -> anyhow::Result<()> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_setaffinity reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            anyhow::bail!("cannot hold the benchmark to core {core}");
        }
    }
    Ok(())
}

/// One board's run.
struct BoardRun {
    /// The most it fell behind the clock, s.
    max_lag_s: f64,
    /// CPU time of its thread (decoding and recording), s.
    cpu_s: f64,
    /// Wall time, s.
    wall_s: f64,
    /// The game was recorded move for move.
    exact: bool,
}

/// Plays the clip at its pace into a recorder; the most the source fell behind.
struct Lag {
    inner: Paced,
    max_s: f64,
}

impl Iterator for Lag {
    type Item = Result<capture::Frame, capture::CaptureError>;
    fn next(&mut self) -> Option<Self::Item> {
        let f = self.inner.next();
        self.max_s = self.max_s.max(self.inner.late_s);
        f
    }
}

impl FrameSource for Lag {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn is_offline(&self) -> bool {
        false
    }
    fn len_hint(&self) -> Option<usize> {
        self.inner.len_hint()
    }
    fn fps(&self) -> f64 {
        self.inner.fps()
    }
}

fn one_board(
    clip: &Path,
    pose: &BoardPose,
    model: &ModelArgs,
    out: PathBuf,
    ready: &AtomicBool,
    delay: Duration,
) -> anyhow::Result<BoardRun> {
    let mut classifier = model.load()?;
    let source = capture::open(
        &clip.to_string_lossy(),
        SourceOptions::default().with_max_fps(Some(15.0)),
    )?;
    while !ready.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(delay);
    let mut source = Lag {
        inner: Paced::new(source),
        max_s: 0.0,
    };
    let job = RecordJob {
        timeline: Default::default(),
        pose: *pose,
        white: Some(WhiteSide::Bottom),
        track: Default::default(),
        infer: InferConfig::default(),
        tags: Default::default(),
        out: out.clone(),
        debug: false,
        progress: false,
        adapt: true,
    };
    let (t, c) = (Instant::now(), thread_cpu_ms());
    let mut events: Vec<Event> = Vec::new();
    pipeline::record(
        Chess::new(),
        &mut classifier,
        &mut source,
        &job,
        &mut events,
    )?;
    let (wall_s, cpu_s) = (t.elapsed().as_secs_f64(), (thread_cpu_ms() - c) / 1000.0);
    let rec = parse_pgn(&std::fs::read_to_string(&out)?).map_err(anyhow::Error::msg)?;
    Ok(BoardRun {
        max_lag_s: source.max_s,
        cpu_s,
        wall_s,
        exact: rec.ucis() == MOVES,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

/// Runs `counts` boards at a time, each count once, on core `core`.
pub fn run(counts: &[usize], core: usize, model: &ModelArgs) -> anyhow::Result<()> {
    let dir = PathBuf::from("out/bench-boards");
    let (clip, pose) = clip(&dir)?;
    pin_to(core)?;
    errln!(
        "boards of 640x480 15 fps ({}, decoded from MPEG-4), all on core {core}; a board keeps up when never more than {LAG_S} s behind",
        clip.display()
    );
    for &n in counts {
        let records = tempfile_dir(&dir, n)?;
        let ready = Arc::new(AtomicBool::new(false));
        let rss_before = resident_bytes().unwrap_or(0);
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (clip, pose, model, ready) = (clip.clone(), pose, model.clone(), ready.clone());
                let out = records.join(format!("board-{}.pgn", i + 1));
                // Starts spread over 3 s, so still views do not all fall together.
                let delay = Duration::from_secs_f64(3.0 * i as f64 / n as f64);
                std::thread::spawn(move || one_board(&clip, &pose, &model, out, &ready, delay))
            })
            .collect();
        // Models loaded and inputs opened before the clock starts.
        std::thread::sleep(Duration::from_secs_f64(1.0 + 0.3 * n as f64));
        let rss_loaded = resident_bytes().unwrap_or(0);
        let process_cpu_before = process_cpu_s();
        let clock = Instant::now();
        ready.store(true, Ordering::SeqCst);
        let samples = Arc::new(Mutex::new(Vec::new()));
        let done = Arc::new(AtomicBool::new(false));
        let sampler = {
            let (samples, done) = (samples.clone(), done.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::SeqCst) {
                    if let Some(b) = resident_bytes() {
                        samples.lock().unwrap().push(b);
                    }
                    std::thread::sleep(Duration::from_secs(2));
                }
            })
        };
        let runs: Vec<BoardRun> = handles
            .into_iter()
            .map(|h| h.join().map_err(|_| anyhow::anyhow!("a board panicked"))?)
            .collect::<anyhow::Result<_>>()?;
        let process_cpu = process_cpu_s() - process_cpu_before;
        let elapsed = clock.elapsed().as_secs_f64();
        done.store(true, Ordering::SeqCst);
        let _ = sampler.join();
        let samples = samples.lock().unwrap().clone();
        let kept = runs.iter().filter(|r| r.max_lag_s <= LAG_S).count();
        let exact = runs.iter().filter(|r| r.exact).count();
        let mb = |b: u64| b as f64 / 1e6;
        let (lo, hi) = samples
            .iter()
            .skip(samples.len() / 4)
            .fold((u64::MAX, 0), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        outln!(
            "{n:>3} boards: {kept}/{n} kept up (median lag {:.2} s, worst {:.2} s), {exact}/{n} recorded exactly; CPU per board {:.1}% of the core (median of the boards' threads; the whole process {:.1}% a board), wall {:.1} s; memory {:.0} MB before, {:.0} MB loaded ({:.1} MB a board), {:.0}-{:.0} MB while recording (after the first quarter)",
            median(runs.iter().map(|r| r.max_lag_s).collect()),
            runs.iter().map(|r| r.max_lag_s).fold(0.0, f64::max),
            median(runs.iter().map(|r| 100.0 * r.cpu_s / r.wall_s).collect()),
            100.0 * process_cpu / elapsed / n as f64,
            median(runs.iter().map(|r| r.wall_s).collect()),
            mb(rss_before),
            mb(rss_loaded),
            mb(rss_loaded.saturating_sub(rss_before)) / n.max(1) as f64,
            mb(if lo == u64::MAX { 0 } else { lo }),
            mb(hi),
        );
        let _ = std::fs::remove_dir_all(&records);
    }
    Ok(())
}

/// CPU time of the whole process (every thread, decoders included), s.
fn process_cpu_s() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return f64::NAN;
    }
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn tempfile_dir(dir: &Path, n: usize) -> anyhow::Result<PathBuf> {
    let d = dir.join(format!("records-{n}-{}", std::process::id()));
    std::fs::create_dir_all(&d).with_context(|| format!("cannot make '{}'", d.display()))?;
    Ok(d)
}
