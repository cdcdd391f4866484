//! Following a game through a series of observations. A few hypotheses of what
//! happened since the last committed move are kept at once (a beam), each scored
//! by everything the views since then showed: what each view read, and what
//! changed between views. A move is committed (written to the record) once every
//! hypothesis close to the best agrees on it and a later view has confirmed it, so
//! a view that fooled the readings (a hand over the board, a piece lifted and put
//! back) is outvoted by the views after it instead of leaving a wrong move in the
//! record. Also: reporting changes no legal move explains, getting back in sync,
//! and correcting a move the camera could not see fully (a promotion's piece)
//! once later play proves it.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use super::explain::{search, search_guided, takes_pending, Evidence, InferConfig, Line};
use super::irregular::{diagnose, irregular_position, noticed, Irregularity};
use super::observation::{occ_key, Observation};
use crate::rules::{Occupant, Rules, Side, Square};

/// What happened at one observation.
#[derive(Clone, Debug, PartialEq)]
pub enum FollowEvent<M> {
    /// Plies `first` to `last` (0-based, inclusive) were shown by one view
    /// together: no view showed the position between them.
    SeenTogether {
        /// The first of them.
        first: usize,
        /// The last of them.
        last: usize,
    },
    /// A move was committed at `ply` (0-based), played in `before`'s position.
    Moved {
        /// The half-move's index, from 0.
        ply: usize,
        /// The move.
        mv: M,
        /// Seconds since the previous view that showed a move (or the start), when
        /// this move is the last its view showed; earlier plies of a view have none.
        emt: Option<f64>,
        /// How far the hypotheses holding this move beat every other, in nats.
        margin: f64,
        /// Whether other moves look the same to the camera (the record notes it).
        assumed: bool,
        /// Other moves the views also support in this ply, closest first: the
        /// record should not be signed on this one's word alone.
        alternatives: Vec<Alternative>,
    },
    /// A confident change that no legal sequence explains; recording waits.
    /// `why` names it where it can be named.
    Unexplained {
        /// The squares that changed.
        squares: Vec<Square>,
        /// What it most likely is, when that can be said.
        why: Option<Irregularity>,
    },
    /// Something happened on the board that the accepted line does not account
    /// for, though the view was explained well enough to go on (a piece taken
    /// off the board for a moment, knocked over): named for the arbiter.
    Noticed {
        /// What happened.
        what: Irregularity,
    },
    /// Play went on from the position an illegal move left (FIDE 7.5: the
    /// arbiter decides): the follower now follows a new game from that position
    /// (`game()`), and `after` says which irregularity led there.
    NewGame {
        /// The irregularity play went on from.
        after: Irregularity,
    },
    /// The board shows a legal continuation again.
    Resynced,
    /// The move at `ply` was recorded wrongly (the camera cannot see which piece a
    /// pawn became): it is now `mv`, and the moves after it, up to ply `upto`
    /// (exclusive), stand as they were.
    Corrected {
        /// The half-move corrected, from 0.
        ply: usize,
        /// The move it is now.
        mv: M,
        /// The first half-move after the ones that stand, exclusive.
        upto: usize,
        /// What later play showed.
        why: Correction,
    },
}

/// What later play showed of a move recorded wrongly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Correction {
    /// Which piece a pawn became: the camera cannot see it at once.
    Promotion,
    /// The same piece landed on another square (put down between two).
    Relanded,
    /// Another move the views also supported when it was recorded (the record
    /// named it beside the move, as uncertain).
    Alternative,
}

/// A move the views also support in place of a committed one.
#[derive(Clone, Debug, PartialEq)]
pub struct Alternative {
    /// The move's id (UCI for chess), to tell moves apart.
    pub(crate) id: String,
    /// The move in the record's notation, in the position its own line played
    /// it from (that line may differ in an earlier uncommitted ply too).
    pub notation: String,
    /// How far (nats) its line fell behind the committed one over the views
    /// since the previous commit.
    pub(crate) behind: f64,
}

/// An alternative ply is also supported while its line trails the committed one
/// by less than the evidence the recorder asks of any move before accepting it
/// (`accept_nats`): had the views said that little for a move, it would not have
/// been recorded, so they cannot rule out the alternative either. (A piece put
/// down across a line, a sleeve read as a piece, squares no view read fresh.)
fn supported_within(cfg: &InferConfig) -> f64 {
    cfg.accept_nats
}

/// Most alternatives named for one ply.
const MAX_ALTERNATIVES: usize = 3;

/// Hypotheses kept at once.
const BEAM: usize = 8;
/// Lines followed besides the beam only to tell whether the views still
/// support the plies they hold instead of the committed ones.
const SHADOWS: usize = 4;
/// Lines followed from each hypothesis at each view (the best-scoring ones).
const LINES_PER_HYPOTHESIS: usize = 12;
/// Hypotheses this far (nats) behind the best are dropped.
const WINDOW: f64 = 30.0;
/// Cost of a line that brings the board back to an occupancy it had since the
/// last committed move (a piece moved and moved back between two views): what a
/// misread view followed by a clean one looks like, and rare in play.
const RETURN_PENALTY: f64 = 6.0;
/// How much more surprise (nats) than the best-fitting hypothesis leaves in a
/// view's readings a hypothesis may leave and stay in the beam: about one more
/// clear misread.
const RESIDUAL_SLACK: f64 = 3.0;
/// Explained views whose fit sets how much surprise a view may leave.
const RECENT_FITS: usize = 24;
/// Views no line explained that are kept to order the plies of the line that
/// explains a later one.
const MAX_UNEXPLAINED_VIEWS: usize = 3;
/// Longest line whose plies are tried in every order.
const MAX_REORDERED: usize = 5;
/// Deepest line a change-guided search looks for when no shallow line explains
/// a view (several plies no view showed).
const GUIDED_DEPTH: usize = 6;
/// How many plies back a correction may reach.
const CORRECTION_DEPTH: usize = 8;
/// How many plies back a piece may be found to have landed elsewhere.
const RELANDING_DEPTH: usize = 6;

/// One uncommitted ply: the move, the time of the view that showed it, whether
/// it was the last ply that view showed, and how many plies that view showed.
#[derive(Clone, Debug)]
struct Step<M> {
    mv: M,
    time: f64,
    ends_view: bool,
    view_plies: usize,
    /// The view read the piece on the square this ply put it on.
    landing_seen: bool,
    /// Other moves in this ply, of lines merged into this one because they
    /// reached the same position (the camera cannot tell them apart from then
    /// on), and how far behind each fell.
    rivals: Vec<Alternative>,
}

#[derive(Clone, Debug)]
struct Hypothesis<R: Rules> {
    game: R,
    occ: Vec<Occupant>,
    /// Plies since the committed position.
    steps: Vec<Step<R::Move>>,
    /// Occupancies the board had since the committed position (that one first).
    trail: Vec<Vec<Occupant>>,
    /// Log-likelihood of everything seen since the start, up to a constant.
    score: f64,
    tiebreak: u32,
}

/// A hypothesis after one view, the surprise its line leaves in the view's
/// readings, and whether it follows a shadow.
type Kid<R> = (Hypothesis<R>, f64, bool);

/// The order of hypotheses, likeliest first; ties go to the lower tiebreak,
/// then the fewer plies.
fn hypothesis_order<R: Rules>(a: &Hypothesis<R>, b: &Hypothesis<R>) -> std::cmp::Ordering {
    b.score
        .total_cmp(&a.score)
        .then(a.tiebreak.cmp(&b.tiebreak))
        .then(a.steps.len().cmp(&b.steps.len()))
        // HashMap order is arbitrary; keep results reproducible.
        .then_with(|| a.occ.cmp(&b.occ))
}

/// Follows a game from the views a camera gives: the moves committed, the lines
/// still open, the irregularities noticed.
#[derive(Clone)]
pub struct Follower<R: Rules> {
    /// The committed position.
    game: R,
    /// Position before each committed ply.
    before: Vec<R>,
    moves: Vec<R::Move>,
    /// Per committed ply: its view read the piece where the ply put it.
    landing_seen: Vec<bool>,
    /// Per committed ply: the other moves the views also supported.
    alternatives: Vec<Vec<Alternative>>,
    beam: Vec<Hypothesis<R>>,
    /// Lines out of the beam (too far behind, or against the last view) but
    /// within what a misread could account for: followed to see whether later
    /// views still support them, never committed.
    shadows: Vec<Hypothesis<R>>,
    /// The shadows after the last view expanded, until its hypotheses are taken.
    next_shadows: std::cell::RefCell<Vec<Hypothesis<R>>>,
    in_sync: bool,
    /// Views in a row that no hypothesis explained (0: the last one was).
    misfits: usize,
    /// The hypotheses held before the last explained view, and how many plies
    /// were committed then: a view fooled by what the model took for a piece
    /// (a hand) may have been explained by a move that never happened, and the
    /// next view, which no follower of it explains, goes on from these instead.
    before_last: Option<(Vec<Hypothesis<R>>, usize)>,
    /// Views since the last explained one that no line explained (a hand, a
    /// misread): they still say in which order the plies of the line that
    /// explains a later view were played.
    unexplained_views: Vec<Observation>,
    /// Motion episodes seen since the last explained view, where they are known.
    episodes: Option<usize>,
    /// The position an illegal move left, and that move: where play may go on
    /// from instead of going back.
    irregular: Option<(R, Irregularity, f64)>,
    /// The last irregularity noticed in an explained view (reported once), and
    /// one seen once where views may show a hand (photos): reported when the
    /// next view shows it too.
    noticed: Option<Irregularity>,
    maybe_noticed: Option<Irregularity>,
    /// Pieces a move took that still stood, once said (see `waits_for_takes`).
    takes_said: Option<Irregularity>,
    /// How much surprise the best fit left in recent explained views: what this
    /// board's readings usually leave.
    fits: std::collections::VecDeque<f64>,
    /// The best fit's surprise in the last view expanded.
    last_fit: std::cell::Cell<f64>,
    last_time: f64,
    cfg: InferConfig,
}

impl<R: Rules> Follower<R> {
    /// A follower of `game` from its current position, from `start_time` seconds.
    pub fn new(game: R, cfg: InferConfig, start_time: f64) -> Follower<R> {
        let occ = super::occupancy(&game);
        Follower {
            beam: vec![Hypothesis {
                game: game.clone(),
                trail: vec![occ.clone()],
                occ,
                steps: Vec::new(),
                score: 0.0,
                tiebreak: 0,
            }],
            game,
            before: Vec::new(),
            moves: Vec::new(),
            landing_seen: Vec::new(),
            alternatives: Vec::new(),
            shadows: Default::default(),
            next_shadows: Default::default(),
            in_sync: true,
            misfits: 0,
            before_last: None,
            unexplained_views: Vec::new(),
            episodes: None,
            irregular: None,
            noticed: None,
            maybe_noticed: None,
            takes_said: None,
            fits: std::collections::VecDeque::new(),
            last_fit: std::cell::Cell::new(0.0),
            last_time: start_time,
            cfg,
        }
    }

    /// A follower that takes a game up after `moves` (played from `before[0]`,
    /// `before[i]` the position before `moves[i]`) led to `game`: those plies stand
    /// committed, as if followed here, so that a later view may still correct one
    /// the camera could not tell (which piece a pawn became). Where their pieces
    /// landed is not questioned: no view of them is at hand.
    ///
    /// `again` is a move just taken back from the record that earlier views showed:
    /// held as played, uncommitted, beside the position without it, so that a view
    /// showing it (or play after it) keeps it rather than another move that leaves
    /// the same squares (d5 then exd6 en passant, or d6 then exd6), and a view
    /// showing it undone drops it.
    pub fn taken_up(
        before: Vec<R>,
        moves: Vec<R::Move>,
        game: R,
        cfg: InferConfig,
        start_time: f64,
        again: Option<R::Move>,
    ) -> Follower<R> {
        let mut f = Follower::new(game, cfg, start_time);
        f.landing_seen = vec![true; moves.len()];
        // Nor what else the views supported for them.
        f.alternatives = vec![Vec::new(); moves.len()];
        f.before = before;
        f.moves = moves;
        if let Some(mv) = again.filter(|m| f.game.legal_moves().contains(m)) {
            let base = super::occupancy(&f.game);
            let mut game = f.game.clone();
            game.play_legal(&mv);
            let occ = super::occupancy(&game);
            f.beam.push(Hypothesis {
                game,
                trail: vec![base, occ.clone()],
                occ,
                // No view here showed when it was played: no move time.
                steps: vec![Step {
                    mv,
                    time: start_time,
                    ends_view: false,
                    view_plies: 1,
                    landing_seen: true,
                    rivals: Vec::new(),
                }],
                score: 0.0,
                tiebreak: 0,
            });
        }
        f
    }

    /// The committed position.
    pub fn game(&self) -> &R {
        &self.game
    }

    /// The committed moves.
    pub fn moves(&self) -> &[R::Move] {
        &self.moves
    }

    /// The other moves the views also supported in committed ply `i` (empty
    /// where none: the views single out the move committed).
    pub fn alternatives(&self, i: usize) -> &[Alternative] {
        self.alternatives.get(i).map_or(&[], Vec::as_slice)
    }

    /// The position before committed ply `i`.
    pub fn position_before(&self, i: usize) -> Option<&R> {
        self.before.get(i)
    }

    /// Whether the last view showed the committed position.
    pub fn in_sync(&self) -> bool {
        self.in_sync
    }

    /// Whether the last observation was explained (and taken into account).
    pub fn explained_last(&self) -> bool {
        self.misfits == 0
    }

    /// The likeliest position now, committed or not.
    pub fn current(&self) -> &R {
        self.beam.first().map_or(&self.game, |h| &h.game)
    }

    /// How far (nats) the likeliest position now beats the next likeliest; large
    /// when nothing else is in view.
    pub fn lead(&self) -> f64 {
        match self.beam.as_slice() {
            [] => 0.0,
            [_] => WINDOW,
            [a, b, ..] => a.score - b.score,
        }
    }

    /// The hypotheses held, best first: their uncommitted moves and score.
    pub fn describe(&self) -> Vec<String> {
        self.beam
            .iter()
            .map(|h| {
                let mut g = self.game.clone();
                let ids: Vec<String> = h
                    .steps
                    .iter()
                    .map(|s| {
                        let id = g.move_id(&s.mv);
                        g.play_legal(&s.mv);
                        id
                    })
                    .collect();
                format!("{:<24} {:7.2}", ids.join(" "), h.score)
            })
            .collect()
    }

    /// Takes one observation made at `time`, after `episodes` motion episodes (a
    /// hand over the board each; None where they cannot be told, as between two
    /// photos). Each ply needs an episode of its own: a view after one visit shows
    /// at most one ply, however well a longer line would fit.
    pub fn observe(
        &mut self,
        obs: &Observation,
        time: f64,
        episodes: Option<usize>,
    ) -> Vec<FollowEvent<R::Move>> {
        // Episodes of views that nothing explained still count.
        let allowed = match (self.misfits, self.episodes, episodes) {
            (0, _, e) => e,
            (_, Some(a), Some(e)) => Some(a + e),
            _ => None,
        };
        self.episodes = allowed;
        let mut events = Vec::new();
        let before = self.beam.first().map(|h| h.occ.clone());
        let (mut kids, mut best_fit) = self.expand(obs, time, allowed);
        let mut shadows = self.next_shadows.take();
        if best_fit.is_some() && self.misfits == 0 {
            if let Some((beam, plies)) = self.before_last.take() {
                // The last view may have been the fooled one: go on from before it.
                if plies == self.moves.len() {
                    let held = std::mem::replace(&mut self.beam, beam);
                    let (k, misfit) = self.expand(obs, time, allowed);
                    if misfit.is_none() {
                        (kids, best_fit) = (k, None);
                        shadows = self.next_shadows.take();
                    } else {
                        self.beam = held;
                    }
                }
            }
        }
        match best_fit {
            Some(contradictions) => {
                // No hypothesis explains this view: a hand the model did not see,
                // or a change no legal move makes. One such view is waited out.
                // It may instead be a recent ambiguous move (a promotion's piece)
                // showing its true nature: try it as if the likeliest hypothesis
                // were committed.
                let mut trial = self.clone();
                let mut committed = Vec::new();
                trial.commit_best(&mut committed);
                let mut corrected = Vec::new();
                if trial.try_correction(obs, time, &mut corrected) {
                    *self = trial;
                    events.extend(committed);
                    events.extend(corrected);
                    return events;
                }
                self.misfits += 1;
                if self.unexplained_views.len() < MAX_UNEXPLAINED_VIEWS {
                    self.unexplained_views.push(obs.clone());
                }
                if let Some(events) = self.play_went_on(obs, time, allowed) {
                    return events;
                }
                if self.waits_for_takes(obs, &mut events) {
                    return events;
                }
                if self.misfits >= self.cfg.misfit_views.max(1) && self.in_sync {
                    self.in_sync = false;
                    // What every close hypothesis holds happened before the
                    // irregularity (this view shows it too): it is committed.
                    self.commit(|_| true, &mut events);
                    let why = self
                        .beam
                        .first()
                        .and_then(|h| diagnose(&h.game, obs, &self.cfg));
                    if let Some(h) = self.beam.first() {
                        self.irregular = why.as_ref().and_then(|w| {
                            irregular_position(&h.game, w).map(|q| (q, w.clone(), time))
                        });
                    }
                    events.push(FollowEvent::Unexplained {
                        squares: contradictions,
                        why,
                    });
                }
            }
            None => {
                self.misfits = 0;
                self.takes_said = None;
                self.unexplained_views.clear();
                let held = std::mem::replace(&mut self.beam, kids);
                self.shadows = shadows;
                self.before_last = Some((held, self.moves.len()));
                self.fits.push_back(self.last_fit.get());
                if self.fits.len() > RECENT_FITS {
                    self.fits.pop_front();
                }
                // The board went back to a legal position: the irregular one is
                // forgotten.
                self.irregular = None;
                self.notice(obs, before.as_deref(), episodes.is_some(), &mut events);
                if !self.in_sync {
                    self.in_sync = true;
                    events.push(FollowEvent::Resynced);
                }
                self.commit(|s| s.time < time, &mut events);
                self.rebase_before_last();
            }
        }
        events
    }

    /// Whether the view shows a move whose captured pieces still stand: the
    /// record waits for them to be taken off (no irregularity), and says so
    /// once, when a second view in a row shows them still there.
    fn waits_for_takes(
        &mut self,
        obs: &Observation,
        events: &mut Vec<FollowEvent<R::Move>>,
    ) -> bool {
        let Some(h) = self.beam.first() else {
            return false;
        };
        let Some((mv, squares)) = takes_pending(&h.game, obs, &self.cfg) else {
            return false;
        };
        let what = Irregularity::NotTakenOff {
            by: h.game.notation(&mv),
            squares,
        };
        if self.misfits >= 2 && self.takes_said.as_ref() != Some(&what) {
            self.takes_said = Some(what.clone());
            events.push(FollowEvent::Noticed { what });
        }
        true
    }

    /// Takes the plies committed since `before_last` was kept out of its
    /// hypotheses (those that do not hold them are dropped).
    fn rebase_before_last(&mut self) {
        let Some((beam, plies)) = self.before_last.as_mut() else {
            return;
        };
        let done = &self.moves[*plies..];
        if done.is_empty() {
            return;
        }
        let n = done.len();
        beam.retain(|h| {
            h.steps.len() >= n && h.steps[..n].iter().zip(done).all(|(s, m)| s.mv == *m)
        });
        for h in beam.iter_mut() {
            h.steps.drain(..n);
            h.trail.drain(..n.min(h.trail.len().saturating_sub(1)));
        }
        *plies = self.moves.len();
        if beam.is_empty() {
            self.before_last = None;
        }
    }

    /// The surprise a view's best fit may leave and still explain it: room for
    /// about one misread beyond what this board's views usually leave (the
    /// median of recent fits; none on a board read cleanly).
    fn allowed_residual(&self) -> f64 {
        let mut recent: Vec<f64> = self.fits.iter().copied().collect();
        if recent.is_empty() {
            return self.cfg.max_residual;
        }
        let mid = recent.len() / 2;
        let median = *recent.select_nth_unstable_by(mid, f64::total_cmp).1;
        self.cfg.max_residual + median
    }

    /// Reports what an explained view shows besides the line accepted for it, once:
    /// at once in video (still views have no hands), at the second view in a row
    /// where a view may show a hand.
    fn notice(
        &mut self,
        obs: &Observation,
        before: Option<&[Occupant]>,
        still: bool,
        events: &mut Vec<FollowEvent<R::Move>>,
    ) {
        let (Some(best), Some(before)) = (self.beam.first(), before) else {
            return;
        };
        let seen = noticed(&best.game, before, obs, &self.cfg);
        let confirmed = match &seen {
            Some(w) if still || self.maybe_noticed.as_ref() == Some(w) => Some(w.clone()),
            _ => None,
        };
        self.maybe_noticed = seen.clone();
        if seen.is_none() {
            self.noticed = None;
        }
        if let Some(w) = confirmed {
            if self.noticed.as_ref() != Some(&w) {
                self.noticed = Some(w.clone());
                events.push(FollowEvent::Noticed { what: w });
            }
        }
    }

    /// Where an illegal move left a playable position and this view shows legal
    /// play going on from it, the follower becomes one of a new game from that
    /// position (the record says so); the events of that.
    fn play_went_on(
        &mut self,
        obs: &Observation,
        time: f64,
        episodes: Option<usize>,
    ) -> Option<Vec<FollowEvent<R::Move>>> {
        let (q, after, at) = self.irregular.clone()?;
        let mut trial = Follower::new(q, self.cfg, at);
        let (kids, misfit) = trial.expand(obs, time, episodes);
        // Play went on only when a move was made from there: the irregular
        // position alone may still be put right.
        if misfit.is_some() || kids.first().is_none_or(|k| k.steps.is_empty()) {
            return None;
        }
        trial.beam = kids;
        trial.shadows = trial.next_shadows.take();
        let mut events = vec![FollowEvent::NewGame { after }];
        trial.commit(|s| s.time < time, &mut events);
        *self = trial;
        Some(events)
    }

    /// Commits what the likely hypotheses agree on (the input has ended): the
    /// plies every line within `margin_nats` of the best holds. The end of the
    /// input adds no evidence, so a ply only the best line holds, by less than
    /// the margin a view would need, is not written (a shadow at the edge that
    /// half reads as a stone).
    pub fn finish(&mut self) -> Vec<FollowEvent<R::Move>> {
        let mut events = Vec::new();
        self.commit_with(|_| true, false, &mut events);
        self.beam.truncate(1);
        // A view no line explained that was being waited out (a photo that may
        // show a hand) is the last one: no later view will settle it, so it is
        // reported as any unexplained change is.
        if self.misfits > 0 && self.in_sync {
            if let (Some(obs), Some(h)) = (self.unexplained_views.last(), self.beam.first()) {
                let squares = Evidence::new(obs, &self.cfg, &h.occ).contradictions(&h.occ);
                let why = diagnose(&h.game, obs, &self.cfg);
                self.in_sync = false;
                events.push(FollowEvent::Unexplained { squares, why });
            }
        }
        events
    }

    /// The hypotheses after one more view, best first and within the window, and
    /// None; or, when the best of them leaves the fresh readings too surprised,
    /// Some of its contradicted squares.
    #[allow(clippy::type_complexity)]
    fn expand(
        &self,
        obs: &Observation,
        time: f64,
        episodes: Option<usize>,
    ) -> (Vec<Hypothesis<R>>, Option<Vec<Square>>) {
        let (kids, misfit) = self.expand_with(obs, time, episodes, false);
        if misfit.is_none() {
            return (kids, None);
        }
        // Nothing shallow fits: plies no view showed, found where the view says
        // the board changed.
        let (deep, deep_misfit) = self.expand_with(obs, time, episodes, true);
        if deep_misfit.is_none() {
            (deep, None)
        } else {
            (Vec::new(), misfit)
        }
    }

    /// The hypotheses after one view (`expand`), following every hypothesis by
    /// shallow lines or by change-guided deep ones.
    fn expand_with(
        &self,
        obs: &Observation,
        time: f64,
        episodes: Option<usize>,
        guided: bool,
    ) -> (Vec<Hypothesis<R>>, Option<Vec<Square>>) {
        let cfg = InferConfig {
            max_residual: self.allowed_residual(),
            ..self.cfg
        };
        let (kids, contradictions) = self.gather_kids(obs, time, episodes, guided, &cfg);
        self.choose_kids(kids, contradictions, &cfg)
    }

    /// Every hypothesis and shadow followed by its likeliest lines to this
    /// view, one kid per position reached, with the squares the view
    /// contradicts of the likeliest position held (those an unexplained
    /// change names).
    #[allow(clippy::type_complexity)]
    fn gather_kids(
        &self,
        obs: &Observation,
        time: f64,
        episodes: Option<usize>,
        guided: bool,
        cfg: &InferConfig,
    ) -> (HashMap<([u64; 3], Side), Kid<R>>, Vec<Square>) {
        // Per position reached: the line, the surprise it leaves, and whether
        // it follows a shadow.
        let mut kids: HashMap<([u64; 3], Side), Kid<R>> = HashMap::new();
        let mut contradictions = Vec::new();
        let parents = self
            .beam
            .iter()
            .map(|h| (h, false))
            .chain(self.shadows.iter().map(|h| (h, true)));
        for (k, (h, shadow)) in parents.enumerate() {
            let ev = Evidence::new(obs, cfg, &h.occ);
            if k == 0 {
                contradictions = ev.contradictions(&h.occ);
            }
            let mut lines = if guided {
                let depth = episodes.map_or(GUIDED_DEPTH, |e| e.min(GUIDED_DEPTH));
                search_guided(&h.game, &ev, cfg, depth)
            } else {
                search(&h.game, &ev, &self.cfg, |_| false)
            };
            if let Some(e) = episodes {
                lines.retain(|l| l.moves.len() <= e);
            }
            lines.sort_by(|a, b| b.score.total_cmp(&a.score));
            lines.truncate(LINES_PER_HYPOTHESIS);
            for line in lines {
                let line = self.best_order(h, line);
                let kid = self.child(h, &ev, &line, time);
                self.keep_kid(&mut kids, kid, line.residual, shadow);
            }
        }
        (kids, contradictions)
    }

    /// Adds `kid` to `kids`: lines that reach the same position are one from
    /// now on: the better is kept (a shadow never displaces a held line), and
    /// remembers the plies of the other.
    fn keep_kid(
        &self,
        kids: &mut HashMap<([u64; 3], Side), Kid<R>>,
        kid: Hypothesis<R>,
        residual: f64,
        shadow: bool,
    ) {
        let key = (occ_key(&kid.occ), kid.game.side_to_move());
        match kids.entry(key) {
            Entry::Vacant(e) => {
                e.insert((kid, residual, shadow));
            }
            Entry::Occupied(mut e) => {
                let held = &e.get().0;
                let better = match (shadow, e.get().2) {
                    (false, true) => true,
                    (true, false) => false,
                    _ => {
                        (kid.score, std::cmp::Reverse(kid.tiebreak))
                            > (held.score, std::cmp::Reverse(held.tiebreak))
                    }
                };
                if better {
                    let (loser, _, _) = e.insert((kid, residual, shadow));
                    self.absorb(&mut e.get_mut().0, &loser);
                } else {
                    self.absorb(&mut e.get_mut().0, &kid);
                }
            }
        }
    }

    /// The beam kept from this view's kids, best first with scores relative to
    /// the best, and None; or, when none fits the view well enough, no beam and
    /// Some of `contradictions`. The shadows for the next view are set either
    /// way.
    #[allow(clippy::type_complexity)]
    fn choose_kids(
        &self,
        kids: HashMap<([u64; 3], Side), Kid<R>>,
        contradictions: Vec<Square>,
        cfg: &InferConfig,
    ) -> (Vec<Hypothesis<R>>, Option<Vec<Square>>) {
        let (kids, shadow_kids): (Vec<_>, Vec<_>) = kids.into_values().partition(|k| !k.2);
        // What fits the view comes first: hypotheses that leave clearly more
        // surprise in its readings than the best-fitting one are dropped, however
        // well their past views scored; among the rest the likeliest leads.
        let fit = kids.iter().map(|k| k.1).fold(f64::INFINITY, f64::min);
        if fit > cfg.max_residual {
            *self.next_shadows.borrow_mut() = Vec::new();
            return (Vec::new(), Some(contradictions));
        }
        let (mut kids, misfits): (Vec<_>, Vec<_>) =
            kids.into_iter().partition(|k| k.1 <= fit + RESIDUAL_SLACK);
        kids.sort_by(|a, b| hypothesis_order(&a.0, &b.0));
        let Some((best, _, _)) = kids.first() else {
            *self.next_shadows.borrow_mut() = Vec::new();
            return (Vec::new(), Some(contradictions));
        };
        let top = best.score;
        let (kept, dropped): (Vec<_>, Vec<_>) = kids
            .into_iter()
            .enumerate()
            .partition(|(i, k)| *i < BEAM && k.0.score >= top - WINDOW);
        // The lines dropped here, or that this view's readings went against, are
        // still followed as shadows while they stay within what the views may
        // still support: they name the alternatives of the plies committed.
        let bound = supported_within(&self.cfg);
        let mut next: Vec<Hypothesis<R>> = dropped
            .into_iter()
            .map(|(_, k)| k)
            .chain(misfits)
            .chain(shadow_kids)
            .map(|(k, _, _)| k)
            .filter(|k| k.score > top - bound)
            .collect();
        next.sort_by(hypothesis_order);
        next.truncate(SHADOWS);
        for k in &mut next {
            k.score -= top;
        }
        *self.next_shadows.borrow_mut() = next;
        let kept = kept
            .into_iter()
            .map(|(_, (mut k, _, _))| {
                k.score -= top;
                k
            })
            .collect();
        self.last_fit.set(fit);
        (kept, None)
    }

    /// Keeps in `winner` the plies of `loser`, a line that reached the same
    /// position less likely: where they differ, the loser's move is an
    /// alternative, as is every alternative the loser held.
    fn absorb(&self, winner: &mut Hypothesis<R>, loser: &Hypothesis<R>) {
        let gap = (winner.score - loser.score).max(0.0);
        let bound = supported_within(&self.cfg);
        let moves: Vec<R::Move> = winner.steps.iter().map(|s| s.mv.clone()).collect();
        rivals_in(
            &self.game,
            (&moves, moves.len()),
            &loser.steps,
            gap,
            bound,
            |k, alt| note_rival(&mut winner.steps[k].rivals, alt, bound),
        );
    }

    /// The order of `line`'s plies that passes closest to what the views no line
    /// explained showed (a search keeps one order per position reached: the
    /// first found).
    fn best_order(&self, h: &Hypothesis<R>, line: Line<R>) -> Line<R> {
        let n = line.moves.len();
        if self.unexplained_views.is_empty() || !(2..=MAX_REORDERED).contains(&n) {
            return line;
        }
        let views: Vec<Evidence> = self
            .unexplained_views
            .iter()
            .map(|v| Evidence::new(v, &self.cfg, &h.occ))
            .collect();
        let fit = |passed: &[Vec<Occupant>]| -> f64 {
            views
                .iter()
                .map(|ev| {
                    passed
                        .iter()
                        .map(|o| ev.loglik(o))
                        .fold(f64::NEG_INFINITY, f64::max)
                })
                .sum()
        };
        let key = occ_key(&line.occ);
        let mut best: Option<(f64, Vec<R::Move>, R, u32)> = None;
        let mut order: Vec<usize> = (0..n).collect();
        permutations(&mut order, 0, &mut |perm| {
            let mut g = h.game.clone();
            let mut passed = vec![h.occ.clone()];
            let mut tiebreak = 0;
            for &i in perm {
                let mv = &line.moves[i];
                if !g.legal_moves().contains(mv) {
                    return;
                }
                tiebreak += g.tiebreak(mv);
                g.play_legal(mv);
                passed.push(super::occupancy(&g));
            }
            if passed.last().map(|o| occ_key(o)) != Some(key) {
                return;
            }
            let f = fit(&passed);
            if best.as_ref().is_none_or(|b| f > b.0 + 1e-9) {
                let moves = perm.iter().map(|&i| line.moves[i].clone()).collect();
                best = Some((f, moves, g, tiebreak));
            }
        });
        match best {
            Some((_, moves, game, tiebreak)) => Line {
                moves,
                game,
                tiebreak,
                ..line
            },
            None => line,
        }
    }

    /// Hypothesis `h` followed by `line` at the view of `time`.
    fn child(&self, h: &Hypothesis<R>, ev: &Evidence, line: &Line<R>, time: f64) -> Hypothesis<R> {
        let n = line.moves.len();
        let mut trail = h.trail.clone();
        let mut returns = 0;
        let mut passed = vec![h.occ.clone()];
        if n > 0 {
            let mut g = h.game.clone();
            for mv in &line.moves {
                g.play_legal(mv);
                let occ = super::occupancy(&g);
                if trail.contains(&occ) {
                    returns += 1;
                }
                trail.push(occ.clone());
                passed.push(occ);
            }
        }
        // Each view no line explained since is read as showing the position
        // of the line it fits best: a line whose plies pass through what such a
        // view showed is likelier than the same plies in another order.
        let order: f64 = self
            .unexplained_views
            .iter()
            .map(|v| {
                let ev = Evidence::new(v, &self.cfg, &h.occ);
                passed
                    .iter()
                    .map(|o| ev.loglik(o))
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .sum();
        let landing_seen = n > 0 && {
            let prev = &passed[n - 1];
            (0..line.occ.len())
                .filter(|&i| line.occ[i] != Occupant::Empty && line.occ[i] != prev[i])
                .all(|i| ev.shows(i, line.occ[i]))
        };
        let mut steps = h.steps.clone();
        steps.extend(line.moves.iter().enumerate().map(|(i, mv)| Step {
            mv: mv.clone(),
            time,
            ends_view: i + 1 == n,
            view_plies: n,
            landing_seen: i + 1 == n && landing_seen,
            rivals: Vec::new(),
        }));
        // Other ways to the same position, ply by ply where they differ (a
        // piece's other square, or none: a promotion's piece is the record's
        // own note).
        let bound = supported_within(&self.cfg);
        for other in &line.others {
            let (mut g, mut mine) = (h.game.clone(), h.game.clone());
            for (i, (mv, own)) in other.iter().zip(&line.moves).enumerate() {
                let (id, notation) = (g.move_id(mv), g.notation(mv));
                g.play_legal(mv);
                mine.play_legal(own);
                if mv != own && super::occupancy(&g) != super::occupancy(&mine) {
                    let alt = Alternative {
                        id,
                        notation,
                        behind: 0.0,
                    };
                    note_rival(&mut steps[h.steps.len() + i].rivals, alt, bound);
                }
            }
        }
        Hypothesis {
            game: line.game.clone(),
            occ: line.occ.clone(),
            steps,
            trail,
            score: h.score + ev.loglik(&line.occ) + ev.change_gain(&h.occ, &line.occ) + order
                - self.prior(n)
                - RETURN_PENALTY * returns as f64,
            tiebreak: h.tiebreak + line.tiebreak,
        }
    }

    /// The cost (nats) of `n` plies between two views: a view usually shows the
    /// board as it was, or one ply later; the first ply must be earned by
    /// `accept_nats` of evidence, each further one by `ply_penalty`.
    fn prior(&self, n: usize) -> f64 {
        match n {
            0 => 0.0,
            n => self.cfg.accept_nats + self.cfg.ply_penalty * (n - 1) as f64,
        }
    }

    /// Commits the plies that every hypothesis close to the best holds, as far as
    /// `ready` allows (plies shown by an earlier view: the view that showed a ply
    /// must be confirmed by another), and drops the hypotheses that disagree.
    fn commit(
        &mut self,
        ready: impl Fn(&Step<R::Move>) -> bool,
        events: &mut Vec<FollowEvent<R::Move>>,
    ) {
        self.commit_with(ready, false, events);
    }

    /// Commits every ply of the likeliest hypothesis, whatever the others hold
    /// (they still name the alternatives), and keeps it alone.
    fn commit_best(&mut self, events: &mut Vec<FollowEvent<R::Move>>) {
        self.commit_with(|_| true, true, events);
        self.beam.truncate(1);
    }

    fn commit_with(
        &mut self,
        ready: impl Fn(&Step<R::Move>) -> bool,
        best_only: bool,
        events: &mut Vec<FollowEvent<R::Move>>,
    ) {
        let Some(best) = self.beam.first() else {
            return;
        };
        let close: Vec<&Hypothesis<R>> = self
            .beam
            .iter()
            .take(if best_only { 1 } else { self.beam.len() })
            .filter(|h| h.score > best.score - self.cfg.margin_nats)
            .collect();
        let shared = (0..best.steps.len())
            .take_while(|&k| {
                ready(&best.steps[k])
                    && close
                        .iter()
                        .all(|h| h.steps.get(k).is_some_and(|s| s.mv == best.steps[k].mv))
            })
            .count();
        if shared == 0 {
            return;
        }
        let prefix: Vec<R::Move> = best.steps[..shared].iter().map(|s| s.mv.clone()).collect();
        let holds = |h: &Hypothesis<R>| {
            h.steps.len() >= shared
                && h.steps[..shared]
                    .iter()
                    .zip(&prefix)
                    .all(|(s, m)| s.mv == *m)
        };
        let rival = self
            .beam
            .iter()
            .filter(|h| !holds(h))
            .map(|h| h.score)
            .fold(f64::NEG_INFINITY, f64::max);
        let margin = (best.score - rival).min(WINDOW);
        let steps: Vec<Step<R::Move>> = best.steps[..shared].to_vec();
        // Per ply, the other moves of the lines merged into the best one and of
        // the hypotheses still held.
        let bound = supported_within(&self.cfg);
        let mut rivals: Vec<Vec<Alternative>> = steps.iter().map(|s| s.rivals.clone()).collect();
        let moves: Vec<R::Move> = steps.iter().map(|s| s.mv.clone()).collect();
        for h in self.beam.iter().skip(1).chain(&self.shadows) {
            let gap = best.score - h.score;
            rivals_in(
                &self.game,
                (&moves, best.steps.len()),
                &h.steps,
                gap,
                bound,
                |k, alt| note_rival(&mut rivals[k], alt, bound),
            );
        }
        for (step, rivals) in steps.into_iter().zip(rivals) {
            // One that reads as this move in the record is no alternative to it.
            let id = self.game.move_id(&step.mv);
            let mut named = vec![self.game.notation(&step.mv)];
            let alternatives: Vec<Alternative> = rivals
                .into_iter()
                .filter(|a| {
                    let fresh = a.id != id && !named.contains(&a.notation);
                    named.push(a.notation.clone());
                    fresh && a.behind < bound
                })
                .take(MAX_ALTERNATIVES)
                .collect();
            self.alternatives.push(alternatives.clone());
            // The lines merged into the best one are others this move beat too.
            let margin = alternatives
                .first()
                .map_or(margin, |a| margin.min(a.behind));
            let assumed = !self.game.alternatives(&step.mv).is_empty();
            self.before.push(self.game.clone());
            self.game.play_legal(&step.mv);
            self.moves.push(step.mv.clone());
            self.landing_seen.push(step.landing_seen);
            let emt = step.ends_view.then_some(step.time - self.last_time);
            if step.ends_view {
                self.last_time = step.time;
            }
            let ply = self.moves.len() - 1;
            events.push(FollowEvent::Moved {
                ply,
                mv: step.mv,
                emt,
                margin,
                assumed,
                alternatives,
            });
            if step.ends_view && step.view_plies > 1 {
                events.push(FollowEvent::SeenTogether {
                    first: ply + 1 - step.view_plies,
                    last: ply,
                });
            }
        }
        self.beam.retain(|h| holds(h));
        self.shadows.retain(|h| holds(h));
        for h in self.beam.iter_mut().chain(self.shadows.iter_mut()) {
            h.steps.drain(..shared);
            h.trail.drain(..shared.min(h.trail.len().saturating_sub(1)));
        }
    }

    /// Replaces one recent ambiguous move by an alternative when, with it, the
    /// observation is explained. Returns whether it did. Alternatives are the
    /// moves the camera cannot tell apart (a promotion's piece), for the last
    /// few plies the same piece put down on another square (a piece left on a
    /// line between two squares reads as standing on the wrong one until it
    /// moves on), and for any ply recorded as uncertain the other moves the
    /// views supported then.
    fn try_correction(
        &mut self,
        obs: &Observation,
        time: f64,
        events: &mut Vec<FollowEvent<R::Move>>,
    ) -> bool {
        let n = self.moves.len();
        // Of every alternative that explains the view, the one that fits it best
        // (the latest on a tie).
        let mut found: Option<(f64, usize, Correction, Vec<R::Move>)> = None;
        for k in (0..n).rev() {
            let base = &self.before[k];
            let mut alts: Vec<(R::Move, Correction)> = Vec::new();
            if k + CORRECTION_DEPTH >= n {
                alts.extend(
                    base.alternatives(&self.moves[k])
                        .into_iter()
                        .map(|m| (m, Correction::Promotion)),
                );
            }
            // Only a piece that no view read where it was said to land.
            if k + RELANDING_DEPTH >= n && !self.landing_seen[k] {
                alts.extend(
                    relandings(base, &self.moves[k])
                        .into_iter()
                        .map(|m| (m, Correction::Relanded)),
                );
            }
            // A ply recorded as uncertain stays open to its alternatives
            // however long ago: the piece it moved may stand still for the
            // rest of the game, and only its next move shows where it was.
            let named = self.alternatives.get(k).map_or(&[][..], Vec::as_slice);
            let legal = if named.is_empty() {
                Vec::new()
            } else {
                base.legal_moves()
            };
            let supported: Vec<R::Move> = legal
                .into_iter()
                .filter(|m| named.iter().any(|a| a.id == base.move_id(m)))
                .filter(|m| !alts.iter().any(|(a, _)| a == m))
                .collect();
            alts.extend(supported.into_iter().map(|m| (m, Correction::Alternative)));
            for (alt, why) in alts {
                let Some((line, game)) = self.replay_with(k, &alt) else {
                    continue;
                };
                // A piece landed elsewhere that leaves the board as it is cannot
                // be what the view shows.
                if why == Correction::Relanded
                    && occ_key(&super::occupancy(&game)) == occ_key(&super::occupancy(&self.game))
                {
                    continue;
                }
                let trial = Follower::new(game, self.cfg, self.last_time);
                if trial.expand(obs, time, None).1.is_some() {
                    continue;
                }
                let fit = trial.last_fit.get();
                if found.as_ref().is_none_or(|f| fit < f.0 - 1e-9) {
                    found = Some((fit, k, why, line));
                }
            }
        }
        if let Some((_, k, why, line)) = found {
            let base = self.before[k].clone();
            {
                // Rebuild the tail with the corrected move.
                self.before.truncate(k);
                self.moves.truncate(k);
                // The plies replayed after the corrected one landed as seen before,
                // and the views supported the same alternatives.
                let seen_after = self.landing_seen.split_off(k);
                let alternatives_after =
                    self.alternatives.split_off(k.min(self.alternatives.len()));
                self.game = base.clone();
                for (i, mv) in line.into_iter().enumerate() {
                    self.before.push(self.game.clone());
                    self.game.play_legal(&mv);
                    self.moves.push(mv.clone());
                    self.landing_seen
                        .push(i > 0 && seen_after.get(i).copied().unwrap_or(false));
                    self.alternatives.push(if i > 0 {
                        alternatives_after.get(i).cloned().unwrap_or_default()
                    } else {
                        Vec::new()
                    });
                    if i == 0 {
                        events.push(FollowEvent::Corrected {
                            ply: k,
                            mv,
                            upto: n,
                            why,
                        });
                    }
                }
                let restart = Follower::new(self.game.clone(), self.cfg, self.last_time);
                self.beam = restart.beam;
                self.shadows.clear();
                let (kids, _) = self.expand(obs, time, None);
                self.beam = kids;
                self.shadows = self.next_shadows.take();
                self.misfits = 0;
                if !self.in_sync {
                    self.in_sync = true;
                    events.push(FollowEvent::Resynced);
                }
                return true;
            }
        }
        false
    }

    /// The line from ply `k` with `alt` in place of the recorded move, if the later
    /// moves stay legal; and the position it ends in.
    fn replay_with(&self, k: usize, alt: &R::Move) -> Option<(Vec<R::Move>, R)> {
        let mut game = self.before[k].clone();
        let mut line = vec![alt.clone()];
        game.play_legal(alt);
        for mv in &self.moves[k + 1..] {
            if !game.legal_moves().contains(mv) {
                return None;
            }
            game.play_legal(mv);
            line.push(mv.clone());
        }
        Some((line, game))
    }
}

/// Calls `found` with each ply `k` of `moves` (played from `game`, the first
/// plies of a line of `plies`) where the line `steps`, `gap` nats behind, plays
/// another move, and with every alternative it held for a ply `moves` has; only
/// those less than `bound` behind. Lines of another length disagree on how many
/// plies were played, not on which: their plies are not compared.
fn rivals_in<R: Rules>(
    game: &R,
    (moves, plies): (&[R::Move], usize),
    steps: &[Step<R::Move>],
    gap: f64,
    bound: f64,
    mut found: impl FnMut(usize, Alternative),
) {
    if gap >= bound || steps.len() != plies {
        return;
    }
    let mut g = game.clone();
    for (k, (mine, theirs)) in moves.iter().zip(steps).enumerate() {
        if *mine != theirs.mv {
            found(
                k,
                Alternative {
                    id: g.move_id(&theirs.mv),
                    notation: g.notation(&theirs.mv),
                    behind: gap,
                },
            );
        }
        for r in &theirs.rivals {
            found(
                k,
                Alternative {
                    behind: r.behind + gap,
                    ..r.clone()
                },
            );
        }
        g.play_legal(&theirs.mv);
    }
}

/// Adds `alt` to `rivals` (closest first, one entry per move, the closest few)
/// if it is less than `bound` behind.
fn note_rival(rivals: &mut Vec<Alternative>, alt: Alternative, bound: f64) {
    if alt.behind >= bound {
        return;
    }
    match rivals.iter_mut().find(|r| r.id == alt.id) {
        Some(r) if r.behind <= alt.behind => return,
        Some(r) => *r = alt,
        None => rivals.push(alt),
    }
    rivals.sort_by(|a, b| a.behind.total_cmp(&b.behind).then_with(|| a.id.cmp(&b.id)));
    rivals.truncate(2 * MAX_ALTERNATIVES + 2);
}

/// The other legal moves from `game` that lift the same pieces as `mv` (the same
/// piece put down elsewhere).
fn relandings<R: Rules>(game: &R, mv: &R::Move) -> Vec<R::Move> {
    let before = super::occupancy(game);
    let lifted = |m: &R::Move| -> Vec<usize> {
        let mut g = game.clone();
        g.play_legal(m);
        let after = super::occupancy(&g);
        (0..before.len())
            .filter(|&i| before[i] != Occupant::Empty && after[i] == Occupant::Empty)
            .collect()
    };
    let from = lifted(mv);
    game.legal_moves()
        .into_iter()
        .filter(|m| m != mv && lifted(m) == from)
        .collect()
}

/// Calls `f` with every permutation of `items[k..]` after `items[..k]`.
fn permutations(items: &mut [usize], k: usize, f: &mut impl FnMut(&[usize])) {
    if k == items.len() {
        f(items);
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permutations(items, k + 1, f);
        items.swap(k, i);
    }
}
