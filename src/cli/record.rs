use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::Args;

use super::events::Presenter;
use super::values::plural;
use super::{signals, BoardArgs, ModelArgs};
use crate::capture::{self, FrameSource, SourceOptions};
use crate::game::{GameKind, GameSetup, Setup, SetupError};
use crate::geometry::{BoardPose, GridSpec};
use crate::infer::WhiteSide;
use crate::pipeline::{
    self, FindError, Given, Outcome, PlanError, Problem, RecordPlan, Recorded, Recorder, Timeline,
};
use crate::record::Lock;
use crate::record::Tags;
use crate::round;
use crate::rules::go::GoOptions;
use crate::runner::Serve;
use boardscribe_cli::{usage, Incomplete};

/// `--game`: a game with rules, or `free` (None) for any other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordGame(pub Option<GameKind>);

impl RecordGame {
    /// The game with rules; None for `free`.
    pub fn rules(self) -> Option<GameKind> {
        self.0
    }

    /// The grid the game is played on by default; None for `free`, which takes any.
    fn grid(self) -> Option<GridSpec> {
        self.0.and_then(|k| k.default_grid().parse().ok())
    }

    /// Whether the game is played on `grid`: its one grid, or one of Go's sizes.
    fn plays_on(self, grid: GridSpec) -> bool {
        self.0.is_none_or(|k| k.plays_on(&grid.to_string()))
    }

    fn name(self) -> &'static str {
        self.0.map_or("free", GameKind::name)
    }
}

/// The names `--game` takes: every game's, and `free`.
fn game_or_free() -> impl clap::builder::TypedValueParser<Value = RecordGame> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(super::game_names().chain([PossibleValue::new("free")]))
        .map(|name| RecordGame(name.parse().ok()))
}

#[derive(Args, Debug)]
pub struct RecordArgs {
    /// The game: chess, russian-draughts (or draughts), tablut, go (19x19:points by
    /// default, or --grid 13x13:points or 9x9:points), or free (no rules: every
    /// stable change of the sites as placements and removals, any grid).
    #[arg(long, default_value = "chess", value_parser = game_or_free())]
    pub game: RecordGame,
    /// A video file, a folder of photos, a single photo, camera:N, or a stream URL.
    #[arg(long)]
    pub input: String,
    #[command(flatten)]
    pub board: BoardArgs,
    /// One of several boards in the camera's view (a camera over a tournament
    /// table): the N-th board found in the first frames, from 1, in reading
    /// order (rows from the top, each from the left; `locate --all` numbers
    /// them). Only its part of the frame is watched: another board's moves and
    /// hands never pause or disturb it.
    #[arg(long = "board", value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64), conflicts_with_all = ["corners", "profile"])]
    pub board_n: Option<u16>,
    /// The edge of the corner quadrilateral on White's side (bottom = BL→BR), or auto
    /// to decide from the first still view against the start position.
    #[arg(long, default_value = "auto", value_parser = parse_white)]
    pub white: std::option::Option<WhiteSide>,
    /// Start position (chess FEN, or PDN FEN for draughts); default the game's start.
    #[arg(long)]
    pub fen: Option<String>,
    /// Start position for Tablut or Go, in its text format (Go: rows from the top,
    /// X black, O white, digits for empty points, then b or w for the side to play).
    #[arg(long)]
    pub position: Option<String>,
    /// Go: handicap stones on the standard star points (2 to 9), White to play first.
    #[arg(long, default_value_t = 0)]
    pub handicap: u8,
    /// Go: the komi, written as the KM tag (6.5, 7, 0.5).
    #[arg(long)]
    pub komi: Option<crate::rules::go::Komi>,
    /// Go: positional superko (no move may recreate an earlier board), for
    /// Chinese, AGA or New Zealand rules; without it only the simple ko rule holds.
    #[arg(long)]
    pub superko: bool,
    /// The moves played before recording began, when you know them ("1. e4 e5
    /// 2. Nf3", in the record's notation, from the start or --fen): they are
    /// written first, marked as given, and recording goes on from the position
    /// after them
    #[arg(long)]
    pub moves: Option<String>,
    /// Where to write the PGN (chess).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Where to write the PDN (draughts).
    #[arg(long)]
    pub pdn: Option<PathBuf>,
    /// Where to write the SGF (Go).
    #[arg(long)]
    pub sgf: Option<PathBuf>,
    /// Where to write the record (any game).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Go on with the game in the record (after a crash, a closed laptop, a camera
    /// unplugged): from the position after its last move, with its tags and
    /// comments. Without it, a record that already holds a game is not touched.
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,
    /// Replace a record that already holds a game.
    #[arg(long)]
    pub force: bool,
    /// The game's result when the board does not end it (a resignation, a draw
    /// agreed or claimed, a flag, an arbiter's decision): 1-0, 0-1, 1/2-1/2 or *
    /// (draughts also takes PDN's 2-0, 0-2, 1-1 and 0-0). Written at the end of the
    /// run on the file's last game, with a comment, also with --resume. A result
    /// the rules gave (checkmate, stalemate, a dead position) is never overruled:
    /// a different --result is refused, exit status 1, the record keeping the
    /// rules' result. A draw that may only be claimed (threefold repetition, fifty
    /// moves) is noted in the record and left to this flag or the arbiter.
    #[arg(long, value_name = "RESULT")]
    pub result: Option<String>,
    /// Write the first view of the board with the grid drawn, a1 and White's edge
    /// marked (once White's edge is known): the picture to check before a game.
    #[arg(long)]
    pub overlay: Option<PathBuf>,
    /// Print JSON lines on stdout: one per accepted move, unexplained change, sync change.
    #[arg(long)]
    pub events: bool,
    /// Print every still view's readings on stderr, and every frame looked at for the
    /// grid (also with BOARDSCRIBE_DEBUG=1).
    #[arg(long)]
    pub debug: bool,
    /// Frames per second for photo folders (timestamps), or to override a video's rate.
    #[arg(long, value_parser = super::values::float_in(round::FPS.0, round::FPS.1))]
    pub fps: Option<f64>,
    /// Videos and cameras: look at no more than this many frames a second (the
    /// rest are decoded but not converted or analysed); 0 looks at every frame.
    #[arg(long, default_value_t = 15.0, value_parser = super::values::float_in(round::MAX_FPS.0, round::MAX_FPS.1))]
    pub max_fps: f64,
    /// Seconds the board must be still before a view counts (default 0.4; photos:
    /// 0, every photo is a candidate state).
    #[arg(long, value_parser = super::values::float_in(round::QUIET_S.0, round::QUIET_S.1))]
    pub quiet: Option<f64>,
    /// Cameras and streams: seconds to keep reconnecting when frames stop before
    /// the recording ends.
    #[arg(long, default_value_t = 60.0, value_parser = super::values::float_in(0.0, 86_400.0))]
    pub reconnect: f64,
    /// The Event tag: the tournament or match.
    #[arg(long, default_value = "")]
    pub event: String,
    /// The Site tag: where the game is played (city, club).
    #[arg(long, default_value = "")]
    pub site: String,
    /// The Round tag.
    #[arg(long, default_value = "")]
    pub round: String,
    /// Name of the player of the white pieces.
    #[arg(long = "white-name", default_value = "")]
    pub white_name: String,
    /// Name of the player of the black pieces.
    #[arg(long = "black-name", default_value = "")]
    pub black_name: String,
    /// Date tag, YYYY.MM.DD, ? for unknown digits (default today).
    #[arg(long, value_parser = super::values::date)]
    pub date: Option<String>,
    /// Do not adapt the classifier to this board at the first still view.
    #[arg(long)]
    pub no_adapt: bool,
    /// Tablut: White moves first instead of Black.
    #[arg(long)]
    pub white_first: bool,
    /// Serve a live page for this board at ADDR (such as 127.0.0.1:8080): diagram,
    /// moves, camera frame, alerts, the record for broadcasts, arbiter actions.
    #[arg(long, value_name = "ADDR")]
    pub serve: Option<String>,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// `--white`: an edge, or `auto` (None).
fn parse_white(s: &str) -> Result<Option<WhiteSide>, String> {
    match s {
        "auto" => Ok(None),
        s => s.parse::<WhiteSide>().map(Some).map_err(|e| e.to_string()),
    }
}

/// The record's path and the flag that named it, checked against the game.
fn output(a: &RecordArgs) -> anyhow::Result<(&'static str, PathBuf)> {
    let given: Vec<(&'static str, &PathBuf)> = [
        ("--pgn", &a.pgn),
        ("--pdn", &a.pdn),
        ("--sgf", &a.sgf),
        ("--out", &a.out),
    ]
    .into_iter()
    .filter_map(|(flag, p)| p.as_ref().map(|p| (flag, p)))
    .collect();
    let (flag, path) = match given[..] {
        [one] => one,
        [] => {
            return Err(usage!(
                "say where to write the record: --pgn, --pdn, --sgf or --out"
            ))
        }
        _ => return Err(usage!("give one output: --pgn, --pdn, --sgf or --out")),
    };
    // --pgn, --pdn and --sgf name the record by its format.
    let fits = |k: GameKind| flag == format!("--{}", k.extension());
    let g = a.game;
    if flag != "--out" && !g.rules().is_some_and(fits) {
        let (format, of) = match flag {
            "--pgn" => ("--pgn", "chess"),
            "--pdn" => ("--pdn", "draughts"),
            _ => ("--sgf", "Go"),
        };
        return Err(usage!(
            "{format} is for {of} records; a {} record goes to --out (or --pgn for chess, --pdn for draughts, --sgf for Go)",
            g.name()
        ));
    }
    Ok((flag, path.clone()))
}

/// The flags checked against each other, the game and the files, before anything
/// is opened: the game set up (None for `free`), the board's flags with the
/// game's grid, the grid read, and the record's path.
fn check(a: &RecordArgs) -> anyhow::Result<(Option<GameSetup>, BoardArgs, GridSpec, PathBuf)> {
    let (out_flag, out) = output(a)?;
    if a.resume && a.game.rules().is_none() {
        return Err(usage!(
            "--resume goes on with a game of chess, draughts or Tablut; a --game free log cannot be resumed (use --force, or another --out)"
        ));
    }
    if a.fen.is_some() && a.position.is_some() {
        return Err(usage!(
            "give the start position once, with --fen or --position"
        ));
    }
    if (a.fen.is_some() || a.position.is_some()) && a.resume {
        return Err(usage!(
            "--resume starts from the record's last position; leave out --fen and --position"
        ));
    }
    let mut board = a.board.clone();
    board.default_grid = a.game.grid();
    let profile = board.load_profile()?;
    let grid = board.grid(profile.as_ref())?;
    if let (Some(want), false) = (a.game.grid(), a.game.plays_on(grid)) {
        let others = match a.game.rules().map(GameKind::grids) {
            Some(g) if g.len() > 1 => format!(" (or {})", g[1..].join(", ")),
            _ => String::new(),
        };
        return Err(usage!(
            "{} is played on a {want} grid{others}, not {grid}: leave out --grid, or give --grid {want}",
            a.game.name()
        ));
    }
    // The game and its start, parsed once: refused here, before the input is
    // opened, and the same start for the recorder and the live page.
    let setup = match a.game.rules() {
        Some(kind) => Some(game_setup(kind, a, grid)?),
        None => None,
    };
    if let Some(token) = &a.result {
        let valid = match &setup {
            None => Err(
                "a --game free log has no result; --result is for chess, draughts and Tablut"
                    .to_string(),
            ),
            Some(game) => game.check_result(token).map_err(|e| e.to_string()),
        };
        if let Err(e) = valid {
            return Err(usage!("--result: {e}"));
        }
    }
    if let Some(o) = &a.overlay {
        if !crate::capture::is_image_path(o) {
            return Err(usage!(
                "--overlay '{}' must name an image: .png or .jpg",
                o.display()
            ));
        }
    }
    // What is read must never be written over, and what is written must be a
    // regular file (or nothing yet).
    let mut inputs: Vec<&Path> = Vec::new();
    if !a.input.starts_with("camera:") && !crate::capture::is_stream_url(&a.input) {
        inputs.push(Path::new(&a.input));
    }
    inputs.extend(board.profile.as_deref());
    inputs.extend(board.camera.as_deref());
    inputs.extend(a.model.model.as_deref());
    let mut outputs = vec![(out_flag, out.as_path())];
    if let Some(o) = &a.overlay {
        outputs.push(("--overlay", o.as_path()));
    }
    super::paths::check_outputs(&outputs, &inputs)?;
    Ok((setup, board, grid, out))
}

pub fn run(a: RecordArgs) -> anyhow::Result<()> {
    let (setup, board, grid, out) = check(&a)?;
    // One recorder per record; the lock is held until the run ends.
    let _lock = Lock::record(&out, &super::command_line()).map_err(anyhow::Error::msg)?;
    let previous = pipeline::previous_record(&out, a.resume, a.force)?;
    if a.resume && previous.is_none() && !a.force {
        errln!(
            "note: '{}' holds no record yet; starting a new one",
            out.display()
        );
    }
    let stop = signals::install();
    let mut serve = serve(&a, setup.as_ref(), &out, previous.is_none())?;
    // Stones on line crossings are read by the model trained on them.
    let mut classifier = a.model.load_for(grid.points)?;
    let source = open_input(&a, &board, &stop)?;
    // One board of several: its page shows its own region, once it is found.
    let source = match &serve {
        Some(s) if a.board_n.is_none() => s.tap(source),
        _ => source,
    };
    let offline = source.is_offline();
    let bar = offline && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut presenter = Presenter::new(a.events, bar)
        .stop_on(stop.clone())
        .timeline(Timeline::of(source.as_ref()));
    let debug = a.debug || std::env::var_os("BOARDSCRIBE_DEBUG").is_some();
    let plan = RecordPlan {
        game: setup.clone(),
        previous,
        moves: a.moves.clone(),
        result: a.result.clone(),
        placement: match a.board_n {
            Some(n) => pipeline::Placement::OneOf {
                grid: board.grid(None)?,
                board: n as usize,
            },
            None => board.placement()?,
        },
        input: a.input.clone(),
        white: a.white,
        quiet_s: a.quiet,
        tags: tags(&a),
        out: out.clone(),
        debug,
        adapt: !a.no_adapt,
    };
    let mut located = plan
        .locate(source, &stop, &mut presenter)
        .map_err(plan_error)?;
    if let (Some(s), Some(_)) = (&serve, a.board_n) {
        located = located.map_source(|source| s.tap(source));
    }

    // The overlay: the first view with the grid, and a1 and White's edge once
    // White's edge is known.
    if let Some(path) = &a.overlay {
        let mut draw = overlay_writer(path.clone(), located.view().clone(), located.job.pose);
        match a.white.or(setup.is_none().then_some(WhiteSide::Bottom)) {
            Some(side) => presenter.say(&draw(Some(side))?),
            None => {
                presenter.say(&draw(None)?);
                presenter = presenter.on_orientation(Box::new(move |side| draw(Some(side))));
            }
        }
    }

    let recorder = serve.as_mut().map(|s| s as &mut dyn Recorder);
    let outcome = located.record(&mut classifier, &mut presenter, recorder);
    presenter.finish(outcome.is_ok() && stop_reason().is_none());
    present(outcome.map_err(plan_error)?, &mut presenter, &out, offline)
}

/// `--serve`: the live page started (its addresses said), for a game with rules.
fn serve(
    a: &RecordArgs,
    setup: Option<&GameSetup>,
    out: &Path,
    fresh: bool,
) -> anyhow::Result<Option<Serve>> {
    let (addr, game) = match (&a.serve, setup) {
        (None, _) => return Ok(None),
        (Some(_), None) => {
            bail!("--serve shows games with rules: chess, russian-draughts or tablut")
        }
        (Some(addr), Some(game)) => (addr, game),
    };
    // Not --resume: the page's recorder starts the game afresh.
    let (serve, urls) = Serve::start(
        addr,
        game.clone(),
        &a.input,
        tags(a),
        out.to_path_buf(),
        fresh,
    )?;
    eprintln!("live page: {}", urls.page);
    eprintln!("record for broadcasts: {}", urls.record);
    eprintln!("arbiter page: {}", urls.arbiter);
    Ok(Some(serve))
}

/// The input opened, undistorted with the lens profile when one is named.
fn open_input(
    a: &RecordArgs,
    board: &BoardArgs,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> anyhow::Result<Box<dyn FrameSource>> {
    let lens = board.undistorter()?;
    Ok(capture::open_undistorted(
        &a.input,
        SourceOptions::default()
            .with_fps(a.fps)
            .with_max_fps((a.max_fps > 0.0).then_some(a.max_fps))
            .with_reconnect(a.reconnect, stop.clone()),
        lens,
    )?)
}

/// A plan's error as the command says it: a stop by its signal's name.
fn plan_error(e: PlanError) -> anyhow::Error {
    match e {
        PlanError::Find(FindError::Stopped) => anyhow::anyhow!(
            "stopped by {} before the board was found",
            stop_reason().unwrap_or_else(|| "a signal".into())
        ),
        PlanError::NoFrame(input) => anyhow::anyhow!(
            "'{input}' gave no frame{}",
            match stop_reason() {
                Some(s) => format!(" before {s}"),
                None => String::new(),
            }
        ),
        e => anyhow::Error::new(e),
    }
}

/// What was recorded, what became of `--result`, and the exit status.
fn present(o: Outcome, presenter: &mut Presenter, out: &Path, offline: bool) -> anyhow::Result<()> {
    presenter.say(&match &o.recorded {
        Recorded::Free(s) => format!(
            "recorded {} from {} ({}, {} classified) into {}",
            plural(s.changes, "change", "changes"),
            plural(s.frames, "frame", "frames"),
            plural(s.still_views, "still view", "still views"),
            plural(s.sites_read, "site", "sites"),
            out.display()
        ),
        Recorded::Game { summary, base } => format!(
            "recorded {}{} from {} ({}, {} classified, {}{}) into {}",
            plural(summary.plies, "half-move", "half-moves"),
            if *base > 0 {
                format!(" ({} in all)", summary.plies + base)
            } else {
                String::new()
            },
            plural(summary.frames, "frame", "frames"),
            plural(summary.still_views, "still view", "still views"),
            plural(summary.sites_read, "site", "sites"),
            plural(
                summary.unexplained,
                "unexplained change",
                "unexplained changes"
            ),
            if summary.in_sync {
                ""
            } else {
                "; ended out of sync"
            },
            out.display()
        ),
    });
    let problems: Vec<String> = o.problems.iter().map(problem_text).collect();
    match o.given {
        Given::Nothing => {}
        Given::Set(token) => presenter.say(&format!("result {token} written (--result)")),
        Given::Stands(token) => presenter.say(&format!("the record's result is {token} already")),
        Given::Refused(why) => {
            let mut line = format!("--result not written: {why}");
            if !problems.is_empty() {
                line.push_str(&format!("; besides, {}", problems.join("; ")));
            }
            bail!(line);
        }
    }
    finish(problems, o.end_reason, offline, out)
}

/// Why the record is not complete, as the command says it.
fn problem_text(p: &Problem) -> String {
    match p {
        Problem::NoStillView { quiet_s, frames } => format!(
            "nothing was recorded: the board was never still for --quiet {quiet_s} s in {}",
            plural(*frames, "frame", "frames")
        ),
        Problem::NotTakenUp {
            base,
            past_seen: Some(ply),
        } => format!(
            "the input never showed the record's last position (after half-move {base}); the latest it showed was after half-move {ply}, already recorded"
        ),
        Problem::NotTakenUp {
            base,
            past_seen: None,
        } => format!("the input never showed the record's last position (after half-move {base})"),
        Problem::NoMove { base, still_views } => format!(
            "no move was recorded{} in {} of the board",
            if *base > 0 {
                " after the resumed record's last"
            } else {
                ""
            },
            plural(*still_views, "still view", "still views")
        ),
        Problem::OutOfSync => "the recording ended out of sync: the board shows a change no legal move explains (see the record's last comment)".to_string(),
    }
}

/// The signal that stopped the recording, by name.
fn stop_reason() -> Option<String> {
    signals::caught().map(signals::name)
}

/// The end of a recording: exit status 0, or 3 with every reason on one line when
/// the record, written as it is, is not to be trusted as complete.
fn finish(
    mut problems: Vec<String>,
    end_reason: Option<String>,
    offline: bool,
    out: &Path,
) -> anyhow::Result<()> {
    if let Some(why) = end_reason {
        problems.insert(0, why);
    }
    if let Some(sig) = stop_reason() {
        // Stopping a camera or a stream is how a live recording ends; a file
        // stopped half-way is not recorded whole.
        if offline {
            problems.insert(0, format!("stopped by {sig} before the end of the input"));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(anyhow::Error::new(Incomplete(format!(
        "the record '{}' is incomplete: {}",
        out.display(),
        problems.join("; ")
    ))))
}

/// `--game`'s game with its start (`--fen`, or `--position`, the same for every
/// game) and options (`--white-first`); a start that is not a position is an
/// input that cannot be used (exit status 1), an option of another game a usage
/// error (2).
fn game_setup(kind: GameKind, a: &RecordArgs, grid: GridSpec) -> anyhow::Result<GameSetup> {
    let (flag, start) = match (&a.fen, &a.position) {
        (Some(f), _) => ("--fen", Some(f.clone())),
        (None, p) => ("--position", p.clone()),
    };
    let mut go = GoOptions::default();
    if let Some(size) = kind.board_size(&grid.to_string()) {
        go.size = size;
    }
    go.handicap = a.handicap;
    go.komi = a.komi;
    go.superko = a.superko;
    let setup = Setup {
        kind,
        start,
        white_first: a.white_first,
        go,
    };
    GameSetup::parse(&setup).map_err(|e| match e.is_usage() {
        true => usage!("{}: {e}", option_flag(&e)),
        false => anyhow::anyhow!("{flag}: {e}"),
    })
}

/// The flag a usage error of the game's setup comes from.
fn option_flag(e: &SetupError) -> &'static str {
    match e {
        SetupError::NotForGame {
            option: "white-first",
            ..
        } => "--white-first",
        SetupError::NotForGame { option: "komi", .. } => "--komi",
        SetupError::NotForGame {
            option: "superko", ..
        } => "--superko",
        SetupError::NotForGame { option: "size", .. } => "--grid",
        _ => "--handicap",
    }
}

/// Draws the overlay for `record --overlay`: the grid, and a1 and White's edge
/// once the side is known.
fn overlay_writer(
    path: PathBuf,
    frame: opencv::core::Mat,
    pose: BoardPose,
) -> impl FnMut(Option<WhiteSide>) -> anyhow::Result<String> {
    move |side| {
        let mut img = frame.clone();
        crate::geometry::draw_overlay(&mut img, &pose)?;
        let mut said = format!("overlay: {}", path.display());
        if let Some(side) = side {
            crate::geometry::draw_white_side(&mut img, &pose, side)?;
            said.push_str(&format!(" (White at the {side} edge)"));
        }
        boardscribe_cli::write_image(&path, &img)?;
        Ok(said)
    }
}

/// The record's tags from the flags.
fn tags(a: &RecordArgs) -> Tags {
    Tags {
        event: a.event.clone(),
        site: a.site.clone(),
        date: a.date.clone().unwrap_or_else(crate::record::today),
        round: a.round.clone(),
        white: a.white_name.clone(),
        black: a.black_name.clone(),
        extra: Vec::new(),
    }
}
