//! Tablut on a 9x9 board, the rules as boardscribe plays them.
//!
//! # Rules
//! - Files a-i left to right, ranks 1-9 bottom to top; e5 is the throne.
//! - White: the king on e5 and 8 defenders on e3, e4, e6, e7, c5, d5, f5, g5.
//!   Black: 16 attackers on a4 a5 a6 b5, i4 i5 i6 h5, d1 e1 f1 e2, d9 e9 f9 e8.
//! - Every piece moves like a chess rook. No piece, not even the king, may stop on
//!   the throne once the king has left it; any piece may pass over the empty throne.
//! - A moving attacker or defender captures each enemy soldier it sandwiches, along
//!   a rank or file, between itself and another soldier of its own side. The king
//!   never captures and is never the far side of a sandwich. A piece that moves
//!   between two enemies is safe.
//! - The king is captured when attackers stand on all four sides of it, or on three
//!   sides with the empty throne on the fourth. A captured king leaves the board.
//! - White wins when the king stands on any edge square (corners included); Black
//!   wins by capturing the king; a player with no legal move loses.
//!
//! # Decisions where the rules are silent (see `TablutOptions`)
//! - Black moves first (`first_move`, default `Side::Black`).
//! - No repetition rule by default (`repetition`); `Repetition::Draw` makes the
//!   n-th occurrence of a position (board and side to move) a draw.
//! - The throne is not hostile to soldiers by default (`hostile_throne`); when set,
//!   the *empty* throne counts as the far side of a sandwich against soldiers of
//!   either side.
//! - Only the move of an attacker that lands next to the king can capture it, just
//!   as soldiers are only captured by a moving piece: a king that walks into an
//!   enclosure is safe until an attacker moves to close it again.
//! - A move that captures the king may capture soldiers too; all are removed.
//!
//! # Position text
//! `BOARD SIDE`, e.g. the start position
//! `3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4/3aaa3 b`.
//! BOARD is the 9 ranks from rank 9 down to rank 1, separated by `/`; each rank
//! lists files a-i with `a` attacker, `d` defender, `k` king and a digit 1-9 for
//! that many empty squares. SIDE is `b` (Black to move) or `w` (White to move).
//! Whether the king has left the throne is not written: the king can never return,
//! so it has left exactly when it is not on e5. At most one king; none means it was
//! captured (Black has won). Only the king may stand on the throne.
//!
//! # Move notation
//! `e1-e3` (from-to), followed by `x` and each captured square in board order
//! (a1, b1, ... i1, a2, ... i9), the king included: `e1-e3xd3xf3`.
//! `Tablut::parse_move` reads it back; capture marks are optional there but must
//! be right when given.

use crate::rules::{
    FenError, MoveError, MoveErrorKind, Occupant, Outcome, PieceType, Rules, Side, Square,
};
use std::fmt;
use std::str::FromStr;

const N: usize = 81;
const THRONE: u8 = 40;
const OFF: u8 = u8::MAX;

/// The standard start position in the text format.
pub(crate) const START_TEXT: &str = "3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4/3aaa3 b";

/// Neighbour of each square in the four directions (up, right, down, left), OFF outside.
const NEIGH: [[u8; 4]; N] = {
    let mut t = [[OFF; 4]; N];
    let mut i = 0;
    while i < N {
        let (f, r) = (i % 9, i / 9);
        if r < 8 {
            t[i][0] = (i + 9) as u8;
        }
        if f < 8 {
            t[i][1] = (i + 1) as u8;
        }
        if r > 0 {
            t[i][2] = (i - 9) as u8;
        }
        if f > 0 {
            t[i][3] = (i - 1) as u8;
        }
        i += 1;
    }
    t
};

fn on_edge(i: u8) -> bool {
    let (f, r) = (i % 9, i / 9);
    f == 0 || f == 8 || r == 0 || r == 8
}

fn index(sq: Square) -> Option<u8> {
    (sq.file < 9 && sq.rank < 9).then_some(sq.rank * 9 + sq.file)
}

fn square(i: u8) -> Square {
    Square::new(i % 9, i / 9)
}

/// A Tablut piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Piece {
    /// Black's soldier.
    Attacker,
    /// White's soldier.
    Defender,
    King,
}

impl Piece {
    pub(crate) fn side(self) -> Side {
        match self {
            Piece::Attacker => Side::Black,
            Piece::Defender | Piece::King => Side::White,
        }
    }

    fn letter(self) -> char {
        match self {
            Piece::Attacker => 'a',
            Piece::Defender => 'd',
            Piece::King => 'k',
        }
    }
}

/// A rook-like move. Captures are not part of it: they follow from the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square the piece leaves.
    pub from: Square,
    pub(crate) to: Square,
}

impl Move {
    pub(crate) fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }
}

impl fmt::Display for Move {
    /// The `e1-e3` form, without captures.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from.name(), self.to.name())
    }
}

/// What a single move takes off the board (at most four soldiers, or three and the king).
#[derive(Clone, Copy, Debug, Default)]
struct Taken {
    squares: [u8; 4],
    len: usize,
}

impl Taken {
    fn push(&mut self, i: u8) {
        if self.len < 4 {
            self.squares[self.len] = i;
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[u8] {
        &self.squares[..self.len]
    }
}

/// Board, side to move and the one rule switch that changes captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    cells: [Option<Piece>; N],
    side: Side,
    king: Option<u8>,
    hostile_throne: bool,
}

impl Position {
    /// The standard start position, Black to move.
    pub(crate) fn start() -> Position {
        match START_TEXT.parse() {
            Ok(p) => p,
            Err(e) => unreachable!("start position text is valid: {e}"),
        }
    }

    /// Parses the text format described in the module docs.
    pub fn parse(text: &str) -> Result<Position, FenError> {
        let at = |part: &str, why: String| FenError::at(text, part, why);
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 2 {
            return Err(at(
                text.trim_start(),
                format!(
                    "position `{}`: expected `BOARD SIDE` (two fields), found {} field(s)",
                    text.trim(),
                    fields.len()
                ),
            ));
        }
        let side = match fields[1] {
            "b" => Side::Black,
            "w" => Side::White,
            other => {
                return Err(at(
                    other,
                    format!(
                        "position `{}`: side to move `{other}` must be `b` or `w`",
                        text.trim()
                    ),
                ))
            }
        };
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 9 {
            return Err(at(
                fields[0],
                format!(
                    "position `{}`: board has {} rank(s), expected 9 separated by `/`",
                    text.trim(),
                    ranks.len()
                ),
            ));
        }
        let mut cells = [None; N];
        let mut king = None;
        for (row, rank_text) in ranks.iter().enumerate() {
            let rank = 8 - row;
            let mut file = 0usize;
            for (k, c) in rank_text.char_indices() {
                let here = &rank_text[k..];
                let piece = match c {
                    'a' => Some(Piece::Attacker),
                    'd' => Some(Piece::Defender),
                    'k' => Some(Piece::King),
                    '1'..='9' => None,
                    _ => {
                        return Err(at(
                            here,
                            format!(
                                "position `{}`: rank {} (`{rank_text}`) has bad character `{c}` \
                                 (use a, d, k or 1-9)",
                                text.trim(),
                                rank + 1
                            ),
                        ))
                    }
                };
                let width = match piece {
                    Some(_) => 1,
                    None => c as usize - '0' as usize,
                };
                if file + width > 9 {
                    return Err(at(
                        here,
                        format!(
                            "position `{}`: rank {} (`{rank_text}`) covers more than 9 squares",
                            text.trim(),
                            rank + 1
                        ),
                    ));
                }
                if let Some(p) = piece {
                    let i = (rank * 9 + file) as u8;
                    if p == Piece::King {
                        if king.is_some() {
                            return Err(at(
                                here,
                                format!("position `{}`: more than one king", text.trim()),
                            ));
                        }
                        king = Some(i);
                    } else if i == THRONE {
                        return Err(at(
                            here,
                            format!(
                                "position `{}`: a soldier stands on the throne e5; only the king may",
                                text.trim()
                            ),
                        ));
                    }
                    cells[i as usize] = Some(p);
                }
                file += width;
            }
            if file != 9 {
                return Err(at(
                    rank_text,
                    format!(
                        "position `{}`: rank {} (`{rank_text}`) covers {file} squares, expected 9",
                        text.trim(),
                        rank + 1
                    ),
                ));
            }
        }
        Ok(Position {
            cells,
            side,
            king,
            hostile_throne: false,
        })
    }

    /// The same position with the empty throne hostile (or not) to soldiers.
    pub(crate) fn with_hostile_throne(mut self, hostile: bool) -> Position {
        self.hostile_throne = hostile;
        self
    }

    /// The same board with another side to move.
    pub(crate) fn with_side_to_move(mut self, side: Side) -> Position {
        self.side = side;
        self
    }

    pub(crate) fn side_to_move(&self) -> Side {
        self.side
    }

    pub(crate) fn piece_at(&self, sq: Square) -> Option<Piece> {
        index(sq).and_then(|i| self.cells[i as usize])
    }

    /// Where the king stands; `None` once it has been captured.
    #[cfg(test)]
    pub(crate) fn king_square(&self) -> Option<Square> {
        self.king.map(square)
    }

    /// True once the king has left e5 (it can never return).
    #[cfg(test)]
    pub(crate) fn king_left_throne(&self) -> bool {
        self.cells[THRONE as usize] != Some(Piece::King)
    }

    fn is_own(&self, p: Option<Piece>) -> bool {
        matches!(p, Some(p) if p.side() == self.side)
    }

    /// The winner if the king has been captured or has reached the edge.
    fn decided(&self) -> Option<Side> {
        match self.king {
            None => Some(Side::Black),
            Some(k) if on_edge(k) => Some(Side::White),
            Some(_) => None,
        }
    }

    // `d` picks the same direction in every row of NEIGH along the ray.
    #[allow(clippy::needless_range_loop)]
    fn for_each_move(&self, mut f: impl FnMut(u8, u8)) {
        if self.decided().is_some() {
            return;
        }
        for from in 0..N as u8 {
            if !self.is_own(self.cells[from as usize]) {
                continue;
            }
            for d in 0..4 {
                let mut to = from;
                loop {
                    to = NEIGH[to as usize][d];
                    if to == OFF || self.cells[to as usize].is_some() {
                        break;
                    }
                    // An empty throne can be crossed but never occupied.
                    if to != THRONE {
                        f(from, to);
                    }
                }
            }
        }
    }

    /// Legal moves; empty once the game is decided.
    pub(crate) fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(128);
        self.for_each_move(|from, to| moves.push(Move::new(square(from), square(to))));
        moves
    }

    fn count_moves(&self) -> u64 {
        let mut n = 0;
        self.for_each_move(|_, _| n += 1);
        n
    }

    pub(crate) fn is_legal(&self, mv: &Move) -> bool {
        let (Some(from), Some(to)) = (index(mv.from), index(mv.to)) else {
            return false;
        };
        let mut found = false;
        self.for_each_move(|f, t| found |= f == from && t == to);
        found
    }

    /// Whether the square is the far side of a sandwich against an enemy of `mover`.
    fn is_anvil(&self, i: u8, mover: Piece) -> bool {
        match self.cells[i as usize] {
            Some(p) => p == mover,
            None => self.hostile_throne && i == THRONE,
        }
    }

    fn king_surrounded(&self, k: u8) -> bool {
        NEIGH[k as usize]
            .iter()
            .all(|&n| n != OFF && (self.cells[n as usize] == Some(Piece::Attacker) || n == THRONE))
    }

    /// Moves the piece and removes what it captures; no legality check.
    fn apply(&mut self, from: u8, to: u8) -> Taken {
        let mut taken = Taken::default();
        let Some(mover) = self.cells[from as usize].take() else {
            self.side = self.side.other();
            return taken;
        };
        self.cells[to as usize] = Some(mover);
        if mover == Piece::King {
            self.king = Some(to);
        } else {
            let victim = match mover {
                Piece::Attacker => Piece::Defender,
                _ => Piece::Attacker,
            };
            for (d, &n) in NEIGH[to as usize].iter().enumerate() {
                if n == OFF {
                    continue;
                }
                let far = NEIGH[n as usize][d];
                let soldier_taken = self.cells[n as usize] == Some(victim)
                    && far != OFF
                    && self.is_anvil(far, mover);
                let king_taken = self.cells[n as usize] == Some(Piece::King)
                    && mover == Piece::Attacker
                    && self.king_surrounded(n);
                if soldier_taken || king_taken {
                    taken.push(n);
                }
            }
            for &i in taken.as_slice() {
                if self.cells[i as usize] == Some(Piece::King) {
                    self.king = None;
                }
                self.cells[i as usize] = None;
            }
        }
        self.side = self.side.other();
        taken
    }

    /// The position after `mv` (taken from `legal_moves`), captures done.
    pub(crate) fn play(&self, mv: &Move) -> Position {
        let mut next = *self;
        if let (Some(from), Some(to)) = (index(mv.from), index(mv.to)) {
            next.apply(from, to);
        }
        next
    }

    /// The squares `mv` would capture, in board order.
    pub(crate) fn captures(&self, mv: &Move) -> Vec<Square> {
        let (Some(from), Some(to)) = (index(mv.from), index(mv.to)) else {
            return Vec::new();
        };
        let mut next = *self;
        let mut taken: Vec<u8> = next.apply(from, to).as_slice().to_vec();
        taken.sort_unstable();
        taken.into_iter().map(square).collect()
    }

    /// `e1-e3xd3xf3`: the move and its captures.
    pub(crate) fn notation(&self, mv: &Move) -> String {
        let mut s = mv.to_string();
        for sq in self.captures(mv) {
            s.push('x');
            s.push_str(&sq.name());
        }
        s
    }

    /// Reads `e1-e3`, `e1e3` or `e1-e3xd3xf3` and returns the legal move it names.
    /// Capture marks may be left out, but when present they must be exactly right.
    pub(crate) fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let t = text.trim();
        let malformed = |why: &str| {
            MoveError::new(MoveErrorKind::Malformed, text, format!("move `{t}`: {why}"))
        };
        let illegal =
            |why: &str| MoveError::new(MoveErrorKind::Illegal, text, format!("move `{t}`: {why}"));
        let mut parts = t.split('x');
        let head = parts.next().unwrap_or("");
        let (from_text, to_text) = match head.split_once('-') {
            Some(pair) => pair,
            None => {
                // `e1e3`: the second square starts at the second letter.
                let cut = head
                    .char_indices()
                    .skip(1)
                    .find(|(_, c)| c.is_ascii_alphabetic())
                    .map(|(i, _)| i)
                    .ok_or_else(|| malformed("expected `from-to`, e.g. `e1-e3`"))?;
                head.split_at(cut)
            }
        };
        let parse_sq = |s: &str| {
            Square::parse(s)
                .filter(|sq| sq.file < 9 && sq.rank < 9)
                .ok_or_else(|| malformed(&format!("`{s}` is not a square a1-i9")))
        };
        let mv = Move::new(parse_sq(from_text)?, parse_sq(to_text)?);
        let mut marked = Vec::new();
        for p in parts {
            marked.push(parse_sq(p)?);
        }
        if !self.is_legal(&mv) {
            let why = match self.piece_at(mv.from) {
                _ if self.decided().is_some() => {
                    return Err(MoveError::new(
                        MoveErrorKind::GameOver,
                        text,
                        format!("move `{t}`: the game is already over"),
                    ))
                }
                None => format!("no piece on {}", mv.from.name()),
                Some(p) if p.side() != self.side => {
                    format!("the piece on {} is not {:?}'s", mv.from.name(), self.side)
                }
                Some(_) => "not a legal move here".to_string(),
            };
            return Err(illegal(&why));
        }
        if !marked.is_empty() {
            // Both in one order: captures come in the order the sides are
            // checked, marks in the order written.
            marked.sort();
            let mut actual = self.captures(&mv);
            actual.sort();
            if marked != actual {
                return Err(illegal(&format!(
                    "wrong capture marks; this move reads {}",
                    self.notation(&mv)
                )));
            }
        }
        Ok(mv)
    }

    /// Result from the position alone: king captured, king on the edge, or no move.
    pub(crate) fn outcome(&self) -> Option<Outcome> {
        match self.decided() {
            Some(Side::Black) => Some(Outcome::Win {
                winner: Side::Black,
                reason: "king captured".into(),
            }),
            Some(Side::White) => Some(Outcome::Win {
                winner: Side::White,
                reason: "king reached the edge".into(),
            }),
            None if self.count_moves() == 0 => Some(Outcome::Win {
                winner: self.side.other(),
                reason: format!("{:?} cannot move", self.side),
            }),
            None => None,
        }
    }

    /// Leaf count of the move tree `depth` plies deep; decided positions are leaves.
    pub(crate) fn perft(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.count_moves(),
            _ => {
                let mut total = 0;
                self.for_each_move(|from, to| {
                    let mut next = *self;
                    next.apply(from, to);
                    total += next.perft(depth - 1);
                });
                total
            }
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(96);
        for rank in (0..9).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match self.cells[rank * 9 + file] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.letter());
                    }
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(if self.side == Side::Black { 'b' } else { 'w' });
        f.write_str(&s)
    }
}

impl FromStr for Position {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Position, FenError> {
        Position::parse(s)
    }
}

/// What ends the game by repetition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) enum Repetition {
    /// Repeated positions change nothing.
    #[default]
    Ignore,
    /// The n-th occurrence of a position (same board, same side to move) is a draw.
    Draw(u32),
}

/// Choices the rules leave open; the defaults reproduce the reference perft counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct TablutOptions {
    /// Who moves first from the start position.
    pub first_move: Side,
    pub(crate) repetition: Repetition,
    /// The empty throne acts as the far side of a sandwich against soldiers.
    pub(crate) hostile_throne: bool,
}

impl Default for TablutOptions {
    fn default() -> TablutOptions {
        TablutOptions {
            first_move: Side::Black,
            repetition: Repetition::Ignore,
            hostile_throne: false,
        }
    }
}

/// A game of Tablut: start position, moves played, current position and options.
#[derive(Clone, Debug)]
pub struct Tablut {
    options: TablutOptions,
    start: Position,
    pos: Position,
    moves: Vec<Move>,
    /// Positions before each move, for the repetition rule.
    history: Vec<Position>,
}

impl Tablut {
    /// A game from the standard start position.
    pub fn new(options: TablutOptions) -> Tablut {
        let start = Position::start()
            .with_side_to_move(options.first_move)
            .with_hostile_throne(options.hostile_throne);
        Tablut::from_start(start, options)
    }

    /// A game from a set-up position in the text format.
    pub(crate) fn from_position(text: &str, options: TablutOptions) -> Result<Tablut, FenError> {
        let start = Position::parse(text)?.with_hostile_throne(options.hostile_throne);
        Ok(Tablut::from_start(start, options))
    }

    fn from_start(start: Position, options: TablutOptions) -> Tablut {
        Tablut {
            options,
            start,
            pos: start,
            moves: Vec::new(),
            history: Vec::new(),
        }
    }

    /// The rules this game is played by.
    pub(crate) fn options(&self) -> &TablutOptions {
        &self.options
    }

    #[cfg(test)]
    pub(crate) fn position(&self) -> &Position {
        &self.pos
    }

    /// The position the game began from.
    pub(crate) fn start_position(&self) -> &Position {
        &self.start
    }

    /// True when the game did not begin from the standard start with `first_move` to move.
    pub(crate) fn is_set_up(&self) -> bool {
        self.start != Tablut::new(self.options).start
    }

    /// The moves played so far.
    pub(crate) fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The king's square (None once captured).
    #[cfg(test)]
    pub(crate) fn king_square(&self) -> Option<Square> {
        self.pos.king_square()
    }

    pub(crate) fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.pos.piece_at(sq)
    }

    /// The pieces `mv` would capture in the current position.
    pub fn captures(&self, mv: &Move) -> Vec<Square> {
        self.pos.captures(mv)
    }

    /// The legal move named by `text` (see [`Position::parse_move`]).
    pub(crate) fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        if let Some(o) = self.repetition_outcome() {
            return Err(MoveError::new(
                MoveErrorKind::GameOver,
                text,
                format!("move `{}`: the game is over ({o:?})", text.trim()),
            ));
        }
        self.pos.parse_move(text)
    }

    /// Parses and plays a move, returning it.
    #[cfg(test)]
    pub(crate) fn play_notation(&mut self, text: &str) -> Result<Move, MoveError> {
        let mv = self.parse_move(text)?;
        self.play_legal(&mv);
        Ok(mv)
    }

    /// Takes back the last move.
    pub(crate) fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        self.pos = self.history.pop()?;
        Some(mv)
    }

    fn repetition_outcome(&self) -> Option<Outcome> {
        let Repetition::Draw(n) = self.options.repetition else {
            return None;
        };
        let seen = 1 + self.history.iter().filter(|p| **p == self.pos).count();
        (seen as u64 >= u64::from(n)).then(|| Outcome::Draw {
            reason: format!("position repeated {seen} times"),
        })
    }

    fn perft_with_history(&mut self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        let mut total = 0;
        for mv in &moves {
            self.play_legal(mv);
            total += self.perft_with_history(depth - 1);
            self.undo();
        }
        total
    }
}

impl Rules for Tablut {
    type Move = Move;

    fn displaced(&self, from: Square, to: Square) -> Option<Tablut> {
        let (fi, ti) = (index(from)?, index(to)?);
        let piece = self.pos.cells[fi as usize]?;
        if fi == ti {
            return None;
        }
        let mut pos = self.pos;
        pos.cells[fi as usize] = None;
        if pos.cells[ti as usize] == Some(Piece::King) {
            pos.king = None;
        }
        pos.cells[ti as usize] = Some(piece);
        if piece == Piece::King {
            pos.king = Some(ti);
        }
        pos.side = pos.side.other();
        Some(Tablut::from_start(pos, self.options))
    }

    fn position_text(&self) -> String {
        self.pos.to_string()
    }

    fn dims(&self) -> (u8, u8) {
        (9, 9)
    }

    fn side_to_move(&self) -> Side {
        self.pos.side
    }

    fn piece_type(&self, sq: Square) -> Option<PieceType> {
        self.piece_at(sq).map(|p| match p {
            Piece::King => PieceType::TablutKing,
            _ => PieceType::Soldier,
        })
    }

    fn occupant(&self, sq: Square) -> Occupant {
        match self.pos.piece_at(sq) {
            None => Occupant::Empty,
            Some(Piece::Attacker) => Occupant::Black,
            Some(_) => Occupant::White,
        }
    }

    fn legal_moves(&self) -> Vec<Move> {
        if self.repetition_outcome().is_some() {
            return Vec::new();
        }
        self.pos.legal_moves()
    }

    fn play_legal(&mut self, mv: &Move) {
        self.history.push(self.pos);
        self.pos = self.pos.play(mv);
        self.moves.push(*mv);
    }

    fn notation(&self, mv: &Move) -> String {
        self.pos.notation(mv)
    }

    fn move_id(&self, mv: &Move) -> String {
        mv.to_string()
    }

    fn outcome(&self) -> Option<Outcome> {
        // A king captured or escaped on the repeating move still decides the game.
        if self.pos.decided().is_some() {
            return self.pos.outcome();
        }
        self.repetition_outcome().or_else(|| self.pos.outcome())
    }

    fn perft(&self, depth: u32) -> u64 {
        match self.options.repetition {
            Repetition::Ignore => self.pos.perft(depth),
            Repetition::Draw(_) => self.clone().perft_with_history(depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    fn mv(text: &str) -> Move {
        let (a, b) = text.split_once('-').unwrap();
        Move::new(sq(a), sq(b))
    }

    fn pos(text: &str) -> Position {
        Position::parse(text).unwrap()
    }

    /// `"b: kd6 ad7 dc1"`: side to move, then piece letter + square for each piece.
    fn setup(spec: &str) -> Position {
        let (side, pieces) = spec.split_once(':').unwrap();
        let mut text_board = [[None; 9]; 9];
        for token in pieces.split_whitespace() {
            let (letter, at) = token.split_at(1);
            let p = match letter {
                "a" => Piece::Attacker,
                "d" => Piece::Defender,
                "k" => Piece::King,
                _ => panic!("bad piece {token}"),
            };
            let s = sq(at);
            text_board[s.rank as usize][s.file as usize] = Some(p);
        }
        // Build through the text format so the parser's checks apply too.
        let ranks: Vec<String> = (0..9)
            .rev()
            .map(|r| {
                let mut out = String::new();
                let mut empty = 0;
                for cell in text_board[r] {
                    match cell {
                        None => empty += 1,
                        Some(p) => {
                            if empty > 0 {
                                out.push_str(&empty.to_string());
                                empty = 0;
                            }
                            out.push(p.letter());
                        }
                    }
                }
                if empty > 0 {
                    out.push_str(&empty.to_string());
                }
                out
            })
            .collect();
        pos(&format!("{} {}", ranks.join("/"), side.trim()))
    }

    fn black_wins(reason: &str) -> Option<Outcome> {
        Some(Outcome::Win {
            winner: Side::Black,
            reason: reason.into(),
        })
    }

    #[test]
    fn start_position_layout() {
        let p = Position::start();
        assert_eq!(p.to_string(), START_TEXT);
        assert_eq!(p.side_to_move(), Side::Black);
        assert_eq!(p.king_square(), Some(sq("e5")));
        assert!(!p.king_left_throne());
        for s in ["e3", "e4", "e6", "e7", "c5", "d5", "f5", "g5"] {
            assert_eq!(p.piece_at(sq(s)), Some(Piece::Defender), "{s}");
        }
        let attackers = [
            "a4", "a5", "a6", "b5", "i4", "i5", "i6", "h5", "d1", "e1", "f1", "e2", "d9", "e9",
            "f9", "e8",
        ];
        for s in attackers {
            assert_eq!(p.piece_at(sq(s)), Some(Piece::Attacker), "{s}");
        }
        assert_eq!(p.cells.iter().filter(|c| c.is_some()).count(), 25);
        let g = Tablut::new(TablutOptions::default());
        assert_eq!(g.dims(), (9, 9));
        assert_eq!(g.occupant(sq("e5")), Occupant::White);
        assert_eq!(g.occupant(sq("e4")), Occupant::White);
        assert_eq!(g.occupant(sq("e1")), Occupant::Black);
        assert_eq!(g.occupant(sq("a1")), Occupant::Empty);
        assert_eq!(g.occupant(Square::new(9, 0)), Occupant::Empty);
        assert_eq!(g.king_square(), Some(sq("e5")));
        assert!(!g.is_set_up());
    }

    #[test]
    fn text_format_errors_name_the_bad_part() {
        let cases = [
            ("", "two fields"),
            ("3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4/3aaa3 x", "`x`"),
            ("3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4 b", "8 rank"),
            ("3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4/3aqa3 b", "`q`"),
            (
                "3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4/3aaa4 b",
                "rank 1",
            ),
            (
                "3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4/3aa3 b",
                "covers 8",
            ),
            ("k8/9/9/9/4k4/9/9/9/9 w", "more than one king"),
            ("9/9/9/9/4d4/9/9/9/9 w", "throne"),
        ];
        for (text, needle) in cases {
            let err = Position::parse(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn text_round_trip() {
        for text in [
            START_TEXT,
            "9/9/9/9/9/9/9/9/9 w",
            "k8/9/9/9/9/9/9/9/8a b",
            "9/9/2a6/1akda4/9/9/9/9/9 w",
        ] {
            assert_eq!(pos(text).to_string(), text);
        }
        assert_eq!(
            setup("b: kd6 aa1 di9").to_string(),
            "8d/9/9/3k5/9/9/9/9/a8 b"
        );
    }

    #[test]
    fn perft_fixture() {
        let data = include_str!("../../../../tests/data/perft/tablut.txt");
        let mut checked = 0;
        for line in data.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let f: Vec<&str> = line.split(';').map(str::trim).collect();
            assert_eq!(f.len(), 3, "bad fixture line {line}");
            let p = pos(f[0]);
            let depth: u32 = f[1].parse().unwrap();
            let count: u64 = f[2].parse().unwrap();
            assert_eq!(p.perft(depth), count, "{line}");
            checked += 1;
        }
        assert!(checked >= 4);
    }

    #[test]
    fn trait_perft_agrees_with_fast_perft() {
        // Clone-and-play recursion, as the trait's default method does it.
        fn slow(g: &Tablut, depth: u32) -> u64 {
            if depth == 0 {
                return 1;
            }
            g.legal_moves()
                .iter()
                .map(|m| {
                    let mut n = g.clone();
                    n.play(m).unwrap();
                    slow(&n, depth - 1)
                })
                .sum()
        }
        let mut g = Tablut::new(TablutOptions::default());
        assert_eq!(Rules::perft(&g, 2), 4400);
        assert_eq!(slow(&g, 3), 353_200);
        g.play_notation("e2-c2").unwrap();
        assert_eq!(slow(&g, 2), Rules::perft(&g, 2));
        let with_rep = Tablut::new(TablutOptions {
            repetition: Repetition::Draw(3),
            ..TablutOptions::default()
        });
        assert_eq!(Rules::perft(&with_rep, 3), 353_200);
    }

    #[test]
    fn single_capture() {
        let p = setup("b: kb8 aa2 dd2 ae2");
        let m = mv("a2-c2");
        assert_eq!(p.notation(&m), "a2-c2xd2");
        assert_eq!(p.captures(&m), [sq("d2")]);
        let n = p.play(&m);
        assert_eq!(n.piece_at(sq("d2")), None);
        assert_eq!(n.piece_at(sq("c2")), Some(Piece::Attacker));
        assert_eq!(n.side_to_move(), Side::White);
        // Defenders capture attackers the same way, along a file here.
        let p = setup("w: kb8 dd4 ad3 di2");
        assert_eq!(p.notation(&mv("i2-d2")), "i2-d2xd3");
        assert_eq!(p.play(&mv("i2-d2")).piece_at(sq("d3")), None);
        // No partner, or an enemy as the far piece: nothing is taken.
        assert_eq!(setup("w: kb8 ad3 di2").notation(&mv("i2-d2")), "i2-d2");
        assert_eq!(setup("w: kb8 ad3 ad4 di2").notation(&mv("i2-d2")), "i2-d2");
        // The board edge is not a partner.
        assert_eq!(setup("b: kb8 dd1 ah2").notation(&mv("h2-d2")), "h2-d2");
    }

    #[test]
    fn several_captures_by_one_move() {
        let p = setup("b: kb8 ac1 db3 dd3 dc4 aa3 ae3 ac5");
        let m = mv("c1-c3");
        assert_eq!(p.notation(&m), "c1-c3xb3xd3xc4");
        let n = p.play(&m);
        capture_marks_read_back_in_any_order(&p, &m);
        for s in ["b3", "d3", "c4"] {
            assert_eq!(n.piece_at(sq(s)), None, "{s}");
        }
        assert_eq!(n.to_string(), "9/1k7/9/9/2a6/9/a1a1a4/9/9 w");
        let p = setup("w: kb8 dd1 ac2 ae2 db2 df2");
        assert_eq!(p.notation(&mv("d1-d2")), "d1-d2xc2xe2");
    }

    /// Issue 22 (found by the property tests): the writer's own marks were
    /// refused when the squares' order differed from the sorted order.
    fn capture_marks_read_back_in_any_order(p: &Position, m: &Move) {
        for text in [
            "c1-c3xb3xd3xc4",
            "c1-c3xc4xd3xb3",
            "c1-c3xd3xb3xc4",
            "c1-c3",
        ] {
            assert_eq!(p.parse_move(text).as_ref(), Ok(m), "{text}");
        }
        assert!(p.parse_move("c1-c3xb3xd3").is_err());
    }

    #[test]
    fn moving_between_two_enemies_is_safe() {
        let p = setup("b: kb8 ac1 db2 dd2 ai9");
        let m = mv("c1-c2");
        assert_eq!(p.notation(&m), "c1-c2");
        let mut g = Tablut::from_position(&p.to_string(), TablutOptions::default()).unwrap();
        g.play(&m).unwrap();
        g.play_notation("b8-b7").unwrap();
        assert_eq!(g.piece_at(sq("c2")), Some(Piece::Attacker));
        // Moving away and back does capture: the move is the defender's.
        for m in ["i9-h9", "d2-d3", "h9-i9"] {
            g.play_notation(m).unwrap();
        }
        assert_eq!(g.notation(&mv("d3-d2")), "d3-d2xc2");
    }

    #[test]
    fn king_neither_captures_nor_helps() {
        // The king moving next to an attacker backed by a defender takes nothing.
        assert_eq!(setup("w: kg3 ad3 dc3").notation(&mv("g3-e3")), "g3-e3");
        // A defender with the king as the far piece takes nothing.
        assert_eq!(setup("w: kc3 ad3 de1").notation(&mv("e1-e3")), "e1-e3");
        // A defender standing by the king is still captured.
        assert_eq!(
            setup("b: ke3 dd3 ad4 ad1").notation(&mv("d1-d2")),
            "d1-d2xd3"
        );
        // Two attackers either side of the king do not capture it.
        let p = setup("b: ke4 ad4 ah4");
        assert_eq!(p.notation(&mv("h4-f4")), "h4-f4");
        assert_eq!(p.play(&mv("h4-f4")).king_square(), Some(sq("e4")));
    }

    #[test]
    fn throne_hostility_is_an_option() {
        let p = setup("w: kb8 ad5 dc1");
        assert_eq!(p.notation(&mv("c1-c5")), "c1-c5");
        assert_eq!(
            p.with_hostile_throne(true).notation(&mv("c1-c5")),
            "c1-c5xd5"
        );
        // Hostile to defenders too.
        let p = setup("b: kb8 df5 ag1");
        assert_eq!(p.notation(&mv("g1-g5")), "g1-g5");
        assert_eq!(
            p.with_hostile_throne(true).notation(&mv("g1-g5")),
            "g1-g5xf5"
        );
        // Only while empty: the king on it is no partner.
        let p = setup("w: ke5 ad5 dc1").with_hostile_throne(true);
        assert_eq!(p.notation(&mv("c1-c5")), "c1-c5");
        // And the option reaches the game through TablutOptions.
        let opts = TablutOptions {
            hostile_throne: true,
            ..TablutOptions::default()
        };
        let g = Tablut::from_position("9/1k7/9/9/3a5/9/9/9/2d6 w", opts).unwrap();
        assert_eq!(g.notation(&mv("c1-c5")), "c1-c5xd5");
    }

    #[test]
    fn throne_rules() {
        // Nobody stops on the empty throne, but it can be crossed.
        let p = setup("b: kb6 aa5");
        let dests: Vec<String> = p
            .legal_moves()
            .into_iter()
            .filter(|m| m.from == sq("a5") && m.to.rank == 4)
            .map(|m| m.to.name())
            .collect();
        assert_eq!(dests, ["b5", "c5", "d5", "f5", "g5", "h5", "i5"]);
        let p = setup("w: kb8 dc5");
        assert!(!p.is_legal(&mv("c5-e5")));
        assert!(p.is_legal(&mv("c5-i5")));
        // The king cannot return, but may pass over it.
        let p = setup("w: kd5 aa1");
        assert!(p.king_left_throne());
        assert!(!p.is_legal(&mv("d5-e5")));
        assert!(p.is_legal(&mv("d5-f5")));
        assert!(p.parse_move("d5-e5").is_err());
        // While the king is on it, the throne blocks like any piece.
        let p = setup("b: ke5 aa5");
        assert!(p.is_legal(&mv("a5-d5")));
        assert!(!p.is_legal(&mv("a5-f5")));
        // Leaving it.
        let p = setup("w: ke5 aa1");
        assert!(!p.king_left_throne());
        let n = p.play(&mv("e5-e4"));
        assert!(n.king_left_throne());
        assert_eq!(n.piece_at(sq("e5")), None);
        let n = n.play(&mv("a1-b1"));
        assert!(!n.is_legal(&mv("e4-e5")));
        assert!(n.is_legal(&mv("e4-e6")));
    }

    #[test]
    fn king_capture_by_four() {
        let p = setup("b: kd6 ad7 ac6 ad5 ah6");
        let m = mv("h6-e6");
        assert_eq!(p.notation(&m), "h6-e6xd6");
        let n = p.play(&m);
        assert_eq!(n.king_square(), None);
        assert_eq!(n.piece_at(sq("d6")), None);
        assert_eq!(n.outcome(), black_wins("king captured"));
        assert!(n.legal_moves().is_empty());
        assert_eq!(n.perft(2), 0);
        // On the throne as well.
        let p = setup("b: ke5 ae6 ad5 ae4 ah5");
        assert_eq!(p.notation(&mv("h5-f5")), "h5-f5xe5");
        // Three attackers and a defender, or three and an ordinary empty square: safe.
        assert_eq!(
            setup("b: kd6 ad7 ac6 dd5 ah6").notation(&mv("h6-e6")),
            "h6-e6"
        );
        assert_eq!(setup("b: kd6 ad7 ac6 ah6").notation(&mv("h6-e6")), "h6-e6");
        assert_eq!(setup("b: ke5 ae6 ad5 ah5").notation(&mv("h5-f5")), "h5-f5");
    }

    #[test]
    fn king_capture_by_three_and_the_empty_throne() {
        let p = setup("b: ke6 ae7 ad6 ah6");
        let m = mv("h6-f6");
        assert_eq!(p.notation(&m), "h6-f6xe6");
        assert_eq!(p.play(&m).outcome(), black_wins("king captured"));
        // The same squares do not capture a king beside an ordinary square.
        assert_eq!(setup("b: kc6 ac7 ab6 ah6").notation(&mv("h6-d6")), "h6-d6");
        // The king walking into the enclosure is safe until an attacker closes it.
        let mut g = Tablut::from_position(
            &setup("w: ke8 ad4 af4 ae3 db8").to_string(),
            TablutOptions::default(),
        )
        .unwrap();
        g.play_notation("e8-e4").unwrap();
        assert_eq!(g.king_square(), Some(sq("e4")));
        assert_eq!(g.outcome(), None);
        g.play_notation("d4-d3").unwrap();
        g.play_notation("b8-b7").unwrap();
        assert_eq!(g.notation(&mv("d3-d4")), "d3-d4xe4");
        g.play_notation("d3-d4xe4").unwrap();
        assert_eq!(g.outcome(), black_wins("king captured"));
        assert_eq!(g.king_square(), None);
        assert_eq!(g.occupant(sq("e4")), Occupant::Empty);
    }

    #[test]
    fn white_wins_on_the_edge() {
        let white_wins = Some(Outcome::Win {
            winner: Side::White,
            reason: "king reached the edge".into(),
        });
        let p = setup("w: kb2 aa9");
        for m in ["b2-b1", "b2-i2", "b2-a2", "b2-b9"] {
            let n = p.play(&mv(m));
            assert_eq!(n.outcome(), white_wins, "{m}");
            assert_eq!(n.perft(1), 0);
        }
        assert_eq!(p.play(&mv("b2-b8")).outcome(), None);
        // A set-up position with the king already on the edge is over.
        assert!(setup("b: ke1 aa9").legal_moves().is_empty());
        let mut g = Tablut::from_position(&p.to_string(), TablutOptions::default()).unwrap();
        g.play_notation("b2-b1").unwrap();
        assert_eq!(g.outcome().unwrap().result_token(), "1-0");
        assert!(g.legal_moves().is_empty());
        assert!(g
            .parse_move("a9-a8")
            .unwrap_err()
            .to_string()
            .contains("over"));
    }

    #[test]
    fn player_without_moves_loses() {
        // White's king is walled in (a defender below keeps it alive) and so is the defender.
        let p = setup("w: kd2 ac2 ae2 ad3 dd1 ac1 ae1");
        assert!(p.legal_moves().is_empty());
        assert_eq!(p.outcome(), black_wins("White cannot move"));
        let g = Tablut::from_position(&p.to_string(), TablutOptions::default()).unwrap();
        assert_eq!(g.outcome(), black_wins("White cannot move"));
        // Black with no pieces cannot move either.
        assert_eq!(setup("b: ke2").outcome().unwrap().result_token(), "1-0");
        // One free move is enough to play on.
        assert_eq!(setup("w: kd2 ac2 ae2 ad3 dd1 ae1").outcome(), None);
    }

    #[test]
    fn repetition_option() {
        let start = "a8/9/9/9/9/9/9/4k4/9 b";
        let shuffle = ["a9-b9", "e2-f2", "b9-a9", "f2-e2"];
        let opts = TablutOptions {
            repetition: Repetition::Draw(3),
            ..TablutOptions::default()
        };
        let mut g = Tablut::from_position(start, opts).unwrap();
        for _ in 0..2 {
            for m in shuffle {
                assert!(g.outcome().is_none());
                g.play_notation(m).unwrap();
            }
        }
        assert_eq!(g.outcome().unwrap().result_token(), "1/2-1/2");
        assert!(g.legal_moves().is_empty());
        assert!(g.parse_move("a9-b9").is_err());
        assert_eq!(g.undo(), Some(mv("f2-e2")));
        assert!(g.outcome().is_none());
        // Without the option the same game goes on.
        let mut g = Tablut::from_position(start, TablutOptions::default()).unwrap();
        for _ in 0..3 {
            for m in shuffle {
                g.play_notation(m).unwrap();
            }
        }
        assert!(g.outcome().is_none());
        assert_eq!(g.moves().len(), 12);
    }

    #[test]
    fn parse_move_checks() {
        let g = Tablut::new(TablutOptions::default());
        assert_eq!(g.parse_move("e2-c2").unwrap(), mv("e2-c2"));
        assert_eq!(g.parse_move(" e2c2 ").unwrap(), mv("e2-c2"));
        let err = |t: &str| g.parse_move(t).unwrap_err().to_string();
        assert!(
            err("e2-e3").contains("`e2-e3`: not a legal move"),
            "{}",
            err("e2-e3")
        );
        assert!(err("e4-c4").contains("not Black's"), "{}", err("e4-c4"));
        assert!(err("c3-c4").contains("no piece on c3"));
        assert!(err("e2-j2").contains("`j2`"));
        assert!(err("hello").contains("hello"));
        assert!(err("").contains("from-to"));
        assert!(err("e2-c2xc3").contains("reads e2-c2"));
        assert!(err("e2-c2x").contains("not a square"));
        let p = setup("b: kb8 aa2 dd2 ae2");
        assert_eq!(p.parse_move("a2-c2xd2").unwrap(), mv("a2-c2"));
        assert_eq!(p.parse_move("a2-c2").unwrap(), mv("a2-c2"));
        assert!(p.parse_move("a2-c2xd3").is_err());
        assert_eq!(g.move_id(&mv("e2-c2")), "e2-c2");
        // Off-board squares never panic.
        let far = Move::new(Square::new(20, 3), Square::new(1, 1));
        assert!(!g.position().is_legal(&far));
        assert_eq!(g.position().play(&far), *g.position());
        assert!(g.captures(&far).is_empty());
    }

    #[test]
    fn options_change_the_start() {
        let g = Tablut::new(TablutOptions {
            first_move: Side::White,
            ..TablutOptions::default()
        });
        assert_eq!(g.side_to_move(), Side::White);
        assert_eq!(g.legal_moves().len(), 56);
        assert!(!g.is_set_up());
        let g = Tablut::from_position(START_TEXT, TablutOptions::default()).unwrap();
        assert!(!g.is_set_up());
        let g = Tablut::from_position("9/9/9/9/4k4/9/9/9/a8 w", TablutOptions::default()).unwrap();
        assert!(g.is_set_up());
        assert!(Tablut::from_position("nonsense", TablutOptions::default()).is_err());
    }
}
