//! A FEN-style placement read as the classes a camera sees at each grid site.

use crate::infer::WhiteSide;
use crate::rules::Square;

/// Why a placement cannot be read as the classes of a grid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlacementError {
    /// A character that is neither a piece letter nor a digit.
    #[error("'{0}' is not a piece letter or a digit")]
    NotAPiece(char),
    /// Digits that are not a count of empty squares (1 to 26).
    #[error("'{0}' is not a count of empty squares")]
    BadCount(String),
    /// Two ranks of different lengths.
    #[error("ranks have different lengths ({0} and {1})")]
    RaggedRanks(usize, usize),
    /// A placement of another size than the grid.
    #[error("the placement is {files} files by {ranks} ranks; the grid is {rows}x{cols}")]
    OtherSize {
        /// Files of the placement.
        files: usize,
        /// Ranks of the placement.
        ranks: usize,
        /// Rows of the grid.
        rows: u32,
        /// Columns of the grid.
        cols: u32,
    },
}

/// Classes (0 empty, 1 white, 2 black) per grid site, row-major, from a FEN-style
/// placement seen from White's side `side`.
pub fn placement_classes(
    fen: &str,
    side: WhiteSide,
    rows: u32,
    cols: u32,
) -> Result<Vec<usize>, PlacementError> {
    let placement = fen.split_whitespace().next().unwrap_or("");
    let ranks: Vec<&str> = placement.split(['/', ':']).collect();
    let nranks = ranks.len();
    let mut files = 0usize;
    let mut cells: Vec<Vec<usize>> = Vec::new();
    for rank in &ranks {
        let mut row = Vec::new();
        let mut digits = String::new();
        for ch in rank.chars() {
            if ch.is_ascii_digit() {
                digits.push(ch);
                continue;
            }
            if !digits.is_empty() {
                row.extend(std::iter::repeat_n(0, count(&digits)?));
                digits.clear();
            }
            row.push(if ch.is_ascii_uppercase() {
                1
            } else if ch.is_ascii_lowercase() {
                2
            } else {
                return Err(PlacementError::NotAPiece(ch));
            });
        }
        if !digits.is_empty() {
            row.extend(std::iter::repeat_n(0, count(&digits)?));
        }
        if files != 0 && row.len() != files {
            return Err(PlacementError::RaggedRanks(files, row.len()));
        }
        files = row.len();
        cells.push(row);
    }
    let (need_rows, need_cols) = side.grid_shape(files as u8, nranks as u8);
    if (need_rows, need_cols) != (rows, cols) {
        return Err(PlacementError::OtherSize {
            files,
            ranks: nranks,
            rows,
            cols,
        });
    }
    let mut out = vec![0; (rows * cols) as usize];
    for (i, row) in cells.iter().enumerate() {
        let rank = (nranks - 1 - i) as u8;
        for (f, class) in row.iter().enumerate() {
            let (r, c) = side.site(Square::new(f as u8, rank), rows, cols);
            out[(r * cols + c) as usize] = *class;
        }
    }
    Ok(out)
}

/// A run of empty squares in a placement.
fn count(digits: &str) -> Result<usize, PlacementError> {
    digits
        .parse::<usize>()
        .ok()
        .filter(|&n| n <= 26)
        .ok_or_else(|| PlacementError::BadCount(digits.to_string()))
}
