use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

use super::event::{serve_spec, Serve};
use super::events::Presenter;
use super::{BoardArgs, ModelArgs};
use crate::capture::{self, FrameSource, SourceOptions};
use crate::classify::Classifier;
use crate::infer::{InferConfig, WhiteSide};
use crate::pipeline::{self, Event, EventSink, RecordJob, RecordSummary};
use crate::record::log::RecordTags;
use crate::record::resume::Resume;
use crate::round::GameKind;
use crate::rules::chess::Chess;
use crate::rules::russian_draughts::{DraughtsOptions, RussianDraughts};
use crate::rules::tablut::{Tablut, TablutOptions};
use crate::track::TrackConfig;

/// The games `record` knows, and `free` for any other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RecordGame {
    Chess,
    #[value(name = "russian-draughts")]
    RussianDraughts,
    Tablut,
    Free,
}

#[derive(Args, Debug)]
pub struct RecordArgs {
    /// The game: chess, russian-draughts, tablut, or free (no rules: every stable
    /// change of the sites as placements and removals, any grid).
    #[arg(long, default_value = "chess")]
    pub game: RecordGame,
    /// A video file, a folder of photos, a single photo, camera:N, or a stream URL.
    #[arg(long)]
    pub input: String,
    #[command(flatten)]
    pub board: BoardArgs,
    /// The edge of the corner quadrilateral on White's side (bottom = BL→BR), or auto
    /// to decide from the first still view against the start position.
    #[arg(long, default_value = "auto")]
    pub white: String,
    /// Start position (chess FEN, or PDN FEN for draughts); default the game's start.
    #[arg(long)]
    pub fen: Option<String>,
    /// Start position for Tablut, in its text format.
    #[arg(long)]
    pub position: Option<String>,
    /// Where to write the PGN (chess).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Where to write the PDN (draughts).
    #[arg(long)]
    pub pdn: Option<PathBuf>,
    /// Where to write the record (any game).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print JSON lines on stdout: one per accepted move, unexplained change, sync change.
    #[arg(long)]
    pub events: bool,
    /// Print every still view's readings on stderr (also with BOARDSCRIBE_DEBUG=1).
    #[arg(long)]
    pub debug: bool,
    /// Frames per second for photo folders (timestamps), or to override a video's rate.
    #[arg(long)]
    pub fps: Option<f64>,
    /// Videos and cameras: look at no more than this many frames a second (the
    /// rest are decoded but not converted or analysed); 0 looks at every frame.
    #[arg(long, default_value_t = 15.0)]
    pub max_fps: f64,
    /// Seconds the board must be still before a view counts (default 0.4; photo
    /// folders: 0, every photo is a candidate state).
    #[arg(long)]
    pub quiet: Option<f64>,
    /// Record tags.
    #[arg(long, default_value = "")]
    pub event: String,
    #[arg(long, default_value = "")]
    pub site: String,
    #[arg(long, default_value = "")]
    pub round: String,
    /// Name of the player of the white pieces.
    #[arg(long = "white-name", default_value = "")]
    pub white_name: String,
    /// Name of the player of the black pieces.
    #[arg(long = "black-name", default_value = "")]
    pub black_name: String,
    /// Date tag, YYYY.MM.DD (default today).
    #[arg(long)]
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

pub fn run(a: RecordArgs) -> anyhow::Result<()> {
    let out = match (&a.pgn, &a.pdn, &a.out) {
        (Some(p), None, None) | (None, Some(p), None) | (None, None, Some(p)) => p.clone(),
        (None, None, None) => bail!("say where to write the record: --pgn, --pdn or --out"),
        _ => bail!("give one output: --pgn, --pdn or --out"),
    };
    let white = match a.white.as_str() {
        "auto" => None,
        s => Some(s.parse::<WhiteSide>().map_err(anyhow::Error::msg)?),
    };
    let serve = match (&a.serve, a.game) {
        (None, _) => None,
        (Some(_), RecordGame::Free) => {
            bail!("--serve shows games with rules: chess, russian-draughts or tablut")
        }
        (Some(addr), game) => {
            let kind = match game {
                RecordGame::RussianDraughts => GameKind::RussianDraughts,
                RecordGame::Tablut => GameKind::Tablut,
                _ => GameKind::Chess,
            };
            let spec = serve_spec(kind, &a.input, &a.white_name, &a.black_name);
            Some(Serve::start(addr, spec, tags(&a), out.clone())?)
        }
    };
    let mut classifier = a.model.load()?;
    let lens = a.board.undistorter()?;
    let mut source = capture::open(
        &a.input,
        SourceOptions {
            fps: a.fps,
            max_fps: (a.max_fps > 0.0).then_some(a.max_fps),
        },
    )?;
    if let Some(lens) = lens {
        source = Box::new(capture::UndistortedSource::new(source, lens));
    }
    if let Some(s) = &serve {
        source = s.tap(source);
    }
    let Found {
        pose,
        located_in,
        mut source,
    } = find_board(&a.board, source)?;
    let folder = std::path::Path::new(&a.input).is_dir();
    let track = TrackConfig {
        quiet_s: a.quiet.unwrap_or(if folder { 0.0 } else { 0.4 }),
        ..TrackConfig::default()
    };
    let job = RecordJob {
        pose,
        white,
        track,
        infer: InferConfig {
            // A photo may be taken with a hand still over the board: a change no
            // legal move explains is reported once the next photo shows it too.
            misfit_views: if track.quiet_s == 0.0 { 2 } else { 1 },
            ..InferConfig::default()
        },
        tags: tags(&a),
        out: out.clone(),
        debug: a.debug || std::env::var_os("BOARDSCRIBE_DEBUG").is_some(),
        progress: true,
        adapt: !a.no_adapt,
    };
    let bar = source.is_offline() && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut presenter = Presenter::new(a.events, bar);
    let start = a.fen.as_deref().or(a.position.as_deref());
    let summary = match a.game {
        RecordGame::Free => {
            let s = pipeline::record_free(&mut classifier, source.as_mut(), &job, &mut presenter)
                .with_context(|| format!("recording '{}'", a.input));
            presenter.finish();
            let s = s?;
            eprintln!(
                "recorded {} changes from {} frames ({} still views, {} sites classified) into {}",
                s.changes,
                s.frames,
                s.still_views,
                s.sites_read,
                out.display()
            );
            return Ok(());
        }
        RecordGame::Chess => {
            let g = match start {
                Some(f) => Chess::from_fen(f).map_err(anyhow::Error::msg)?,
                None => Chess::new(),
            };
            record_game(
                g,
                &mut classifier,
                source.as_mut(),
                job,
                located_in.as_ref(),
                &mut presenter,
                serve.as_ref(),
            )
        }
        RecordGame::RussianDraughts => {
            let o = DraughtsOptions::default();
            let g = match start {
                Some(f) => RussianDraughts::from_fen(f, o).map_err(anyhow::Error::msg)?,
                None => RussianDraughts::new(o),
            };
            record_game(
                g,
                &mut classifier,
                source.as_mut(),
                job,
                located_in.as_ref(),
                &mut presenter,
                serve.as_ref(),
            )
        }
        RecordGame::Tablut => {
            let mut o = TablutOptions::default();
            if a.white_first {
                o.first_move = crate::rules::Side::White;
            }
            let g = match start {
                Some(p) => Tablut::from_position(p, o).map_err(anyhow::Error::msg)?,
                None => Tablut::new(o),
            };
            record_game(
                g,
                &mut classifier,
                source.as_mut(),
                job,
                located_in.as_ref(),
                &mut presenter,
                serve.as_ref(),
            )
        }
    }
    .with_context(|| format!("recording '{}'", a.input));
    presenter.finish();
    let summary = summary?;
    eprintln!(
        "recorded {} half-moves from {} frames ({} still views, {} sites classified, {} unexplained changes{}) into {}",
        summary.plies,
        summary.frames,
        summary.still_views,
        summary.sites_read,
        summary.unexplained,
        if summary.in_sync {
            ""
        } else {
            "; ended out of sync"
        },
        out.display()
    );
    Ok(())
}

/// The record's tags from the flags.
fn tags(a: &RecordArgs) -> RecordTags {
    RecordTags {
        event: a.event.clone(),
        site: a.site.clone(),
        date: a.date.clone().unwrap_or_else(today),
        round: a.round.clone(),
        white: a.white_name.clone(),
        black: a.black_name.clone(),
    }
}

/// Records `game`; a grid located automatically in `located_in` is first moved by
/// whole cells to where that frame reads most like the game's start. With `serve`,
/// a live page follows the recording.
fn record_game<R: Resume>(
    game: R,
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    mut job: RecordJob,
    located_in: Option<&opencv::core::Mat>,
    events: &mut dyn EventSink,
    serve: Option<&Serve>,
) -> anyhow::Result<RecordSummary> {
    if let Some(image) = located_in {
        let (pose, (dr, dc)) = pipeline::snap_to_start(&game, classifier, image, job.pose)?;
        if (dr, dc) != (0, 0) {
            events.emit(Event::GridSnapped {
                rows: dr,
                cols: dc,
                corners: pose.corners.points().map(|(x, y)| [x, y]),
            });
        }
        job.pose = pose;
    }
    match serve {
        Some(s) => s.record(game, classifier, source, &job, events),
        None => pipeline::record(game, classifier, source, &job, events),
    }
}

/// Frames looked at for the board before giving up, when no corners are given.
const LOCATE_TRIES: usize = 60;

/// The board as `find_board` leaves it.
pub(super) struct Found {
    pub pose: crate::geometry::BoardPose,
    /// The frame the grid was located in; `None` when its corners were given.
    pub located_in: Option<opencv::core::Mat>,
    /// The source, with the frames looked at put back in front.
    pub source: Box<dyn FrameSource>,
}

/// The board's pose: from the corners given, or else found in the first frames
/// (every few frames, so a hand passing by does not stop it).
pub(super) fn find_board(
    board: &super::BoardArgs,
    mut source: Box<dyn FrameSource>,
) -> anyhow::Result<Found> {
    if !board.needs_locating()? {
        return Ok(Found {
            pose: board.pose()?,
            located_in: None,
            source,
        });
    }
    let mut held = Vec::new();
    let mut last_error = None;
    let step = (source.fps() / 2.0).round().max(1.0) as usize;
    while let Some(frame) = source.next() {
        held.push(frame?);
        let n = held.len() - 1;
        if n % step != 0 {
            continue;
        }
        let frame = &held[n];
        match board.pose_in(&frame.image, &format!("the frame at {:.1} s", frame.time_s)) {
            Ok(pose) => {
                let image = frame.image.clone();
                return Ok(Found {
                    pose,
                    located_in: Some(image),
                    source: Box::new(capture::Prepended::new(held, source)),
                });
            }
            Err(e) => last_error = Some(e),
        }
        if n / step + 1 >= LOCATE_TRIES {
            break;
        }
    }
    Err(last_error.unwrap_or_else(|| anyhow::anyhow!("the input has no frames")))
}

/// Today's date as YYYY.MM.DD (UTC).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(20_786), (2026, 11, 29));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
    }
}
