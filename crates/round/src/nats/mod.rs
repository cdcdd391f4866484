//! Several recorder machines, one broadcast: a round's boards through NATS
//! JetStream (issue 31).
//!
//! ```text
//! event --nats URL   (per machine)          broadcast --nats URL   (one or more)
//!   Round updates -> outbox (DIR/nats/) -> stream BOARDSCRIBE -> ordered consumer -> Round
//!   recorder <- request boardscribe.E.R.N.act <------------------ arbiter's page
//! ```
//!
//! **Subjects.** Board N of round R of event E is published on
//! `boardscribe.E.R.N`. E and R are made subject-safe by [`subject_token`]:
//! ASCII letters, digits, `-` and `_` kept, every other character (spaces,
//! dots, `*`, `>`, accents) becomes `_`, and an empty name is `_`; so `Club
//! Open 2026` and round `3` publish on `boardscribe.Club_Open_2026.3.N`. The
//! broadcast is given the event's name (or its token: the same token results).
//! One stream, `BOARDSCRIBE`, file storage, holds `boardscribe.*.*.*`, the
//! latest 64 messages of each board (created by
//! whichever side comes first). Arbiter actions go by request and reply on
//! `boardscribe.E.R.N.act`, five tokens, which the stream does not hold.
//!
//! **What a message holds.** Each message is the board's whole current state,
//! not a difference: the board's record file as it stands (a few KB), its status
//! and alerts, the corners of its grid, the board's entry (game, start, players)
//! and the event's tags, with the recorder events that led to it (moves with
//! their times, irregularities, corrections, results: what `event --events`
//! prints). So the broadcast rebuilds a board exactly from the latest message of
//! its subject alone, whatever came before; a lost, repeated or reordered message
//! can cost at most a moment's staleness, never a wrong record. Updates that come
//! together (a move, the record written, the state changed) go out as one message.
//!
//! **Recording never waits for the broker.** The recorders change the round's
//! live state as they do without NATS; a thread of its own hears of every change
//! and appends the message to an outbox in the round's folder (`DIR/nats/outbox`,
//! one line each) before sending it; a message leaves the outbox when JetStream
//! has acknowledged it (`DIR/nats/sent` keeps the last acknowledged sequence).
//! While the broker is down the outbox grows; when it is back the backlog goes
//! out in order. A recorder killed and started again on the same folder sends
//! what was not acknowledged, then the state it takes up.
//!
//! **Stored once.** A message's sequence is the recorder's clock in microseconds,
//! raised past the last one used (kept in the outbox and `sent`), so sequences
//! only grow, across restarts too. Its `Nats-Msg-Id` is `SUBJECT:SEQUENCE`: a
//! message re-sent (an acknowledgement lost, a recorder killed before it read
//! one) is stored once by the stream's duplicate window; the broadcast also skips
//! any message of a board older than one it has applied.
//!
//! **The broadcast** reads the stream through an ordered consumer of its own,
//! filtered on `boardscribe.E.R.*`, that starts with the latest message of every
//! board (`DeliverPolicy::LastPerSubject`) and then follows: a node started late,
//! or again after a crash, catches up from the stream at once, with no state of
//! its own to keep, and any number of nodes may serve one round. It writes each
//! board's record and the round PGN into its folder and serves them with the same
//! server as `event`. An arbiter's action on its page goes to the board's
//! recorder by request and reply; the recorder carries it out as if it were
//! posted on its own page and answers what was done, and the effect comes back
//! as the board's next message.

mod bench;
mod follow;
mod outbox;
mod publish;
mod writer;

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::round::{Alert, RecordError, Status};

pub use bench::{simulate, SimPlan, Simulated};
pub use follow::{broadcast, Broadcast};
pub use publish::{publish, Publisher};

/// The JetStream stream that holds every round's messages.
const STREAM: &str = "BOARDSCRIBE";
/// What the stream holds: `boardscribe.EVENT.ROUND.BOARD`.
const STREAM_SUBJECTS: &str = "boardscribe.*.*.*";
/// The messages the stream keeps per board, the latest.
const KEEP_PER_BOARD: i64 = 64;

/// A name made safe as one token of a NATS subject: ASCII letters, digits, `-`
/// and `_` kept, anything else `_`; an empty name `_`.
pub(crate) fn subject_token(name: &str) -> String {
    if name.is_empty() {
        return "_".into();
    }
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The subjects of a round's boards, `boardscribe.EVENT.ROUND.*`.
pub fn round_subjects(event: &str, round: &str) -> String {
    format!("{}.*", prefix(event, round))
}

/// `boardscribe.EVENT.ROUND`, the names made subject-safe.
fn prefix(event: &str, round: &str) -> String {
    format!(
        "boardscribe.{}.{}",
        subject_token(event),
        subject_token(round)
    )
}

/// One board's message: its whole state as it stands (see the module's comment).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Wire {
    /// The format's version.
    v: u32,
    /// Counts up per recorder, across restarts (microseconds of its clock).
    seq: u64,
    /// The event's tags: its name, site, round and date.
    event: String,
    site: String,
    round: String,
    date: String,
    /// The board's entry in the round file, as far as the game goes: `number`,
    /// `game`, `white`, `black`, `grid`, `fen`, `position` and Go's options.
    board: serde_json::Value,
    /// The board's record file as it stands (empty before it records).
    record: String,
    status: Status,
    #[serde(default)]
    detail: Option<String>,
    #[serde(default)]
    alerts: Vec<Alert>,
    #[serde(default)]
    corners: Option<[[f64; 2]; 4]>,
    /// The recorder events since the board's last message, as `event --events`
    /// prints them.
    #[serde(default)]
    events: Vec<serde_json::Value>,
}

/// The format of [`Wire`] written now.
const WIRE_VERSION: u32 = 1;

/// A round could not be published or broadcast.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NatsError {
    /// The NATS server's address was refused (malformed, or no such scheme).
    #[error("cannot connect to the NATS server '{url}'")]
    Connect {
        /// The address as given.
        url: String,
        /// Why not.
        source: async_nats::ConnectError,
    },
    /// The outbox in the round's folder could not be read or written.
    #[error("cannot keep the NATS outbox '{}'", path.display())]
    Outbox {
        /// The outbox's file.
        path: std::path::PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// The broadcast's round could not be set up in its folder.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The thread or the runtime that talks to NATS could not be started.
    #[error("cannot start the NATS thread")]
    Start(#[source] std::io::Error),
}

/// Connects to `url` in the background: a broker down or not yet up is no
/// error, the client keeps trying (and buffers meanwhile), every half second
/// at most, so that a broker back is used at once. `connected` is woken at
/// every (re)connection.
async fn connect(
    url: &str,
    name: &str,
    connected: Arc<tokio::sync::Notify>,
) -> Result<async_nats::Client, NatsError> {
    async_nats::ConnectOptions::new()
        .name(name)
        .retry_on_initial_connect()
        .max_reconnects(None)
        .reconnect_delay_callback(|attempts| Duration::from_millis(100 * attempts.min(5) as u64))
        .event_callback(move |event| {
            let connected = connected.clone();
            async move {
                if matches!(event, async_nats::Event::Connected) {
                    connected.notify_one();
                }
            }
        })
        .connect(url)
        .await
        .map_err(|source| NatsError::Connect {
            url: url.to_string(),
            source,
        })
}

/// The stream, made when it is not there yet (by whichever side comes first).
async fn stream(
    js: &async_nats::jetstream::Context,
) -> Result<async_nats::jetstream::stream::Stream, async_nats::Error> {
    use async_nats::jetstream::stream::{Config, StorageType};
    Ok(js
        .get_or_create_stream(Config {
            name: STREAM.into(),
            subjects: vec![STREAM_SUBJECTS.into()],
            storage: StorageType::File,
            // A message is a board's whole state, and a broadcast reads only
            // each board's latest: older ones are kept a while for inspection,
            // not forever (a 1,000-board round would otherwise keep 80,000).
            max_messages_per_subject: KEEP_PER_BOARD,
            ..Config::default()
        })
        .await?)
}

/// A current-thread runtime on a thread of its own, named `name`, running
/// `main` until the process ends.
fn spawn_runtime<F>(
    name: &str,
    make: impl FnOnce(tokio::runtime::Handle) -> F + Send + 'static,
) -> Result<tokio::runtime::Handle, NatsError>
where
    F: std::future::Future<Output = ()> + 'static,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(NatsError::Start)?;
    let handle = runtime.handle().clone();
    let h = handle.clone();
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || runtime.block_on(make(h)))
        .map_err(NatsError::Start)?;
    Ok(handle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::{AlertKind, BoardSpec, EventInfo, Round};

    fn spec(n: u32, fen: Option<&str>) -> BoardSpec {
        let mut s = BoardSpec {
            number: n,
            input: format!("b{n}.mp4"),
            white: format!("White {n}"),
            black: format!("Black {n}"),
            fen: fen.map(str::to_string),
            ..BoardSpec::default()
        };
        s.setup = s.read().1.unwrap();
        s
    }

    #[test]
    fn a_board_is_rebuilt_exactly_from_its_latest_message() {
        let (at_recorder, at_broadcast) =
            (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::write(
            at_recorder.path().join("board-2.pgn"),
            crate::round::pgn_after(&["e2e4", "e7e5"]),
        )
        .unwrap();
        let info = EventInfo {
            name: "Club Open".into(),
            site: "Brno".into(),
            round: "3".into(),
            ..EventInfo::default()
        };
        let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        let recorder = Round::new(
            info,
            "2026.05.01".into(),
            vec![spec(1, Some(fen)), spec(2, None)],
            at_recorder.path(),
            "t".into(),
        )
        .unwrap();
        let b2 = recorder.board(2).unwrap();
        b2.alert(
            AlertKind::Unsure,
            "move 1 e4 (confidence 0.80)".into(),
            Some(1),
        );
        let message = |n: u32, seq: u64| -> Wire {
            let b = recorder.board(n).unwrap();
            let text = publish::wire(
                &recorder,
                &b,
                seq,
                vec![serde_json::json!({"type": "move"})],
            );
            serde_json::from_str(&text).unwrap()
        };
        let info = EventInfo {
            name: "Club Open".into(),
            round: "3".into(),
            ..EventInfo::default()
        };
        let broadcast = Round::new(
            info,
            "2026.12.04".into(),
            Vec::new(),
            at_broadcast.path(),
            "u".into(),
        )
        .unwrap();
        let mut seen = std::collections::HashMap::new();
        let writes = writer::Writes::default();
        // Board 2 first: boards are kept in number order whatever comes first.
        assert!(follow::apply(&broadcast, message(2, 10), &mut seen, &writes).unwrap());
        assert!(follow::apply(&broadcast, message(1, 11), &mut seen, &writes).unwrap());
        writes.now(&broadcast);
        assert_eq!(broadcast.pgn(), recorder.pgn());
        let round_pgn = std::fs::read_to_string(at_broadcast.path().join("round.pgn")).unwrap();
        assert_eq!(round_pgn, *recorder.pgn());
        assert!(round_pgn.contains(fen), "{round_pgn}");
        assert_eq!(
            std::fs::read_to_string(at_broadcast.path().join("board-2.pgn")).unwrap(),
            std::fs::read_to_string(at_recorder.path().join("board-2.pgn")).unwrap()
        );
        let got = broadcast.board(2).unwrap().state();
        assert_eq!(got.sans, ["e4", "e5"]);
        assert_eq!(got.alerts.len(), 1);
        assert_eq!(got.alerts[0].text, "move 1 e4 (confidence 0.80)");
        assert_eq!(
            broadcast
                .boards()
                .iter()
                .map(|b| b.number())
                .collect::<Vec<_>>(),
            [1, 2]
        );
        // An older message of a board (sent again, out of order) changes nothing.
        let mut old = message(2, 5);
        old.record = String::new();
        old.alerts.clear();
        assert!(!follow::apply(&broadcast, old, &mut seen, &writes).unwrap());
        assert_eq!(broadcast.board(2).unwrap().state().alerts.len(), 1);
        assert_eq!(broadcast.pgn(), recorder.pgn());
    }

    #[test]
    fn a_go_board_sized_by_its_profile_reaches_the_broadcast_with_its_grid() {
        let dir = tempfile::tempdir().unwrap();
        let mut go = BoardSpec {
            number: 1,
            input: "b1.mp4".into(),
            game: Some(crate::game::GameKind::Go),
            ..BoardSpec::default()
        };
        // No grid in the round file: the 13 lines came from the board's profile.
        let mut setup = go.read().1.unwrap().setup().clone();
        setup.go.size = 13;
        go.setup = crate::game::GameSetup::parse(&setup).unwrap();
        let recorder = Round::new(
            EventInfo::default(),
            "2026.12.05".into(),
            vec![go],
            dir.path(),
            "t".into(),
        )
        .unwrap();
        let text = publish::wire(&recorder, &recorder.board(1).unwrap(), 1, Vec::new());
        let wire: Wire = serde_json::from_str(&text).unwrap();
        assert_eq!(wire.board["grid"], "13x13:points");
        let spec = follow::spec_of(&wire).expect("the broadcast takes the board");
        assert_eq!(spec.setup.setup().go.size, 13);
    }

    #[test]
    fn names_become_single_subject_tokens() {
        assert_eq!(subject_token("Club Open 2026"), "Club_Open_2026");
        assert_eq!(subject_token("a.b*c>d"), "a_b_c_d");
        assert_eq!(subject_token("Brno-3_x"), "Brno-3_x");
        assert_eq!(subject_token("Šachy"), "_achy");
        assert_eq!(subject_token(""), "_");
        assert_eq!(subject_token(&subject_token("x y")), "x_y", "idempotent");
        assert_eq!(
            round_subjects("Club Open", "3"),
            "boardscribe.Club_Open.3.*"
        );
    }
}
