//! Where White sits relative to the grid: maps game squares to grid sites.

use std::str::FromStr;

use crate::rules::Square;

/// The edge of the corner quadrilateral on White's side. `Bottom` is the BL→BR edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhiteSide {
    /// The BL→BR edge: White sits at the bottom of the picture.
    Bottom,
    /// The TL→TR edge.
    Top,
    /// The TL→BL edge.
    Left,
    /// The TR→BR edge.
    Right,
}

impl WhiteSide {
    pub(crate) const ALL: [WhiteSide; 4] = [
        WhiteSide::Bottom,
        WhiteSide::Top,
        WhiteSide::Left,
        WhiteSide::Right,
    ];

    /// The grid site (row, col) of a game square, for a grid of `rows` x `cols` sites
    /// (row 0 along TL→TR, column 0 along TL→BL). White sits at the named edge and
    /// the a-file is at White's left hand.
    pub fn site(self, sq: Square, rows: u32, cols: u32) -> (u32, u32) {
        let (f, r) = (sq.file as u32, sq.rank as u32);
        match self {
            WhiteSide::Bottom => (rows - 1 - r, f),
            WhiteSide::Top => (r, cols - 1 - f),
            WhiteSide::Left => (f, r),
            WhiteSide::Right => (rows - 1 - f, cols - 1 - r),
        }
    }

    /// The game square at a grid site (the inverse of `site`), for a game of
    /// `files` x `ranks`.
    pub fn square(self, row: u32, col: u32, files: u8, ranks: u8) -> Square {
        let (files, ranks) = (files as u32, ranks as u32);
        let (f, r) = match self {
            WhiteSide::Bottom => (col, ranks - 1 - row),
            WhiteSide::Top => (files - 1 - col, row),
            WhiteSide::Left => (row, col),
            WhiteSide::Right => (files - 1 - row, ranks - 1 - col),
        };
        Square::new(f as u8, r as u8)
    }

    /// The grid shape (rows, cols) a game of `files` x `ranks` needs in this orientation.
    pub fn grid_shape(self, files: u8, ranks: u8) -> (u32, u32) {
        match self {
            WhiteSide::Bottom | WhiteSide::Top => (ranks as u32, files as u32),
            WhiteSide::Left | WhiteSide::Right => (files as u32, ranks as u32),
        }
    }
}

/// Text that names no edge of the picture.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a side: use bottom, top, left, right or auto")]
pub struct NotASide(String);

impl FromStr for WhiteSide {
    type Err = NotASide;

    fn from_str(s: &str) -> Result<WhiteSide, NotASide> {
        match s {
            "bottom" => Ok(WhiteSide::Bottom),
            "top" => Ok(WhiteSide::Top),
            "left" => Ok(WhiteSide::Left),
            "right" => Ok(WhiteSide::Right),
            _ => Err(NotASide(s.to_string())),
        }
    }
}

impl std::fmt::Display for WhiteSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WhiteSide::Bottom => "bottom",
            WhiteSide::Top => "top",
            WhiteSide::Left => "left",
            WhiteSide::Right => "right",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_and_square_are_inverse_and_a1_is_at_whites_left() {
        for side in WhiteSide::ALL {
            let (rows, cols) = side.grid_shape(9, 9);
            for f in 0..9 {
                for r in 0..9 {
                    let sq = Square::new(f, r);
                    let (row, col) = side.site(sq, rows, cols);
                    assert_eq!(side.square(row, col, 9, 9), sq, "{side}");
                }
            }
        }
        // White at the bottom: a1 bottom-left, h8 top-right.
        assert_eq!(WhiteSide::Bottom.site(Square::new(0, 0), 8, 8), (7, 0));
        assert_eq!(WhiteSide::Bottom.site(Square::new(7, 7), 8, 8), (0, 7));
        // White at the top: a1 top-right (White's left hand as they face down the image).
        assert_eq!(WhiteSide::Top.site(Square::new(0, 0), 8, 8), (0, 7));
        // White on the left: a1 at the top-left, the a-file along the top... of column 0.
        assert_eq!(WhiteSide::Left.site(Square::new(0, 0), 8, 8), (0, 0));
        assert_eq!(WhiteSide::Left.site(Square::new(7, 0), 8, 8), (7, 0));
        // White on the right: a1 bottom-right.
        assert_eq!(WhiteSide::Right.site(Square::new(0, 0), 8, 8), (7, 7));
    }
}
