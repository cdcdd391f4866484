//! `bench --what table`: the CPU one camera over four boards costs against four
//! cameras, a board each. The same four games are rendered twice: played at once
//! on one table seen in 1920x1080 (two rows of two boards, a clock between each
//! pair) and each alone in a 640x480 clip at the same frame rate. Each set is
//! recorded by `boardscribe event` from a round file, the boards found in the
//! first frames as a club would run it (`region = N` for the table), in runs that
//! take turns; the CPU time of each run (every thread, from `wait4`) divided by
//! the boards and the minutes of video gives CPU per board, and the table's over
//! the cameras' is the ratio the issue sets at 1 or less.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context};

use crate::record::parse_pgn;

/// Boards, frame rate and plies per game of the clips.
const BOARDS: usize = 4;
const FPS: f64 = 10.0;
const PLIES: usize = 16;

/// What one run of `event` cost and recorded.
struct Run {
    cpu_s: f64,
    exact: usize,
}

/// Renders the clips (once; kept in `dir`) and measures `runs` runs of each set.
pub fn run(runs: usize) -> anyhow::Result<()> {
    let exe = std::env::current_exe()?;
    let product = exe.with_file_name("boardscribe");
    if !product.is_file() {
        bail!("the boardscribe binary is not beside {}", exe.display());
    }
    let dir = PathBuf::from("out/bench-table");
    std::fs::create_dir_all(&dir)?;
    // A round file's inputs are read from its own folder.
    let dir = dir.canonicalize()?;
    let table = render_table(&exe, &dir)?;
    let cams: Vec<PathBuf> = (1..=BOARDS)
        .map(|n| render_camera(&exe, &dir, &table, n))
        .collect::<anyhow::Result<_>>()?;
    let truths: Vec<Vec<String>> = (1..=BOARDS)
        .map(|n| ucis(&table.join(format!("board_{n}.pgn"))))
        .collect::<anyhow::Result<_>>()?;
    let table_min = minutes(&table.join("table.mp4"))?;
    let cams_min = cams
        .iter()
        .map(|c| minutes(c))
        .collect::<anyhow::Result<Vec<f64>>>()?;
    let cams_min = cams_min.iter().sum::<f64>() / cams_min.len().max(1) as f64;
    let table_round = round_file(&dir, "table", |n| {
        format!(
            "input = \"{}\"\nregion = {n}\n",
            table.join("table.mp4").display()
        )
    })?;
    let cams_round = round_file(&dir, "cameras", |n| {
        format!("input = \"{}\"\n", cams[n - 1].display())
    })?;
    outln!(
        "{BOARDS} chess games of {PLIES} plies at {FPS} fps: one 1920x1080 view of the four ({:.2} min) against four 640x480 cameras ({:.2} min each); `boardscribe event` finds the boards and records them, {runs} runs of each taking turns; CPU is every thread's (decoding included), from wait4",
        table_min,
        cams_min
    );
    let (mut t, mut c) = (Vec::new(), Vec::new());
    for i in 0..runs.max(1) {
        let rt = event(
            &product,
            &table_round,
            &dir.join(format!("out-table-{i}")),
            &truths,
        )?;
        let rc = event(
            &product,
            &cams_round,
            &dir.join(format!("out-cams-{i}")),
            &truths,
        )?;
        outln!(
            "run {}: one view {:.2} s CPU ({}/{BOARDS} games exact), four cameras {:.2} s ({}/{BOARDS} exact)",
            i + 1,
            rt.cpu_s,
            rt.exact,
            rc.cpu_s,
            rc.exact
        );
        t.push(rt);
        c.push(rc);
    }
    let med = |v: &[Run]| median(v.iter().map(|r| r.cpu_s).collect());
    let per = |cpu: f64, min: f64| cpu / BOARDS as f64 / min.max(1e-9);
    let (pt, pc) = (per(med(&t), table_min), per(med(&c), cams_min));
    outln!(
        "CPU per board per minute of video (medians): one view {pt:.2} s, four cameras {pc:.2} s; ratio {:.2} (the issue's bar: 1 or less)",
        pt / pc
    );
    if t.iter().chain(&c).any(|r| r.exact < BOARDS) {
        bail!("a game was not recorded exactly: the CPU compared is not of the same work");
    }
    Ok(())
}

/// The table clip: four boards in two rows, 1920x1080.
fn render_table(lab: &Path, dir: &Path) -> anyhow::Result<PathBuf> {
    let out = dir.join("table");
    if out.join("truth.json").is_file() {
        return Ok(out);
    }
    errln!("rendering the table clip (once)...");
    let o = Command::new(lab)
        .args([
            "render", "table", "--clip", "--layout", "grid", "--seed", "3",
        ])
        .args([
            "--boards",
            &BOARDS.to_string(),
            "--plies",
            &PLIES.to_string(),
        ])
        .args(["--fps", &FPS.to_string(), "--size", "1920x1080", "--out"])
        .arg(&out)
        .output()?;
    if !o.status.success() {
        bail!(
            "render table: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        );
    }
    Ok(out)
}

/// Board `n`'s game alone in a 640x480 clip at the table's frame rate.
fn render_camera(lab: &Path, dir: &Path, table: &Path, n: usize) -> anyhow::Result<PathBuf> {
    let out = dir.join(format!("camera-{n}.mp4"));
    if out.with_extension("mp4.json").is_file() {
        return Ok(out);
    }
    errln!("rendering camera {n}'s clip (once)...");
    let o = Command::new(lab)
        .args(["render", "clip", "--pgn"])
        .arg(table.join(format!("board_{n}.pgn")))
        .args(["--size", "640x480", "--fps", &FPS.to_string()])
        .args([
            "--still",
            "2.7",
            "--move-time",
            "1.1",
            "--seed",
            &n.to_string(),
        ])
        .arg("--out")
        .arg(&out)
        .output()?;
    if !o.status.success() {
        bail!("render clip: {}", String::from_utf8_lossy(&o.stderr).trim());
    }
    Ok(out)
}

/// A round file of the four boards, each's input lines from `input`.
fn round_file(dir: &Path, name: &str, input: impl Fn(usize) -> String) -> anyhow::Result<PathBuf> {
    let mut text = format!("[event]\nname = \"bench {name}\"\nround = \"1\"\n");
    for n in 1..=BOARDS {
        text.push_str(&format!("\n[[board]]\nnumber = {n}\n{}", input(n)));
    }
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text)?;
    Ok(path)
}

/// One run of `event`: its CPU time and the games recorded exactly.
fn event(product: &Path, round: &Path, out: &Path, truths: &[Vec<String>]) -> anyhow::Result<Run> {
    let _ = std::fs::remove_dir_all(out);
    let child = Command::new(product)
        .arg("event")
        .arg(round)
        .arg("--out")
        .arg(out)
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {}", product.display()))?;
    let (status, cpu_s) = wait_cpu(child.id())?;
    if status != 0 {
        bail!("boardscribe event {} exited with {status}", round.display());
    }
    let exact = (1..=BOARDS)
        .filter(|&n| ucis(&out.join(format!("board-{n}.pgn"))).is_ok_and(|m| m == truths[n - 1]))
        .count();
    Ok(Run { cpu_s, exact })
}

/// Waits for child `pid`: its exit status and its CPU time (user and system, every
/// thread), s.
fn wait_cpu(pid: u32) -> anyhow::Result<(i32, f64)> {
    let mut status = 0;
    // SAFETY: wait4 writes only the status and the rusage it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut u) };
    if r < 0 {
        bail!(
            "waiting for process {pid}: {}",
            std::io::Error::last_os_error()
        );
    }
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Ok((code, t(u.ru_utime) + t(u.ru_stime)))
}

/// The moves of a chess record, as UCI.
fn ucis(path: &Path) -> anyhow::Result<Vec<String>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(parse_pgn(&text).map_err(anyhow::Error::msg)?.ucis())
}

/// A clip's length in minutes, from its frame count and rate.
fn minutes(clip: &Path) -> anyhow::Result<f64> {
    use opencv::videoio::{
        VideoCapture, VideoCaptureTraitConst, CAP_PROP_FPS, CAP_PROP_FRAME_COUNT,
    };
    let cap = VideoCapture::from_file(clip.to_string_lossy().as_ref(), opencv::videoio::CAP_ANY)?;
    let (n, fps) = (cap.get(CAP_PROP_FRAME_COUNT)?, cap.get(CAP_PROP_FPS)?);
    if !(n > 0.0 && fps > 0.0) {
        bail!("cannot read the length of {}", clip.display());
    }
    Ok(n / fps / 60.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}
