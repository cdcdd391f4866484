//! Go on 19x19, 13x13 and 9x9 boards (any size from 2 to 25 lines plays).
//!
//! # Rules
//! - Black moves first; with a handicap of N stones (`GoOptions::handicap`,
//!   2 to 9) Black's stones stand on the traditional star points
//!   (`handicap_points`) and White moves first.
//! - A stone played on an empty point takes every enemy group it leaves
//!   without a liberty. A move that leaves its own group without a liberty
//!   and takes nothing is suicide, and illegal.
//! - Simple ko: a move may not retake a single stone that has just taken a
//!   single stone in a ko shape. Positional superko (`GoOptions::superko`,
//!   off by default: see there why) forbids, besides, any move that recreates
//!   an earlier board.
//! - A pass is always legal and ends a ko's ban. Two passes in a row do not end
//!   the game here: play may resume after a dispute (Japanese rules), and the
//!   result is a count of territory and dead stones the players agree on,
//!   which the rules cannot see; `Go::consecutive_passes` says when both have
//!   passed. So `Rules::outcome` is always None: an arbiter sets the result.
//! - Komi is only written in the record: the rules never count.
//!
//! # Coordinates
//! Columns A-T without I, rows 1-19 from the bottom (see `point_name`): a
//! `Square` with `file` the column from 0 and `rank` the row from 0, row 1
//! on the edge where a chess board has rank 1. Moves read `K10` or `pass`.

mod board;
mod coords;
mod options;
mod text;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::rules::{
    FenError, IllegalMove, MoveError, MoveErrorKind, Occupant, Outcome, PieceType, Rules, Side,
    Square,
};
use board::{stone_of, Board, Groups, BLACK, EMPTY, MAX_SIZE};

pub(crate) use coords::{handicap_points, parse_point, point_name};
pub(crate) use options::SIZES;
pub use options::{GoOptions, Komi};

/// A Go move: a stone on a point, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A stone of the side to move on this point.
    Play(Square),
    /// No stone.
    Pass,
}

/// Options a game cannot be set up with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GoOptionsError {
    /// Not a board size the engine plays.
    #[error("a Go board of {0} lines: the size must be 2 to {MAX_SIZE} (19, 13 or 9 as usual)")]
    Size(u8),
    /// No placement of this many handicap stones on this board.
    #[error("no handicap of {stones} stone(s) on a {size}x{size} board: give 2 to 9 stones (5 and more on an odd size, 7 lines or more)")]
    Handicap {
        /// The stones asked for.
        stones: u8,
        /// The board's lines.
        size: u8,
    },
    /// A handicap given besides a set-up position, whose stones are the handicap.
    #[error("a handicap besides a set-up position: the position's stones are the handicap; leave the handicap out")]
    HandicapAndPosition,
    /// A komi text refused: not a number with at most two decimals, or too large.
    #[error("komi '{0}' is not a number of points such as 6.5, 7 or 0.5")]
    Komi(String),
    /// A set-up position of another size than the board's.
    #[error(
        "a position of {position}x{position} on a {size}x{size} board: give the grid of its size"
    )]
    PositionSize {
        /// The position's lines.
        position: u8,
        /// The board's lines.
        size: u8,
    },
}

/// Where a game began: shared by every copy the search makes.
#[derive(Debug, PartialEq, Eq)]
struct Start {
    board: Board,
    side: Side,
}

/// A game of Go: the position, the ko and superko state, and where it began.
#[derive(Clone, Debug)]
pub struct Go {
    options: GoOptions,
    start: Arc<Start>,
    board: Board,
    side: Side,
    /// The point the side to move may not play by the simple ko rule.
    ko: Option<usize>,
    /// Passes in a row that end the moves so far.
    passes: u32,
    /// Hashes of every board so far, sorted, when superko is on (else empty).
    seen: Vec<u64>,
}

impl Go {
    /// A game from the empty board (or the handicap stones), Black to move (White
    /// with a handicap).
    pub fn new(options: GoOptions) -> Result<Go, GoOptionsError> {
        let size = options.size;
        if !(2..=MAX_SIZE).contains(&size) {
            return Err(GoOptionsError::Size(size));
        }
        let mut board = Board::empty(size);
        let mut side = Side::Black;
        if options.handicap != 0 {
            let bad = GoOptionsError::Handicap {
                stones: options.handicap,
                size,
            };
            for sq in handicap_points(size, options.handicap).ok_or(bad)? {
                if let Some(i) = board.index(sq) {
                    board.set(i, BLACK);
                }
            }
            side = Side::White;
        }
        Ok(Go::from_start(board, side, options))
    }

    /// A game from a set-up position in Go's position text (see `text.rs`: rows
    /// from the top, `X` black, `O` white, numbers for empty points, then `b`
    /// or `w`). The text gives the size; `options.size` is set from it.
    pub(crate) fn from_position(text: &str, options: GoOptions) -> Result<Go, FenError> {
        let (board, side) = text::parse(text)?;
        let options = GoOptions {
            size: board.size(),
            ..options
        };
        Ok(Go::from_start(board, side, options))
    }

    /// A game from stones placed on an empty board of `options.size` (a record's
    /// set-up); None when a point is off the board, holds two stones or a group
    /// has no liberty.
    pub(crate) fn from_stones(
        black: &[Square],
        white: &[Square],
        side: Side,
        options: GoOptions,
    ) -> Option<Go> {
        if !(2..=MAX_SIZE).contains(&options.size) {
            return None;
        }
        let mut board = Board::empty(options.size);
        for (stones, colour) in [(black, Side::Black), (white, Side::White)] {
            for &sq in stones {
                let i = board.index(sq)?;
                if board.get(i) != EMPTY {
                    return None;
                }
                board.set(i, stone_of(colour));
            }
        }
        if board.dead_group().is_some() {
            return None;
        }
        Some(Go::from_start(board, side, options))
    }

    fn from_start(board: Board, side: Side, options: GoOptions) -> Go {
        let seen = if options.superko {
            vec![board.hash()]
        } else {
            Vec::new()
        };
        Go {
            options,
            start: Arc::new(Start { board, side }),
            board,
            side,
            ko: None,
            passes: 0,
            seen,
        }
    }

    /// The rules this game is played under.
    pub(crate) fn options(&self) -> &GoOptions {
        &self.options
    }

    /// Lines a side.
    pub fn size(&self) -> u8 {
        self.board.size()
    }

    /// The side to move where the game began.
    pub(crate) fn start_side(&self) -> Side {
        self.start.side
    }

    /// The stones of `side` where the game began, row by row from A1.
    pub(crate) fn start_stones(&self, side: Side) -> Vec<Square> {
        let b = &self.start.board;
        let stone = stone_of(side);
        b.points()
            .filter(|&i| b.get(i) == stone)
            .map(Board::square)
            .collect()
    }

    /// Whether the game began elsewhere than its options' start (the empty board,
    /// or the handicap stones).
    #[cfg(test)]
    pub(crate) fn is_set_up(&self) -> bool {
        Go::new(self.options).map_or(true, |g| *g.start != *self.start)
    }

    /// The start position in the position text.
    #[cfg(test)]
    pub(crate) fn start_text(&self) -> String {
        text::write(&self.start.board, self.start.side)
    }

    /// Passes in a row that end the moves so far: 2 once both players passed.
    pub fn consecutive_passes(&self) -> u32 {
        self.passes
    }

    /// The stones `mv` would take off the board, row by row from A1.
    pub fn captures(&self, mv: &Move) -> Vec<Square> {
        match self.point_of(mv) {
            Some(i) if self.board.get(i) == EMPTY => self
                .board
                .captures(i, stone_of(self.side))
                .into_iter()
                .map(Board::square)
                .collect(),
            _ => Vec::new(),
        }
    }

    fn point_of(&self, mv: &Move) -> Option<usize> {
        match mv {
            Move::Play(sq) => self.board.index(*sq),
            Move::Pass => None,
        }
    }

    /// Whether the side to move may play on the empty point `i`, given the
    /// board's groups: not suicide, not the ko point, no earlier board again.
    fn allowed(&self, groups: &Groups, i: usize) -> bool {
        if self.ko == Some(i) {
            return false;
        }
        match groups.judge(&self.board, i, stone_of(self.side)) {
            None => false,
            Some(hash) => !self.options.superko || self.seen.binary_search(&hash).is_err(),
        }
    }

    /// Why a stone on `sq` is not legal for the side to move; None when it is.
    pub(crate) fn why_illegal(&self, sq: Square) -> Option<&'static str> {
        let Some(i) = self.board.index(sq) else {
            return Some("off the board");
        };
        if self.board.get(i) != EMPTY {
            return Some("the point is taken");
        }
        if self.ko == Some(i) {
            return Some("the ko was just taken: play elsewhere first");
        }
        let groups = Groups::of(&self.board);
        if groups.judge(&self.board, i, stone_of(self.side)).is_none() {
            return Some("suicide: the stone would have no liberty and take nothing");
        }
        if !self.allowed(&groups, i) {
            return Some("the board would repeat an earlier one (positional superko)");
        }
        None
    }

    fn is_legal(&self, mv: &Move) -> bool {
        match mv {
            Move::Pass => true,
            Move::Play(sq) => self.why_illegal(*sq).is_none(),
        }
    }

    /// The legal move `text` names: `K10` (either case) or `pass`.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("pass") {
            return Ok(Move::Pass);
        }
        let size = self.size();
        let sq = parse_point(t, size).ok_or_else(|| {
            MoveError::new(
                MoveErrorKind::Malformed,
                text,
                format!(
                    "move `{t}`: not a point A1-{} (columns without I) or `pass`",
                    point_name(Square::new(size - 1, size - 1))
                ),
            )
        })?;
        match self.why_illegal(sq) {
            None => Ok(Move::Play(sq)),
            Some(why) => Err(MoveError::new(
                MoveErrorKind::Illegal,
                text,
                format!("move `{t}` for {}: {why}", self.side.name()),
            )),
        }
    }

    /// Plays a move without checking it.
    fn apply(&mut self, mv: &Move) {
        self.ko = None;
        match self.point_of(mv) {
            None => self.passes = self.passes.saturating_add(1),
            Some(i) => {
                self.passes = 0;
                let played = self.board.place(i, stone_of(self.side));
                if let Some(taken) = played.single {
                    if self.board.is_ko_shape(i, taken) {
                        self.ko = Some(taken);
                    }
                }
                if self.options.superko {
                    let h = self.board.hash();
                    if let Err(at) = self.seen.binary_search(&h) {
                        self.seen.insert(at, h);
                    }
                }
            }
        }
        self.side = self.side.other();
    }
}

impl Rules for Go {
    type Move = Move;

    /// A stone played and taken again before any view leaves the board as a
    /// pass would: the camera cannot tell them apart, and a pass is the rarer.
    fn tiebreak(&self, mv: &Move) -> u32 {
        u32::from(*mv == Move::Pass)
    }

    fn dims(&self) -> (u8, u8) {
        (self.size(), self.size())
    }

    fn side_to_move(&self) -> Side {
        self.side
    }

    fn occupant(&self, sq: Square) -> Occupant {
        match self.board.index(sq).map(|i| self.board.get(i)) {
            Some(BLACK) => Occupant::Black,
            Some(board::WHITE) => Occupant::White,
            _ => Occupant::Empty,
        }
    }

    fn piece_type(&self, sq: Square) -> Option<PieceType> {
        (self.occupant(sq) != Occupant::Empty).then_some(PieceType::Stone)
    }

    /// Every legal point, row by row from A1, then the pass.
    fn legal_moves(&self) -> Vec<Move> {
        let groups = Groups::of(&self.board);
        let n = usize::from(self.size());
        let mut moves = Vec::with_capacity(n * n + 1);
        for i in self.board.points() {
            if self.board.get(i) == EMPTY && self.allowed(&groups, i) {
                moves.push(Move::Play(Board::square(i)));
            }
        }
        moves.push(Move::Pass);
        moves
    }

    fn play(&mut self, mv: &Move) -> Result<(), IllegalMove> {
        if !self.is_legal(mv) {
            return Err(IllegalMove {
                mv: self.move_id(mv),
                position: self.position_text(),
            });
        }
        self.apply(mv);
        Ok(())
    }

    fn play_legal(&mut self, mv: &Move) {
        self.apply(mv);
    }

    /// `K10`, or `pass`.
    fn square_name(&self, sq: Square) -> String {
        point_name(sq)
    }

    fn notation(&self, mv: &Move) -> String {
        match mv {
            Move::Play(sq) => point_name(*sq),
            Move::Pass => "pass".into(),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        None
    }

    /// The stone on `from` put on `to` (taking nothing), the other side to
    /// move: a stone the camera saw move. None when `from` holds no stone, `to`
    /// is taken, or a group is left without a liberty.
    fn displaced(&self, from: Square, to: Square) -> Option<Go> {
        let (fi, ti) = (self.board.index(from)?, self.board.index(to)?);
        let stone = self.board.get(fi);
        if stone == EMPTY || self.board.get(ti) != EMPTY {
            return None;
        }
        let mut board = self.board;
        board.set(fi, EMPTY);
        board.set(ti, stone);
        if board.dead_group().is_some() {
            return None;
        }
        Some(Go::from_start(board, self.side.other(), self.options))
    }

    fn set_up(&self, occupant: &dyn Fn(Square) -> Occupant) -> Option<Go> {
        let (mut black, mut white) = (Vec::new(), Vec::new());
        for i in self.board.points() {
            let sq = Board::square(i);
            match occupant(sq) {
                Occupant::Black => black.push(sq),
                Occupant::White => white.push(sq),
                Occupant::Empty => {}
            }
        }
        // The stones seen are the set-up: a handicap besides would count them
        // twice.
        let options = GoOptions {
            handicap: 0,
            ..self.options
        };
        Go::from_stones(&black, &white, self.side, options)
    }

    fn other_begins(&self) -> Option<Go> {
        let unplayed = self.board == self.start.board && self.side == self.start.side;
        (unplayed && self.passes == 0 && self.options.handicap == 0)
            .then(|| Go::from_start(self.board, self.side.other(), self.options))
    }

    fn placed(&self, mv: &Move) -> Option<Square> {
        match mv {
            Move::Play(sq) => Some(*sq),
            Move::Pass => None,
        }
    }

    fn position_text(&self) -> String {
        text::write(&self.board, self.side)
    }

    fn position_hash(&self) -> u64 {
        match self.side {
            Side::Black => self.board.hash(),
            Side::White => !self.board.hash(),
        }
    }
}
