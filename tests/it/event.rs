//! Issue 20: tournament mode. `event` records three rendered clips as three boards
//! (a chess game to mate, a chess game with an illegal move, a Russian draughts
//! game) played at their real pace, while this test polls the round PGN and
//! listens to the event stream as a broadcast and a page would; then checks the
//! records against the true games (python-chess where installed), the page in
//! headless Chromium (where installed), and the arbiter's actions.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use boardscribe_core::record::parse_pgn_games;
use boardscribe_core::record::Resume;
use boardscribe_core::rules::chess::Chess;
use boardscribe_core::rules::russian_draughts::{DraughtsOptions, RussianDraughts};
use boardscribe_core::rules::Rules;
use boardscribe_lab::synth::{Rng, SceneParams};

use super::clips::{corners_arg, fast_clip, render, small, states_of};
use super::util::{bin, event_command, have_tool, p, stderr_lines, tmp};

/// One HTTP/1.0 exchange: (status, head, body).
pub(super) fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).expect("server answers");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, head, raw[split + 4..].to_vec())
}

fn get(addr: &str, path: &str) -> (u16, String, String) {
    let (s, h, b) = http(addr, "GET", path, &[], "");
    (s, h, String::from_utf8(b).unwrap())
}

/// Server-Sent Events heard so far, as (event, data).
type Heard = Arc<Mutex<Vec<(String, String)>>>;

/// Server-Sent Events of `path` (`/events`, with `?token=` the arbiter's) as
/// (event, data), gathered on a thread until `end`.
fn listen(addr: &str, path: &str) -> (Heard, std::thread::JoinHandle<()>) {
    let got = Arc::new(Mutex::new(Vec::new()));
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(240))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.0\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    let out = got.clone();
    let h = std::thread::spawn(move || {
        let mut name = String::new();
        for line in BufReader::new(s).lines() {
            let Ok(line) = line else { break };
            if let Some(n) = line.strip_prefix("event: ").or(line.strip_prefix("event:")) {
                name = n.trim().to_string();
            } else if let Some(d) = line.strip_prefix("data: ").or(line.strip_prefix("data:")) {
                let end = name == "end";
                out.lock().unwrap().push((name.clone(), d.to_string()));
                if end {
                    break;
                }
            }
        }
    });
    (got, h)
}

/// The event process; killed when dropped.
pub(super) struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `event`; returns it, its address, the arbiter's token and its stderr lines.
pub(super) fn start_event(
    round: &Path,
    out: &Path,
) -> (Running, String, String, mpsc::Receiver<String>) {
    let mut child = event_command(round, out)
        .args(["--linger", "300"])
        .spawn()
        .expect("event starts");
    let rx = stderr_lines(&mut child);
    let running = Running(child);
    let (addr, token) = super::util::address_and_token(&rx);
    (running, addr, token, rx)
}

/// The true games: Scholar's mate; e4 e5, an illegal bishop jump put back, Nf3; and
/// eight plies of seeded random Russian draughts.
struct Truth {
    mate: (Chess, Vec<String>),
    illegal: (Chess, Vec<String>),
    draughts: (
        RussianDraughts,
        Vec<boardscribe_core::rules::russian_draughts::Move>,
    ),
}

fn chess_line(ucis: &[&str]) -> (Chess, Vec<<Chess as Rules>::Move>, Vec<String>) {
    let mut g = Chess::new();
    let (mut moves, mut sans) = (Vec::new(), Vec::new());
    for u in ucis {
        let m = g.parse_uci(u).unwrap();
        sans.push(g.notation(&m));
        g.play(&m).unwrap();
        moves.push(m);
    }
    (g, moves, sans)
}

/// Renders the three clips into `dir`; returns their paths, corners and the truth.
fn clips(dir: &Path) -> (Vec<(PathBuf, String)>, Truth) {
    let mut out = Vec::new();
    let (g1, m1, s1) = chess_line(&["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]);
    let (c, t) = render(
        dir,
        "mate",
        &small(SceneParams::chess_overhead(3, false)),
        &states_of(&Chess::new(), &m1),
        &fast_clip(),
    );
    out.push((c, corners_arg(&t)));

    let (_, m2, _) = chess_line(&["e2e4", "e7e5"]);
    let mut states = states_of(&Chess::new(), &m2);
    let mut illegal = states.last().unwrap().clone();
    let bishop = illegal.get(7, 5);
    illegal.set(7, 5, None);
    illegal.set(5, 7, bishop);
    states.push(illegal);
    states.push(states[2].clone());
    let (g2, _, s2) = chess_line(&["e2e4", "e7e5", "g1f3"]);
    states.push(boardscribe_lab::sets::board_state(
        &g2,
        boardscribe_core::infer::WhiteSide::Bottom,
    ));
    let (c, t) = render(
        dir,
        "illegal",
        &small(SceneParams::chess_overhead(9, false)),
        &states,
        &fast_clip(),
    );
    out.push((c, corners_arg(&t)));

    let start = RussianDraughts::new(DraughtsOptions::default());
    let mut rng = Rng::new(7);
    let mut g = start.clone();
    let mut moves = Vec::new();
    for _ in 0..8 {
        let legal = g.legal_moves();
        let m = legal[rng.below(legal.len())].clone();
        g.play(&m).unwrap();
        moves.push(m);
    }
    let (c, t) = render(
        dir,
        "draughts",
        &small(SceneParams::chess_overhead(104, true)),
        &states_of(&start, &moves),
        &fast_clip(),
    );
    out.push((c, corners_arg(&t)));
    (
        out,
        Truth {
            mate: (g1, s1),
            illegal: (g2, s2),
            draughts: (g, moves),
        },
    )
}

fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn placement(fen: &str) -> &str {
    fen.split(' ').next().unwrap()
}

#[test]
fn event_records_three_boards_live_with_a_round_pgn_a_page_and_arbiter_actions() {
    let dir = tmp();
    let (clips, truth) = clips(dir.path());
    let mut toml = String::from(
        "[event]\nname = \"Club Championship\"\nsite = \"Brno\"\nround = \"3\"\ndate = \"2026.05.01\"\nrealtime = true\ntime-control = \"5400+30\"\n",
    );
    let games = ["chess", "chess", "russian-draughts"];
    let names = [
        ("Anna Novak", "Ben Horvat"),
        ("Cecilie Dvorak", "David Cerny"),
        ("Eva Mala", "Filip Kral"),
    ];
    for (i, ((clip, corners), game)) in clips.iter().zip(games).enumerate() {
        toml.push_str(&format!(
            "\n[[board]]\nnumber = {}\ngame = \"{game}\"\ninput = \"{}\"\nwhite = \"{}\"\nblack = \"{}\"\ncorners = \"{corners}\"\nwhite-side = \"bottom\"\n",
            i + 1,
            clip.file_name().unwrap().to_str().unwrap(),
            names[i].0,
            names[i].1,
        ));
        if i == 0 {
            toml.push_str("white-elo = 2215\nwhite-title = \"IM\"\nblack-elo = \"1980\"\nblack-fide-id = 1503014\n");
        }
    }
    let round_file = dir.path().join("round.toml");
    std::fs::write(&round_file, &toml).unwrap();
    let out = dir.path().join("records");
    let (running, addr, token, stderr) = start_event(&round_file, &out);
    // The arbiter's stream: every recorder event and the alerts.
    let (events, listener) = listen(&addr, &format!("/events?token={token}"));

    // Poll the round PGN as a broadcast would, until the stream says the round ended.
    let started = Instant::now();
    let mut polls = 0;
    let mut plies_seen = Vec::new();
    loop {
        let (status, head, body) = get(&addr, "/round.pgn");
        assert_eq!(status, 200, "{head}");
        let games = parse_pgn_games(&body)
            .unwrap_or_else(|e| panic!("a half-written round PGN ({e}):\n{body}"));
        assert_eq!(games.len(), 2, "both chess boards, always:\n{body}");
        plies_seen.push(games.iter().map(|g| g.moves.len()).sum::<usize>());
        polls += 1;
        if events.lock().unwrap().iter().any(|(e, _)| e == "end") {
            break;
        }
        let log: Vec<String> = stderr.try_iter().collect();
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "the round did not end: {log:?}"
        );
        std::thread::sleep(Duration::from_millis(400));
    }
    listener.join().unwrap();
    let log: Vec<String> = stderr.try_iter().collect();
    assert!(
        plies_seen.windows(2).any(|w| w[1] > w[0]),
        "moves appeared while the clips played ({polls} polls: {plies_seen:?}); {log:?}"
    );

    // The round PGN: both chess games in board order, tagged, matching the true games.
    let (status, head, body) = get(&addr, "/round.pgn");
    assert_eq!(status, 200);
    let h = head.to_lowercase();
    assert!(
        h.contains("content-type: application/x-chess-pgn"),
        "{head}"
    );
    assert!(h.contains("cache-control: no-cache"), "{head}");
    let on_disk = std::fs::read_to_string(out.join("round.pgn")).unwrap();
    assert_eq!(body, on_disk, "the served round PGN is the file");
    let games = parse_pgn_games(&body).unwrap();
    let sans = |i: usize| {
        games[i]
            .moves
            .iter()
            .map(|m| m.san.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(sans(0), truth.mate.1, "board 1:\n{body}\n{log:?}");
    assert_eq!(games[0].result, "1-0", "{body}");
    assert_eq!(sans(1), truth.illegal.1, "board 2:\n{body}\n{log:?}");
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g.tag("Board"), Some((i + 1).to_string().as_str()));
        assert_eq!(g.tags.round, format!("3.{}", i + 1));
        assert_eq!(g.tags.event, "Club Championship");
        assert_eq!(g.tags.white, names[i].0);
    }
    // The tags Lichess relays read, from the round file.
    assert_eq!(games[0].tag("WhiteElo"), Some("2215"), "{body}");
    assert_eq!(games[0].tag("WhiteTitle"), Some("IM"), "{body}");
    assert_eq!(games[0].tag("BlackElo"), Some("1980"), "{body}");
    assert_eq!(games[0].tag("BlackFideId"), Some("1503014"), "{body}");
    assert_eq!(games[1].tag("WhiteElo"), None, "{body}");
    for g in &games {
        assert_eq!(g.tag("TimeControl"), Some("5400+30"), "{body}");
    }
    // The public round PGN holds the games only; the arbiter's has the alert's text.
    assert_public(&body);
    // A video's clock is real: its move times stay.
    assert!(body.contains("{[%emt "), "{body}");
    let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(!flat(&body).contains("not a legal move"), "{body}");
    let (status, _, _) = get(&addr, "/arbiter/round.pgn");
    assert_eq!(status, 401, "the arbiter's round PGN wants the token");
    let (status, _, arbiter) = http(
        &addr,
        "GET",
        "/arbiter/round.pgn",
        &[("X-Arbiter-Token", &token)],
        "",
    );
    let arbiter = String::from_utf8(arbiter).unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        arbiter,
        std::fs::read_to_string(out.join("arbiter/round.pgn")).unwrap()
    );
    assert!(
        flat(&arbiter).contains("White bishop f1-h3 is not a legal move"),
        "{arbiter}"
    );
    let file = dir.path().join("served.pgn");
    std::fs::write(&file, &body).unwrap();
    pgn_extract_reads(&file, 2);
    if have_tool("python-chess", python_has("chess")) {
        let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/check_round.py");
        let o = Command::new("python3")
            .arg(&tool)
            .arg("--public")
            .arg(&file)
            .arg("3")
            .arg(format!("1={}", truth.mate.0.fen()))
            .arg(format!("2={}", truth.illegal.0.fen()))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "python-chess: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // The draughts board's own record.
    let (status, head, pdn) = get(&addr, "/board/3.pdn");
    assert_eq!(status, 200, "{head}");
    assert!(head.to_lowercase().contains("cache-control: no-cache"));
    let like = RussianDraughts::new(DraughtsOptions::default());
    let recorded = RussianDraughts::read_record(&pdn, &like).unwrap().game;
    assert_eq!(
        recorded.moves(),
        truth.draughts.1.as_slice(),
        "board 3:\n{pdn}\n{log:?}"
    );
    assert!(
        !pdn.contains('{'),
        "the public record has no comment: {pdn}"
    );
    // The arbiter's is the file, comments and all.
    let (status, _, file) = http(
        &addr,
        "GET",
        "/arbiter/board/3.pdn",
        &[("X-Arbiter-Token", &token)],
        "",
    );
    assert_eq!(status, 200);
    assert_eq!(
        String::from_utf8(file).unwrap(),
        std::fs::read_to_string(out.join("board-3.pdn")).unwrap()
    );
    let (status, _, one) = get(&addr, "/board/1.pgn");
    assert_eq!(status, 200);
    assert_eq!(parse_pgn_games(&one).unwrap()[0].moves.len(), 7);
    assert_public(&one);
    let (status, _, two) = get(&addr, "/board/2.pgn");
    assert_eq!(status, 200);
    assert!(!flat(&two).contains("not a legal move"), "{two}");
    // Spectators' JSON has no alert.
    let (_, _, json) = get(&addr, "/api/round");
    assert!(!json.contains("\"alerts\""), "{json}");

    // The event stream: every move of every board, the illegal move, the end.
    let ev = events.lock().unwrap().clone();
    let records: Vec<serde_json::Value> = ev
        .iter()
        .filter(|(e, _)| e == "record")
        .map(|(_, d)| serde_json::from_str(d).unwrap())
        .collect();
    let moves_of = |b: u64| {
        records
            .iter()
            .filter(|r| r["board"] == b && r["type"] == "move")
            .count()
    };
    // Moves recorded before the stream was opened come in the boards' states.
    let last_state = |b: u64| {
        ev.iter()
            .filter(|(e, _)| e == "board")
            .map(|(_, d)| serde_json::from_str::<serde_json::Value>(d).unwrap())
            .rfind(|v| v["number"] == b)
            .unwrap()
    };
    assert!(moves_of(1) >= 1 && moves_of(3) >= 1, "{records:?}");
    assert!(
        records
            .iter()
            .any(|r| r["board"] == 2 && r["type"] == "illegal_move"),
        "{records:?}"
    );
    let b1 = last_state(1);
    assert_eq!(b1["moves"].as_array().unwrap().len(), 7);
    assert_eq!(b1["result"], "1-0");
    assert_eq!(b1["placement"], placement(&truth.mate.0.fen()));
    let b2 = last_state(2);
    assert!(
        b2["alerts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["kind"] == "unexplained" && a["open"] == true),
        "{b2}"
    );

    browser_check(&addr, &token, &truth);

    // Arbiter actions: refused without the token, written into the record with it.
    let alert = b2["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "unexplained")
        .unwrap()["id"]
        .as_u64()
        .unwrap();
    let body = format!("{{\"action\":\"acknowledge\",\"alert\":{alert}}}");
    let (status, _, _) = http(&addr, "POST", "/api/board/2/action", &[], &body);
    assert_eq!(status, 401);
    let (status, _, reply) = http(
        &addr,
        "POST",
        "/api/board/2/action",
        &[("X-Arbiter-Token", &token)],
        &body,
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&reply));
    let (status, _, _) = http(
        &addr,
        "POST",
        "/api/board/2/action",
        &[("X-Arbiter-Token", &token)],
        "{\"action\":\"set_result\",\"result\":\"0-1\"}",
    );
    assert_eq!(status, 200);
    let (_, _, after) = get(&addr, "/round.pgn");
    let games = parse_pgn_games(&after).unwrap();
    assert_eq!(games[1].result, "0-1", "{after}");
    assert_eq!(games[1].moves.len(), 3);
    // The arbiter's actions are in the arbiter's records only.
    assert_public(&after);
    assert!(
        !after.contains("acknowledged") && !after.contains("result set"),
        "{after}"
    );
    let arbiter = std::fs::read_to_string(out.join("arbiter/round.pgn")).unwrap();
    assert!(
        flat(&arbiter).contains("UTC: result set to 0-1"),
        "{arbiter}"
    );
    assert!(
        flat(&arbiter).contains("acknowledged: White bishop"),
        "{arbiter}"
    );
    let text = std::fs::read_to_string(out.join("board-2.pgn")).unwrap();
    // Comments are wrapped at 79 columns.
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("acknowledged: White bishop f1-h3 is not a legal move"),
        "{text}"
    );
    assert!(text.contains("UTC: result set to 0-1"), "{text}");
    drop(running);

    // Started again on the same folder, every game is taken up, none overwritten.
    let (again, addr, _, _) = start_event(&round_file, &out);
    let (_, _, body) = get(&addr, "/round.pgn");
    let games = parse_pgn_games(&body).unwrap();
    assert_eq!(games[0].moves.len(), 7, "{body}");
    assert_eq!(games[1].result, "0-1", "{body}");
    drop(again);
}

/// A public PGN: no comment but `[%emt]` move times.
fn assert_public(pgn: &str) {
    let mut rest = pgn;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').unwrap() + open;
        let comment = &rest[open + 1..close];
        assert!(
            comment.starts_with("[%emt ")
                && comment.matches(']').count() == 1
                && comment.ends_with(']'),
            "a comment in a public PGN: {{{comment}}}\n{pgn}"
        );
        rest = &rest[close + 1..];
    }
}

/// pgn-extract (Debian's, in /usr/games) reads every game of `file` without an error.
fn pgn_extract_reads(file: &Path, games: usize) {
    let path = format!("/usr/games:{}", std::env::var("PATH").unwrap_or_default());
    let o = Command::new("pgn-extract")
        .arg("-r")
        .arg(file)
        .env("PATH", &path)
        .output();
    let present = o.is_ok();
    if !have_tool("pgn-extract", present) {
        return;
    }
    let o = o.unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let all = if games == 1 {
        "1 game matched out of 1.".to_string()
    } else {
        format!("{games} games matched out of {games}.")
    };
    assert!(said.contains(&all), "pgn-extract: {said}");
    assert!(!said.contains("Failed"), "pgn-extract: {said}");
}

/// What a spectator sees in headless Chromium: the final diagrams and the alert;
/// screenshots kept under `out/` as CI artifacts.
fn browser_check(addr: &str, token: &str, truth: &Truth) {
    let present = Command::new("chromium").arg("--version").output().is_ok();
    if !have_tool("chromium", present) {
        return;
    }
    let profile = tmp();
    let chromium = |args: &[&str]| {
        let o = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                &format!("--user-data-dir={}", profile.path().display()),
            ])
            .args(args)
            .output()
            .expect("chromium runs");
        assert!(
            o.status.success(),
            "chromium: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let url = format!("http://{addr}/?token={token}");
    // No --virtual-time-budget: with the event stream open the page never idles.
    let dom = chromium(&["--dump-dom", &url]);
    let card = |n: u32| {
        let start = dom
            .find(&format!("id=\"board-{n}\""))
            .unwrap_or_else(|| panic!("no board {n} on the page:\n{dom}"));
        let end = dom[start..].find("</article>").unwrap() + start;
        dom[start..end].to_string()
    };
    let c1 = card(1);
    assert!(
        c1.contains(&format!(
            "data-placement=\"{}\"",
            placement(&truth.mate.0.fen())
        )),
        "{c1}"
    );
    assert!(c1.contains("Anna Novak") && c1.contains("1-0"), "{c1}");
    let c2 = card(2);
    assert!(
        c2.contains(&format!(
            "data-placement=\"{}\"",
            placement(&truth.illegal.0.fen())
        )),
        "{c2}"
    );
    assert!(
        c2.contains("alert k-unexplained open") && c2.contains("is not a legal move"),
        "{c2}"
    );
    let c3 = card(3);
    let mut g = RussianDraughts::new(DraughtsOptions::default());
    for m in &truth.draughts.1 {
        g.play(m).unwrap();
    }
    let want = boardscribe_round::round::Diagram::of(
        boardscribe_round::round::GameKind::RussianDraughts,
        &g,
        None,
    )
    .placement();
    assert!(c3.contains(&format!("data-placement=\"{want}\"")), "{c3}");
    // The page's script ran: the arbiter's controls are on, the stream was heard.
    assert!(
        dom.contains("<body data-page=\"round\" class=\"arbiter\">"),
        "{dom}"
    );
    // A spectator's page: the pieces from the page's set, no alert.
    let public = chromium(&["--dump-dom", &format!("http://{addr}/")]);
    assert!(public.contains(r##"href="#p-wK""##), "{public}");
    assert!(public.contains(r#"<symbol id="p-wK""#), "{public}");
    assert!(!public.contains("is not a legal move"), "{public}");
    assert!(!public.contains("class=\"arbiter\""), "{public}");
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("out");
    std::fs::create_dir_all(&shots).unwrap();
    for (name, path, size) in [
        ("event-round.png", format!("/?token={token}"), "1280,1000"),
        (
            "event-board-2.png",
            format!("/board/2?token={token}"),
            "1280,1000",
        ),
        ("event-round-phone.png", "/".to_string(), "375,800"),
        ("event-board-3-phone.png", "/board/3".to_string(), "375,800"),
    ] {
        let file = shots.join(name);
        chromium(&[
            &format!("--window-size={size}"),
            &format!("--screenshot={}", file.display()),
            &format!("http://{addr}{path}"),
        ]);
        assert!(
            std::fs::metadata(&file).is_ok_and(|m| m.len() > 5_000),
            "{name}"
        );
    }
}

#[test]
fn a_photo_folder_round_has_no_made_up_move_times_and_the_round_files_tags() {
    let dir = tmp();
    let game = dir.path().join("g.pgn");
    std::fs::write(&game, "1. e4 e5 2. Nf3 *\n").unwrap();
    let photos = dir.path().join("photos");
    let o = super::util::run(&[
        "render",
        "photos",
        "--pgn",
        p(&game),
        "--out",
        p(&photos),
        "--size",
        "480x360",
        "--shake",
        "0",
        "--hands",
        "0",
        "--seed",
        "3",
    ]);
    assert!(o.status.success(), "{}", super::util::stderr(&o));
    let corners = super::util::first_photo_corners(&photos);
    let round = dir.path().join("round.toml");
    std::fs::write(
        &round,
        format!(
            "[event]\nname = \"Photo Open\"\nround = \"2\"\n\n[[board]]\nnumber = 1\ninput = \"photos\"\ncorners = \"{}\"\nwhite-side = \"bottom\"\nfps = 0.1\nwhite = \"Anna Novak\"\nwhite-elo = 2215\nblack-title = \"WGM\"\ntime-control = \"40/5400+30:1800+30\"\n",
            corners.join(" ")
        ),
    )
    .unwrap();
    let out = dir.path().join("records");
    let o = event_command(&round, &out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let text = std::fs::read_to_string(out.join("round.pgn")).unwrap();
    let games = parse_pgn_games(&text).unwrap();
    let sans: Vec<&str> = games[0].moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, ["e4", "e5", "Nf3"], "{text}\n{err}");
    // Photos taken ten seconds apart by `fps` say nothing of the players' time,
    // in the public record or the arbiter's.
    for file in ["round.pgn", "arbiter/round.pgn", "board-1.pgn"] {
        let t = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(!t.contains("%emt"), "{file}: {t}");
    }
    assert_eq!(games[0].tag("WhiteElo"), Some("2215"), "{text}");
    assert_eq!(games[0].tag("BlackTitle"), Some("WGM"), "{text}");
    assert_eq!(
        games[0].tag("TimeControl"),
        Some("40/5400+30:1800+30"),
        "{text}"
    );
    assert_eq!(games[0].tags.round, "2.1", "{text}");
    assert_public(&text);
    pgn_extract_reads(&out.join("round.pgn"), 1);
}

#[test]
fn record_serve_gives_the_page_for_one_board() {
    let dir = tmp();
    let (_, moves, sans) = chess_line(&["e2e4", "e7e5", "g1f3"]);
    let (clip, truth) = render(
        dir.path(),
        "served",
        &small(SceneParams::chess_overhead(5, false)),
        &states_of(&Chess::new(), &moves),
        &fast_clip(),
    );
    let out = dir.path().join("served.pgn");
    let mut child = bin()
        .args([
            "record",
            "--game",
            "chess",
            "--input",
            p(&clip),
            "--grid",
            "8x8",
            "--corners",
            &corners_arg(&truth),
            "--white",
            "bottom",
            "--pgn",
            p(&out),
            "--serve",
            "127.0.0.1:0",
            "--white-name",
            "Anna Novak",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let addr = first
        .trim()
        .strip_prefix("live page: http://")
        .and_then(|a| a.strip_suffix("/board/1"))
        .unwrap_or_else(|| panic!("{first}"))
        .to_string();
    // The page answers while the game is recorded (the recording may be quick).
    if let Ok(mut s) = TcpStream::connect(&addr) {
        write!(s, "GET /board/1 HTTP/1.0\r\n\r\n").unwrap();
        let mut page = String::new();
        let _ = s.read_to_string(&mut page);
        assert!(page.contains("Anna Novak"), "{page}");
    }
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success(), "{first}{rest}");
    let text = std::fs::read_to_string(&out).unwrap();
    let games = parse_pgn_games(&text).unwrap();
    let got: Vec<String> = games[0].moves.iter().map(|m| m.san.clone()).collect();
    assert_eq!(got, sans, "{text}\n{rest}");

    let o = bin()
        .args([
            "record",
            "--game",
            "free",
            "--input",
            p(&clip),
            "--grid",
            "8x8",
            "--out",
            p(&dir.path().join("x.txt")),
            "--serve",
            "127.0.0.1:0",
        ])
        .output()
        .unwrap();
    super::util::assert_fails_with(&o, "--serve shows games with rules");
}
