//! A board's recorder as the round sees it: its events change the board's live
//! state and go out to the pages; the arbiter's actions come back to it as
//! commands between frames; an edit of the record (a result, a take-back) stops
//! it, is made on disk, and the game goes on from the record.

use std::sync::Arc;

use super::live::{AlertKind, Board, Edit, Queued, Reply, Round, Status};
use crate::capture::FrameSource;
use crate::classify::Classifier;
use crate::pipeline::{self, clock, Command, Event, EventSink, RecordJob, RecordSummary};
use crate::record::log::GameRecord;
use crate::record::resume::{Resume, Resumed};

/// A move whose confidence is under this is raised for the arbiter to confirm.
pub const UNSURE_BELOW: f64 = 0.9;

/// The events of one board's recorder.
pub struct BoardSink<'a, 'b> {
    round: &'a Round,
    board: &'a Board,
    /// Where the events go besides (the command line's presenter).
    inner: Option<&'a mut (dyn EventSink + 'b)>,
    /// The record on disk changed since the page last read it.
    dirty: bool,
    /// An edit that stopped the recorder, to be made once it has, and where its
    /// outcome goes.
    pending: Option<(Edit, Reply)>,
}

impl<'a, 'b> BoardSink<'a, 'b> {
    pub fn new(
        round: &'a Round,
        board: &'a Board,
        inner: Option<&'a mut (dyn EventSink + 'b)>,
    ) -> Self {
        BoardSink {
            round,
            board,
            inner,
            dirty: false,
            pending: None,
        }
    }

    fn status(&self, status: Status) {
        self.board.change(|s| {
            s.status = status;
            s.detail = None;
        });
    }
}

impl EventSink for BoardSink<'_, '_> {
    fn emit(&mut self, event: Event) {
        if let Some(inner) = self.inner.as_deref_mut() {
            inner.emit(event.clone());
        }
        let b = self.board;
        let mut changed = true;
        match &event {
            Event::Progress { .. }
            | Event::Readings { .. }
            | Event::Looked { .. }
            | Event::BoardFound { .. }
            | Event::Resuming { .. } => return,
            Event::Orientation { .. } => self.status(Status::InSync),
            Event::Move {
                ply,
                san,
                confidence,
                assumed,
                alternatives,
                ..
            } => {
                self.dirty = true;
                if b.state().status != Status::InSync {
                    self.status(Status::InSync);
                }
                if *assumed || *confidence < UNSURE_BELOW || !alternatives.is_empty() {
                    let why = if *assumed {
                        "the promoted piece is assumed".to_string()
                    } else if !alternatives.is_empty() {
                        format!("the views also support {}", alternatives.join(" or "))
                    } else {
                        format!("confidence {confidence:.2}")
                    };
                    b.alert(
                        AlertKind::Unsure,
                        format!("move {ply} {san} ({why})"),
                        Some(*ply),
                    );
                }
            }
            Event::Unexplained { time, squares } => {
                self.dirty = true;
                self.status(Status::OutOfSync);
                b.alert(
                    AlertKind::Unexplained,
                    format!(
                        "unexplained change at {}: {} (possible illegal move; recording waits for a legal position)",
                        clock(*time),
                        squares.join(",")
                    ),
                    None,
                );
            }
            Event::IllegalMove {
                time, text, waits, ..
            }
            | Event::PieceRemoved {
                time, text, waits, ..
            }
            | Event::Displaced {
                time, text, waits, ..
            }
            | Event::Unreadable {
                time, text, waits, ..
            } => {
                self.dirty = true;
                if *waits {
                    self.status(Status::OutOfSync);
                }
                let then = if *waits {
                    "recording waits for a legal position"
                } else {
                    "not a move; recording goes on"
                };
                b.alert(
                    AlertKind::Unexplained,
                    format!("{text} at {} ({then})", clock(*time)),
                    None,
                );
            }
            Event::NotStart { time, advice, .. } => {
                self.status(Status::Waiting);
                b.alert(
                    AlertKind::Warning,
                    format!(
                        "the view at {} is not the position the game starts from: {advice}",
                        clock(*time)
                    ),
                    None,
                );
            }
            Event::Past { .. } => self.status(Status::Waiting),
            Event::TakenUp { .. } => self.status(Status::InSync),
            Event::Joined { time, plies, .. } => {
                self.status(Status::InSync);
                b.alert(
                    AlertKind::Unsure,
                    format!(
                        "the game was under way at {}: {} half-moves reconstructed from that view, not seen",
                        clock(*time),
                        plies.len()
                    ),
                    None,
                );
            }
            Event::SeenTogether { first, last, .. } => {
                b.alert(
                    AlertKind::Unsure,
                    format!("moves {first}-{last} were seen together (no view between them)"),
                    Some(*last),
                );
            }
            Event::DrawClaimable { time, ply, reason } => {
                self.dirty = true;
                b.alert(
                    AlertKind::DrawClaim,
                    format!(
                        "a draw may be claimed after move {ply} ({reason}) at {}; the game goes on until a result is set",
                        clock(*time)
                    ),
                    Some(*ply),
                );
            }
            Event::NewGame {
                time, game, after, ..
            } => {
                self.dirty = true;
                self.status(Status::InSync);
                b.alert(
                    AlertKind::Unexplained,
                    format!(
                        "play went on after an irregularity ({after}) at {}: the record goes on as game {game} of the board's file",
                        clock(*time)
                    ),
                    None,
                );
            }
            Event::Resynced { time, .. } => {
                self.dirty = true;
                self.status(Status::InSync);
                b.change(|s| {
                    for a in s
                        .alerts
                        .iter_mut()
                        .filter(|a| a.open && a.kind == AlertKind::Unexplained)
                    {
                        if a.resolution.is_none() {
                            a.resolution = Some(format!("back in sync at {}", clock(*time)));
                        }
                    }
                });
            }
            Event::Corrected { ply, san, .. } => {
                self.dirty = true;
                b.alert(
                    AlertKind::Correction,
                    format!("move {ply} corrected to {san}: later play shows which piece the pawn became"),
                    Some(*ply),
                );
            }
            Event::Regrid { corners, .. }
            | Event::Relocated { corners, .. }
            | Event::PlacedAgain { corners, .. } => {
                self.dirty = true;
                let c = *corners;
                b.change(|s| s.corners = Some(c));
                if matches!(event, Event::Relocated { .. }) {
                    b.alert(
                        AlertKind::Warning,
                        "the board moved too far to follow and was found again".into(),
                        None,
                    );
                }
                if matches!(event, Event::PlacedAgain { .. }) {
                    b.alert(
                        AlertKind::Warning,
                        "the readings fit no position through the grid used: it was placed again"
                            .into(),
                        None,
                    );
                }
            }
            Event::GridSnapped { corners, .. } => {
                let c = *corners;
                b.change(|s| s.corners = Some(c));
            }
            Event::BoardLost { time } => {
                self.status(Status::Waiting);
                b.alert(
                    AlertKind::BoardLost,
                    format!(
                        "the board moved and was not found again at {}; recording waits for it",
                        clock(*time)
                    ),
                    None,
                );
            }
            Event::SourceWarning { message } => {
                b.alert(AlertKind::Warning, message.clone(), None);
            }
            Event::Start { .. } | Event::Change { .. } => changed = false,
        }
        let mut json = serde_json::to_value(&event).unwrap_or_default();
        if let Some(o) = json.as_object_mut() {
            o.insert("board".into(), b.number().into());
        }
        self.round.send(super::live::Update::Record(
            b.number(),
            Arc::from(json.to_string()),
        ));
        if changed {
            self.round.publish(b);
        }
    }

    fn poll(&mut self) -> Option<Command> {
        // Polled between frames: whatever the last still view changed is on disk.
        if std::mem::take(&mut self.dirty) {
            let _ = self.round.refresh(self.board);
        }
        if let Some(c) = self.inner.as_deref_mut().and_then(|i| i.poll()) {
            return Some(c);
        }
        if self.round.is_stopping() {
            return Some(Command::Stop);
        }
        match self.board.next_queued()? {
            Queued::Note(text) => {
                self.dirty = true;
                Some(Command::Note(text))
            }
            Queued::Edit(edit, reply) => {
                self.pending = Some((edit, reply));
                // Moves still held as likely are not committed: the recording goes
                // on from the edited record and reads the board again.
                Some(Command::Interrupt)
            }
        }
    }
}

/// How a board's recording ended.
#[derive(Debug, Default)]
pub struct BoardEnd {
    /// The game has a result (else the input ended, and the game may go on
    /// another time).
    pub finished: bool,
    /// The last recording's summary, when one ran.
    pub summary: Option<RecordSummary>,
}

/// Records a board's game from `source`: taken up from its record on disk when
/// there is one (a new record from `start` otherwise), again after every take-back,
/// until the input ends or the game has a result. `inner` hears the events too.
pub fn record_board<R: Resume>(
    round: &Round,
    board: &Board,
    start: R,
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
    mut inner: Option<&mut dyn EventSink>,
) -> anyhow::Result<BoardEnd> {
    // The move an arbiter just took back: the recording that takes the game up
    // next marks what it finds.
    let mut taken_back: Option<String> = None;
    // A recording stopped for an edit starts again from the board as it stands:
    // the last still moments are read again (a video may have no frame left).
    let mut source = crate::capture::Rewind::new(source, job.track.quiet_s + 1.0);
    loop {
        // From here on the arbiter's actions wait for the recorder, so that none is
        // made on disk between reading the record and writing it again.
        let running = Running::start(round, board);
        let fresh = board.take_fresh();
        let (earlier, resumed) = match (fresh, board.read_file(&start)?) {
            (false, Some(r)) => r,
            _ => (
                Vec::new(),
                Resumed::fresh(start.clone(), R::Record::start(&start, &job.tags)),
            ),
        };
        if resumed.finished() {
            drop(running);
            board.change(|s| s.status = Status::Finished);
            round.refresh(board)?;
            return Ok(BoardEnd {
                finished: true,
                summary: None,
            });
        }
        board.change(|s| {
            s.status = Status::Waiting;
            s.detail = None;
        });
        round.publish(board);
        let mut sink = BoardSink::new(round, board, inner.as_deref_mut());
        let before = pipeline::Before {
            taken_back: taken_back.clone(),
            ..resumed.before()
        };
        let result = pipeline::record_resumed(
            resumed.game,
            resumed.record,
            earlier,
            before,
            classifier,
            &mut source,
            job,
            &mut sink,
        );
        let pending = sink.pending.take();
        // What the arbiter sent as the recorder stopped is made on disk now.
        drop(running);
        round.refresh(board)?;
        let summary = result?;
        if summary.taken_up {
            taken_back = None;
        }
        let Some((edit, reply)) = pending else {
            let finished = board.state().result != "*";
            board.change(|s| {
                s.status = if finished {
                    Status::Finished
                } else {
                    Status::Ended
                }
            });
            round.publish(board);
            return Ok(BoardEnd {
                finished,
                summary: Some(summary),
            });
        };
        let running = Running::start(round, board);
        let applied = round.apply(board, &Queued::Edit(edit.clone(), reply.clone()));
        drop(running);
        round.refresh(board)?;
        reply.send(
            applied
                .as_ref()
                .map(|d| d.said.clone())
                .map_err(|e| format!("{e:#}")),
        );
        if let Some(san) = applied.as_ref().ok().and_then(|d| d.taken_back.clone()) {
            taken_back = Some(san);
        }
        source.rewind();
        if let Err(e) = &applied {
            // Refused (a result the rules' own contradicts) or failed: said on
            // the page, and the game goes on from its record.
            board.alert(
                AlertKind::Error,
                format!("an arbiter's action failed: {e:#}"),
                None,
            );
            round.publish(board);
        }
        if applied.is_ok() && matches!(&edit, Edit::SetResult { token, .. } if token != "*") {
            board.change(|s| s.status = Status::Finished);
            round.publish(board);
            return Ok(BoardEnd {
                finished: true,
                summary: Some(summary),
            });
        }
        if round.is_stopping() {
            board.change(|s| s.status = Status::Ended);
            round.publish(board);
            return Ok(BoardEnd {
                finished: false,
                summary: Some(summary),
            });
        }
    }
}

/// While held, the board's recorder counts as running: arbiter actions are queued
/// for it. Dropped, what was queued is made on disk.
struct Running<'a> {
    round: &'a Round,
    board: &'a Board,
}

impl<'a> Running<'a> {
    fn start(round: &'a Round, board: &'a Board) -> Running<'a> {
        board.set_running(true);
        Running { round, board }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        for q in self.board.set_running(false) {
            let applied = self.round.apply(self.board, &q);
            if let Queued::Edit(_, reply) = &q {
                let _ = self.round.refresh(self.board);
                reply.send(
                    applied
                        .as_ref()
                        .map(|d| d.said.clone())
                        .map_err(|e| format!("{e:#}")),
                );
            }
            if let Err(e) = applied {
                self.board.alert(
                    AlertKind::Error,
                    format!("an arbiter's action failed: {e:#}"),
                    None,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::MemorySource;
    use crate::classify::OccupancyModel;
    use crate::geometry::BoardPose;
    use crate::infer::WhiteSide;
    use crate::record::log::Tags;
    use crate::record::pgn::{parse_pgn, PgnRecord};
    use crate::round::{Action, BoardSpec, EventInfo};
    use crate::rules::chess::Chess;
    use crate::rules::Rules;

    #[test]
    fn a_take_back_stops_the_recorder_edits_the_record_and_the_game_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = Chess::new();
        let mut rec = PgnRecord::start(&g, &Tags::default());
        for u in ["e2e4", "e7e5"] {
            let m = g.parse_uci(u).unwrap();
            GameRecord::push(&mut rec, &g, &m, None);
            g.play(&m).unwrap();
        }
        std::fs::write(dir.path().join("board-1.pgn"), rec.render()).unwrap();
        let spec = BoardSpec {
            number: 1,
            input: "b1.mp4".into(),
            ..BoardSpec::default()
        };
        let info = EventInfo {
            name: "x".into(),
            ..EventInfo::default()
        };
        let round = Round::new(
            info,
            "2026.01.01".into(),
            vec![spec],
            dir.path(),
            "t".into(),
        )
        .unwrap();
        let board = round.board(1).unwrap();
        // The recorder counts as running: the take-back waits for it, and its
        // answer says what the record ends with once it is made.
        board.set_running(true);
        let asked = {
            let round = round.clone();
            std::thread::spawn(move || round.act(1, Action::TakeBack { ply: Some(2) }))
        };
        while board.state().sans.len() == 2 && !asked.is_finished() {
            if lock_queue_len(board) > 0 {
                break;
            }
            std::thread::yield_now();
        }
        assert_eq!(board.state().sans.len(), 2, "not yet made");

        let model =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/occupancy.onnx");
        let mut classifier = Classifier::new(OccupancyModel::load(&model).unwrap());
        // An input that has ended: the recorder polls once, stops for the edit,
        // takes the game up again from the record and ends with the input.
        let mut source = MemorySource::new(Vec::new(), 15.0);
        let job = RecordJob {
            timeline: Default::default(),
            pose: BoardPose::new(
                "8x8".parse().unwrap(),
                "10,10 200,10 200,200 10,200".parse().unwrap(),
            ),
            white: Some(WhiteSide::Bottom),
            track: Default::default(),
            infer: Default::default(),
            tags: board.tags.clone(),
            out: board.path.clone(),
            debug: false,
            progress: false,
            adapt: true,
        };
        let end = record_board(
            &round,
            board,
            Chess::new(),
            &mut classifier,
            &mut source,
            &job,
            None,
        )
        .unwrap();
        assert!(!end.finished);
        let done = asked.join().unwrap().unwrap();
        assert!(
            done.contains("took back move 2 (e5)")
                && done.contains("the record now ends with 1.e4"),
            "{done}"
        );
        let text = std::fs::read_to_string(&board.path).unwrap();
        let rec = parse_pgn(&text).unwrap();
        assert_eq!(rec.ucis(), ["e2e4"], "{text}");
        assert!(text.contains("took back move 2 (e5)"), "{text}");
        assert_eq!(board.state().sans, ["e4"]);
        assert_eq!(board.state().status, Status::Ended);
        assert!(round.pgn().contains("took back"));
    }

    /// Actions waiting for the board's recorder.
    fn lock_queue_len(board: &Board) -> usize {
        board.queued_len()
    }
}
