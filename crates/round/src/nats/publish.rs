//! The recorder's side: every board's state out to JetStream through the outbox,
//! and the arbiter's actions from broadcast pages in.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, message::PublishMessage};
use futures_util::StreamExt;
use tokio::sync::broadcast::error::RecvError;

use super::outbox::Outbox;
use super::{connect, prefix, stream, NatsError, Wire, WIRE_VERSION};
use crate::round::{Action, ActionError, Board, Round, Update};

/// Messages sent before their acknowledgements are awaited.
const WINDOW: usize = 64;
/// How long updates that come together are gathered into one message.
const GATHER: Duration = Duration::from_millis(50);
/// The pause before trying the broker again.
const RETRY: Duration = Duration::from_millis(500);

/// Publishes a round's boards; see the module's comment.
pub struct Publisher {
    outbox: Arc<Outbox>,
    /// Every update of the round, to its end, is in the outbox.
    collected: Arc<AtomicBool>,
}

impl Publisher {
    /// Waits, at most `limit`, until the round's last update is in the outbox and
    /// the outbox is sent (the round has ended); returns the messages still
    /// waiting (kept in the outbox for the next run on the folder).
    pub fn finish(&self, limit: Duration) -> usize {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if self.collected.load(Ordering::SeqCst) && self.outbox.len() == 0 {
                return 0;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.outbox.len()
    }
}

/// Publishes every board of `round` (its records in `out`) to the NATS server
/// at `url`, from a thread of its own, until the process ends; answers the
/// arbiter's actions sent from broadcast pages. The broker need not be up.
pub fn publish(round: &Arc<Round>, url: &str, out: &Path) -> Result<Publisher, NatsError> {
    let outbox = Arc::new(Outbox::open(&out.join("nats"))?);
    let collected = Arc::new(AtomicBool::new(false));
    // Subscribed now: no update between here and the thread's start is missed.
    let updates = round.subscribe();
    let prefix = prefix(&round.info.name, &round.info.round);
    let (r, o, c, url) = (
        round.clone(),
        outbox.clone(),
        collected.clone(),
        url.to_string(),
    );
    // The address is checked here, so that a malformed one is said at once.
    let (tx, rx) = std::sync::mpsc::channel();
    super::spawn_runtime("nats", move |_| async move {
        let connected = Arc::new(tokio::sync::Notify::new());
        let client = match connect(&url, "boardscribe event", connected).await {
            Ok(c) => {
                let _ = tx.send(Ok(()));
                c
            }
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        tokio::spawn(collect(r.clone(), o.clone(), updates, prefix.clone(), c));
        answer_actions(&client, &r, &prefix).await;
        send(client, o).await;
    })?;
    rx.recv().unwrap_or(Ok(()))?;
    Ok(Publisher { outbox, collected })
}

/// Puts every change of the round into the outbox as board messages: the state
/// of every board first, then of each board that changed, gathered.
async fn collect(
    round: Arc<Round>,
    outbox: Arc<Outbox>,
    mut updates: tokio::sync::broadcast::Receiver<Update>,
    prefix: String,
    collected: Arc<AtomicBool>,
) {
    let mut pending: HashMap<u32, Vec<serde_json::Value>> = round
        .boards()
        .iter()
        .map(|b| (b.number(), Vec::new()))
        .collect();
    let mut versions: HashMap<u32, u64> = HashMap::new();
    loop {
        flush(&round, &outbox, &prefix, &mut pending, &mut versions);
        let mut ended = false;
        let first = updates.recv().await;
        tokio::time::sleep(GATHER).await;
        let mut next = Some(first);
        while let Some(update) = next.take() {
            match update {
                Ok(Update::Board(n)) => {
                    pending.entry(n).or_default();
                }
                Ok(Update::Record(n, json)) => {
                    let v = serde_json::from_str(&json).unwrap_or(serde_json::Value::Null);
                    pending.entry(n).or_default().push(v);
                }
                Ok(Update::End) => ended = true,
                // Fallen behind: every board's state as it stands.
                Err(RecvError::Lagged(_)) => {
                    for b in round.boards().iter() {
                        pending.entry(b.number()).or_default();
                    }
                    versions.clear();
                }
                Err(RecvError::Closed) => ended = true,
            }
            next = match updates.try_recv() {
                Ok(u) => Some(Ok(u)),
                Err(tokio::sync::broadcast::error::TryRecvError::Lagged(n)) => {
                    Some(Err(RecvError::Lagged(n)))
                }
                Err(_) => None,
            };
        }
        if ended {
            flush(&round, &outbox, &prefix, &mut pending, &mut versions);
            collected.store(true, Ordering::SeqCst);
            // A round that has ended changes no more, but arbiter actions on
            // records whose recorders have stopped still do.
        }
    }
}

/// The pending boards' messages into the outbox; a board whose state has not
/// changed and has no event is left out.
fn flush(
    round: &Round,
    outbox: &Outbox,
    prefix: &str,
    pending: &mut HashMap<u32, Vec<serde_json::Value>>,
    versions: &mut HashMap<u32, u64>,
) {
    let mut numbers: Vec<u32> = pending.keys().copied().collect();
    numbers.sort_unstable();
    for n in numbers {
        let events = pending.remove(&n).unwrap_or_default();
        let Some(board) = round.board(n) else {
            continue;
        };
        let version = board.version();
        if events.is_empty() && versions.get(&n) == Some(&version) {
            continue;
        }
        versions.insert(n, version);
        let subject = format!("{prefix}.{n}");
        // A full disk is the records' trouble too; the next change tries again.
        let _ = outbox.push(subject, |seq| wire(round, &board, seq, events));
    }
}

/// Board `board`'s message: its whole state as it stands.
pub(super) fn wire(
    round: &Round,
    board: &Board,
    seq: u64,
    events: Vec<serde_json::Value>,
) -> String {
    let s = board.state();
    let spec = &board.spec;
    let setup = spec.setup.setup();
    let go = &setup.go;
    // A Go board's size may come from its profile: the grid says it.
    let grid = spec.grid.clone().or_else(|| {
        let game = spec.game();
        game.grids()
            .into_iter()
            .find(|g| game.board_size(g) == Some(go.size))
    });
    let mut entry = serde_json::json!({
        "number": spec.number,
        "game": spec.game().name(),
        "input": format!("nats:{}", board.number()),
        "white": spec.white,
        "black": spec.black,
    });
    let keys = [
        ("grid", grid.map(serde_json::Value::from)),
        (spec.game().start_key(), setup.start.clone().map(Into::into)),
        ("white-first", Some(setup.white_first.into())),
        ("handicap", Some(go.handicap.into())),
        ("komi", spec.komi.clone().map(Into::into)),
        ("superko", Some(go.superko.into())),
    ];
    for (k, v) in keys {
        if let (Some(v), Some(o)) = (v, entry.as_object_mut()) {
            o.insert(k.into(), v);
        }
    }
    let w = Wire {
        v: WIRE_VERSION,
        seq,
        event: round.info.name.clone(),
        site: round.info.site.clone(),
        round: round.info.round.clone(),
        date: round.date.clone(),
        board: entry,
        // The file as it stands, byte for byte (the state holds it re-rendered);
        // none yet before the board records.
        record: std::fs::read_to_string(&board.path).unwrap_or_default(),
        status: s.status,
        detail: s.detail,
        alerts: s.alerts,
        corners: s.corners,
        events,
    };
    serde_json::to_string(&w).unwrap_or_default()
}

/// Sends the outbox in order, a window at a time, for as long as the process
/// runs; a message leaves it once JetStream has acknowledged it. The broker down,
/// the stream missing or a message unacknowledged: tried again after a pause.
async fn send(client: async_nats::Client, outbox: Arc<Outbox>) {
    let js = jetstream::new(client);
    let mut ready = false;
    loop {
        if !ready {
            ready = stream(&js).await.is_ok();
            if !ready {
                tokio::time::sleep(RETRY).await;
                continue;
            }
        }
        let batch = outbox.first(WINDOW);
        if batch.is_empty() {
            outbox.added.notified().await;
            continue;
        }
        let mut acks = Vec::new();
        for e in &batch {
            let msg = PublishMessage::build()
                .payload(e.payload.clone().into())
                .message_id(format!("{}:{}", e.subject, e.seq));
            match js.send_publish(e.subject.clone(), msg).await {
                Ok(ack) => acks.push((e.seq, ack)),
                Err(_) => break,
            }
        }
        let mut all = acks.len() == batch.len();
        for (seq, ack) in acks {
            if ack.await.is_ok() {
                outbox.acked(seq);
            } else {
                // The rest are sent again (stored once): in order.
                all = false;
                break;
            }
        }
        if !all {
            ready = false;
            tokio::time::sleep(RETRY).await;
        }
    }
}

/// Answers the arbiter's actions sent to this recorder's boards
/// (`PREFIX.N.act`): carried out as if posted on its own page.
async fn answer_actions(client: &async_nats::Client, round: &Arc<Round>, prefix: &str) {
    for board in round.boards().iter() {
        let n = board.number();
        let Ok(mut requests) = client.subscribe(format!("{prefix}.{n}.act")).await else {
            continue;
        };
        let (client, round) = (client.clone(), round.clone());
        tokio::spawn(async move {
            while let Some(request) = requests.next().await {
                let Some(reply) = request.reply.clone() else {
                    continue;
                };
                let answer = match serde_json::from_slice::<Action>(&request.payload) {
                    Ok(action) => {
                        let r = round.clone();
                        tokio::task::spawn_blocking(move || r.act(n, action))
                            .await
                            .unwrap_or_else(|e| Err(ActionError::Failed(e.to_string())))
                    }
                    Err(e) => Err(ActionError::Refused(format!("not an action: {e}"))),
                };
                let _ = client.publish(reply, answer_json(answer).into()).await;
            }
        });
    }
}

/// An action's outcome as the recorder answers it.
fn answer_json(answer: Result<String, ActionError>) -> String {
    let (error, message) = match answer {
        Ok(m) => (None, m),
        Err(e @ ActionError::NoBoard(_)) => (Some("no_board"), e.to_string()),
        Err(e @ ActionError::Refused(_)) => (Some("refused"), e.to_string()),
        Err(e @ ActionError::Failed(_)) => (Some("failed"), e.to_string()),
    };
    serde_json::json!({"ok": error.is_none(), "error": error, "message": message}).to_string()
}
