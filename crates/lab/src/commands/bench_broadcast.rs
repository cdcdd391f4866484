//! `bench --what broadcast`: many simulated boards through a local nats-server
//! into one broadcast node, then two; the delay from a move's publish to the
//! round PGN a node writes, with a plain NATS subscriber as the reference, and
//! each node's CPU and memory per board.
//!
//! The recorders are simulated in this process (`nats::simulate`: real message
//! sizes, records written as a recorder writes them); each broadcast node is a
//! `boardscribe broadcast` process of its own, measured from /proc. A move is seen
//! in the round PGN at the time the node wrote the first `round.pgn` that a poll
//! (every 10 ms, read again whenever its size or time changed) found holding it;
//! a version written and replaced between two polls is missed, so a delay may be
//! counted up to one poll period long.

use std::io::Read;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context};
use boardscribe_round::nats::{self, SimPlan, Simulated};

use crate::cputime::process_cpu_ms;

/// What `bench --what broadcast` runs.
pub struct BroadcastBench {
    /// Simulated boards.
    pub boards: usize,
    /// Half-moves per game.
    pub plies: usize,
    /// Mean seconds between two moves of one board.
    pub ply_seconds: f64,
    /// Recorder machines simulated (NATS connections publishing).
    pub machines: u32,
    /// Broadcast nodes to try, one run each (1, then 2).
    pub nodes: Vec<usize>,
}

/// How often a node's round PGN is looked at.
const POLL: Duration = Duration::from_millis(10);
/// How long after the last publish every game must be complete in every node.
const SETTLE: Duration = Duration::from_secs(30);
/// The delay the issue sets for the 99th percentile.
const TARGET_P99_S: f64 = 1.0;

pub fn run(b: &BroadcastBench) -> anyhow::Result<()> {
    let server = nats_server().context(
        "nats-server not found on PATH or in /usr/sbin: install Debian's nats-server package",
    )?;
    let exe = std::env::current_exe()?;
    let product = exe.with_file_name("boardscribe");
    if !product.is_file() {
        bail!("the boardscribe binary is not beside {}", exe.display());
    }
    let dir = PathBuf::from("out/bench-broadcast");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let broker = Broker::start(&server, &dir)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    outln!(
        "broadcast: {} boards x {} plies, a move per board every {:.1} s on average (0.5 to 1.5 times), from {} simulated recorder machines, through nats-server ({}) on 127.0.0.1; {cores} cores",
        b.boards,
        b.plies,
        b.ply_seconds,
        b.machines,
        server.display()
    );
    for &k in &b.nodes {
        one_run(b, k, &broker, &product, &dir.join(format!("nodes-{k}")))?;
    }
    Ok(())
}

/// One round through `k` broadcast nodes.
fn one_run(
    b: &BroadcastBench,
    k: usize,
    broker: &Broker,
    product: &Path,
    dir: &Path,
) -> anyhow::Result<()> {
    let plan = SimPlan {
        event: format!("Broadcast Bench {k}"),
        round: "1".into(),
        boards: b.boards as u32,
        plies: b.plies,
        ply_seconds: b.ply_seconds,
        machines: b.machines,
        seed: 31,
    };
    let mut nodes = Vec::new();
    for i in 1..=k {
        nodes.push(Node::start(
            product,
            &broker.url(),
            &plan,
            &dir.join(format!("node-{i}")),
        )?);
    }
    let idle: Vec<u64> = nodes.iter().map(|n| rss_kb(n.pid()).unwrap_or(0)).collect();
    let cpu0: Vec<f64> = nodes
        .iter()
        .map(|n| cpu_s(n.pid()).unwrap_or(f64::NAN))
        .collect();
    let (broker0, self0, t0) = (
        cpu_s(broker.pid()).unwrap_or(f64::NAN),
        process_cpu_ms() / 1000.0,
        Instant::now(),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let pollers: Vec<_> = nodes
        .iter()
        .map(|n| {
            let (path, stop) = (n.out.join("round.pgn"), stop.clone());
            let (boards, plies) = (b.boards, b.plies);
            std::thread::spawn(move || poll(&path, boards, plies, &stop))
        })
        .collect();
    let sim = nats::simulate(&broker.url(), &plan, &dir.join("recorders"))?;
    let published = t0.elapsed().as_secs_f64();
    // Every node complete, or the settling time spent.
    let until = Instant::now() + SETTLE;
    while Instant::now() < until && !nodes.iter().all(|n| complete(&n.out, &sim)) {
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::SeqCst);
    let seen: Vec<Vec<Vec<Option<Instant>>>> = pollers
        .into_iter()
        .map(|p| p.join().unwrap_or_default())
        .collect();
    let wall = t0.elapsed().as_secs_f64();
    let broker_cpu = cpu_s(broker.pid()).unwrap_or(f64::NAN) - broker0;
    let self_cpu = process_cpu_ms() / 1000.0 - self0;
    outln!(
        "{k} node{}: {} messages published ({:.1} KB on average, {:.0} MB), {} sent again, over {published:.1} s; nats-server {broker_cpu:.1} s CPU, the simulated recorders and the pollers {self_cpu:.1} s CPU",
        if k == 1 { "" } else { "s" },
        sim.messages,
        sim.bytes as f64 / sim.messages.max(1) as f64 / 1024.0,
        sim.bytes as f64 / 1e6,
        sim.retries
    );
    let reference = delays(&sim, &sim.delivered);
    let mut all_complete = true;
    for (i, n) in nodes.iter_mut().enumerate() {
        let cpu = cpu_s(n.pid()).unwrap_or(f64::NAN) - cpu0[i];
        let (peak, now) = (hwm_kb(n.pid()).unwrap_or(0), rss_kb(n.pid()).unwrap_or(0));
        let games = games_right(&n.out, &sim);
        all_complete &= games == b.boards;
        let d = delays(&sim, &seen[i]);
        outln!(
            "  node {}: games complete {games}/{}; delay from publish to its round PGN: p50 {:.0} ms, p90 {:.0} ms, p99 {:.0} ms, max {:.0} ms ({} of {} moves seen) [target p99 <= {TARGET_P99_S} s: {}]",
            i + 1,
            b.boards,
            d.p50 * 1e3,
            d.p90 * 1e3,
            d.p99 * 1e3,
            d.max * 1e3,
            d.n,
            b.boards * b.plies,
            if d.n == b.boards * b.plies && d.p99 <= TARGET_P99_S { "met" } else { "missed" }
        );
        outln!(
            "  node {}: CPU {cpu:.1} s over {wall:.1} s ({:.2} of a core, {:.1} ms per board per minute of round); resident memory idle {:.1} MB, peak {:.1} MB, at the end {:.1} MB: {:.0} KB per board",
            i + 1,
            cpu / wall,
            cpu * 1e3 / b.boards as f64 / (wall / 60.0),
            idle[i] as f64 / 1024.0,
            peak as f64 / 1024.0,
            now as f64 / 1024.0,
            peak.saturating_sub(idle[i]) as f64 / b.boards as f64
        );
        if reference.n > 0 && d.n > 0 {
            outln!(
                "  node {}: p50 {:.1}x and p99 {:.1}x the plain subscriber's delay",
                i + 1,
                d.p50 / reference.p50.max(1e-6),
                d.p99 / reference.p99.max(1e-6)
            );
        }
        n.stop();
    }
    outln!(
        "  reference, a plain NATS subscriber: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} of {} moves)",
        reference.p50 * 1e3,
        reference.p99 * 1e3,
        reference.max * 1e3,
        reference.n,
        b.boards * b.plies
    );
    if !all_complete {
        bail!(
            "a broadcast node's round PGN does not hold every game exactly (see {})",
            dir.display()
        );
    }
    Ok(())
}

/// Percentiles of delays, in seconds.
#[derive(Debug, Default)]
struct Delays {
    n: usize,
    p50: f64,
    p90: f64,
    p99: f64,
    max: f64,
}

/// The delays from each move's publish to when `seen` had it.
fn delays(sim: &Simulated, seen: &[Vec<Option<Instant>>]) -> Delays {
    let mut d: Vec<f64> = sim
        .sent
        .iter()
        .zip(seen)
        .flat_map(|(sent, seen)| {
            sent.iter()
                .zip(seen)
                .filter_map(|(s, t)| t.map(|t| t.saturating_duration_since(*s).as_secs_f64()))
        })
        .collect();
    if d.is_empty() {
        return Delays::default();
    }
    d.sort_by(f64::total_cmp);
    let at = |q: f64| d[((d.len() as f64 * q).ceil() as usize).clamp(1, d.len()) - 1];
    Delays {
        n: d.len(),
        p50: at(0.5),
        p90: at(0.9),
        p99: at(0.99),
        max: d[d.len() - 1],
    }
}

/// Watches a round PGN: when each board's game first showed each move.
fn poll(path: &Path, boards: usize, plies: usize, stop: &AtomicBool) -> Vec<Vec<Option<Instant>>> {
    let mut seen = vec![vec![None; plies]; boards];
    let mut last: Option<(u64, SystemTime)> = None;
    let anchor = (Instant::now(), SystemTime::now());
    while !stop.load(Ordering::SeqCst) {
        let stamp = std::fs::metadata(path)
            .ok()
            .and_then(|m| Some((m.len(), m.modified().ok()?)));
        if let Some((_, written)) = stamp.filter(|_| stamp != last) {
            last = stamp;
            // When the node wrote it, not when this poll came round to read it.
            let now = written
                .duration_since(anchor.1)
                .map_or_else(|_| Instant::now(), |d| anchor.0 + d)
                .min(Instant::now());
            let mut text = String::new();
            if std::fs::File::open(path)
                .and_then(|mut f| f.read_to_string(&mut text))
                .is_ok()
            {
                for (board, moves, _) in games_of(&text) {
                    let Some(row) = board.checked_sub(1).and_then(|b| seen.get_mut(b)) else {
                        continue;
                    };
                    for slot in row.iter_mut().take(moves.len()) {
                        slot.get_or_insert(now);
                    }
                }
            }
        }
        std::thread::sleep(POLL);
    }
    seen
}

/// Whether a node's round PGN holds every game with its result.
fn complete(out: &Path, sim: &Simulated) -> bool {
    games_right(out, sim) == sim.games.len()
}

/// How many of the games a node's round PGN holds exactly (moves and result).
fn games_right(out: &Path, sim: &Simulated) -> usize {
    let text = std::fs::read_to_string(out.join("round.pgn")).unwrap_or_default();
    games_of(&text)
        .into_iter()
        .filter(|(board, moves, result)| {
            board
                .checked_sub(1)
                .and_then(|b| sim.games.get(b))
                .is_some_and(|(m, r)| m == moves && r == result)
        })
        .count()
}

/// A round PGN's games: board (from `[Round "R.B"]`), moves (SAN) and result.
fn games_of(text: &str) -> Vec<(usize, Vec<String>, String)> {
    let mut out = Vec::new();
    for game in text.split("[Event ").skip(1) {
        let tag = |name: &str| {
            let key = format!("[{name} \"");
            let at = game.find(&key)? + key.len();
            Some(game[at..].split('"').next()?.to_string())
        };
        let Some(board) = tag("Round")
            .and_then(|r| r.rsplit('.').next().map(str::to_string))
            .and_then(|b| b.parse().ok())
        else {
            continue;
        };
        let result = tag("Result").unwrap_or_default();
        let body = game.rsplit_once("]\n").map_or("", |(_, m)| m);
        let mut moves = Vec::new();
        let mut depth = 0;
        let mut word = String::new();
        for c in body.chars().chain(std::iter::once(' ')) {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                c if depth > 0 => {
                    let _ = c;
                }
                c if c.is_whitespace() => {
                    let w = std::mem::take(&mut word);
                    let numbered = w.ends_with('.') && w.starts_with(|c: char| c.is_ascii_digit());
                    let result_token = ["1-0", "0-1", "1/2-1/2", "*"].contains(&w.as_str());
                    if !w.is_empty() && !numbered && !result_token {
                        moves.push(w);
                    }
                }
                c => word.push(c),
            }
        }
        out.push((board, moves, result));
    }
    out
}

/// The nats-server binary: on PATH, or where Debian puts it.
fn nats_server() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.extend(["/usr/sbin", "/usr/local/sbin", "/usr/local/bin"].map(PathBuf::from));
    dirs.into_iter()
        .map(|d| d.join("nats-server"))
        .find(|f| f.is_file())
}

/// A nats-server with JetStream on 127.0.0.1, its store in the bench's folder;
/// stopped when dropped.
struct Broker {
    port: u16,
    child: Child,
}

impl Broker {
    fn start(server: &Path, dir: &Path) -> anyhow::Result<Broker> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let log = std::fs::File::create(dir.join("nats-server.log"))?;
        let child = Command::new(server)
            .args(["-a", "127.0.0.1", "-p", &port.to_string(), "-js", "-sd"])
            .arg(dir.join("store"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .with_context(|| format!("cannot start {}", server.display()))?;
        let broker = Broker { port, child };
        let until = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > until {
                bail!("nats-server did not take connections within 20 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(broker)
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `boardscribe broadcast` process; stopped when dropped.
struct Node {
    child: Option<Child>,
    pid: u32,
    out: PathBuf,
}

impl Node {
    fn start(product: &Path, url: &str, plan: &SimPlan, dir: &Path) -> anyhow::Result<Node> {
        let out = dir.join("out");
        std::fs::create_dir_all(&out)?;
        let log_path = dir.join("broadcast.log");
        let log = std::fs::File::create(&log_path)?;
        let child = Command::new(product)
            .args(["broadcast", "--nats", url, "--event", &plan.event])
            .args(["--round", &plan.round, "--listen", "127.0.0.1:0", "--out"])
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .with_context(|| format!("cannot start {}", product.display()))?;
        let node = Node {
            pid: child.id(),
            child: Some(child),
            out,
        };
        // Ready once it says where its records go (after connecting).
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            if log.contains("records in") {
                break;
            }
            if Instant::now() > until {
                bail!("the broadcast node did not start: {}", log.trim());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(500));
        Ok(node)
    }

    fn pid(&self) -> u32 {
        self.pid
    }

    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A process's CPU time (user and system), in seconds.
fn cpu_s(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name, which is in parentheses.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // SAFETY: sysconf only reads a constant of the system.
    let per_s = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    Some(ticks / per_s.max(1.0))
}

/// A line of /proc/PID/status, in KB.
fn status_kb(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn rss_kb(pid: u32) -> Option<u64> {
    status_kb(pid, "VmRSS:")
}

fn hwm_kb(pid: u32) -> Option<u64> {
    status_kb(pid, "VmHWM:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_pgn_is_read_into_boards_moves_and_results() {
        let text = "[Event \"B\"]\n[Round \"1.2\"]\n[Result \"*\"]\n\n1. e4 {[%emt 0:00:01]} e5 2. Nf3 *\n\n\
                    [Event \"B\"]\n[Round \"1.10\"]\n[Result \"1/2-1/2\"]\n\n1. d4 {a comment} 1... d5 1/2-1/2\n";
        let games = games_of(text);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].0, 2);
        assert_eq!(games[0].1, ["e4", "e5", "Nf3"]);
        assert_eq!(games[0].2, "*");
        assert_eq!(games[1].0, 10);
        assert_eq!(games[1].1, ["d4", "d5"]);
        assert_eq!(games[1].2, "1/2-1/2");
    }
}
