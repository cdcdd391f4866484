//! The server's limits and headers over real connections, and the event stream's
//! rendering and falling behind.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use futures_util::{FutureExt, StreamExt};

use super::*;
use crate::round::{BoardSpec, EventInfo};

fn round(boards: u32) -> (tempfile::TempDir, Arc<Round>) {
    let dir = tempfile::tempdir().unwrap();
    let specs = (1..=boards)
        .map(|n| BoardSpec {
            number: n,
            input: format!("b{n}.mp4"),
            white: format!("White <{n}>"),
            black: format!("Black {n}"),
            ..BoardSpec::default()
        })
        .collect();
    let info = EventInfo {
        name: "Club".into(),
        ..EventInfo::default()
    };
    let round = Round::new(info, "2026.05.01".into(), specs, dir.path(), "t0k".into()).unwrap();
    (dir, round)
}

fn limits(max_connections: usize, header_s: u64, write_s: u64) -> Limits {
    Limits {
        max_connections,
        header_timeout: Duration::from_secs(header_s),
        write_timeout: Duration::from_secs(write_s),
        body_timeout: Duration::from_secs(2),
    }
}

/// The head of the response to `request`, and its body up to `body_bytes` (all of
/// it when the server closes the connection).
fn exchange(addr: SocketAddr, request: &str, body_bytes: usize) -> (String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n");
        if split.is_some_and(|at| raw.len() >= (at + 4).saturating_add(body_bytes)) {
            break;
        }
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.to_string(), body.to_string())
}

fn get(addr: SocketAddr, path: &str) -> (String, String) {
    exchange(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        usize::MAX,
    )
}

/// Waits up to `secs` for `done`.
fn within(secs: f64, mut done: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed().as_secs_f64() < secs {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// Whether the server closed `s` (an end of stream or a reset), reading (and
/// dropping) what it sent first.
fn closed(s: &mut TcpStream) -> bool {
    s.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

#[test]
fn every_response_carries_the_security_headers_and_the_pages_no_inline_script() {
    let (_dir, round) = round(2);
    let server = start_with(round, "127.0.0.1:0", limits(16, 10, 10)).unwrap();
    let post = "POST /api/board/1/action HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";
    let answers = [
        get(server.addr, "/"),
        get(server.addr, "/board/1"),
        get(server.addr, "/static/app.js"),
        get(server.addr, "/round.pgn"),
        get(server.addr, "/api/round"),
        get(server.addr, "/no/such/page"),
        get(server.addr, "/board/9"),
        get(server.addr, "/board/1/frame.jpg"),
        exchange(server.addr, post, usize::MAX),
        exchange(server.addr, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n", 10),
    ];
    for (head, _) in &answers {
        let h = head.to_lowercase();
        for (name, value) in SECURITY {
            assert!(
                h.contains(&format!("{name}: {}", value.to_lowercase())),
                "{name} missing:\n{head}"
            );
        }
    }
    assert!(answers[5].0.starts_with("HTTP/1.1 404"), "{}", answers[5].0);
    assert!(answers[8].0.starts_with("HTTP/1.1 401"), "{}", answers[8].0);
    // Under `script-src 'self'` inline script and handlers would not run: the
    // pages have none, and a player's name is text, not markup.
    for (head, page) in &answers[..2] {
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        for script in page.split("<script").skip(1) {
            assert!(
                script.starts_with(" src=\"/static/"),
                "inline script: {page}"
            );
        }
        for handler in [" onerror=", " onload=", " onclick=", "javascript:"] {
            assert!(!page.contains(handler), "{handler} in {page}");
        }
        assert!(page.contains("White &lt;1&gt;"), "{page}");
    }
    // The board's JSON in the round's is the stream's, spliced in whole.
    let v: serde_json::Value = serde_json::from_str(&answers[4].1).unwrap();
    assert_eq!(v["boards"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v["boards"][1]["white"], "White <2>");
    assert_eq!(v["event"], "Club");
}

#[test]
fn connections_over_the_cap_are_closed_at_once_and_idle_ones_time_out() {
    let (_dir, round) = round(1);
    let server = start_with(round, "127.0.0.1:0", limits(4, 1, 10)).unwrap();
    let mut idle: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(server.addr).unwrap())
        .collect();
    assert!(within(5.0, || server.connections() == 4));
    // A fifth is closed as soon as it is accepted, holding no descriptor.
    let t = Instant::now();
    let mut over = TcpStream::connect(server.addr).unwrap();
    assert!(within(2.0, || closed(&mut over)), "the fifth was kept");
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    assert!(idle.iter_mut().all(|s| !closed(s)));
    // Sending no request head within the header timeout (1 s) ends a connection.
    assert!(
        within(3.0, || idle.iter_mut().all(closed)),
        "idle ones kept"
    );
    assert!(
        t.elapsed() >= Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
    assert!(within(2.0, || server.connections() == 0));
    // A request head that trickles in is cut at the same time.
    let mut slow = TcpStream::connect(server.addr).unwrap();
    let t = Instant::now();
    for part in ["GET / HT", "TP/1.1\r\n", "Host: x\r\n"] {
        let _ = slow.write_all(part.as_bytes());
        std::thread::sleep(Duration::from_millis(400));
    }
    assert!(within(2.0, || closed(&mut slow)));
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // Served as before, and kept alive between requests only for as long.
    let (head, body) = get(server.addr, "/");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(body.contains("Board 1"), "{body}");
}

#[test]
fn a_subscriber_that_stops_reading_is_cut_off_and_the_others_go_on() {
    let (_dir, round) = round(1);
    let server = start_with(round.clone(), "127.0.0.1:0", limits(8, 10, 1)).unwrap();
    let request = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
    let mut stuck = TcpStream::connect(server.addr).unwrap();
    stuck.write_all(request.as_bytes()).unwrap();
    let mut reader = TcpStream::connect(server.addr).unwrap();
    reader.write_all(request.as_bytes()).unwrap();
    let read = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = read.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 65536];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            counted.fetch_add(n, Ordering::SeqCst);
        }
    });
    assert!(within(5.0, || server.connections() == 2));
    // Changes keep coming until the unread stream has filled its buffers and
    // waited a second more.
    let board = &round.board(1).unwrap();
    let t = Instant::now();
    let mut changes = 0;
    while server.connections() == 2 && t.elapsed() < Duration::from_secs(60) {
        board.change(|s| s.sans.push(format!("e{changes}")));
        round.publish(board);
        changes += 1;
        std::thread::sleep(Duration::from_micros(500));
    }
    assert_eq!(server.connections(), 1, "after {changes} changes");
    let before = read.load(Ordering::SeqCst);
    assert!(before > 100_000, "{before} bytes read");
    board.change(|s| s.sans.push("last".into()));
    round.publish(board);
    assert!(
        within(5.0, || read.load(Ordering::SeqCst) > before),
        "the reading subscriber heard no more"
    );
}

/// What a stream sends next: its first frame (waited for; changes are gathered
/// for a moment) and what is ready with it.
fn sendable<S>(rt: &tokio::runtime::Runtime, s: &mut S) -> Vec<Bytes>
where
    S: futures_util::Stream<Item = Result<Bytes, std::convert::Infallible>> + Unpin,
{
    let first = rt.block_on(async { tokio::time::timeout(Duration::from_secs(5), s.next()).await });
    let mut got = vec![first.expect("a frame within 5 s").unwrap().unwrap()];
    while let Some(Some(Ok(b))) = rt.block_on(async { s.next().now_or_never() }) {
        got.push(b);
    }
    got
}

#[test]
fn a_change_is_rendered_once_for_every_subscriber_and_one_behind_gets_every_board() {
    let (_dir, round) = round(2);
    let cache = Arc::new(Cache::default());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _inside = rt.enter();
    let mut streams: Vec<_> = (0..3)
        .map(|_| {
            Box::pin(feed::events(
                round.clone(),
                cache.clone(),
                feed::View {
                    show: feed::Show::Round,
                    audience: Audience::Public,
                },
            ))
        })
        .collect();
    let first: Vec<Vec<Bytes>> = streams.iter_mut().map(|s| sendable(&rt, s)).collect();
    assert_eq!(first[0].len(), 2);
    assert_eq!(cache.renders.load(Ordering::SeqCst), 2);
    let text = |b: &Bytes| String::from_utf8(b.to_vec()).unwrap();
    assert!(text(&first[0][0]).contains("\"card\":\"<article"));
    assert!(!text(&first[0][0]).contains("\"detail\":"));
    // A board's page hears of its board, with its detail.
    let mut one = Box::pin(feed::events(
        round.clone(),
        cache.clone(),
        feed::View {
            show: feed::Show::Board(2),
            audience: Audience::Public,
        },
    ));
    let only = sendable(&rt, &mut one);
    assert_eq!(only.len(), 1);
    assert!(text(&only[0]).contains("\"number\":2"));
    assert!(text(&only[0]).contains("\"detail\":\"<section"));
    assert!(!text(&only[0]).contains("\"card\":"));
    let board = &round.board(1).unwrap();
    for i in 0..5 {
        board.change(|s| s.sans.push(format!("m{i}")));
        round.publish(board);
        let got: Vec<Vec<Bytes>> = streams[..2].iter_mut().map(|s| sendable(&rt, s)).collect();
        assert_eq!(got[0].len(), 1);
        // The same bytes, not equal ones: rendered once.
        assert_eq!(got[0][0].as_ptr(), got[1][0].as_ptr());
        assert!(std::str::from_utf8(&got[0][0])
            .unwrap()
            .contains(&format!("m{i}")));
    }
    assert_eq!(cache.renders.load(Ordering::SeqCst), 7);
    // A move's several changes, heard together: each board sent once, as it
    // stands after the last.
    let other = &round.board(2).unwrap();
    for i in 0..3 {
        board.change(|s| s.sans.push(format!("burst{i}")));
        round.publish(board);
        other.change(|s| s.result = format!("{i}"));
        round.publish(other);
    }
    let got = sendable(&rt, &mut streams[0]);
    assert_eq!(got.len(), 2);
    assert!(std::str::from_utf8(&got[0]).unwrap().contains("burst2"));
    assert_eq!(cache.renders.load(Ordering::SeqCst), 9);
    sendable(&rt, &mut streams[1]);
    // Board 1's changes never reached board 2's page.
    let only = sendable(&rt, &mut one);
    assert_eq!(only.len(), 1);
    assert!(text(&only[0]).contains("\"number\":2"));
    // The third never read: past the broadcast's bound it starts again from every
    // board, each as it stands now, once.
    for i in 0..5000 {
        board.change(|s| s.sans.push(format!("n{i}")));
        round.publish(board);
    }
    let behind = sendable(&rt, &mut streams[2]);
    assert_eq!(behind.len(), 2);
    let texts: Vec<&str> = behind
        .iter()
        .map(|b| std::str::from_utf8(b).unwrap())
        .collect();
    assert!(texts[0].contains("\"number\":1") && texts[0].contains("n4999"));
    assert!(texts[1].contains("\"number\":2"));
}

#[test]
fn spectators_get_the_games_and_the_arbiter_gets_the_alerts_and_the_notes() {
    let (_dir, round) = round(2);
    let board = round.board(1).unwrap();
    board.alert(
        crate::round::AlertKind::Unexplained,
        "a secret only the arbiter reads".into(),
        None,
    );
    round.publish(&board);
    let server = start_with(round.clone(), "127.0.0.1:0", limits(16, 10, 10)).unwrap();
    let secret = "a secret only the arbiter reads";
    let with = |path: &str, token: &str| {
        exchange(
            server.addr,
            &format!(
                "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Arbiter-Token: {token}\r\n\r\n"
            ),
            usize::MAX,
        )
    };
    for path in ["/", "/board/1", "/api/round"] {
        let (head, body) = get(server.addr, path);
        assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
        assert!(
            !body.contains(secret),
            "{path} shows spectators an alert: {body}"
        );
        let (head, body) = get(server.addr, &format!("{path}?token=t0k"));
        assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
        assert!(
            body.contains(secret),
            "{path} hides the alert from the arbiter"
        );
        let (_, body) = with(path, "t0k");
        assert!(body.contains(secret), "{path} with the header");
    }
    // The pages draw pieces from the piece set sent once with the page.
    let (_, page) = get(server.addr, "/");
    assert!(page.contains(r#"<symbol id="p-wN""#), "{page}");
    assert!(page.contains(r##"href="#p-wN""##), "{page}");
    let (head, sprite) = get(server.addr, "/static/pieces.svg");
    assert!(head.to_lowercase().contains("image/svg+xml"), "{head}");
    assert!(sprite.contains("cburnett"));
    // The arbiter's records and stream want the token; a wrong one is refused.
    for path in ["/arbiter/round.pgn", "/arbiter/board/1.pgn"] {
        assert!(
            get(server.addr, path).0.starts_with("HTTP/1.1 401"),
            "{path}"
        );
        assert!(with(path, "wrong").0.starts_with("HTTP/1.1 401"), "{path}");
        assert!(with(path, "t0k").0.starts_with("HTTP/1.1 200"), "{path}");
    }
    let (head, _) = exchange(
        server.addr,
        "GET /events?token=wrong HTTP/1.1\r\nHost: x\r\n\r\n",
        10,
    );
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    let (head, _) = get(server.addr, "/api/round?token=wrong");
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
}
