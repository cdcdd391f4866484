//! Explaining a change: which sequence of legal moves turns the current position
//! into what the camera sees? Scored by log-likelihood of the observed cell
//! probabilities under each candidate's occupancy; hidden squares carry no evidence.

use std::collections::{HashMap, HashSet};

use super::change::ChangeModel;
use super::observation::{occ_index, occ_key, squares, Observation};
use crate::rules::{Occupant, Rules, Side, Square};

/// Thresholds for accepting an explanation, in nats (natural-log likelihood ratios).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct InferConfig {
    /// Longest sequence of moves tried between two observations.
    pub(crate) max_plies: usize,
    /// The best explanation must beat "nothing moved" by this much.
    pub(crate) accept_nats: f64,
    /// ... and the runner-up by this much.
    pub(crate) margin_nats: f64,
    /// Prior cost of each ply, so that a short explanation wins over a long one that
    /// fits as well (and unseen plies are not invented).
    pub(crate) ply_penalty: f64,
    /// A reading at least this sure of one occupant names its square among those of
    /// an unexplained change when it disagrees with the position.
    pub(crate) confident: f32,
    /// Probabilities are floored here, so one bad reading cannot veto everything.
    pub(crate) floor: f32,
    /// Largest surprise, in nats, that an explanation may leave in the fresh readings
    /// (against their own best labels): room for one misread square, not for the two
    /// or more that a piece appearing from nowhere leaves.
    pub(crate) max_residual: f64,
    /// Views in a row that no legal line explains before the change is reported:
    /// 1 where every view follows a still period (video), 2 where a view may be a
    /// photo taken with a hand still over the board.
    pub(crate) misfit_views: usize,
    /// How a square's image change since the view of the current position weighs
    /// for "a piece came or went" (used where the observation carries changes).
    pub(crate) change: ChangeModel,
    /// A first view that is not the start position is searched for the line
    /// from the start that reaches it (a game under way); None waits for the
    /// start.
    pub join: Option<super::join::JoinConfig>,
}

impl InferConfig {
    /// This configuration with `views` unexplained views in a row before a change
    /// is reported (see `misfit_views`).
    pub fn with_misfit_views(mut self, views: usize) -> InferConfig {
        self.misfit_views = views;
        self
    }
}

impl Default for InferConfig {
    fn default() -> Self {
        InferConfig {
            max_plies: 2,
            accept_nats: 4.0,
            margin_nats: 2.0,
            ply_penalty: 1.5,
            confident: 0.5,
            floor: 0.01,
            max_residual: 7.0,
            misfit_views: 1,
            change: ChangeModel::default(),
            join: Some(super::join::JoinConfig::default()),
        }
    }
}

/// What the evidence says happened since the current position.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict<M> {
    /// The board still shows the current position.
    Unchanged,
    /// These moves, in order, explain the board; `margin` is how far (in nats) the
    /// explanation beats its runner-up, `residual` the surprise it leaves in the
    /// fresh readings (0 when every reading agrees).
    Moves {
        moves: Vec<M>,
        margin: f64,
        residual: f64,
    },
    /// Something may have changed, but the evidence does not single out one
    /// explanation yet: wait for a better view.
    Uncertain,
    /// A confident change that no sequence of up to `max_plies` legal moves explains
    /// (a possible illegal move); the squares whose readings disagree with the
    /// current position.
    Unexplained { squares: Vec<Square> },
}

/// A square whose image changed less than this many times the view's median
/// change is quiet: its reading is the same picture read again, not fresh
/// evidence of anything, and no move touched it.
const QUIET_Z: f64 = 2.0;

/// A square read with less than this log-probability for a piece of the side
/// to move (and surely as something else) rules out a move that puts one there
/// to stay (10%).
const RULED_OUT_LN: f64 = -std::f64::consts::LN_10; // ln 0.1

pub(super) struct Evidence {
    files: u8,
    /// Per square: log-probabilities of empty/white/black, or None when hidden.
    logp: Vec<Option<[f64; 3]>>,
    /// Per square: the log-likelihood ratio of its image change for "changed",
    /// 0 where unknown.
    change: Vec<f64>,
    /// Per square: its change is unknown (hidden in the view it is measured
    /// from) though it is in sight and read now.
    unknown_change: Vec<bool>,
    /// Per square: the confidently read occupant, if any.
    sure: Vec<Option<Occupant>>,
    fresh: Vec<bool>,
    /// Per square: its image is known not to have changed.
    quiet: Vec<bool>,
    /// The occupancy the changes are measured from.
    base: Vec<Occupant>,
    max_residual: f64,
}

impl Evidence {
    pub(super) fn new(obs: &Observation, cfg: &InferConfig, base: &[Occupant]) -> Evidence {
        let (files, ranks) = obs.dims();
        let llrs = cfg.change.square_llrs(obs, base);
        let noise = cfg.change.noise(obs);
        let mut logp = Vec::new();
        let mut sure = Vec::new();
        let mut fresh = Vec::new();
        let mut quiet = Vec::new();
        for sq in squares(files, ranks) {
            let q = obs
                .change(sq)
                .is_some_and(|c| f64::from(c) < QUIET_Z * noise);
            quiet.push(q);
            fresh.push(obs.is_fresh(sq) && !q);
            logp.push(
                obs.get(sq)
                    .map(|p| p.map(|v| f64::from(v.max(cfg.floor)).ln())),
            );
            sure.push(
                obs.best(sq)
                    .and_then(|(o, p)| (p >= cfg.confident).then_some(o)),
            );
        }
        let unknown_change = llrs
            .iter()
            .zip(&logp)
            .zip(&fresh)
            .map(|((l, p), f)| l.is_none() && p.is_some() && *f)
            .collect();
        Evidence {
            files,
            logp,
            change: llrs.iter().map(|l| l.unwrap_or(0.0)).collect(),
            unknown_change,
            sure,
            fresh,
            quiet,
            base: base.to_vec(),
            max_residual: cfg.max_residual,
        }
    }

    fn sq(&self, i: usize) -> Square {
        Square::new(
            (i % self.files as usize) as u8,
            (i / self.files as usize) as u8,
        )
    }

    /// Whether the view reads the square a move puts a piece of `side` on surely
    /// as something else (see [`Rules::placed`]): such a move is not searched.
    fn rules_out<R: Rules>(&self, game: &R, mv: &R::Move) -> bool {
        let Some(sq) = game.placed(mv) else {
            return false;
        };
        let i = sq.rank as usize * self.files as usize + sq.file as usize;
        let mover = match game.side_to_move() {
            crate::rules::Side::White => Occupant::White,
            crate::rules::Side::Black => Occupant::Black,
        };
        self.sure[i].is_some_and(|o| o != mover)
            && self.logp[i].is_some_and(|lp| lp[occ_index(mover)] < RULED_OUT_LN)
    }

    /// Log-likelihood gain of `occ` over `base`, counting only the squares that
    /// differ: their readings, and their image change.
    fn gain(&self, base: &[Occupant], occ: &[Occupant]) -> f64 {
        base.iter()
            .zip(occ)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| {
                let read = self.logp[i].map_or(0.0, |lp| lp[occ_index(*b)] - lp[occ_index(*a)]);
                read + self.change[i]
            })
            .sum()
    }

    /// The most any change of occupants can gain over `base`: each square's best
    /// other occupant where it gains. No line of moves, whatever squares it
    /// changes, gains more.
    fn ceiling(&self, base: &[Occupant]) -> f64 {
        base.iter()
            .enumerate()
            .map(|(i, a)| {
                let read = self.logp[i].map_or(0.0, |lp| {
                    let others = (0..3).filter(|&k| k != occ_index(*a)).map(|k| lp[k]);
                    others.fold(f64::NEG_INFINITY, f64::max) - lp[occ_index(*a)]
                });
                (read + self.change[i]).max(0.0)
            })
            .sum()
    }

    /// Whether square `i` changed in the image, and now reads as something else,
    /// although `occ` leaves its occupant as it was: a move no legal line makes.
    /// (A piece merely straightened changes the image but reads the same.)
    fn changed_unexplained(&self, occ: &[Occupant], i: usize) -> bool {
        self.base.get(i) == occ.get(i)
            && self.change[i] > 0.0
            && self.logp[i].is_some_and(|lp| {
                let best = (0..3).max_by(|&a, &b| lp[a].total_cmp(&lp[b])).unwrap_or(0);
                best != occ_index(occ[i])
            })
    }

    /// Fresh squares whose confident reading contradicts `occ`, and squares that
    /// changed where `occ` says nothing did.
    pub(super) fn contradictions(&self, occ: &[Occupant]) -> Vec<Square> {
        occ.iter()
            .enumerate()
            .filter(|(i, o)| {
                self.fresh[*i] && self.sure[*i].is_some_and(|s| s != **o)
                    || self.changed_unexplained(occ, *i)
            })
            .map(|(i, _)| self.sq(i))
            .collect()
    }

    /// The surprise `occ` leaves: the sum over fresh squares of how much less
    /// likely `occ`'s label is than the reading's best, and the evidence of the
    /// changes it leaves unexplained where the readings disagree with it too.
    pub(super) fn residual(&self, occ: &[Occupant]) -> f64 {
        let read: f64 = occ
            .iter()
            .enumerate()
            .filter(|(i, o)| self.counts(*i, **o))
            .filter_map(|(i, o)| {
                self.logp[i]
                    .map(|lp| lp.iter().cloned().fold(f64::MIN, f64::max) - lp[occ_index(*o)])
            })
            .sum();
        let changed: f64 = (0..occ.len())
            .filter(|&i| self.changed_unexplained(occ, i))
            .map(|i| self.change[i])
            .sum();
        // A square the line changes though its image is known not to have
        // changed.
        let unchanged: f64 = (0..occ.len())
            .filter(|&i| self.quiet[i] && self.base.get(i).is_some_and(|b| *b != occ[i]))
            .map(|i| (-self.change[i]).max(0.0))
            .sum();
        read + changed + unchanged
    }

    fn fits(&self, occ: &[Occupant]) -> bool {
        self.residual(occ) <= self.max_residual
    }

    /// The log-likelihood of the fresh readings under `occ`: what one view says of
    /// a position, comparable between positions. A square `occ` changes whose
    /// image did not change at all counts too: its reading, though made before,
    /// is of the picture the camera shows now (a piece said to arrive on a square
    /// that still looks empty).
    pub(super) fn loglik(&self, occ: &[Occupant]) -> f64 {
        occ.iter()
            .enumerate()
            .filter(|(i, o)| self.counts(*i, **o))
            .filter_map(|(i, o)| self.logp[i].map(|lp| lp[occ_index(*o)]))
            .sum()
    }

    /// Whether square `i`'s reading is evidence about `occ`'s occupant there: it
    /// was read anew, or `occ` changes it though its image stayed the same.
    fn counts(&self, i: usize, o: Occupant) -> bool {
        self.fresh[i] || self.quiet[i] && self.base.get(i).is_some_and(|b| *b != o)
    }

    /// The log-likelihood ratio of the image changes on the squares where `occ`
    /// differs from `base`.
    pub(super) fn change_gain(&self, base: &[Occupant], occ: &[Occupant]) -> f64 {
        base.iter()
            .zip(occ)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(i, _)| self.change[i])
            .sum()
    }

    /// Per square, whether its image changed since the view of `base`: where a
    /// move may have happened that no view showed. A hidden square, or one that
    /// only reads otherwise, is not evidence enough for plies no view showed; a
    /// square a hand hid in the view of `base` but that is in sight now may have
    /// changed (its reading then says how).
    fn touched(&self) -> Vec<bool> {
        self.change
            .iter()
            .zip(&self.unknown_change)
            .map(|(&c, &u)| c > 0.0 || u)
            .collect()
    }

    /// Whether square `i` is in sight and reads `o` more likely than not.
    pub(super) fn shows(&self, i: usize, o: Occupant) -> bool {
        self.logp[i].is_some_and(|lp| lp[occ_index(o)].exp() >= 0.5)
    }

    /// Whether every square where `occ` differs from `base` is quiet: no move
    /// that changes only those happened.
    fn all_quiet(&self, base: &[Occupant], occ: &[Occupant]) -> bool {
        base.iter()
            .zip(occ)
            .enumerate()
            .all(|(i, (a, b))| a == b || self.quiet[i])
    }
}

/// The occupancy of every square of a game, rank by rank from a1.
pub(crate) fn occupancy<R: Rules>(game: &R) -> Vec<Occupant> {
    let (files, ranks) = game.dims();
    squares(files, ranks).map(|sq| game.occupant(sq)).collect()
}

/// One line of legal moves from a position: where it ends, its moves, its
/// preference among lines the camera cannot tell apart, its score (log-likelihood
/// gain over "nothing moved", less the ply prior) and the surprise it leaves in
/// the fresh readings.
pub(super) struct Line<R: Rules> {
    pub(crate) game: R,
    pub(crate) occ: Vec<Occupant>,
    pub(crate) moves: Vec<R::Move>,
    pub(crate) tiebreak: u32,
    pub(crate) score: f64,
    pub(crate) residual: f64,
    /// Other moves of as many plies that reach the same position (a piece's way
    /// through a square no view showed, two moves in either order): the camera
    /// cannot tell them from `moves`. A few at most.
    pub(crate) others: Vec<Vec<R::Move>>,
}

/// Most other move sequences a line keeps.
const MAX_OTHERS: usize = 4;

/// Every distinct line of up to `cfg.max_plies` legal moves from `game`, scored,
/// breadth-first (one line per distinct occupancy: the camera cannot tell apart
/// lines that leave the same pieces on the same squares), the line of no moves
/// first. A move that changes only quiet squares is not followed. After each
/// depth `enough` sees the lines so far and may end the search.
pub(super) fn search<R: Rules>(
    game: &R,
    ev: &Evidence,
    cfg: &InferConfig,
    mut enough: impl FnMut(&[Line<R>]) -> bool,
) -> Vec<Line<R>> {
    let base = occupancy(game);
    let mut seen: HashSet<[u64; 3]> = HashSet::new();
    seen.insert(occ_key(&base));
    let mut lines = vec![Line {
        game: game.clone(),
        occ: base.clone(),
        moves: vec![],
        tiebreak: 0,
        score: 0.0,
        residual: ev.residual(&base),
        others: Vec::new(),
    }];
    // Silent moves (a pass in Go) change no square: a camera never sees one
    // alone, only the other side then playing twice. Such a move is followed
    // as the start of a longer line (`silent`), never made a line of its own,
    // and never twice in a row.
    let mut silent: Vec<Line<R>> = Vec::new();
    let mut frontier: Vec<(bool, usize)> = vec![(false, 0)];
    for depth in 1..=cfg.max_plies {
        let mut next: HashMap<[u64; 3], Found<R>> = HashMap::new();
        let mut next_silent = Vec::new();
        for &(quiet, at) in &frontier {
            let from = if quiet { &silent[at] } else { &lines[at] };
            let (from_game, from_occ) = (&from.game, &from.occ);
            for mv in from_game.legal_moves() {
                if ev.rules_out(from_game, &mv) {
                    continue;
                }
                let mut g = from_game.clone();
                let tiebreak = from.tiebreak + g.tiebreak(&mv);
                g.play_legal(&mv);
                let occ = occupancy(&g);
                if occ == *from_occ {
                    if !quiet && depth < cfg.max_plies {
                        let mut moves = from.moves.clone();
                        moves.push(mv);
                        next_silent.push(Line {
                            game: g,
                            occ,
                            moves,
                            tiebreak,
                            score: 0.0,
                            residual: 0.0,
                            others: Vec::new(),
                        });
                    }
                    continue;
                }
                let key = occ_key(&occ);
                if seen.contains(&key) || ev.all_quiet(from_occ, &occ) {
                    continue;
                }
                // The other side playing twice is a pass only where the view
                // shows just that: otherwise a stone pushed aside would read
                // as a pass and a move, with one misread.
                if quiet && !ev.contradictions(&occ).is_empty() {
                    continue;
                }
                keep_found(&mut next, key, (occ, g), &from.moves, mv, tiebreak);
            }
        }
        let mut layer: Vec<([u64; 3], Found<R>)> = next.into_iter().collect();
        // HashMap order is arbitrary; keep results reproducible.
        layer.sort_by(|a, b| a.1.occ.cmp(&b.1.occ));
        frontier.clear();
        frontier.extend((silent.len()..silent.len() + next_silent.len()).map(|i| (true, i)));
        silent.extend(next_silent);
        for (key, found) in layer {
            let Found {
                occ,
                game,
                moves,
                tiebreak,
                others,
            } = found;
            seen.insert(key);
            frontier.push((false, lines.len()));
            lines.push(Line {
                score: ev.gain(&base, &occ) - cfg.ply_penalty * depth as f64,
                residual: ev.residual(&occ),
                game,
                occ,
                moves,
                tiebreak,
                others,
            });
        }
        if enough(&lines) || frontier.is_empty() {
            break;
        }
    }
    lines
}

/// Keeps a position `search` reached at this depth: the line with the lowest
/// tiebreak leads, the others (up to `MAX_OTHERS`) are kept as lines the camera
/// cannot tell from it.
fn keep_found<R: Rules>(
    next: &mut HashMap<[u64; 3], Found<R>>,
    key: [u64; 3],
    (occ, game): (Vec<Occupant>, R),
    before: &[R::Move],
    mv: R::Move,
    tiebreak: u32,
) {
    let line_to = |mv| {
        let mut moves = before.to_vec();
        moves.push(mv);
        moves
    };
    match next.get_mut(&key) {
        Some(c) if tiebreak >= c.tiebreak => {
            if c.others.len() < MAX_OTHERS {
                c.others.push(line_to(mv));
            }
        }
        held => {
            let moves = line_to(mv);
            let mut others = Vec::new();
            if let Some(c) = held {
                others = std::mem::take(&mut c.others);
                others.insert(0, std::mem::take(&mut c.moves));
                others.truncate(MAX_OTHERS);
            }
            next.insert(
                key,
                Found {
                    occ,
                    game,
                    moves,
                    tiebreak,
                    others,
                },
            );
        }
    }
}

/// A position a search reached: its occupancy, the game and the moves there, and
/// their preference among lines the camera cannot tell apart.
struct Found<R: Rules> {
    occ: Vec<Occupant>,
    game: R,
    moves: Vec<R::Move>,
    tiebreak: u32,
    others: Vec<Vec<R::Move>>,
}

/// Pieces a line no view showed may move a second time.
const MAX_MOVED_AGAIN: usize = 1;
/// Most positions a change-guided search looks at, however deep it goes.
const MAX_GUIDED_NODES: usize = 20_000;

/// Lines of up to `depth` legal moves from `game` in which every move changes only
/// squares whose image changed, and that leave no square as it was in `game` after
/// a move changed it (a piece moved and moved back leaves no trace to go by): what
/// getting back in sync after several plies no view showed looks like. Scored as
/// `search` scores its lines; deeper than `search` goes because the evidence
/// prunes it. Only lines that fit the readings (`max_residual`) are kept.
pub(super) fn search_guided<R: Rules>(
    game: &R,
    ev: &Evidence,
    cfg: &InferConfig,
    depth: usize,
) -> Vec<Line<R>> {
    let base = occupancy(game);
    let touched = ev.touched();
    let mut seen: HashSet<[u64; 3]> = HashSet::new();
    seen.insert(occ_key(&base));
    let mut lines: Vec<Line<R>> = Vec::new();
    let mut frontier = vec![Guided::start(game, &base)];
    let mut nodes = 0usize;
    // Where each position reached became a line.
    let mut at: HashMap<[u64; 3], usize> = HashMap::new();
    for d in 1..=depth {
        let mut next = Vec::new();
        for from in &frontier {
            let (g, occ) = (&from.game, &from.occ);
            for mv in g.legal_moves() {
                if ev.rules_out(g, &mv) {
                    continue;
                }
                let mut g2 = g.clone();
                let tb = from.tiebreak + g2.tiebreak(&mv);
                g2.play_legal(&mv);
                let occ2 = occupancy(&g2);
                let inside = occ
                    .iter()
                    .zip(&occ2)
                    .enumerate()
                    .all(|(i, (a, b))| a == b || touched[i]);
                // In a line no view showed, at most one piece put down by an
                // earlier ply of it is lifted again (a rook that captures and
                // goes back); more is a story, not what the views show.
                let again = (0..occ.len()).any(|i| {
                    from.filled[i] && occ[i] != Occupant::Empty && occ2[i] == Occupant::Empty
                });
                let agains = from.agains + usize::from(again);
                if !inside || agains > MAX_MOVED_AGAIN {
                    continue;
                }
                if occ2 == *occ {
                    if !from.has_silent && d < depth {
                        next.push(Guided {
                            game: g2,
                            occ: occ2,
                            moves: from.line_to(mv),
                            tiebreak: tb,
                            touched_by: from.touched_by.clone(),
                            filled: from.filled.clone(),
                            agains,
                            has_silent: true,
                        });
                    }
                    continue;
                }
                if !seen.insert(occ_key(&occ2)) {
                    // Another way to a position a line of as many plies reached.
                    if let Some(line) = at
                        .get(&occ_key(&occ2))
                        .and_then(|&j| lines.get_mut(j))
                        .filter(|l| l.moves.len() == d && l.others.len() < MAX_OTHERS)
                    {
                        line.others.push(from.line_to(mv));
                    }
                    continue;
                }
                nodes += 1;
                let m2 = from.line_to(mv);
                let touched_now = marked(&from.touched_by, occ, &occ2, |_| true);
                // Every square a move changed must still differ from where the
                // line started.
                let traced = touched_now
                    .iter()
                    .enumerate()
                    .all(|(i, &t)| !t || occ2[i] != base[i]);
                let residual = ev.residual(&occ2);
                let plain = !from.has_silent || ev.contradictions(&occ2).is_empty();
                if traced && residual <= cfg.max_residual && plain {
                    at.insert(occ_key(&occ2), lines.len());
                    lines.push(Line {
                        score: ev.gain(&base, &occ2) - cfg.ply_penalty * d as f64,
                        residual,
                        game: g2.clone(),
                        occ: occ2.clone(),
                        moves: m2.clone(),
                        tiebreak: tb,
                        others: Vec::new(),
                    });
                }
                next.push(Guided {
                    filled: marked(&from.filled, occ, &occ2, |b| b != Occupant::Empty),
                    game: g2,
                    occ: occ2,
                    moves: m2,
                    tiebreak: tb,
                    touched_by: touched_now,
                    agains,
                    has_silent: from.has_silent,
                });
                if nodes >= MAX_GUIDED_NODES {
                    return lines;
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    lines
}

/// A line `search_guided` goes on from: its position, occupancy, moves and
/// tiebreak, the squares its moves changed, the squares its moves put a piece
/// on, the pieces it moved again, and whether it has a silent move (a pass: it
/// changes no square; at most one, and only in a line that leaves no reading
/// contradicted, as in `search`).
struct Guided<R: Rules> {
    game: R,
    occ: Vec<Occupant>,
    moves: Vec<R::Move>,
    tiebreak: u32,
    touched_by: Vec<bool>,
    filled: Vec<bool>,
    agains: usize,
    has_silent: bool,
}

impl<R: Rules> Guided<R> {
    /// The line of no moves from `game`, whose occupancy is `occ`.
    fn start(game: &R, occ: &[Occupant]) -> Guided<R> {
        Guided {
            game: game.clone(),
            occ: occ.to_vec(),
            moves: Vec::new(),
            tiebreak: 0,
            touched_by: vec![false; occ.len()],
            filled: vec![false; occ.len()],
            agains: 0,
            has_silent: false,
        }
    }

    /// The line's moves, then `mv`.
    fn line_to(&self, mv: R::Move) -> Vec<R::Move> {
        let mut moves = self.moves.clone();
        moves.push(mv);
        moves
    }
}

/// `marks` with every square a move changed from `occ` to `now` marked where
/// `what` holds for its new occupant.
fn marked(
    marks: &[bool],
    occ: &[Occupant],
    now: &[Occupant],
    what: impl Fn(Occupant) -> bool,
) -> Vec<bool> {
    let mut marks = marks.to_vec();
    for (i, (a, b)) in occ.iter().zip(now).enumerate() {
        if a != b && what(*b) {
            marks[i] = true;
        }
    }
    marks
}

/// The `n` best-scoring lines (score against "nothing moved", the surprise left in
/// the fresh readings, the moves), best first: what a diagnosis shows.
pub fn ranked<R: Rules>(
    game: &R,
    obs: &Observation,
    cfg: &InferConfig,
    n: usize,
) -> Vec<(f64, f64, Vec<R::Move>)> {
    let ev = Evidence::new(obs, cfg, &occupancy(game));
    let mut all = search(game, &ev, cfg, |_| false);
    all.sort_by(|a, b| b.score.total_cmp(&a.score));
    all.into_iter()
        .take(n)
        .map(|s| (s.score, s.residual, s.moves))
        .collect()
}

/// Decides what happened between the position of `game` and the observation.
pub fn explain<R: Rules>(game: &R, obs: &Observation, cfg: &InferConfig) -> Verdict<R::Move> {
    let base = occupancy(game);
    let ev = Evidence::new(obs, cfg, &base);
    // A line is accepted once one more ply of search does not overturn it: a
    // view that shows three plies also fits their first two well.
    let mut verdict: Option<Verdict<R::Move>> = None;
    let mut pending: Option<Verdict<R::Move>> = None;
    let scored = search(game, &ev, cfg, |scored| {
        let now = decide(scored, cfg);
        let settled = now.is_some() && now == pending;
        pending = now;
        if settled {
            verdict = pending.take();
        }
        settled
    });
    let verdict = verdict.or(pending);
    if let Some(v) = verdict {
        return v;
    }
    if ev.fits(&base) {
        return Verdict::Unchanged;
    }
    // Waiting is right only when some legal line fits and would be accepted but for
    // a close runner-up; a confident change that only weak lines fit is a change no
    // legal move explains.
    if scored.iter().any(|s| {
        s.residual <= cfg.max_residual && !s.moves.is_empty() && s.score >= cfg.accept_nats
    }) {
        Verdict::Uncertain
    } else {
        Verdict::Unexplained {
            squares: ev.contradictions(&base),
        }
    }
}

/// A verdict once the scored candidates settle it, or None to look deeper.
fn decide<R: Rules>(scored: &[Line<R>], cfg: &InferConfig) -> Option<Verdict<R::Move>> {
    let best = scored.iter().max_by(|a, b| a.score.total_cmp(&b.score))?;
    if best.residual > cfg.max_residual {
        return None;
    }
    if best.moves.is_empty() {
        // "Nothing moved" fits best and leaves the fresh readings little surprise.
        return Some(Verdict::Unchanged);
    }
    if best.score < cfg.accept_nats {
        return None;
    }
    // The lines within the margin of the best may differ only after plies they
    // share (a king's step under a hand, seen or not): those plies are certain
    // whichever of them happened, and the rest waits for a clearer view.
    let close: Vec<&Line<R>> = scored
        .iter()
        .filter(|s| s.score > best.score - cfg.margin_nats)
        .collect();
    let shared = (0..best.moves.len())
        .take_while(|&k| close.iter().all(|s| s.moves.get(k) == Some(&best.moves[k])))
        .count();
    if shared == 0 {
        return None;
    }
    let moves = &best.moves[..shared];
    let rival = scored
        .iter()
        .filter(|s| !s.moves.starts_with(moves))
        .map(|s| s.score)
        .fold(f64::NEG_INFINITY, f64::max);
    let residual = scored
        .iter()
        .find(|s| s.moves == moves)
        .map_or(best.residual, |s| s.residual);
    Some(Verdict::Moves {
        moves: moves.to_vec(),
        margin: best.score - rival,
        residual,
    })
}

/// Whether some line of one or two legal moves fits the observation better than
/// `game`'s own position by `cfg.accept_nats`: the game has moved on from it. Unlike a
/// count of disagreeing squares this stays right on a board the classifier misreads
/// in many places, as long as the misreads are not the traces of legal moves.
pub(crate) fn moved_on<R: Rules>(game: &R, obs: &Observation, cfg: &InferConfig) -> bool {
    let base = occupancy(game);
    let ev = Evidence::new(obs, cfg, &base);
    // A view that reads as the position nearly everywhere is settled without
    // playing the lines (on a Go board, 130,000 of them).
    if ev.ceiling(&base) - cfg.ply_penalty < cfg.accept_nats {
        return false;
    }
    any_line_gains(game, &base, &ev, cfg)
}

/// [`moved_on`] without the ceiling: every line of one or two moves played.
#[cfg(test)]
pub(crate) fn moved_on_by_search<R: Rules>(game: &R, obs: &Observation, cfg: &InferConfig) -> bool {
    let base = occupancy(game);
    any_line_gains(game, &base, &Evidence::new(obs, cfg, &base), cfg)
}

fn any_line_gains<R: Rules>(game: &R, base: &[Occupant], ev: &Evidence, cfg: &InferConfig) -> bool {
    let mut frontier = vec![game.clone()];
    for depth in 1..=2 {
        let mut next = Vec::new();
        for g in &frontier {
            for mv in g.legal_moves() {
                let mut g2 = g.clone();
                g2.play_legal(&mv);
                let occ = occupancy(&g2);
                if occ != base
                    && ev.gain(base, &occ) - cfg.ply_penalty * depth as f64 >= cfg.accept_nats
                {
                    return true;
                }
                next.push(g2);
            }
        }
        frontier = next;
    }
    false
}

/// A move that explains the view but for the stones it takes, which the view
/// still shows where they stood (captured stones not yet taken off the board):
/// the move and those squares. None when no such move fits the view.
pub(crate) fn takes_pending<R: Rules>(
    game: &R,
    obs: &Observation,
    cfg: &InferConfig,
) -> Option<(R::Move, Vec<Square>)> {
    let base = occupancy(game);
    let ev = Evidence::new(obs, cfg, &base);
    let taker = game.side_to_move();
    let theirs = match taker {
        Side::White => Occupant::Black,
        Side::Black => Occupant::White,
    };
    let mut best: Option<(f64, R::Move, Vec<Square>)> = None;
    for mv in game.legal_moves() {
        let mut g = game.clone();
        g.play_legal(&mv);
        let mut occ = occupancy(&g);
        // Squares emptied of the other side's pieces, put back as the view
        // shows them.
        let taken: Vec<usize> = (0..occ.len())
            .filter(|&i| base[i] == theirs && occ[i] == Occupant::Empty)
            .collect();
        if taken.is_empty() {
            continue;
        }
        for &i in &taken {
            occ[i] = theirs;
        }
        let gain = ev.gain(&base, &occ) - cfg.ply_penalty;
        if gain < cfg.accept_nats
            || ev.residual(&occ) > cfg.max_residual
            || !ev.contradictions(&occ).is_empty()
            || best.as_ref().is_some_and(|b| b.0 >= gain)
        {
            continue;
        }
        best = Some((gain, mv, taken.iter().map(|&i| ev.sq(i)).collect()));
    }
    best.map(|(_, mv, squares)| (mv, squares))
}
