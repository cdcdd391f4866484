//! `boardscribe bench`: medians of the hot paths, measured in-process after loading.
//! Machines here are noisy: read the medians and ratios, not single runs.

use std::time::Instant;

use clap::Args;

use super::ModelArgs;
use crate::classify::{CropView, OccupancyModel, Runtime, CROP_H, CROP_W};
use crate::cputime::thread_cpu_ms;
use crate::geometry::{BoardPose, Corners};
use crate::infer::{explain, InferConfig, Observation};
use crate::rules::chess::Chess;
use crate::rules::Rules;
use crate::sets::synthetic::{render_random, SynthSetOptions};
use crate::sets::{board_state, rgb_to_bgr_mat};
use crate::synth::{BoardState, RandomRanges, Rng, Scene, SceneParams};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// What to measure: classify, render, infer, record, go (the recorder on a 19x19
    /// Go board), photos, or all; or memory (a
    /// long recording's resident memory, not part of all); or soak (memory, then
    /// the same hour as a stream over HTTP that stalls and comes back); or boards
    /// (how many 640x480 15 fps boards one core records in real time, not part of
    /// all); or broadcast (simulated boards through a local nats-server into one
    /// broadcast node, then two: the delay to the round PGN, CPU and memory per
    /// board; not part of all); or table (one 1920x1080 view of four boards against
    /// four 640x480 cameras: CPU per board and their ratio; at most 5 runs of each;
    /// not part of all).
    #[arg(long, value_enum, default_value = "all")]
    pub what: BenchWhat,
    /// Minutes of video for `--what memory` and `--what soak`.
    #[arg(long, default_value_t = 60.0, value_parser = super::values::float_above(0.0, 1440.0))]
    pub minutes: f64,
    /// Repetitions per measurement (the median is reported).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub runs: u64,
    /// Frame sizes for `--what render` (WxH, repeatable).
    #[arg(long = "size", value_parser = parse_size, default_values = ["640x480", "1280x720"])]
    pub sizes: Vec<(u32, u32)>,
    /// With `--what render`: also print where a one-off labelled image's
    /// time goes (thread CPU ms per stage, the mean over the runs).
    #[arg(long)]
    pub stages: bool,
    /// With `--what boards`: the numbers of simultaneous boards to try (default
    /// 4,8,12,16); with `--what broadcast`: the boards simulated (default 1000).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub boards: Vec<u32>,
    /// With `--what broadcast`: half-moves per game.
    #[arg(long, default_value_t = 80, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub plies: u32,
    /// With `--what broadcast`: mean seconds between two moves of one board (a
    /// classical game's 80 plies in 4 hours is one every 180 s; 1 compresses it
    /// 180 times).
    #[arg(long, default_value_t = 1.0, value_parser = super::values::float_above(0.0, 3600.0))]
    pub ply_seconds: f64,
    /// With `--what broadcast`: recorder machines the boards are shared among.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub machines: u32,
    /// With `--what broadcast`: the numbers of broadcast nodes to try, a round each.
    #[arg(long, value_delimiter = ',', default_values_t = [1, 2], value_parser = clap::value_parser!(u32).range(1..=16))]
    pub nodes: Vec<u32>,
    /// With `--what boards`: the core the benchmark is held to.
    #[arg(long, default_value_t = 0)]
    pub core: usize,
    /// The real photo sets, for `--what photos` (bgu-chess; skipped where absent).
    #[arg(long, default_value = "../shared/data")]
    pub data: std::path::PathBuf,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// What `bench` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchWhat {
    All,
    Render,
    Classify,
    Infer,
    Record,
    /// The recorder on a 19x19 Go board, 640x480.
    Go,
    Photos,
    Memory,
    Soak,
    Boards,
    Broadcast,
    Table,
}

pub(crate) fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("size '{s}' is not WxH (e.g. 640x480)");
    let (w, h) = s.split_once('x').ok_or_else(bad)?;
    let (w, h) = (
        w.parse::<u32>().map_err(|_| bad())?,
        h.parse::<u32>().map_err(|_| bad())?,
    );
    if w < 16 || h < 16 || w > 8192 || h > 8192 {
        return Err(format!("size '{s}' is outside 16x16 to 8192x8192"));
    }
    Ok((w, h))
}

fn median_ms(f: impl FnMut(), runs: usize) -> f64 {
    median_wall_cpu_ms(f, runs).0
}

/// Medians of wall-clock and thread CPU time, in ms.
pub fn median_wall_cpu_ms(mut f: impl FnMut(), runs: usize) -> (f64, f64) {
    f(); // warm-up
    let (mut wall, mut cpu): (Vec<f64>, Vec<f64>) = (0..runs.max(1))
        .map(|_| {
            let (s, c) = (Instant::now(), thread_cpu_ms());
            f();
            (s.elapsed().as_secs_f64() * 1000.0, thread_cpu_ms() - c)
        })
        .unzip();
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    (wall[wall.len() / 2], cpu[cpu.len() / 2])
}

pub fn run(a: BenchArgs) -> anyhow::Result<()> {
    use BenchWhat as W;
    let boards: Vec<usize> = a.boards.iter().map(|&n| n as usize).collect();
    if a.what == W::Boards {
        let counts = if boards.is_empty() {
            vec![4, 8, 12, 16]
        } else {
            boards
        };
        return super::bench_boards::run(&counts, a.core, &a.model);
    }
    if a.what == W::Table {
        return super::bench_table::run(a.runs.min(5) as usize);
    }
    if a.what == W::Broadcast {
        return super::bench_broadcast::run(&super::bench_broadcast::BroadcastBench {
            boards: boards.iter().copied().max().unwrap_or(1000),
            plies: a.plies as usize,
            ply_seconds: a.ply_seconds,
            machines: a.machines,
            nodes: a.nodes.iter().map(|&n| n as usize).collect(),
        });
    }
    let all = a.what == W::All;
    let runs = a.runs as usize;
    if all || a.what == W::Render {
        bench_render(runs, &a.sizes, a.stages)?;
    }
    if all || a.what == W::Classify {
        bench_classify(&a)?;
    }
    if all || a.what == W::Infer {
        bench_infer(runs)?;
    }
    if all || a.what == W::Record {
        super::bench_record::bench_record(&a.model)?;
    }
    if all || a.what == W::Go {
        super::bench_record_go::bench_record_go(&a.model, 3)?;
    }
    if all || a.what == W::Photos {
        super::bench_photos::bench_photos(&a.model, &a.data, a.runs as usize)?;
    }
    // An hour of video takes minutes: only when asked for.
    if a.what == W::Memory || a.what == W::Soak {
        super::bench_record::bench_memory(&a.model, a.minutes)?;
    }
    if a.what == W::Soak {
        super::bench_record::bench_stalling_stream(&a.model, a.minutes)?;
    }
    Ok(())
}

fn bench_render(runs: usize, sizes: &[(u32, u32)], stages: bool) -> anyhow::Result<()> {
    let state = board_state(&Chess::new(), crate::infer::WhiteSide::Bottom);
    for &(w, h) in sizes {
        let mut p = SceneParams::chess_overhead(1, false);
        p.width = w;
        p.height = h;
        let one_off = median_wall_cpu_ms(
            || {
                let r = crate::synth::render(&p, &state, None).expect("renders");
                let _ = crate::synth::Label::new(&state, &r, 1).to_json();
            },
            runs.min(20),
        );
        let scene = Scene::new(&p)?;
        let mut n = 0;
        let frame = median_wall_cpu_ms(
            || {
                n += 1;
                scene.render_frame(&state, None, n).expect("renders");
            },
            runs.min(20),
        );
        outln!(
            "render {w}x{h}: labelled image {:.1} ms ({:.1} ms CPU), clip frame {:.1} ms ({:.1} ms CPU) (medians)",
            one_off.0, one_off.1, frame.0, frame.1
        );
        let mix = random_scenes_ms(w, h, runs)?;
        outln!(
            "render {w}x{h}: random labelled scenes as `render images` draws them, {} seeds: median {:.1} ms ({:.1} ms CPU), mean {:.1} ms CPU",
            mix.n,
            mix.median_wall,
            mix.median_cpu,
            mix.mean_cpu
        );
        if stages {
            print_stages(&p, &state, runs)?;
        }
    }
    Ok(())
}

struct MixTimes {
    n: usize,
    median_wall: f64,
    median_cpu: f64,
    mean_cpu: f64,
}

/// One labelled image per seed, each a different random scene (grid, style,
/// pose, pieces, hands) at `w`x`h`, timed with its label: what training sets
/// cost per image, where the fixed scene above is one case of them.
fn random_scenes_ms(w: u32, h: u32, runs: usize) -> anyhow::Result<MixTimes> {
    let opts = SynthSetOptions {
        ranges: RandomRanges {
            sizes: vec![(w, h)],
            ..RandomRanges::default()
        },
        corner_jitter: 0.0,
        ..SynthSetOptions::default()
    };
    let n = runs.max(1) * 2;
    let (mut wall, mut cpu) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..=n as u64 {
        let seed = Rng::derive(7, i).next_u64();
        let (s, c) = (Instant::now(), thread_cpu_ms());
        let (r, _) = render_random(seed, &opts)?;
        let _ = crate::synth::Label::new(&r.state, &r.rendered, seed).to_json();
        // The first render warms the buffer pools.
        if i > 0 {
            wall.push(s.elapsed().as_secs_f64() * 1000.0);
            cpu.push(thread_cpu_ms() - c);
        }
    }
    let mean_cpu = cpu.iter().sum::<f64>() / n as f64;
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    Ok(MixTimes {
        n,
        median_wall: wall[n / 2],
        median_cpu: cpu[n / 2],
        mean_cpu,
    })
}

/// Mean thread CPU time per stage of a one-off labelled image.
fn print_stages(p: &SceneParams, state: &BoardState, runs: usize) -> anyhow::Result<()> {
    let mut st = crate::synth::Stages::on();
    let n = runs.max(1);
    for _ in 0..n {
        let scene = Scene::new_timed(p, &mut st)?;
        let r = scene.render_timed(state, None, 0, &mut st)?;
        st.restart();
        let _ = crate::synth::Label::new(state, &r, 1).to_json();
        st.mark("label JSON");
    }
    for (name, ms) in &st.ms {
        outln!("  {name:34} {:6.2} ms", ms / n as f64);
    }
    outln!(
        "  {:34} {:6.2} ms (means of {n})",
        "sum",
        st.total_ms() / n as f64
    );
    Ok(())
}

fn bench_classify(a: &BenchArgs) -> anyhow::Result<()> {
    let runs = a.runs as usize;
    let classifier = a.model.load()?;
    let model = classifier.model();
    let tract = OccupancyModel::load_with(&a.model.path(), Runtime::Tract)?;
    for (params, grid) in [
        (SceneParams::chess_overhead(2, false), "8x8"),
        (SceneParams::go_oblique(2), "19x19:points"),
    ] {
        let state = BoardState::empty(params.rows, params.cols, params.points);
        let r = crate::synth::render(&params, &state, None)?;
        let corners = Corners::new(r.corners.map(|[x, y]| (x, y)))?;
        let pose = BoardPose::new(grid.parse()?, corners);
        let view = CropView::new(&pose);
        let image = rgb_to_bgr_mat(&r.image)?;
        let rect = view.rectify(&image)?;
        let sites = pose.grid().len();
        // Every site's crop, as the classifier cuts them: the same input for each runtime.
        let per = 3 * (CROP_W * CROP_H) as usize;
        let mut crops = vec![0f32; sites * per];
        let (_, crop_ms) = median_wall_cpu_ms(
            || {
                for (i, (row, col)) in pose.grid().sites().enumerate() {
                    view.crop_rgb_planar(&rect, row, col, &mut crops[i * per..(i + 1) * per]);
                }
            },
            runs,
        );
        // Ours and onnxruntime's in alternating rounds, so that a change of load on
        // the shared machine falls on both; tract's alongside.
        let mut reference = OrtReference::start(&a.model.path(), &crops, sites);
        let rounds = 6;
        let per_round = runs.div_ceil(rounds).max(1);
        let (mut ours, mut theirs, mut tract_ms) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            ours.extend(cpu_times(|| drop(model.run(&crops)), per_round));
            tract_ms.extend(cpu_times(|| drop(tract.run(&crops)), per_round.div_ceil(2)));
            let failed = match &mut reference {
                Ok(r) => r.time(per_round).map(|t| theirs.extend(t)).err(),
                Err(_) => None,
            };
            if let Some(e) = failed {
                reference = Err(e);
            }
        }
        let (ours, tract_ms) = (median(ours), median(tract_ms));
        let (read_all, read_all_cpu) = median_wall_cpu_ms(
            || {
                classifier.read_all(&view, &rect).expect("classifies");
            },
            runs,
        );
        let rectify = median_ms(
            || {
                view.rectify(&image).expect("rectifies");
            },
            runs,
        );
        outln!(
            "classify {grid}, {sites} sites (thread CPU, medians of {}): {} {ours:.2} ms, tract {tract_ms:.2} ms",
            runs,
            model.runtime()
        );
        match reference.and_then(|mut r| {
            let out = r.outputs()?;
            Ok((r.version.clone(), out))
        }) {
            Ok((version, (logits, embedding))) => {
                let ort_ms = median(theirs);
                let diff = |m: &OccupancyModel| -> anyhow::Result<f32> {
                    let out = m.run(&crops)?;
                    let ours = out.iter().flat_map(|r| r.logits.iter().chain(&r.embedding));
                    let d = embedding.len() / sites;
                    let theirs = (0..sites).flat_map(|i| {
                        logits[4 * i..4 * i + 4]
                            .iter()
                            .chain(&embedding[d * i..d * (i + 1)])
                    });
                    Ok(ours
                        .zip(theirs)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0f32, f32::max))
                };
                outln!(
                    "  onnxruntime {version} (one thread, same crops, alternating rounds) {ort_ms:.2} ms: ours {:.2}x, tract {:.2}x its time; largest output difference {:.1e} (ours), {:.1e} (tract)",
                    ours / ort_ms,
                    tract_ms / ort_ms,
                    diff(model)?,
                    diff(&tract)?
                );
            }
            Err(why) => outln!("  onnxruntime reference skipped: {why}"),
        }
        outln!(
            "  read_all (crops, model, per-game learning) {read_all:.2} ms ({read_all_cpu:.2} ms CPU, {:.3} ms a site), of which cutting the crops {crop_ms:.2} ms CPU; rectify {rectify:.2} ms",
            read_all / sites as f64
        );
    }
    Ok(())
}

/// Thread CPU times of `runs` calls of `f` (ms), after one warm-up call.
fn cpu_times(mut f: impl FnMut(), runs: usize) -> Vec<f64> {
    f();
    (0..runs)
        .map(|_| {
            let c = thread_cpu_ms();
            f();
            thread_cpu_ms() - c
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// onnxruntime (PyPI, through `python3`) running tests/tools/ort_bench.py, embedded
/// here, on the bench's crops, answering commands between our own runs.
struct OrtReference {
    child: std::process::Child,
    /// Closed on drop: the script ends at the end of its input. Writing `quit`
    /// instead would kill the lab (SIGPIPE is the default here) when the script
    /// died early, as it does without onnxruntime.
    stdin: Option<std::process::ChildStdin>,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    file: std::path::PathBuf,
    version: String,
}

impl OrtReference {
    /// Starts the script; an error says why it could not (no python3, no onnxruntime).
    fn start(model: &std::path::Path, crops: &[f32], n: usize) -> Result<OrtReference, String> {
        use std::process::{Command, Stdio};
        const SCRIPT: &str = include_str!("../../../../tests/tools/ort_bench.py");
        let file =
            std::env::temp_dir().join(format!("boardscribe-bench-{}.f32", std::process::id()));
        let bytes: Vec<u8> = crops.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(&file, bytes).map_err(|e| format!("writing {}: {e}", file.display()))?;
        let child = Command::new("python3")
            .arg("-c")
            .arg(SCRIPT)
            .arg(model)
            .arg(&file)
            .arg(n.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_file(&file);
                return Err(format!("python3 not found ({e})"));
            }
        };
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        let mut r = OrtReference {
            stdin: Some(stdin.ok_or("no stdin")?),
            stdout: std::io::BufReader::new(stdout.ok_or("no stdout")?),
            child,
            file,
            version: String::new(),
        };
        r.reply().map_err(|e| r.failure(e))?;
        Ok(r)
    }

    /// One JSON line from the script.
    fn reply(&mut self) -> Result<serde_json::Value, String> {
        use std::io::BufRead;
        let mut line = String::new();
        self.stdout
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        if line.is_empty() {
            return Err("python3 ended".into());
        }
        serde_json::from_str(&line).map_err(|e| e.to_string())
    }

    fn ask(&mut self, command: &str) -> Result<serde_json::Value, String> {
        use std::io::Write;
        let stdin = self.stdin.as_mut().ok_or("the script's input is closed")?;
        writeln!(stdin, "{command}").map_err(|e| e.to_string())?;
        stdin.flush().map_err(|e| e.to_string())?;
        self.reply()
    }

    /// Why the script stopped, from its last line of errors.
    fn failure(&mut self, e: String) -> String {
        use std::io::Read;
        let _ = self.child.kill();
        let mut err = String::new();
        if let Some(mut s) = self.child.stderr.take() {
            let _ = s.read_to_string(&mut err);
        }
        let last = err.lines().last().unwrap_or("").to_string();
        if last.contains("No module named") {
            format!("{last} (pip install onnxruntime numpy)")
        } else if last.is_empty() {
            e
        } else {
            format!("python3 failed: {last}")
        }
    }

    fn time(&mut self, runs: usize) -> Result<Vec<f64>, String> {
        let v = self.ask(&format!("time {runs}"))?;
        Ok(v["ms"]
            .as_array()
            .ok_or("no times")?
            .iter()
            .filter_map(|x| x.as_f64())
            .collect())
    }

    fn outputs(&mut self) -> Result<(Vec<f32>, Vec<f32>), String> {
        let v = self.ask("outputs")?;
        self.version = v["version"].as_str().unwrap_or("?").to_string();
        let floats = |k: &str| -> Vec<f32> {
            v[k].as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_f64())
                        .map(|x| x as f32)
                        .collect()
                })
                .unwrap_or_default()
        };
        Ok((floats("logits"), floats("embedding")))
    }
}

impl Drop for OrtReference {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.file);
    }
}

fn bench_infer(runs: usize) -> anyhow::Result<()> {
    // A middlegame; the observation shows three plies played.
    let mut g =
        Chess::from_fen("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8")
            .map_err(anyhow::Error::msg)?;
    let before = g.clone();
    for u in ["f1d3", "d5c4", "d3c4"] {
        g.play_uci(u).map_err(anyhow::Error::msg)?;
    }
    let (f, r) = g.dims();
    let obs = Observation::certain(f, r, |sq| g.occupant(sq));
    let cfg = InferConfig::default();
    let t1 = median_ms(
        || {
            let mut one = before.clone();
            one.play_uci("f1d3").expect("legal");
            let o = Observation::certain(f, r, |sq| one.occupant(sq));
            explain(&before, &o, &cfg);
        },
        runs,
    );
    let t3 = median_ms(
        || {
            explain(&before, &obs, &cfg);
        },
        runs.min(10),
    );
    outln!("infer chess middlegame: one ply {t1:.2} ms, three unseen plies {t3:.1} ms (median)");
    Ok(())
}
