//! What the pages and the event stream send of each board, rendered once per
//! change of the board whatever the number of viewers, and the event stream
//! (`/events`) itself: frames written as they were rendered, to every subscriber.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Bytes;
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use super::page;
use crate::round::{Board, Round, Update};

/// How often a quiet stream says it is alive (a comment line), so that proxies
/// and browsers keep it open.
const PING: Duration = Duration::from_secs(15);

const END: &[u8] = b"event: end\ndata: {}\n\n";

/// A board as the pages show it, at one version of its state.
pub(super) struct Rendered {
    pub version: u64,
    /// Its card on the round page.
    pub card: String,
    /// Its detail on its own page.
    pub detail: String,
    /// `event: board` with the board's JSON, as the stream sends it.
    pub frame: Bytes,
    json: Range<usize>,
}

impl Rendered {
    /// The board's JSON (`/api/round`, and the stream's `board` events).
    pub fn json(&self) -> Bytes {
        self.frame.slice(self.json.clone())
    }
}

/// The latest rendering of each board and of the latest recorder event; the
/// latest camera picture of each board.
#[derive(Default)]
pub(super) struct Cache {
    boards: Mutex<HashMap<u32, Arc<Rendered>>>,
    record: Mutex<Option<(Arc<str>, Bytes)>>,
    /// Per board: the frame's serial, the state's version (the grid drawn on it)
    /// and the JPEG.
    jpegs: Mutex<HashMap<u32, (u64, u64, Bytes)>>,
    /// Boards rendered so far.
    pub renders: AtomicUsize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Cache {
    /// The board as it stands, rendered again only if it changed.
    pub fn board(&self, board: &Board) -> Arc<Rendered> {
        let version = board.version();
        let mut boards = lock(&self.boards);
        if let Some(r) = boards.get(&board.number()) {
            if r.version == version {
                return r.clone();
            }
        }
        self.renders.fetch_add(1, Ordering::Relaxed);
        let r = Arc::new(render(board));
        boards.insert(board.number(), r.clone());
        r
    }

    /// A recorder event as the stream sends it; every subscriber gets the same.
    fn record(&self, json: &Arc<str>) -> Bytes {
        let mut last = lock(&self.record);
        if let Some((seen, frame)) = &*last {
            if Arc::ptr_eq(seen, json) {
                return frame.clone();
            }
        }
        let frame = Bytes::from(format!("event: record\ndata: {json}\n\n"));
        *last = Some((json.clone(), frame.clone()));
        frame
    }

    /// The JPEG kept for this frame and version of the board, if any.
    pub fn jpeg(&self, n: u32, serial: u64, version: u64) -> Option<Bytes> {
        match lock(&self.jpegs).get(&n) {
            Some((s, v, jpeg)) if *s == serial && *v == version => Some(jpeg.clone()),
            _ => None,
        }
    }

    pub fn keep_jpeg(&self, n: u32, serial: u64, version: u64, jpeg: Bytes) {
        lock(&self.jpegs).insert(n, (serial, version, jpeg));
    }
}

fn render(board: &Board) -> Rendered {
    let s = board.state();
    let card = page::card(board, &s);
    let detail = page::detail(board, &s);
    let json = serde_json::json!({
        "number": board.number(),
        "game": board.kind().name(),
        "white": board.spec.white,
        "black": board.spec.black,
        "version": s.version,
        "status": s.status,
        "detail_text": s.detail,
        "result": s.result,
        "moves": s.sans,
        "placement": s.diagram.as_ref().map(|d| d.placement()),
        "alerts": s.alerts,
        "card": card,
        "detail": detail,
    })
    .to_string();
    // Compact JSON holds no line break, so it is one `data:` line.
    let head = "event: board\ndata: ";
    let frame = format!("{head}{json}\n\n");
    Rendered {
        version: s.version,
        card,
        detail,
        json: head.len()..head.len() + json.len(),
        frame: Bytes::from(frame),
    }
}

/// What a subscriber has yet to be sent: a board (rendered as it stands when
/// its turn comes, so that many changes heard together make one frame) or a
/// frame.
enum Pending {
    Board(u32),
    Frame(Bytes),
}

/// Every board as it stands (on connecting, and after falling behind).
fn everything(round: &Round) -> VecDeque<Pending> {
    let mut all: VecDeque<Pending> = round
        .boards
        .iter()
        .map(|b| Pending::Board(b.number()))
        .collect();
    if round.has_ended() {
        all.push_back(Pending::Frame(Bytes::from_static(END)));
    }
    all
}

fn heard(queue: &mut VecDeque<Pending>, cache: &Cache, update: Update) {
    match update {
        Update::Board(n) => {
            if !queue
                .iter()
                .any(|p| matches!(p, Pending::Board(m) if *m == n))
            {
                queue.push_back(Pending::Board(n));
            }
        }
        Update::Record(_, json) => queue.push_back(Pending::Frame(cache.record(&json))),
        Update::End => queue.push_back(Pending::Frame(Bytes::from_static(END))),
    }
}

/// The event stream of one subscriber: every board on connecting, then each
/// change. Changes heard together are sent as one frame per board; one that
/// falls behind the round's (bounded) broadcast gets every board again rather
/// than what it missed. A subscriber that never reads holds no more than the
/// broadcast's bound, whatever the number of changes.
pub(super) fn events(
    round: Arc<Round>,
    cache: Arc<Cache>,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static {
    let rx = round.subscribe();
    let queue = everything(&round);
    let ping = tokio::time::interval_at(tokio::time::Instant::now() + PING, PING);
    stream::unfold(
        (rx, round, cache, queue, ping),
        |(mut rx, round, cache, mut queue, mut ping)| async move {
            loop {
                match queue.pop_front() {
                    Some(Pending::Frame(frame)) => {
                        return Some((Ok(frame), (rx, round, cache, queue, ping)))
                    }
                    Some(Pending::Board(n)) => {
                        if let Some(b) = round.board(n) {
                            let frame = cache.board(b).frame.clone();
                            return Some((Ok(frame), (rx, round, cache, queue, ping)));
                        }
                        continue;
                    }
                    None => {}
                }
                tokio::select! {
                    update = rx.recv() => {
                        match update {
                            Ok(u) => heard(&mut queue, &cache, u),
                            Err(RecvError::Lagged(_)) => queue = everything(&round),
                            Err(RecvError::Closed) => return None,
                        }
                        loop {
                            match rx.try_recv() {
                                Ok(u) => heard(&mut queue, &cache, u),
                                Err(TryRecvError::Lagged(_)) => queue = everything(&round),
                                Err(_) => break,
                            }
                        }
                    }
                    _ = ping.tick() => queue.push_back(Pending::Frame(Bytes::from_static(b":\n\n"))),
                }
            }
        },
    )
}
