//! What the follower saw, written into the record and reported as events; and
//! a still view's readings for diagnosis.

use super::event::{self, ms};
use super::{Event, EventSink, RecordJob, RecordSummary, StillView};
use crate::classify::SiteReading;
use crate::infer::{Correction, FollowEvent, Follower, Irregularity, SiteMap};
use crate::record::{rule_ending_note, GameRecord, RecordFile, Recordable};
use crate::rules::{Rules, Square};

/// What a recording that took a record up says around its first new ply: that it
/// resumed (before it, so that a run that adds nothing changes nothing), or, after
/// a take-back, whether the board still showed the move taken back (after it).
pub(super) struct TakeUpNotes {
    /// Plies the follower held from the record: the first new one's index.
    pub(super) held: usize,
    pub(super) resumed: Option<String>,
    pub(super) taken_back: Option<String>,
}

impl TakeUpNotes {
    pub(super) fn before<R: Recordable>(
        &mut self,
        event: &FollowEvent<R::Move>,
        record: &mut RecordFile<R>,
    ) {
        if let FollowEvent::Moved { ply, .. } = event {
            if let Some(note) = self.resumed.take_if(|_| *ply == self.held) {
                record.current.note(&note);
            }
        }
    }

    pub(super) fn after<R: Recordable>(
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

/// The draws a recording has said: the claim that stands now (said once when it
/// became possible; said again only after it lapsed and came back, or for
/// another reason).
pub(super) struct DrawWatch {
    pub(super) claim: Option<String>,
}

impl DrawWatch {
    /// After half-move `ply` (1-based) led to `game`: a draw the rules impose is
    /// noted in the record (the result is the rules' own); a draw that may only be
    /// claimed is noted and reported the first time it can be, the result left
    /// to the arbiter.
    pub(super) fn after_ply<R: Recordable>(
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
pub(super) fn apply_event<R: Recordable>(
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
    let name = &|sq| f.game().square_name(sq);
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
            let emt = emt.filter(|_| job.timeline.timed());
            let said = Said {
                ply: base + ply + 1,
                time,
                margin: *margin,
                assumed: *assumed,
            };
            write_move(before, mv, emt, alternatives, said, record, draws, events);
        }
        FollowEvent::Unexplained { squares, why } => {
            summary.unexplained += 1;
            let names: Vec<String> = squares.iter().map(|s| name(*s)).collect();
            let text = match why {
                Some(w) => format!(
                    "{} at {}; recording waits for a legal position",
                    w.describe_with(name),
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
                Some(w) => Event::irregularity(ms(time), w, true, name),
                None => Event::Unexplained {
                    time: ms(time),
                    squares: names,
                },
            });
        }
        FollowEvent::Noticed { what } => {
            // Pieces a move took still standing hold the record up; anything
            // else noticed is not a move, and recording goes on.
            let waits = matches!(what, Irregularity::NotTakenOff { .. });
            let then = if waits {
                "recording waits for them to be taken off"
            } else {
                "not a move; recording goes on"
            };
            record.current.note(&format!(
                "{} at {} ({then})",
                what.describe_with(name),
                job.timeline.moment(time)
            ));
            events.emit(Event::irregularity(ms(time), what, waits, name));
        }
        FollowEvent::NewGame { after } => {
            summary.games += 1;
            new_game(f, after, time, record, draws, job, events);
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
        FollowEvent::Corrected { ply, mv, upto, why } => {
            correct(f, (base, *ply, *upto), mv, *why, time, record, events)
        }
    }
}

/// Play went on after an irregularity: the moves that follow are a new game of
/// the file, from the position it left.
fn new_game<R: Recordable>(
    f: &Follower<R>,
    after: &crate::infer::Irregularity,
    time: f64,
    record: &mut RecordFile<R>,
    draws: &mut DrawWatch,
    job: &RecordJob,
    events: &mut dyn EventSink,
) {
    let game = record.games() + 1;
    record.new_game(
        f.game(),
        &format!(
            "play went on after the irregularity ({}): the moves that followed are game {game} of this file, from the position it left (at {})",
            after.describe_with(&|sq| f.game().square_name(sq)),
            job.timeline.moment(time)
        ),
        &format!(
            "game {game}: continues game {} from the position left by an irregularity ({}); the arbiter decides (FIDE 7.5)",
            game - 1,
            after.describe_with(&|sq| f.game().square_name(sq))
        ),
    );
    draws.claim = f.game().claimable();
    events.emit(Event::NewGame {
        time: ms(time),
        game,
        position: f.game().position_text(),
        after: after.describe_with(&|sq| f.game().square_name(sq)),
    });
}

/// Later play showed a ply was another move (a promotion's piece, a piece put
/// down between two squares): the record is rebuilt from it on; moves accepted
/// in the same view follow as their own events. `base` moves stood in the
/// record before the follower's first; plies `ply..upto` are rewritten.
#[allow(clippy::too_many_arguments)]
fn correct<R: Recordable>(
    f: &Follower<R>,
    (base, ply, upto): (usize, usize, usize),
    mv: &R::Move,
    why: Correction,
    time: f64,
    record: &mut RecordFile<R>,
    events: &mut dyn EventSink,
) {
    let before = |ply: usize| {
        f.position_before(ply)
            .expect("an accepted ply has a position")
    };
    // Rebuild the record from the corrected ply on; moves accepted in the same
    // view follow as their own events.
    let (note, reason) = match why {
        Correction::Relanded => (
            "corrected: later play shows the piece stood on another square (it was \
             put down between two)",
            "relanded",
        ),
        Correction::Promotion => (
            "corrected: later play shows which piece the pawn became",
            "promotion",
        ),
        Correction::Alternative => (
            "corrected: later play shows it was the other move the views supported \
             when it was recorded",
            "alternative",
        ),
    };
    record.current.truncate(base + ply);
    for (i, m) in f.moves().iter().enumerate().take(upto).skip(ply) {
        record.current.push(before(i), m, None);
        if i == ply {
            record.current.note(note);
        }
        if let Some(text) = uncertain_note(before(i), m, f.alternatives(i)) {
            record.current.note(&text);
        }
    }
    events.emit(Event::Corrected {
        time: ms(time),
        ply: base + ply + 1,
        san: before(ply).notation(mv),
        uci: before(ply).move_id(mv),
        reason: reason.to_string(),
    });
}

/// How a move was seen: its number in the record, when, how clearly, and
/// whether its promotion piece was assumed.
#[derive(Clone, Copy)]
pub(super) struct Said {
    ply: usize,
    time: f64,
    margin: f64,
    assumed: bool,
}

/// A move accepted: written with its notes, reported, and the draws it makes
/// possible said.
#[allow(clippy::too_many_arguments)]
fn write_move<R: Recordable>(
    before: &R,
    mv: &R::Move,
    emt: Option<f64>,
    alternatives: &[crate::infer::Alternative],
    said: Said,
    record: &mut RecordFile<R>,
    draws: &mut DrawWatch,
    events: &mut dyn EventSink,
) {
    record.current.push(before, mv, emt);
    if said.assumed {
        record
            .current
            .note("the camera cannot tell the promoted piece; assumed a queen");
    }
    if let Some(text) = uncertain_note(before, mv, alternatives) {
        record.current.note(&text);
    }
    let mut after = before.clone();
    after.play_legal(mv);
    if let Some(text) = silent_note(before, &after) {
        record.current.note(&text);
    }
    events.emit(Event::Move {
        time: ms(said.time),
        ply: said.ply,
        san: before.notation(mv),
        uci: before.move_id(mv),
        confidence: (1.0 / (1.0 + (-said.margin).exp()) * 1e4).round() / 1e4,
        assumed: said.assumed,
        alternatives: alternatives.iter().map(|a| a.notation.clone()).collect(),
    });
    draws.after_ply(&after, said.ply, said.time, record, events);
}

/// The record's comment on a move that changed no square (a pass in Go): no
/// view shows one; the views showed the other side play twice in a row.
fn silent_note<R: Rules>(before: &R, after: &R) -> Option<String> {
    let (files, ranks) = before.dims();
    let unchanged = (0..ranks)
        .flat_map(|r| (0..files).map(move |f| Square::new(f, r)))
        .all(|sq| before.occupant(sq) == after.occupant(sq));
    let mover = before.side_to_move();
    unchanged.then(|| {
        format!(
            "{} passed: the board showed {} play twice in a row",
            mover.name(),
            mover.other().name()
        )
    })
}

/// The record's comment on a move the views also support others for: the move
/// recorded, then the others, closest first (`uncertain: Rc1 or Rd1+`).
pub(super) fn uncertain_note<R: Rules>(
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

/// What a diagnosis shows of one still view: the readings, the changes and the
/// hypotheses the follower holds after it.
pub(super) fn debug_event<R: Rules>(
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
pub(super) fn readings_event(
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
