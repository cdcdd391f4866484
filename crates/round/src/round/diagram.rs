//! A position as spectators see it: White at the bottom, drawn as SVG, with the
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
    /// Squares whose occupant the last move changed.
    pub changed: Vec<bool>,
}

impl Diagram {
    /// The diagram of `game`; squares that differ from `before` are marked.
    pub fn of<R: Rules>(kind: GameKind, game: &R, before: Option<&R>) -> Diagram {
        let (files, ranks) = game.dims();
        let mut cells = Vec::new();
        let mut changed = Vec::new();
        for rank in 0..ranks {
            for file in 0..files {
                let sq = Square::new(file, rank);
                let piece = |g: &R| {
                    let side = match g.occupant(sq) {
                        Occupant::Empty => return None,
                        Occupant::White => Side::White,
                        Occupant::Black => Side::Black,
                    };
                    g.piece_type(sq).map(|t| (t, side))
                };
                let now = piece(game);
                changed.push(before.is_some_and(|b| piece(b) != now));
                cells.push(now);
            }
        }
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
                    let (cx, cy) = (x as f64 + 5.0, y as f64 + 5.0);
                    let colour = if side == Side::White { "w" } else { "b" };
                    s.push_str(&format!(
                        r#"<g class="piece {colour}" data-square="{}"><circle cx="{cx}" cy="{cy}" r="3.9"/>"#,
                        Square::new(file as u8, rank as u8).name()
                    ));
                    match t {
                        PieceType::Man | PieceType::Soldier | PieceType::Stone => {}
                        PieceType::DraughtsKing | PieceType::TablutKing => s.push_str(&format!(
                            r#"<circle class="crown" cx="{cx}" cy="{cy}" r="2.2"/>"#
                        )),
                        _ => s.push_str(&format!(
                            r#"<text x="{cx}" y="{}">{}</text>"#,
                            cy + 2.1,
                            letter(t)
                        )),
                    }
                    s.push_str("</g>");
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
    }
}
