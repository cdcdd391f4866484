//! Russian draughts (shashki): 8x8 board, men capture backwards, flying kings,
//! free choice among captures, promotion in the middle of a capture.
//!
//! `Position` is the bare board (bitboards over the 32 dark squares) with a fast
//! move generator and perft; `RussianDraughts` adds the history the draw rules need
//! and implements `crate::rules::Rules`.
//!
//! Move counting for the draw rules: a "move" is one player's move (a ply).
//! * The kings-only rule counts consecutive plies in which a king moved without
//!   capturing; any capture or man move resets it. The default limit of 30 plies is
//!   15 moves by each side, as in the current Russian rules (and pydraughts).
//! * The lone-king rule counts the stronger side's own moves since the material
//!   balance (three or more kings, no men, against one lone king) last changed.
//!   The default limit is 15.

use crate::rules::{
    FenError, MoveError, MoveErrorKind, Occupant, Outcome, PieceType, Rules, Side, Square,
};

/// Dark-square index: `rank * 4 + file / 2`, so a1 = 0, c1 = 1, b2 = 4, h8 = 31.
type Idx = u8;

const NONE: Idx = 255;
/// Diagonal steps as (file, rank): NE, NW, SE, SW. White's forward = 0, 1.
const DIRS: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

const fn build_neighbours() -> [[Idx; 4]; 32] {
    let mut t = [[NONE; 4]; 32];
    let mut i = 0;
    while i < 32 {
        let rank = (i / 4) as i32;
        let file = (2 * (i % 4)) as i32 + rank % 2;
        let mut d = 0;
        while d < 4 {
            let f = file + DIRS[d].0;
            let r = rank + DIRS[d].1;
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                t[i][d] = (r * 4 + f / 2) as Idx;
            }
            d += 1;
        }
        i += 1;
    }
    t
}

static NEIGHBOURS: [[Idx; 4]; 32] = build_neighbours();

const WHITE_START: u32 = 0x0000_0fff;
const BLACK_START: u32 = 0xfff0_0000;
const RANK_1: u32 = 0x0000_000f;
const RANK_8: u32 = 0xf000_0000;

fn bit(i: Idx) -> u32 {
    1u32 << i
}

fn idx_of(sq: Square) -> Option<Idx> {
    if sq.file < 8 && sq.rank < 8 && (sq.file + sq.rank).is_multiple_of(2) {
        Some(sq.rank * 4 + sq.file / 2)
    } else {
        None
    }
}

/// Bit of a square, 0 for a square off the dark squares (so a hand-made bad move
/// cannot corrupt the board or panic).
fn bit_of(sq: Square) -> u32 {
    idx_of(sq).map_or(0, bit)
}

fn square_of(i: Idx) -> Square {
    let rank = i / 4;
    Square::new(2 * (i % 4) + rank % 2, rank)
}

fn promotion_rank(side: Side) -> u32 {
    match side {
        Side::White => RANK_8,
        Side::Black => RANK_1,
    }
}

fn forward_dirs(side: Side) -> [usize; 2] {
    match side {
        Side::White => [0, 1],
        Side::Black => [2, 3],
    }
}

fn bits(mut b: u32) -> impl Iterator<Item = Idx> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let i = b.trailing_zeros() as Idx;
            b &= b - 1;
            Some(i)
        }
    })
}

/// A piece as the rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Piece {
    pub(crate) side: Side,
    pub(crate) king: bool,
}

/// A move with its full path. For a simple move `path` is just the destination;
/// for a capture it lists every landing square in order and `captured` the jumped
/// pieces in the order they were jumped.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square the moving piece leaves.
    pub from: Square,
    /// Every square it lands on, in order (the destination last).
    pub path: Vec<Square>,
    /// The pieces jumped, in order.
    pub captured: Vec<Square>,
    /// A man becomes a king during this move (possibly mid-capture).
    pub promotes: bool,
}

impl Move {
    /// Final square.
    pub(crate) fn to(&self) -> Square {
        self.path.last().copied().unwrap_or(self.from)
    }

    pub(crate) fn is_capture(&self) -> bool {
        !self.captured.is_empty()
    }

    /// Full-path form (`c3:e5:g7`), unambiguous in any position.
    pub(crate) fn long_notation(&self) -> String {
        let sep = if self.is_capture() { ":" } else { "-" };
        let mut s = self.from.name();
        for sq in &self.path {
            s.push_str(sep);
            s.push_str(&sq.name());
        }
        s
    }
}

/// The board and the side to move; no history. Small and `Copy` so search and
/// perft can make new positions freely.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Position {
    white: u32,
    black: u32,
    kings: u32,
    side: Side,
}

/// State of one capture search: fixed board facts plus the path being built.
struct CaptureSearch<'a> {
    /// Every piece except the capturing one: jumped pieces stay until the end.
    occupied: u32,
    enemies: u32,
    promo: u32,
    from: Idx,
    started_king: bool,
    path: Vec<Idx>,
    captured: Vec<Idx>,
    out: &'a mut Vec<Move>,
}

impl CaptureSearch<'_> {
    /// The enemy piece capturable from `cur` in direction `dir` and the first
    /// empty square behind it.
    fn jump(&self, cur: Idx, dir: usize, king: bool, dead: u32) -> Option<(Idx, Idx)> {
        let mut t = NEIGHBOURS[cur as usize][dir];
        if king {
            while t != NONE && self.occupied & bit(t) == 0 {
                t = NEIGHBOURS[t as usize][dir];
            }
        }
        // A dead piece blocks: it can be neither jumped again nor passed.
        if t == NONE || self.enemies & bit(t) == 0 || dead & bit(t) != 0 {
            return None;
        }
        let land = NEIGHBOURS[t as usize][dir];
        if land == NONE || self.occupied & bit(land) != 0 {
            return None;
        }
        Some((t, land))
    }

    fn can_capture(&self, cur: Idx, king: bool, dead: u32) -> bool {
        (0..4).any(|d| self.jump(cur, d, king, dead).is_some())
    }

    fn search(&mut self, cur: Idx, king: bool, dead: u32) {
        for dir in [0, 1, 2, 3] {
            let Some((victim, first)) = self.jump(cur, dir, king, dead) else {
                continue;
            };
            let dead = dead | bit(victim);
            self.captured.push(victim);
            if king {
                let mut lands = [NONE; 7];
                let mut n = 0;
                let mut l = first;
                while l != NONE && self.occupied & bit(l) == 0 {
                    lands[n] = l;
                    n += 1;
                    l = NEIGHBOURS[l as usize][dir];
                }
                let lands = &lands[..n];
                // Russian rule: a king must land where the capture goes on, if it can.
                let must_continue = lands.iter().any(|&l| self.can_capture(l, true, dead));
                for &l in lands {
                    self.path.push(l);
                    if !must_continue {
                        self.emit(true);
                    } else if self.can_capture(l, true, dead) {
                        self.search(l, true, dead);
                    }
                    self.path.pop();
                }
            } else {
                let crowned = self.promo & bit(first) != 0;
                self.path.push(first);
                if self.can_capture(first, crowned, dead) {
                    self.search(first, crowned, dead);
                } else {
                    self.emit(crowned);
                }
                self.path.pop();
            }
            self.captured.pop();
        }
    }

    fn emit(&mut self, king_now: bool) {
        self.out.push(Move {
            from: square_of(self.from),
            path: self.path.iter().map(|&i| square_of(i)).collect(),
            captured: self.captured.iter().map(|&i| square_of(i)).collect(),
            promotes: king_now && !self.started_king,
        });
    }
}

impl Position {
    /// The initial position, White to move.
    pub(crate) fn start() -> Position {
        Position {
            white: WHITE_START,
            black: BLACK_START,
            kings: 0,
            side: Side::White,
        }
    }

    /// An empty board with `side` to move (for building positions in code).
    pub(crate) fn empty(side: Side) -> Position {
        Position {
            white: 0,
            black: 0,
            kings: 0,
            side,
        }
    }

    pub(crate) fn side_to_move(&self) -> Side {
        self.side
    }

    pub(crate) fn piece(&self, sq: Square) -> Option<Piece> {
        let b = bit_of(sq);
        let side = if self.white & b != 0 {
            Side::White
        } else if self.black & b != 0 {
            Side::Black
        } else {
            return None;
        };
        Some(Piece {
            side,
            king: self.kings & b != 0,
        })
    }

    /// Puts (or with `None` removes) a piece; squares off the dark squares are ignored.
    pub(crate) fn set_piece(&mut self, sq: Square, piece: Option<Piece>) {
        let b = bit_of(sq);
        self.white &= !b;
        self.black &= !b;
        self.kings &= !b;
        if let Some(p) = piece {
            match p.side {
                Side::White => self.white |= b,
                Side::Black => self.black |= b,
            }
            if p.king {
                self.kings |= b;
            }
        }
    }

    pub(crate) fn occupant(&self, sq: Square) -> Occupant {
        match self.piece(sq) {
            None => Occupant::Empty,
            Some(Piece {
                side: Side::White, ..
            }) => Occupant::White,
            Some(Piece {
                side: Side::Black, ..
            }) => Occupant::Black,
        }
    }

    /// Number of (men, kings) of a side.
    pub(crate) fn count(&self, side: Side) -> (u32, u32) {
        let own = self.own(side);
        (
            (own & !self.kings).count_ones(),
            (own & self.kings).count_ones(),
        )
    }

    fn own(&self, side: Side) -> u32 {
        match side {
            Side::White => self.white,
            Side::Black => self.black,
        }
    }

    /// All legal moves. Captures are compulsory; every distinct capture path is
    /// its own move.
    pub(crate) fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        self.captures(&mut out);
        if out.is_empty() {
            self.quiet_moves(&mut out);
        }
        out
    }

    fn captures(&self, out: &mut Vec<Move>) {
        let own = self.own(self.side);
        let enemies = self.own(self.side.other());
        for from in bits(own) {
            let king = self.kings & bit(from) != 0;
            let mut s = CaptureSearch {
                occupied: (self.white | self.black) & !bit(from),
                enemies,
                promo: promotion_rank(self.side),
                from,
                started_king: king,
                path: Vec::new(),
                captured: Vec::new(),
                out: &mut *out,
            };
            s.search(from, king, 0);
        }
    }

    fn quiet_moves(&self, out: &mut Vec<Move>) {
        let own = self.own(self.side);
        let empty = !(self.white | self.black);
        let promo = promotion_rank(self.side);
        for from in bits(own) {
            let king = self.kings & bit(from) != 0;
            let dirs: &[usize] = if king {
                &[0, 1, 2, 3]
            } else {
                &forward_dirs(self.side)
            };
            for &d in dirs {
                let mut t = NEIGHBOURS[from as usize][d];
                while t != NONE && empty & bit(t) != 0 {
                    out.push(Move {
                        from: square_of(from),
                        path: vec![square_of(t)],
                        captured: Vec::new(),
                        promotes: !king && promo & bit(t) != 0,
                    });
                    if !king {
                        break;
                    }
                    t = NEIGHBOURS[t as usize][d];
                }
            }
        }
    }

    /// The position after `mv` (assumed legal).
    pub(crate) fn play(&self, mv: &Move) -> Position {
        let from = bit_of(mv.from);
        let to = bit_of(mv.to());
        let taken = mv.captured.iter().fold(0, |acc, &s| acc | bit_of(s));
        let was_king = self.kings & from != 0;
        let mut p = *self;
        let (own, opp) = match self.side {
            Side::White => (&mut p.white, &mut p.black),
            Side::Black => (&mut p.black, &mut p.white),
        };
        *own = (*own & !from) | to;
        *opp &= !taken;
        p.kings &= !(from | taken);
        if was_king || mv.promotes || promotion_rank(self.side) & to != 0 {
            p.kings |= to;
        }
        p.side = self.side.other();
        p
    }

    /// Leaf count of the move tree to `depth` (no draw rules, no history).
    pub(crate) fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|m| self.play(m).perft(depth - 1)).sum()
    }

    /// Record notation of `mv` in this position: `c3-d4`, `c3:g7`, or the full path
    /// `c3:e5:g7` when another legal capture has the same start and end.
    pub(crate) fn notation(&self, mv: &Move) -> String {
        notation_among(mv, &self.legal_moves())
    }

    /// Finds the legal move a notation string names. Accepts `-`, `:` or `x` as
    /// separators, any subset of the intermediate landing squares, and trailing
    /// `!`/`?`/`+`/`#` annotations.
    pub(crate) fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let err = |kind, why: String| MoveError::new(kind, text, why);
        let t = text.trim().trim_end_matches(['!', '?', '+', '#']);
        let mut squares = Vec::new();
        for part in t.split(['-', ':', 'x']) {
            match Square::parse(part).and_then(|s| idx_of(s).map(|_| s)) {
                Some(s) => squares.push(s),
                None => {
                    return Err(err(
                        MoveErrorKind::Malformed,
                        format!("move {text:?}: {part:?} is not a dark square of the board"),
                    ))
                }
            }
        }
        if squares.len() < 2 {
            return Err(err(
                MoveErrorKind::Malformed,
                format!("move {text:?}: needs at least two squares"),
            ));
        }
        let (first, last) = (squares[0], squares[squares.len() - 1]);
        let middle = &squares[1..squares.len() - 1];
        let legal = self.legal_moves();
        let found: Vec<&Move> = legal
            .iter()
            .filter(|m| m.from == first && m.to() == last)
            .filter(|m| is_subsequence(middle, &m.path[..m.path.len() - 1]))
            .collect();
        match found.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(err(
                MoveErrorKind::Illegal,
                format!("move {text:?} is not legal here"),
            )),
            many => {
                let exact = many.iter().find(|m| m.path[..] == squares[1..]);
                exact.map(|m| (*m).clone()).ok_or_else(|| {
                    let options: Vec<String> = many.iter().map(|m| m.long_notation()).collect();
                    err(
                        MoveErrorKind::Ambiguous,
                        format!("move {text:?} is ambiguous: {}", options.join(", ")),
                    )
                })
            }
        }
    }

    /// Parses the PDN FEN for this game with algebraic squares, e.g.
    /// `W:Wa1,c1,Kd8:Be7,h8` (colour groups in either order, optional final `.`).
    pub(crate) fn from_fen(fen: &str) -> Result<Position, FenError> {
        let at = |part: &str, why: String| FenError::at(fen, part, why);
        let body = fen.trim();
        let body = body.strip_suffix('.').unwrap_or(body).trim_end();
        let mut parts = body.split(':');
        let side = match parts.next().map(str::trim) {
            Some("W") | Some("w") => Side::White,
            Some("B") | Some("b") => Side::Black,
            other => {
                return Err(at(
                    other.unwrap_or(body),
                    format!(
                        "FEN {fen:?}: side to move must be W or B, found {:?}",
                        other.unwrap_or("")
                    ),
                ))
            }
        };
        let mut p = Position::empty(side);
        let mut seen = [false; 2];
        for group in parts {
            let group = group.trim();
            let (colour, list) = match group.chars().next() {
                Some('W') => (Side::White, &group[1..]),
                Some('B') => (Side::Black, &group[1..]),
                _ => {
                    return Err(at(
                        group,
                        format!("FEN {fen:?}: piece group {group:?} must start with W or B"),
                    ))
                }
            };
            let k = (colour == Side::Black) as usize;
            if seen[k] {
                return Err(at(
                    group,
                    format!("FEN {fen:?}: colour group {group:?} given twice"),
                ));
            }
            seen[k] = true;
            if list.trim().is_empty() {
                continue;
            }
            for token in list.split(',') {
                let token = token.trim();
                let (king, name) = match token.strip_prefix('K') {
                    Some(rest) => (true, rest),
                    None => (false, token),
                };
                let sq = Square::parse(name)
                    .filter(|&s| idx_of(s).is_some())
                    .ok_or_else(|| {
                        at(
                            token,
                            format!("FEN {fen:?}: {token:?} is not a dark square of the board"),
                        )
                    })?;
                if p.piece(sq).is_some() {
                    return Err(at(
                        token,
                        format!("FEN {fen:?}: square in {token:?} is given twice"),
                    ));
                }
                if !king && promotion_rank(colour) & bit_of(sq) != 0 {
                    return Err(at(
                        token,
                        format!("FEN {fen:?}: man {token:?} stands on its promotion rank"),
                    ));
                }
                p.set_piece(sq, Some(Piece { side: colour, king }));
            }
        }
        if !seen[0] && !seen[1] {
            return Err(at(body, format!("FEN {fen:?}: no piece groups")));
        }
        Ok(p)
    }

    /// PDN FEN with algebraic squares, squares in a1, c1, .., h8 order.
    pub(crate) fn to_fen(self) -> String {
        let list = |own: u32| -> String {
            bits(own)
                .map(|i| {
                    let k = if self.kings & bit(i) != 0 { "K" } else { "" };
                    format!("{k}{}", square_of(i).name())
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let side = match self.side {
            Side::White => 'W',
            Side::Black => 'B',
        };
        format!("{side}:W{}:B{}", list(self.white), list(self.black))
    }
}

fn is_subsequence(needle: &[Square], hay: &[Square]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}

fn notation_among(mv: &Move, legal: &[Move]) -> String {
    if !mv.is_capture() {
        return format!("{}-{}", mv.from.name(), mv.to().name());
    }
    let ambiguous = legal
        .iter()
        .any(|m| m.from == mv.from && m.to() == mv.to() && m.path != mv.path);
    if ambiguous {
        mv.long_notation()
    } else {
        format!("{}:{}", mv.from.name(), mv.to().name())
    }
}

/// Draw-rule settings. `None` switches a rule off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DraughtsOptions {
    /// Three or more kings against a lone king: draw once the stronger side has
    /// made this many moves without winning. Default 15.
    pub(crate) lone_king_moves: Option<u32>,
    /// Draw after this many consecutive plies of non-capturing king moves
    /// (both sides' moves counted). Default 30, i.e. 15 each.
    pub(crate) king_only_plies: Option<u32>,
    /// Whether a threefold repetition ends the game by itself. Default false: the
    /// players may claim it (`draw_claimable`, `claim_draw`) but play may go on, as a
    /// camera watching a real game must keep following it.
    pub(crate) repetition_ends_game: bool,
}

impl Default for DraughtsOptions {
    fn default() -> Self {
        DraughtsOptions {
            lone_king_moves: Some(15),
            king_only_plies: Some(30),
            repetition_ends_game: false,
        }
    }
}

/// A game: position, history and options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RussianDraughts {
    initial: Position,
    pos: Position,
    /// Every position so far, the current one last.
    history: Vec<Position>,
    moves: Vec<Move>,
    options: DraughtsOptions,
    king_only_plies: u32,
    lone_king_moves: u32,
    ended_by: Option<Outcome>,
}

/// (white men, white kings, black men, black kings)
type Material = (u32, u32, u32, u32);

fn material(p: &Position) -> Material {
    let (wm, wk) = p.count(Side::White);
    let (bm, bk) = p.count(Side::Black);
    (wm, wk, bm, bk)
}

/// The side with three or more kings (and no men) against a lone king, if any.
fn lone_king_stronger(m: Material) -> Option<Side> {
    match m {
        (0, k, 0, 1) if k >= 3 => Some(Side::White),
        (0, 1, 0, k) if k >= 3 => Some(Side::Black),
        _ => None,
    }
}

impl RussianDraughts {
    /// A game from the standard start.
    pub fn new(options: DraughtsOptions) -> RussianDraughts {
        Self::from_position(Position::start(), options)
    }

    /// A game from a position in PDN FEN with algebraic squares (`W:Wa1,c1,Kd8:Be7,h8`).
    pub fn from_fen(fen: &str, options: DraughtsOptions) -> Result<RussianDraughts, FenError> {
        Ok(Self::from_position(Position::from_fen(fen)?, options))
    }

    /// Counters start at zero: whatever happened before a set-up position is unknown.
    pub(crate) fn from_position(pos: Position, options: DraughtsOptions) -> RussianDraughts {
        RussianDraughts {
            initial: pos,
            pos,
            history: vec![pos],
            moves: Vec::new(),
            options,
            king_only_plies: 0,
            lone_king_moves: 0,
            ended_by: None,
        }
    }

    pub(crate) fn position(&self) -> &Position {
        &self.pos
    }

    /// The position the game began from.
    pub(crate) fn initial_position(&self) -> &Position {
        &self.initial
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    pub(crate) fn options(&self) -> DraughtsOptions {
        self.options
    }

    /// The current position in FEN.
    pub fn fen(&self) -> String {
        self.pos.to_fen()
    }

    /// How often the current position (with the same side to move) has occurred.
    pub(crate) fn repetition_count(&self) -> usize {
        self.history.iter().filter(|&&p| p == self.pos).count()
    }

    /// A draw the players may claim now (threefold repetition), if any.
    pub(crate) fn draw_claimable(&self) -> Option<Outcome> {
        (self.repetition_count() >= 3).then(|| Outcome::Draw {
            reason: "threefold repetition".to_string(),
        })
    }

    /// Ends the game by a claimed threefold repetition; None (and the game goes
    /// on) when no draw can be claimed in this position.
    #[cfg(test)]
    pub(crate) fn claim_draw(&mut self) -> Option<Outcome> {
        let o = self.draw_claimable()?;
        self.ended_by = Some(o.clone());
        Some(o)
    }

    /// Ends the game as a draw by agreement.
    #[cfg(test)]
    pub(crate) fn agree_draw(&mut self) {
        self.ended_by = Some(Outcome::Draw {
            reason: "agreement".to_string(),
        });
    }

    /// Plies of king-only moves without capture so far (see the module notes).
    #[cfg(test)]
    pub(crate) fn king_only_plies(&self) -> u32 {
        self.king_only_plies
    }

    /// Moves the stronger side has made in the current kings-against-lone-king ending.
    #[cfg(test)]
    pub(crate) fn lone_king_moves(&self) -> u32 {
        self.lone_king_moves
    }

    pub(crate) fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        self.pos.parse_move(text)
    }

    /// Parses and plays a move in record notation.
    #[cfg(test)]
    pub(crate) fn play_notation(&mut self, text: &str) -> Result<Move, MoveError> {
        if let Some(o) = self.outcome() {
            return Err(MoveError::new(
                MoveErrorKind::GameOver,
                text,
                format!("move {text:?}: the game is over ({o:?})"),
            ));
        }
        let mv = self.parse_move(text)?;
        self.play_legal(&mv);
        Ok(mv)
    }

    /// Takes back the last move (replaying from the start so every counter is exact).
    #[cfg(test)]
    pub(crate) fn undo(&mut self) -> Option<Move> {
        let mut moves = std::mem::take(&mut self.moves);
        let last = moves.pop();
        let mut g = Self::from_position(self.initial, self.options);
        for m in &moves {
            g.play_legal(m);
        }
        *self = g;
        last
    }
}

impl Rules for RussianDraughts {
    type Move = Move;

    fn dims(&self) -> (u8, u8) {
        (8, 8)
    }

    fn is_playable(&self, sq: Square) -> bool {
        idx_of(sq).is_some()
    }

    fn side_to_move(&self) -> Side {
        self.pos.side
    }

    fn piece_type(&self, sq: Square) -> Option<PieceType> {
        self.position().piece(sq).map(|p| {
            if p.king {
                PieceType::DraughtsKing
            } else {
                PieceType::Man
            }
        })
    }

    fn occupant(&self, sq: Square) -> Occupant {
        self.pos.occupant(sq)
    }

    fn displaced(&self, from: Square, to: Square) -> Option<RussianDraughts> {
        idx_of(to)?;
        let piece = self.pos.piece(from)?;
        if from == to {
            return None;
        }
        let mut pos = self.pos;
        pos.set_piece(from, None);
        // A man put on the far rank is crowned, as any man that gets there.
        let far = match piece.side {
            Side::White => 7,
            Side::Black => 0,
        };
        pos.set_piece(
            to,
            Some(Piece {
                side: piece.side,
                king: piece.king || to.rank == far,
            }),
        );
        pos.side = pos.side.other();
        Some(RussianDraughts::from_position(pos, self.options))
    }

    fn position_text(&self) -> String {
        self.fen()
    }

    fn legal_moves(&self) -> Vec<Move> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        self.pos.legal_moves()
    }

    fn play_legal(&mut self, mv: &Move) {
        let mover = self.pos.side;
        let was_king = self.pos.kings & bit_of(mv.from) != 0;
        let before = material(&self.pos);
        self.pos = self.pos.play(mv);
        let after = material(&self.pos);
        self.king_only_plies = if mv.is_capture() || !was_king {
            0
        } else {
            self.king_only_plies + 1
        };
        self.lone_king_moves = match lone_king_stronger(after) {
            Some(strong) if before == after && strong == mover => self.lone_king_moves + 1,
            Some(_) if before == after => self.lone_king_moves,
            _ => 0,
        };
        self.history.push(self.pos);
        self.moves.push(mv.clone());
    }

    fn notation(&self, mv: &Move) -> String {
        self.pos.notation(mv)
    }

    fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = &self.ended_by {
            return Some(o.clone());
        }
        let side = self.pos.side;
        if self.pos.own(side) == 0 {
            return Some(Outcome::Win {
                winner: side.other(),
                reason: "no pieces left".to_string(),
            });
        }
        if self.pos.legal_moves().is_empty() {
            return Some(Outcome::Win {
                winner: side.other(),
                reason: "no legal move".to_string(),
            });
        }
        if let Some(limit) = self.options.lone_king_moves {
            if lone_king_stronger(material(&self.pos)).is_some() && self.lone_king_moves >= limit {
                return Some(Outcome::Draw {
                    reason: format!("kings did not win against a lone king in {limit} moves"),
                });
            }
        }
        if let Some(limit) = self.options.king_only_plies {
            if self.king_only_plies >= limit {
                return Some(Outcome::Draw {
                    reason: format!("{limit} plies of king moves without capture"),
                });
            }
        }
        if self.options.repetition_ends_game {
            return self.draw_claimable();
        }
        None
    }

    fn perft(&self, depth: u32) -> u64 {
        self.pos.perft(depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../../../tests/data/perft/russian_draughts.txt");

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    fn notations(p: &Position) -> Vec<String> {
        let mut v: Vec<String> = p.legal_moves().iter().map(|m| p.notation(m)).collect();
        v.sort();
        v
    }

    fn game(fen: &str, options: DraughtsOptions) -> RussianDraughts {
        RussianDraughts::from_fen(fen, options).unwrap()
    }

    #[test]
    fn perft_fixture() {
        let mut checked = 0;
        for line in FIXTURE.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let f: Vec<&str> = line.split(';').map(str::trim).collect();
            assert_eq!(f.len(), 3, "bad fixture line {line}");
            let pos = Position::from_fen(f[0]).unwrap();
            let depth: u32 = f[1].parse().unwrap();
            let count: u64 = f[2].parse().unwrap();
            assert_eq!(pos.perft(depth), count, "{line}");
            checked += 1;
        }
        assert!(checked >= 26);
    }

    #[test]
    fn trait_perft_and_basics() {
        let g = RussianDraughts::new(DraughtsOptions::default());
        assert_eq!(Rules::perft(&g, 4), 1469);
        assert_eq!(g.dims(), (8, 8));
        assert!(g.is_playable(sq("a1")) && g.is_playable(sq("h8")));
        assert!(!g.is_playable(sq("b1")) && !g.is_playable(sq("a8")));
        assert_eq!(g.occupant(sq("c3")), Occupant::White);
        assert_eq!(g.occupant(sq("f6")), Occupant::Black);
        assert_eq!(g.occupant(sq("d4")), Occupant::Empty);
        assert_eq!(g.side_to_move(), Side::White);
        assert_eq!(
            notations(g.position()),
            ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]
        );
    }

    #[test]
    fn fen_round_trip_and_variants() {
        let start = Position::start();
        assert_eq!(Position::from_fen(&start.to_fen()).unwrap(), start);
        let a = Position::from_fen("W:Wa1,c1,Kd8:Be7,h8").unwrap();
        let b = Position::from_fen(" W:Be7,h8:Wc1,a1,Kd8. ").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_fen(), "W:Wa1,c1,Kd8:Be7,h8");
        assert_eq!(
            a.piece(sq("d8")),
            Some(Piece {
                side: Side::White,
                king: true
            })
        );
        let empty_side = Position::from_fen("B:W:Bc5").unwrap();
        assert_eq!(empty_side.to_fen(), "B:W:Bc5");
    }

    #[test]
    fn fen_errors_name_the_token() {
        let cases = [
            ("X:Wa1:Bh8", "\"X\""),
            ("W:Wa1,z9:Bh8", "\"z9\""),
            ("W:Wb1:Bh8", "\"b1\""),
            ("W:Wa1:Wc1", "given twice"),
            ("W:Wa1,a1:Bc5", "\"a1\""),
            ("W:Wh8:Bc5", "\"h8\""),
            ("W:Qa1", "\"Qa1\""),
            ("W:Wa1,:Bc5", "\"\""),
            ("W", "no piece groups"),
        ];
        for (fen, needle) in cases {
            let err = Position::from_fen(fen).unwrap_err().to_string();
            assert!(err.contains(needle), "{fen}: {err}");
        }
    }

    #[test]
    fn simple_capture_notation_and_parse() {
        let mut g = RussianDraughts::new(DraughtsOptions::default());
        g.play_notation("c3-d4").unwrap();
        g.play_notation("f6-e5").unwrap();
        assert_eq!(notations(g.position()), ["d4:f6"]);
        let m = g.parse_move("d4xf6").unwrap();
        assert_eq!(m.captured, [sq("e5")]);
        assert!(g
            .parse_move("d4-c5")
            .unwrap_err()
            .to_string()
            .contains("not legal"));
        assert!(g.parse_move("d4").is_err());
        assert!(g
            .parse_move("i9-d4")
            .unwrap_err()
            .to_string()
            .contains("\"i9\""));
    }

    #[test]
    fn promotion_during_capture_continues_as_king() {
        // b6 takes c7, crowns on d8 and goes on as a king, taking f6 from afar.
        let p = Position::from_fen("W:Wb6:Bc7,f6").unwrap();
        assert_eq!(notations(&p), ["b6:g5", "b6:h4"]);
        for m in p.legal_moves() {
            assert!(m.promotes);
            assert_eq!(m.captured, [sq("c7"), sq("f6")]);
            assert_eq!(m.path[0], sq("d8"));
        }
        let m = p.parse_move("b6:h4").unwrap();
        let after = p.play(&m);
        assert_eq!(after.to_fen(), "B:WKh4:B");
        // Crowning where the capture ends.
        let p = Position::from_fen("W:Wb6:Bc7,h2").unwrap();
        let m = p.parse_move("b6:d8").unwrap();
        assert!(m.promotes);
        assert_eq!(p.play(&m).to_fen(), "B:WKd8:Bh2");
        // Crowning by a simple move, for Black too.
        let p = Position::from_fen("B:Wa1:Bd2").unwrap();
        assert_eq!(notations(&p), ["d2-c1", "d2-e1"]);
        assert!(p.legal_moves().iter().all(|m| m.promotes));
    }

    #[test]
    fn king_chooses_landing_square() {
        // Nothing to continue with: any square behind c3.
        let p = Position::from_fen("W:WKa1:Bc3").unwrap();
        assert_eq!(notations(&p), ["a1:d4", "a1:e5", "a1:f6", "a1:g7", "a1:h8"]);
        // Only from e5 can it go on (over f4), so it must land there.
        let p = Position::from_fen("W:WKa1:Bc3,f4").unwrap();
        assert_eq!(notations(&p), ["a1:g3", "a1:h2"]);
        for m in p.legal_moves() {
            assert_eq!(m.path[0], sq("e5"));
            assert!(!m.promotes);
        }
    }

    #[test]
    fn turkish_strike_dead_piece_blocks() {
        // After c3:f6:h4:f2 the dead d4 still stands between f2 and c5, so c5
        // (with b6 empty) cannot be taken; d4 is never jumped twice.
        let p = Position::from_fen("W:WKc3:Bd4,g5,g3,c5").unwrap();
        assert_eq!(notations(&p), ["c3:e1", "c3:f2", "c3:h2"]);
        let m = p.parse_move("c3:f2").unwrap();
        assert_eq!(m.path, [sq("f6"), sq("h4"), sq("f2")]);
        assert_eq!(m.captured, [sq("d4"), sq("g5"), sq("g3")]);
        assert_eq!(p.play(&m).to_fen(), "B:WKf2:Bc5");
    }

    #[test]
    fn same_ends_different_paths_are_distinct_and_written_in_full() {
        // The man goes round the diamond either way and ends where it started.
        let p = Position::from_fen("W:Wc1:Bb2,d2,b4,d4").unwrap();
        assert_eq!(p.perft(1), 2);
        assert_eq!(notations(&p), ["c1:a3:c5:e3:c1", "c1:e3:c5:a3:c1"]);
        assert!(p
            .parse_move("c1:c1")
            .unwrap_err()
            .to_string()
            .contains("ambiguous"));
        // Partial paths are fine when only one route fits them in order.
        assert!(p
            .parse_move("c1:e3:c1")
            .unwrap_err()
            .to_string()
            .contains("ambiguous"));
        let m = p.parse_move("c1:e3:a3:c1").unwrap();
        assert_eq!(m.path, [sq("e3"), sq("c5"), sq("a3"), sq("c1")]);
        assert_eq!(p.play(&m).to_fen(), "B:Wc1:B");
    }

    /// Alternates the two kings between their squares, one ply per call.
    fn shuffle(g: &mut RussianDraughts, plies: usize, white: [&str; 2], black: [&str; 2]) {
        for _ in 0..plies {
            let [a, b] = if g.side_to_move() == Side::White {
                white
            } else {
                black
            };
            let mv = if g.occupant(sq(a)) != Occupant::Empty {
                format!("{a}-{b}")
            } else {
                format!("{b}-{a}")
            };
            g.play_notation(&mv).unwrap();
        }
    }

    #[test]
    fn threefold_repetition_claimable_or_automatic() {
        let fen = "W:WKa1:BKh4";
        let mut g = game(fen, DraughtsOptions::default());
        shuffle(&mut g, 7, ["a1", "b2"], ["h4", "g5"]);
        assert_eq!(g.draw_claimable(), None);
        assert!(g.claim_draw().is_none());
        shuffle(&mut g, 1, ["a1", "b2"], ["h4", "g5"]);
        assert_eq!(g.repetition_count(), 3);
        assert!(g.draw_claimable().is_some());
        // Not claimed: play goes on.
        assert_eq!(g.outcome(), None);
        assert!(!Rules::legal_moves(&g).is_empty());
        let claimed = g.claim_draw().unwrap();
        assert_eq!(g.outcome(), Some(claimed));
        assert!(Rules::legal_moves(&g).is_empty());

        let auto = DraughtsOptions {
            repetition_ends_game: true,
            ..DraughtsOptions::default()
        };
        let mut g = game(fen, auto);
        shuffle(&mut g, 7, ["a1", "b2"], ["h4", "g5"]);
        assert_eq!(g.outcome(), None);
        shuffle(&mut g, 1, ["a1", "b2"], ["h4", "g5"]);
        assert!(
            matches!(g.outcome(), Some(Outcome::Draw { reason }) if reason.contains("repetition"))
        );
    }

    #[test]
    fn king_only_moves_draw_and_reset_by_man_move() {
        let mut g = game("W:WKa1,a3:BKh4", DraughtsOptions::default());
        shuffle(&mut g, 20, ["a1", "b2"], ["h4", "g5"]);
        assert_eq!(g.king_only_plies(), 20);
        g.play_notation("a3-b4").unwrap();
        assert_eq!(g.king_only_plies(), 0);
        shuffle(&mut g, 29, ["a1", "b2"], ["h4", "g5"]);
        assert_eq!(g.outcome(), None);
        shuffle(&mut g, 1, ["a1", "b2"], ["h4", "g5"]);
        assert!(
            matches!(g.outcome(), Some(Outcome::Draw { reason }) if reason.contains("30 plies"))
        );
        assert!(Rules::legal_moves(&g).is_empty());

        let off = DraughtsOptions {
            king_only_plies: None,
            ..DraughtsOptions::default()
        };
        let mut g = game("W:WKa1,a3:BKh4", off);
        shuffle(&mut g, 40, ["a1", "b2"], ["h4", "g5"]);
        assert_eq!(g.outcome(), None);
    }

    #[test]
    fn three_kings_against_lone_king_fifteen_moves() {
        let fen = "W:WKc1,Ke1,Kg1:BKa7";
        let mut g = game(fen, DraughtsOptions::default());
        // White's 15th move is ply 29, before the 30-ply king rule could apply.
        shuffle(&mut g, 28, ["c1", "d2"], ["a7", "b8"]);
        assert_eq!(g.lone_king_moves(), 14);
        assert_eq!(g.outcome(), None);
        shuffle(&mut g, 1, ["c1", "d2"], ["a7", "b8"]);
        assert_eq!(g.lone_king_moves(), 15);
        assert!(
            matches!(g.outcome(), Some(Outcome::Draw { reason }) if reason.contains("lone king"))
        );

        let off = DraughtsOptions {
            lone_king_moves: None,
            king_only_plies: None,
            repetition_ends_game: false,
        };
        let mut g = game(fen, off);
        shuffle(&mut g, 40, ["c1", "d2"], ["a7", "b8"]);
        assert_eq!(g.outcome(), None);

        // A king with a man is not "kings only": no count.
        let mut g = game("W:WKc1,Ke1,Kg1,a3:BKa7", off);
        shuffle(&mut g, 10, ["c1", "d2"], ["a7", "b8"]);
        assert_eq!(g.lone_king_moves(), 0);
    }

    #[test]
    fn draw_by_agreement() {
        let mut g = RussianDraughts::new(DraughtsOptions::default());
        g.play_notation("c3-d4").unwrap();
        g.agree_draw();
        assert!(matches!(g.outcome(), Some(Outcome::Draw { reason }) if reason == "agreement"));
        assert!(Rules::legal_moves(&g).is_empty());
        assert!(g.play_notation("f6-g5").is_err());
    }

    #[test]
    fn loss_by_no_moves_or_no_pieces() {
        let g = game("W:Wa3:Bb4,c5", DraughtsOptions::default());
        let o = g.outcome().unwrap();
        assert_eq!(o.result_token(), "0-1");
        assert!(matches!(o, Outcome::Win { reason, .. } if reason == "no legal move"));
        assert!(Rules::legal_moves(&g).is_empty());

        let mut g = game("W:Wc3:Bd4", DraughtsOptions::default());
        assert_eq!(g.outcome(), None);
        g.play_notation("c3:e5").unwrap();
        let o = g.outcome().unwrap();
        assert_eq!(o.result_token(), "1-0");
        assert!(matches!(o, Outcome::Win { reason, .. } if reason == "no pieces left"));
    }

    #[test]
    fn undo_restores_position_and_counters() {
        let mut g = game("W:WKa1,a3:BKh4", DraughtsOptions::default());
        shuffle(&mut g, 5, ["a1", "b2"], ["h4", "g5"]);
        let fen = g.fen();
        let m = g
            .parse_move("h4-g5")
            .or_else(|_| g.parse_move("g5-h4"))
            .unwrap();
        Rules::play(&mut g, &m).unwrap();
        assert_eq!(g.king_only_plies(), 6);
        assert_eq!(g.undo(), Some(m));
        assert_eq!(g.fen(), fen);
        assert_eq!(g.king_only_plies(), 5);
        assert_eq!(g.moves().len(), 5);
    }
}
