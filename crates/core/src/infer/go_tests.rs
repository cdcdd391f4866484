//! Go followed from views a camera would give: random legal games with
//! captures, several moves between two views, captured stones taken off late,
//! passes, a nudged stone, a hand over the board.

use super::*;
use crate::rng::Rng;
use crate::rules::go::{Go, GoOptions, Move};
use crate::rules::{Occupant, Rules, Square};

/// A random legal game of `plies` stones (no passes), with captures.
fn random_game(size: u8, plies: usize, seed: u64) -> (Go, Vec<Move>) {
    let start = Go::new(GoOptions::sized(size)).expect("a board size");
    let mut g = start.clone();
    let mut rng = Rng::new(seed);
    let mut moves = Vec::new();
    while moves.len() < plies {
        let legal: Vec<Move> = g
            .legal_moves()
            .into_iter()
            .filter(|m| *m != Move::Pass)
            .collect();
        if legal.is_empty() {
            break;
        }
        let mv = legal[rng.below(legal.len())];
        g.play_legal(&mv);
        moves.push(mv);
    }
    (start, moves)
}

fn observe(game: &Go) -> Observation {
    let (f, r) = game.dims();
    Observation::certain(f, r, |sq| game.occupant(sq))
}

#[test]
fn experiment_one_view_per_move() {
    for (size, seed) in [(9u8, 1u64), (19, 2)] {
        let (start, moves) = random_game(size, 120, seed);
        let mut f = Follower::new(start.clone(), InferConfig::default(), 0.0);
        let mut g = start.clone();
        let mut times = Vec::new();
        for (i, mv) in moves.iter().enumerate() {
            g.play_legal(mv);
            let obs = observe(&g);
            let t = std::time::Instant::now();
            let ev = f.observe(&obs, i as f64 + 1.0, None);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            for e in &ev {
                if !matches!(e, FollowEvent::Moved { .. }) {
                    eprintln!("{size} ply {i}: {e:?}");
                }
            }
        }
        f.finish();
        times.sort_by(f64::total_cmp);
        eprintln!(
            "size {size}: {} of {} moves, median {:.3} ms, max {:.3} ms",
            f.moves().len(),
            moves.len(),
            times[times.len() / 2],
            times[times.len() - 1]
        );
        assert_eq!(f.moves(), &moves[..]);
    }
}
