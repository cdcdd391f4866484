//! Taking a game up again from its record (`record --resume`, `event` after a
//! restart, a take-back): the camera may first show positions the record has
//! already passed (a video read again from its start, a camera that reconnects
//! late). Such a view is the past and is skipped; recording goes on only from a
//! view that shows the record's last position, or play after it. A view that
//! fits the record's last position and an earlier one alike (a repetition) waits
//! for later views to tell which it is.

use super::explain::{occupancy, InferConfig};
use super::observation::{occ_index, squares, Observation};
use super::sites::{SiteMap, SiteProbs};
use crate::rules::{Occupant, Rules};

/// What a view shows against the record being taken up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatchUp {
    /// The position after half-move `ply` of the record's `of` (`ply < of`): the
    /// past, skipped.
    Past {
        /// The half-move the view shows the position after.
        ply: usize,
        /// The half-moves the record holds.
        of: usize,
    },
    /// The record's last position, or play after it, and also an earlier position
    /// of the game (a repetition, or a piece moved back): later views tell.
    Undecided,
    /// The record's last position: recording goes on from this view.
    Now,
    /// Play after the record's last position: recording goes on from its last
    /// position with this view as the first after it.
    After,
    /// None of the game's positions, nor a move after the last: another board,
    /// a wrong grid, a hand not seen as one.
    Other,
}

/// Where the views stand in a record's game while it is taken up again.
pub struct CatchUpGate {
    /// The occupancy after each half-move of the record, its start first: the
    /// record's last position is the last.
    history: Vec<Vec<Occupant>>,
    /// Occupancies one or two legal plies after the record's last position, with
    /// their ply count (the prior cost of each ply is counted against them).
    after: Vec<(Vec<Occupant>, usize)>,
    /// Half-moves of the history the views may be at; they only go forward.
    at: Option<Vec<usize>>,
    cfg: InferConfig,
}

/// A view's log-likelihoods must be this close (nats) for two positions to
/// count as equally shown: less than one clear misread (a confident reading
/// against a position costs about ln(0.99/0.01) = 4.6 nats).
const TIE_NATS: f64 = 3.0;

/// Share of the visible squares a position may disagree with and still be what a
/// view shows: a quarter, three times what an unadapted model misreads on the
/// real boards it never saw (7-9%), and far below the half that a board with
/// the pieces off (or a grid on the table) misreads.
const MISREAD_SHARE: f64 = 0.25;

impl CatchUpGate {
    /// A gate for a game whose record reached `last` through `past` (the
    /// positions before each of its half-moves, the start first).
    pub fn new<R: Rules>(past: &[R], last: &R, cfg: InferConfig) -> CatchUpGate {
        let mut history: Vec<Vec<Occupant>> = past.iter().map(occupancy).collect();
        history.push(occupancy(last));
        let mut after = Vec::new();
        let mut frontier = vec![last.clone()];
        for depth in 1..=2 {
            let mut next = Vec::new();
            for g in &frontier {
                if g.outcome().is_some() {
                    continue;
                }
                for mv in g.legal_moves() {
                    let mut g2 = g.clone();
                    g2.play_legal(&mv);
                    let occ = occupancy(&g2);
                    if !after.iter().any(|(o, _)| *o == occ) {
                        after.push((occ, depth));
                    }
                    if depth < 2 {
                        next.push(g2);
                    }
                }
            }
            frontier = next;
        }
        CatchUpGate {
            history,
            after,
            at: None,
            cfg,
        }
    }

    /// Half-moves the record holds.
    pub fn plies(&self) -> usize {
        self.history.len() - 1
    }

    /// The orientation among `maps` under which some position of the game shows
    /// best in the readings.
    pub fn orientation(
        &self,
        maps: impl Iterator<Item = SiteMap>,
        probs: &[SiteProbs],
    ) -> Option<SiteMap> {
        let mut best: Option<(f64, SiteMap)> = None;
        for map in maps {
            let obs = map.observation(probs, &[]);
            let ll = self
                .history
                .iter()
                .map(|occ| self.loglik(&obs, occ))
                .fold(f64::MIN, f64::max);
            if best.as_ref().is_none_or(|(b, _)| ll > *b) {
                best = Some((ll, map));
            }
        }
        best.map(|(_, m)| m)
    }

    /// Weighs one still view (its readings in the game's squares).
    pub fn view(&mut self, obs: &Observation) -> CatchUp {
        let n = self.plies();
        let lls: Vec<f64> = self.history.iter().map(|o| self.loglik(obs, o)).collect();
        let (after_ll, after_occ) = self
            .after
            .iter()
            .map(|(o, d)| (self.loglik(obs, o) - self.cfg.ply_penalty * *d as f64, o))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map_or((f64::MIN, None), |(ll, o)| (ll, Some(o)));
        let (best_i, best_hist) = lls
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .unwrap_or((n, f64::MIN));
        let best = best_hist.max(after_ll);
        let best_occ = if after_ll > best_hist {
            after_occ.unwrap_or(&self.history[best_i])
        } else {
            &self.history[best_i]
        };
        if !self.shows(obs, best_occ) {
            return CatchUp::Other;
        }
        let close: Vec<usize> = (0..=n).filter(|&i| lls[i] >= best - TIE_NATS).collect();
        let after_close = after_ll >= best - TIE_NATS;
        // The views go forward in time: a position before the furthest the views
        // surely reached is a misreading, unless nothing later fits (a cut).
        let floor = self
            .at
            .as_ref()
            .and_then(|at| at.iter().min().copied())
            .unwrap_or(0);
        let forward: Vec<usize> = close.iter().copied().filter(|&i| i >= floor).collect();
        let at = if forward.is_empty() { close } else { forward };
        let past = at.iter().copied().filter(|&i| i < n).max();
        match past {
            Some(ply) => {
                let undecided = at.contains(&n) || after_close;
                self.at = Some(at);
                if undecided {
                    CatchUp::Undecided
                } else {
                    CatchUp::Past { ply, of: n }
                }
            }
            None if at.contains(&n) && lls[n] >= after_ll => {
                self.at = Some(at);
                CatchUp::Now
            }
            None if after_close => CatchUp::After,
            None => CatchUp::Other,
        }
    }

    /// The log-likelihood of `occ` under the visible readings.
    fn loglik(&self, obs: &Observation, occ: &[Occupant]) -> f64 {
        let (files, ranks) = obs.dims();
        squares(files, ranks)
            .zip(occ)
            .filter_map(|(sq, o)| obs.get(sq).map(|p| (p, o)))
            .map(|(p, o)| f64::from(p[occ_index(*o)].max(self.cfg.floor)).ln())
            .sum()
    }

    /// Whether the readings show `occ` well enough to be taken for it.
    fn shows(&self, obs: &Observation, occ: &[Occupant]) -> bool {
        let (files, ranks) = obs.dims();
        let (mut visible, mut misread) = (0usize, 0usize);
        for (sq, o) in squares(files, ranks).zip(occ) {
            if let Some(p) = obs.get(sq) {
                visible += 1;
                misread += usize::from(p[occ_index(*o)] < 0.5);
            }
        }
        visible > 0 && (misread as f64) < MISREAD_SHARE * visible as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::{one_hot, WhiteSide};
    use crate::rules::chess::Chess;

    fn seen(g: &Chess) -> Observation {
        let map = SiteMap::for_game(g, WhiteSide::Bottom, 8, 8).unwrap();
        let probs: Vec<SiteProbs> = (0..64)
            .map(|i| Some(one_hot(g.occupant(map.square(i)), 0.97)))
            .collect();
        map.observation(&probs, &[])
    }

    /// The positions of a game after each of `ucis`, the start first.
    fn positions(ucis: &[&str]) -> Vec<Chess> {
        let mut g = Chess::new();
        let mut out = vec![g.clone()];
        for u in ucis {
            g.play_uci(u).unwrap();
            out.push(g.clone());
        }
        out
    }

    #[test]
    fn views_of_the_past_are_skipped_until_the_last_position_shows() {
        let all = positions(&["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]);
        let (cut, later) = all.split_at(5);
        let last = &later[0];
        let mut gate = CatchUpGate::new(&cut[..4], &cut[4], InferConfig::default());
        assert_eq!(gate.plies(), 4);
        for (i, g) in cut[..4].iter().enumerate() {
            let want = if i == 2 {
                // Both knights back home, two plies after the last: undecided.
                CatchUp::Undecided
            } else {
                CatchUp::Past { ply: i, of: 4 }
            };
            assert_eq!(gate.view(&seen(g)), want, "view after ply {i}");
        }
        assert_eq!(gate.view(&seen(&cut[4])), CatchUp::Now);
        // A view of the move after the record's last, taken up without a view of
        // the last (a take-back while the board still shows the move).
        let mut gate = CatchUpGate::new(&cut[..4], &cut[4], InferConfig::default());
        assert_eq!(gate.view(&seen(last)), CatchUp::After);
        // An empty board is none of them.
        let mut gate = CatchUpGate::new(&cut[..4], &cut[4], InferConfig::default());
        let empty = Chess::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(gate.view(&seen(&empty)), CatchUp::Other);
    }

    #[test]
    fn a_repeated_position_waits_until_the_views_pass_its_earlier_time() {
        // Knights out and back: the position after ply 4 is the start's again.
        let all = positions(&["g1f3", "g8f6", "f3g1", "f6g8", "e2e4"]);
        let mut gate = CatchUpGate::new(&all[..4], &all[4], InferConfig::default());
        // The start is also the record's last position: undecided.
        assert_eq!(gate.view(&seen(&all[0])), CatchUp::Undecided);
        // Nf3 (Nf6) is after ply 1 (2), and one (two) moves after the last too:
        // still undecided.
        assert_eq!(gate.view(&seen(&all[1])), CatchUp::Undecided);
        assert_eq!(gate.view(&seen(&all[2])), CatchUp::Undecided);
        assert_eq!(gate.view(&seen(&all[3])), CatchUp::Past { ply: 3, of: 4 });
        assert_eq!(gate.view(&seen(&all[4])), CatchUp::Now);
    }
}
