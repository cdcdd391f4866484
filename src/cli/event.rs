//! `boardscribe event round.toml --out DIR`: every board of a round recorded on its
//! own thread, a live page and the round PGN served; and `record --serve`, the same
//! page for one board.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use clap::Args;

use super::{signals, ModelArgs};
use crate::game::GameKind;
use crate::pipeline::Event;
use crate::record::today;
use crate::round::{Round, RoundFile, Status, Update};
use crate::runner;
use boardscribe_cli::{usage, Incomplete};
use boardscribe_round::nats;

#[derive(Args, Debug)]
pub struct EventArgs {
    /// The round file (TOML): the event's tags and one [[board]] per board.
    pub round: PathBuf,
    /// Where the records go: board-N.pgn (.pdn, .txt, .sgf) per board, every comment in
    /// it; round.pgn, the public round PGN (the games only); arbiter/round.pgn, with the
    /// comments. Records found there are continued, never overwritten.
    #[arg(long)]
    pub out: PathBuf,
    /// Where the live page listens; 127.0.0.1 keeps it to this machine, 0.0.0.0:PORT
    /// opens it to the local network.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Seconds to keep the page up after every input has ended.
    #[arg(long, default_value_t = 0.0)]
    pub linger: f64,
    /// Play video files and photo folders at the pace they were filmed, as cameras
    /// would deliver them (as `realtime = true` in [event]).
    #[arg(long)]
    pub realtime: bool,
    /// Print every recorder event as a JSON line on stdout (with a `board` field).
    #[arg(long)]
    pub events: bool,
    /// Also publish every board to this NATS server (JetStream) for `broadcast` on
    /// another machine, as `nats = "..."` in [event]; recording never waits for it.
    #[arg(long, value_name = "URL")]
    pub nats: Option<String>,
    #[command(flatten)]
    pub model: ModelArgs,
}

pub fn run(a: EventArgs) -> anyhow::Result<()> {
    // Caught from the start, so a signal before the recorders run still ends
    // the command through its records (see `stop_on_signal`).
    signals::install();
    anyhow::ensure!(
        a.linger.is_finite() && a.linger >= 0.0,
        "--linger must be a number of seconds, not {}",
        a.linger
    );
    let file = load_round(&a.round)?;
    let mut info = file.event.clone();
    info.realtime |= a.realtime;
    let date = info.date.clone().unwrap_or_else(today);
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot make the folder '{}'", a.out.display()))?;
    // One writer per round folder and per record, until the command ends.
    let _locks = file.lock(&a.out, &super::command_line())?;
    let token = runner::new_token()?;
    // The flag wins over the round file.
    let nats_url = a.nats.clone().or_else(|| info.nats.clone());
    // Boards that share an input (one camera over a table) read it once.
    let round = Round::new(info, date, file.boards, &a.out, token.clone())?;
    let server = crate::server::start(round.clone(), &a.listen)?;
    let base = format!("http://{}", server.addr);
    eprintln!("live page: {base}/");
    eprintln!("round PGN for broadcasts: {base}/round.pgn");
    eprintln!("arbiter page: {base}/?token={token}");
    eprintln!("arbiter token: {token}");
    let publisher = match &nats_url {
        Some(url) => Some(start_publishing(&round, url, &a.out)?),
        None => None,
    };
    let printer = print_updates(&round, a.events);
    stop_on_signal(&round);
    let models = runner::Models {
        cells: a.model.path_for(false),
        points: a.model.path_for(true),
    };
    let reports = runner::record_round(&round, &models, say_locating);
    let _ = printer.join();
    let mut failed = Vec::new();
    for r in &reports {
        let b = round.board(r.number).map(|b| b.state());
        let plies = b.as_ref().map_or(0, |s| s.sans.len());
        let result = b.as_ref().map_or("*".into(), |s| s.result.clone());
        match &r.error {
            None => eprintln!("board {}: {plies} half-moves, result {result}", r.number),
            Some(e) => {
                eprintln!(
                    "board {}: failed after {} attempts: {e}",
                    r.number, r.attempts
                );
                failed.push(r.number.to_string());
            }
        }
    }
    eprintln!("records in {}", a.out.display());
    if a.linger > 0.0 && !round.is_stopping() {
        eprintln!("serving {base}/ for {} s more", a.linger);
        // A signal ends the wait (and the command) at once.
        let until = std::time::Instant::now() + std::time::Duration::from_secs_f64(a.linger);
        while std::time::Instant::now() < until && !round.is_stopping() {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
    if let Some(p) = &publisher {
        finish_publishing(p, &a.out);
    }
    anyhow::ensure!(
        failed.is_empty(),
        "board(s) {} could not be recorded (see above); the other records are complete",
        failed.join(", ")
    );
    cut_short()
}

/// How long `event` waits at its end for the NATS server to acknowledge what is
/// left in the outbox.
const NATS_FLUSH: std::time::Duration = std::time::Duration::from_secs(10);

/// Starts publishing the round to the NATS server at `url`; says where.
fn start_publishing(round: &Arc<Round>, url: &str, out: &Path) -> anyhow::Result<nats::Publisher> {
    let p = nats::publish(round, url, out)?;
    eprintln!(
        "publishing to NATS {url} on {} (outbox {})",
        nats::round_subjects(&round.info.name, &round.info.round),
        out.join("nats").display()
    );
    Ok(p)
}

/// Gives the NATS server a moment to take what the outbox still holds; says
/// what is left for the next run on the folder.
fn finish_publishing(p: &nats::Publisher, out: &Path) {
    let left = p.finish(NATS_FLUSH);
    if left > 0 {
        eprintln!(
            "{left} message(s) not yet acknowledged by the NATS server are kept in {}: they are sent when `event` runs again on this folder",
            out.join("nats").display()
        );
    }
}

/// The round file, every board's values checked as `record` checks its flags,
/// its profiles read: every mistake said at once, naming the board and the key,
/// before anything starts. Exit status 2 when `record` would refuse one of them
/// as a usage error (a number out of range, a grid, corners or White's edge
/// malformed, a grid that is not the game's), 1 otherwise (a start position
/// that is not one, a profile that cannot be read), as `record` does.
fn load_round(path: &Path) -> anyhow::Result<RoundFile> {
    RoundFile::load(path).map_err(|e| {
        let usage = e.is_usage();
        let e = anyhow::Error::new(e);
        if usage {
            usage!("{e:#}")
        } else {
            e
        }
    })
}

/// Boards whose file or folder had not ended when a signal stopped the round:
/// (number, input), with the signal's name.
static CUT_SHORT: std::sync::OnceLock<(String, Vec<(u32, String)>)> = std::sync::OnceLock::new();

/// Exit status 3, as `record`'s, when a signal stopped boards whose file or
/// folder had not ended: their records are valid but not the whole game.
/// Cameras and streams are stopped that way as a matter of course.
fn cut_short() -> anyhow::Result<()> {
    let Some((signal, boards)) = CUT_SHORT.get().filter(|(_, b)| !b.is_empty()) else {
        return Ok(());
    };
    let names: Vec<String> = boards
        .iter()
        .map(|(n, input)| format!("board {n} ('{input}')"))
        .collect();
    Err(anyhow::Error::new(Incomplete(format!(
        "stopped by {signal} before the end of the input of {}: {} the moves accepted until then, not the whole game",
        names.join(", "),
        if boards.len() == 1 {
            "its record holds"
        } else {
            "their records hold"
        }
    ))))
}

/// Says on stderr what the arbiter should know (and every event on stdout with
/// `--events`), from the round's broadcast, until the round ends.
fn print_updates(round: &Arc<Round>, json: bool) -> std::thread::JoinHandle<()> {
    let mut rx = round.subscribe();
    let games: std::collections::HashMap<u32, GameKind> = round
        .boards()
        .iter()
        .map(|b| (b.number(), b.kind()))
        .collect();
    std::thread::spawn(move || loop {
        match rx.blocking_recv() {
            Ok(Update::Record(n, line)) => {
                let game = games.get(&n).copied().unwrap_or_default();
                if json {
                    println!("{line}");
                }
                let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
                    continue;
                };
                let kind = v["type"].as_str().unwrap_or("");
                match kind {
                    "move" => {
                        let ply = v["ply"].as_u64().unwrap_or(0);
                        let (number, dots) = game.move_number(ply as usize);
                        eprintln!(
                            "board {n}: {number}{dots} {}",
                            v["san"].as_str().unwrap_or("")
                        )
                    }
                    "unexplained" => eprintln!(
                        "board {n}: unexplained change at {}: {}",
                        v["time"], v["squares"]
                    ),
                    "board_lost" => eprintln!("board {n}: the board is lost; waiting for it"),
                    _ => {}
                }
            }
            Ok(Update::End) => break,
            Ok(Update::Board(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
        }
    })
}

/// Ctrl-C, SIGTERM or SIGHUP asks every recorder to finish its record (as when
/// its input ends) and the command to end; a second one ends the process at once.
/// The boards whose file or folder had not ended are noted for the exit status.
fn stop_on_signal(round: &Arc<Round>) {
    let flag = signals::install();
    let round = round.clone();
    std::thread::spawn(move || {
        while !flag.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let open: Vec<(u32, String)> = round
            .boards()
            .iter()
            .filter(|b| b.spec.is_offline())
            .filter(|b| {
                !matches!(
                    b.state().status,
                    Status::Ended | Status::Finished | Status::Failed
                )
            })
            .map(|b| (b.spec.number, b.spec.input.clone()))
            .collect();
        let signal = signals::caught().map_or_else(|| "a signal".into(), signals::name);
        let _ = CUT_SHORT.set((signal, open));
        eprintln!("stopping: every record is finished and written (again to end at once)");
        round.stop();
    });
}

/// Only where a board was found is said; the round's page has the rest.
fn say_locating(e: &Event) {
    if let Some(line) = super::events::locating_line(e) {
        errln!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::round::{BoardSpec, FPS, MAX_FPS, QUIET_S};

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 512,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Any number for a board's quiet, fps or max-fps is taken exactly when
        /// `record`'s flag takes it, and refused naming the board and the key
        /// otherwise (a usage error, exit status 2, as the flag's).
        #[test]
        fn round_file_numbers_are_taken_exactly_when_record_takes_them(
            v in prop_oneof![
                any::<f64>(),
                -100.0..2000.0f64,
                Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY),
                Just(-0.0), Just(0.0), Just(0.001), Just(0.000_999), Just(60.0),
                Just(60.000_001), Just(1000.0), Just(1e9),
            ],
            which in 0usize..3,
        ) {
            let (key, flag, (lo, hi)) = [
                ("quiet", "--quiet", QUIET_S),
                ("fps", "--fps", FPS),
                ("max-fps", "--max-fps", MAX_FPS),
            ][which];
            let spec = BoardSpec {
                number: 3,
                input: "a".into(),
                quiet: (which == 0).then_some(v),
                fps: (which == 1).then_some(v),
                max_fps: (which == 2).then_some(v),
                ..BoardSpec::default()
            };
            let bad = spec.check();
            let by_record = super::super::values::float_in(lo, hi)(&v.to_string());
            prop_assert_eq!(bad.is_empty(), by_record.is_ok(), "{} {}: {:?}", flag, v, bad);
            if let Some(b) = bad.first() {
                prop_assert_eq!((b.board, b.key, b.usage), (3, key, true));
                let said = b.to_string();
                prop_assert!(said.starts_with(&format!("board 3: {key}: ")), "{}", said);
            }
        }
    }
}
