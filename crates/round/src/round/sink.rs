//! A board's recorder as the round sees it: its events change the board's live
//! state and go out to the pages; the arbiter's actions come back to it as
//! commands between frames; an edit of the record (a result, a take-back) stops
//! it, is made on disk, and the game goes on from the record.

use std::sync::Arc;

use super::error::{said, BoardError, RecordError};
use super::live::{AlertKind, Board, Edit, Queued, Reply, Round, Status};
use crate::capture::FrameSource;
use crate::classify::Classifier;
use crate::pipeline::{self, clock, Command, Event, EventSink, RecordJob, RecordSummary};
use crate::record::GameRecord;
use crate::record::{Resume, Resumed};

/// A move whose confidence is under this is raised for the arbiter to confirm.
pub(crate) const UNSURE_BELOW: f64 = 0.9;

/// The events of one board's recorder.
pub(crate) struct BoardSink<'a, 'b> {
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
    /// A sink for `board` of `round`, passing every event on to `inner` too.
    pub(crate) fn new(
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

    /// Changes the board's live state (status, alerts, corners) as the event
    /// says; whether it changed.
    fn follow(&mut self, event: &Event) -> bool {
        let b = self.board;
        match event {
            Event::Progress { .. }
            | Event::Readings { .. }
            | Event::Start { .. }
            | Event::Change { .. }
            | Event::Looked { .. }
            | Event::BoardFound { .. }
            | Event::Resuming { .. } => return false,
            Event::Orientation { .. } | Event::TakenUp { .. } => self.status(Status::InSync),
            Event::Move {
                ply,
                san,
                confidence,
                assumed,
                alternatives,
                ..
            } => self.moved(*ply, san, *confidence, *assumed, alternatives),
            Event::Unexplained { time, squares } => self.unexplained(*time, squares),
            Event::IllegalMove {
                time, text, waits, ..
            }
            | Event::PieceRemoved {
                time, text, waits, ..
            }
            | Event::Displaced {
                time, text, waits, ..
            }
            | Event::NotTakenOff {
                time, text, waits, ..
            }
            | Event::Unreadable {
                time, text, waits, ..
            } => self.irregular(*time, text, *waits),
            Event::NotStart { time, advice, .. } => self.not_start(*time, advice),
            Event::Past { .. } => self.status(Status::Waiting),
            Event::Joined { time, plies, .. } => self.joined(*time, plies.len()),
            Event::SeenTogether { first, last, .. } => {
                b.alert(
                    AlertKind::Unsure,
                    format!("moves {first}-{last} were seen together (no view between them)"),
                    Some(*last),
                );
            }
            Event::DrawClaimable { time, ply, reason } => self.draw_claimable(*time, *ply, reason),
            Event::NewGame {
                time, game, after, ..
            } => self.new_game(*time, *game, after),
            Event::Resynced { time, .. } => self.resynced(*time),
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
            | Event::PlacedAgain { corners, .. } => self.grid_moved(event, *corners),
            Event::GridSnapped { corners, .. } => {
                let c = *corners;
                b.change(|s| s.corners = Some(c));
            }
            Event::BoardLost { time } => self.board_lost(*time),
            Event::SourceWarning { message } => {
                b.alert(AlertKind::Warning, message.clone(), None);
            }
        }
        true
    }

    /// Sends the event to the pages (with the board's number) and, when it
    /// changed the board, the board's new state.
    fn forward(&self, event: &Event, changed: bool) {
        let b = self.board;
        let mut json = serde_json::to_value(event).unwrap_or_default();
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

    /// A move recorded; raised for the arbiter when it is not certain.
    fn moved(
        &mut self,
        ply: usize,
        san: &str,
        confidence: f64,
        assumed: bool,
        alternatives: &[String],
    ) {
        self.dirty = true;
        if self.board.state().status != Status::InSync {
            self.status(Status::InSync);
        }
        if assumed || confidence < UNSURE_BELOW || !alternatives.is_empty() {
            let why = if assumed {
                "the promoted piece is assumed".to_string()
            } else if !alternatives.is_empty() {
                format!("the views also support {}", alternatives.join(" or "))
            } else {
                format!("confidence {confidence:.2}")
            };
            self.board.alert(
                AlertKind::Unsure,
                format!("move {ply} {san} ({why})"),
                Some(ply),
            );
        }
    }

    /// A change no legal move explains: recording waits.
    fn unexplained(&mut self, time: f64, squares: &[String]) {
        self.dirty = true;
        self.status(Status::OutOfSync);
        self.board.alert(
            AlertKind::Unexplained,
            format!(
                "unexplained change at {}: {} (possible illegal move; recording waits for a legal position)",
                clock(time),
                squares.join(",")
            ),
            None,
        );
    }

    /// An illegal move, a piece removed or displaced, a view unreadable; `waits`:
    /// recording waits for a legal position.
    fn irregular(&mut self, time: f64, text: &str, waits: bool) {
        self.dirty = true;
        if waits {
            self.status(Status::OutOfSync);
        }
        let then = if waits {
            "recording waits for a legal position"
        } else {
            "not a move; recording goes on"
        };
        self.board.alert(
            AlertKind::Unexplained,
            format!("{text} at {} ({then})", clock(time)),
            None,
        );
    }

    /// The view is not the position the game starts from.
    fn not_start(&mut self, time: f64, advice: &str) {
        self.status(Status::Waiting);
        self.board.alert(
            AlertKind::Warning,
            format!(
                "the view at {} is not the position the game starts from: {advice}",
                clock(time)
            ),
            None,
        );
    }

    /// The game was joined under way: its first `plies` half-moves reconstructed.
    fn joined(&mut self, time: f64, plies: usize) {
        self.status(Status::InSync);
        self.board.alert(
            AlertKind::Unsure,
            format!(
                "the game was under way at {}: {plies} half-moves reconstructed from that view, not seen",
                clock(time),
            ),
            None,
        );
    }

    /// A draw the players may claim: no result until the arbiter sets one.
    fn draw_claimable(&mut self, time: f64, ply: usize, reason: &str) {
        self.dirty = true;
        self.board.alert(
            AlertKind::DrawClaim,
            format!(
                "a draw may be claimed after move {ply} ({reason}) at {}; the game goes on until a result is set",
                clock(time)
            ),
            Some(ply),
        );
    }

    /// Play went on after an irregularity: the record goes on as another game.
    fn new_game(&mut self, time: f64, game: usize, after: &str) {
        self.dirty = true;
        self.status(Status::InSync);
        self.board.alert(
            AlertKind::Unexplained,
            format!(
                "play went on after an irregularity ({after}) at {}: the record goes on as game {game} of the board's file",
                clock(time)
            ),
            None,
        );
    }

    /// Back in sync: the open unexplained alerts say when.
    fn resynced(&mut self, time: f64) {
        self.dirty = true;
        self.status(Status::InSync);
        self.board.change(|s| {
            for a in s
                .alerts
                .iter_mut()
                .filter(|a| a.open && a.kind == AlertKind::Unexplained)
            {
                if a.resolution.is_none() {
                    a.resolution = Some(format!("back in sync at {}", clock(time)));
                }
            }
        });
    }

    /// The grid moved (followed, found again or placed again).
    fn grid_moved(&mut self, event: &Event, corners: [[f64; 2]; 4]) {
        self.dirty = true;
        self.board.change(|s| s.corners = Some(corners));
        if matches!(event, Event::Relocated { .. }) {
            self.board.alert(
                AlertKind::Warning,
                "the board moved too far to follow and was found again".into(),
                None,
            );
        }
        if matches!(event, Event::PlacedAgain { .. }) {
            self.board.alert(
                AlertKind::Warning,
                "the readings fit no position through the grid used: it was placed again".into(),
                None,
            );
        }
    }

    /// The board left the view: recording waits for it.
    fn board_lost(&mut self, time: f64) {
        self.status(Status::Waiting);
        self.board.alert(
            AlertKind::BoardLost,
            format!(
                "the board moved and was not found again at {}; recording waits for it",
                clock(time)
            ),
            None,
        );
    }
}

impl EventSink for BoardSink<'_, '_> {
    fn emit(&mut self, event: Event) {
        if let Some(inner) = self.inner.as_deref_mut() {
            inner.emit(event.clone());
        }
        // Progress and readings are the presenter's alone: the pages never hear
        // of them.
        if matches!(event, Event::Progress { .. } | Event::Readings { .. }) {
            return;
        }
        let changed = self.follow(&event);
        self.forward(&event, changed);
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
pub(crate) struct BoardEnd {
    /// The game has a result (else the input ended, and the game may go on
    /// another time).
    pub(crate) finished: bool,
    /// The last recording's summary, when one ran.
    pub(crate) summary: Option<RecordSummary>,
}

/// Records a board's game from `source`: taken up from its record on disk when
/// there is one (a new record from `start` otherwise), again after every take-back,
/// until the input ends or the game has a result. `inner` hears the events too.
pub(crate) fn record_board<R: Resume>(
    round: &Round,
    board: &Board,
    start: R,
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
    mut inner: Option<&mut dyn EventSink>,
) -> Result<BoardEnd, BoardError> {
    // The move an arbiter just took back: the recording that takes the game up
    // next marks what it finds.
    let mut taken_back: Option<String> = None;
    // A recording stopped for an edit starts again from the board as it stands:
    // the last still moments are read again (a video may have no frame left).
    let mut source = super::rewind::Rewind::new(source, job.track.quiet_s + 1.0);
    loop {
        // From here on the arbiter's actions wait for the recorder, so that none is
        // made on disk between reading the record and writing it again.
        let running = Running::start(round, board);
        let (earlier, resumed) = take_up(board, &start, job)?;
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
        let summary = result.map_err(|e| BoardError::Recording(e.into()))?;
        if summary.taken_up {
            taken_back = None;
        }
        let Some((edit, reply)) = pending else {
            let status = if board.state().result != "*" {
                Status::Finished
            } else {
                Status::Ended
            };
            return Ok(end_with(round, board, status, summary));
        };
        let made = make_edit(round, board, &edit, &reply, &mut taken_back)?;
        source.rewind();
        if made && matches!(&edit, Edit::SetResult { token, .. } if token != "*") {
            return Ok(end_with(round, board, Status::Finished, summary));
        }
        if round.is_stopping() {
            return Ok(end_with(round, board, Status::Ended, summary));
        }
    }
}

/// The record a recording goes on with: the last game on disk (the games before
/// it kept), or a new one from `start` when there is none or the board starts
/// afresh.
fn take_up<R: Resume>(
    board: &Board,
    start: &R,
    job: &RecordJob,
) -> Result<(Vec<String>, Resumed<R>), RecordError> {
    let fresh = board.take_fresh();
    Ok(match (fresh, board.read_file(start)?) {
        (false, Some(r)) => r,
        _ => (
            Vec::new(),
            Resumed::fresh(start.clone(), R::Record::start(start, &job.tags)),
        ),
    })
}

/// Makes on disk the edit that stopped the recorder and hands its outcome to
/// the arbiter who asked; a failure is said on the page too. Returns whether it
/// was made; `taken_back` becomes the move it took back, when it took one.
fn make_edit(
    round: &Round,
    board: &Board,
    edit: &Edit,
    reply: &Reply,
    taken_back: &mut Option<String>,
) -> Result<bool, RecordError> {
    let running = Running::start(round, board);
    let applied = round.apply(board, &Queued::Edit(edit.clone(), reply.clone()));
    drop(running);
    round.refresh(board)?;
    let failed = applied.as_ref().err().map(failure);
    if let Some(san) = applied.as_ref().ok().and_then(|d| d.taken_back.clone()) {
        *taken_back = Some(san);
    }
    reply.send(applied.map(|d| d.said));
    if let Some(text) = failed {
        // Refused (a result the rules' own contradicts) or failed: said on the
        // page, and the game goes on from its record.
        board.alert(AlertKind::Error, text, None);
        round.publish(board);
        return Ok(false);
    }
    Ok(true)
}

/// The board's recording ends with `status`, `Finished` when the game has a
/// result; the pages hear of it.
fn end_with(round: &Round, board: &Board, status: Status, summary: RecordSummary) -> BoardEnd {
    board.change(|s| s.status = status);
    round.publish(board);
    BoardEnd {
        finished: status == Status::Finished,
        summary: Some(summary),
    }
}

/// The alert an arbiter's action that failed on the record raises.
fn failure(e: &RecordError) -> String {
    format!("an arbiter's action failed: {}", said(e))
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
            let failed = applied.as_ref().err().map(failure);
            if let Queued::Edit(_, reply) = &q {
                let _ = self.round.refresh(self.board);
                reply.send(applied.map(|d| d.said));
            }
            if let Some(text) = failed {
                self.board.alert(AlertKind::Error, text, None);
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
    use crate::record::parse_pgn;
    use crate::round::{Action, AlertKind, BoardSpec, EventInfo, GameKind};
    use crate::rules::chess::Chess;

    /// A round of board 1 alone, its records in `dir`.
    fn one_board_round(dir: &std::path::Path, game: Option<GameKind>) -> std::sync::Arc<Round> {
        let spec = BoardSpec {
            number: 1,
            game,
            input: "b1.mp4".into(),
            ..BoardSpec::default()
        };
        let info = EventInfo {
            name: "x".into(),
            ..EventInfo::default()
        };
        Round::new(info, "2026.01.01".into(), vec![spec], dir, "t".into()).expect("a round")
    }

    #[test]
    fn a_take_back_stops_the_recorder_edits_the_record_and_the_game_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("board-1.pgn"),
            crate::round::pgn_after(&["e2e4", "e7e5"]),
        )
        .unwrap();
        let round = one_board_round(dir.path(), None);
        let board = &round.board(1).unwrap();
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
        // The take-back is the arbiter's: said in the arbiter's round PGN only.
        assert!(round.arbiter_pgn().contains("took back"));
        assert!(!round.pgn().contains("took back"));
    }

    /// Actions waiting for the board's recorder.
    fn lock_queue_len(board: &Board) -> usize {
        board.queued_len()
    }

    // A move the views also support another for is raised on the live page for
    // the arbiter to check, naming the others.
    fn a_move(ply: usize, san: &str, alternatives: &[&str]) -> Event {
        Event::Move {
            time: ply as f64,
            ply,
            san: san.into(),
            uci: "c8c1".into(),
            confidence: 0.9999,
            assumed: false,
            alternatives: alternatives.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn a_move_with_alternatives_raises_an_unsure_alert_naming_them() {
        let dir = tempfile::tempdir().expect("temp dir");
        let round = one_board_round(dir.path(), Some(GameKind::Chess));
        let board = &round.board(1).expect("board 1");
        let mut sink = BoardSink::new(&round, board, None);
        // Clear and confident: no alert.
        sink.emit(a_move(139, "Kg2", &[]));
        assert!(
            board.state().alerts.is_empty(),
            "{:?}",
            board.state().alerts
        );
        // As confident, but the views also support Rd1+.
        sink.emit(a_move(140, "Rc1", &["Rd1+"]));
        let alerts = board.state().alerts;
        assert_eq!(alerts.len(), 1, "{alerts:?}");
        assert_eq!(alerts[0].kind, AlertKind::Unsure);
        assert_eq!(alerts[0].ply, Some(140));
        assert!(
            alerts[0].text.contains("move 140 Rc1") && alerts[0].text.contains("Rd1+"),
            "{}",
            alerts[0].text
        );
    }
}
