//! Rules engines. They know nothing of images, cameras or files: a game is a
//! position that lists its legal moves, plays them, and says what stands on a square.
//! The vision side only ever asks `occupant` (empty / white / black), so the
//! inference stage can compare a move's consequences with what the camera saw.

use std::fmt::Debug;

/// Chess, by shakmaty.
pub mod chess;
mod error;
/// Go on 19x19, 13x13 and 9x9: captures, suicide, ko and superko, handicap.
pub mod go;
/// Russian draughts on the 8x8 board.
pub mod russian_draughts;
/// Tablut on a 9x9 board, the rules as boardscribe plays them.
pub mod tablut;

pub use error::FenError;
pub use error::IllegalMove;
pub use error::MoveError;
pub(crate) use error::MoveErrorKind;

/// A game given as a start position and moves, refused: the position, or a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The start position.
    #[error(transparent)]
    Start(#[from] FenError),
    /// One of the moves.
    #[error(transparent)]
    Move(#[from] MoveError),
}

/// A player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// White (in Tablut, the defenders).
    White,
    /// Black (in Tablut, the attackers).
    Black,
}

impl Side {
    /// The opponent.
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

/// What a camera can tell of a square: nothing on it, or a piece of one side.
/// Piece types (king, queen, draughts king) are the rules' business, not the camera's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Occupant {
    /// Nothing on it.
    Empty,
    /// A white piece.
    White,
    /// A black piece.
    Black,
}

/// What kind of piece stands on a square, for drawing it (renders, overlays). The
/// camera never needs this: it only tells colours apart.
impl Side {
    /// "White" or "Black".
    pub fn name(self) -> &'static str {
        match self {
            Side::White => "White",
            Side::Black => "Black",
        }
    }
}

/// Kinds of pieces across the games, for drawing and for records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PieceType {
    /// Chess: a pawn.
    Pawn,
    /// Chess: a knight.
    Knight,
    /// Chess: a bishop.
    Bishop,
    /// Chess: a rook.
    Rook,
    /// Chess: a queen.
    Queen,
    /// Chess: the king.
    King,
    /// Draughts: a man.
    Man,
    /// Draughts: a king.
    DraughtsKing,
    /// Tablut: a soldier (attacker or defender).
    Soldier,
    /// Tablut: the king.
    TablutKing,
    /// A Go stone.
    Stone,
}

/// A square in the game's own coordinates: `file` 0 is the a-file (White's left),
/// `rank` 0 is White's first rank. a1 = (0, 0).
impl PieceType {
    /// The piece's name as an arbiter says it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            PieceType::Pawn => "pawn",
            PieceType::Knight => "knight",
            PieceType::Bishop => "bishop",
            PieceType::Rook => "rook",
            PieceType::Queen => "queen",
            PieceType::King | PieceType::DraughtsKing | PieceType::TablutKing => "king",
            PieceType::Man => "man",
            PieceType::Soldier => "soldier",
            PieceType::Stone => "stone",
        }
    }
}

/// A square by file and rank, both from 0 at White's lower left (a1 is (0, 0)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    /// File from 0 (a).
    pub file: u8,
    /// Rank from 0 (1).
    pub rank: u8,
}

impl Square {
    /// The square at `file`, `rank`.
    pub const fn new(file: u8, rank: u8) -> Square {
        Square { file, rank }
    }

    /// Algebraic name such as `e4` (files a.., ranks from 1).
    pub fn name(self) -> String {
        format!("{}{}", (b'a' + self.file) as char, self.rank as u32 + 1)
    }

    /// Parses an algebraic name such as `e4` or `c10`.
    pub(crate) fn parse(s: &str) -> Option<Square> {
        let mut chars = s.chars();
        let f = chars.next()?;
        if !f.is_ascii_lowercase() {
            return None;
        }
        let rank: u32 = chars.as_str().parse().ok()?;
        if rank == 0 || rank > 26 {
            return None;
        }
        Some(Square::new(f as u8 - b'a', (rank - 1) as u8))
    }
}

/// How a game ended (or what draw the rules impose or allow).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// One side won.
    Win {
        /// The winner.
        winner: Side,
        /// How (`checkmate`, `no moves left`).
        reason: String,
    },
    /// A draw.
    Draw {
        /// Why (`stalemate`, `insufficient material`).
        reason: String,
    },
}

impl Outcome {
    /// PGN/PDN style result token: `1-0`, `0-1`, `1/2-1/2`.
    pub fn result_token(&self) -> &'static str {
        match self {
            Outcome::Win {
                winner: Side::White,
                ..
            } => "1-0",
            Outcome::Win {
                winner: Side::Black,
                ..
            } => "0-1",
            Outcome::Draw { .. } => "1/2-1/2",
        }
    }
}

/// A game in progress under some rules: the position plus whatever history the
/// rules need (repetition, move-count draws). Generic code (move inference,
/// perft) works only through this trait.
pub trait Rules: Clone {
    /// A move of this game.
    type Move: Clone + PartialEq + Debug;

    /// Board size as (files, ranks).
    fn dims(&self) -> (u8, u8);
    /// Squares a piece can ever stand on (draughts: the dark squares only).
    fn is_playable(&self, _sq: Square) -> bool {
        true
    }
    /// Who moves next.
    fn side_to_move(&self) -> Side;
    /// What stands on a square, as a camera can tell it.
    fn occupant(&self, sq: Square) -> Occupant;
    /// The kind of piece on a square, if any.
    fn piece_type(&self, sq: Square) -> Option<PieceType>;
    /// Legal moves in this position; empty once the game is decided.
    fn legal_moves(&self) -> Vec<Self::Move>;
    /// Plays a move if the position allows it; an illegal one is refused and the
    /// game left as it was.
    fn play(&mut self, mv: &Self::Move) -> Result<(), IllegalMove> {
        if !self.legal_moves().contains(mv) {
            return Err(IllegalMove {
                mv: self.move_id(mv),
                position: self.position_text(),
            });
        }
        self.play_legal(mv);
        Ok(())
    }
    /// Plays a move taken from `legal_moves`, the path of search and inference,
    /// which play thousands: it is not looked for among the legal moves again
    /// (chess checks it, as cheaply as shakmaty does, and panics on an illegal
    /// one). A move from anywhere else goes through [`Rules::play`].
    fn play_legal(&mut self, mv: &Self::Move);
    /// The move in the game's record notation, as it reads in the current position.
    fn notation(&self, mv: &Self::Move) -> String;
    /// A square's name as the game's players write it (chess's e4, Go's A6).
    fn square_name(&self, sq: Square) -> String {
        sq.name()
    }
    /// A short machine-friendly form (UCI for chess, `c3-d4` style otherwise).
    fn move_id(&self, mv: &Self::Move) -> String {
        self.notation(mv)
    }
    /// The result when the game is over (or a draw the rules impose).
    fn outcome(&self) -> Option<Outcome>;
    /// Other legal moves that leave exactly the same occupancy as `mv` but differ in
    /// what the camera cannot see (a promotion's piece). The recorder writes `mv` and
    /// keeps these in case later play proves one of them was made instead.
    fn alternatives(&self, _mv: &Self::Move) -> Vec<Self::Move> {
        Vec::new()
    }
    /// What the board shows after an irregular move: the piece on `from` put on
    /// `to` (taking whatever stood there) although no rule allows it, with the
    /// other side to move. None when there is no piece on `from`, or the result
    /// is not a position the rules can play on (a side left in check with the
    /// other to move). Play that goes on from there is a new game (FIDE 7.5).
    fn displaced(&self, _from: Square, _to: Square) -> Option<Self> {
        None
    }
    /// The same start with the other side to move, where the rules let either
    /// side begin: Go before its first stone when no handicap says who begins
    /// (players of an even game or a set-up may start with White; the record
    /// says so). None (the default) where the side to begin is fixed, and once
    /// a move is played.
    fn other_begins(&self) -> Option<Self> {
        None
    }
    /// A game set up with `occupant`'s pieces, this game's options and side to
    /// move, where a set-up is nothing but pieces placed (Go: the stones of a
    /// handicap or of a game taken up, as a record's AB/AW). None (the default)
    /// where a position needs more than what stands where (chess: castling
    /// rights, whose turn), or the pieces make no position.
    fn set_up(&self, _occupant: &dyn Fn(Square) -> Occupant) -> Option<Self> {
        None
    }
    /// The square a move puts a piece of the mover on that stays there for the
    /// few plies a search looks ahead (Go: the stone's point; it leaves only when
    /// taken, which a line between two views almost never does to a stone it
    /// just put down). A search skips such a move where the view reads that
    /// square surely as something else, so that a board of 361 points is not
    /// searched ply after ply through every point. None (the default) where a
    /// piece put down may move on at once (chess, draughts, Tablut).
    fn placed(&self, _mv: &Self::Move) -> Option<Square> {
        None
    }
    /// A text that sets up the current position for a new record (a FEN for
    /// chess and draughts, the text format for Tablut).
    fn position_text(&self) -> String {
        String::new()
    }
    /// Squares of the other side a line of a few plies may empty besides what
    /// that side's own moves empty (chess: en passant, once), for searches that
    /// bound how far a position is from a view. A ply otherwise fills one square
    /// of its mover's and empties one. The default assumes captures that take
    /// many pieces (draughts).
    fn ply_reach(&self) -> usize {
        32
    }
    /// Pairs of squares one ply of `side` may empty at once, filling two
    /// (castling: the king's square and a rook's, while the right remains). A
    /// search credits such a ply only where the view shows both emptied.
    fn two_piece_plies(&self, _side: Side) -> Vec<(Square, Square)> {
        Vec::new()
    }
    /// The squares holding white and black pieces as bit masks, square (file,
    /// rank) at bit `rank * files + file`, for searches that compare many
    /// positions with one view; None where the rules do not keep them so (the
    /// search then asks square by square).
    fn occupancy_masks(&self) -> Option<(u128, u128)> {
        None
    }
    /// A hash of the position: what stands where and whose turn it is, equal for
    /// equal positions, for searches that meet one position by many lines.
    fn position_hash(&self) -> u64 {
        picture_hash(self)
    }
    /// Preference among moves the camera cannot tell apart: lower is the usual choice
    /// (a queen over an under-promotion).
    fn tiebreak(&self, _mv: &Self::Move) -> u32 {
        0
    }
    /// Number of leaf move sequences of length `depth`. Finished games have no children.
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|m| {
                let mut next = self.clone();
                next.play_legal(m);
                next.perft(depth - 1)
            })
            .sum()
    }
}

/// A hash of what a picture of the position shows: each piece on its square,
/// and whose turn it is. Positions that differ only in rights (castling, en
/// passant) hash alike.
pub(crate) fn picture_hash<R: Rules>(g: &R) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let (files, ranks) = g.dims();
    for r in 0..ranks {
        for f in 0..files {
            let sq = Square::new(f, r);
            g.occupant(sq).hash(&mut h);
            g.piece_type(sq).hash(&mut h);
        }
    }
    g.side_to_move().hash(&mut h);
    h.finish()
}
