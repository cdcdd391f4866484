//! One board recorded through its round, as the tournament's recorders and
//! `record --serve`'s one-board round both record it: the board found, the grid
//! moved onto a new game's start, the page told where the board is, and the game
//! recorded so that the page and the round PGN follow.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use opencv::core::Mat;

use crate::capture::{self, CaptureError, FrameSource, SourceOptions};
use crate::classify::{Classifier, ModelError, OccupancyModel};
use crate::game::{GameSetup, GameVisitor};
use crate::geometry::Undistorter;
use crate::infer::{NotASide, WhiteSide};
use crate::pipeline::{
    self, Event, EventSink, FindError, Found, PipelineError, RecordJob, RecordSummary, Recorder,
    RecorderError,
};
use crate::record::Resume;
use crate::record::Tags;
use crate::round::{
    self, Board, BoardEnd, BoardError, BoardReport, BoardRunner, BoardSetup, BoardSpec,
    RecordError, Round,
};
use crate::server::ServerError;

/// The occupancy models a round's boards are read with, as `record` picks them.
#[derive(Clone, Debug)]
pub struct Models {
    /// For boards of cells (chess, draughts, Tablut).
    pub cells: PathBuf,
    /// For pieces on the crossings of the lines (Go).
    pub points: PathBuf,
}

/// Records every board of `round` on its own thread, each as `record` would
/// from its entry in the round file, with the occupancy models `models`, until
/// each has ended (its input ended, its game finished, or it was given up); a
/// board that fails is tried again (see `run_round`). `said` hears what finding
/// each board reports; the round's page has the rest.
pub fn record_round(round: &Arc<Round>, models: &Models, said: fn(&Event)) -> Vec<BoardReport> {
    let specs: Vec<BoardSpec> = round.boards().iter().map(|b| b.spec.clone()).collect();
    let recorders = Recorders {
        models: models.clone(),
        said,
        shared: SharedInputs::of(&specs),
    };
    round::run_round(round, Arc::new(recorders))
}

/// The round's boards recorded as `record` would record them.
struct Recorders {
    models: Models,
    said: fn(&Event),
    /// The inputs boards share, each read once for all of them.
    shared: SharedInputs,
}

/// Why an attempt at a board failed before its recording or in it.
#[derive(Debug, thiserror::Error)]
enum AttemptError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Place(#[from] round::PlaceError),
    #[error(transparent)]
    Run(#[from] RunBoardError),
}

impl BoardRunner for Recorders {
    fn run(&self, round: &Round, board: &Board) -> Result<BoardEnd, BoardError> {
        self.attempt(round, board)
            .map_err(|e| BoardError::Runner(Box::new(e)))
    }
}

impl Recorders {
    /// One attempt at the board: the model loaded, the board placed, recorded.
    fn attempt(&self, round: &Round, board: &Board) -> Result<BoardEnd, AttemptError> {
        let model = if board.spec.on_points()? {
            &self.models.points
        } else {
            &self.models.cells
        };
        let mut classifier = Classifier::new(OccupancyModel::load(model)?);
        let setup = board.spec.board_setup()?;
        let mut said = |e: Event| (self.said)(&e);
        Ok(run_board(
            round,
            board,
            &mut classifier,
            setup,
            Some(&self.shared),
            &mut said,
        )?)
    }
}

/// The inputs several boards of a round share (one camera over a table), each
/// opened once and read once for all its boards: every frame decoded and
/// converted once however many boards the view holds.
#[derive(Default)]
pub(crate) struct SharedInputs {
    started: Mutex<HashMap<String, Arc<crate::shared::SharedInput>>>,
    /// Per board number: its input's key, and its reader's number there.
    readers: HashMap<u32, (String, usize)>,
    /// Per input's key: how many boards read it.
    boards: HashMap<String, usize>,
}

impl SharedInputs {
    /// The inputs of `boards` that more than one board reads the same way (the
    /// same input, frame rates, lens profile and pace).
    pub(crate) fn of(boards: &[BoardSpec]) -> SharedInputs {
        let key = |b: &BoardSpec| {
            format!(
                "{}\n{:?}\n{:?}\n{:?}\n{:?}",
                b.input, b.fps, b.max_fps, b.camera, b.realtime
            )
        };
        let mut shared = SharedInputs::default();
        for b in boards {
            *shared.boards.entry(key(b)).or_default() += 1;
        }
        let mut next: HashMap<String, usize> = HashMap::new();
        for b in boards {
            let k = key(b);
            if shared.boards[&k] > 1 {
                let n = next.entry(k.clone()).or_default();
                shared.readers.insert(b.number, (k, *n));
                *n += 1;
            }
        }
        shared
    }

    /// Board `spec`'s frames from its shared input, which the first board to
    /// come opens (with `open`); its input opened alone when no other board
    /// shares it.
    fn reader<F>(&self, spec: &BoardSpec, open: F) -> Result<Box<dyn FrameSource>, CaptureError>
    where
        F: FnOnce() -> Result<Box<dyn FrameSource>, CaptureError> + Send + 'static,
    {
        let Some((key, n)) = self.readers.get(&spec.number) else {
            return open();
        };
        let input = {
            let mut started = self.started.lock().unwrap_or_else(|e| e.into_inner());
            started
                .entry(key.clone())
                .or_insert_with(|| {
                    Arc::new(crate::shared::SharedInput::start(self.boards[key], open))
                })
                .clone()
        };
        input.reader(*n)
    }
}

/// Records `board` of `round` as `record` would, from its entry in the round
/// file: its input opened (undistorted, paced when asked, a frame kept for the
/// page), the board found (reported to `events`), a new game's grid moved onto
/// the start.
pub(crate) fn run_board(
    round: &Round,
    board: &Board,
    classifier: &mut Classifier,
    setup: BoardSetup,
    shared: Option<&SharedInputs>,
    events: &mut dyn EventSink,
) -> Result<BoardEnd, RunBoardError> {
    let spec = &board.spec;
    run_board_unnamed(round, board, classifier, setup, shared, events).map_err(|source| {
        RunBoardError {
            number: spec.number,
            input: spec.input.clone(),
            source,
        }
    })
}

fn run_board_unnamed(
    round: &Round,
    board: &Board,
    classifier: &mut Classifier,
    setup: BoardSetup,
    shared: Option<&SharedInputs>,
    events: &mut dyn EventSink,
) -> Result<BoardEnd, RunError> {
    let spec = &board.spec;
    let realtime = spec.realtime.unwrap_or(round.info.realtime);
    // One of several boards in a view: the page is shown the board's own part
    // of the frame, where its grid is placed.
    let region = matches!(setup.placement, pipeline::Placement::OneOf { .. });
    let source = open_source(
        spec,
        setup.lens,
        realtime,
        shared,
        (!region).then_some(board),
    )?;
    // A folder's photos are named, as `record` names them: their times are only
    // made up from `fps`, so no move time is written.
    let timeline = pipeline::Timeline::of(source.as_ref());
    let white = spec
        .game()
        .white_edge(white_side(spec.white_side.as_deref())?);
    let fresh = !board.has_record();
    // The round's own stop ends the recording; locating is short.
    let never = AtomicBool::new(false);
    let found = pipeline::find_board(setup.placement, source, &never, &spec.input, false, events)?;
    let mut job = job_for(&found, &spec.input, white, spec.quiet, board);
    let Found {
        located_in,
        mut source,
        ..
    } = found;
    if region {
        source = tapped(source, board);
    }
    job.timeline = timeline;
    // The grid is moved to where the frame reads as the start only for a new game.
    let snap = if fresh { located_in.as_ref() } else { None };
    // The start the round file set up, the one the page shows.
    board.game().visit(RecordBoard {
        round,
        board,
        classifier,
        source: source.as_mut(),
        job,
        snap,
        inner: None,
    })
}

/// Why a board of a round could not be recorded, naming the board.
#[derive(Debug, thiserror::Error)]
#[error("board {number} ('{input}')")]
pub(crate) struct RunBoardError {
    /// The board's number in the round.
    pub(crate) number: u32,
    /// Its input, as the round file gives it.
    pub(crate) input: String,
    /// What went wrong.
    #[source]
    pub(crate) source: RunError,
}

/// What stopped a board's recording through its round.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum RunError {
    /// The entry's `white_side` is neither an edge nor `auto`.
    #[error("white_side")]
    WhiteSide(#[from] NotASide),
    /// The board's input could not be opened.
    #[error(transparent)]
    Open(#[from] CaptureError),
    /// The board was not found in its input.
    #[error(transparent)]
    Find(#[from] FindError),
    /// The grid could not be moved onto the game's start.
    #[error(transparent)]
    Snap(#[from] PipelineError),
    /// The recording, or the board's record.
    #[error(transparent)]
    Board(#[from] BoardError),
}

/// Why `record --serve`'s page could not be started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// No token for the arbiter.
    #[error(transparent)]
    Token(#[from] NoRandomSource),
    /// The board's record could not be opened.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The server could not be started.
    #[error(transparent)]
    Server(#[from] ServerError),
}

/// `white_side` of a board's entry: an edge, or `auto` (None).
fn white_side(s: Option<&str>) -> Result<Option<WhiteSide>, RunError> {
    match s {
        None | Some("auto") => Ok(None),
        Some(s) => Ok(Some(s.parse::<WhiteSide>().map_err(RunError::WhiteSide)?)),
    }
}

/// The board's input, undistorted, paced when asked, with a frame kept for the page.
fn open_source(
    spec: &BoardSpec,
    lens: Option<Undistorter>,
    realtime: bool,
    shared: Option<&SharedInputs>,
    board: Option<&Board>,
) -> Result<Box<dyn FrameSource>, CaptureError> {
    let (input, fps, max_fps) = (spec.input.clone(), spec.fps, spec.max_fps);
    let open = move || open_input(&input, fps, max_fps, lens, realtime);
    let source = match shared {
        Some(s) => s.reader(spec, open)?,
        None => open()?,
    };
    Ok(match board {
        Some(board) => tapped(source, board),
        None => source,
    })
}

/// An input opened, undistorted, paced when asked.
fn open_input(
    input: &str,
    fps: Option<f64>,
    max_fps: Option<f64>,
    lens: Option<Undistorter>,
    realtime: bool,
) -> Result<Box<dyn FrameSource>, CaptureError> {
    let max_fps = max_fps.unwrap_or(15.0);
    let mut source = capture::open_undistorted(
        input,
        SourceOptions::default()
            .with_fps(fps)
            .with_max_fps((max_fps > 0.0).then_some(max_fps)),
        lens,
    )?;
    if realtime && source.is_offline() {
        source = Box::new(capture::Paced::new(source));
    }
    Ok(source)
}

/// `source` with a frame kept for the board's page.
fn tapped(source: Box<dyn FrameSource>, board: &Board) -> Box<dyn FrameSource> {
    Box::new(crate::round::Tapped::new(source, board.frame.clone(), 1.0))
}

/// What a recording of the board needs besides the game: a folder of photos is
/// recorded as `record` records photos (its timeline is the source's).
fn job_for(
    found: &Found,
    input: &str,
    white: Option<WhiteSide>,
    quiet: Option<f64>,
    board: &Board,
) -> RecordJob {
    let (track, infer) = pipeline::still_policy(Path::new(input).is_dir(), quiet);
    RecordJob {
        timeline: Default::default(),
        pose: found.pose,
        white,
        track,
        infer,
        tags: board.tags.clone(),
        out: board.path.clone(),
        debug: false,
        progress: false,
        adapt: true,
    }
}

/// A board's game recorded from its start (see [`record`]).
struct RecordBoard<'a> {
    round: &'a Round,
    board: &'a Board,
    classifier: &'a mut Classifier,
    source: &'a mut dyn FrameSource,
    job: RecordJob,
    /// The frame the grid was located in, for a new game.
    snap: Option<&'a Mat>,
    inner: Option<&'a mut dyn EventSink>,
}

impl GameVisitor for RecordBoard<'_> {
    type Output = Result<BoardEnd, RunError>;
    fn visit<G: Resume>(self, start: &G) -> Result<BoardEnd, RunError> {
        record(self, start.clone())
    }
}

/// Records one board's game (moving a located grid to the start first, for a new
/// game), through the round so that the page and the round PGN follow.
fn record<R: Resume>(b: RecordBoard, game: R) -> Result<BoardEnd, RunError> {
    let RecordBoard {
        round,
        board,
        classifier,
        source,
        mut job,
        snap,
        mut inner,
    } = b;
    if let Some(image) = snap {
        let (pose, (dr, dc)) = pipeline::snap_to_start(&game, classifier, image, job.pose)?;
        if (dr, dc) != (0, 0) {
            let e = Event::GridSnapped {
                rows: dr,
                cols: dc,
                corners: pose.corners().points().map(|(x, y)| [x, y]),
            };
            if let Some(i) = inner.as_deref_mut() {
                i.emit(e);
            }
        }
        job.pose = pose;
    }
    board.set_pose(&job.pose);
    Ok(round::record_board(
        round, board, game, classifier, source, &job, inner,
    )?)
}

/// Lets the process open as many descriptors as the system allows it (the soft
/// limit raised to the hard one) before the server takes its share, capped well
/// below it: spectators' connections never leave a recorder without one for its
/// video or its record.
pub(crate) fn raise_fd_limit() {
    #[cfg(unix)]
    {
        let mut l = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit read and write only the struct given.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) != 0 || l.rlim_cur >= l.rlim_max {
                return;
            }
            // An unlimited hard limit (macOS) takes no soft limit above OPEN_MAX.
            let want = if l.rlim_max == libc::RLIM_INFINITY {
                10_240.max(l.rlim_cur)
            } else {
                l.rlim_max
            };
            let raised = libc::rlimit {
                rlim_cur: want,
                rlim_max: l.rlim_max,
            };
            // Refused, the limit stays as it was and the server's share follows it.
            libc::setrlimit(libc::RLIMIT_NOFILE, &raised);
        }
    }
}

/// A token for the arbiter's actions: 128 random bits from the system's random
/// source, as hex. Without that source the server is not started: a token any
/// weaker would let a spectator act as the arbiter.
pub fn new_token() -> Result<String, NoRandomSource> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| NoRandomSource(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The system has no random source for the arbiter's token.
#[derive(Debug, thiserror::Error)]
#[error("no random source for the arbiter's token: {0}")]
pub struct NoRandomSource(String);

/// `record --serve ADDR`: the live page for the one board `record` records.
pub struct Serve {
    round: Arc<Round>,
}

/// Where `record --serve`'s pages are.
pub struct ServeUrls {
    /// The live page.
    pub page: String,
    /// The record, for broadcasts.
    pub record: String,
    /// The arbiter's page.
    pub arbiter: String,
}

impl Serve {
    /// Starts the server for the one board recorded into `out`: the game
    /// `record` records, its start included, read from `input`, its players
    /// those of `tags`. A `fresh` page's recorder starts the game afresh,
    /// whatever the record on disk holds (`record` without `--resume`).
    pub fn start(
        listen: &str,
        game: GameSetup,
        input: &str,
        tags: Tags,
        out: PathBuf,
        fresh: bool,
    ) -> Result<(Serve, ServeUrls), ServeError> {
        let spec = BoardSpec {
            white: tags.white.clone(),
            black: tags.black.clone(),
            ..BoardSpec::of_game(1, game, input)
        };
        let token = new_token()?;
        let round = Round::single(spec, tags, out, token.clone())?;
        let server = crate::server::start(round.clone(), listen)?;
        let base = format!("http://{}", server.addr);
        let urls = ServeUrls {
            page: format!("{base}/board/1"),
            record: format!("{base}/board/1.{}", round.boards()[0].kind().extension()),
            arbiter: format!("{base}/board/1?token={token}"),
        };
        if fresh {
            round.boards()[0].start_fresh();
        }
        Ok((Serve { round }, urls))
    }

    /// Wraps the source so that the page shows its latest frame.
    pub fn tap(&self, source: Box<dyn FrameSource>) -> Box<dyn FrameSource> {
        Box::new(crate::round::Tapped::new(
            source,
            self.round.boards()[0].frame.clone(),
            1.0,
        ))
    }
}

impl Recorder for Serve {
    /// Records the game (as `pipeline::record` would) with the page following.
    fn record(
        &mut self,
        classifier: &mut Classifier,
        source: &mut dyn FrameSource,
        job: &RecordJob,
        events: &mut dyn EventSink,
    ) -> Result<RecordSummary, RecorderError> {
        let boards = self.round.boards();
        let board = &boards[0];
        let end = board.game().visit(RecordBoard {
            round: &self.round,
            board,
            classifier,
            source,
            job: job.clone(),
            snap: None,
            inner: Some(events),
        });
        self.round.end();
        Ok(end?.summary.unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arbiter_tokens_are_128_random_bits_in_hex() {
        let (a, b) = (super::new_token().unwrap(), super::new_token().unwrap());
        for t in [&a, &b] {
            assert_eq!(t.len(), 32, "{t}");
            assert!(t
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        }
        assert_ne!(a, b);
    }
}
