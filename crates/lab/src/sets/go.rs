//! Go games for renders: random legal games that capture (for tests of the
//! recorder), their SGF through the core's writer and reader, and the board states
//! a clip or a photo series shows of them.
//!
//! Random Go is mostly moves far apart that never touch; real games, and the cases
//! a recorder must get right, are fights: stones put against stones, groups run
//! out of liberties and are taken off. So the random player takes a group when it
//! can, presses groups short of liberties, and plays near the stones already down.

use crate::record::ReadError;
use crate::record::Resume;
use crate::record::SgfRecord;
use crate::record::{GameRecord, Tags};
use crate::rules::go::{Go, GoOptions, GoOptionsError, Move};
use crate::rules::{Occupant, PieceType, Rules, Side, Square};
use crate::synth::{BoardState, Rng};

use super::games::{board_state, synth_piece};
use crate::infer::WhiteSide;

/// A Go game: where it starts and its moves.
#[derive(Clone, Debug)]
pub struct GoGame {
    /// The start: an empty board (or a set-up one, read from an SGF).
    pub start: Go,
    /// The moves, in order.
    pub moves: Vec<Move>,
}

/// The odds the random player takes these chances when it has them.
const TAKE: f64 = 0.9;
const RUN: f64 = 0.5;
const PRESS: f64 = 0.6;
const NEAR: f64 = 0.85;

/// A random legal game of `plies` stones (no passes) on a `size` board from
/// `seed`, played as a fight (see the module's notes); shorter only when no
/// point is left to play.
pub fn random_go_game(size: u8, plies: usize, seed: u64) -> Result<GoGame, GoOptionsError> {
    random_go_game_with_passes(size, plies, 0, seed)
}

/// As `random_go_game`, with `passes` passes among the stones: each after a
/// stone, never the first ply or two in a row, and a stone after each, so that
/// the board shows the other side play twice.
pub fn random_go_game_with_passes(
    size: u8,
    plies: usize,
    passes: usize,
    seed: u64,
) -> Result<GoGame, GoOptionsError> {
    let start = Go::new(GoOptions::sized(size))?;
    let mut rng = Rng::derive(seed, 0x60);
    // The stones after which a side passes: distinct, from the second stone
    // to the one before last.
    let mut after: Vec<usize> = Vec::new();
    let slots = plies.saturating_sub(2);
    let mut pick = Rng::derive(seed, 0x61);
    while after.len() < passes.min(slots) {
        let k = 1 + pick.below(slots);
        if !after.contains(&k) {
            after.push(k);
        }
    }
    let mut g = start.clone();
    let mut moves = Vec::with_capacity(plies + passes);
    let mut stones = 0;
    while stones < plies {
        let Some(sq) = pick_point(&g, &mut rng) else {
            break;
        };
        let mv = Move::Play(sq);
        g.play_legal(&mv);
        moves.push(mv);
        stones += 1;
        if after.contains(&stones) && stones < plies {
            g.play_legal(&Move::Pass);
            moves.push(Move::Pass);
        }
    }
    Ok(GoGame { start, moves })
}

/// The random player's point: a capture, a run out of atari, a press on a
/// short group, a point near the stones, or any legal point, in that order of
/// preference.
fn pick_point(g: &Go, rng: &mut Rng) -> Option<Square> {
    let legal: Vec<Square> = g
        .legal_moves()
        .into_iter()
        .filter_map(|m| match m {
            Move::Play(sq) => Some(sq),
            Move::Pass => None,
        })
        .collect();
    if legal.is_empty() {
        return None;
    }
    let taking: Vec<Square> = legal
        .iter()
        .copied()
        .filter(|&sq| !g.captures(&Move::Play(sq)).is_empty())
        .collect();
    let short = short_liberties(g, stone_of(g.side_to_move().other()), 2);
    // A group in atari run out by a stone: bigger groups, later taken whole.
    let running: Vec<Square> = short_liberties(g, stone_of(g.side_to_move()), 1)
        .into_iter()
        .filter(|sq| legal.contains(sq))
        .collect();
    let pressing: Vec<Square> = legal
        .iter()
        .copied()
        .filter(|sq| short.contains(sq))
        .collect();
    let near: Vec<Square> = legal
        .iter()
        .copied()
        .filter(|&sq| near_stone(g, sq))
        .collect();
    let chances = [
        (&taking, TAKE),
        (&running, RUN),
        (&pressing, PRESS),
        (&near, NEAR),
    ];
    for (choice, odds) in chances {
        if !choice.is_empty() && rng.chance(odds) {
            return Some(*rng.pick(choice));
        }
    }
    Some(*rng.pick(&legal))
}

/// A stone of `side` as the camera tells it.
fn stone_of(side: Side) -> Occupant {
    match side {
        Side::White => Occupant::White,
        Side::Black => Occupant::Black,
    }
}

/// The points next to `sq` on the board.
fn neighbours(g: &Go, sq: Square) -> impl Iterator<Item = Square> {
    let n = i16::from(g.size());
    let (f, r) = (i16::from(sq.file), i16::from(sq.rank));
    [(f - 1, r), (f + 1, r), (f, r - 1), (f, r + 1)]
        .into_iter()
        .filter(move |&(f, r)| (0..n).contains(&f) && (0..n).contains(&r))
        .map(|(f, r)| Square::new(f as u8, r as u8))
}

/// Whether a stone stands within two lines of `sq` (a knight's reach and less).
fn near_stone(g: &Go, sq: Square) -> bool {
    let n = i16::from(g.size());
    (-2i16..=2).any(|df| {
        (-2i16..=2).any(|dr| {
            let (f, r) = (i16::from(sq.file) + df, i16::from(sq.rank) + dr);
            (0..n).contains(&f)
                && (0..n).contains(&r)
                && g.occupant(Square::new(f as u8, r as u8)) != Occupant::Empty
        })
    })
}

/// The liberties of `colour`'s groups that have at most `most` left.
fn short_liberties(g: &Go, colour: Occupant, most: usize) -> Vec<Square> {
    let n = g.size();
    let mut seen = vec![false; usize::from(n) * usize::from(n)];
    let at = |sq: Square| usize::from(sq.rank) * usize::from(n) + usize::from(sq.file);
    let mut out = Vec::new();
    for sq in crate::infer::squares(n, n) {
        if seen[at(sq)] || g.occupant(sq) != colour {
            continue;
        }
        let (mut stack, mut libs) = (vec![sq], Vec::new());
        seen[at(sq)] = true;
        while let Some(s) = stack.pop() {
            for t in neighbours(g, s) {
                match g.occupant(t) {
                    Occupant::Empty if !libs.contains(&t) => libs.push(t),
                    o if o == colour && !seen[at(t)] => {
                        seen[at(t)] = true;
                        stack.push(t);
                    }
                    _ => {}
                }
            }
        }
        if libs.len() <= most {
            out.extend(libs);
        }
    }
    out
}

impl GoGame {
    /// Reads a game from SGF (its main line) with the core's reader: the
    /// text's size, handicap and komi, `like`'s ko rule.
    pub fn from_sgf(text: &str, like: &Go) -> Result<GoGame, ReadError> {
        let r = Go::read_record(text, like)?;
        Ok(GoGame {
            start: r.start,
            moves: r.moves,
        })
    }

    /// The game in SGF, as the core's writer writes a record (tags unknown).
    pub fn to_sgf(&self) -> String {
        let mut rec = <SgfRecord as GameRecord<Go>>::start(&self.start, &Tags::default());
        let mut g = self.start.clone();
        for m in &self.moves {
            rec.push(&g, m, None);
            g.play_legal(m);
        }
        rec.render()
    }

    /// Moves that take stones, and the stones they take.
    pub fn captures(&self) -> (usize, usize) {
        let mut g = self.start.clone();
        let (mut moves, mut stones) = (0, 0);
        for m in &self.moves {
            let taken = g.captures(m).len();
            moves += usize::from(taken > 0);
            stones += taken;
            g.play_legal(m);
        }
        (moves, stones)
    }

    /// The board states a camera sees, the start first, and the transitions
    /// (0-based, from state i to i+1) that put down a stone which takes: with
    /// `removal`, a capture is two states, as players make it (the stone put
    /// down with the taken stones still there, then the taken stones lifted);
    /// without, one (the position after the move). Black moves first at the
    /// image's top as SGF draws it.
    pub fn states(&self, removal: bool) -> (Vec<BoardState>, Vec<usize>) {
        let state = |g: &Go| {
            let mut s = board_state(g, WhiteSide::Bottom);
            s.points = true;
            s
        };
        let mut g = self.start.clone();
        let mut out = vec![state(&g)];
        let mut placing = Vec::new();
        for m in &self.moves {
            if let (true, false, Some(sq)) = (removal, g.captures(m).is_empty(), g.placed(m)) {
                let mut s = out[out.len() - 1].clone();
                let (r, c) = WhiteSide::Bottom.site(sq, u32::from(g.size()), u32::from(g.size()));
                let stone = synth_piece(stone_of(g.side_to_move()), PieceType::Stone);
                s.set(r as usize, c as usize, stone);
                placing.push(out.len() - 1);
                out.push(s);
            }
            g.play_legal(m);
            out.push(state(&g));
        }
        (out, placing)
    }
}
