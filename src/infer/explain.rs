//! Explaining a change: which sequence of legal moves turns the current position
//! into what the camera sees? Scored by log-likelihood of the observed cell
//! probabilities under each candidate's occupancy; hidden squares carry no evidence.

use std::collections::{HashMap, HashSet};

use super::change::ChangeModel;
use super::observation::{occ_index, squares, Observation};
use crate::rules::{Occupant, Rules, Square};

/// Thresholds for accepting an explanation, in nats (natural-log likelihood ratios).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InferConfig {
    /// Longest sequence of moves tried between two observations.
    pub max_plies: usize,
    /// The best explanation must beat "nothing moved" by this much.
    pub accept_nats: f64,
    /// ... and the runner-up by this much.
    pub margin_nats: f64,
    /// Prior cost of each ply, so that a short explanation wins over a long one that
    /// fits as well (and unseen plies are not invented).
    pub ply_penalty: f64,
    /// A reading at least this sure of one occupant names its square among those of
    /// an unexplained change when it disagrees with the position.
    pub confident: f32,
    /// Probabilities are floored here, so one bad reading cannot veto everything.
    pub floor: f32,
    /// Largest surprise, in nats, that an explanation may leave in the fresh readings
    /// (against their own best labels): room for one misread square, not for the two
    /// or more that a piece appearing from nowhere leaves.
    pub max_residual: f64,
    /// How a square's image change since the view of the current position weighs
    /// for "a piece came or went" (used where the observation carries changes).
    pub change: ChangeModel,
}

impl Default for InferConfig {
    fn default() -> Self {
        InferConfig {
            max_plies: 3,
            accept_nats: 4.0,
            margin_nats: 2.0,
            ply_penalty: 1.5,
            confident: 0.5,
            floor: 0.01,
            max_residual: 7.0,
            change: ChangeModel::default(),
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

/// Change evidence below which a square's image counts as unchanged: its reading
/// is then the same picture read again, not fresh evidence of anything.
const FRESH_LLR: f64 = -1.0;

struct Evidence {
    files: u8,
    /// Per square: log-probabilities of empty/white/black, or None when hidden.
    logp: Vec<Option<[f64; 3]>>,
    /// Per square: the log-likelihood ratio of its image change for "changed",
    /// 0 where unknown.
    change: Vec<f64>,
    /// Per square: the confidently read occupant, if any.
    sure: Vec<Option<Occupant>>,
    fresh: Vec<bool>,
    max_residual: f64,
}

impl Evidence {
    fn new(obs: &Observation, cfg: &InferConfig, base: &[Occupant]) -> Evidence {
        let (files, ranks) = obs.dims();
        let llrs = cfg.change.square_llrs(obs, base);
        let mut logp = Vec::new();
        let mut sure = Vec::new();
        let mut fresh = Vec::new();
        for (sq, llr) in squares(files, ranks).zip(&llrs) {
            fresh.push(obs.is_fresh(sq) && llr.is_none_or(|l| l > FRESH_LLR));
            logp.push(
                obs.get(sq)
                    .map(|p| p.map(|v| f64::from(v.max(cfg.floor)).ln())),
            );
            sure.push(
                obs.best(sq)
                    .and_then(|(o, p)| (p >= cfg.confident).then_some(o)),
            );
        }
        Evidence {
            files,
            logp,
            change: llrs.iter().map(|l| l.unwrap_or(0.0)).collect(),
            sure,
            fresh,
            max_residual: cfg.max_residual,
        }
    }

    fn sq(&self, i: usize) -> Square {
        Square::new(
            (i % self.files as usize) as u8,
            (i / self.files as usize) as u8,
        )
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

    /// Fresh squares whose confident reading contradicts `occ`.
    fn contradictions(&self, occ: &[Occupant]) -> Vec<Square> {
        occ.iter()
            .enumerate()
            .filter(|(i, o)| self.fresh[*i] && self.sure[*i].is_some_and(|s| s != **o))
            .map(|(i, _)| self.sq(i))
            .collect()
    }

    /// The surprise `occ` leaves in the fresh readings: the sum over fresh squares of
    /// how much less likely `occ`'s label is than the reading's best.
    fn residual(&self, occ: &[Occupant]) -> f64 {
        occ.iter()
            .enumerate()
            .filter(|(i, _)| self.fresh[*i])
            .filter_map(|(i, o)| {
                self.logp[i]
                    .map(|lp| lp.iter().cloned().fold(f64::MIN, f64::max) - lp[occ_index(*o)])
            })
            .sum()
    }

    fn fits(&self, occ: &[Occupant]) -> bool {
        self.residual(occ) <= self.max_residual
    }
}

/// The occupancy of every square of a game, rank by rank from a1.
pub fn occupancy<R: Rules>(game: &R) -> Vec<Occupant> {
    let (files, ranks) = game.dims();
    squares(files, ranks).map(|sq| game.occupant(sq)).collect()
}

struct Candidate<R: Rules> {
    game: R,
    moves: Vec<R::Move>,
    tiebreak: u32,
}

/// One explanation: its score (log-likelihood gain over "nothing moved", less the
/// ply prior), its moves, and the surprise it leaves in the fresh readings.
struct Scored<M> {
    score: f64,
    moves: Vec<M>,
    residual: f64,
}

/// Every distinct line of up to `cfg.max_plies` legal moves from `game`, scored,
/// breadth-first (one line per distinct occupancy: the camera cannot tell apart
/// lines that leave the same pieces on the same squares), the line of no moves
/// first. After each depth `enough` sees the lines so far and may end the search.
fn search<R: Rules>(
    game: &R,
    ev: &Evidence,
    cfg: &InferConfig,
    mut enough: impl FnMut(&[Scored<R::Move>]) -> bool,
) -> Vec<Scored<R::Move>> {
    let base = occupancy(game);
    let mut seen: HashSet<Vec<Occupant>> = HashSet::new();
    seen.insert(base.clone());
    let mut scored = vec![Scored {
        score: 0.0,
        moves: vec![],
        residual: ev.residual(&base),
    }];
    let mut frontier = vec![Candidate {
        game: game.clone(),
        moves: vec![],
        tiebreak: 0,
    }];
    for depth in 1..=cfg.max_plies {
        let mut next: HashMap<Vec<Occupant>, Candidate<R>> = HashMap::new();
        for cand in &frontier {
            for mv in cand.game.legal_moves() {
                let mut g = cand.game.clone();
                let tiebreak = cand.tiebreak + g.tiebreak(&mv);
                g.play(&mv);
                let occ = occupancy(&g);
                if seen.contains(&occ) {
                    continue;
                }
                if next.get(&occ).is_none_or(|c| tiebreak < c.tiebreak) {
                    let mut moves = cand.moves.clone();
                    moves.push(mv);
                    next.insert(
                        occ,
                        Candidate {
                            game: g,
                            moves,
                            tiebreak,
                        },
                    );
                }
            }
        }
        let mut layer: Vec<(Vec<Occupant>, Candidate<R>)> = next.into_iter().collect();
        // HashMap order is arbitrary; keep results reproducible.
        layer.sort_by(|a, b| a.0.cmp(&b.0));
        for (occ, cand) in &layer {
            scored.push(Scored {
                score: ev.gain(&base, occ) - cfg.ply_penalty * depth as f64,
                moves: cand.moves.clone(),
                residual: ev.residual(occ),
            });
            seen.insert(occ.clone());
        }
        if enough(&scored) {
            break;
        }
        frontier = layer.into_iter().map(|(_, c)| c).collect();
        if frontier.is_empty() {
            break;
        }
    }
    scored
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
fn decide<M: Clone + PartialEq>(scored: &[Scored<M>], cfg: &InferConfig) -> Option<Verdict<M>> {
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
    let close: Vec<&Scored<M>> = scored
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
pub fn moved_on<R: Rules>(game: &R, obs: &Observation, cfg: &InferConfig) -> bool {
    let base = occupancy(game);
    let ev = Evidence::new(obs, cfg, &base);
    let mut frontier = vec![game.clone()];
    for depth in 1..=2 {
        let mut next = Vec::new();
        for g in &frontier {
            for mv in g.legal_moves() {
                let mut g2 = g.clone();
                g2.play(&mv);
                let occ = occupancy(&g2);
                if occ != base
                    && ev.gain(&base, &occ) - cfg.ply_penalty * depth as f64 >= cfg.accept_nats
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
