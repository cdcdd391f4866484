//! Explaining a change: which sequence of legal moves turns the current position
//! into what the camera sees? Scored by log-likelihood of the observed cell
//! probabilities under each candidate's occupancy; hidden squares carry no evidence.

use std::collections::{HashMap, HashSet};

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

struct Evidence {
    files: u8,
    /// Per square: log-probabilities of empty/white/black, or None when hidden.
    logp: Vec<Option<[f64; 3]>>,
    /// Per square: the confidently read occupant, if any.
    sure: Vec<Option<Occupant>>,
    fresh: Vec<bool>,
    max_residual: f64,
}

impl Evidence {
    fn new(obs: &Observation, cfg: &InferConfig) -> Evidence {
        let (files, ranks) = obs.dims();
        let mut logp = Vec::new();
        let mut sure = Vec::new();
        let mut fresh = Vec::new();
        for sq in squares(files, ranks) {
            fresh.push(obs.is_fresh(sq));
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

    /// Log-likelihood gain of `occ` over `base`, counting only the squares that differ.
    fn gain(&self, base: &[Occupant], occ: &[Occupant]) -> f64 {
        base.iter()
            .zip(occ)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .filter_map(|(i, (a, b))| self.logp[i].map(|lp| lp[occ_index(*b)] - lp[occ_index(*a)]))
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

/// Decides what happened between the position of `game` and the observation.
pub fn explain<R: Rules>(game: &R, obs: &Observation, cfg: &InferConfig) -> Verdict<R::Move> {
    let ev = Evidence::new(obs, cfg);
    let base = occupancy(game);

    // Breadth-first over move sequences, one candidate per distinct occupancy: the
    // camera cannot tell apart sequences that leave the same pieces on the same squares.
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
        if let Some(v) = decide(&scored, cfg) {
            return v;
        }
        frontier = layer.into_iter().map(|(_, c)| c).collect();
        if frontier.is_empty() {
            break;
        }
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
fn decide<M: Clone>(scored: &[Scored<M>], cfg: &InferConfig) -> Option<Verdict<M>> {
    let (bi, best) = scored
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.score.total_cmp(&b.1.score))?;
    if best.residual > cfg.max_residual {
        return None;
    }
    let runner_up = scored
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != bi)
        .map(|(_, s)| s.score)
        .fold(f64::NEG_INFINITY, f64::max);
    let margin = best.score - runner_up;
    if best.moves.is_empty() {
        // "Nothing moved" fits best and leaves the fresh readings little surprise.
        return Some(Verdict::Unchanged);
    }
    if best.score >= cfg.accept_nats && margin >= cfg.margin_nats {
        return Some(Verdict::Moves {
            moves: best.moves.clone(),
            margin,
            residual: best.residual,
        });
    }
    None
}

/// Whether some line of one or two legal moves fits the observation better than
/// `game`'s own position by `cfg.accept_nats`: the game has moved on from it. Unlike a
/// count of disagreeing squares this stays right on a board the classifier misreads
/// in many places, as long as the misreads are not the traces of legal moves.
pub fn moved_on<R: Rules>(game: &R, obs: &Observation, cfg: &InferConfig) -> bool {
    let ev = Evidence::new(obs, cfg);
    let base = occupancy(game);
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
