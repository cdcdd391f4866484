//! `boardscribe event round.toml --out DIR`: every board of a round recorded on its
//! own thread, a live page and the round PGN served; and `record --serve`, the same
//! page for one board.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use clap::Args;

use super::record::{find_board, today, Found};
use super::{BoardArgs, ModelArgs};
use crate::capture::{self, FrameSource, SourceOptions};
use crate::classify::Classifier;
use crate::geometry::{Corners, GridSpec};
use crate::infer::{InferConfig, WhiteSide};
use crate::pipeline::{self, Event, EventSink, RecordJob};
use crate::record::resume::Resume;
use crate::round::{
    self, Board, BoardEnd, BoardRunner, BoardSpec, GameKind, Round, RoundFile, Update,
};
use crate::rules::chess::Chess;
use crate::rules::russian_draughts::{DraughtsOptions, RussianDraughts};
use crate::rules::tablut::{Tablut, TablutOptions};
use crate::track::TrackConfig;

#[derive(Args, Debug)]
pub struct EventArgs {
    /// The round file (TOML): the event's tags and one [[board]] per board.
    pub round: PathBuf,
    /// Where the records go: board-N.pgn (.pdn, .txt) per board and round.pgn. Records
    /// found there are continued, never overwritten.
    #[arg(long)]
    pub out: PathBuf,
    /// Where the live page listens; 127.0.0.1 keeps it to this machine, 0.0.0.0:PORT
    /// opens it to the local network.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Seconds to keep the page up after every input has ended.
    #[arg(long, default_value_t = 0.0)]
    pub linger: f64,
    /// Play video files and photo folders at the pace they were filmed, as cameras
    /// would deliver them (as `realtime = true` in [event]).
    #[arg(long)]
    pub realtime: bool,
    /// Print every recorder event as a JSON line on stdout (with a `board` field).
    #[arg(long)]
    pub events: bool,
    #[command(flatten)]
    pub model: ModelArgs,
}

pub fn run(a: EventArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        a.linger.is_finite() && a.linger >= 0.0,
        "--linger must be a number of seconds, not {}",
        a.linger
    );
    let file = RoundFile::load(&a.round)?;
    let mut info = file.event;
    info.realtime |= a.realtime;
    let date = info.date.clone().unwrap_or_else(today);
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot make the folder '{}'", a.out.display()))?;
    let token = new_token();
    raise_fd_limit();
    let round = Round::new(info, date, file.boards, &a.out, token.clone())?;
    let server = crate::server::start(round.clone(), &a.listen)?;
    let base = format!("http://{}", server.addr);
    eprintln!("live page: {base}/");
    eprintln!("round PGN for broadcasts: {base}/round.pgn");
    eprintln!("arbiter page: {base}/?token={token}");
    eprintln!("arbiter token: {token}");
    let printer = print_updates(&round, a.events);
    stop_on_signal(&round);
    let runner = Arc::new(CliRunner { model: a.model });
    let reports = round::run_round(&round, runner);
    let _ = printer.join();
    let mut failed = Vec::new();
    for r in &reports {
        let b = round.board(r.number).map(|b| b.state());
        let plies = b.as_ref().map_or(0, |s| s.sans.len());
        let result = b.as_ref().map_or("*".into(), |s| s.result.clone());
        match &r.error {
            None => eprintln!("board {}: {plies} half-moves, result {result}", r.number),
            Some(e) => {
                eprintln!(
                    "board {}: failed after {} attempts: {e}",
                    r.number, r.attempts
                );
                failed.push(r.number.to_string());
            }
        }
    }
    eprintln!("records in {}", a.out.display());
    if a.linger > 0.0 && !round.is_stopping() {
        eprintln!("serving {base}/ for {} s more", a.linger);
        std::thread::sleep(std::time::Duration::from_secs_f64(a.linger));
    }
    anyhow::ensure!(
        failed.is_empty(),
        "board(s) {} could not be recorded (see above); the other records are complete",
        failed.join(", ")
    );
    Ok(())
}

/// Says on stderr what the arbiter should know (and every event on stdout with
/// `--events`), from the round's broadcast, until the round ends.
fn print_updates(round: &Arc<Round>, json: bool) -> std::thread::JoinHandle<()> {
    let mut rx = round.subscribe();
    std::thread::spawn(move || loop {
        match rx.blocking_recv() {
            Ok(Update::Record(n, line)) => {
                if json {
                    println!("{line}");
                }
                let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
                    continue;
                };
                let kind = v["type"].as_str().unwrap_or("");
                match kind {
                    "move" => {
                        let ply = v["ply"].as_u64().unwrap_or(0);
                        let dots = if ply % 2 == 1 { "." } else { "..." };
                        eprintln!(
                            "board {n}: {}{dots} {}",
                            ply.div_ceil(2),
                            v["san"].as_str().unwrap_or("")
                        )
                    }
                    "unexplained" => eprintln!(
                        "board {n}: unexplained change at {}: {}",
                        v["time"], v["squares"]
                    ),
                    "board_lost" => eprintln!("board {n}: the board is lost; waiting for it"),
                    _ => {}
                }
            }
            Ok(Update::End) => break,
            Ok(Update::Board(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
        }
    })
}

/// Set by SIGINT or SIGTERM.
static SIGNALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    // Only an atomic store: all a signal handler may safely do.
    SIGNALLED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Ctrl-C or SIGTERM asks every recorder to finish its record (as when its input
/// ends) and the command to end; a second one ends the process at once.
fn stop_on_signal(round: &Arc<Round>) {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
    let round = round.clone();
    std::thread::spawn(move || {
        while !SIGNALLED.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        #[cfg(unix)]
        // SAFETY: restoring the default action.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
        }
        eprintln!("stopping: every record is finished and written (again to end at once)");
        round.stop();
    });
}

/// Lets the process open as many descriptors as the system allows it (the soft
/// limit raised to the hard one) before the server takes its share, capped well
/// below it: spectators' connections never leave a recorder without one for its
/// video or its record.
fn raise_fd_limit() {
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

/// A token for the arbiter's actions: 128 random bits as hex.
fn new_token() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if random.is_err() {
        // No /dev/urandom: the standard library's randomly keyed hasher.
        use std::hash::{BuildHasher, Hasher};
        for chunk in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0),
            );
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Records a board as `record` would, from its entry in the round file.
struct CliRunner {
    model: ModelArgs,
}

impl BoardRunner for CliRunner {
    fn run(&self, round: &Round, board: &Board) -> anyhow::Result<BoardEnd> {
        let spec = &board.spec;
        let args = board_args(spec)?;
        let mut classifier = self.model.load()?;
        let realtime = spec.realtime.unwrap_or(round.info.realtime);
        let source = open_source(&spec.input, &args, spec.fps, spec.max_fps, realtime, board)?;
        let white = white_side(spec.white_side.as_deref())?;
        let fresh = !board.has_record();
        // The round's own stop ends the recording; locating is short.
        let never = std::sync::atomic::AtomicBool::new(false);
        let found = find_board(&args, source, &never, &spec.input)?;
        let job = job_for(&found, &spec.input, white, spec.quiet, board);
        let Found {
            located_in,
            mut source,
            ..
        } = found;
        // The grid is moved to where the frame reads as the start only for a new game.
        let snap = if fresh { located_in.as_ref() } else { None };
        let source = source.as_mut();
        match spec.game() {
            GameKind::Chess => {
                let g = match &spec.fen {
                    Some(f) => Chess::from_fen(f).map_err(anyhow::Error::msg)?,
                    None => Chess::new(),
                };
                record(round, board, g, &mut classifier, source, job, snap, None)
            }
            GameKind::RussianDraughts => {
                let o = DraughtsOptions::default();
                let g = match &spec.fen {
                    Some(f) => RussianDraughts::from_fen(f, o).map_err(anyhow::Error::msg)?,
                    None => RussianDraughts::new(o),
                };
                record(round, board, g, &mut classifier, source, job, snap, None)
            }
            GameKind::Tablut => {
                let mut o = TablutOptions::default();
                if spec.white_first {
                    o.first_move = crate::rules::Side::White;
                }
                let g = match &spec.position {
                    Some(p) => Tablut::from_position(p, o).map_err(anyhow::Error::msg)?,
                    None => Tablut::new(o),
                };
                record(round, board, g, &mut classifier, source, job, snap, None)
            }
        }
        .with_context(|| format!("board {} ('{}')", spec.number, spec.input))
    }
}

/// The `record` flags a board's entry stands for.
fn board_args(spec: &BoardSpec) -> anyhow::Result<BoardArgs> {
    let grid = spec
        .grid
        .as_deref()
        .map(str::parse::<GridSpec>)
        .transpose()
        .map_err(|e| anyhow::anyhow!("board {}: {e}", spec.number))?;
    let corners = spec
        .corners
        .as_deref()
        .map(str::parse::<Corners>)
        .transpose()
        .map_err(|e| anyhow::anyhow!("board {}: {e}", spec.number))?;
    let default_grid = spec
        .game()
        .default_grid()
        .parse::<GridSpec>()
        .map_err(|e| anyhow::anyhow!("board {}: {e}", spec.number))?;
    Ok(BoardArgs {
        grid,
        corners,
        profile: spec.profile.clone(),
        camera: spec.camera.clone(),
        default_grid: Some(default_grid),
    })
}

fn white_side(s: Option<&str>) -> anyhow::Result<Option<WhiteSide>> {
    match s {
        None | Some("auto") => Ok(None),
        Some(s) => Ok(Some(s.parse::<WhiteSide>().map_err(anyhow::Error::msg)?)),
    }
}

/// The board's input, undistorted, paced when asked, with a frame kept for the page.
fn open_source(
    input: &str,
    args: &BoardArgs,
    fps: Option<f64>,
    max_fps: Option<f64>,
    realtime: bool,
    board: &Board,
) -> anyhow::Result<Box<dyn FrameSource>> {
    let max_fps = max_fps.unwrap_or(15.0);
    let mut source = capture::open(
        input,
        SourceOptions {
            fps,
            max_fps: (max_fps > 0.0).then_some(max_fps),
            ..SourceOptions::default()
        },
    )?;
    if let Some(lens) = args.undistorter()? {
        source = Box::new(capture::UndistortedSource::new(source, lens));
    }
    if realtime && source.is_offline() {
        source = Box::new(capture::Paced::new(source));
    }
    Ok(Box::new(capture::Tapped::new(
        source,
        board.frame.clone(),
        1.0,
    )))
}

/// What a recording of the board needs besides the game.
fn job_for(
    found: &Found,
    input: &str,
    white: Option<WhiteSide>,
    quiet: Option<f64>,
    board: &Board,
) -> RecordJob {
    let folder = Path::new(input).is_dir();
    let track = TrackConfig {
        quiet_s: quiet.unwrap_or(if folder { 0.0 } else { 0.4 }),
        ..TrackConfig::default()
    };
    RecordJob {
        timeline: Default::default(),
        pose: found.pose,
        white,
        track,
        infer: InferConfig {
            misfit_views: if track.quiet_s == 0.0 { 2 } else { 1 },
            ..InferConfig::default()
        },
        tags: board.tags.clone(),
        out: board.path.clone(),
        debug: false,
        progress: false,
        adapt: true,
    }
}

/// Records one board's game (moving a located grid to the start first, for a new
/// game), through the round so that the page and the round PGN follow.
#[allow(clippy::too_many_arguments)]
fn record<R: Resume>(
    round: &Round,
    board: &Board,
    game: R,
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    mut job: RecordJob,
    snap: Option<&opencv::core::Mat>,
    mut inner: Option<&mut dyn EventSink>,
) -> anyhow::Result<BoardEnd> {
    if let Some(image) = snap {
        let (pose, (dr, dc)) = pipeline::snap_to_start(&game, classifier, image, job.pose)?;
        if (dr, dc) != (0, 0) {
            let e = Event::GridSnapped {
                rows: dr,
                cols: dc,
                corners: pose.corners.points().map(|(x, y)| [x, y]),
            };
            if let Some(i) = inner.as_deref_mut() {
                i.emit(e);
            }
        }
        job.pose = pose;
    }
    board.set_pose(&job.pose);
    round::record_board(round, board, game, classifier, source, &job, inner)
}

/// `record --serve ADDR`: the live page for the one board `record` records.
pub struct Serve {
    round: Arc<Round>,
}

impl Serve {
    /// Starts the server for one board recorded into `out`.
    pub fn start(
        listen: &str,
        spec: BoardSpec,
        tags: crate::record::log::RecordTags,
        out: PathBuf,
    ) -> anyhow::Result<Serve> {
        let token = new_token();
        raise_fd_limit();
        let round = Round::single(spec, tags, out, token.clone())?;
        let server = crate::server::start(round.clone(), listen)?;
        let base = format!("http://{}", server.addr);
        eprintln!("live page: {base}/board/1");
        eprintln!(
            "record for broadcasts: {base}/board/1.{}",
            round.boards[0].kind().extension()
        );
        eprintln!("arbiter page: {base}/board/1?token={token}");
        Ok(Serve { round })
    }

    /// The page's recorder starts the game afresh, whatever the record on disk
    /// holds (`record` without `--resume`).
    pub fn start_fresh(&self) {
        self.round.boards[0].start_fresh();
    }

    /// Wraps the source so that the page shows its latest frame.
    pub fn tap(&self, source: Box<dyn FrameSource>) -> Box<dyn FrameSource> {
        Box::new(capture::Tapped::new(
            source,
            self.round.boards[0].frame.clone(),
            1.0,
        ))
    }

    /// Records the game (as `pipeline::record` would) with the page following.
    pub fn record<R: Resume>(
        &self,
        game: R,
        classifier: &mut Classifier,
        source: &mut dyn FrameSource,
        job: &RecordJob,
        events: &mut dyn EventSink,
    ) -> anyhow::Result<pipeline::RecordSummary> {
        let board = &self.round.boards[0];
        board.set_pose(&job.pose);
        let end = round::record_board(
            &self.round,
            board,
            game,
            classifier,
            source,
            job,
            Some(events),
        );
        self.round.end();
        Ok(end?.summary.unwrap_or_default())
    }
}

/// The board entry `record --serve` shows.
pub fn serve_spec(game: GameKind, input: &str, white: &str, black: &str) -> BoardSpec {
    BoardSpec {
        number: 1,
        game: Some(game),
        input: input.to_string(),
        white: white.to_string(),
        black: black.to_string(),
        ..BoardSpec::default()
    }
}
