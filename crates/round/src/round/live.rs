//! The round as it stands, shared by the recorder threads and the server: per
//! board its status, moves, diagram, alerts and record text; the combined round
//! PGN; a broadcast of every change for live pages.

use crate::lock;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::diagram::Diagram;
use super::error::{said, RecordError};
use super::file::{BoardSpec, EventInfo};
use super::FrameSlot;
use crate::game::{GameKind, GameSetup, GameVisitor};
use crate::record::utc_now;
use crate::record::EditError;
use crate::record::{parse_pgn, PgnRecord};
use crate::record::{write_atomic, write_atomic_unsynced};
use crate::record::{GameRecord, Tags};
use crate::record::{Resume, Resumed};
use crate::rules::Rules;

/// Where a board's recording stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Opening the input, finding the board.
    Starting,
    /// Recording, waiting for a still view it can read (or for the board, lost).
    Waiting,
    /// Recording; the board shows the recorded position.
    InSync,
    /// Recording; the board shows a change no legal move explains.
    OutOfSync,
    /// The input or the recorder failed; tried again after a pause.
    Retrying,
    /// The input ended; the game has no result yet.
    Ended,
    /// The game has a result.
    Finished,
    /// Given up after repeated failures.
    Failed,
}

impl Status {
    /// The name pages and JSON use (`in_sync`).
    pub(crate) fn key(self) -> &'static str {
        match self {
            Status::Starting => "starting",
            Status::Waiting => "waiting",
            Status::InSync => "in_sync",
            Status::OutOfSync => "out_of_sync",
            Status::Retrying => "retrying",
            Status::Ended => "ended",
            Status::Finished => "finished",
            Status::Failed => "failed",
        }
    }

    /// The status as the page shows it to people.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Status::Starting => "starting",
            Status::Waiting => "waiting",
            Status::InSync => "in sync",
            Status::OutOfSync => "out of sync",
            Status::Retrying => "retrying",
            Status::Ended => "input ended",
            Status::Finished => "finished",
            Status::Failed => "failed",
        }
    }
}

/// What an alert is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// A change no legal move explains (a possible illegal move).
    Unexplained,
    /// A move recorded without full certainty; the arbiter may confirm it.
    Unsure,
    /// An earlier move was rewritten (a promotion proved by later play).
    Correction,
    /// The board left the camera's view, or moved too far to follow.
    BoardLost,
    /// A draw the players may claim (threefold repetition, fifty moves): no
    /// result until the arbiter sets one.
    DrawClaim,
    /// Something the source reported (a photo skipped).
    Warning,
    /// The input or the recorder failed.
    Error,
}

/// Something the arbiter should see; open until acknowledged (or confirmed).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Alert {
    /// Unique within the board, counting up.
    pub id: u64,
    /// What kind of trouble it is.
    pub kind: AlertKind,
    /// What the arbiter reads.
    pub text: String,
    /// Wall-clock time it was raised, UTC.
    pub at: String,
    /// The move it concerns (1-based half-move), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ply: Option<usize>,
    /// Open until the arbiter acknowledges or confirms it.
    pub open: bool,
    /// What the arbiter did about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
}

/// A board's live state.
#[derive(Clone, Debug)]
pub struct BoardState {
    /// Where the board's recorder is.
    pub status: Status,
    /// Why it is retrying or failed.
    pub detail: Option<String>,
    /// The recorded moves in the game's notation.
    pub sans: Vec<String>,
    /// The record's result token (`*` while the game goes on).
    pub result: String,
    /// The position after the last recorded move, once there is one.
    pub diagram: Option<Diagram>,
    /// The board's alerts, oldest first.
    pub alerts: Vec<Alert>,
    /// The record as it stands on disk.
    pub record: Arc<str>,
    /// The public record, as spectators and broadcasts get it: the games'
    /// moves, results and tags, no comment (for chess, each game with its
    /// `Round` and `Board` tags, as the round PGN holds it).
    pub served: Arc<str>,
    /// The arbiter's record: the record with every comment (alerts, corrections,
    /// the arbiter's notes), tagged as `served` is.
    pub arbiter: Arc<str>,
    /// The grid's corners in the camera image, once known.
    pub corners: Option<[[f64; 2]; 4]>,
    /// The grid, once known.
    pub grid: Option<crate::geometry::GridSpec>,
    /// Counts up with every change.
    pub version: u64,
    next_alert: u64,
}

/// An arbiter's change to a record, made while the recorder is stopped.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Edit {
    /// Sets the result of the record's last game, with a comment.
    SetResult {
        /// The result token (`1-0`).
        token: String,
        /// The comment that says who set it and when.
        note: String,
    },
    /// Takes back half-move `ply` (1-based), which must be the record's last when
    /// the edit is made (and be `san`, when the page showed it): a recorder that
    /// committed another move meanwhile leaves the record as it is. `by` says who
    /// and when, for the record's comment.
    TakeBack {
        /// The half-move, from 1.
        ply: usize,
        /// The move as the page showed it, when it did.
        san: Option<String>,
        /// Who took it back and when.
        by: String,
    },
}

/// Where the outcome of a queued edit is handed back to the arbiter who asked.
#[derive(Clone, Default)]
pub(crate) struct Reply(Arc<(Mutex<Option<Outcome>>, std::sync::Condvar)>);

/// What an edit did (`Ok`, in the record's words) or why it was refused.
type Outcome = Result<String, RecordError>;

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reply")
    }
}

impl Reply {
    pub(crate) fn send(&self, outcome: Outcome) {
        let (slot, ready) = &*self.0;
        *lock(slot) = Some(outcome);
        ready.notify_all();
    }

    /// Waits up to `limit` for the outcome.
    fn wait(&self, limit: std::time::Duration) -> Option<Outcome> {
        let (slot, ready) = &*self.0;
        let guard = lock(slot);
        let (mut guard, _) = ready
            .wait_timeout_while(guard, limit, |o| o.is_none())
            .unwrap_or_else(|e| e.into_inner());
        guard.take()
    }
}

/// What waits for a running recorder.
#[derive(Clone, Debug)]
pub(crate) enum Queued {
    Note(String),
    Edit(Edit, Reply),
}

/// The folder, in the round's, of the arbiter's round PGN.
pub(crate) const ARBITER_DIR: &str = "arbiter";

/// How long an arbiter's edit waits for a running recorder to stop and make it:
/// the recorder stops between two frames.
const EDIT_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

#[derive(Default)]
struct Control {
    running: bool,
    queue: VecDeque<Queued>,
    /// The next recording starts a new record even when one exists (`record --serve`).
    fresh: bool,
}

/// One board of the round.
pub struct Board {
    /// The board's entry in the round file.
    pub spec: BoardSpec,
    /// Its record file.
    pub path: PathBuf,
    /// The tags of its record.
    pub tags: Tags,
    /// The latest camera frame, kept now and then by the recorder's source.
    pub(crate) frame: FrameSlot,
    state: Mutex<BoardState>,
    control: Mutex<Control>,
    /// Held while an arbiter's action is carried out: one at a time per board.
    acting: Mutex<()>,
}

/// A change the live pages hear of.
#[derive(Clone, Debug)]
pub enum Update {
    /// Board N's state changed.
    Board(u32),
    /// Board N's recorder reported an event (JSON, with a `board` field).
    Record(u32, Arc<str>),
    /// Every board has ended.
    End,
}

/// The whole round, shared.
pub struct Round {
    /// The round file's `[event]`.
    pub info: EventInfo,
    /// The round's date, `YYYY.MM.DD`.
    pub date: String,
    /// Where `round.pgn` is written; None for a single board (`record --serve`).
    out_dir: Option<PathBuf>,
    /// The boards, in number order: fixed for a recorder, added to as a
    /// broadcast hears of them.
    boards: RwLock<Arc<[Arc<Board>]>>,
    /// Where arbiter actions go when the boards are recorded elsewhere (a
    /// broadcast's boards, recorded on other machines).
    remote: OnceLock<Arc<dyn RemoteActs>>,
    updates: broadcast::Sender<Update>,
    /// The round PGN as last written: chess boards in number order, (public,
    /// arbiter's).
    pgn: Mutex<(Arc<str>, Arc<str>)>,
    /// The arbiter's token.
    pub token: String,
    ended: AtomicBool,
    /// Asked to stop (a signal): recorders finish their records and are not retried.
    stopping: AtomicBool,
}

/// The tags of board `spec`'s games in a round of `info` on `date`.
pub(crate) fn board_tags(info: &EventInfo, date: &str, spec: &BoardSpec) -> Tags {
    Tags {
        event: info.name.clone(),
        site: info.site.clone(),
        date: date.to_string(),
        round: if info.round.is_empty() {
            String::new()
        } else {
            format!("{}.{}", info.round, spec.number)
        },
        white: spec.white.clone(),
        black: spec.black.clone(),
        extra: match super::file::takes_player_tags(&spec.setup) {
            true => spec.player_tags(info),
            false => Vec::new(),
        },
    }
}

/// Where the arbiter's actions on boards recorded elsewhere go (a broadcast's
/// boards: to their recorders, over the network).
pub(crate) trait RemoteActs: Send + Sync {
    /// Carries out `action` on board `number` where it is recorded; what was done.
    fn act(&self, number: u32, action: &Action) -> Result<String, ActionError>;
}

impl Board {
    /// Board `spec`, its record `board-N.EXT` in `dir`.
    fn new(spec: BoardSpec, dir: &Path, tags: Tags) -> Board {
        let path = dir.join(spec.record_name());
        let text: Arc<str> = Arc::from("");
        Board {
            spec,
            path,
            tags,
            frame: FrameSlot::default(),
            state: Mutex::new(BoardState {
                status: Status::Starting,
                detail: None,
                sans: Vec::new(),
                result: "*".into(),
                diagram: None,
                alerts: Vec::new(),
                record: text.clone(),
                served: text.clone(),
                arbiter: text,
                corners: None,
                grid: None,
                version: 0,
                next_alert: 1,
            }),
            control: Mutex::new(Control::default()),
            acting: Mutex::new(()),
        }
    }

    /// The board's number.
    pub fn number(&self) -> u32 {
        self.spec.number
    }

    /// The board's game.
    pub fn kind(&self) -> GameKind {
        self.spec.game()
    }

    /// The board's game as the round file set it up: the start the page shows
    /// and the recorder records from.
    pub(crate) fn game(&self) -> &GameSetup {
        &self.spec.setup
    }

    /// A copy of the live state.
    pub fn state(&self) -> BoardState {
        lock(&self.state).clone()
    }

    /// The state's version, without copying the state (the server renders a
    /// board again only when it changed).
    pub(crate) fn version(&self) -> u64 {
        lock(&self.state).version
    }

    /// Changes the live state; the caller publishes.
    pub(crate) fn change<T>(&self, f: impl FnOnce(&mut BoardState) -> T) -> T {
        let mut s = lock(&self.state);
        s.version += 1;
        f(&mut s)
    }

    /// Sets where the board stands in its camera's view (shown on the live page).
    pub(crate) fn set_pose(&self, pose: &crate::geometry::BoardPose) {
        let corners = pose.corners().points().map(|(x, y)| [x, y]);
        self.change(|s| {
            s.corners = Some(corners);
            s.grid = Some(pose.grid());
        });
    }

    /// Whether a record with content stands on disk.
    pub(crate) fn has_record(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|m| m.len() > 0)
    }

    /// The board's record file: the games before the last (rendered as read, after
    /// an irregularity started another game) and the last one, taken up.
    pub(crate) fn read_file<R: Resume>(
        &self,
        like: &R,
    ) -> Result<Option<(Vec<String>, Resumed<R>)>, RecordError> {
        if !self.has_record() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&self.path).map_err(|source| RecordError::Read {
            path: self.path.clone(),
            source,
        })?;
        self.read_text(&text, like)
    }

    /// A record's text, as [`Board::read_file`] reads the file (none when empty).
    fn read_text<R: Resume>(
        &self,
        text: &str,
        like: &R,
    ) -> Result<Option<(Vec<String>, Resumed<R>)>, RecordError> {
        if text.is_empty() {
            return Ok(None);
        }
        let mut games = R::split_games(text);
        let last = games.pop().unwrap_or_default();
        R::read_record(&last, like)
            .map(|r| Some((games, r)))
            .map_err(|why| RecordError::TakeUp {
                board: self.number(),
                path: self.path.clone(),
                why,
            })
    }

    /// Says the recorder runs (arbiter actions are queued for it) or not (they are
    /// applied to the record at once). Returns what was queued when it stops.
    pub(crate) fn set_running(&self, running: bool) -> Vec<Queued> {
        let mut c = lock(&self.control);
        c.running = running;
        if running {
            Vec::new()
        } else {
            c.queue.drain(..).collect()
        }
    }

    /// Actions waiting for the running recorder.
    #[cfg(test)]
    pub(crate) fn queued_len(&self) -> usize {
        lock(&self.control).queue.len()
    }

    pub(crate) fn next_queued(&self) -> Option<Queued> {
        lock(&self.control).queue.pop_front()
    }

    /// The next recording starts a new record, replacing what stands on disk.
    pub(crate) fn start_fresh(&self) {
        lock(&self.control).fresh = true;
    }

    pub(crate) fn take_fresh(&self) -> bool {
        std::mem::take(&mut lock(&self.control).fresh)
    }

    /// Adds an alert; returns its id. A failure while one is still open replaces
    /// its text (one alert for a camera that keeps failing).
    pub(crate) fn alert(&self, kind: AlertKind, text: String, ply: Option<usize>) -> u64 {
        self.change(|s| {
            if kind == AlertKind::Error {
                if let Some(a) = s.alerts.iter_mut().find(|a| a.open && a.kind == kind) {
                    a.text = text;
                    a.at = utc_now();
                    return a.id;
                }
            }
            let id = s.next_alert;
            s.next_alert += 1;
            s.alerts.push(Alert {
                id,
                kind,
                text,
                at: utc_now(),
                ply,
                open: true,
                resolution: None,
            });
            id
        })
    }
}

/// Reads a record on disk into what the page shows.
fn load<R: Resume>(board: &Board, like: &R, text: Option<&str>) -> Result<(), RecordError> {
    let read = match text {
        Some(t) => board.read_text(t, like)?,
        None => board.read_file(like)?,
    };
    let Some((earlier, r)) = read else {
        return Ok(());
    };
    let mut g = r.start.clone();
    let mut before = None;
    let mut sans = Vec::new();
    for m in &r.moves {
        sans.push(g.notation(m));
        before = Some(g.clone());
        g.play_legal(m);
    }
    let diagram = Diagram::of(board.kind(), &g, before.as_ref());
    // A PGN record as read, so that it is tagged without being read again.
    let read = r
        .record
        .as_pgn()
        .map(|last| (earlier.clone(), last.clone()));
    // The page shows the game going on; the record served holds every game.
    let text: Arc<str> = Arc::from(
        crate::record::RecordFile::<R>::after(earlier, r.record, &Default::default()).render(),
    );
    let (served, arbiter): (Arc<str>, Arc<str>) = if board.kind().extension() == "pgn" {
        let [public, arbiter] = match read {
            Some((earlier, last)) => {
                let mut games: Vec<PgnRecord> =
                    earlier.iter().map(|g| game_or_stub(board, g)).collect();
                games.push(last);
                tag_games(board, games)
            }
            None => tagged_pgns(board, &text),
        };
        (Arc::from(public), Arc::from(arbiter))
    } else {
        (Arc::from(public_games(&text, like)), text.clone())
    };
    board.change(|s| {
        s.sans = sans;
        s.result = r.result.clone();
        s.diagram = Some(diagram);
        s.record = text;
        s.served = served;
        s.arbiter = arbiter;
    });
    Ok(())
}

/// The start position a board's game is drawn from before it has a record.
fn show_start<R: Rules>(board: &Board, start: &R) {
    let d = Diagram::of(board.kind(), start, None);
    board.change(|s| {
        if s.diagram.is_none() {
            s.diagram = Some(d);
        }
    });
}

/// A record file's games without their comments.
fn public_games<R: Resume>(text: &str, like: &R) -> String {
    let mut out = String::new();
    for game in R::split_games(text) {
        // A game that cannot be read again is left out rather than given with
        // its comments.
        let Ok(r) = R::read_record(&game, like) else {
            continue;
        };
        let mut rec = r.record;
        rec.drop_comments();
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(rec.render().trim_end());
        out.push('\n');
    }
    out
}

/// Who a record is for: spectators and broadcasts (the games only), or the
/// arbiter (every comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Audience {
    /// Moves, results and the tags Lichess relays read.
    Public,
    /// The record with every comment.
    Arbiter,
}

/// The tags a public PGN keeps: the roster, the board, the players' ratings,
/// titles and FIDE ids and the time control (what Lichess relays read), and a
/// set-up start.
const PUBLIC_TAGS: [&str; 10] = [
    "Board",
    "WhiteElo",
    "BlackElo",
    "WhiteTitle",
    "BlackTitle",
    "WhiteFideId",
    "BlackFideId",
    "TimeControl",
    "SetUp",
    "FEN",
];

/// A board's PGN as the round PGN holds it: the round's `Round`, a `Board` tag
/// and the players' tags from the round file; for the public, without comments
/// or other tags.
fn tagged_pgn(board: &Board, text: &str, audience: Audience) -> String {
    let [public, arbiter] = tagged_pgns(board, text);
    match audience {
        Audience::Public => public,
        Audience::Arbiter => arbiter,
    }
}

/// [`tagged_pgn`] for both audiences, the record read once (a broadcast does
/// this for every message).
fn tagged_pgns(board: &Board, text: &str) -> [String; 2] {
    // Every game of the board's file (a second one follows an illegal move).
    let games = <crate::rules::chess::Chess as crate::record::Recordable>::split_games(text);
    let games = if games.is_empty() {
        vec![String::new()]
    } else {
        games
    };
    tag_games(
        board,
        games.iter().map(|g| game_or_stub(board, g)).collect(),
    )
}

/// A game of a board's PGN file, or the board's empty game where it is none.
fn game_or_stub(board: &Board, game: &str) -> PgnRecord {
    parse_pgn(game)
        .or_else(|_| parse_pgn(&stub(board)))
        .unwrap_or_default()
}

/// A board's games tagged for the round PGN: for the public, then the arbiter.
fn tag_games(board: &Board, games: Vec<PgnRecord>) -> [String; 2] {
    let (mut public, mut arbiter) = (Vec::new(), Vec::new());
    for mut rec in games {
        rec.set_tag("Board", &board.number().to_string());
        if !board.tags.round.is_empty() {
            rec.tags.round = board.tags.round.clone();
        }
        // A record begun before the round file gave them has them too.
        for (name, value) in &board.tags.extra {
            rec.set_tag(name, value);
        }
        arbiter.push(rec.to_pgn_string().trim_end().to_string());
        GameRecord::<crate::rules::chess::Chess>::drop_comments(&mut rec);
        rec.tags
            .extra
            .retain(|(name, _)| PUBLIC_TAGS.contains(&name.as_str()));
        public.push(rec.to_pgn_string().trim_end().to_string());
    }
    [public.join("\n\n") + "\n", arbiter.join("\n\n") + "\n"]
}

/// An empty game with the board's tags, for a board not yet recording.
fn stub(board: &Board) -> String {
    struct Empty<'a>(&'a Tags);
    impl GameVisitor for Empty<'_> {
        type Output = String;
        fn visit<G: Resume>(self, start: &G) -> String {
            crate::record::RecordFile::new(start, self.0).render()
        }
    }
    board.game().visit(Empty(&board.tags))
}

/// The start position drawn on the page before the board has a record.
struct ShowStart<'a>(&'a Board);

impl GameVisitor for ShowStart<'_> {
    type Output = ();
    fn visit<G: Resume>(self, start: &G) {
        show_start(self.0, start)
    }
}

/// The board's record on disk read into the page.
/// A board's state taken from its record: the file, or the text given.
struct Load<'a>(&'a Board, Option<&'a str>);

impl GameVisitor for Load<'_> {
    type Output = Result<(), RecordError>;
    fn visit<G: Resume>(self, like: &G) -> Result<(), RecordError> {
        load(self.0, like, self.1)
    }
}

/// Whether the game's records take a result token.
struct CheckResult<'a>(&'a str);

impl GameVisitor for CheckResult<'_> {
    type Output = Result<(), EditError>;
    fn visit<G: Resume>(self, _: &G) -> Result<(), EditError> {
        G::check_result(self.0)
    }
}

/// The half-moves of the board's record on disk, and the last.
struct LastOnDisk<'a>(&'a Board);

impl GameVisitor for LastOnDisk<'_> {
    type Output = (usize, Option<String>);
    fn visit<G: Resume>(self, like: &G) -> (usize, Option<String>) {
        last_on_disk(self.0, like)
    }
}

/// Something queued for a recorder, applied to the record on disk.
struct Apply<'a>(&'a Board, &'a Queued);

impl GameVisitor for Apply<'_> {
    type Output = Result<Done, RecordError>;
    fn visit<G: Resume>(self, like: &G) -> Result<Done, RecordError> {
        let Apply(board, q) = self;
        match q {
            Queued::Note(t) => apply_note(board, like, t).map(|()| Done {
                said: t.clone(),
                taken_back: None,
            }),
            Queued::Edit(e, _) => apply_edit(board, like, e),
        }
    }
}

/// Applies an arbiter's edit to a record on disk (the recorder is stopped).
/// Returns what was done, in the record's words.
pub(crate) fn apply_edit<R: Resume>(
    board: &Board,
    like: &R,
    edit: &Edit,
) -> Result<Done, RecordError> {
    match edit {
        Edit::SetResult { token, note } => {
            set_board_result(board, like, token, note)?;
            Ok(Done {
                said: note.clone(),
                taken_back: None,
            })
        }
        Edit::TakeBack { ply, san, by } => take_back(board, like, *ply, san.as_deref(), by),
    }
}

/// What an arbiter's edit did.
#[derive(Clone, Debug)]
pub(crate) struct Done {
    /// As written in the record: `arbiter at ...: took back move 8 (Bxf3)`.
    pub said: String,
    /// The move taken back, in the game's notation.
    pub taken_back: Option<String>,
}

/// The half-moves of the last game of a board's record on disk, and the last in
/// the game's notation.
fn last_on_disk<R: Resume>(board: &Board, like: &R) -> (usize, Option<String>) {
    let Ok(Some((_, r))) = board.read_file(like) else {
        return (0, None);
    };
    let Some((last, earlier)) = r.moves.split_last() else {
        return (0, None);
    };
    let mut g = r.start.clone();
    for m in earlier {
        g.play_legal(m);
    }
    (r.moves.len(), Some(g.notation(last)))
}

/// What a board's record ends with, as an arbiter reads it: `the record now ends
/// with 7...Nf6` (or holds no move).
fn ends_with(board: &Board) -> String {
    let s = board.state();
    match s.sans.last() {
        None => "the record now holds no move".into(),
        Some(san) => {
            let n = s.sans.len();
            let dots = if n % 2 == 1 { "." } else { "..." };
            format!("the record now ends with {}{dots}{san}", n.div_ceil(2))
        }
    }
}

/// Sets the result of the board's game on disk by the path `record --result`
/// takes: the file's last game, the games before it kept, a result the rules
/// gave never overruled.
fn set_board_result<R: Resume>(
    board: &Board,
    like: &R,
    token: &str,
    note: &str,
) -> Result<(), RecordError> {
    if !board.has_record() {
        return Err(RecordError::NoRecord {
            board: board.number(),
        });
    }
    let text = std::fs::read_to_string(&board.path).map_err(|source| RecordError::Read {
        path: board.path.clone(),
        source,
    })?;
    match Resume::set_result_in(&text, like, token, note) {
        Ok(Some(text)) => write_record(board, &text),
        Ok(None) => Ok(()),
        Err(why) => Err(RecordError::Result {
            board: board.number(),
            why,
        }),
    }
}

/// Writes the board's record file (atomically).
fn write_record(board: &Board, text: &str) -> Result<(), RecordError> {
    write_atomic(&board.path, text).map_err(|source| RecordError::Write {
        path: board.path.clone(),
        source,
    })
}

/// Takes recorded move `ply`, `san`, back on disk when it is the last (of the
/// last game; games before it are kept as they are).
fn take_back<R: Resume>(
    board: &Board,
    like: &R,
    ply: usize,
    san: Option<&str>,
    by: &str,
) -> Result<Done, RecordError> {
    let number = board.number();
    let Some((earlier, r)) = board.read_file(like)? else {
        return Err(RecordError::NoRecord { board: number });
    };
    let mut record = r.record;
    let n = r.moves.len();
    if n == 0 {
        return Err(RecordError::NoMove { board: number });
    }
    let mut g = r.start.clone();
    for m in &r.moves[..n - 1] {
        g.play_legal(m);
    }
    let last = g.notation(&r.moves[n - 1]);
    if n != ply || san.is_some_and(|s| s != last) {
        return Err(RecordError::NotLast {
            board: number,
            moves: n,
            last,
            ply,
            san: san.map(str::to_string),
        });
    }
    let note = format!("{by}: took back move {n} ({last})");
    record.truncate(n - 1);
    record.note(&note);
    // Whatever result the taken-back move brought no longer stands.
    record.set_result(&g);
    write_games::<R>(board, earlier, record)?;
    Ok(Done {
        said: note,
        taken_back: Some(last),
    })
}

/// Adds a comment to a record on disk (the recorder is stopped), after the last
/// game's last move.
fn apply_note<R: Resume>(board: &Board, like: &R, note: &str) -> Result<(), RecordError> {
    let Some((earlier, r)) = board.read_file(like)? else {
        return Err(RecordError::NoRecord {
            board: board.number(),
        });
    };
    let mut record = r.record;
    record.note(note);
    write_games::<R>(board, earlier, record)
}

/// Writes the board's file: the games `earlier` as they were, then `last`.
fn write_games<R: Resume>(
    board: &Board,
    earlier: Vec<String>,
    last: R::Record,
) -> Result<(), RecordError> {
    let file = crate::record::RecordFile::<R>::after(earlier, last, &Default::default());
    write_record(board, &file.render())
}

/// An arbiter's action, as the page sends it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "action", rename_all = "snake_case")]
pub(crate) enum Action {
    /// The arbiter has seen an alert.
    Acknowledge {
        /// The alert's id.
        alert: u64,
    },
    /// A move the recorder was unsure of was played as recorded.
    Confirm {
        /// The alert's id.
        alert: u64,
    },
    /// The game's result (resignation, agreement, a flag, an arbiter's decision).
    SetResult {
        /// The result token (`1-0`, `0-1`, `1/2-1/2`, `*`).
        result: String,
    },
    /// The last recorded move was not played (or was taken back on the board).
    /// `ply` (1-based), when given, is the move the arbiter means: refused when the
    /// record ends with another (a move recorded since the page was drawn, or a
    /// take-back already made).
    TakeBack {
        /// The half-move meant, from 1.
        #[serde(default)]
        ply: Option<usize>,
    },
}

/// Why an action was refused. The texts are the arbiter's to read, causes
/// included: the page shows them as they are.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ActionError {
    /// No board has that number.
    #[error("no board {0}")]
    NoBoard(u32),
    /// The action does not fit the board or its record as they stand (no such
    /// open alert, no move to take back, a result the record refuses).
    #[error("{0}")]
    Refused(String),
    /// The action could not be carried out: the recorder did not stop for it,
    /// or the record could not be read back.
    #[error("{0}")]
    Failed(String),
}

impl Round {
    /// A round of `boards`, each recorded into `out_dir/board-N.EXT`; records that
    /// stand there already are read (their games go on).
    pub fn new(
        info: EventInfo,
        date: String,
        boards: Vec<BoardSpec>,
        out_dir: &Path,
        token: String,
    ) -> Result<Arc<Round>, RecordError> {
        let boards = boards
            .into_iter()
            .map(|spec| {
                let tags = board_tags(&info, &date, &spec);
                Arc::new(Board::new(spec, out_dir, tags))
            })
            .collect();
        Round::build(info, date, boards, Some(out_dir.to_path_buf()), token)
    }

    /// Adds a board recorded elsewhere (a broadcast's), tagged as its recorder
    /// tags it; its record in the round's folder, if one stands there, is read.
    /// The board already there when the round has its number.
    pub(crate) fn add_board(&self, spec: BoardSpec, tags: Tags) -> Result<Arc<Board>, RecordError> {
        let mut boards = self.boards.write().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = boards.iter().find(|b| b.number() == spec.number) {
            return Ok(b.clone());
        }
        let dir = self.out_dir.clone().unwrap_or_default();
        let board = Arc::new(Board::new(spec, &dir, tags));
        if self.out_dir.is_some() {
            self.load(&board)?;
        }
        board.game().visit(ShowStart(&board));
        let mut all: Vec<Arc<Board>> = boards.iter().cloned().collect();
        all.push(board.clone());
        all.sort_by_key(|b| b.number());
        *boards = all.into();
        Ok(board)
    }

    /// Sends the arbiter's actions to `remote` rather than to recorders of this
    /// process (a broadcast's boards). Set once; later calls change nothing.
    pub(crate) fn act_remotely(&self, remote: Arc<dyn RemoteActs>) {
        let _ = self.remote.set(remote);
    }

    /// One board recorded into `path` (`record --serve`).
    pub(crate) fn single(
        spec: BoardSpec,
        tags: Tags,
        path: PathBuf,
        token: String,
    ) -> Result<Arc<Round>, RecordError> {
        let info = EventInfo {
            name: tags.event.clone(),
            site: tags.site.clone(),
            round: tags.round.clone(),
            ..EventInfo::default()
        };
        let date = tags.date.clone();
        let mut board = Board::new(spec, Path::new(""), tags);
        board.path = path;
        let board = Arc::new(board);
        board.start_fresh();
        Round::build(info, date, vec![board], None, token)
    }

    fn build(
        info: EventInfo,
        date: String,
        boards: Vec<Arc<Board>>,
        out_dir: Option<PathBuf>,
        token: String,
    ) -> Result<Arc<Round>, RecordError> {
        let (updates, _) = broadcast::channel(1024);
        let round = Arc::new(Round {
            info,
            date,
            out_dir,
            boards: RwLock::new(boards.into()),
            remote: OnceLock::new(),
            updates,
            pgn: Mutex::new((Arc::from(""), Arc::from(""))),
            token,
            ended: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
        });
        let fresh = round.out_dir.is_none();
        for b in round.boards().iter() {
            if !fresh {
                round.load(b)?;
            }
            b.game().visit(ShowStart(b));
            if b.state().result != "*" {
                b.change(|s| s.status = Status::Finished);
            }
        }
        round.write_pgn()?;
        Ok(round)
    }

    /// Board `number`, if the round has it.
    pub fn board(&self, number: u32) -> Option<Arc<Board>> {
        self.boards().iter().find(|b| b.number() == number).cloned()
    }

    /// The boards, in number order.
    pub fn boards(&self) -> Arc<[Arc<Board>]> {
        self.boards
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Live pages subscribe here.
    pub fn subscribe(&self) -> broadcast::Receiver<Update> {
        self.updates.subscribe()
    }

    pub(crate) fn send(&self, u: Update) {
        // No page listening is no error.
        let _ = self.updates.send(u);
    }

    /// Board N's state changed: pages hear of it.
    pub(crate) fn publish(&self, board: &Board) {
        self.send(Update::Board(board.number()));
    }

    /// Every board has ended: pages hear of it.
    pub(crate) fn end(&self) {
        self.ended.store(true, Ordering::SeqCst);
        self.send(Update::End);
    }

    /// Asks every recorder to finish its record and stop (between frames), as
    /// when its input ends; failed boards are not tried again.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    /// Whether the round was asked to stop.
    pub fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Whether every board has ended.
    pub(crate) fn has_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// Reads a board's record on disk into its live state.
    fn load(&self, board: &Board) -> Result<(), RecordError> {
        board.game().visit(Load(board, None))
    }

    /// The record on disk changed: the page, the board's PGN and the round PGN
    /// follow it.
    pub(crate) fn refresh(&self, board: &Board) -> Result<(), RecordError> {
        let r = self.load(board);
        if board.kind().extension() == "pgn" {
            self.write_pgn()?;
        }
        self.publish(board);
        r
    }

    /// The board's record is `text` (a broadcast's, which writes its copy on
    /// disk later): the page follows it, the round PGN not yet (a broadcast
    /// writes it once for many boards' changes, with [`Round::write_round_pgn`]).
    pub(crate) fn reload_text(&self, board: &Board, text: &str) -> Result<(), RecordError> {
        let r = board.game().visit(Load(board, Some(text)));
        self.publish(board);
        r
    }

    /// Writes the round PGN again from every board as it stands.
    pub(crate) fn write_round_pgn(&self) -> Result<(), RecordError> {
        self.write_pgn()
    }

    /// The public round PGN as it stands: the games only (moves, results, tags).
    pub(crate) fn pgn(&self) -> Arc<str> {
        lock(&self.pgn).0.clone()
    }

    /// The arbiter's round PGN as it stands: the games with every comment.
    pub(crate) fn arbiter_pgn(&self) -> Arc<str> {
        lock(&self.pgn).1.clone()
    }

    /// Composes the round PGN from every chess board, in board order, and writes
    /// it (atomically): the public one to `round.pgn`, the arbiter's (comments
    /// kept) to `arbiter/round.pgn`.
    fn write_pgn(&self) -> Result<(), RecordError> {
        let mut guard = lock(&self.pgn);
        let (mut public, mut arbiter) = (String::new(), String::new());
        for b in self
            .boards()
            .iter()
            .filter(|b| b.kind().extension() == "pgn")
        {
            let s = b.state();
            for (text, served, audience) in [
                (&mut public, &s.served, Audience::Public),
                (&mut arbiter, &s.arbiter, Audience::Arbiter),
            ] {
                let game = if served.is_empty() {
                    tagged_pgn(b, &stub(b), audience)
                } else {
                    served.to_string()
                };
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(game.trim_end());
                text.push('\n');
            }
        }
        if let Some(dir) = &self.out_dir {
            let path = dir.join("round.pgn");
            // Made from the boards' records, which are kept safe, and made again
            // at every start: not worth waiting for the disk (a broadcast writes it
            // several times a second).
            write_atomic_unsynced(&path, &public)
                .map_err(|source| RecordError::Write { path, source })?;
            let folder = dir.join(ARBITER_DIR);
            std::fs::create_dir_all(&folder).map_err(|source| RecordError::Write {
                path: folder.clone(),
                source,
            })?;
            let path = folder.join("round.pgn");
            write_atomic_unsynced(&path, &arbiter)
                .map_err(|source| RecordError::Write { path, source })?;
        }
        *guard = (Arc::from(public), Arc::from(arbiter));
        Ok(())
    }

    /// Carries out an arbiter's action; returns what was done. A broadcast's
    /// boards are recorded elsewhere: the action goes to their recorder.
    pub(crate) fn act(&self, number: u32, action: Action) -> Result<String, ActionError> {
        let board = &self.board(number).ok_or(ActionError::NoBoard(number))?;
        if let Some(remote) = self.remote.get() {
            return remote.act(number, &action);
        }
        // One action at a time per board: each sees the record the one before left.
        let _acting = lock(&board.acting);
        let now = utc_now();
        let refused = |s: String| Err(ActionError::Refused(s));
        let queued = match &action {
            Action::Acknowledge { alert } | Action::Confirm { alert } => {
                let confirm = matches!(action, Action::Confirm { .. });
                let text = board.change(|s| {
                    let a = s.alerts.iter_mut().find(|a| a.id == *alert && a.open)?;
                    if confirm && a.kind != AlertKind::Unsure {
                        return None;
                    }
                    a.open = false;
                    let what = if confirm { "confirmed" } else { "acknowledged" };
                    a.resolution = Some(format!("{what} by the arbiter at {now}"));
                    Some(if confirm {
                        format!("arbiter at {now}: confirmed {}", a.text)
                    } else {
                        format!("arbiter at {now}: acknowledged: {}", a.text)
                    })
                });
                match text {
                    Some(t) => Queued::Note(t),
                    None => {
                        return refused(format!(
                            "no open alert {alert} to do that to on board {number}"
                        ))
                    }
                }
            }
            Action::SetResult { result } => {
                if let Err(e) = board.game().visit(CheckResult(result)) {
                    return refused(e.to_string());
                }
                Queued::Edit(
                    Edit::SetResult {
                        token: result.clone(),
                        note: format!("arbiter at {now}: result set to {result}"),
                    },
                    Reply::default(),
                )
            }
            Action::TakeBack { ply } => {
                // The record on disk, not the page's state (a frame behind it):
                // what the recorder made is checked again when the edit is made.
                let (n, last) = board.game().visit(LastOnDisk(board));
                let Some(last) = last else {
                    return refused(format!("board {number} has no move to take back"));
                };
                if let Some(p) = ply.filter(|p| *p != n) {
                    return refused(format!(
                        "board {number}'s record ends with move {n} ({last}), not move {p}: nothing taken back"
                    ));
                }
                let (ply, san) = (n, Some(last));
                Queued::Edit(
                    Edit::TakeBack {
                        ply,
                        san,
                        by: format!("arbiter at {now}"),
                    },
                    Reply::default(),
                )
            }
        };
        let done = {
            let mut c = lock(&board.control);
            if c.running {
                let reply = match &queued {
                    Queued::Edit(_, reply) => Some(reply.clone()),
                    Queued::Note(_) => None,
                };
                let note = match &queued {
                    Queued::Note(t) => t.clone(),
                    Queued::Edit(..) => String::new(),
                };
                c.queue.push_back(queued);
                drop(c);
                self.publish(board);
                // A note is written between two frames; an edit stops the recorder,
                // and its outcome is what the arbiter is told.
                let Some(reply) = reply else {
                    return Ok(note);
                };
                return match reply.wait(EDIT_WAIT) {
                    Some(Ok(said)) => Ok(format!("{said}; {}", ends_with(board))),
                    Some(Err(e)) => Err(ActionError::Refused(said(&e))),
                    None => Err(ActionError::Failed(format!(
                        "board {number}'s recorder did not stop within {} s; the action waits for it",
                        EDIT_WAIT.as_secs()
                    ))),
                };
            }
            // Stopped: changed on disk at once, the control held so that no
            // recorder starts meanwhile.
            self.apply(board, &queued)
                .map_err(|e| ActionError::Refused(said(&e)))?
        };
        if matches!(&action, Action::SetResult { result } if result != "*") {
            board.change(|s| s.status = Status::Finished);
        }
        self.refresh(board)
            .map_err(|e| ActionError::Failed(said(&e)))?;
        if matches!(queued, Queued::Edit(..)) {
            return Ok(format!("{}; {}", done.said, ends_with(board)));
        }
        Ok(done.said)
    }

    /// Applies something queued for a recorder to the record on disk.
    pub(crate) fn apply(&self, board: &Board, q: &Queued) -> Result<Done, RecordError> {
        board.game().visit(Apply(board, q))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::PgnRecord;
    use crate::rules::chess::Chess;

    /// Board `n` of `game`, named as the round file names it.
    fn spec(n: u32, game: &str) -> BoardSpec {
        let setup = GameSetup::standard(game.parse().unwrap());
        BoardSpec {
            white: format!("White {n}"),
            black: format!("Black {n}"),
            ..BoardSpec::of_game(n, setup, &format!("b{n}.mp4"))
        }
    }

    fn info() -> EventInfo {
        EventInfo {
            name: "Club".into(),
            round: "3".into(),
            ..EventInfo::default()
        }
    }

    #[test]
    fn the_page_shows_the_set_up_start_the_recorder_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        let setup = crate::game::Setup {
            start: Some(fen.into()),
            ..Default::default()
        };
        let game = GameSetup::parse(&setup).unwrap();
        let spec = BoardSpec::of_game(1, game, "b1.mp4");
        let round = Round::single(
            spec,
            Tags::default(),
            dir.path().join("game.pgn"),
            "t".into(),
        )
        .unwrap();
        let shown = round.boards()[0].state().diagram.unwrap().placement();
        assert_eq!(shown, "4k3/8/8/8/8/8/8/R3K3");
        // The board's PGN before any move starts there too.
        assert!(
            round.pgn().contains(&format!("[FEN \"{fen}\"]")),
            "{}",
            round.pgn()
        );
    }

    #[test]
    fn the_round_pgn_holds_every_chess_board_in_order_and_arbiter_edits_reach_the_record() {
        let dir = tempfile::tempdir().unwrap();
        let specs = vec![
            spec(2, "chess"),
            spec(1, "chess"),
            spec(3, "russian-draughts"),
        ];
        // Board 2 has a record already: its game goes on.
        std::fs::write(
            dir.path().join("board-2.pgn"),
            crate::round::pgn_after(&["e2e4", "e7e5"]),
        )
        .unwrap();
        let mut specs = specs;
        specs.sort_by_key(|s| s.number);
        let round = Round::new(info(), "2026.05.01".into(), specs, dir.path(), "t".into()).unwrap();
        let text = std::fs::read_to_string(dir.path().join("round.pgn")).unwrap();
        assert_eq!(text, round.pgn().to_string());
        let games = crate::record::parse_pgn_games(&text).unwrap();
        assert_eq!(games.len(), 2, "chess boards only:\n{text}");
        assert_eq!(games[0].tag("Board"), Some("1"));
        assert_eq!(games[0].tags.round, "3.1");
        assert_eq!(games[0].tags.white, "White 1");
        assert_eq!(games[1].tag("Board"), Some("2"));
        assert_eq!(games[1].moves.len(), 2);
        let b2 = round.board(2).unwrap();
        assert_eq!(b2.state().sans, ["e4", "e5"]);

        // With no recorder running, actions change the record at once.
        let done = round.act(2, Action::TakeBack { ply: None }).unwrap();
        assert!(done.contains("took back move 2 (e5)"), "{done}");
        let rec = parse_pgn(&std::fs::read_to_string(&b2.path).unwrap()).unwrap();
        assert_eq!(rec.moves.len(), 1);
        assert!(rec.moves[0]
            .comments
            .iter()
            .any(|c| c.contains("took back")));
        round
            .act(
                2,
                Action::SetResult {
                    result: "1-0".into(),
                },
            )
            .unwrap();
        let text = round.pgn().to_string();
        assert!(text.contains("[Result \"1-0\"]"), "{text}");
        // The arbiter's note is in the arbiter's round PGN, not the public one.
        assert!(!text.contains("result set to"), "{text}");
        assert!(!text.contains('{'), "no comment in public: {text}");
        let arbiter = round.arbiter_pgn().to_string();
        assert!(arbiter.contains("result set to 1-0"), "{arbiter}");
        assert!(arbiter.contains("took back move 2"), "{arbiter}");
        let on_disk = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
        assert_eq!(on_disk("round.pgn"), text);
        assert_eq!(on_disk("arbiter/round.pgn"), arbiter);
        assert!(round
            .act(
                2,
                Action::SetResult {
                    result: "2-0".into()
                }
            )
            .is_err());
        assert!(
            round.act(1, Action::TakeBack { ply: None }).is_err(),
            "board 1 has no move"
        );
        assert!(matches!(
            round.act(9, Action::TakeBack { ply: None }),
            Err(ActionError::NoBoard(9))
        ));
        let id = b2.alert(AlertKind::Unsure, "move 1 e4".into(), Some(1));
        assert!(round.act(2, Action::Acknowledge { alert: id + 1 }).is_err());
        round.act(2, Action::Confirm { alert: id }).unwrap();
        assert!(!b2.state().alerts[0].open);
        let rec = std::fs::read_to_string(&b2.path).unwrap();
        assert!(rec.contains("confirmed move 1 e4"), "{rec}");
    }

    #[test]
    fn a_take_back_on_a_board_with_two_games_keeps_the_first() {
        // After an illegal move the board's file holds a second game (FIDE 7.5):
        // the page shows and edits the game going on, and the first stays.
        let dir = tempfile::tempdir().unwrap();
        let mut g = Chess::new();
        let mut first = PgnRecord::start(&g, &Tags::default());
        for u in ["e2e4", "e7e5"] {
            let m = g.parse_uci(u).unwrap();
            GameRecord::push(&mut first, &g, &m, None);
            g.play(&m).unwrap();
        }
        let mut second = PgnRecord::start(&g, &Tags::default());
        for u in ["g1f3", "b8c6", "f1b5"] {
            let m = g.parse_uci(u).unwrap();
            GameRecord::push(&mut second, &g, &m, None);
            g.play(&m).unwrap();
        }
        let file = format!("{}\n\n{}", first.render().trim_end(), second.render());
        std::fs::write(dir.path().join("board-1.pgn"), &file).unwrap();
        let round = Round::new(
            info(),
            "2026.05.01".into(),
            vec![spec(1, "chess")],
            dir.path(),
            "t".into(),
        )
        .unwrap();
        let b1 = round.board(1).unwrap();
        assert_eq!(b1.state().sans, ["Nf3", "Nc6", "Bb5"]);
        let done = round.act(1, Action::TakeBack { ply: None }).unwrap();
        assert!(done.contains("Bb5"), "{done}");
        let text = std::fs::read_to_string(&b1.path).unwrap();
        let games = crate::record::parse_pgn_games(&text).unwrap();
        assert_eq!(games.len(), 2, "{text}");
        assert_eq!(games[0].moves.len(), 2, "{text}");
        assert_eq!(games[1].moves.len(), 2, "{text}");
        // The round PGN holds both games of the board.
        let round_pgn = round.pgn().to_string();
        assert_eq!(
            crate::record::parse_pgn_games(&round_pgn).unwrap().len(),
            2,
            "{round_pgn}"
        );
    }

    #[test]
    fn the_round_files_player_tags_reach_the_round_pgn_and_a_record_begun_without_them() {
        let dir = tempfile::tempdir().unwrap();
        // Board 1 has a record from before the tags were given.
        let g = Chess::new();
        let mut rec = PgnRecord::start(&g, &Tags::default());
        let m = g.parse_uci("d2d4").unwrap();
        GameRecord::push(&mut rec, &g, &m, Some(4.0));
        GameRecord::note(&mut rec, "unsure: the recorder's note");
        std::fs::write(dir.path().join("board-1.pgn"), rec.render()).unwrap();
        let mut specs = vec![spec(1, "chess"), spec(2, "chess")];
        specs[0].white_elo = Some("2215".into());
        specs[0].black_title = Some("wfm".into());
        specs[0].black_fide_id = Some("1503014".into());
        specs[1].white_title = Some("GM".into());
        let info = EventInfo {
            time_control: Some("5400+30".into()),
            ..info()
        };
        let round = Round::new(info, "2026.05.01".into(), specs, dir.path(), "t".into()).unwrap();
        let text = round.pgn().to_string();
        let games = crate::record::parse_pgn_games(&text).unwrap();
        assert_eq!(games[0].tag("WhiteElo"), Some("2215"), "{text}");
        assert_eq!(games[0].tag("BlackTitle"), Some("WFM"), "{text}");
        assert_eq!(games[0].tag("BlackFideId"), Some("1503014"), "{text}");
        assert_eq!(games[1].tag("WhiteTitle"), Some("GM"), "{text}");
        for g in &games {
            assert_eq!(g.tag("TimeControl"), Some("5400+30"), "{text}");
        }
        // The public game keeps its move time, not the recorder's note.
        assert!(text.contains("{[%emt 0:00:04]}"), "{text}");
        assert!(!text.contains("unsure"), "{text}");
        assert!(round.arbiter_pgn().contains("unsure: the recorder's note"));
        // A new record begins with them too.
        let b2 = std::fs::read_to_string(dir.path().join("board-2.pgn"));
        assert!(b2.is_err() || b2.unwrap().contains("WhiteTitle"));
        assert!(round
            .board(2)
            .unwrap()
            .tags
            .extra
            .iter()
            .any(|(n, v)| n == "WhiteTitle" && v == "GM"));
    }
}
