//! Simulated recorders for the broadcast bench (`boardscribe bench --what
//! broadcast`): many boards' games published as `event --nats` publishes them,
//! at a compressed pace, with the time each message went out.
//!
//! Each simulated recorder machine is a [`Round`] of its own share of the boards,
//! its records in a folder of its own, and a NATS connection of its own. A move
//! is made as a recorder makes one: the board's record file written again (tags,
//! moves with `[%emt]`), its state in sync with its grid's corners, and the
//! board's message built by the publisher's own code from them, with the move's
//! event; so the messages have the sizes a real round's have. What the
//! simulation leaves out is the camera, the outbox and waiting for the disk: a
//! message goes straight to JetStream, and its publish time is taken just before.
//!
//! A plain subscriber on the round's subjects notes when each message arrives: the
//! reference a broadcast's delay is set against (what NATS alone costs).

use crate::lock;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, message::PublishMessage};
use futures_util::StreamExt;

use super::{prefix, publish::wire, stream, NatsError};
use crate::pipeline::Event;
use crate::record::{write_atomic_unsynced, GameRecord, PgnRecord};
use crate::round::{BoardSpec, EventInfo, Round, Status};
use crate::rules::chess::Chess;
use crate::rules::Rules;
use boardscribe_rng::Rng;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct SimPlan {
    /// The event's name, as a round file gives it.
    pub event: String,
    /// The round.
    pub round: String,
    /// Boards, numbered from 1.
    pub boards: u32,
    /// Half-moves each game has; the last message also gives the result.
    pub plies: usize,
    /// The mean seconds between two moves of one board (each gap drawn from half
    /// to one and a half times it).
    pub ply_seconds: f64,
    /// Recorder machines the boards are shared among, each with its own connection.
    pub machines: u32,
    /// The games' and the pace's seed.
    pub seed: u64,
}

/// What was published, and when.
#[derive(Debug)]
pub struct Simulated {
    /// Per board (index: number - 1), when the message of each half-move went
    /// out (index: ply - 1).
    pub sent: Vec<Vec<Instant>>,
    /// Per board, when the plain subscriber had each half-move's message.
    pub delivered: Vec<Vec<Option<Instant>>>,
    /// Per board, its game: the moves (SAN) and the result.
    pub games: Vec<(Vec<String>, String)>,
    /// Messages published, their first acknowledgement awaited.
    pub messages: u64,
    /// The payloads' bytes.
    pub bytes: u64,
    /// Messages sent again after a failed acknowledgement.
    pub retries: u64,
}

/// The result the simulated games end with (a draw agreed after the last move).
const RESULT: &str = "1/2-1/2";
/// How long the plain subscriber waits for messages still under way at the end.
const DRAIN: Duration = Duration::from_secs(5);

/// Publishes `plan`'s boards to the NATS server at `url`, each board's records in
/// `dir`, and returns when every game has ended.
pub fn simulate(url: &str, plan: &SimPlan, dir: &Path) -> Result<Simulated, NatsError> {
    let games: Vec<Vec<<Chess as Rules>::Move>> = (1..=plan.boards)
        .map(|n| random_game(plan.seed, n, plan.plies))
        .collect();
    let machines = plan.machines.clamp(1, plan.boards.max(1));
    let info = EventInfo {
        name: plan.event.clone(),
        site: "Bench Hall".into(),
        round: plan.round.clone(),
        ..EventInfo::default()
    };
    let mut rounds = Vec::new();
    for m in 0..machines {
        let specs = (1..=plan.boards)
            .filter(|n| (n - 1) % machines == m)
            .map(spec)
            .collect();
        let d = dir.join(format!("recorder-{}", m + 1));
        std::fs::create_dir_all(&d).map_err(|source| NatsError::Outbox {
            path: d.clone(),
            source,
        })?;
        rounds.push(Round::new(
            info.clone(),
            "2026.12.04".into(),
            specs,
            &d,
            String::new(),
        )?);
    }
    let delivered = Arc::new(Mutex::new(vec![
        vec![None; plan.plies];
        plan.boards as usize
    ]));
    let listener = listen(url, plan, delivered.clone())?;
    let start = Instant::now() + Duration::from_millis(500);
    let games = Arc::new(games);
    // A thread and a connection per recorder machine, as each has its own.
    let machines: Vec<_> = rounds
        .into_iter()
        .map(|round| {
            let (url, plan, games) = (url.to_string(), plan.clone(), games.clone());
            std::thread::spawn(move || machine(&url, &plan, &round, &games, start))
        })
        .collect();
    let mut sim = Simulated {
        sent: vec![Vec::new(); plan.boards as usize],
        delivered: Vec::new(),
        games: Vec::with_capacity(plan.boards as usize),
        messages: 0,
        bytes: 0,
        retries: 0,
    };
    for m in machines {
        let played = m
            .join()
            .map_err(|_| NatsError::Start(std::io::Error::other("a recorder thread failed")))??;
        for o in played {
            sim.messages += o.messages;
            sim.bytes += o.bytes;
            sim.retries += o.retries;
            sim.sent[o.number as usize - 1] = o.sent;
        }
    }
    let until = Instant::now() + DRAIN;
    while Instant::now() < until && lock(&delivered).iter().flatten().any(Option::is_none) {
        std::thread::sleep(Duration::from_millis(50));
    }
    listener.store(true, std::sync::atomic::Ordering::SeqCst);
    sim.delivered = lock(&delivered).clone();
    for moves in games.iter() {
        let mut g = Chess::new();
        let sans = moves
            .iter()
            .map(|m| {
                let s = g.notation(m);
                g.play_legal(m);
                s
            })
            .collect();
        sim.games.push((sans, RESULT.to_string()));
    }
    Ok(sim)
}

/// Each half-move's arrival, as a plain subscriber on the round's subjects
/// sees it, on a thread of its own (until the flag returned is set).
fn listen(
    url: &str,
    plan: &SimPlan,
    delivered: Arc<Mutex<Vec<Vec<Option<Instant>>>>>,
) -> Result<Arc<std::sync::atomic::AtomicBool>, NatsError> {
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (url, subjects, d) = (
        url.to_string(),
        format!("{}.*", prefix(&plan.event, &plan.round)),
        done.clone(),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(async move {
            let client = match async_nats::connect(&url).await {
                Ok(c) => c,
                Err(source) => {
                    let _ = tx.send(Err(NatsError::Connect { url, source }));
                    return;
                }
            };
            let mut incoming = match client.subscribe(subjects).await {
                Ok(s) => s,
                Err(e) => {
                    let _ = tx.send(Err(NatsError::Start(std::io::Error::other(e))));
                    return;
                }
            };
            let _ = client.flush().await;
            let _ = tx.send(Ok(()));
            while !d.load(std::sync::atomic::Ordering::SeqCst) {
                let next = tokio::time::timeout(Duration::from_millis(200), incoming.next());
                let Ok(Some(m)) = next.await else {
                    continue;
                };
                let at = Instant::now();
                // Ids name boards from 1 and plies from 1 (0: the start).
                if let Some((b, p)) = message_ply(&m) {
                    let mut d = lock(&delivered);
                    if let Some(slot) = d.get_mut(b - 1).and_then(|v| v.get_mut(p - 1)) {
                        slot.get_or_insert(at);
                    }
                }
            }
        });
    });
    rx.recv()
        .map_err(|_| NatsError::Start(std::io::Error::other("the subscriber did not start")))??;
    Ok(done)
}

/// One recorder machine: its boards' games published from `start` on.
fn machine(
    url: &str,
    plan: &SimPlan,
    round: &Arc<Round>,
    games: &[Vec<<Chess as Rules>::Move>],
    start: Instant,
) -> Result<Vec<Played>, NatsError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(NatsError::Start)?;
    runtime.block_on(async {
        let client = async_nats::connect(url)
            .await
            .map_err(|source| NatsError::Connect {
                url: url.to_string(),
                source,
            })?;
        let js = jetstream::new(client);
        stream(&js)
            .await
            .map_err(|e| NatsError::Start(std::io::Error::other(e.to_string())))?;
        let prefix = prefix(&plan.event, &plan.round);
        let mut tasks = Vec::new();
        for board in round.boards().iter() {
            let n = board.number();
            let mut pace = Rng::derive(plan.seed.wrapping_add(0x9ace), u64::from(n));
            let moves = games[n as usize - 1].clone();
            let job = BoardJob {
                round: round.clone(),
                number: n,
                subject: format!("{prefix}.{n}"),
                js: js.clone(),
            };
            let first = start + Duration::from_secs_f64(pace.range(0.0, plan.ply_seconds));
            let mean = plan.ply_seconds;
            tasks.push(tokio::spawn(async move {
                job.play(moves, first, move || {
                    Duration::from_secs_f64(mean * pace.range(0.5, 1.5))
                })
                .await
            }));
        }
        let mut played = Vec::new();
        for t in tasks {
            played.push(
                t.await
                    .map_err(|e| NatsError::Start(std::io::Error::other(e)))??,
            );
        }
        Ok(played)
    })
}

/// Board `n`'s entry, as a round file would give it.
fn spec(n: u32) -> BoardSpec {
    let mut s = BoardSpec {
        number: n,
        input: format!("camera-{n}.mp4"),
        white: format!("Player {}", 2 * n - 1),
        black: format!("Player {}", 2 * n),
        ..BoardSpec::default()
    };
    if let Some(setup) = s.read().1 {
        s.setup = setup;
    }
    s
}

/// A random legal game of `plies` half-moves that does not end before them
/// (seed after seed until one does not).
fn random_game(seed: u64, board: u32, plies: usize) -> Vec<<Chess as Rules>::Move> {
    let mut stream = 0u64;
    loop {
        let mut rng = Rng::derive(seed ^ (u64::from(board) << 20), stream);
        let mut g = Chess::new();
        let mut moves = Vec::with_capacity(plies);
        while moves.len() < plies {
            let legal = g.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below(legal.len())];
            g.play_legal(&m);
            moves.push(m);
        }
        if moves.len() == plies && g.outcome().is_none() {
            return moves;
        }
        stream += 1;
    }
}

/// Board and half-move of a message, from its id (`SUBJECT:PLY`).
fn message_ply(m: &async_nats::Message) -> Option<(usize, usize)> {
    let id = m.headers.as_ref()?.get("Nats-Msg-Id")?.as_str();
    let (subject, ply) = id.rsplit_once(':')?;
    let board = subject.rsplit('.').next()?.parse().ok()?;
    let ply: usize = ply.parse().ok()?;
    (board > 0 && ply > 0).then_some((board, ply))
}

/// One board's recorder, simulated.
struct BoardJob {
    round: Arc<Round>,
    number: u32,
    subject: String,
    js: jetstream::Context,
}

/// What one board published.
struct Played {
    number: u32,
    sent: Vec<Instant>,
    messages: u64,
    bytes: u64,
    retries: u64,
}

impl BoardJob {
    /// Publishes the board's start, then each move at its time, the last with the
    /// result.
    async fn play(
        self,
        moves: Vec<<Chess as Rules>::Move>,
        first: Instant,
        mut gap: impl FnMut() -> Duration,
    ) -> Result<Played, NatsError> {
        let Some(board) = self.round.board(self.number) else {
            return Err(NatsError::Start(std::io::Error::other("no such board")));
        };
        let mut out = Played {
            number: self.number,
            sent: Vec::with_capacity(moves.len()),
            messages: 0,
            bytes: 0,
            retries: 0,
        };
        let mut g = Chess::new();
        let mut record = PgnRecord::start(&g, &board.tags);
        let corners = corners_of(self.number);
        let mut at = first;
        self.send(&board, &record, 0, Vec::new(), &mut out).await?;
        for (i, m) in moves.iter().enumerate() {
            let pause = gap();
            at += pause;
            tokio::time::sleep_until(at.into()).await;
            let ply = i + 1;
            let (san, uci) = (g.notation(m), g.move_id(m));
            record.push(&g, m, Some(pause.as_secs_f64()));
            g.play_legal(m);
            if ply == moves.len() {
                record.result = RESULT.into();
            }
            board.change(|s| {
                s.status = Status::InSync;
                s.corners = Some(corners);
            });
            let event = Event::Move {
                time: (at - first).as_secs_f64(),
                ply,
                san,
                uci,
                confidence: 0.97,
                assumed: false,
                alternatives: Vec::new(),
            };
            let mut json = serde_json::to_value(&event).unwrap_or_default();
            if let Some(o) = json.as_object_mut() {
                o.insert("board".into(), self.number.into());
            }
            self.send(&board, &record, ply, vec![json], &mut out)
                .await?;
        }
        Ok(out)
    }

    /// The record written, the board's message built from it and published (again
    /// until acknowledged).
    async fn send(
        &self,
        board: &crate::round::Board,
        record: &PgnRecord,
        ply: usize,
        events: Vec<serde_json::Value>,
        out: &mut Played,
    ) -> Result<(), NatsError> {
        // A recorder waits for its disk once a move; a thousand boards' moves on
        // the one disk here would measure the disk, not the broadcast.
        write_atomic_unsynced(&board.path, &record.render()).map_err(|source| {
            NatsError::Outbox {
                path: board.path.clone(),
                source,
            }
        })?;
        let text = wire(&self.round, board, ply as u64, events);
        out.bytes += text.len() as u64;
        out.messages += 1;
        if ply > 0 {
            out.sent.push(Instant::now());
        }
        loop {
            let msg = PublishMessage::build()
                .payload(text.clone().into())
                .message_id(format!("{}:{ply}", self.subject));
            let acked = match self.js.send_publish(self.subject.clone(), msg).await {
                Ok(ack) => ack.await.is_ok(),
                Err(_) => false,
            };
            if acked {
                return Ok(());
            }
            out.retries += 1;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Corners of a board's grid in its camera's view, a little different per board.
fn corners_of(n: u32) -> [[f64; 2]; 4] {
    let d = f64::from(n % 7);
    [
        [101.5 + d, 62.25],
        [538.75, 60.5 + d],
        [560.25 - d, 431.0],
        [80.5, 428.75 - d],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_games_are_legal_long_enough_and_repeatable() {
        let a = random_game(7, 3, 80);
        assert_eq!(a.len(), 80);
        assert_eq!(a, random_game(7, 3, 80));
        assert_ne!(a, random_game(7, 4, 80));
        let mut g = Chess::new();
        for m in &a {
            g.play(m).unwrap();
        }
        assert!(g.outcome().is_none());
    }
}
