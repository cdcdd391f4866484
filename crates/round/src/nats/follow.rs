//! The broadcast's side: every board of a round rebuilt from the stream into a
//! [`Round`] of its own, served as `event` serves its boards; the arbiter's
//! actions sent to the boards' recorders.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::{self, consumer::pull::OrderedConfig, consumer::DeliverPolicy};
use futures_util::{FutureExt, StreamExt};

use super::writer::Writes;
use super::{connect, prefix, stream, NatsError, Wire};
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
    writes: Arc<Writes>,
}

impl Broadcast {
    /// Writes every board's record and the round PGN as last received, waiting
    /// at most `limit`; whether they were written (before the process ends).
    pub fn finish(&self, limit: Duration) -> bool {
        self.writes.finish(limit)
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
    let writes = Writes::start(&round)?;
    let (r, url, filter, w) = (
        round.clone(),
        url.to_string(),
        subjects.clone(),
        writes.clone(),
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
        follow(client, r, filter, connected, w).await;
    })?;
    rx.recv().unwrap_or(Ok(()))?;
    Ok(Broadcast {
        round,
        subjects,
        writes,
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
    writes: Arc<Writes>,
) {
    let js = jetstream::new(client);
    let mut seen: HashMap<u32, u64> = HashMap::new();
    loop {
        if let Ok(messages) = ordered(&js, &filter).await {
            let mut messages = std::pin::pin!(messages);
            loop {
                // Connected again (a broker restarted): its consumer may be gone
                // with it, and missed heartbeats would take seconds to say so.
                let next = tokio::select! {
                    m = messages.next() => m,
                    () = connected.notified() => None,
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
                        let _ = apply(&round, w, &mut seen, &writes);
                    }
                }
            }
        }
        tokio::time::sleep(RETRY).await;
    }
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
    writes: &Writes,
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
    writes.changed(n, board.path.clone(), w.record);
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
pub(super) fn spec_of(w: &Wire) -> Option<BoardSpec> {
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
