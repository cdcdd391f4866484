//! Wires the stages for a recording: capture → geometry → classify → track → infer →
//! record. Holds no algorithm of its own; each stage lives in its module, and what
//! happens is reported as [`Event`]s to the caller's sink.

mod event;
mod free;
mod snap;
mod timeline;
mod watch;

use std::path::PathBuf;

use anyhow::Context;

use crate::capture::FrameSource;
use crate::classify::{Classifier, SiteReading};
use crate::geometry::BoardPose;
use crate::infer::{
    check_start, extend, join, last_mover, start_likelihood, start_mismatch, CatchUp, CatchUpGate,
    FollowEvent, Follower, InferConfig, JoinLine, Joined, SiteMap, SiteProbs, StartMismatch,
    Suspects, WhiteSide,
};
use crate::record::log::{rule_ending_note, GameRecord, RecordFile, RecordTags, Recordable};
use crate::record::write_atomic;
use crate::rules::Rules;
use crate::track::TrackConfig;

pub use crate::record::resume::Before;
use event::{corner_list, ms};
pub use event::{Command, Event, EventSink, SiteColour};
pub use free::{record_free, FreeSummary};
pub use snap::snap_to_start;
pub use timeline::Timeline;
pub use watch::{StillView, WatchCounts, Watched, Watcher};

/// Everything a recording needs besides the game.
pub struct RecordJob {
    pub pose: BoardPose,
    /// Where White sits; None decides from the first still view.
    pub white: Option<WhiteSide>,
    pub track: TrackConfig,
    pub infer: InferConfig,
    pub tags: RecordTags,
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
    pub frames: usize,
    pub still_views: usize,
    pub plies: usize,
    pub unexplained: usize,
    /// Site classifications run (only changed, playable sites are read).
    pub sites_read: usize,
    pub white: Option<WhiteSide>,
    pub in_sync: bool,
    /// Taking a record up again: whether a view showed its last position (or play
    /// after it), and the furthest half-move of it the views showed before.
    pub taken_up: bool,
    pub past_seen: Option<usize>,
}

/// Records one game from `source` into `job.out`, reporting to `events`.
pub fn record<R: Recordable>(
    game: R,
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
    events: &mut dyn EventSink,
) -> anyhow::Result<RecordSummary> {
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
) -> anyhow::Result<RecordSummary> {
    let file = RecordFile::after(earlier, record, &job.tags);
    record_onto(game, file, before, classifier, source, job, events)
}

/// Goes on with a record read back from disk (`record --resume`): `game` is the
/// position after its last move (with the history the rules need), `record` what
/// was written, whose moves new ones follow; half-moves are numbered on from it.
/// Views of positions the record has passed (`before`) are skipped: recording goes
/// on only from a view of its last position, or of play after it.
pub fn record_onto<R: Recordable>(
    game: R,
    mut record: RecordFile<R>,
    before: Before<R>,
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
    events: &mut dyn EventSink,
) -> anyhow::Result<RecordSummary> {
    // The follower of a record taken up holds its plies too (a promotion's piece
    // may still be corrected): half-moves are numbered from the current game's
    // start then.
    let held = before.moves.len();
    let mut base = record.plies().saturating_sub(held);
    let grid = job.pose.grid();
    let (files, ranks) = game.dims();
    let fits = |side: WhiteSide| SiteMap::new(side, grid.rows, grid.cols, files, ranks);
    match job.white {
        Some(side) if fits(side).is_none() => anyhow::bail!(
            "a {files}x{ranks} game does not fit the {grid} grid with White at the {side} edge"
        ),
        None if SiteMap::all(grid.rows, grid.cols, files, ranks)
            .next()
            .is_none() =>
        {
            anyhow::bail!("a {files}x{ranks} game does not fit the {grid} grid")
        }
        _ => {}
    }
    let write = |record: &RecordFile<R>| {
        write_atomic(&job.out, &record.render())
            .with_context(|| format!("cannot write the record '{}'", job.out.display()))
    };
    write(&record)?;
    // A record taken up again: until a view shows its last position, the camera
    // may be showing the past.
    let mut gate = (!before.positions.is_empty() || before.taken_back.is_some())
        .then(|| CatchUpGate::new(&before.positions, &game, job.infer));
    let mut history = (before.positions, before.moves);
    let mut past_said: Option<(usize, bool)> = None;
    let mut notes = TakeUpNotes {
        held,
        resumed: None,
        taken_back: before.taken_back.clone(),
    };
    let mut interrupted = false;

    classifier.forget_board();
    let mut watcher = Watcher::new(crate::classify::CropView::new(&job.pose), job.track);
    // Sites whose reading contradicted a known position: ignored while they keep
    // showing the same wrong label.
    let mut suspects = Suspects::new(grid.len());
    let mut map: Option<SiteMap> = job.white.and_then(fits);
    let mut follower: Option<Follower<R>> = None;
    let mut summary = RecordSummary::default();
    let mut pose = job.pose;
    // What the last view that was not the start position was reported for.
    let mut not_start: Option<(StartMismatch, Vec<String>)> = None;
    // The readings of the last view that was not the start: what changed since
    // says which side moved last.
    let mut last_view: Option<Vec<SiteProbs>> = None;
    // Positions a view of a game under way fits equally, kept open until play
    // decides: each under its orientation, and when that view was.
    let mut open_joins: Option<(Vec<OpenJoin<R>>, f64)> = None;
    // Still views in a row that fit no position of the game; the grid is
    // placed again at the first of them, and every third after.
    let mut unfit = 0usize;
    // The still view read again through a grid placed anew.
    let mut again: Option<StillView> = None;
    // White edges other than the one taken that the start view fitted as well,
    // and when the follower started: open until the first move decides.
    let mut undecided: Option<(Vec<SiteMap>, f64)> = None;
    // A draw claimable in a resumed record's last position was said when it was
    // written.
    let mut draws = DrawWatch {
        claim: game.claimable(),
    };

    loop {
        // Only squares a piece can stand on are classified (draughts: the dark ones),
        // once the orientation says which sites those are.
        let playable = map.map(|m| m.playable(&game));
        let watched = match again.take() {
            Some(still) => Some(Watched::Still(still)),
            None => watcher.next_still(
                source,
                classifier,
                playable.as_deref(),
                job.progress,
                events,
            )?,
        };
        let still = match watched {
            None | Some(Watched::Command(Command::Stop)) => break,
            Some(Watched::Command(Command::Interrupt)) => {
                interrupted = true;
                break;
            }
            Some(Watched::Command(Command::Note(text))) => {
                record.current.note(&text);
                write(&record)?;
                continue;
            }
            Some(Watched::Still(still)) => still,
        };
        let probs = visible_probs(watcher.readings());
        suspects.review(&probs, &still.read_now);
        if let Some(corners) = &still.regrid {
            // A photo taken anew, a camera nudged: followed without a word in the
            // record; a knock of half a cell or more is worth the arbiter's note.
            if pose.moved_cells(corners) >= 0.5 {
                record.current.note(&format!(
                    "the board moved in the image at {}; grid found again",
                    job.timeline.moment(still.time_s)
                ));
            }
            pose = BoardPose::new(pose.grid(), *corners);
            events.emit(Event::Regrid {
                time: ms(still.time_s),
                corners: corner_list(corners),
            });
        }
        // The first view after taking a record up may show play after its last
        // position: its plies need no motion episode of their own.
        let mut episodes = still.episodes;
        if follower.is_none() {
            if let Some(g) = gate.as_mut() {
                let Some(m) = job.white.and_then(fits).or_else(|| {
                    g.orientation(SiteMap::all(grid.rows, grid.cols, files, ranks), &probs)
                }) else {
                    unreachable!("a fitting orientation was checked above");
                };
                let seen = g.view(&m.observation(&probs, &[]));
                let time = ms(still.time_s);
                match seen {
                    CatchUp::Past { ply, of } => {
                        summary.past_seen = summary.past_seen.max(Some(ply));
                        if past_said != Some((ply, false)) {
                            events.emit(Event::Past {
                                time,
                                ply,
                                of,
                                undecided: false,
                            });
                            past_said = Some((ply, false));
                        }
                        continue;
                    }
                    CatchUp::Undecided => {
                        if past_said.is_none_or(|(_, u)| !u) {
                            let ply = past_said.map_or(0, |(p, _)| p);
                            events.emit(Event::Past {
                                time,
                                ply,
                                of: g.plies(),
                                undecided: true,
                            });
                            past_said = Some((ply, true));
                        }
                        continue;
                    }
                    CatchUp::Other => {
                        let squares: Vec<String> = check_start(&game, &m, &probs, &job.infer)
                            .misread
                            .iter()
                            .map(|s| s.name())
                            .collect();
                        let advice = format!(
                            "the view shows none of the positions of the record's {} half-moves, nor a move after them: check the input, --grid, --white and the corners",
                            g.plies()
                        );
                        let why = (StartMismatch::Other, vec![advice.clone()]);
                        if not_start.as_ref() != Some(&why) {
                            events.emit(Event::NotStart {
                                time,
                                squares,
                                advice,
                            });
                            not_start = Some(why);
                        }
                        continue;
                    }
                    CatchUp::Now | CatchUp::After => {
                        let after = seen == CatchUp::After;
                        if job.white.is_none() {
                            events.emit(Event::Orientation {
                                time,
                                white: m.side.to_string(),
                            });
                        }
                        events.emit(Event::TakenUp {
                            time,
                            ply: g.plies(),
                            after,
                        });
                        if notes.taken_back.is_none() {
                            notes.resumed = Some(format!(
                                "recording resumed at {}",
                                job.timeline.moment(still.time_s)
                            ));
                        }
                        summary.taken_up = true;
                        map = Some(m);
                        if job.adapt && !after {
                            teach(&game, &m, classifier, &mut watcher, None);
                        }
                        if !after {
                            suspects.mark(&game, &m, &visible_probs(watcher.readings()));
                        }
                        if after {
                            episodes = None;
                        }
                        gate = None;
                        // The move just taken back, as the rules know it.
                        let again = notes.taken_back.as_ref().and_then(|san| {
                            game.legal_moves()
                                .into_iter()
                                .find(|m| game.notation(m) == *san)
                        });
                        follower = Some(Follower::taken_up(
                            std::mem::take(&mut history.0),
                            std::mem::take(&mut history.1),
                            game.clone(),
                            job.infer,
                            still.time_s,
                            again,
                        ));
                    }
                }
            }
        }
        if follower.is_none() {
            // Recording starts at the first view that shows the start position (or
            // --fen); until then, say what differs and keep watching.
            let m = match job.white.and_then(fits) {
                Some(m) => m,
                None => {
                    let Some((_, m)) = start_likelihood(&game, &probs, grid.rows, grid.cols) else {
                        unreachable!("a fitting orientation was checked above");
                    };
                    m
                }
            };
            let check = check_start(&game, &m, &probs, &job.infer);
            if !check.is_start() {
                let why = start_mismatch(&game, &m, &probs, &check, job.white.is_some());
                let mut several = None;
                // Which side moved last, from the view before: the turn the
                // position sought has. Without it a line a ply shorter than the
                // game's (a bishop's two moves for three) would fit as well.
                let to_move = last_view
                    .as_deref()
                    .and_then(|prev| last_mover(prev, &probs))
                    .map(crate::rules::Side::other);
                last_view = Some(probs.clone());
                if why != StartMismatch::Empty && to_move.is_some() {
                    let mut joined = None;
                    if let Some((open, first)) = open_joins.take() {
                        match extend(&open, &probs, &job.infer.join.unwrap_or_default(), to_move) {
                            Joined::One { map, line } => {
                                joined = Some((map, line, first));
                            }
                            Joined::Several(lines) => {
                                several = Some(named_lines(&game, &lines));
                                open_joins = Some((lines, first));
                            }
                            // Hidden squares: the positions stay open.
                            Joined::Unreadable => open_joins = Some((open, first)),
                            // Play fits none of them: the view is searched afresh.
                            _ => {}
                        }
                    }
                    if joined.is_none() && open_joins.is_none() {
                        match join_under_way(&game, &probs, job, to_move) {
                            Ok(Some((m, line))) => {
                                joined = Some((m, line, still.time_s));
                            }
                            Ok(None) => {}
                            Err(lines) => {
                                several = Some(named_lines(&game, &lines));
                                open_joins = Some((lines, still.time_s));
                            }
                        }
                    }
                    if let Some((m, line, first)) = joined {
                        open_joins = None;
                        events.emit(Event::Joined {
                            time: ms(still.time_s),
                            plies: line.notation(),
                            order_open: line.order_open,
                            white: m.side.to_string(),
                        });
                        for (i, (mv, before)) in line.line.iter().zip(&line.positions).enumerate() {
                            record.current.push(before, mv, None);
                            events.emit(Event::Move {
                                time: ms(still.time_s),
                                ply: base + i + 1,
                                san: before.notation(mv),
                                uci: before.move_id(mv),
                                confidence: 0.0,
                                assumed: false,
                                alternatives: Vec::new(),
                            });
                        }
                        record.current.note(&joined_note(
                            &line,
                            &job.timeline.moment(first),
                            &job.timeline.moment(still.time_s),
                        ));
                        write(&record)?;
                        map = Some(m);
                        let now = line.end().clone();
                        if job.adapt {
                            teach(&now, &m, classifier, &mut watcher, None);
                        }
                        suspects.mark(&now, &m, &visible_probs(watcher.readings()));
                        let mut positions = line.positions.clone();
                        positions.pop();
                        follower = Some(Follower::taken_up(
                            positions,
                            line.line.clone(),
                            now,
                            job.infer,
                            still.time_s,
                            None,
                        ));
                        continue;
                    }
                }
                if several.is_none() && open_joins.is_none() {
                    unfit += 1;
                    if unfit % 3 == 1 {
                        let mut better =
                            |_: &[Option<SiteReading>], new: &[Option<SiteReading>]| {
                                fits_a_position(&game, &visible_probs(new), job, to_move)
                            };
                        if let Some(c) =
                            watcher.place_again(classifier, None, PLACE_AGAIN_CELLS, &mut better)?
                        {
                            events.emit(Event::PlacedAgain {
                                time: ms(still.time_s),
                                corners: corner_list(&c),
                            });
                            pose = BoardPose::new(pose.grid(), c);
                            last_view = None;
                            unfit = 0;
                            again = Some(read_again(&still, pose.grid().len()));
                            continue;
                        }
                    }
                }
                let squares: Vec<String> = check.misread.iter().map(|s| s.name()).collect();
                if not_start.as_ref() != Some(&(why.clone(), squares.clone())) {
                    let advice = match &several {
                        Some(lines) => format!(
                            "the game is under way, and the view fits {} positions that moves from the start reach ({}): give the moves played with --moves, or the position with --fen",
                            lines.len(),
                            lines.join(" | ")
                        ),
                        None if to_move.is_none()
                            && job.infer.join.is_some()
                            && why != StartMismatch::Empty =>
                        {
                            "the game seems to be under way: the moves before this view are reconstructed once the next move shows whose turn it is (or give them with --moves, or the position with --fen)".to_string()
                        }
                        None => why.advice(),
                    };
                    events.emit(Event::NotStart {
                        time: ms(still.time_s),
                        squares: squares.clone(),
                        advice,
                    });
                    not_start = Some((why, squares));
                }
                continue;
            }
            if job.white.is_none() {
                events.emit(Event::Orientation {
                    time: ms(still.time_s),
                    white: m.side.to_string(),
                });
            }
            map = Some(m);
            // Other White edges under which the view shows the start as well
            // (pieces whose colours the camera cannot tell apart): kept open,
            // and the board not learnt, until the first move decides.
            let others: Vec<SiteMap> = if job.white.is_none() {
                SiteMap::all(grid.rows, grid.cols, files, ranks)
                    .filter(|o| o.side != m.side)
                    .filter(|o| check_start(&game, o, &probs, &job.infer).is_start())
                    .collect()
            } else {
                Vec::new()
            };
            undecided = (!others.is_empty()).then_some((others, still.time_s));
            if job.adapt && undecided.is_none() {
                teach(&game, &m, classifier, &mut watcher, None);
            }
            suspects.mark(&game, &m, &visible_probs(watcher.readings()));
            follower = Some(Follower::new(game.clone(), job.infer, still.time_s));
        }
        let Some(mut m) = map else {
            unreachable!("the map is set when the follower starts");
        };
        let probs = visible_probs(watcher.readings());
        let mask = suspects.mask();
        let obs = seen_through(&m, &probs, &mask, &still);
        let Some(f) = follower.as_mut() else {
            unreachable!("the follower started above");
        };
        if job.debug {
            events.emit(debug_event(
                &still,
                watcher.readings(),
                &mask,
                &m,
                f,
                &obs,
                job,
            ));
        }
        let mut seen = f.observe(&obs, still.time_s, episodes);
        if let Some((others, since)) = undecided.take() {
            let moved = f.current().position_hash() != game.position_hash();
            if f.explained_last() && moved {
                // The first move fits the White edge taken: it stays.
                if job.adapt {
                    teach(f.current(), &m, classifier, &mut watcher, None);
                }
            } else if !f.explained_last() {
                // The first move fits no move with White at the edge taken:
                // perhaps it fits with White at another.
                let mut switched = false;
                for o in &others {
                    let mut alt = Follower::new(game.clone(), job.infer, since);
                    let alt_obs = seen_through(o, &probs, &mask, &still);
                    let alt_seen = alt.observe(&alt_obs, still.time_s, episodes);
                    if alt.explained_last() && alt.current().position_hash() != game.position_hash()
                    {
                        m = *o;
                        map = Some(m);
                        *f = alt;
                        seen = alt_seen;
                        events.emit(Event::Orientation {
                            time: ms(still.time_s),
                            white: m.side.to_string(),
                        });
                        record.current.note(&format!(
                            "White's edge decided by the first move at {}: the {} edge (the pieces' colours could not tell)",
                            job.timeline.moment(still.time_s),
                            m.side
                        ));
                        if job.adapt {
                            teach(f.current(), &m, classifier, &mut watcher, None);
                        }
                        suspects.mark(f.current(), &m, &probs);
                        switched = true;
                        break;
                    }
                }
                if !switched {
                    undecided = Some((others, since));
                }
            } else {
                undecided = Some((others, since));
            }
        }
        if f.explained_last() {
            watcher.confirm()?;
            unfit = 0;
        } else {
            unfit += 1;
        }
        if f.explained_last() && f.in_sync() && f.lead() >= TEACH_MARGIN {
            // The position now is clear and this view fits it: what its readings
            // still contradict is a steady misread, and what they show teaches
            // this board. A view no line explains (a hand, a move the next view
            // will settle) teaches nothing.
            suspects.mark(f.current(), &m, &probs);
            if job.adapt {
                teach(
                    f.current(),
                    &m,
                    classifier,
                    &mut watcher,
                    Some(&still.read_now),
                );
            }
        }
        for event in seen {
            notes.before(&event, &mut record);
            apply_event(
                &event,
                f,
                &mut record,
                &mut summary,
                (&mut base, still.time_s),
                &mut draws,
                job,
                events,
            );
            notes.after(&event, f, &mut record);
        }
        record.current.set_result(f.game());
        write(&record)?;
        if f.game().outcome().is_some() {
            break;
        }
        // Views no move explains, one after another: the grid may be off
        // (placed while an arm hid part of the board). Placed anew, it is taken
        // where its readings fit the position far better.
        if unfit >= 2 && (unfit - 2).is_multiple_of(3) {
            let now = f.current().clone();
            let mut better = |old: &[Option<SiteReading>], new: &[Option<SiteReading>]| {
                let miss = |r: &[Option<SiteReading>]| {
                    check_start(&now, &m, &visible_probs(r), &job.infer)
                        .misread
                        .len()
                };
                miss(new) + PLACE_AGAIN_GAIN <= miss(old)
            };
            if let Some(c) = watcher.place_again(
                classifier,
                playable.as_deref(),
                PLACE_AGAIN_CELLS,
                &mut better,
            )? {
                events.emit(Event::PlacedAgain {
                    time: ms(still.time_s),
                    corners: corner_list(&c),
                });
                record.current.note(&format!(
                    "the readings fit no position through the grid used; grid placed again at {}",
                    job.timeline.moment(still.time_s)
                ));
                write(&record)?;
                pose = BoardPose::new(pose.grid(), c);
                unfit = 0;
                again = Some(read_again(&still, pose.grid().len()));
            }
        }
    }
    let counts = watcher.counts;
    (summary.frames, summary.still_views, summary.sites_read) =
        (counts.frames, counts.still_views, counts.sites_read);
    if let Some(f) = &mut follower {
        let time = watcher.last_time().unwrap_or(0.0);
        let last = if interrupted { Vec::new() } else { f.finish() };
        for event in last {
            notes.before(&event, &mut record);
            apply_event(
                &event,
                f,
                &mut record,
                &mut summary,
                (&mut base, time),
                &mut draws,
                job,
                events,
            );
            notes.after(&event, f, &mut record);
        }
        record.current.set_result(f.game());
        summary.in_sync = f.in_sync();
        summary.plies = f.moves().len().saturating_sub(held);
    } else {
        summary.in_sync = true;
    }
    write(&record)?;
    summary.white = map.map(|m| m.side);
    Ok(summary)
}

/// The game under way that a first view shows, when the search from the start
/// finds one line to it that can be believed (see [`crate::infer::join`]).
/// Err holds the lines to several positions the view fits equally: none is
/// picked, and play after the view may decide between them.
fn join_under_way<R: Recordable>(
    game: &R,
    probs: &[SiteProbs],
    job: &RecordJob,
    to_move: Option<crate::rules::Side>,
) -> Result<Option<OpenJoin<R>>, Vec<OpenJoin<R>>> {
    let Some(cfg) = job.infer.join else {
        return Ok(None);
    };
    let grid = job.pose.grid();
    match join(game, probs, grid.rows, grid.cols, &cfg, to_move) {
        Joined::One { map, line } if job.white.is_none_or(|w| w == map.side) => {
            Ok(Some((map, line)))
        }
        Joined::Several(lines) => {
            let lines: Vec<_> = lines
                .into_iter()
                .filter(|(m, _)| job.white.is_none_or(|w| w == m.side))
                .collect();
            match lines.len() {
                0 => Ok(None),
                1 => Ok(lines.into_iter().next()),
                _ => Err(lines),
            }
        }
        _ => Ok(None),
    }
}

/// A position a view of a game under way fits, under its orientation.
type OpenJoin<R> = (SiteMap, JoinLine<R>);

/// Each line as the record would write it.
fn named_lines<R: Rules>(game: &R, lines: &[OpenJoin<R>]) -> Vec<String> {
    lines
        .iter()
        .map(|(_, l)| numbered(game, &l.notation()))
        .collect()
}

/// Moves as a record writes them from `start`: "1. e4 e5 2. Nf3" (or "1... e5"
/// when Black moves first).
fn numbered<R: Rules>(start: &R, sans: &[String]) -> String {
    let black_first = start.side_to_move() == crate::rules::Side::Black;
    let mut out = Vec::new();
    for (i, san) in sans.iter().enumerate() {
        let ply = i + usize::from(black_first);
        if ply % 2 == 0 {
            out.push(format!("{}. {san}", ply / 2 + 1));
        } else if i == 0 {
            out.push(format!("{}... {san}", ply / 2 + 1));
        } else {
            out.push(san.clone());
        }
    }
    out.join(" ")
}

/// What the record says of plies reconstructed from a view: that the first
/// `unseen` were not seen, what else the view fits, and when play after it
/// showed which of several positions it was.
fn joined_note<R: Rules>(line: &JoinLine<R>, at: &str, decided: &str) -> String {
    let unseen = line.unseen;
    let mut note = format!(
        "{} not seen: reconstructed from the view at {at}",
        ply_span(unseen)
    );
    if unseen < line.line.len() {
        note.push_str(&format!(
            "; the view fits other positions as well, and the moves seen up to {decided} showed which"
        ));
    }
    if line.order_open {
        note.push_str("; their order is not known");
    }
    let start = line.positions.first();
    let named = |moves: &[String]| match start {
        Some(s) => numbered(s, moves),
        None => moves.join(" "),
    };
    for other in &line.others {
        note.push_str(&format!(
            "; the view fits other moves as well: {}",
            named(other)
        ));
    }
    for other in &line.alike {
        note.push_str(&format!(
            "; the view fits as well a position that looks the same, reached by more moves: {}",
            named(other)
        ));
    }
    if line.alike_unchecked {
        note.push_str(
            "; a position that looks the same, reached by a few more moves, was not ruled out",
        );
    }
    note
}

/// "ply 1" or "plies 1-4".
fn ply_span(n: usize) -> String {
    if n == 1 {
        "ply 1".into()
    } else {
        format!("plies 1-{n}")
    }
}

/// What a recording that took a record up says around its first new ply: that it
/// resumed (before it, so that a run that adds nothing changes nothing), or, after
/// a take-back, whether the board still showed the move taken back (after it).
struct TakeUpNotes {
    /// Plies the follower held from the record: the first new one's index.
    held: usize,
    resumed: Option<String>,
    taken_back: Option<String>,
}

impl TakeUpNotes {
    fn before<R: Recordable>(&mut self, event: &FollowEvent<R::Move>, record: &mut RecordFile<R>) {
        if let FollowEvent::Moved { ply, .. } = event {
            if let Some(note) = self.resumed.take_if(|_| *ply == self.held) {
                record.current.note(&note);
            }
        }
    }

    fn after<R: Recordable>(
        &mut self,
        event: &FollowEvent<R::Move>,
        f: &Follower<R>,
        record: &mut RecordFile<R>,
    ) {
        let FollowEvent::Moved { ply, mv, .. } = event else {
            return;
        };
        let Some(taken) = self.taken_back.take_if(|_| *ply == self.held) else {
            return;
        };
        let san = f.position_before(self.held).map(|g| g.notation(mv));
        record
            .current
            .note(&if san.as_deref() == Some(taken.as_str()) {
                format!("recorded again after the take-back of {taken}: the board still shows it")
            } else {
                format!("played after the take-back of {taken}")
            });
    }
}

/// How clearly (nats over the next likeliest) the position must be known for its
/// view to teach the classifier: a doubtful position could teach a mistake.
const TEACH_MARGIN: f64 = 5.0;

/// A still view as the follower sees it through `map`: the readings, less the
/// suspect sites, with the image changes since the last explained view (which
/// say nothing across a grid found anew).
fn seen_through(
    map: &SiteMap,
    probs: &[SiteProbs],
    mask: &[bool],
    still: &StillView,
) -> crate::infer::Observation {
    let mut obs = map.observation(probs, mask);
    if still.regrid.is_none() {
        map.add_changes(&mut obs, &still.change);
    }
    obs
}

/// How far (in cells) a grid placed anew must lie from the one used to be
/// taken: nearer, it is the same grid found again.
const PLACE_AGAIN_CELLS: f64 = 0.5;
/// Squares fewer that a grid placed anew must contradict the position by.
const PLACE_AGAIN_GAIN: usize = 4;

/// The still view `still` read again, every site, through a grid placed anew.
fn read_again(still: &StillView, sites: usize) -> StillView {
    StillView {
        time_s: still.time_s,
        read_now: vec![true; sites],
        regrid: None,
        change: Vec::new(),
        episodes: still.episodes,
    }
}

/// Whether readings show the start position under some orientation (the one
/// given, where given), or a game under way the search can join.
fn fits_a_position<R: Recordable>(
    game: &R,
    probs: &[SiteProbs],
    job: &RecordJob,
    to_move: Option<crate::rules::Side>,
) -> bool {
    let grid = job.pose.grid();
    let (files, ranks) = game.dims();
    let start = SiteMap::all(grid.rows, grid.cols, files, ranks)
        .filter(|m| job.white.is_none_or(|w| w == m.side))
        .any(|m| check_start(game, &m, probs, &job.infer).is_start());
    start
        || job.infer.join.is_some_and(|cfg| {
            matches!(
                join(game, probs, grid.rows, grid.cols, &cfg, to_move),
                Joined::One { .. } | Joined::Several(_)
            )
        })
}

/// Per site, the probabilities of a visible reading; None where hidden or unread.
fn visible_probs(readings: &[Option<SiteReading>]) -> Vec<SiteProbs> {
    readings
        .iter()
        .map(|r| r.as_ref().filter(|r| r.occluded <= 0.5).map(|r| r.probs))
        .collect()
}

/// The draws a recording has said: the claim that stands now (said once when it
/// became possible; said again only after it lapsed and came back, or for
/// another reason).
struct DrawWatch {
    claim: Option<String>,
}

impl DrawWatch {
    /// After half-move `ply` (1-based) led to `game`: a draw the rules impose is
    /// noted in the record (the result is the rules' own); a draw that may only be
    /// claimed is noted and reported the first time it can be, the result left
    /// to the arbiter.
    fn after_ply<R: Recordable>(
        &mut self,
        game: &R,
        ply: usize,
        time: f64,
        record: &mut RecordFile<R>,
        events: &mut dyn EventSink,
    ) {
        if let Some(o) = game.outcome() {
            self.claim = None;
            if let Some(text) = rule_ending_note(&o) {
                record.current.note(&text);
            }
            return;
        }
        let claim = game.claimable();
        if let Some(reason) = claim.as_ref().filter(|c| self.claim.as_ref() != Some(*c)) {
            record
                .current
                .note(&format!("draw may be claimed: {reason}"));
            events.emit(Event::DrawClaimable {
                time: ms(time),
                ply,
                reason: reason.clone(),
            });
        }
        self.claim = claim;
    }
}

/// Writes what the follower saw into the record; `base` moves stood in the record
/// before the follower's first.
#[allow(clippy::too_many_arguments)]
fn apply_event<R: Recordable>(
    event: &FollowEvent<R::Move>,
    f: &Follower<R>,
    record: &mut RecordFile<R>,
    summary: &mut RecordSummary,
    (base, time): (&mut usize, f64),
    draws: &mut DrawWatch,
    job: &RecordJob,
    events: &mut dyn EventSink,
) {
    let base = match event {
        // A new game's plies count from its own start.
        FollowEvent::NewGame { .. } => {
            *base = 0;
            0
        }
        _ => *base,
    };
    let before = |ply: usize| {
        f.position_before(ply)
            .expect("an accepted ply has a position")
    };
    match event {
        FollowEvent::Moved {
            ply,
            mv,
            emt,
            margin,
            assumed,
            alternatives,
        } => {
            let before = before(*ply);
            // Photos are taken whenever: the time between them is no move time.
            record
                .current
                .push(before, mv, emt.filter(|_| job.timeline.timed()));
            if *assumed {
                record
                    .current
                    .note("the camera cannot tell the promoted piece; assumed a queen");
            }
            if let Some(text) = uncertain_note(before, mv, alternatives) {
                record.current.note(&text);
            }
            events.emit(Event::Move {
                time: ms(time),
                ply: base + ply + 1,
                san: before.notation(mv),
                uci: before.move_id(mv),
                confidence: (1.0 / (1.0 + (-margin).exp()) * 1e4).round() / 1e4,
                assumed: *assumed,
                alternatives: alternatives.iter().map(|a| a.notation.clone()).collect(),
            });
            let mut after = before.clone();
            after.play_legal(mv);
            draws.after_ply(&after, base + ply + 1, time, record, events);
        }
        FollowEvent::Unexplained { squares, why } => {
            summary.unexplained += 1;
            let names: Vec<String> = squares.iter().map(|s| s.name()).collect();
            let text = match why {
                Some(w) => format!(
                    "{} at {}; recording waits for a legal position",
                    w.describe(),
                    job.timeline.moment(time)
                ),
                None => format!(
                    "unexplained change at {}: {} (recording waits for a legal position)",
                    job.timeline.moment(time),
                    names.join(",")
                ),
            };
            record.current.note(&text);
            events.emit(match why {
                Some(w) => Event::irregularity(ms(time), w, true),
                None => Event::Unexplained {
                    time: ms(time),
                    squares: names,
                },
            });
        }
        FollowEvent::Noticed { what } => {
            record.current.note(&format!(
                "{} at {} (not a move; recording goes on)",
                what.describe(),
                job.timeline.moment(time)
            ));
            events.emit(Event::irregularity(ms(time), what, false));
        }
        FollowEvent::NewGame { after } => {
            summary.games += 1;
            let game = record.games() + 1;
            record.new_game(
                f.game(),
                &format!(
                    "play went on after the irregularity ({}): the moves that followed are game {game} of this file, from the position it left (at {})",
                    after.describe(),
                    job.timeline.moment(time)
                ),
                &format!(
                    "game {game}: continues game {} from the position left by an irregularity ({}); the arbiter decides (FIDE 7.5)",
                    game - 1,
                    after.describe()
                ),
            );
            draws.claim = f.game().claimable();
            events.emit(Event::NewGame {
                time: ms(time),
                game,
                position: f.game().position_text(),
                after: after.describe(),
            });
        }
        FollowEvent::SeenTogether { first, last } => {
            record
                .current
                .note(&format!("plies {}-{} seen together", first + 1, last + 1));
            events.emit(Event::SeenTogether {
                time: ms(time),
                first: first + 1,
                last: last + 1,
            });
        }
        FollowEvent::Resynced => {
            record
                .current
                .note(&format!("back in sync at {}", job.timeline.moment(time)));
            events.emit(Event::Resynced {
                time: ms(time),
                in_sync: true,
            });
        }
        FollowEvent::Corrected {
            ply,
            mv,
            upto,
            relanded,
        } => {
            // Rebuild the record from the corrected ply on; moves accepted in the same
            // view follow as their own events.
            let why = if *relanded {
                "corrected: later play shows the piece stood on another square (it was \
                 put down between two)"
            } else {
                "corrected: later play shows which piece the pawn became"
            };
            record.current.truncate(base + *ply);
            for (i, m) in f.moves().iter().enumerate().take(*upto).skip(*ply) {
                record.current.push(before(i), m, None);
                if i == *ply {
                    record.current.note(why);
                }
                if let Some(text) = uncertain_note(before(i), m, f.alternatives(i)) {
                    record.current.note(&text);
                }
            }
            events.emit(Event::Corrected {
                time: ms(time),
                ply: base + ply + 1,
                san: before(*ply).notation(mv),
                uci: before(*ply).move_id(mv),
                reason: if *relanded { "relanded" } else { "promotion" }.to_string(),
            });
        }
    }
}

/// The record's comment on a move the views also support others for: the move
/// recorded, then the others, closest first (`uncertain: Rc1 or Rd1+`).
fn uncertain_note<R: Rules>(
    before: &R,
    mv: &R::Move,
    alternatives: &[crate::infer::Alternative],
) -> Option<String> {
    if alternatives.is_empty() {
        return None;
    }
    let mut names = vec![before.notation(mv)];
    names.extend(alternatives.iter().map(|a| a.notation.clone()));
    Some(format!("uncertain: {}", names.join(" or ")))
}

/// Teaches the classifier this board from the latest still view, whose position
/// `game` is known (the start) or settled with a clear margin: every visible
/// playable site read anew (`fresh`; all sites when None) is labelled by it. The
/// readings held are re-read with what was learnt.
fn teach<R: Rules>(
    game: &R,
    map: &SiteMap,
    classifier: &mut Classifier,
    watcher: &mut Watcher,
    fresh: Option<&[bool]>,
) {
    let labels = map.labels(game);
    let playable = map.playable(game);
    let labelled: Vec<(&SiteReading, usize)> = watcher
        .readings()
        .iter()
        .enumerate()
        .filter(|(i, _)| playable[*i] && fresh.is_none_or(|f| f[*i]))
        .filter_map(|(i, r)| {
            r.as_ref()
                .filter(|r| r.occluded <= 0.5)
                .map(|r| (r, labels[i]))
        })
        .collect();
    classifier.teach(&labelled);
    classifier.rescore(watcher.readings_mut());
}

/// What a diagnosis shows of one still view: the readings, the changes and the
/// hypotheses the follower holds after it.
fn debug_event<R: Rules>(
    still: &StillView,
    readings: &[Option<SiteReading>],
    mask: &[bool],
    m: &SiteMap,
    f: &Follower<R>,
    obs: &crate::infer::Observation,
    job: &RecordJob,
) -> Event {
    let mut e = readings_event(still, readings, mask, m.cols);
    if let Event::Readings { lines, .. } = &mut e {
        *lines = crate::infer::ranked(f.current(), obs, &job.infer, 5)
            .into_iter()
            .map(|(score, residual, moves)| {
                let mut g = f.current().clone();
                let ids: Vec<String> = moves
                    .iter()
                    .map(|mv| {
                        let id = g.move_id(mv);
                        g.play_legal(mv);
                        id
                    })
                    .collect();
                format!("{:<16} {score:7.2} {residual:6.2}", ids.join(" "))
            })
            .collect();
        lines.extend(f.describe().into_iter().map(|h| format!("held {h}")));
    }
    e
}

/// One still view's readings as an event: per row the labels, `*` read anew, `s`
/// suspect.
fn readings_event(
    still: &StillView,
    readings: &[Option<SiteReading>],
    suspect: &[bool],
    cols: u32,
) -> Event {
    let cols = cols as usize;
    let rows = (0..readings.len() / cols.max(1))
        .map(|row| {
            (0..cols)
                .map(|c| {
                    let i = row * cols + c;
                    let l = readings[i].as_ref().map_or('?', |x| x.label());
                    let tag = if suspect[i] {
                        's'
                    } else if still.read_now[i] {
                        '*'
                    } else {
                        ' '
                    };
                    format!("{l}{tag}")
                })
                .collect()
        })
        .collect();
    let fresh = readings
        .iter()
        .enumerate()
        .filter(|(i, _)| still.read_now[*i])
        .filter_map(|(i, r)| {
            r.as_ref().map(|r| event::SiteProbs {
                site: i,
                probs: r.probs,
                occluded: r.occluded,
            })
        })
        .collect();
    Event::Readings {
        time: ms(still.time_s),
        rows,
        fresh,
        change: still.change.clone(),
        lines: Vec::new(),
    }
}

/// `h:mm:ss` for comments.
pub fn clock(t: f64) -> String {
    let s = t.max(0.0).round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::chess::Chess;

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
        let mut file = RecordFile::new(&g, &RecordTags::default());
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
        let mut file = RecordFile::new(&g, &RecordTags::default());
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
