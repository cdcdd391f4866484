//! Issue 31: several recorder machines, one broadcast, through NATS JetStream.
//! Two `event` processes of two boards each (rendered clips, played at their
//! real pace) publish to a local nats-server; one `broadcast` rebuilds the
//! round. Mid-round the broadcast is killed (SIGKILL) and started again, the
//! nats-server is stopped and started again on its file store, and a recorder is
//! killed and resumed on its folder: the broadcast's round PGN ends as the four
//! true games, the same text as the recorders' own, each board's record the same
//! file; a second broadcast started after the round has it all at once; an
//! arbiter's action on the broadcast's page reaches the board's recorder and its
//! effect comes back (to both broadcasts).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use boardscribe_core::record::parse_pgn_games;

use super::event::{http, Running};
use super::recovery::{clip_of, fixture_games, same_moves, Clip, Game};
use super::util::{bin, event_command, have_tool, p, stderr_lines, tmp};

/// A nats-server with JetStream on 127.0.0.1, its store in a folder of its own;
/// stopped when dropped.
struct Nats {
    port: u16,
    store: PathBuf,
    child: Option<Child>,
}

/// The nats-server binary, if installed (Debian puts it in /usr/sbin).
fn nats_server() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|d| d.join("nats-server"))
        .find(|f| f.is_file())
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Nats {
    fn start(store: &Path) -> Nats {
        Nats::start_on(store, free_port())
    }

    fn start_on(store: &Path, port: u16) -> Nats {
        let mut n = Nats {
            port,
            store: store.to_path_buf(),
            child: None,
        };
        n.up();
        n
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Starts the server and waits until it takes connections.
    fn up(&mut self) {
        let child = Command::new(nats_server().expect("nats-server"))
            .args([
                "-a",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-js",
                "-sd",
            ])
            .arg(&self.store)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts");
        self.child = Some(child);
        let until = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < until, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server as an operator would (SIGTERM), and waits for its end.
    fn down(&mut self) {
        if let Some(mut c) = self.child.take() {
            unsafe {
                libc::kill(c.id() as i32, libc::SIGTERM);
            }
            let _ = c.wait();
        }
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// `broadcast` on a free port into `out`: the process, its address and token.
fn start_broadcast(nats: &str, out: &Path) -> (Running, String, String, mpsc::Receiver<String>) {
    let mut child = bin()
        .args([
            "broadcast",
            "--nats",
            nats,
            "--event",
            "Two Halls",
            "--round",
            "5",
        ])
        .args(["--out", p(out), "--listen", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("broadcast starts");
    let rx = stderr_lines(&mut child);
    let running = Running(child);
    let (addr, token) = super::util::address_and_token(&rx);
    (running, addr, token, rx)
}

/// `event` of a recorder machine, publishing to `nats`, lingering after its inputs
/// end so that it still answers arbiter actions.
fn start_recorder(round: &Path, out: &Path, nats: &str) -> (Running, mpsc::Receiver<String>) {
    let mut child = event_command(round, out)
        .args(["--nats", nats, "--linger", "300"])
        .spawn()
        .expect("event starts");
    let rx = stderr_lines(&mut child);
    (Running(child), rx)
}

/// A round file of `boards` (number, game, clip), played at the clips' pace.
fn round_file(dir: &Path, name: &str, boards: &[(u32, &Game, &Clip)]) -> PathBuf {
    let mut toml = String::from(
        "[event]\nname = \"Two Halls\"\nsite = \"Brno\"\nround = \"5\"\ndate = \"2026.12.04\"\nrealtime = true\n",
    );
    for (n, g, c) in boards {
        toml.push_str(&format!(
            "\n[[board]]\nnumber = {n}\ninput = \"{}\"\ncorners = \"{}\"\nwhite-side = \"bottom\"\nwhite = \"White {n}\"\nblack = \"Black {n}\"\n",
            p(&c.path),
            c.corners
        ));
        if g.start.fen() != boardscribe_core::rules::chess::Chess::new().fen() {
            toml.push_str(&format!("fen = \"{}\"\n", g.start.fen()));
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, toml).unwrap();
    path
}

/// The half-moves in a round PGN on disk (0 while there is none).
fn plies(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    parse_pgn_games(&text)
        .map(|g| g.iter().map(|g| g.moves.len()).sum())
        .unwrap_or(0)
}

/// Waits until the broadcast's round PGN holds more than `than` half-moves;
/// returns how many.
fn wait_for_more(path: &Path, than: usize, what: &str) -> usize {
    let until = Instant::now() + Duration::from_secs(120);
    loop {
        let n = plies(path);
        if n > than {
            return n;
        }
        assert!(Instant::now() < until, "{what}: stuck at {n} half-moves");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Waits for the line `records in ...`: every board of the recorder has ended.
fn wait_ended(rx: &mpsc::Receiver<String>, who: &str) -> Vec<String> {
    let mut seen = Vec::new();
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(180))
            .unwrap_or_else(|_| panic!("{who} did not end: {seen:?}"));
        let done = line.starts_with("records in ");
        seen.push(line);
        if done {
            return seen;
        }
    }
}

/// Waits until `f` holds, up to `limit`.
fn eventually(limit: Duration, what: &str, mut f: impl FnMut() -> Result<(), String>) {
    let until = Instant::now() + limit;
    loop {
        match f() {
            Ok(()) => return,
            Err(why) if Instant::now() >= until => panic!("{what}: {why}"),
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn two_recorders_and_a_broadcast_through_nats_survive_kills_and_a_broker_restart() {
    if !have_tool("nats-server", nats_server().is_some()) {
        return;
    }
    let t0 = Instant::now();
    let dir = tmp();
    let all = fixture_games();
    let game = |name: &str| all.iter().find(|g| g.name == name).unwrap();
    let games = [
        game("queen_promotion_mate"),
        game("knight_promotion_proven"),
        game("setup_black_to_move"),
        game("threefold"),
    ];
    let clips: Vec<Clip> = games
        .iter()
        .enumerate()
        .map(|(i, g)| clip_of(dir.path(), g, 80 + i as u64))
        .collect();
    let hall_a = round_file(
        dir.path(),
        "hall-a.toml",
        &[(1, games[0], &clips[0]), (2, games[1], &clips[1])],
    );
    let hall_b = round_file(
        dir.path(),
        "hall-b.toml",
        &[(3, games[2], &clips[2]), (4, games[3], &clips[3])],
    );
    let (out_a, out_b, out_c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("broadcast"),
    );
    eprintln!("rendered in {:.1} s", t0.elapsed().as_secs_f64());

    let mut nats = Nats::start(&dir.path().join("store"));
    let url = nats.url();
    let (broadcast, _, _, _) = start_broadcast(&url, &out_c);
    let (rec_a, lines_a) = start_recorder(&hall_a, &out_a, &url);
    let (_rec_b, lines_b) = start_recorder(&hall_b, &out_b, &url);
    let round_pgn = out_c.join("round.pgn");

    // (a) The broadcast killed mid-round and started again: it catches up.
    let seen = wait_for_more(&round_pgn, 1, "the broadcast before its kill");
    drop(broadcast);
    eprintln!("broadcast killed at {seen} half-moves");
    let (_broadcast, addr, token, _) = start_broadcast(&url, &out_c);

    // (b) The broker stopped and started again on its file store: the
    // recorders record meanwhile.
    let seen = wait_for_more(&round_pgn, seen + 1, "the broadcast started again");
    nats.down();
    eprintln!("nats-server stopped at {seen} half-moves");
    std::thread::sleep(Duration::from_secs(2));
    nats.up();
    let back = Instant::now();

    // (c) A recorder killed and resumed on its folder, its games under way.
    std::thread::sleep(Duration::from_secs(1));
    let at_a = plies(&out_a.join("round.pgn"));
    let of_a = games[0].sans.len() + games[1].sans.len();
    drop(rec_a);
    drop(lines_a);
    assert!(
        at_a < of_a,
        "recorder A had ended ({at_a} half-moves) before its kill"
    );
    eprintln!("recorder A killed at {at_a} of its {of_a} half-moves");
    let (_rec_a, lines_a) = start_recorder(&hall_a, &out_a, &url);
    let seen = wait_for_more(&round_pgn, seen, "after the broker's restart");
    eprintln!(
        "the broadcast moved on {:.1} s after the broker's restart ({seen} half-moves)",
        back.elapsed().as_secs_f64()
    );

    let log_a = wait_ended(&lines_a, "recorder A");
    let log_b = wait_ended(&lines_b, "recorder B");
    eprintln!("recorders ended at {:.1} s", t0.elapsed().as_secs_f64());

    // The broadcast's round PGN: the recorders' own, in board order.
    let want = format!(
        "{}\n{}",
        read(&out_a.join("round.pgn")),
        read(&out_b.join("round.pgn"))
    );
    eventually(Duration::from_secs(30), "the broadcast's round PGN", || {
        let got = read(&round_pgn);
        (got == want)
            .then_some(())
            .ok_or_else(|| format!("\n{got}\n--- want ---\n{want}\n{log_a:?}\n{log_b:?}"))
    });
    // Each board's copy follows the round PGN within seconds.
    for (n, out) in [(1, &out_a), (2, &out_a), (3, &out_b), (4, &out_b)] {
        let name = format!("board-{n}.pgn");
        eventually(
            Duration::from_secs(15),
            &format!("board {n}'s record"),
            || {
                let (got, want) = (read(&out_c.join(&name)), read(&out.join(&name)));
                (got == want).then_some(()).ok_or(got)
            },
        );
    }
    let parsed = parse_pgn_games(&want).unwrap();
    assert_eq!(parsed.len(), 4, "{want}");
    for (i, g) in parsed.iter().enumerate() {
        assert_eq!(g.tag("Board"), Some((i + 1).to_string().as_str()));
        let sans: Vec<String> = g.moves.iter().map(|m| m.san.clone()).collect();
        assert!(
            same_moves(&sans, &games[i].sans, &want),
            "board {}: {sans:?}, not the true game {:?}",
            i + 1,
            games[i].sans
        );
    }
    let (_, _, body) = http(&addr, "GET", "/round.pgn", &[], "");
    assert_eq!(String::from_utf8(body).unwrap(), want, "served as written");

    // A second broadcast node, started after the round: it has every board at once.
    let late = dir.path().join("late");
    let t = Instant::now();
    let (_late, late_addr, _, _) = start_broadcast(&url, &late);
    eventually(Duration::from_secs(20), "a broadcast started late", || {
        let got = read(&late.join("round.pgn"));
        (got == want).then_some(()).ok_or(got)
    });
    eprintln!(
        "a broadcast started late caught up in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let (_, _, body) = http(&late_addr, "GET", "/api/round", &[], "");
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["boards"].as_array().map(Vec::len), Some(4), "{v}");

    // An arbiter's action on the broadcast's page reaches board 3's recorder.
    let (status, _, body) = http(
        &addr,
        "POST",
        "/api/board/3/action",
        &[
            ("X-Arbiter-Token", token.as_str()),
            ("Content-Type", "application/json"),
        ],
        r#"{"action":"set_result","result":"0-1"}"#,
    );
    let body = String::from_utf8_lossy(&body).into_owned();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("result set to 0-1"), "{body}");
    assert!(read(&out_b.join("board-3.pgn")).contains("[Result \"0-1\"]"));
    for node in [&out_c, &late] {
        eventually(
            Duration::from_secs(20),
            "the result back on a broadcast",
            || {
                let got = read(&node.join("round.pgn"));
                let want = format!(
                    "{}\n{}",
                    read(&out_a.join("round.pgn")),
                    read(&out_b.join("round.pgn"))
                );
                (got == want && got.contains("[Result \"0-1\"]"))
                    .then_some(())
                    .ok_or(got)
            },
        );
        eventually(Duration::from_secs(15), "board 3's record", || {
            let got = read(&node.join("board-3.pgn"));
            (got == read(&out_b.join("board-3.pgn")))
                .then_some(())
                .ok_or(got)
        });
    }
    // A board no recorder has: refused as the page refuses one.
    let (status, _, _) = http(
        &addr,
        "POST",
        "/api/board/9/action",
        &[("X-Arbiter-Token", token.as_str())],
        r#"{"action":"take_back"}"#,
    );
    assert_eq!(status, 404);
    eprintln!("done in {:.1} s", t0.elapsed().as_secs_f64());
}

/// The broker down for a whole recording: `event` records as without it, keeps
/// the messages in its outbox and says so; run again on its folder with the
/// broker up, it sends them, and a broadcast has the game. The broker given in
/// the round file (`[event] nats`), then on the command line over another there.
#[test]
fn a_recording_with_the_broker_down_keeps_its_messages_and_sends_them_on_the_next_run() {
    if !have_tool("nats-server", nats_server().is_some()) {
        return;
    }
    let dir = tmp();
    let all = fixture_games();
    let g = all
        .iter()
        .find(|g| g.name == "setup_black_to_move")
        .unwrap();
    let clip = clip_of(dir.path(), g, 90);
    let round = round_file(dir.path(), "round.toml", &[(1, g, &clip)]);
    let port = free_port();
    let url = format!("nats://127.0.0.1:{port}");
    // Not at the clips' pace: this test is about the outbox. The first run is
    // told the broker in the round file, the second on the command line, which
    // wins over a round file's.
    let text = std::fs::read_to_string(&round)
        .unwrap()
        .replace("realtime = true\n", "");
    let in_file = |url: &str| text.replace("[event]\n", &format!("[event]\nnats = \"{url}\"\n"));
    std::fs::write(&round, in_file(&url)).unwrap();
    let out = dir.path().join("records");
    let o = event_command(&round, &out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("not yet acknowledged by the NATS server"),
        "{err}"
    );
    let record = read(&out.join("board-1.pgn"));
    let games = parse_pgn_games(&record).unwrap();
    let sans: Vec<String> = games[0].moves.iter().map(|m| m.san.clone()).collect();
    assert!(same_moves(&sans, &g.sans, &record), "{sans:?}\n{err}");
    assert!(!read(&out.join("nats/outbox")).is_empty());

    let _nats = Nats::start_on(&dir.path().join("store"), port);
    let broadcast_out = dir.path().join("broadcast");
    let (_broadcast, _, _, _) = start_broadcast(&url, &broadcast_out);
    std::fs::write(
        &round,
        in_file(&format!("nats://127.0.0.1:{}", free_port())),
    )
    .unwrap();
    let o = event_command(&round, &out)
        .args(["--nats", &url])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("not yet acknowledged"), "{err}");
    assert_eq!(
        read(&out.join("board-1.pgn")),
        record,
        "the record is as it was"
    );
    eventually(Duration::from_secs(20), "the game on the broadcast", || {
        let got = read(&broadcast_out.join("round.pgn"));
        (got == read(&out.join("round.pgn")))
            .then_some(())
            .ok_or(got)
    });
    eventually(
        Duration::from_secs(15),
        "the board's record on the broadcast",
        || {
            let got = read(&broadcast_out.join("board-1.pgn"));
            (got == record).then_some(()).ok_or(got)
        },
    );
}
