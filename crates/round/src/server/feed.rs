//! What the pages and the event stream send of each board, rendered once per
//! change of the board whatever the number of viewers, and the event stream
//! (`/events`) itself: frames written as they were rendered, to every subscriber.

use crate::lock;
use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::error::RecvError;

use super::page;
use crate::round::{Audience, Board, BoardState, Round, Update};

/// How often a quiet stream says it is alive (a comment line), so that proxies
/// and browsers keep it open.
const PING: Duration = Duration::from_secs(15);

/// How long changes are gathered before they are sent.
const BATCH: Duration = Duration::from_millis(250);

const END: &[u8] = b"event: end\ndata: {}\n\n";

/// A board as the pages show it, at one version of its state, to spectators
/// and to the arbiter.
pub(super) struct Rendered {
    pub version: u64,
    /// Without the alerts and the arbiter's controls.
    pub public: Shown,
    /// With them.
    pub arbiter: Shown,
}

/// A board as one audience's pages show it.
pub(super) struct Shown {
    /// Its card on the round page.
    pub card: String,
    /// Its detail on its own page.
    pub detail: String,
    /// `event: board` with the board's JSON and its card, as the round page's
    /// stream sends it.
    pub card_frame: Bytes,
    /// The same with its detail, as the board page's stream sends it.
    pub detail_frame: Bytes,
    /// The board's JSON with both (`/api/round`).
    pub json: String,
}

impl Rendered {
    /// As `audience` sees it.
    pub(super) fn to(&self, audience: Audience) -> &Shown {
        match audience {
            Audience::Public => &self.public,
            Audience::Arbiter => &self.arbiter,
        }
    }

    /// The frame a stream of `view` sends.
    fn frame(&self, view: View) -> Bytes {
        let shown = self.to(view.audience);
        match view.show {
            Show::Round => shown.card_frame.clone(),
            Show::Board(_) => shown.detail_frame.clone(),
        }
    }
}

/// What a subscriber's page shows: every board's card (`/events`), or one board's
/// detail (`/events?board=N`), to spectators or to the arbiter. Each gets only
/// what it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct View {
    pub show: Show,
    pub audience: Audience,
}

/// Which boards a view shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Show {
    Round,
    Board(u32),
}

impl View {
    fn shows(self, board: u32) -> bool {
        match self.show {
            Show::Round => true,
            Show::Board(n) => n == board,
        }
    }

    /// Whether the view is sent this recorder event: spectators hear of moves
    /// only (what else a recorder reports is the arbiter's).
    fn hears(self, json: &str) -> bool {
        self.audience == Audience::Arbiter || json.contains(r#""type":"move""#)
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

impl Cache {
    /// The board as it stands, rendered again only if it changed.
    pub(crate) fn board(&self, board: &Board) -> Arc<Rendered> {
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
    pub(crate) fn jpeg(&self, n: u32, serial: u64, version: u64) -> Option<Bytes> {
        match lock(&self.jpegs).get(&n) {
            Some((s, v, jpeg)) if *s == serial && *v == version => Some(jpeg.clone()),
            _ => None,
        }
    }

    pub(crate) fn keep_jpeg(&self, n: u32, serial: u64, version: u64, jpeg: Bytes) {
        lock(&self.jpegs).insert(n, (serial, version, jpeg));
    }
}

fn render(board: &Board) -> Rendered {
    let s = board.state();
    Rendered {
        version: s.version,
        public: shown(board, &s, Audience::Public),
        arbiter: shown(board, &s, Audience::Arbiter),
    }
}

/// The board as `audience` sees it: spectators get no alerts.
fn shown(board: &Board, s: &BoardState, audience: Audience) -> Shown {
    let card = page::card(board, s, audience);
    let detail = page::detail(board, s, audience);
    let mut fields = serde_json::json!({
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
    });
    if audience == Audience::Arbiter {
        if let Some(o) = fields.as_object_mut() {
            o.insert("alerts".into(), serde_json::json!(s.alerts));
        }
    }
    let with = |parts: &[(&str, &str)]| {
        let mut v = fields.clone();
        if let Some(o) = v.as_object_mut() {
            for (k, text) in parts {
                o.insert((*k).into(), (*text).into());
            }
        }
        v.to_string()
    };
    // Compact JSON holds no line break, so it is one `data:` line.
    let frame = |json: String| Bytes::from(format!("event: board\ndata: {json}\n\n"));
    Shown {
        card_frame: frame(with(&[("card", &card)])),
        detail_frame: frame(with(&[("detail", &detail)])),
        json: with(&[("card", &card), ("detail", &detail)]),
        card,
        detail,
    }
}

/// What a subscriber has yet to be sent: a board (rendered as it stands when
/// its turn comes, so that many changes heard together make one frame) or a
/// frame.
enum Pending {
    Board(u32),
    Frame(Bytes),
}

/// Every board the view shows as it stands (on connecting, and after falling
/// behind).
fn everything(round: &Round, view: View) -> VecDeque<Pending> {
    let mut all: VecDeque<Pending> = round
        .boards()
        .iter()
        .map(|b| b.number())
        .filter(|n| view.shows(*n))
        .map(Pending::Board)
        .collect();
    if round.has_ended() {
        all.push_back(Pending::Frame(Bytes::from_static(END)));
    }
    all
}

fn heard(queue: &mut VecDeque<Pending>, cache: &Cache, view: View, update: Update) {
    match update {
        Update::Board(n) if view.shows(n) => {
            if !queue
                .iter()
                .any(|p| matches!(p, Pending::Board(m) if *m == n))
            {
                queue.push_back(Pending::Board(n));
            }
        }
        Update::Record(n, json) if view.shows(n) && view.hears(&json) => {
            queue.push_back(Pending::Frame(cache.record(&json)))
        }
        Update::End => queue.push_back(Pending::Frame(Bytes::from_static(END))),
        Update::Board(_) | Update::Record(..) => {}
    }
}

/// The event stream of one subscriber: every board it shows on connecting, then
/// each change. Changes heard within [`BATCH`] are sent together, each board once,
/// as it stands then; one that falls behind the round's (bounded) broadcast gets
/// every board again rather than what it missed. A subscriber that never reads
/// holds no more than the broadcast's bound, whatever the number of changes.
pub(super) fn events(
    round: Arc<Round>,
    cache: Arc<Cache>,
    view: View,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static {
    let rx = round.subscribe();
    let queue = everything(&round, view);
    let ping = tokio::time::interval_at(tokio::time::Instant::now() + PING, PING);
    stream::unfold(
        (rx, round, cache, queue, ping),
        move |(mut rx, round, cache, mut queue, mut ping)| async move {
            loop {
                match queue.pop_front() {
                    Some(Pending::Frame(frame)) => {
                        return Some((Ok(frame), (rx, round, cache, queue, ping)))
                    }
                    Some(Pending::Board(n)) => {
                        if let Some(b) = round.board(n) {
                            let frame = cache.board(&b).frame(view);
                            return Some((Ok(frame), (rx, round, cache, queue, ping)));
                        }
                        continue;
                    }
                    None => {}
                }
                tokio::select! {
                    update = rx.recv() => match update {
                        Ok(u) => heard(&mut queue, &cache, view, u),
                        Err(RecvError::Lagged(_)) => queue = everything(&round, view),
                        Err(RecvError::Closed) => return None,
                    },
                    _ = ping.tick() => {
                        queue.push_back(Pending::Frame(Bytes::from_static(b":\n\n")));
                        continue;
                    }
                }
                // A move comes as several changes within milliseconds: what comes
                // within a moment is sent together, each board once, in one write.
                let until = tokio::time::Instant::now() + BATCH;
                loop {
                    tokio::select! {
                        update = rx.recv() => match update {
                            Ok(u) => heard(&mut queue, &cache, view, u),
                            Err(RecvError::Lagged(_)) => queue = everything(&round, view),
                            Err(RecvError::Closed) => break,
                        },
                        _ = tokio::time::sleep_until(until) => break,
                    }
                }
            }
        },
    )
}
