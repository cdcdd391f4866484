//! A position as spectators see it: White at the bottom, drawn as SVG (each
//! piece a symbol of the page's piece set, `server/assets/pieces.svg`), with the
//! squares of the last move marked.

use crate::rules::{Occupant, PieceType, Rules, Side, Square};

use crate::game::GameKind;

/// What stands on every square of a position, for drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagram {
    /// The game, for the pieces' shapes.
    pub kind: GameKind,
    /// Files (columns) of the board.
    pub files: u8,
    /// Ranks (rows) of the board.
    pub ranks: u8,
    /// Rank-major from a1: `cells[rank * files + file]`.
    pub cells: Vec<Option<(PieceType, Side)>>,
    /// The last move's squares: where the moved piece stood and where it stands
    /// (a castling king's two, not its rook's; not a captured piece's).
    pub changed: Vec<bool>,
}

impl Diagram {
    /// The diagram of `game`; the squares of the move from `before` are marked.
    pub fn of<R: Rules>(kind: GameKind, game: &R, before: Option<&R>) -> Diagram {
        let (files, ranks) = game.dims();
        let piece = |g: &R, sq: Square| {
            let side = match g.occupant(sq) {
                Occupant::Empty => return None,
                Occupant::White => Side::White,
                Occupant::Black => Side::Black,
            };
            g.piece_type(sq).map(|t| (t, side))
        };
        let mut cells = Vec::new();
        let mut was = Vec::new();
        for rank in 0..ranks {
            for file in 0..files {
                let sq = Square::new(file, rank);
                cells.push(piece(game, sq));
                was.push(before.and_then(|b| piece(b, sq)));
            }
        }
        let changed = match before {
            Some(b) => move_squares(&cells, &was, b.side_to_move()),
            None => vec![false; cells.len()],
        };
        Diagram {
            kind,
            files,
            ranks,
            cells,
            changed,
        }
    }

    /// The placement as a FEN's first field: ranks from the top, `/` between
    /// them, digits for runs of empty squares. Chess uses FEN letters; draughts
    /// `m`/`k` (men, kings); Tablut `s`/`k`; upper case is White.
    pub fn placement(&self) -> String {
        let mut out = String::new();
        for rank in (0..self.ranks).rev() {
            let mut empty = 0;
            for file in 0..self.files {
                match self.cells[rank as usize * self.files as usize + file as usize] {
                    None => empty += 1,
                    Some((t, side)) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let c = letter(t).to_ascii_lowercase();
                        out.push(if side == Side::White {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        });
                    }
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out
    }

    /// The diagram as an SVG element, `px` wide.
    pub(crate) fn svg(&self, px: u32) -> String {
        if self.kind.points() {
            return super::goban::svg(self, px);
        }
        let (f, r) = (self.files as u32, self.ranks as u32);
        let cell = 10;
        let (w, h) = (f * cell, r * cell);
        let mut s = format!(
            r#"<svg class="diagram" xmlns="http://www.w3.org/2000/svg" viewBox="-3 0 {} {}" width="{px}" role="img" data-placement="{}" aria-label="{} diagram">"#,
            w + 3,
            h + 3,
            self.placement(),
            self.kind.name()
        );
        // The light colour under the whole board, the other squares as one
        // path, the squares the last change touched on top: the page sends this
        // to every viewer at every change, so it is kept small.
        s.push_str(&format!(
            r#"<rect class="sq light" width="{w}" height="{h}"/>"#
        ));
        let mut marked = String::new();
        let mut last = String::new();
        for rank in 0..r {
            for file in 0..f {
                let (x, y) = (file * cell, (r - 1 - rank) * cell);
                let i = (rank * f + file) as usize;
                if self.square_class(file, rank) != "sq light" {
                    marked.push_str(&format!("M{x} {y}h{cell}v{cell}h-{cell}z"));
                }
                if self.changed[i] {
                    last.push_str(&format!(
                        r#"<rect class="sq last" x="{x}" y="{y}" width="{cell}" height="{cell}"/>"#
                    ));
                }
            }
        }
        if !marked.is_empty() {
            let class = if self.kind.checkered() {
                "sq dark"
            } else {
                "sq special"
            };
            s.push_str(&format!(r#"<path class="{class}" d="{marked}"/>"#));
        }
        s.push_str(&last);
        for rank in 0..r {
            for file in 0..f {
                let (x, y) = (file * cell, (r - 1 - rank) * cell);
                let i = (rank * f + file) as usize;
                if let Some((t, side)) = self.cells[i] {
                    // A symbol of the page's set: the page sends this at every
                    // change, and each piece is drawn once, in the sprite.
                    let colour = if side == Side::White { "w" } else { "b" };
                    s.push_str(&format!(
                        r##"<use class="piece {colour}" data-square="{}" href="#{}" x="{x}" y="{y}" width="{cell}" height="{cell}"/>"##,
                        Square::new(file as u8, rank as u8).name(),
                        symbol(t, side),
                    ));
                }
            }
        }
        // Coordinates: files below, ranks on the left.
        for file in 0..f {
            s.push_str(&format!(
                r#"<text class="coord" x="{}" y="{}">{}</text>"#,
                file * cell + 5,
                h + 2,
                (b'a' + file as u8) as char
            ));
        }
        for rank in 0..r {
            s.push_str(&format!(
                r#"<text class="coord" x="-1.5" y="{}">{}</text>"#,
                (r - 1 - rank) * cell + 6,
                rank + 1
            ));
        }
        s.push_str("</svg>");
        s
    }

    fn square_class(&self, file: u32, rank: u32) -> &'static str {
        if !self.kind.checkered() {
            // Tablut: the corners and the throne are marked.
            let (f, r) = (self.files as u32 - 1, self.ranks as u32 - 1);
            let corner = (file == 0 || file == f) && (rank == 0 || rank == r);
            let throne = file == f / 2 && rank == r / 2;
            return if corner || throne {
                "sq special"
            } else {
                "sq light"
            };
        }
        // a1 is dark in chess and in draughts.
        if (file + rank).is_multiple_of(2) {
            "sq dark"
        } else {
            "sq light"
        }
    }
}

/// The squares of a move by `mover` that turned `was` into `now`: where its
/// pieces left and where they stand now, a castling king's only; a captured
/// piece's square is not one. Changes that read as no move are all marked.
fn move_squares(
    now: &[Option<(PieceType, Side)>],
    was: &[Option<(PieceType, Side)>],
    mover: Side,
) -> Vec<bool> {
    let mine = |c: &Option<(PieceType, Side)>| c.filter(|(_, s)| *s == mover);
    let mut from = Vec::new();
    let mut to = Vec::new();
    for (i, (n, w)) in now.iter().zip(was).enumerate() {
        if n == w {
            continue;
        }
        if let (Some((t, _)), None) = (mine(w), mine(n)) {
            from.push((i, t));
        }
        if let Some((t, _)) = mine(n) {
            to.push((i, t));
        }
    }
    // Castling moves two pieces: the king's squares say the move.
    let king = |t: &PieceType| *t == PieceType::King;
    if from.len() > 1 && from.iter().any(|(_, t)| king(t)) {
        from.retain(|(_, t)| king(t));
        to.retain(|(_, t)| king(t));
    }
    let mut marked = vec![false; now.len()];
    if from.is_empty() && to.is_empty() {
        for (i, m) in marked.iter_mut().enumerate() {
            *m = now[i] != was[i];
        }
    }
    for (i, _) in from.into_iter().chain(to) {
        marked[i] = true;
    }
    marked
}

/// The symbol of the page's piece set that draws `t` of `side` (`p-wK`).
fn symbol(t: PieceType, side: Side) -> String {
    let colour = if side == Side::White { 'w' } else { 'b' };
    let name = match t {
        PieceType::Man => 'M',
        PieceType::DraughtsKing => 'D',
        PieceType::Soldier => 'S',
        PieceType::TablutKing => 'T',
        PieceType::Stone => 'M',
        other => letter(other),
    };
    format!("p-{colour}{name}")
}

fn letter(t: PieceType) -> char {
    match t {
        PieceType::Pawn => 'P',
        PieceType::Knight => 'N',
        PieceType::Bishop => 'B',
        PieceType::Rook => 'R',
        PieceType::Queen => 'Q',
        PieceType::King => 'K',
        PieceType::Man => 'M',
        PieceType::DraughtsKing => 'K',
        PieceType::Soldier => 'S',
        PieceType::TablutKing => 'K',
        PieceType::Stone => 'O',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::chess::Chess;

    #[test]
    fn chess_placement_is_the_fen_field_and_the_last_move_is_marked() {
        let start = Chess::new();
        let mut g = start.clone();
        let m = g.parse_uci("e2e4").unwrap();
        g.play(&m).unwrap();
        let d = Diagram::of(GameKind::default(), &g, Some(&start));
        assert_eq!(d.placement(), g.fen().split(' ').next().unwrap());
        assert_eq!(d.changed.iter().filter(|c| **c).count(), 2);
        let svg = d.svg(200);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("class=\"piece").count(), 32);
        assert_eq!(svg.matches(" last\"").count(), 2);
        assert!(svg.contains(r##"data-square="e4" href="#p-wP""##), "{svg}");
        assert!(svg.contains(r##"data-square="e8" href="#p-bK""##), "{svg}");
    }

    /// The marked squares of `uci` played after `line`, by name.
    fn marked(line: &[&str], uci: &str) -> Vec<String> {
        let mut g = Chess::new();
        for u in line {
            let m = g.parse_uci(u).unwrap();
            g.play(&m).unwrap();
        }
        let before = g.clone();
        let m = g.parse_uci(uci).unwrap();
        g.play(&m).unwrap();
        let d = Diagram::of(GameKind::Chess, &g, Some(&before));
        (0..d.changed.len())
            .filter(|i| d.changed[*i])
            .map(|i| Square::new((i % 8) as u8, (i / 8) as u8).name())
            .collect()
    }

    #[test]
    fn the_last_move_is_marked_from_and_to_whatever_else_it_changed() {
        let open = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"];
        assert_eq!(marked(&open, "e1g1"), ["e1", "g1"], "castling: the king's");
        assert_eq!(marked(&open, "c4f7"), ["c4", "f7"], "a capture");
        let ep = ["e2e4", "a7a6", "e4e5", "d7d5"];
        assert_eq!(marked(&ep, "e5d6"), ["e5", "d6"], "en passant: not d5");
    }

    #[test]
    fn draughts_and_tablut_pieces_are_their_own() {
        use crate::rules::russian_draughts::{DraughtsOptions, RussianDraughts};
        use crate::rules::tablut::Tablut;
        let d = RussianDraughts::new(DraughtsOptions::default());
        let svg = Diagram::of(GameKind::RussianDraughts, &d, None).svg(200);
        assert_eq!(svg.matches(r##"href="#p-wM""##).count(), 12, "{svg}");
        assert_eq!(svg.matches(r##"href="#p-bM""##).count(), 12, "{svg}");
        let t = Tablut::new(Default::default());
        let svg = Diagram::of(GameKind::Tablut, &t, None).svg(200);
        assert_eq!(svg.matches(r##"href="#p-wT""##).count(), 1, "{svg}");
        assert_eq!(svg.matches(r##"href="#p-wS""##).count(), 8, "{svg}");
        assert_eq!(svg.matches(r##"href="#p-bS""##).count(), 16, "{svg}");
        // Every symbol a diagram draws is in the page's set.
        let set = include_str!("../server/assets/pieces.svg");
        for id in [
            "wK", "wQ", "wR", "wB", "wN", "wP", "bK", "bQ", "bR", "bB", "bN", "bP", "wM", "bM",
            "wD", "bD", "wS", "bS", "wT", "bT",
        ] {
            assert!(set.contains(&format!(r#"<symbol id="p-{id}""#)), "{id}");
        }
    }
}
