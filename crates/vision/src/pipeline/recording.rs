//! One recording as a state machine over still views: taking a record up again,
//! waiting for the start (or joining a game under way), then following the game,
//! with the grid placed again when views stop fitting. Each phase is a method;
//! what they share is the state of the recording.

use super::event::{corner_list, ms};
use super::joining::{
    fits_a_position, join_under_way, joined_note, named_lines, read_again, OpenJoin,
    PLACE_AGAIN_CELLS, PLACE_AGAIN_GAIN,
};
use super::report::{apply_event, debug_event, DrawWatch, TakeUpNotes};
use super::{Before, Command, Event, EventSink, PipelineError, RecordJob, RecordSummary};
use super::{StillView, Watched, Watcher};
use crate::capture::FrameSource;
use crate::classify::{Classifier, SiteReading};
use crate::geometry::BoardPose;
use crate::infer::{
    check_start, extend, last_mover, start_likelihood, start_mismatch, view_set_up, CatchUp,
    CatchUpGate, FollowEvent, Follower, Joined, SiteMap, SiteProbs, StartMismatch, Suspects,
};
use crate::record::write_atomic;
use crate::record::{GameRecord, RecordFile, Recordable};
use crate::rules::{Rules, Side};

/// How clearly (nats over the next likeliest) the position must be known for its
/// view to teach the classifier: a doubtful position could teach a mistake.
const TEACH_MARGIN: f64 = 5.0;

/// What the loop does after a phase.
enum Flow {
    /// The view is dealt with: on to the next one.
    Next,
    /// On to the next phase with this view.
    Go,
    /// The recording ends.
    End,
}

/// A recording under way: the game's start, the record, and what the views have
/// shown so far.
pub(super) struct Recording<'a, R: Recordable> {
    game: R,
    record: RecordFile<R>,
    job: &'a RecordJob,
    classifier: &'a mut Classifier,
    source: &'a mut dyn FrameSource,
    events: &'a mut dyn EventSink,
    /// Plies the follower holds from the record taken up (see `record_onto`).
    held: usize,
    /// Half-moves in the record before the follower's first.
    base: usize,
    /// A record taken up again: until a view shows its last position, the
    /// camera may be showing the past.
    gate: Option<CatchUpGate>,
    history: (Vec<R>, Vec<R::Move>),
    past_said: Option<(usize, bool)>,
    notes: TakeUpNotes,
    interrupted: bool,
    watcher: Watcher,
    /// Sites whose reading contradicted a known position: ignored while they keep
    /// showing the same wrong label.
    suspects: Suspects,
    map: Option<SiteMap>,
    follower: Option<Follower<R>>,
    summary: RecordSummary,
    pose: BoardPose,
    /// What the last view that was not the start position was reported for.
    not_start: Option<(StartMismatch, Vec<String>)>,
    /// The readings of the last view that was not the start: what changed since
    /// says which side moved last.
    last_view: Option<Vec<SiteProbs>>,
    /// Positions a view of a game under way fits equally, kept open until play
    /// decides: each under its orientation, and when that view was.
    open_joins: Option<(Vec<OpenJoin<R>>, f64)>,
    /// Still views in a row that fit no position of the game; the grid is
    /// placed again at the first of them, and every third after.
    unfit: usize,
    /// The still view read again through a grid placed anew.
    again: Option<StillView>,
    /// White edges other than the one taken that the start view fitted as well,
    /// and when the follower started: open until the first move decides.
    undecided: Option<(Vec<SiteMap>, f64)>,
    /// The game followed as well from the same start with the other side to
    /// begin, where the rules allow either (Go): open until a view one of the
    /// two explains and the other does not.
    shadow: Option<Follower<R>>,
    /// A draw claimable in a resumed record's last position was said when it
    /// was written.
    draws: DrawWatch,
}

impl<'a, R: Recordable> Recording<'a, R> {
    /// A recording of `game` onto `record`; checks that the game fits the grid
    /// (with White where the job says) and writes the record as it stands.
    pub(super) fn new(
        game: R,
        record: RecordFile<R>,
        before: Before<R>,
        classifier: &'a mut Classifier,
        source: &'a mut dyn FrameSource,
        job: &'a RecordJob,
        events: &'a mut dyn EventSink,
    ) -> Result<Self, PipelineError> {
        // The follower of a record taken up holds its plies too (a promotion's
        // piece may still be corrected): half-moves are numbered from the current
        // game's start then.
        let held = before.moves.len();
        let base = record.plies().saturating_sub(held);
        let grid = job.pose.grid();
        let (files, ranks) = game.dims();
        match job.white {
            Some(side) if SiteMap::new(side, grid.rows, grid.cols, files, ranks).is_none() => {
                return Err(PipelineError::DoesNotFit {
                    files,
                    ranks,
                    grid,
                    side: Some(side),
                })
            }
            None if SiteMap::all(grid.rows, grid.cols, files, ranks)
                .next()
                .is_none() =>
            {
                return Err(PipelineError::DoesNotFit {
                    files,
                    ranks,
                    grid,
                    side: None,
                })
            }
            _ => {}
        }
        write(job, &record)?;
        let gate = (!before.positions.is_empty() || before.taken_back.is_some())
            .then(|| CatchUpGate::new(&before.positions, &game, job.infer));
        classifier.forget_board();
        let map = job
            .white
            .and_then(|side| SiteMap::new(side, grid.rows, grid.cols, files, ranks));
        Ok(Recording {
            record,
            job,
            held,
            base,
            gate,
            history: (before.positions, before.moves),
            past_said: None,
            notes: TakeUpNotes {
                held,
                resumed: None,
                taken_back: before.taken_back.clone(),
            },
            interrupted: false,
            watcher: Watcher::new(crate::classify::CropView::new(&job.pose), job.track),
            suspects: Suspects::new(grid.len()),
            map,
            follower: None,
            summary: RecordSummary::default(),
            pose: job.pose,
            not_start: None,
            last_view: None,
            open_joins: None,
            unfit: 0,
            again: None,
            undecided: None,
            shadow: None,
            draws: DrawWatch {
                claim: game.claimable(),
            },
            game,
            classifier,
            source,
            events,
        })
    }

    /// The grid's sites for the game with White at `side`, if it fits.
    fn fits(&self, side: crate::infer::WhiteSide) -> Option<SiteMap> {
        let grid = self.job.pose.grid();
        let (files, ranks) = self.game.dims();
        SiteMap::new(side, grid.rows, grid.cols, files, ranks)
    }

    /// Every way the game fits the grid.
    fn all_maps(&self) -> impl Iterator<Item = SiteMap> {
        let grid = self.job.pose.grid();
        let (files, ranks) = self.game.dims();
        SiteMap::all(grid.rows, grid.cols, files, ranks)
    }

    /// Runs the recording to the end of the input (or the game), then writes
    /// what the views left open and returns the summary.
    pub(super) fn run(mut self) -> Result<RecordSummary, PipelineError> {
        loop {
            let still = match self.next_view()? {
                Some(Watched::Still(still)) => still,
                None | Some(Watched::Command(Command::Stop)) => break,
                Some(Watched::Command(Command::Interrupt)) => {
                    self.interrupted = true;
                    break;
                }
                Some(Watched::Command(Command::Note(text))) => {
                    self.record.current.note(&text);
                    write(self.job, &self.record)?;
                    continue;
                }
            };
            let probs = visible_probs(self.watcher.readings());
            self.suspects.review(&probs, &still.read_now);
            self.follow_regrid(&still);
            // The first view after taking a record up may show play after its
            // last position: its plies need no motion episode of their own.
            let mut episodes = still.episodes;
            if self.follower.is_none() && self.gate.is_some() {
                match self.catch_up(&still, &probs, &mut episodes) {
                    Flow::Next => continue,
                    Flow::Go | Flow::End => {}
                }
            }
            if self.follower.is_none() {
                match self.before_start(&still, &probs)? {
                    Flow::Next => continue,
                    Flow::Go | Flow::End => {}
                }
            }
            match self.follow(&still, episodes)? {
                Flow::End => break,
                Flow::Next | Flow::Go => {}
            }
        }
        self.finish()
    }

    /// The next still view (or command), or the still view read again through a
    /// grid placed anew.
    fn next_view(&mut self) -> Result<Option<Watched>, PipelineError> {
        if let Some(still) = self.again.take() {
            return Ok(Some(Watched::Still(still)));
        }
        // Only squares a piece can stand on are classified (draughts: the dark
        // ones), once the orientation says which sites those are.
        let playable = self.map.map(|m| m.playable(&self.game));
        self.watcher.next_still(
            &mut *self.source,
            &mut *self.classifier,
            playable.as_deref(),
            self.job.progress,
            &mut *self.events,
        )
    }

    /// A grid found anew in this view: a photo taken anew, a camera nudged.
    /// Followed without a word in the record; a knock of half a cell or more is
    /// worth the arbiter's note.
    fn follow_regrid(&mut self, still: &StillView) {
        let Some(corners) = &still.regrid else {
            return;
        };
        if self.pose.moved_cells(corners) >= 0.5 {
            self.record.current.note(&format!(
                "the board moved in the image at {}; grid found again",
                self.job.timeline.moment(still.time_s)
            ));
        }
        self.pose = BoardPose::new(self.pose.grid(), *corners);
        self.events.emit(Event::Regrid {
            time: ms(still.time_s),
            corners: corner_list(corners),
        });
    }

    /// A record taken up again: whether this view shows its last position (or
    /// play after it), the past, or something else. `Go` once it is taken up.
    fn catch_up(
        &mut self,
        still: &StillView,
        probs: &[SiteProbs],
        episodes: &mut Option<usize>,
    ) -> Flow {
        let maps: Vec<SiteMap> = self.all_maps().collect();
        let given = self.job.white.and_then(|side| self.fits(side));
        let Some(g) = self.gate.as_mut() else {
            return Flow::Go;
        };
        let Some(m) = given.or_else(|| g.orientation(maps.into_iter(), probs)) else {
            unreachable!("a fitting orientation was checked when the recording began");
        };
        let seen = g.view(&m.observation(probs, &[]));
        let plies = g.plies();
        let time = ms(still.time_s);
        match seen {
            CatchUp::Past { ply, of } => {
                self.summary.past_seen = self.summary.past_seen.max(Some(ply));
                if self.past_said != Some((ply, false)) {
                    self.events.emit(Event::Past {
                        time,
                        ply,
                        of,
                        undecided: false,
                    });
                    self.past_said = Some((ply, false));
                }
                Flow::Next
            }
            CatchUp::Undecided => {
                if self.past_said.is_none_or(|(_, u)| !u) {
                    let ply = self.past_said.map_or(0, |(p, _)| p);
                    self.events.emit(Event::Past {
                        time,
                        ply,
                        of: plies,
                        undecided: true,
                    });
                    self.past_said = Some((ply, true));
                }
                Flow::Next
            }
            CatchUp::Other => {
                let squares: Vec<String> = check_start(&self.game, &m, probs, &self.job.infer)
                    .misread
                    .iter()
                    .map(|s| self.game.square_name(*s))
                    .collect();
                let advice = format!(
                    "the view shows none of the positions of the record's {plies} half-moves, nor a move after them: check the input, --grid, --white and the corners"
                );
                let why = (StartMismatch::Other, vec![advice.clone()]);
                if self.not_start.as_ref() != Some(&why) {
                    self.events.emit(Event::NotStart {
                        time,
                        squares,
                        advice,
                    });
                    self.not_start = Some(why);
                }
                Flow::Next
            }
            CatchUp::Now | CatchUp::After => {
                self.take_up(still, m, plies, seen == CatchUp::After);
                if seen == CatchUp::After {
                    *episodes = None;
                }
                Flow::Go
            }
        }
    }

    /// The record taken up at this view with White's edge `m`: the follower
    /// starts from its last position, `after` when the view shows play after it.
    fn take_up(&mut self, still: &StillView, m: SiteMap, plies: usize, after: bool) {
        let time = ms(still.time_s);
        if self.job.white.is_none() {
            self.events.emit(Event::Orientation {
                time,
                white: m.side.to_string(),
            });
        }
        self.events.emit(Event::TakenUp {
            time,
            ply: plies,
            after,
        });
        if self.notes.taken_back.is_none() {
            self.notes.resumed = Some(format!(
                "recording resumed at {}",
                self.job.timeline.moment(still.time_s)
            ));
        }
        self.summary.taken_up = true;
        self.map = Some(m);
        if !after {
            if self.job.adapt {
                teach(&self.game, &m, self.classifier, &mut self.watcher, None);
            }
            self.suspects
                .mark(&self.game, &m, &visible_probs(self.watcher.readings()));
        }
        self.gate = None;
        // The move just taken back, as the rules know it.
        let again = self.notes.taken_back.as_ref().and_then(|san| {
            self.game
                .legal_moves()
                .into_iter()
                .find(|m| self.game.notation(m) == *san)
        });
        self.follower = Some(Follower::taken_up(
            std::mem::take(&mut self.history.0),
            std::mem::take(&mut self.history.1),
            self.game.clone(),
            self.job.infer,
            still.time_s,
            again,
        ));
    }

    /// Before the game is followed: recording starts at the first view that
    /// shows the start position (or --fen), or joins a game under way; until
    /// then, say what differs and keep watching.
    fn before_start(
        &mut self,
        still: &StillView,
        probs: &[SiteProbs],
    ) -> Result<Flow, PipelineError> {
        let m = match self.job.white.and_then(|side| self.fits(side)) {
            Some(m) => m,
            None => {
                let grid = self.job.pose.grid();
                let Some((_, m)) = start_likelihood(&self.game, probs, grid.rows, grid.cols) else {
                    unreachable!("a fitting orientation was checked when the recording began");
                };
                m
            }
        };
        let check = check_start(&self.game, &m, probs, &self.job.infer);
        // Where a set-up is stones placed (Go), a first view that reads surely
        // otherwise than the start is the game's set-up: a handicap, a game
        // taken up. (A few stones more than the start would pass for the start
        // misread, as a few misread squares of a chess start do.)
        let fresh = self.record.plies() == 0 && self.base == 0;
        let set = match fresh && !check.misread.is_empty() {
            true => view_set_up(&self.game, &m, probs),
            false => None,
        };
        if check.is_start() && set.is_none() {
            self.start_following(still, probs, m);
            return Ok(Flow::Go);
        }
        if let Some(set) = set {
            self.record.current.begin_with(&set);
            self.record.current.note(&format!(
                "the position at {} is the game's set-up",
                self.job.timeline.moment(still.time_s)
            ));
            self.game = set;
            self.start_following(still, probs, m);
            return Ok(Flow::Go);
        }
        let why = start_mismatch(&self.game, &m, probs, &check, self.job.white.is_some());
        // Which side moved last, from the view before: the turn the position
        // sought has. Without it a line a ply shorter than the game's (a
        // bishop's two moves for three) would fit as well.
        let to_move = self
            .last_view
            .as_deref()
            .and_then(|prev| last_mover(prev, probs))
            .map(Side::other);
        self.last_view = Some(probs.to_vec());
        let mut several = None;
        if why != StartMismatch::Empty && to_move.is_some() {
            match self.join(still, probs, to_move)? {
                Ok(()) => return Ok(Flow::Next),
                Err(lines) => several = lines,
            }
        }
        if several.is_none()
            && self.open_joins.is_none()
            && self.place_again_unfit(still, to_move)?
        {
            return Ok(Flow::Next);
        }
        let squares: Vec<String> = check
            .misread
            .iter()
            .map(|s| self.game.square_name(*s))
            .collect();
        if self.not_start.as_ref() != Some(&(why.clone(), squares.clone())) {
            let advice = match &several {
                Some(lines) => format!(
                    "the game is under way, and the view fits {} positions that moves from the start reach ({}): give the moves played with --moves, or the position with --fen",
                    lines.len(),
                    lines.join(" | ")
                ),
                None if to_move.is_none()
                    && self.job.infer.join.is_some()
                    && why != StartMismatch::Empty =>
                {
                    "the game seems to be under way: the moves before this view are reconstructed once the next move shows whose turn it is (or give them with --moves, or the position with --fen)".to_string()
                }
                None => why.advice(),
            };
            self.events.emit(Event::NotStart {
                time: ms(still.time_s),
                squares: squares.clone(),
                advice,
            });
            self.not_start = Some((why, squares));
        }
        Ok(Flow::Next)
    }

    /// A view of a game under way: joined when one line from the start (or from
    /// the positions kept open) explains it, the plies written and the game
    /// followed from there (`Ok(Ok(()))`); else the positions it fits equally,
    /// as the record would name them, when there are several.
    fn join(
        &mut self,
        still: &StillView,
        probs: &[SiteProbs],
        to_move: Option<Side>,
    ) -> Result<Result<(), Option<Vec<String>>>, PipelineError> {
        let mut several = None;
        let mut joined = None;
        if let Some((open, first)) = self.open_joins.take() {
            match extend(
                &open,
                probs,
                &self.job.infer.join.unwrap_or_default(),
                to_move,
            ) {
                Joined::One { map, line } => joined = Some((map, line, first)),
                Joined::Several(lines) => {
                    several = Some(named_lines(&self.game, &lines));
                    self.open_joins = Some((lines, first));
                }
                // Hidden squares: the positions stay open.
                Joined::Unreadable => self.open_joins = Some((open, first)),
                // Play fits none of them: the view is searched afresh.
                _ => {}
            }
        }
        if joined.is_none() && self.open_joins.is_none() {
            match join_under_way(&self.game, probs, self.job, to_move) {
                Ok(Some((m, line))) => joined = Some((m, line, still.time_s)),
                Ok(None) => {}
                Err(lines) => {
                    several = Some(named_lines(&self.game, &lines));
                    self.open_joins = Some((lines, still.time_s));
                }
            }
        }
        let Some((m, line, first)) = joined else {
            return Ok(Err(several));
        };
        self.open_joins = None;
        self.events.emit(Event::Joined {
            time: ms(still.time_s),
            plies: line.notation(),
            order_open: line.order_open,
            white: m.side.to_string(),
        });
        for (i, (mv, before)) in line.line.iter().zip(&line.positions).enumerate() {
            self.record.current.push(before, mv, None);
            self.events.emit(Event::Move {
                time: ms(still.time_s),
                ply: self.base + i + 1,
                san: before.notation(mv),
                uci: before.move_id(mv),
                confidence: 0.0,
                assumed: false,
                alternatives: Vec::new(),
            });
        }
        self.record.current.note(&joined_note(
            &line,
            &self.job.timeline.moment(first),
            &self.job.timeline.moment(still.time_s),
        ));
        write(self.job, &self.record)?;
        self.map = Some(m);
        let now = line.end().clone();
        if self.job.adapt {
            teach(&now, &m, self.classifier, &mut self.watcher, None);
        }
        self.suspects
            .mark(&now, &m, &visible_probs(self.watcher.readings()));
        let mut positions = line.positions.clone();
        positions.pop();
        self.follower = Some(Follower::taken_up(
            positions,
            line.line.clone(),
            now,
            self.job.infer,
            still.time_s,
            None,
        ));
        Ok(Ok(()))
    }

    /// Before the game is taken up, views that fit no position of it: the grid
    /// is placed again at the first of them and every third after, and taken
    /// where its readings show a position of the game. True when it was.
    fn place_again_unfit(
        &mut self,
        still: &StillView,
        to_move: Option<Side>,
    ) -> Result<bool, PipelineError> {
        self.unfit += 1;
        if self.unfit % 3 != 1 {
            return Ok(false);
        }
        let (game, job) = (&self.game, self.job);
        let mut better = |_: &[Option<SiteReading>], new: &[Option<SiteReading>]| {
            fits_a_position(game, &visible_probs(new), job, to_move)
        };
        let Some(c) =
            self.watcher
                .place_again(self.classifier, None, PLACE_AGAIN_CELLS, &mut better)?
        else {
            return Ok(false);
        };
        self.events.emit(Event::PlacedAgain {
            time: ms(still.time_s),
            corners: corner_list(&c),
        });
        self.pose = BoardPose::new(self.pose.grid(), c);
        self.last_view = None;
        self.unfit = 0;
        self.again = Some(read_again(still, self.pose.grid().len()));
        Ok(true)
    }

    /// The view shows the start with White at `m`: the game is followed from
    /// here. Other White edges under which it shows the start as well (pieces
    /// whose colours the camera cannot tell apart) are kept open, and the board
    /// not learnt, until the first move decides.
    fn start_following(&mut self, still: &StillView, probs: &[SiteProbs], m: SiteMap) {
        if self.job.white.is_none() {
            self.events.emit(Event::Orientation {
                time: ms(still.time_s),
                white: m.side.to_string(),
            });
        }
        self.map = Some(m);
        let others: Vec<SiteMap> = if self.job.white.is_none() {
            self.all_maps()
                .filter(|o| o.side != m.side)
                .filter(|o| check_start(&self.game, o, probs, &self.job.infer).is_start())
                .collect()
        } else {
            Vec::new()
        };
        self.undecided = (!others.is_empty()).then_some((others, still.time_s));
        if self.job.adapt && self.undecided.is_none() {
            teach(&self.game, &m, self.classifier, &mut self.watcher, None);
        }
        self.suspects
            .mark(&self.game, &m, &visible_probs(self.watcher.readings()));
        self.follower = Some(Follower::new(
            self.game.clone(),
            self.job.infer,
            still.time_s,
        ));
        self.shadow = self
            .game
            .other_begins()
            .map(|g| Follower::new(g, self.job.infer, still.time_s));
    }

    /// A view of the game followed: what it shows is written, the board taught
    /// where the position is clear; `End` when the rules end the game.
    fn follow(
        &mut self,
        still: &StillView,
        episodes: Option<usize>,
    ) -> Result<Flow, PipelineError> {
        let Some(mut m) = self.map else {
            unreachable!("the map is set when the follower starts");
        };
        let probs = visible_probs(self.watcher.readings());
        let mask = self.suspects.mask();
        let obs = seen_through(&m, &probs, &mask, still);
        let Some(f) = self.follower.as_mut() else {
            unreachable!("the follower started before");
        };
        if self.job.debug {
            let e = debug_event(still, self.watcher.readings(), &mask, &m, f, &obs, self.job);
            self.events.emit(e);
        }
        let mut seen = f.observe(&obs, still.time_s, episodes);
        if let Some((others, since)) = self.undecided.take() {
            if let Some((o, alt, alt_seen)) = decide_edge(
                &self.game, f, &others, since, still, &probs, &mask, episodes, self.job,
            ) {
                m = o;
                self.map = Some(m);
                *f = alt;
                seen = alt_seen;
                self.events.emit(Event::Orientation {
                    time: ms(still.time_s),
                    white: m.side.to_string(),
                });
                self.record.current.note(&format!(
                    "White's edge decided by the first move at {}: the {} edge (the pieces' colours could not tell)",
                    self.job.timeline.moment(still.time_s),
                    m.side
                ));
                if self.job.adapt {
                    teach(f.current(), &m, self.classifier, &mut self.watcher, None);
                }
                self.suspects.mark(f.current(), &m, &probs);
            } else if f.explained_last() && f.current().position_hash() != self.game.position_hash()
            {
                // The first move fits the White edge taken: it stays.
                if self.job.adapt {
                    teach(f.current(), &m, self.classifier, &mut self.watcher, None);
                }
            } else {
                self.undecided = Some((others, since));
            }
        }
        if let Some(mut other) = self.shadow.take() {
            let held = other.moves().len();
            let other_seen = other.observe(&obs, still.time_s, episodes);
            // A view either reads as plain play decides; where both do, the one
            // that needs fewer plies for it: no pass before the first stone.
            let (ours, theirs) = (f.moves().len(), other.moves().len());
            match (plain(f, &seen), plain(&other, &other_seen)) {
                (main, true) if !main || theirs < ours => {
                    let Some(start) = self.game.other_begins() else {
                        unreachable!("the shadow began from the other side's start");
                    };
                    *f = other;
                    seen = other_seen;
                    other_began(
                        f,
                        &start,
                        held,
                        still.time_s,
                        &mut self.record,
                        &mut *self.events,
                        self.job,
                    );
                    self.game = start;
                }
                (true, false) => {}
                (true, true) if ours < theirs => {}
                _ => self.shadow = Some(other),
            }
        }
        if f.explained_last() {
            self.watcher.confirm()?;
            self.unfit = 0;
        } else {
            self.unfit += 1;
        }
        if f.explained_last() && f.in_sync() && f.lead() >= TEACH_MARGIN {
            // The position now is clear and this view fits it: what its readings
            // still contradict is a steady misread, and what they show teaches
            // this board. A view no line explains (a hand, a move the next view
            // will settle) teaches nothing.
            self.suspects.mark(f.current(), &m, &probs);
            if self.job.adapt {
                teach(
                    f.current(),
                    &m,
                    self.classifier,
                    &mut self.watcher,
                    Some(&still.read_now),
                );
            }
        }
        for event in seen {
            self.notes.before(&event, &mut self.record);
            apply_event(
                &event,
                f,
                &mut self.record,
                &mut self.summary,
                (&mut self.base, still.time_s),
                &mut self.draws,
                self.job,
                &mut *self.events,
            );
            self.notes.after(&event, f, &mut self.record);
        }
        self.record.current.set_result(f.game());
        write(self.job, &self.record)?;
        if f.game().outcome().is_some() {
            return Ok(Flow::End);
        }
        self.place_again_lost(still, m)?;
        Ok(Flow::Next)
    }

    /// Views no move explains, one after another: the grid may be off (placed
    /// while an arm hid part of the board). Placed anew, it is taken where its
    /// readings fit the position far better.
    fn place_again_lost(&mut self, still: &StillView, m: SiteMap) -> Result<(), PipelineError> {
        if self.unfit < 2 || !(self.unfit - 2).is_multiple_of(3) {
            return Ok(());
        }
        let Some(f) = self.follower.as_ref() else {
            return Ok(());
        };
        let now = f.current().clone();
        let playable = m.playable(&self.game);
        let job = self.job;
        let mut better = |old: &[Option<SiteReading>], new: &[Option<SiteReading>]| {
            let miss = |r: &[Option<SiteReading>]| {
                check_start(&now, &m, &visible_probs(r), &job.infer)
                    .misread
                    .len()
            };
            miss(new) + PLACE_AGAIN_GAIN <= miss(old)
        };
        let Some(c) = self.watcher.place_again(
            self.classifier,
            Some(&playable),
            PLACE_AGAIN_CELLS,
            &mut better,
        )?
        else {
            return Ok(());
        };
        self.events.emit(Event::PlacedAgain {
            time: ms(still.time_s),
            corners: corner_list(&c),
        });
        self.record.current.note(&format!(
            "the readings fit no position through the grid used; grid placed again at {}",
            job.timeline.moment(still.time_s)
        ));
        write(job, &self.record)?;
        self.pose = BoardPose::new(self.pose.grid(), c);
        self.unfit = 0;
        self.again = Some(read_again(still, self.pose.grid().len()));
        Ok(())
    }

    /// The end of the input: what the follower still held is written, and the
    /// summary made.
    fn finish(mut self) -> Result<RecordSummary, PipelineError> {
        let counts = self.watcher.counts;
        (
            self.summary.frames,
            self.summary.still_views,
            self.summary.sites_read,
        ) = (counts.frames, counts.still_views, counts.sites_read);
        if let Some(f) = &mut self.follower {
            let time = self.watcher.last_time().unwrap_or(0.0);
            let last = if self.interrupted {
                Vec::new()
            } else {
                f.finish()
            };
            for event in last {
                self.notes.before(&event, &mut self.record);
                apply_event(
                    &event,
                    f,
                    &mut self.record,
                    &mut self.summary,
                    (&mut self.base, time),
                    &mut self.draws,
                    self.job,
                    &mut *self.events,
                );
                self.notes.after(&event, f, &mut self.record);
            }
            self.record.current.set_result(f.game());
            self.summary.in_sync = f.in_sync();
            self.summary.plies = f.moves().len().saturating_sub(self.held);
        } else {
            self.summary.in_sync = true;
        }
        write(self.job, &self.record)?;
        self.summary.white = self.map.map(|m| m.side);
        Ok(self.summary)
    }
}

/// White's edge decided by the first move: the edge, its follower, and what
/// that follower saw.
type Decided<R> = (
    SiteMap,
    Follower<R>,
    Vec<crate::infer::FollowEvent<<R as Rules>::Move>>,
);

/// The first move did not fit White at the edge taken, where other edges showed
/// the start as well: the first other edge under which it fits a move, with
/// its follower and what that saw.
#[allow(clippy::too_many_arguments)]
fn decide_edge<R: Recordable>(
    game: &R,
    f: &Follower<R>,
    others: &[SiteMap],
    since: f64,
    still: &StillView,
    probs: &[SiteProbs],
    mask: &[bool],
    episodes: Option<usize>,
    job: &RecordJob,
) -> Option<Decided<R>> {
    if f.explained_last() {
        return None;
    }
    others.iter().find_map(|o| {
        let mut alt = Follower::new(game.clone(), job.infer, since);
        let alt_obs = seen_through(o, probs, mask, still);
        let alt_seen = alt.observe(&alt_obs, still.time_s, episodes);
        (alt.explained_last() && alt.current().position_hash() != game.position_hash())
            .then_some((*o, alt, alt_seen))
    })
}

/// The side that was not expected to began the game, as `f` (followed from
/// `start`) shows: the record starts anew at `start`, its first `held` moves
/// written again as `f` read them, each said as corrected.
fn other_began<R: Recordable>(
    f: &Follower<R>,
    start: &R,
    held: usize,
    time: f64,
    record: &mut RecordFile<R>,
    events: &mut dyn EventSink,
    job: &RecordJob,
) {
    record.current.begin_with(start);
    record.current.note(&format!(
        "{} began the game (seen at {}): the moves before are read again",
        match start.side_to_move() {
            Side::White => "White",
            Side::Black => "Black",
        },
        job.timeline.moment(time)
    ));
    for (i, m) in f.moves().iter().enumerate().take(held) {
        let Some(before) = f.position_before(i) else {
            unreachable!("an accepted ply has a position");
        };
        record.current.push(before, m, None);
        if let Some(text) = super::report::uncertain_note(before, m, f.alternatives(i)) {
            record.current.note(&text);
        }
        events.emit(Event::Corrected {
            time: ms(time),
            ply: i + 1,
            san: before.notation(m),
            uci: before.move_id(m),
            reason: "began".to_string(),
        });
    }
}

/// Writes the record as it stands.
fn write<R: Recordable>(job: &RecordJob, record: &RecordFile<R>) -> Result<(), PipelineError> {
    write_atomic(&job.out, &record.render()).map_err(|source| PipelineError::Write {
        path: job.out.clone(),
        source,
    })
}

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

/// Per site, the probabilities of a visible reading; None where hidden or unread.
pub(super) fn visible_probs(readings: &[Option<SiteReading>]) -> Vec<SiteProbs> {
    readings
        .iter()
        .map(|r| r.as_ref().filter(|r| r.occluded <= 0.5).map(|r| r.probs))
        .collect()
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

/// Whether a follower read its latest view as plain play: explained, with no
/// irregularity beside it (a stone out of turn is not plain).
fn plain<R: Rules>(f: &Follower<R>, seen: &[FollowEvent<R::Move>]) -> bool {
    f.explained_last()
        && !seen.iter().any(|e| {
            matches!(
                e,
                FollowEvent::Noticed { .. }
                    | FollowEvent::Unexplained { .. }
                    | FollowEvent::NewGame { .. }
            )
        })
}
