//! The broadcast's side: every board of a round rebuilt from the stream into a
//! [`Round`] of its own, served as `event` serves its boards; the arbiter's
//! actions sent to the boards' recorders.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::{self, consumer::pull::OrderedConfig, consumer::DeliverPolicy};
use futures_util::{FutureExt, StreamExt};

use super::{connect, prefix, stream, NatsError, Wire};
use crate::record::write_atomic_unsynced;
use crate::round::{
    board_tags, Action, ActionError, BoardSpec, EventInfo, RecordError, RemoteActs, Round, Update,
};

/// How long an action waits for the recorder's answer: a recorder stops for an
/// edit between two frames, within 30 s.
const ACT_WAIT: Duration = Duration::from_secs(40);
/// The most messages applied together: a node behind takes each board's state
/// from its latest message of as many as this (a thousand boards' round).
const BATCH: usize = 2048;
/// The pause before reading the stream again after it failed.
const RETRY: Duration = Duration::from_millis(500);

/// A broadcast: its round, fed from the stream.
pub struct Broadcast {
    /// The round as rebuilt so far; serve it with [`crate::server::start`].
    pub round: Arc<Round>,
    /// The subjects it reads.
    pub subjects: String,
    finish: Arc<Finish>,
}

/// A request to write out what waits, and its answer.
#[derive(Default)]
struct Finish {
    asked: tokio::sync::Notify,
    done: std::sync::atomic::AtomicBool,
}

impl Finish {
    /// Writes what waits and says so.
    fn now(&self, round: &Round, writes: &mut Writes) {
        writes.now(round);
        self.done.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Broadcast {
    /// Writes every board's record and the round PGN as last received, waiting
    /// at most `limit`; whether they were written (before the process ends).
    pub fn finish(&self, limit: Duration) -> bool {
        use std::sync::atomic::Ordering;
        self.finish.done.store(false, Ordering::SeqCst);
        self.finish.asked.notify_one();
        let until = std::time::Instant::now() + limit;
        while std::time::Instant::now() < until {
            if self.finish.done.load(Ordering::SeqCst) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }
}

/// Rebuilds round `round_name` of event `event` from the NATS server at `url`
/// into `out` (each board's record and the round PGN), on a thread of its own,
/// until the process ends. `date` is the round's date on the page (each
/// board's record keeps its own).
pub fn broadcast(
    url: &str,
    event: &str,
    round_name: &str,
    date: String,
    out: &Path,
    token: String,
) -> Result<Broadcast, NatsError> {
    let info = EventInfo {
        name: event.to_string(),
        round: round_name.to_string(),
        ..EventInfo::default()
    };
    let round = Round::new(info, date, Vec::new(), out, token)?;
    let prefix = prefix(event, round_name);
    let subjects = format!("{prefix}.*");
    let finish = Arc::new(Finish::default());
    let (r, url, filter, f) = (
        round.clone(),
        url.to_string(),
        subjects.clone(),
        finish.clone(),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    super::spawn_runtime("nats", move |handle| async move {
        let connected = Arc::new(tokio::sync::Notify::new());
        let client = match connect(&url, "boardscribe broadcast", connected.clone()).await {
            Ok(c) => {
                let _ = tx.send(Ok(()));
                c
            }
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        r.act_remotely(Arc::new(Acts {
            client: client.clone(),
            handle,
            prefix,
        }));
        follow(client, r, filter, connected, f).await;
    })?;
    rx.recv().unwrap_or(Ok(()))?;
    Ok(Broadcast {
        round,
        subjects,
        finish,
    })
}

/// Reads the round's messages for as long as the process runs: the latest of
/// every board first, then each as it comes. A consumer that fails is made
/// again (the latest of every board again: those already applied are skipped).
async fn follow(
    client: async_nats::Client,
    round: Arc<Round>,
    filter: String,
    connected: Arc<tokio::sync::Notify>,
    finish: Arc<Finish>,
) {
    let js = jetstream::new(client);
    let mut seen: HashMap<u32, u64> = HashMap::new();
    let mut writes = Writes::new();
    loop {
        let consumer = tokio::select! {
            c = ordered(&js, &filter) => c.ok(),
            () = finish.asked.notified() => {
                finish.now(&round, &mut writes);
                continue;
            }
        };
        if let Some(messages) = consumer {
            let mut messages = std::pin::pin!(messages);
            loop {
                // Connected again (a broker restarted): its consumer may be gone
                // with it, and missed heartbeats would take seconds to say so.
                let due = writes.due();
                let next = tokio::select! {
                    m = messages.next() => m,
                    () = connected.notified() => None,
                    () = finish.asked.notified() => {
                        finish.now(&round, &mut writes);
                        continue;
                    }
                    () = tokio::time::sleep_until(due.unwrap_or_else(tokio::time::Instant::now)), if due.is_some() => {
                        writes.when_due(&round);
                        continue;
                    }
                };
                let Some(Ok(m)) = next else {
                    break;
                };
                // The messages already here are applied together.
                let mut batch = vec![m];
                while batch.len() < BATCH {
                    match messages.next().now_or_never() {
                        Some(Some(Ok(m))) => batch.push(m),
                        _ => break,
                    }
                }
                let wires: Vec<Wire> = batch
                    .iter()
                    .filter_map(|m| serde_json::from_slice(&m.payload).ok())
                    .collect();
                // A board's state is taken from its latest message of the batch
                // alone (each is the whole state); the events of every one are
                // passed on. A node behind reads larger batches: it catches up.
                let latest: HashMap<u64, usize> = wires
                    .iter()
                    .enumerate()
                    .filter_map(|(i, w)| Some((w.board["number"].as_u64()?, i)))
                    .collect();
                for (i, w) in wires.into_iter().enumerate() {
                    let n = w.board["number"].as_u64();
                    if n.is_some_and(|n| latest.get(&n) != Some(&i)) {
                        pass_events(&round, &w, &seen);
                    } else {
                        // A record that cannot be read is left as it stood.
                        let _ = apply(&round, w, &mut seen, &mut writes);
                    }
                }
                writes.when_due(&round);
            }
        }
        writes.now(&round);
        tokio::select! {
            () = tokio::time::sleep(RETRY) => {}
            () = finish.asked.notified() => finish.now(&round, &mut writes),
        }
    }
}

/// What the broadcast still has to write to its folder, and when it may.
///
/// The round PGN holds every board's game in one file (1.6 MB for 1,000 boards
/// of 80 plies) while messages may come a thousand a second: it is written again
/// after `WRITE_SHARE` times the CPU time its last writing took, and no more
/// often than every `WRITE_MIN`, so that writing it takes at most a fifth of the
/// node's time; but at least every `WRITE_MAX`, whatever it costs, as the round
/// PGN is what a broadcast is for. Each board's record, a copy for the operator (the pages and
/// the round PGN are served from memory), is paced the same way on its own, and
/// at most every `COPIES_MIN`: a file made anew a thousand times a second costs
/// the file system more than all the rest (measured: 60% of a node's time on
/// ext4, a third still when written five times a second), so with many boards
/// each copy is written once for several of its messages.
pub(super) struct Writes {
    /// The round PGN lags the boards.
    pgn: bool,
    pgn_next: tokio::time::Instant,
    /// Records not yet written: each board's file and its latest text.
    copies: HashMap<u32, (PathBuf, String)>,
    copies_next: tokio::time::Instant,
}

const WRITE_SHARE: u32 = 4;
const WRITE_MIN: Duration = Duration::from_millis(100);
const WRITE_MAX: Duration = Duration::from_millis(500);
const COPIES_MIN: Duration = Duration::from_secs(5);

impl Writes {
    pub(super) fn new() -> Writes {
        let now = tokio::time::Instant::now();
        Writes {
            pgn: false,
            pgn_next: now,
            copies: HashMap::new(),
            copies_next: now,
        }
    }

    /// When the next write is due, if one waits.
    fn due(&self) -> Option<tokio::time::Instant> {
        let pgn = self.pgn.then_some(self.pgn_next);
        let copies = (!self.copies.is_empty()).then_some(self.copies_next);
        pgn.into_iter().chain(copies).min()
    }

    /// Writes what is due.
    fn when_due(&mut self, round: &Round) {
        let now = tokio::time::Instant::now();
        if self.pgn && now >= self.pgn_next {
            self.write_pgn(round);
        }
        if !self.copies.is_empty() && now >= self.copies_next {
            self.write_copies();
        }
    }

    /// Writes everything that waits, now.
    pub(super) fn now(&mut self, round: &Round) {
        if self.pgn {
            self.write_pgn(round);
        }
        self.write_copies();
    }

    fn write_pgn(&mut self, round: &Round) {
        let t = thread_cpu();
        // One that cannot be written is tried again with the next change.
        self.pgn = round.write_round_pgn().is_err();
        self.pgn_next = next_after(t);
    }

    fn write_copies(&mut self) {
        let t = thread_cpu();
        self.copies.retain(|_, (path, text)| {
            // Only where it differs (a node started again finds most as they were).
            if std::fs::read_to_string(&*path).ok().as_deref() == Some(text.as_str()) {
                return false;
            }
            // The stream keeps what a crash would lose: no waiting for the disk.
            // One that cannot be written is tried again next time.
            write_atomic_unsynced(path, text).is_err()
        });
        self.copies_next = next_after(t).max(tokio::time::Instant::now() + COPIES_MIN);
    }
}

/// When a write that began at this thread's CPU time `t` may be done again:
/// `WRITE_SHARE` times its CPU time later (not its wall time, which a busy
/// machine stretches), within `WRITE_MIN` and `WRITE_MAX`.
fn next_after(t: Duration) -> tokio::time::Instant {
    let cost = thread_cpu().saturating_sub(t);
    tokio::time::Instant::now() + (cost * WRITE_SHARE).clamp(WRITE_MIN, WRITE_MAX)
}

/// This thread's CPU time (zero where the clock is unavailable).
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// An ordered consumer of the round's subjects, from the latest message of each.
async fn ordered(
    js: &jetstream::Context,
    filter: &str,
) -> Result<jetstream::consumer::pull::Ordered, async_nats::Error> {
    let stream = stream(js).await?;
    let consumer = stream
        .create_consumer(OrderedConfig {
            filter_subject: filter.to_string(),
            deliver_policy: DeliverPolicy::LastPerSubject,
            ..OrderedConfig::default()
        })
        .await?;
    Ok(consumer.messages().await?)
}

/// A board's message applied: its state taken, the pages told, its record and
/// the round PGN to be written; whether it changed the board.
pub(super) fn apply(
    round: &Round,
    w: Wire,
    seen: &mut HashMap<u32, u64>,
    writes: &mut Writes,
) -> Result<bool, RecordError> {
    let Some(spec) = spec_of(&w) else {
        return Ok(false);
    };
    let n = spec.number;
    if seen.get(&n).is_some_and(|s| *s >= w.seq) {
        return Ok(false);
    }
    seen.insert(n, w.seq);
    let board = match round.board(n) {
        Some(b) => b,
        None => {
            let info = EventInfo {
                name: w.event.clone(),
                site: w.site.clone(),
                round: w.round.clone(),
                ..EventInfo::default()
            };
            let tags = board_tags(&info, &w.date, &spec);
            round.add_board(spec, tags)?
        }
    };
    board.change(|s| {
        s.status = w.status;
        s.detail = w.detail;
        s.alerts = w.alerts;
        s.corners = w.corners;
    });
    for e in &w.events {
        round.send(Update::Record(n, Arc::from(e.to_string())));
    }
    let r = round.reload_text(&board, &w.record);
    writes.pgn = true;
    writes.copies.insert(n, (board.path.clone(), w.record));
    r.map(|()| true)
}

/// A board's message that a later one of the same batch replaces: only its
/// events, for the pages.
fn pass_events(round: &Round, w: &Wire, seen: &HashMap<u32, u64>) {
    let Some(n) = w.board["number"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
    else {
        return;
    };
    if seen.get(&n).is_some_and(|s| *s >= w.seq) {
        return;
    }
    for e in &w.events {
        round.send(Update::Record(n, Arc::from(e.to_string())));
    }
}

/// The board's entry, as its recorder sent it, with its game set up.
fn spec_of(w: &Wire) -> Option<BoardSpec> {
    let mut spec: BoardSpec = serde_json::from_value(w.board.clone()).ok()?;
    if spec.number == 0 {
        return None;
    }
    spec.setup = spec.read().1?;
    Some(spec)
}

/// The arbiter's actions, sent to the boards' recorders.
struct Acts {
    client: async_nats::Client,
    handle: tokio::runtime::Handle,
    prefix: String,
}

impl RemoteActs for Acts {
    fn act(&self, number: u32, action: &Action) -> Result<String, ActionError> {
        let payload = serde_json::to_vec(action).map_err(|e| ActionError::Failed(e.to_string()))?;
        let subject = format!("{}.{number}.act", self.prefix);
        let client = self.client.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        self.handle.spawn(async move {
            let request = async_nats::Request::new()
                .payload(payload.into())
                .timeout(Some(ACT_WAIT));
            let _ = tx.send(client.send_request(subject, request).await);
        });
        let unreachable = |why: String| {
            ActionError::Failed(format!(
                "board {number}'s recorder could not be reached through NATS ({why}); the action was not made"
            ))
        };
        let answer = match rx.recv_timeout(ACT_WAIT + Duration::from_secs(5)) {
            Ok(Ok(m)) => m,
            Ok(Err(e)) => return Err(unreachable(e.to_string())),
            Err(_) => return Err(unreachable("no answer".into())),
        };
        let v: serde_json::Value = serde_json::from_slice(&answer.payload)
            .map_err(|e| unreachable(format!("an answer that is no JSON: {e}")))?;
        let message = v["message"].as_str().unwrap_or("").to_string();
        match v["error"].as_str() {
            None => Ok(message),
            Some("no_board") => Err(ActionError::NoBoard(number)),
            Some("refused") => Err(ActionError::Refused(message)),
            Some(_) => Err(ActionError::Failed(message)),
        }
    }
}
