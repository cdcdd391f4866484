//! Following a game through a series of observations: accepting moves, reporting
//! changes no legal move explains, getting back in sync, and correcting a move the
//! camera could not see fully (a promotion's piece) once later play proves it.

use super::explain::{explain, InferConfig, Verdict};
use super::observation::Observation;
use crate::rules::{Rules, Square};

/// What happened at one observation.
#[derive(Clone, Debug, PartialEq)]
pub enum FollowEvent<M> {
    /// A move was accepted at `ply` (0-based), played in `before`'s position.
    Moved {
        ply: usize,
        mv: M,
        /// Seconds since the previous accepted move (or the start), when this move is
        /// the last of its sequence; earlier plies of an unseen sequence have none.
        emt: Option<f64>,
        /// How far the explanation beat its runner-up, in nats.
        margin: f64,
        /// Whether other moves look the same to the camera (the record notes it).
        assumed: bool,
    },
    /// A confident change that no legal sequence explains; recording waits.
    Unexplained { squares: Vec<Square> },
    /// The board shows a legal continuation again.
    Resynced,
    /// The move at `ply` was recorded wrongly (the camera cannot see which piece a
    /// pawn became): it is now `mv`, and the moves after it, up to ply `upto`
    /// (exclusive), stand as they were.
    Corrected { ply: usize, mv: M, upto: usize },
}

/// How many plies back a correction may reach.
const CORRECTION_DEPTH: usize = 8;
/// Surprise (nats) an accepted explanation may leave before corrections are tried.
const CORRECTION_RESIDUAL: f64 = 2.0;
/// How much less surprise a correction must leave to be preferred.
const CORRECTION_GAIN: f64 = 2.0;

pub struct Follower<R: Rules> {
    game: R,
    /// Position before each accepted ply.
    before: Vec<R>,
    moves: Vec<R::Move>,
    in_sync: bool,
    last_time: f64,
    cfg: InferConfig,
}

impl<R: Rules> Follower<R> {
    pub fn new(game: R, cfg: InferConfig, start_time: f64) -> Follower<R> {
        Follower {
            game,
            before: Vec::new(),
            moves: Vec::new(),
            in_sync: true,
            last_time: start_time,
            cfg,
        }
    }

    pub fn game(&self) -> &R {
        &self.game
    }

    pub fn moves(&self) -> &[R::Move] {
        &self.moves
    }

    /// The position before ply `i`.
    pub fn position_before(&self, i: usize) -> Option<&R> {
        self.before.get(i)
    }

    pub fn in_sync(&self) -> bool {
        self.in_sync
    }

    /// Takes one observation made at `time`.
    pub fn observe(&mut self, obs: &Observation, time: f64) -> Vec<FollowEvent<R::Move>> {
        let mut events = Vec::new();
        match explain(&self.game, obs, &self.cfg) {
            Verdict::Moves {
                moves,
                margin,
                residual,
            } => {
                // An explanation that leaves a reading unexplained may instead be a
                // recent ambiguous move (a promotion's piece) showing its true nature.
                if residual > CORRECTION_RESIDUAL
                    && self.try_correction(obs, time, residual - CORRECTION_GAIN, &mut events)
                {
                    return events;
                }
                self.resync(&mut events);
                self.accept(moves, margin, time, &mut events);
            }
            Verdict::Unchanged => self.resync(&mut events),
            Verdict::Uncertain => {}
            Verdict::Unexplained { squares } => {
                if !self.try_correction(obs, time, self.cfg.max_residual, &mut events)
                    && self.in_sync
                {
                    self.in_sync = false;
                    events.push(FollowEvent::Unexplained { squares });
                }
            }
        }
        events
    }

    fn resync(&mut self, events: &mut Vec<FollowEvent<R::Move>>) {
        if !self.in_sync {
            self.in_sync = true;
            events.push(FollowEvent::Resynced);
        }
    }

    fn accept(
        &mut self,
        moves: Vec<R::Move>,
        margin: f64,
        time: f64,
        events: &mut Vec<FollowEvent<R::Move>>,
    ) {
        let n = moves.len();
        for (i, mv) in moves.into_iter().enumerate() {
            let assumed = !self.game.alternatives(&mv).is_empty();
            self.before.push(self.game.clone());
            self.game.play(&mv);
            self.moves.push(mv.clone());
            events.push(FollowEvent::Moved {
                ply: self.moves.len() - 1,
                mv,
                emt: (i + 1 == n).then_some(time - self.last_time),
                margin,
                assumed,
            });
        }
        self.last_time = time;
    }

    /// Replaces one recent ambiguous move by an alternative when, with it, the
    /// observation is explained leaving a surprise of at most `max_residual`.
    /// Returns whether it did.
    fn try_correction(
        &mut self,
        obs: &Observation,
        time: f64,
        max_residual: f64,
        events: &mut Vec<FollowEvent<R::Move>>,
    ) -> bool {
        let n = self.moves.len();
        for k in (n.saturating_sub(CORRECTION_DEPTH)..n).rev() {
            let base = self.before[k].clone();
            for alt in base.alternatives(&self.moves[k]) {
                let Some((line, game)) = self.replay_with(k, &alt) else {
                    continue;
                };
                let verdict = explain(&game, obs, &self.cfg);
                let fits = match &verdict {
                    Verdict::Moves { residual, .. } => *residual <= max_residual,
                    Verdict::Unchanged => true,
                    _ => false,
                };
                if !fits {
                    continue;
                }
                // Rebuild the tail with the corrected move.
                self.before.truncate(k);
                self.moves.truncate(k);
                self.game = base.clone();
                for (i, mv) in line.into_iter().enumerate() {
                    self.before.push(self.game.clone());
                    self.game.play(&mv);
                    self.moves.push(mv.clone());
                    if i == 0 {
                        events.push(FollowEvent::Corrected {
                            ply: k,
                            mv,
                            upto: n,
                        });
                    }
                }
                self.resync(events);
                if let Verdict::Moves { moves, margin, .. } = verdict {
                    self.accept(moves, margin, time, events);
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
        game.play(alt);
        for mv in &self.moves[k + 1..] {
            if !game.legal_moves().contains(mv) {
                return None;
            }
            game.play(mv);
            line.push(mv.clone());
        }
        Some((line, game))
    }
}
