//! Board states of games, for rendering: a game position drawn as plain pieces on a
//! grid, with White at the bottom of the board's own frame.

use crate::infer::WhiteSide;
use crate::rules::{Occupant, PieceType, Rules};
use crate::synth::{BoardState, Piece, PieceKind, PieceSide};

/// The renderer's piece for a rules piece.
pub fn synth_piece(side: Occupant, kind: PieceType) -> Option<Piece> {
    let side = match side {
        Occupant::Empty => return None,
        Occupant::White => PieceSide::White,
        Occupant::Black => PieceSide::Black,
    };
    let kind = match kind {
        PieceType::Pawn => PieceKind::Pawn,
        PieceType::Knight => PieceKind::Knight,
        PieceType::Bishop => PieceKind::Bishop,
        PieceType::Rook => PieceKind::Rook,
        PieceType::Queen => PieceKind::Queen,
        PieceType::King => PieceKind::King,
        PieceType::Man => PieceKind::Man,
        PieceType::DraughtsKing => PieceKind::DraughtsKing,
        PieceType::Soldier => PieceKind::Soldier,
        PieceType::TablutKing => PieceKind::TablutKing,
        PieceType::Stone => PieceKind::Stone,
    };
    Some(Piece::new(side, kind))
}

/// The position of `game` as a board state, White at the `side` edge.
pub fn board_state<R: Rules>(game: &R, side: WhiteSide) -> BoardState {
    let (files, ranks) = game.dims();
    let (rows, cols) = side.grid_shape(files, ranks);
    let mut state = BoardState::empty(rows as usize, cols as usize, false);
    for sq in crate::infer::squares(files, ranks) {
        let (r, c) = side.site(sq, rows, cols);
        let piece = game
            .piece_type(sq)
            .and_then(|k| synth_piece(game.occupant(sq), k));
        state.set(r as usize, c as usize, piece);
    }
    state
}

/// The states of a game after each of `moves`, starting with the initial one.
pub fn game_states<R: Rules>(start: &R, moves: &[R::Move], side: WhiteSide) -> Vec<BoardState> {
    let mut g = start.clone();
    let mut out = vec![board_state(&g, side)];
    for m in moves {
        g.play_legal(m);
        out.push(board_state(&g, side));
    }
    out
}
