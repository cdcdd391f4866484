//! One writer per record and per round folder: a second `event` on a folder in
//! use, or a `record` on one of its boards' files, is refused naming the holder,
//! and the first one's records stay whole; a lock file planted as a link is never
//! written through; a killed `event` leaves no lock that holds; `event` stopped by
//! a signal before its inputs end exits 3, as `record` does.

use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use boardscribe_core::record::{parse_pgn, parse_pgn_games};
use boardscribe_core::rules::chess::Chess;
use boardscribe_core::rules::Rules;
use boardscribe_lab::synth::SceneParams;

use super::cli_reliability::fails;
use super::clips::{corners_arg, fast_clip, render, small, states_of};
use super::util::{event_command, p, run, stderr, stderr_lines, tmp};

/// Scholar's mate rendered as a clip: its path, `--corners` and the true SANs.
fn scholars_mate(dir: &Path) -> (PathBuf, String, Vec<String>) {
    let mut g = Chess::new();
    let (mut moves, mut sans) = (Vec::new(), Vec::new());
    for uci in ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"] {
        let m = g.parse_uci(uci).unwrap();
        sans.push(g.notation(&m));
        g.play(&m).unwrap();
        moves.push(m);
    }
    let (clip, truth) = render(
        dir,
        "mate",
        &small(SceneParams::chess_overhead(3, false)),
        &states_of(&Chess::new(), &moves),
        &fast_clip(),
    );
    (clip, corners_arg(&truth), sans)
}

/// A round of one chess board played from `clip` at its filmed pace.
fn round_file(dir: &Path, clip: &Path, corners: &str) -> PathBuf {
    let path = dir.join("round.toml");
    std::fs::write(
        &path,
        format!(
            "[event]\nname = \"Club night\"\nrealtime = true\n\n[[board]]\nnumber = 1\ninput = \"{}\"\ncorners = \"{corners}\"\nwhite-side = \"bottom\"\n",
            p(clip)
        ),
    )
    .unwrap();
    path
}

/// An `event` run; killed when dropped.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    said: Vec<String>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Running {
    /// Starts `event` and waits for its live page (the locks are held by then).
    fn start(round: &Path, out: &Path) -> Running {
        let mut child = event_command(round, out).spawn().expect("event starts");
        let lines = stderr_lines(&mut child);
        let mut run = Running {
            child,
            lines,
            said: Vec::new(),
        };
        run.wait_for("live page: ");
        run
    }

    /// Waits for a stderr line that starts with `start`.
    fn wait_for(&mut self, start: &str) {
        let until = Instant::now() + Duration::from_secs(120);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let found = line.starts_with(start);
                    self.said.push(line);
                    if found {
                        return;
                    }
                }
                Err(_) => panic!("no line '{start}...' from event: {:?}", self.said),
            }
        }
    }

    /// Waits for the command to end; its exit status and everything it said.
    fn finish(mut self) -> (ExitStatus, String) {
        let until = Instant::now() + Duration::from_secs(240);
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < until, "event did not end: {:?}", self.said);
            std::thread::sleep(Duration::from_millis(100));
        };
        // The reader thread ends with the pipe.
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.said.push(line);
        }
        (status, self.said.join("\n"))
    }

    fn signal(&self, sig: i32) {
        // SAFETY: a signal to the child this test started.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, sig) }, 0);
    }
}

/// The names in `dir` that start with a dot (lock files, temporary files).
fn hidden(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[test]
fn a_second_writer_on_a_round_in_use_is_refused_and_the_first_records_stay_whole() {
    let dir = tmp();
    let (clip, corners, sans) = scholars_mate(dir.path());
    let round = round_file(dir.path(), &clip, &corners);
    let out = dir.path().join("round1");
    let first = Running::start(&round, &out);
    let pid = first.child.id();

    // A second event on the same folder: refused before its page starts.
    let o = run(&[
        "event",
        p(&round),
        "--out",
        p(&out),
        "--listen",
        "127.0.0.1:0",
    ]);
    fails(
        &o,
        1,
        &format!("another event (process {pid}, running \"boardscribe event"),
    );
    let err = stderr(&o);
    assert!(err.contains(" UTC) is recording into the folder"), "{err}");
    assert!(!err.contains("live page"), "{err}");

    // `record` resuming board 1's file while the event writes it.
    let board1 = out.join("board-1.pgn");
    let o = run(&[
        "record",
        "--input",
        p(&clip),
        "--corners",
        &corners,
        "--pgn",
        p(&board1),
        "--resume",
    ]);
    fails(
        &o,
        1,
        &format!("another recorder (process {pid}, running \"boardscribe event"),
    );
    assert!(stderr(&o).contains("board-1.pgn"), "{}", stderr(&o));

    // The first goes on to the end of its clip; its records are whole.
    let (status, said) = first.finish();
    assert!(status.success(), "{status}: {said}");
    let rec = parse_pgn(&std::fs::read_to_string(&board1).unwrap()).unwrap();
    let got: Vec<&str> = rec.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(got, sans, "{said}");
    assert_eq!(rec.result, "1-0");
    let games = parse_pgn_games(&std::fs::read_to_string(out.join("round.pgn")).unwrap()).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].moves.len(), sans.len());
    assert_eq!(
        hidden(&out),
        Vec::<String>::new(),
        "the locks go with the run"
    );
}

#[test]
fn event_stopped_by_a_signal_before_its_input_ends_exits_3_and_a_killed_one_holds_no_lock() {
    let dir = tmp();
    let (clip, corners, sans) = scholars_mate(dir.path());
    let round = round_file(dir.path(), &clip, &corners);
    let out = dir.path().join("round1");

    // Ctrl-C after the first move: the record is finished and written, exit 3.
    let mut first = Running::start(&round, &out);
    first.wait_for("board 1: 1. e4");
    first.signal(libc::SIGINT);
    let (status, said) = first.finish();
    assert_eq!(status.code(), Some(3), "{said}");
    assert!(
        said.contains("stopped by SIGINT before the end of the input of board 1 ("),
        "{said}"
    );
    let rec = parse_pgn(&std::fs::read_to_string(out.join("board-1.pgn")).unwrap()).unwrap();
    let got: Vec<&str> = rec.moves.iter().map(|m| m.san.as_str()).collect();
    assert!(!got.is_empty() && got.len() < sans.len(), "{got:?}: {said}");
    assert_eq!(got, sans[..got.len()], "{said}");

    // Killed outright: its lock goes with it; the next run takes the folder.
    let killed = Running::start(&round, &out);
    killed.signal(libc::SIGKILL);
    let (status, _) = killed.finish();
    assert_eq!(status.code(), None, "killed by a signal");
    let again = Running::start(&round, &out);
    again.signal(libc::SIGTERM);
    let (status, said) = again.finish();
    assert_eq!(status.code(), Some(3), "{said}");
    assert!(said.contains("stopped by SIGTERM"), "{said}");
    assert!(!said.contains("another"), "{said}");
    let rec = parse_pgn(&std::fs::read_to_string(out.join("board-1.pgn")).unwrap()).unwrap();
    assert!(
        rec.moves.len() >= got.len(),
        "the record is never shortened"
    );
}

#[cfg(unix)]
#[test]
fn a_lock_file_planted_as_a_link_is_refused_and_never_written() {
    let dir = tmp();
    let victim = dir.path().join("notes.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let round = dir.path().join("round.toml");
    std::fs::write(
        &round,
        "[event]\nname = \"x\"\n[[board]]\nnumber = 1\ninput = \"clip.mp4\"\n",
    )
    .unwrap();

    // The round folder's lock, a hard link to the victim.
    let out = dir.path().join("round1");
    std::fs::create_dir(&out).unwrap();
    std::fs::hard_link(&victim, out.join(".boardscribe.lock")).unwrap();
    let o = run(&[
        "event",
        p(&round),
        "--out",
        p(&out),
        "--listen",
        "127.0.0.1:0",
    ]);
    fails(&o, 1, "is a hard link");
    assert!(stderr(&o).contains(".boardscribe.lock"), "{}", stderr(&o));

    // A board's record lock, a hard link; then a symbolic link.
    std::fs::remove_file(out.join(".boardscribe.lock")).unwrap();
    std::fs::hard_link(&victim, out.join(".board-1.pgn.lock")).unwrap();
    let o = run(&[
        "event",
        p(&round),
        "--out",
        p(&out),
        "--listen",
        "127.0.0.1:0",
    ]);
    fails(&o, 1, "is a hard link");
    let input = dir.path().join("clip.mp4");
    std::fs::write(&input, "not read").unwrap();
    let o = run(&[
        "record",
        "--input",
        p(&input),
        "--pgn",
        p(&out.join("board-1.pgn")),
    ]);
    fails(&o, 1, ".board-1.pgn.lock' is a hard link");
    std::os::unix::fs::symlink(&victim, out.join(".game.pgn.lock")).unwrap();
    let o = run(&[
        "record",
        "--input",
        p(&input),
        "--pgn",
        p(&out.join("game.pgn")),
    ]);
    fails(&o, 1, ".game.pgn.lock' is a symbolic link");

    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert!(!out.join("board-1.pgn").exists() && !out.join("round.pgn").exists());
}
