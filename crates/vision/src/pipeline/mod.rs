//! Wires the stages for a recording: capture → geometry → classify → track → infer →
//! record. Holds no algorithm of its own; each stage lives in its module, and what
//! happens is reported as [`Event`]s to the caller's sink.

mod error;
mod event;
mod find;
mod free;
mod joining;
mod pick;
mod plan;
mod recording;
mod report;
mod snap;
mod timeline;
mod watch;

use std::path::PathBuf;

use crate::capture::FrameSource;
use crate::classify::Classifier;
use crate::geometry::BoardPose;
use crate::infer::{InferConfig, WhiteSide};
use crate::record::{RecordFile, Recordable, Tags};
use crate::track::TrackConfig;

pub use crate::record::Before;
pub use error::PipelineError;
pub use event::{Command, Event, EventSink, SiteColour};
pub use find::{check_in_image, find_board, frame_text, FindError, Found, OutsideError, Placement};
pub use free::{record_free, FreeSummary};
pub use pick::{pick, region};
pub use plan::{
    previous_record, still_policy, ExistingError, Given, Located, Outcome, PlanError, Problem,
    RecordError, RecordPlan, Recorded, Recorder, RecorderError,
};
use recording::{visible_probs, Recording};
pub use snap::snap_to_start;
pub use timeline::Timeline;
pub(crate) use watch::{StillView, Watched, Watcher};

/// Everything a recording needs besides the game.
#[derive(Clone)]
pub struct RecordJob {
    /// The grid (rows, columns, cells or crossings) and its corners in pixels of
    /// the input's frames.
    pub pose: BoardPose,
    /// Where White sits; None decides from the first still view.
    pub white: Option<WhiteSide>,
    /// When the board counts as still (seconds without motion) and how much
    /// change, in grey levels, marks a site for reading again.
    pub track: TrackConfig,
    /// Thresholds, in nats, for accepting moves and for the follower's other
    /// decisions.
    pub infer: InferConfig,
    /// The record's tags: event, site, date, round, players.
    pub tags: Tags,
    /// The record file, rewritten whole (atomically) at every change.
    pub out: PathBuf,
    /// Report every still view's readings ([`Event::Readings`]), for diagnosis.
    pub debug: bool,
    /// Report progress ([`Event::Progress`]) for sources of known length.
    pub progress: bool,
    /// Adapt the classifier to the board at the first still view, whose position is
    /// the game's start.
    pub adapt: bool,
    /// How moments are named in the record (a clock, or the photos' names) and
    /// whether move times are written.
    pub timeline: Timeline,
}

/// What a finished recording reports.
#[derive(Debug, Default)]
pub struct RecordSummary {
    /// Games after the first in the record (play that went on after an illegal
    /// move).
    pub games: usize,
    /// Frames read from the source, blank ones included.
    pub frames: usize,
    /// Still views taken: the board at rest with its grid in place.
    pub still_views: usize,
    /// Half-moves this run recorded in the record's last game, joined plies
    /// included; those taken up from the record are not counted.
    pub plies: usize,
    /// Changes no legal line explained, on which recording waited.
    pub unexplained: usize,
    /// Site classifications run (only changed, playable sites are read).
    pub sites_read: usize,
    /// White's edge the recording used; None when no view decided it.
    pub white: Option<WhiteSide>,
    /// Whether the last still view showed the recorded position (true when no
    /// game was followed).
    pub in_sync: bool,
    /// Taking a record up again: whether a view showed its last position (or play
    /// after it), and the furthest half-move of it the views showed before.
    pub taken_up: bool,
    /// The furthest half-move of the record whose position a view showed before
    /// it was taken up (0: its start); None when no view showed the past.
    pub past_seen: Option<usize>,
}

/// Records one game from `source` into `job.out`, reporting to `events`.
pub fn record<R: Recordable>(
    game: R,
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
    events: &mut dyn EventSink,
) -> Result<RecordSummary, PipelineError> {
    let record = RecordFile::new(&game, &job.tags);
    record_onto(
        game,
        record,
        Before::default(),
        classifier,
        source,
        job,
        events,
    )
}

/// Goes on with the record of a game taken up from disk (`event` after a restart
/// or a take-back): `game` is the position after its moves; `earlier`, the games
/// the file holds before it (after an illegal move), are kept as they are.
#[allow(clippy::too_many_arguments)]
pub fn record_resumed<R: Recordable>(
    game: R,
    record: R::Record,
    earlier: Vec<String>,
    before: Before<R>,
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
    events: &mut dyn EventSink,
) -> Result<RecordSummary, PipelineError> {
    let file = RecordFile::after(earlier, record, &job.tags);
    record_onto(game, file, before, classifier, source, job, events)
}

/// Goes on with a record read back from disk (`record --resume`): `game` is the
/// position after its last move (with the history the rules need), `record` what
/// was written, whose moves new ones follow; half-moves are numbered on from it.
/// Views of positions the record has passed (`before`) are skipped: recording goes
/// on only from a view of its last position, or of play after it.
pub(crate) fn record_onto<R: Recordable>(
    game: R,
    record: RecordFile<R>,
    before: Before<R>,
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
    events: &mut dyn EventSink,
) -> Result<RecordSummary, PipelineError> {
    Recording::new(game, record, before, classifier, source, job, events)?.run()
}

/// `h:mm:ss` for comments.
pub fn clock(t: f64) -> String {
    let s = t.max(0.0).round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::report::DrawWatch;
    use super::*;
    use crate::record::GameRecord;
    use crate::rules::chess::Chess;
    use crate::rules::Rules;

    /// Plays `ucis` from `g` as a recording writes them; returns the events.
    fn play(g: &mut Chess, file: &mut RecordFile<Chess>, ucis: &[&str]) -> Vec<Event> {
        let mut draws = DrawWatch {
            claim: g.claimable(),
        };
        let mut events: Vec<Event> = Vec::new();
        for (i, u) in ucis.iter().enumerate() {
            let m = g.parse_uci(u).unwrap();
            file.current.push(g, &m, None);
            g.play(&m).unwrap();
            draws.after_ply(g, i + 1, i as f64, file, &mut events);
            file.current.set_result(g);
        }
        events
    }

    #[test]
    fn a_claimable_draw_is_said_once_and_is_no_result() {
        let mut g = Chess::new();
        let mut file = RecordFile::new(&g, &Tags::default());
        let knights = [
            "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8", "g1f3",
        ];
        let events = play(&mut g, &mut file, &knights);
        // Threefold after ply 8; ply 9 repeats a position a third time too, the
        // same claim standing.
        assert_eq!(
            events,
            vec![Event::DrawClaimable {
                time: 7.0,
                ply: 8,
                reason: "threefold repetition".into()
            }]
        );
        let text = file.render();
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(flat.matches("draw may be claimed").count(), 1, "{text}");
        assert!(
            flat.contains("Ng8 {draw may be claimed: threefold repetition}"),
            "{text}"
        );
        assert!(
            text.contains("[Result \"*\"]") && text.trim_end().ends_with('*'),
            "{text}"
        );
        // A pawn move ends the claim; none is said again.
        let events = play(&mut g, &mut file, &["e7e5"]);
        assert!(events.is_empty());
    }

    #[test]
    fn a_dead_position_ends_the_game_by_rule_and_says_so() {
        let mut g = Chess::from_fen("4k3/8/8/8/8/8/4p3/3K4 w - - 0 1").unwrap();
        let mut file = RecordFile::new(&g, &Tags::default());
        let events = play(&mut g, &mut file, &["d1e2"]);
        assert!(events.is_empty());
        let text = file.render();
        assert!(text.contains("[Result \"1/2-1/2\"]"), "{text}");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("dead position: neither side can checkmate (insufficient material); the game is drawn by rule, no claim needed (FIDE 5.2.2)"),
            "{text}"
        );
    }
}
