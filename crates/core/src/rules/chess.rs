//! Orthodox chess (FIDE rules) on top of `shakmaty`, which does the move
//! generation. This wrapper adds what shakmaty leaves to the caller: the position
//! history for repetitions, and the FIDE split between draws the arbiter imposes
//! (fivefold repetition, seventy-five moves, dead position) and draws a player
//! may only claim (threefold repetition, fifty moves).

use crate::rules::{
    FenError, IllegalMove, MoveError, MoveErrorKind, Occupant, Outcome, PieceType, ReplayError,
    Rules, Side, Square,
};
use shakmaty::fen::{Fen, ParseFenError};
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::{Zobrist64, ZobristHash};
use shakmaty::{CastlingMode, Color, EnPassantMode, File, FromSetup, Move, Position, Rank, Role};

/// A chess game: the current position plus the positions that can still repeat.
#[derive(Clone, Debug)]
pub struct Chess {
    pos: shakmaty::Chess,
    /// Hashes of the positions since the last capture or pawn move, current last.
    /// Older positions can never recur, so they are dropped. `Legal` en passant
    /// mode makes two positions equal exactly when FIDE 9.2.3 says they are.
    history: Vec<u64>,
}

impl Default for Chess {
    fn default() -> Self {
        Chess::new()
    }
}

fn hash(pos: &shakmaty::Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

fn side_of(color: Color) -> Side {
    match color {
        Color::White => Side::White,
        Color::Black => Side::Black,
    }
}

/// The field of a FEN that shakmaty refused, as a slice of it (for its column).
fn fen_field<'a>(fen: &'a str, e: &ParseFenError) -> &'a str {
    let index = match e {
        ParseFenError::InvalidFen | ParseFenError::InvalidBoard | ParseFenError::InvalidPocket => 0,
        ParseFenError::InvalidTurn => 1,
        ParseFenError::InvalidCastling => 2,
        ParseFenError::InvalidEpSquare => 3,
        ParseFenError::InvalidRemainingChecks => 4,
        ParseFenError::InvalidHalfmoveClock => 4,
        ParseFenError::InvalidFullmoves => 5,
    };
    fen.split_whitespace().nth(index).unwrap_or(fen)
}

/// The most a FEN's half-move clock can say: the seventy-five-move rule ends a
/// game when it reaches 150 (unless that move mates), so no game goes on past it.
pub(crate) const MAX_HALFMOVE_CLOCK: u32 = 150;

/// Refuses move counters the parser would take but no game can reach: a half-move
/// clock over [`MAX_HALFMOVE_CLOCK`] (the game would be over before it started)
/// and counters too large for a number (the parser saturates them, silently).
fn check_counters(fen: &str, trimmed: &str) -> Result<(), FenError> {
    let fields: Vec<&str> = trimmed.split_whitespace().collect();
    let (halfmoves, fullmoves) = (fields.get(4), fields.get(5));
    if let Some(h) = halfmoves {
        let value = h.parse::<u64>().ok();
        if value.is_none_or(|v| v > u64::from(MAX_HALFMOVE_CLOCK)) {
            return Err(FenError::at(
                fen,
                h,
                format!(
                    "half-move clock {h} in FEN \"{trimmed}\" is not a count from 0 to {MAX_HALFMOVE_CLOCK}: the seventy-five-move rule ends a game at {MAX_HALFMOVE_CLOCK} half-moves without a capture or a pawn move"
                ),
            ));
        }
    }
    if let Some(f) = fullmoves {
        if f.parse::<u32>().is_err() {
            return Err(FenError::at(
                fen,
                f,
                format!(
                    "move number {f} in FEN \"{trimmed}\" is not a number from 1 to {}",
                    u32::MAX
                ),
            ));
        }
    }
    Ok(())
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

impl Chess {
    /// The standard starting position.
    pub fn new() -> Chess {
        Chess::from_position(shakmaty::Chess::default())
    }

    /// A game starting from a set-up position. Repetitions count from here on,
    /// since the FEN says nothing of earlier positions.
    pub(crate) fn from_position(pos: shakmaty::Chess) -> Chess {
        let history = vec![hash(&pos)];
        Chess { pos, history }
    }

    /// Parses a FEN and checks that the position is legal. The error's column is
    /// where the field at fault starts (the placement for an impossible position).
    pub fn from_fen(fen: &str) -> Result<Chess, FenError> {
        let trimmed = fen.trim();
        let parsed = Fen::from_ascii(trimmed.as_bytes()).map_err(|e| {
            FenError::at(
                fen,
                fen_field(trimmed, &e),
                format!("malformed FEN \"{trimmed}\": {e}"),
            )
        })?;
        check_counters(fen, trimmed)?;
        let pos: shakmaty::Chess = parsed.into_position(CastlingMode::Standard).map_err(|e| {
            FenError::at(
                fen,
                trimmed,
                format!("impossible position in FEN \"{trimmed}\": {e}"),
            )
        })?;
        Ok(Chess::from_position(pos))
    }

    /// Replays UCI moves from `start_fen` (or the initial position). Used to
    /// rebuild a game after an earlier move (usually a promotion) was corrected.
    pub(crate) fn replay(start_fen: Option<&str>, ucis: &[String]) -> Result<Chess, ReplayError> {
        let mut game = match start_fen {
            Some(fen) => Chess::from_fen(fen)?,
            None => Chess::new(),
        };
        for uci in ucis {
            game.play_uci(uci)?;
        }
        Ok(game)
    }

    /// The current position in FEN.
    pub fn fen(&self) -> String {
        Fen::from_position(&self.pos, EnPassantMode::Legal).to_string()
    }

    #[cfg(test)]
    pub(crate) fn position(&self) -> &shakmaty::Chess {
        &self.pos
    }

    /// Full-move number as in the FEN: 1 at the start, increased after Black moves.
    pub(crate) fn fullmove_number(&self) -> u32 {
        self.pos.fullmoves().get()
    }

    /// How many times the current position has occurred (1 = first time).
    pub(crate) fn repetition_count(&self) -> usize {
        match self.history.last() {
            Some(cur) => self.history.iter().filter(|h| *h == cur).count(),
            None => 1,
        }
    }

    /// A draw a player could claim now (FIDE 9.2 / 9.3) but the rules do not
    /// impose. None once the game is over.
    pub(crate) fn claimable_draw(&self) -> Option<String> {
        if self.outcome().is_some() {
            return None;
        }
        if self.repetition_count() >= 3 {
            Some("threefold repetition".to_string())
        } else if self.pos.halfmoves() >= 100 {
            Some("fifty-move rule".to_string())
        } else {
            None
        }
    }

    /// Moves that differ only in the promotion piece leave the same occupancy,
    /// so move inference must pick the piece by other means.
    #[cfg(test)]
    pub(crate) fn is_promotion(mv: &Move) -> bool {
        mv.is_promotion()
    }

    /// The same promotion move with another piece; None if `mv` is no promotion
    /// or `role` is not a piece a pawn may become.
    pub(crate) fn with_promotion(mv: &Move, role: Role) -> Option<Move> {
        if matches!(role, Role::Pawn | Role::King) {
            return None;
        }
        match *mv {
            Move::Normal {
                role: Role::Pawn,
                from,
                capture,
                to,
                promotion: Some(_),
            } => Some(Move::Normal {
                role: Role::Pawn,
                from,
                capture,
                to,
                promotion: Some(role),
            }),
            _ => None,
        }
    }

    /// Finds the legal move for a UCI string (castling as `e1g1`).
    pub fn parse_uci(&self, uci: &str) -> Result<Move, MoveError> {
        let side = color_name(self.pos.turn());
        let parsed: UciMove = uci.trim().parse().map_err(|_| {
            MoveError::new(
                MoveErrorKind::Malformed,
                uci,
                format!("malformed UCI move \"{uci}\""),
            )
        })?;
        parsed.to_move(&self.pos).map_err(|_| {
            MoveError::new(
                MoveErrorKind::Illegal,
                uci,
                format!(
                    "illegal move \"{uci}\" for {side} in position \"{}\"",
                    self.fen()
                ),
            )
        })
    }

    /// Finds the legal move for a SAN string; check marks and `!?` are ignored.
    pub(crate) fn parse_san(&self, san: &str) -> Result<Move, MoveError> {
        let side = color_name(self.pos.turn());
        let cleaned = san.trim().trim_end_matches(['!', '?']);
        let cleaned = match cleaned {
            "0-0" | "0-0+" | "0-0#" => cleaned.replace('0', "O"),
            "0-0-0" | "0-0-0+" | "0-0-0#" => cleaned.replace('0', "O"),
            _ => cleaned.to_string(),
        };
        let parsed = SanPlus::from_ascii(cleaned.as_bytes()).map_err(|_| {
            MoveError::new(
                MoveErrorKind::Malformed,
                san,
                format!("malformed SAN move \"{san}\""),
            )
        })?;
        parsed.san.to_move(&self.pos).map_err(|e| {
            let kind = match e {
                shakmaty::san::SanError::AmbiguousSan => MoveErrorKind::Ambiguous,
                shakmaty::san::SanError::IllegalSan => MoveErrorKind::Illegal,
            };
            MoveError::new(
                kind,
                san,
                format!("{e} \"{san}\" for {side} in position \"{}\"", self.fen()),
            )
        })
    }

    /// Plays the legal move given in UCI notation (`e2e4`, `e7e8q`).
    pub fn play_uci(&mut self, uci: &str) -> Result<Move, MoveError> {
        let mv = self.parse_uci(uci)?;
        self.advance(&mv);
        Ok(mv)
    }

    /// Plays a move known to be legal here.
    fn advance(&mut self, mv: &Move) {
        self.pos.play_unchecked(*mv);
        if self.pos.halfmoves() == 0 {
            self.history.clear();
        }
        self.history.push(hash(&self.pos));
    }

    /// Draws FIDE imposes without a claim, checked once mate and stalemate are ruled out.
    fn automatic_draw(&self) -> Option<&'static str> {
        if self.pos.is_insufficient_material() {
            Some("insufficient material")
        } else if self.repetition_count() >= 5 {
            Some("fivefold repetition")
        } else if self.pos.halfmoves() >= 150 {
            Some("seventy-five-move rule")
        } else {
            None
        }
    }
}

impl Rules for Chess {
    type Move = Move;

    fn dims(&self) -> (u8, u8) {
        (8, 8)
    }

    fn side_to_move(&self) -> Side {
        side_of(self.pos.turn())
    }

    fn piece_type(&self, sq: Square) -> Option<PieceType> {
        if sq.file >= 8 || sq.rank >= 8 {
            return None;
        }
        let s = shakmaty::Square::from_coords(File::new(sq.file as u32), Rank::new(sq.rank as u32));
        self.pos.board().role_at(s).map(|r| match r {
            Role::Pawn => PieceType::Pawn,
            Role::Knight => PieceType::Knight,
            Role::Bishop => PieceType::Bishop,
            Role::Rook => PieceType::Rook,
            Role::Queen => PieceType::Queen,
            Role::King => PieceType::King,
        })
    }

    fn occupant(&self, sq: Square) -> Occupant {
        if sq.file >= 8 || sq.rank >= 8 {
            return Occupant::Empty;
        }
        let s = shakmaty::Square::from_coords(File::new(sq.file as u32), Rank::new(sq.rank as u32));
        match self.pos.board().color_at(s) {
            None => Occupant::Empty,
            Some(Color::White) => Occupant::White,
            Some(Color::Black) => Occupant::Black,
        }
    }

    fn legal_moves(&self) -> Vec<Move> {
        let moves = self.pos.legal_moves();
        if moves.is_empty() || self.automatic_draw().is_some() {
            return Vec::new();
        }
        moves.to_vec()
    }

    /// Plays a move if it is legal in the position (even after an automatic
    /// draw, so recorded games that went on can still be read).
    fn play(&mut self, mv: &Move) -> Result<(), IllegalMove> {
        if !self.pos.is_legal(*mv) {
            return Err(IllegalMove {
                mv: UciMove::from_standard(*mv).to_string(),
                position: self.fen(),
            });
        }
        self.advance(mv);
        Ok(())
    }

    /// The check is as cheap as shakmaty's own, so it stays: an illegal move
    /// would corrupt the position.
    fn play_legal(&mut self, mv: &Move) {
        if let Err(e) = self.play(mv) {
            panic!("a move from legal_moves was refused: {e}");
        }
    }

    fn notation(&self, mv: &Move) -> String {
        if self.pos.is_legal(*mv) {
            SanPlus::from_move(self.pos.clone(), *mv).to_string()
        } else {
            San::from_move(&self.pos, *mv).to_string()
        }
    }

    fn move_id(&self, mv: &Move) -> String {
        UciMove::from_standard(*mv).to_string()
    }

    fn displaced(&self, from: Square, to: Square) -> Option<Chess> {
        let sq = |s: Square| {
            (s.file < 8 && s.rank < 8).then(|| {
                shakmaty::Square::from_coords(File::new(s.file as u32), Rank::new(s.rank as u32))
            })
        };
        let (from, to) = (sq(from)?, sq(to)?);
        if from == to {
            return None;
        }
        let mut setup = self.pos.to_setup(EnPassantMode::Legal);
        let piece = setup.board.remove_piece_at(from)?;
        let took = setup.board.piece_at(to).is_some();
        setup.board.set_piece_at(to, piece);
        // A king or rook that moved, or a rook taken, ends those castling rights.
        let mut rights = setup.castling_rights;
        rights.discard(from);
        rights.discard(to);
        if piece.role == Role::King {
            rights &= !shakmaty::Bitboard::from(piece.color.backrank());
        }
        setup.castling_rights = rights;
        setup.ep_square = None;
        setup.halfmoves = if took || piece.role == Role::Pawn {
            0
        } else {
            setup.halfmoves + 1
        };
        if setup.turn == Color::Black {
            setup.fullmoves = setup.fullmoves.saturating_add(1);
        }
        setup.turn = !setup.turn;
        let pos = match shakmaty::Chess::from_setup(setup, CastlingMode::Standard) {
            Ok(pos) => pos,
            Err(e) => e.ignore_invalid_castling_rights().ok()?,
        };
        Some(Chess::from_position(pos))
    }

    fn position_text(&self) -> String {
        self.fen()
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.pos.legal_moves().is_empty() {
            return Some(if self.pos.is_check() {
                Outcome::Win {
                    winner: side_of(self.pos.turn().other()),
                    reason: "checkmate".to_string(),
                }
            } else {
                Outcome::Draw {
                    reason: "stalemate".to_string(),
                }
            });
        }
        self.automatic_draw().map(|r| Outcome::Draw {
            reason: r.to_string(),
        })
    }

    /// shakmaty's perft, far faster than cloning the history at every node. It
    /// stops only at mate and stalemate below the root, like the published
    /// counts; the automatic draws are honoured at the root only.
    fn alternatives(&self, mv: &Move) -> Vec<Move> {
        if !mv.is_promotion() {
            return Vec::new();
        }
        [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
            .into_iter()
            .filter(|r| mv.promotion() != Some(*r))
            .filter_map(|r| Chess::with_promotion(mv, r))
            .collect()
    }

    /// En passant empties a square of the other side (counted once: two in a
    /// few plies are not met).
    fn ply_reach(&self) -> usize {
        1
    }

    fn two_piece_plies(&self, side: Side) -> Vec<(Square, Square)> {
        let color = match side {
            Side::White => Color::White,
            Side::Black => Color::Black,
        };
        let Some(king) = self.pos.board().king_of(color) else {
            return Vec::new();
        };
        let ours = |s: shakmaty::Square| Square::new(s.file() as u8, s.rank() as u8);
        self.pos
            .castles()
            .castling_rights()
            .intersect(shakmaty::Bitboard::from(color.backrank()))
            .into_iter()
            .map(|rook| (ours(king), ours(rook)))
            .collect()
    }

    fn occupancy_masks(&self) -> Option<(u128, u128)> {
        let board = self.pos.board();
        Some((
            u128::from(u64::from(board.white())),
            u128::from(u64::from(board.black())),
        ))
    }

    fn position_hash(&self) -> u64 {
        hash(&self.pos)
    }

    fn tiebreak(&self, mv: &Move) -> u32 {
        u32::from(mv.promotion().is_some_and(|r| r != Role::Queen))
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.outcome().is_some() {
            return 0;
        }
        shakmaty::perft(&self.pos, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PERFT_FIXTURE: &str = include_str!("../../../../tests/data/perft/chess.txt");

    fn play_ucis(game: &mut Chess, ucis: &[&str]) {
        for u in ucis {
            game.play_uci(u).unwrap();
        }
    }

    #[test]
    fn perft_fixture_matches_published_counts() {
        let mut lines = 0;
        for line in PERFT_FIXTURE.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let parts: Vec<&str> = line.split(';').map(str::trim).collect();
            assert_eq!(parts.len(), 3, "bad fixture line {line}");
            let game = Chess::from_fen(parts[0]).unwrap();
            let depth: u32 = parts[1].parse().unwrap();
            let count: u64 = parts[2].parse().unwrap();
            assert_eq!(game.perft(depth), count, "{line}");
            lines += 1;
        }
        assert!(lines >= 20);
    }

    #[test]
    fn generic_perft_agrees_with_fast_one() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        ] {
            let game = Chess::from_fen(fen).unwrap();
            for depth in 1..=3 {
                let generic = generic_perft(&game, depth);
                assert_eq!(generic, game.perft(depth), "{fen} depth {depth}");
            }
        }
    }

    fn generic_perft(game: &Chess, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        game.legal_moves()
            .iter()
            .map(|m| {
                let mut next = game.clone();
                next.play(m).unwrap();
                generic_perft(&next, depth - 1)
            })
            .sum()
    }

    #[test]
    fn occupancy_and_side() {
        let game = Chess::new();
        assert_eq!(game.dims(), (8, 8));
        assert_eq!(game.occupant(Square::parse("e2").unwrap()), Occupant::White);
        assert_eq!(game.occupant(Square::parse("d8").unwrap()), Occupant::Black);
        assert_eq!(game.occupant(Square::parse("e4").unwrap()), Occupant::Empty);
        assert_eq!(game.occupant(Square::new(9, 0)), Occupant::Empty);
        assert_eq!(game.side_to_move(), Side::White);
        assert_eq!(game.legal_moves().len(), 20);
    }

    #[test]
    fn notation_and_ids() {
        let mut game = Chess::new();
        play_ucis(&mut game, &["f2f3", "e7e5", "g2g4"]);
        let mate = game.parse_uci("d8h4").unwrap();
        assert_eq!(game.notation(&mate), "Qh4#");
        assert_eq!(game.move_id(&mate), "d8h4");
        game.play(&mate).unwrap();
        assert_eq!(
            game.outcome(),
            Some(Outcome::Win {
                winner: Side::Black,
                reason: "checkmate".into()
            })
        );
        assert!(game.legal_moves().is_empty());
        assert_eq!(game.outcome().unwrap().result_token(), "0-1");

        let game = Chess::from_fen("r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1").unwrap();
        let castle = game.parse_san("O-O").unwrap();
        assert_eq!(game.move_id(&castle), "e1g1");
        assert_eq!(game.notation(&castle), "O-O");
        assert_eq!(game.parse_uci("e1g1").unwrap(), castle);
        assert_eq!(game.parse_san("0-0").unwrap(), castle);
    }

    #[test]
    fn promotion_helpers() {
        let game = Chess::from_fen("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        let q = game.parse_uci("e7e8q").unwrap();
        assert!(Chess::is_promotion(&q));
        let n = Chess::with_promotion(&q, Role::Knight).unwrap();
        assert_eq!(game.move_id(&n), "e7e8n");
        assert_eq!(game.notation(&n), "e8=N+");
        assert_eq!(game.notation(&q), "e8=Q");
        assert!(Chess::with_promotion(&q, Role::King).is_none());
        let k = game.parse_uci("e1d2").unwrap();
        assert!(!Chess::is_promotion(&k));
        assert!(Chess::with_promotion(&k, Role::Queen).is_none());
        // All four promotions leave the same occupancy.
        let occ = |m: &Move| {
            let mut g = game.clone();
            g.play(m).unwrap();
            (0..64)
                .map(|i| g.occupant(Square::new(i % 8, i / 8)))
                .collect::<Vec<_>>()
        };
        assert_eq!(occ(&q), occ(&n));
    }

    #[test]
    fn replay_after_correction() {
        let start = "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1";
        let moves: Vec<String> = ["e7e8n", "g7f7"].iter().map(|s| s.to_string()).collect();
        let game = Chess::replay(Some(start), &moves).unwrap();
        assert_eq!(game.fen(), "4N3/5k2/8/8/8/8/8/4K3 w - - 1 2");
        let bad: Vec<String> = vec!["e7e8n".into(), "e8d6".into()];
        let err = Chess::replay(Some(start), &bad).unwrap_err().to_string();
        assert!(err.contains("e8d6"), "{err}");
    }

    #[test]
    fn fen_errors_quote_the_fen() {
        let err = Chess::from_fen("not a fen").unwrap_err().to_string();
        assert!(err.contains("\"not a fen\""), "{err}");
        // Both kings missing is well-formed but illegal.
        let err = Chess::from_fen("8/8/8/8/8/8/8/8 w - - 0 1")
            .unwrap_err()
            .to_string();
        assert!(err.contains("8/8/8/8/8/8/8/8 w - - 0 1"), "{err}");
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(Chess::from_fen(fen).unwrap().side_to_move(), Side::Black);
    }

    #[test]
    fn repetition_claims_and_fivefold() {
        let mut game = Chess::new();
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        play_ucis(&mut game, &shuffle);
        assert_eq!(game.repetition_count(), 2);
        assert_eq!(game.claimable_draw(), None);
        play_ucis(&mut game, &shuffle);
        assert_eq!(
            game.claimable_draw().as_deref(),
            Some("threefold repetition")
        );
        assert_eq!(game.outcome(), None);
        play_ucis(&mut game, &shuffle);
        play_ucis(&mut game, &shuffle);
        assert_eq!(game.repetition_count(), 5);
        assert_eq!(
            game.outcome(),
            Some(Outcome::Draw {
                reason: "fivefold repetition".into()
            })
        );
        assert!(game.legal_moves().is_empty());
        assert_eq!(game.claimable_draw(), None);
        assert_eq!(game.perft(1), 0);
    }

    #[test]
    fn move_count_rules() {
        let game = Chess::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 100 80").unwrap();
        assert_eq!(game.claimable_draw().as_deref(), Some("fifty-move rule"));
        assert_eq!(game.outcome(), None);
        let game = Chess::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 150 80").unwrap();
        assert_eq!(
            game.outcome(),
            Some(Outcome::Draw {
                reason: "seventy-five-move rule".into()
            })
        );
        // Mate on the 150th half-move still counts as mate.
        let mut game = Chess::from_fen("4k3/R7/4K3/8/8/8/8/8 w - - 149 80").unwrap();
        game.play_uci("a7a8").unwrap();
        assert!(matches!(game.outcome(), Some(Outcome::Win { .. })));
    }

    #[test]
    fn move_counters_no_game_reaches_are_refused() {
        for (fen, field) in [
            ("4k3/8/8/8/8/8/8/R3K3 w - - 99999999999 80", "99999999999"),
            ("4k3/8/8/8/8/8/8/R3K3 w - - 151 80", "151"),
            ("4k3/8/8/8/8/8/8/R3K3 w - - 4294967295 80", "4294967295"),
            ("4k3/8/8/8/8/8/8/R3K3 w - - 0 99999999999", "99999999999"),
        ] {
            let e = Chess::from_fen(fen).unwrap_err();
            assert!(e.why.contains(field), "{fen}: {e}");
            assert_eq!(e.column, fen.rfind(field).unwrap() + 1, "{fen}: {e}");
        }
        let e = Chess::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 151 80").unwrap_err();
        assert!(e.why.contains("0 to 150"), "{e}");
        // The game does not end at once: the clock was refused, not saturated.
        for fen in [
            "4k3/8/8/8/8/8/8/R3K3 w - - 150 80",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/R3K3 w - -",
        ] {
            assert!(Chess::from_fen(fen).is_ok(), "{fen}");
        }
    }

    #[test]
    fn stalemate_and_dead_positions() {
        let game = Chess::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(
            game.outcome(),
            Some(Outcome::Draw {
                reason: "stalemate".into()
            })
        );
        let game = Chess::from_fen("8/8/4k3/8/8/3NK3/8/8 w - - 0 1").unwrap();
        assert_eq!(
            game.outcome(),
            Some(Outcome::Draw {
                reason: "insufficient material".into()
            })
        );
        assert!(game.legal_moves().is_empty());
    }

    #[test]
    fn en_passant_only_counts_when_legal_for_repetition() {
        // After 1. e4 no black pawn can take en passant, so the position equals
        // one reached later without the double step (FIDE 9.2.3).
        let a = Chess::from_fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1").unwrap();
        let b = Chess::from_fen("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1").unwrap();
        assert_eq!(hash(a.position()), hash(b.position()));
        let c = Chess::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").unwrap();
        let d = Chess::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1").unwrap();
        assert_ne!(hash(c.position()), hash(d.position()));
    }
}
