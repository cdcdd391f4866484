//! A recording from its plan to its end, as `record` runs it: the board found,
//! the still-time and misfit policy chosen for the input, the grid moved onto
//! the start, the game begun afresh, after moves given, or taken up from its
//! record, the result given at the end, and what makes the record incomplete.
//! The caller presents the events and the outcome.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use opencv::core::{Mat, Rect};

use super::find::{find_board, FindError, Found, Placement};
use super::pick::Shifted;
use super::{
    record_free, snap_to_start, Before, Event, EventSink, FreeSummary, PipelineError, RecordJob,
    RecordSummary, Timeline,
};
use crate::capture::FrameSource;
use crate::classify::Classifier;
use crate::game::{GameSetup, GameVisitor};
use crate::infer::{InferConfig, WhiteSide};
use crate::record::write_atomic;
use crate::record::Resume;
use crate::record::{GameRecord, RecordFile, Tags};
use crate::rules::Rules;
use crate::track::TrackConfig;

/// An error a [`Recorder`] hands back.
pub type RecorderError = Box<dyn std::error::Error + Send + Sync>;

/// Records a game some other way than straight into its file: the live page's
/// recorder, which records through its round (`record --serve`) and takes the
/// record up from disk itself.
pub trait Recorder {
    /// Records the game the page was set up with from `source`, as
    /// [`super::record`] would.
    fn record(
        &mut self,
        classifier: &mut Classifier,
        source: &mut dyn FrameSource,
        job: &RecordJob,
        events: &mut dyn EventSink,
    ) -> Result<RecordSummary, RecorderError>;
}

/// Everything a recording is decided by before its input is read.
pub struct RecordPlan {
    /// The game and its start; None records any game without rules (`free`).
    pub game: Option<GameSetup>,
    /// The text of the record to go on with (`--resume`).
    pub previous: Option<String>,
    /// Moves played before recording began, in the record's notation (`--moves`).
    pub moves: Option<String>,
    /// The result to give the game at the end (`--result`).
    pub result: Option<String>,
    /// Where the board is, or the grid to find.
    pub placement: Placement,
    /// The input as the user named it, for messages.
    pub input: String,
    /// White's edge; None decides from the first still view.
    pub white: Option<WhiteSide>,
    /// Seconds the board must be still; None takes the input's default.
    pub quiet_s: Option<f64>,
    /// The record's tags.
    pub tags: Tags,
    /// Where the record is written.
    pub out: PathBuf,
    /// Report every still view's readings and every frame looked at for the grid.
    pub debug: bool,
    /// Adapt the classifier to the board at the first still view.
    pub adapt: bool,
}

/// Why a plan could not be run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The board could not be found.
    #[error(transparent)]
    Find(#[from] FindError),
    /// The input ended before its first frame, for this reason.
    #[error("{0}")]
    Ended(String),
    /// The input gave no frame.
    #[error("'{0}' gave no frame")]
    NoFrame(String),
    /// The recording of the input failed.
    #[error("recording '{input}'")]
    Recording {
        /// The input, as the user named it.
        input: String,
        /// Why.
        #[source]
        source: RecordError,
    },
}

/// Why a recording failed once the board was found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The pipeline failed.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// The live page's recorder failed.
    #[error(transparent)]
    Recorder(RecorderError),
    /// Moves were given for a record taken up again.
    #[error("--moves starts a game: it cannot be given with --resume")]
    MovesWithResume,
    /// A given move is not legal where it stands.
    #[error("--moves: '{token}' is not a legal move after {} (in the record's notation, such as \"1. e4 e5 2. Nf3\")", half_moves(*after))]
    IllegalGivenMove {
        /// The move as given.
        token: String,
        /// Moves given before it.
        after: usize,
    },
    /// The moves given hold no move.
    #[error("--moves: no move found in '{0}'")]
    NoGivenMove(String),
    /// The record cannot be read back.
    #[error("cannot resume '{}': {why}", path.display())]
    Unreadable {
        /// The record.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// The record's game has ended.
    #[error("cannot resume '{}': its game is over ({result})", path.display())]
    Over {
        /// The record.
        path: PathBuf,
        /// The game's result.
        result: String,
    },
    /// The record cannot be read for the result.
    #[error("cannot read the record '{}'", path.display())]
    Read {
        /// The record.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The record cannot be written with the result.
    #[error("cannot write the record '{}'", path.display())]
    Write {
        /// The record.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// "1 half-move", "2 half-moves".
fn half_moves(n: usize) -> String {
    format!("{n} half-move{}", if n == 1 { "" } else { "s" })
}

/// How long the board must be still before a view counts, and how many views a
/// misfit needs: a photo is a still moment (0 s), and may be taken with a hand
/// still over the board, so a change no legal move explains is reported once
/// the next photo shows it too.
pub fn still_policy(photos: bool, quiet_s: Option<f64>) -> (TrackConfig, InferConfig) {
    let track =
        TrackConfig::default().with_quiet_s(quiet_s.unwrap_or(if photos { 0.0 } else { 0.4 }));
    let infer = InferConfig::default().with_misfit_views(if track.quiet_s == 0.0 { 2 } else { 1 });
    (track, infer)
}

impl RecordPlan {
    /// Finds the board in `source` (reporting to `events`; `stop` ends the
    /// search) and settles the job: ready to record.
    pub fn locate(
        self,
        source: Box<dyn FrameSource>,
        stop: &AtomicBool,
        events: &mut dyn EventSink,
    ) -> Result<Located, PlanError> {
        let timeline = Timeline::of(source.as_ref());
        let photos = source.photos().is_some();
        let found = find_board(
            self.placement,
            source,
            stop,
            &self.input,
            self.debug,
            events,
        )?;
        let Found {
            pose,
            located_in,
            source,
            first,
            region,
        } = found;
        let Some(first) = first else {
            return Err(match source.end_reason() {
                Some(why) => PlanError::Ended(why),
                None => PlanError::NoFrame(self.input),
            });
        };
        let (track, infer) = still_policy(photos, self.quiet_s);
        let job = RecordJob {
            pose,
            white: match &self.game {
                Some(g) => g.kind().white_edge(self.white),
                None => self.white,
            },
            track,
            infer,
            tags: self.tags.clone(),
            out: self.out.clone(),
            debug: self.debug,
            progress: true,
            adapt: self.adapt,
            timeline,
        };
        Ok(Located {
            plan: self,
            job,
            located_in,
            first,
            source,
            region,
        })
    }
}

/// A plan whose board is found.
pub struct Located {
    plan: RecordPlan,
    /// The recording's job.
    pub job: RecordJob,
    located_in: Option<Mat>,
    first: Mat,
    source: Box<dyn FrameSource>,
    region: Option<Rect>,
}

/// What a recording came to.
pub struct Outcome {
    /// What was recorded.
    pub recorded: Recorded,
    /// What became of the result given.
    pub given: Given,
    /// Why the record is not to be trusted as complete, if it is not.
    pub problems: Vec<Problem>,
    /// Why the source ended early, if it did.
    pub end_reason: Option<String>,
}

/// What was recorded.
pub enum Recorded {
    /// A game with rules, and the half-moves its record held before.
    Game {
        /// The recording's summary.
        summary: RecordSummary,
        /// Half-moves in the record before (`--resume`).
        base: usize,
    },
    /// A game without rules.
    Free(FreeSummary),
}

/// What became of the result given.
#[derive(Clone, Debug, PartialEq)]
pub enum Given {
    /// None was given.
    Nothing,
    /// Written.
    Set(String),
    /// The record held it already.
    Stands(String),
    /// Refused: the rules ended the game with another result.
    Refused(crate::record::EditError),
}

/// Why a record, written as it is, is not complete.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// The board was never still for `quiet_s` in `frames`.
    NoStillView {
        /// The still time asked.
        quiet_s: f64,
        /// Frames read.
        frames: usize,
    },
    /// The input never showed the record's last position (after half-move
    /// `base`); the latest it showed, if any.
    NotTakenUp {
        /// Half-moves in the record before.
        base: usize,
        /// The furthest half-move of the record the views showed.
        past_seen: Option<usize>,
    },
    /// No move was recorded (after the resumed record's `base` half-moves).
    NoMove {
        /// Half-moves in the record before.
        base: usize,
        /// Still views seen.
        still_views: usize,
    },
    /// The recording ended out of sync.
    OutOfSync,
}

impl Located {
    /// The frame to draw the grid on: the one it was found in, or the first.
    pub fn view(&self) -> &Mat {
        self.located_in.as_ref().unwrap_or(&self.first)
    }

    /// Passes the frames still to be recorded through `f` (a page's tap that
    /// keeps the latest frame, seen as the board is).
    pub fn map_source(
        mut self,
        f: impl FnOnce(Box<dyn FrameSource>) -> Box<dyn FrameSource>,
    ) -> Located {
        self.source = f(self.source);
        self
    }

    /// The part of the input's frames the board is seen in, for one of several
    /// boards in a view; None: whole frames. The job's pose and
    /// [`Located::view`] are in its pixels.
    pub fn region(&self) -> Option<Rect> {
        self.region
    }

    /// Records the game (through `recorder`, when given) reporting to `events`
    /// (corners in the input's pixels), then gives the result; says what makes
    /// the record incomplete.
    pub fn record(
        self,
        classifier: &mut Classifier,
        events: &mut dyn EventSink,
        recorder: Option<&mut dyn Recorder>,
    ) -> Result<Outcome, PlanError> {
        match self.region {
            Some(region) => self.record_in(classifier, &mut Shifted::new(events, region), recorder),
            None => self.record_in(classifier, events, recorder),
        }
    }

    fn record_in(
        mut self,
        classifier: &mut Classifier,
        events: &mut dyn EventSink,
        recorder: Option<&mut dyn Recorder>,
    ) -> Result<Outcome, PlanError> {
        let input = self.plan.input.clone();
        let wrap = |source: RecordError| PlanError::Recording {
            input: input.clone(),
            source,
        };
        let Some(game) = self.plan.game.clone() else {
            let s = record_free(classifier, self.source.as_mut(), &self.job, events)
                .map_err(|e| wrap(e.into()))?;
            let mut problems = Vec::new();
            if s.still_views == 0 {
                problems.push(Problem::NoStillView {
                    quiet_s: self.job.track.quiet_s,
                    frames: s.frames,
                });
            }
            return Ok(Outcome {
                recorded: Recorded::Free(s),
                given: Given::Nothing,
                problems,
                end_reason: self.source.end_reason(),
            });
        };
        let (summary, base, given) = game
            .visit(RecordOne {
                located: &mut self,
                classifier,
                events,
                recorder,
            })
            .map_err(wrap)?;
        let quiet_s = self.job.track.quiet_s;
        Ok(Outcome {
            problems: problems(&summary, base, quiet_s),
            recorded: Recorded::Game { summary, base },
            given,
            end_reason: self.source.end_reason(),
        })
    }
}

/// What makes the record of a game with rules incomplete.
fn problems(summary: &RecordSummary, base: usize, quiet_s: f64) -> Vec<Problem> {
    let mut problems = Vec::new();
    if summary.still_views == 0 {
        problems.push(Problem::NoStillView {
            quiet_s,
            frames: summary.frames,
        });
    } else if base > 0 && !summary.taken_up {
        problems.push(Problem::NotTakenUp {
            base,
            past_seen: summary.past_seen,
        });
    } else if summary.plies == 0 {
        problems.push(Problem::NoMove {
            base,
            still_views: summary.still_views,
        });
    }
    if !summary.in_sync {
        problems.push(Problem::OutOfSync);
    }
    problems
}

/// The game recorded from its start (see [`record_game`]).
struct RecordOne<'a, 'r> {
    located: &'a mut Located,
    classifier: &'a mut Classifier,
    events: &'a mut dyn EventSink,
    recorder: Option<&'a mut (dyn Recorder + 'r)>,
}

impl GameVisitor for RecordOne<'_, '_> {
    type Output = Result<(RecordSummary, usize, Given), RecordError>;
    fn visit<G: Resume>(self, start: &G) -> Self::Output {
        record_game(start.clone(), self)
    }
}

/// Records `game` (or goes on with the plan's record, or from the moves
/// given); a grid located automatically is first moved by whole cells to where
/// its frame reads most like the position recording starts from. Returns the
/// summary, the half-moves the record held before and what became of the
/// result.
fn record_game<R: Resume>(
    game: R,
    one: RecordOne,
) -> Result<(RecordSummary, usize, Given), RecordError> {
    let RecordOne {
        located,
        classifier,
        events,
        recorder,
    } = one;
    let plan = &located.plan;
    let job = &mut located.job;
    if plan.previous.is_some() && plan.moves.is_some() {
        return Err(RecordError::MovesWithResume);
    }
    let given = match &plan.moves {
        Some(text) => Some(given_moves(&game, text)?),
        None => None,
    };
    let resumed = match &plan.previous {
        Some(text) => Some(resume(text, &game, job)?),
        None => None,
    };
    let start = resumed
        .as_ref()
        .map(|(g, _, _)| g)
        .or(given.as_ref().and_then(|(p, _)| p.last()))
        .unwrap_or(&game);
    if let Some(image) = &located.located_in {
        let (pose, (dr, dc)) = snap_to_start(start, classifier, image, job.pose)?;
        if (dr, dc) != (0, 0) {
            events.emit(Event::GridSnapped {
                rows: dr,
                cols: dc,
                corners: pose.corners().points().map(|(x, y)| [x, y]),
            });
        }
        job.pose = pose;
    }
    let source = located.source.as_mut();
    if let Some(r) = recorder {
        // The page's recorder takes the record up from disk itself (--resume)
        // or starts afresh.
        let base = resumed.as_ref().map_or(0, |(_, r, _)| r.plies());
        let summary = r
            .record(classifier, source, job, events)
            .map_err(RecordError::Recorder)?;
        let given = give_result(&job.out, &game, plan.result.as_deref())?;
        return Ok((summary, base, given));
    }
    let (summary, base) = match (resumed, given) {
        (Some((resumed, record, before)), _) => {
            let base = record.plies();
            events.emit(Event::Resuming {
                path: job.out.display().to_string(),
                plies: base,
            });
            let s = super::record_onto(resumed, record, before, classifier, source, job, events)?;
            (s, base)
        }
        (None, Some((mut positions, moves))) => {
            let mut record = RecordFile::new(&game, &job.tags);
            for (mv, before) in moves.iter().zip(&positions) {
                record.current.push(before, mv, None);
            }
            record.current.note(&format!(
                "{} played before recording began (given with --moves)",
                half_moves(moves.len())
            ));
            let now = positions.pop().unwrap_or_else(|| game.clone());
            let before = Before {
                positions,
                moves,
                taken_back: None,
            };
            let s = super::record_onto(now, record, before, classifier, source, job, events)?;
            (s, 0)
        }
        (None, None) => (
            super::record(game.clone(), classifier, source, job, events)?,
            0,
        ),
    };
    let given = give_result(&job.out, &game, plan.result.as_deref())?;
    Ok((summary, base, given))
}

/// A game taken up from its record `text`: the position after its last move,
/// the record, and the positions it passed (views of them are skipped).
#[allow(clippy::type_complexity)]
fn resume<R: Resume>(
    text: &str,
    game: &R,
    job: &RecordJob,
) -> Result<(R, RecordFile<R>, Before<R>), RecordError> {
    let (resumed, record) =
        RecordFile::resume(text, game, &job.tags).map_err(|e| RecordError::Unreadable {
            path: job.out.clone(),
            why: e.to_string(),
        })?;
    let result = record.current.result_token();
    if result != "*" || resumed.outcome().is_some() {
        return Err(RecordError::Over {
            path: job.out.clone(),
            result: resumed
                .outcome()
                .map_or(result, |o| o.result_token().to_string()),
        });
    }
    let before = Resume::before_in(text, game);
    Ok((resumed, record, before))
}

/// Sets `token` as the result of the record's last game on disk, by the path
/// the live page's `set_result` takes.
fn give_result<R: Resume>(out: &Path, like: &R, token: Option<&str>) -> Result<Given, RecordError> {
    let Some(token) = token else {
        return Ok(Given::Nothing);
    };
    let text = std::fs::read_to_string(out).map_err(|source| RecordError::Read {
        path: out.to_path_buf(),
        source,
    })?;
    let note = format!("result {token} given at the end of the recording (--result)");
    match Resume::set_result_in(&text, like, token, &note) {
        Ok(Some(text)) => {
            write_atomic(out, &text).map_err(|source| RecordError::Write {
                path: out.to_path_buf(),
                source,
            })?;
            Ok(Given::Set(token.to_string()))
        }
        Ok(None) => Ok(Given::Stands(token.to_string())),
        Err(why) => Ok(Given::Refused(why)),
    }
}

/// The moves of `--moves` played from `game`: the positions before each and the
/// one after the last, and the moves. Move numbers, results and check marks
/// are skipped; a move that is not legal where it stands is refused by name.
#[allow(clippy::type_complexity)]
fn given_moves<R: Rules>(game: &R, text: &str) -> Result<(Vec<R>, Vec<R::Move>), RecordError> {
    let mut positions = vec![game.clone()];
    let mut moves = Vec::new();
    let bare = |s: &str| s.trim_end_matches(['+', '#', '!', '?']).to_string();
    for token in text.split_whitespace() {
        // A result ends the text; "0-0" is left out, written for castling too.
        if ["*", "1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1"].contains(&token) {
            continue;
        }
        // A move number ("12." or "12...") before the move, joined or not; only
        // with its dots, since a draughts move may start with digits ("22-17").
        let token = match token.find('.') {
            Some(dot) if dot > 0 && token[..dot].bytes().all(|b| b.is_ascii_digit()) => {
                token[dot..].trim_start_matches('.')
            }
            _ => token,
        };
        if token.is_empty() {
            continue;
        }
        let now = positions.last().unwrap_or(game);
        let Some(mv) = now
            .legal_moves()
            .into_iter()
            .find(|m| bare(&now.notation(m)) == bare(token))
        else {
            return Err(RecordError::IllegalGivenMove {
                token: token.to_string(),
                after: moves.len(),
            });
        };
        let mut next = now.clone();
        next.play_legal(&mv);
        moves.push(mv);
        positions.push(next);
    }
    if moves.is_empty() {
        return Err(RecordError::NoGivenMove(text.to_string()));
    }
    Ok((positions, moves))
}

/// Why the record already on disk stops a recording.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExistingError {
    /// The file is not text.
    #[error("'{}' is not a text record", .0.display())]
    NotText(PathBuf),
    /// The file cannot be read.
    #[error("cannot read the record '{}': {error}", path.display())]
    Unreadable {
        /// The record.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The file holds a game, and neither going on nor replacing it was asked.
    #[error("'{}' already holds a record: --resume goes on with its game, --force replaces it", .0.display())]
    Holds(PathBuf),
}

/// The record at `out` to go on with: its text with `resume` when it holds a
/// game; None when it holds nothing (no file, or only blanks) or is to be
/// replaced (`force`). A game there is never written over unasked.
pub fn previous_record(
    out: &Path,
    resume: bool,
    force: bool,
) -> Result<Option<String>, ExistingError> {
    let text = match std::fs::read(out) {
        Ok(bytes) if bytes.iter().all(|b| b.is_ascii_whitespace()) => return Ok(None),
        Ok(bytes) => {
            String::from_utf8(bytes).map_err(|_| ExistingError::NotText(out.to_path_buf()))?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(ExistingError::Unreadable {
                path: out.to_path_buf(),
                error,
            })
        }
    };
    match (force, resume) {
        (true, _) => Ok(None),
        (false, true) => Ok(Some(text)),
        (false, false) => Err(ExistingError::Holds(out.to_path_buf())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::chess::Chess;

    #[test]
    fn a_record_holding_a_game_is_gone_on_with_replaced_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("game.pgn");
        assert!(previous_record(&out, false, false).unwrap().is_none());
        std::fs::write(&out, " \n").unwrap();
        assert!(previous_record(&out, true, false).unwrap().is_none());
        std::fs::write(&out, "1. e4 *\n").unwrap();
        assert_eq!(
            previous_record(&out, true, false).unwrap().as_deref(),
            Some("1. e4 *\n")
        );
        assert!(previous_record(&out, false, true).unwrap().is_none());
        let refused = previous_record(&out, false, false).unwrap_err().to_string();
        assert!(
            refused.ends_with(
                "already holds a record: --resume goes on with its game, --force replaces it"
            ),
            "{refused}"
        );
        std::fs::write(&out, [0xff, 0xfe]).unwrap();
        let e = previous_record(&out, true, false).unwrap_err();
        assert!(matches!(e, ExistingError::NotText(_)), "{e}");
    }

    #[test]
    fn given_moves_skip_numbers_and_marks_and_name_an_illegal_one() {
        let (positions, moves) = given_moves(&Chess::new(), "1. e4 e5 2. Nf3+ *").unwrap();
        assert_eq!((positions.len(), moves.len()), (4, 3));
        let e = given_moves(&Chess::new(), "1. e4 e4")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "--moves: 'e4' is not a legal move after 1 half-move (in the record's notation, such as \"1. e4 e5 2. Nf3\")"
        );
        for game in [
            "1. e4 e5 2. Nf3 1-0",
            "1.e4 e5 2.Nf3 1/2-1/2",
            "1. e4 1... e5 2. Nf3 0-1",
        ] {
            let (_, moves) = given_moves(&Chess::new(), game).unwrap();
            assert_eq!(moves.len(), 3, "{game}");
        }
        let e = given_moves(&Chess::new(), "1. *").unwrap_err().to_string();
        assert_eq!(e, "--moves: no move found in '1. *'");
    }

    #[test]
    fn the_end_of_a_run_says_what_makes_the_record_incomplete() {
        let none_still = RecordSummary {
            frames: 9,
            in_sync: true,
            ..RecordSummary::default()
        };
        assert_eq!(
            problems(&none_still, 0, 0.4),
            [Problem::NoStillView {
                quiet_s: 0.4,
                frames: 9
            }]
        );
        let not_taken_up = RecordSummary {
            still_views: 3,
            past_seen: Some(4),
            ..RecordSummary::default()
        };
        assert_eq!(
            problems(&not_taken_up, 6, 0.4),
            [
                Problem::NotTakenUp {
                    base: 6,
                    past_seen: Some(4)
                },
                Problem::OutOfSync
            ]
        );
        let no_move = RecordSummary {
            still_views: 2,
            in_sync: true,
            ..RecordSummary::default()
        };
        assert_eq!(
            problems(&no_move, 0, 0.0),
            [Problem::NoMove {
                base: 0,
                still_views: 2
            }]
        );
    }

    #[test]
    fn photos_count_at_once_and_wait_a_second_view_for_a_misfit() {
        let (track, infer) = still_policy(true, None);
        assert_eq!(track.quiet_s, 0.0);
        assert_eq!(infer, InferConfig::default().with_misfit_views(2));
        let (track, infer) = still_policy(false, None);
        assert_eq!(track.quiet_s, 0.4);
        assert_eq!(infer, InferConfig::default().with_misfit_views(1));
        assert_eq!(still_policy(false, Some(0.0)).0.quiet_s, 0.0);
    }
}
