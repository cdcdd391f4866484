//! Explaining a change: which sequence of legal moves turns the current position
//! into what the camera sees? Scored by log-likelihood of the observed cell
//! probabilities under each candidate's occupancy; hidden squares carry no evidence.

use std::collections::HashMap;

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
    /// A reading this sure of one occupant is a confident reading: an explanation that
    /// contradicts one is not accepted.
    pub confident: f32,
    /// Probabilities are floored here, so one bad reading cannot veto everything.
    pub floor: f32,
}

impl Default for InferConfig {
    fn default() -> Self {
        InferConfig {
            max_plies: 3,
            accept_nats: 4.0,
            margin_nats: 2.0,
            ply_penalty: 1.5,
            confident: 0.9,
            floor: 1e-3,
        }
    }
}

/// What the evidence says happened since the current position.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict<M> {
    /// The board still shows the current position.
    Unchanged,
    /// These moves, in order, explain the board; `margin` is how far (in nats) the
    /// explanation beats its runner-up.
    Moves { moves: Vec<M>, margin: f64 },
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
}

impl Evidence {
    fn new(obs: &Observation, cfg: &InferConfig) -> Evidence {
        let (files, ranks) = obs.dims();
        let mut logp = Vec::new();
        let mut sure = Vec::new();
        for sq in squares(files, ranks) {
            logp.push(
                obs.get(sq)
                    .map(|p| p.map(|v| f64::from(v.max(cfg.floor)).ln())),
            );
            sure.push(
                obs.best(sq)
                    .and_then(|(o, p)| (p >= cfg.confident).then_some(o)),
            );
        }
        Evidence { files, logp, sure }
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

    /// Squares whose confident reading contradicts `occ`.
    fn contradictions(&self, occ: &[Occupant]) -> Vec<Square> {
        occ.iter()
            .enumerate()
            .filter(|(i, o)| self.sure[*i].is_some_and(|s| s != **o))
            .map(|(i, _)| self.sq(i))
            .collect()
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

/// Decides what happened between the position of `game` and the observation.
pub fn explain<R: Rules>(game: &R, obs: &Observation, cfg: &InferConfig) -> Verdict<R::Move> {
    let ev = Evidence::new(obs, cfg);
    let base = occupancy(game);
    let base_contradictions = ev.contradictions(&base);

    // Breadth-first over move sequences, one candidate per distinct occupancy: the
    // camera cannot tell apart sequences that leave the same pieces on the same squares.
    let mut seen: HashMap<Vec<Occupant>, (f64, usize)> = HashMap::new();
    seen.insert(base.clone(), (0.0, 0));
    let mut scored: Vec<(f64, Vec<R::Move>, bool)> =
        vec![(0.0, vec![], base_contradictions.is_empty())];
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
                if seen.contains_key(&occ) {
                    continue;
                }
                let better = next.get(&occ).is_none_or(|c| tiebreak < c.tiebreak);
                if better {
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
            let score = ev.gain(&base, occ) - cfg.ply_penalty * depth as f64;
            let consistent = ev.contradictions(occ).is_empty();
            seen.insert(occ.clone(), (score, depth));
            scored.push((score, cand.moves.clone(), consistent));
        }
        if let Some(v) = decide(&scored, cfg) {
            return v;
        }
        frontier = layer.into_iter().map(|(_, c)| c).collect();
        if frontier.is_empty() {
            break;
        }
    }
    if base_contradictions.is_empty() {
        return Verdict::Unchanged;
    }
    let best_consistent = scored.iter().any(|(_, m, ok)| *ok && !m.is_empty());
    if best_consistent {
        Verdict::Uncertain
    } else {
        Verdict::Unexplained {
            squares: base_contradictions,
        }
    }
}

/// A verdict once the scored candidates settle it, or None to look deeper.
fn decide<M: Clone>(scored: &[(f64, Vec<M>, bool)], cfg: &InferConfig) -> Option<Verdict<M>> {
    let best = scored
        .iter()
        .enumerate()
        .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0))?;
    let (score, moves, consistent) = best.1;
    if !consistent {
        return None;
    }
    let runner_up = scored
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != best.0)
        .map(|(_, s)| s.0)
        .fold(f64::NEG_INFINITY, f64::max);
    let margin = score - runner_up;
    if moves.is_empty() {
        // "Nothing moved" fits best and contradicts no confident reading.
        return Some(Verdict::Unchanged);
    }
    if *score >= cfg.accept_nats && margin >= cfg.margin_nats {
        return Some(Verdict::Moves {
            moves: moves.clone(),
            margin,
        });
    }
    None
}
