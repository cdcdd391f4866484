//! Go's position text: one line that sets up a board (`--position`, a new game
//! after an irregularity).
//!
//! `BOARD SIDE`: BOARD lists the rows from the top (row N) down to row 1,
//! separated by `/`; each row lists its points from column A with `X` for a
//! black stone, `O` for a white one and a number (one or two digits) for that
//! many empty points. SIDE is `b` (Black to move) or `w`. The number of rows
//! gives the size: `9/9/9/9/4X4/9/9/9/9 w` is 9x9 with a black stone on E5.

use super::board::{Board, BLACK, EMPTY, MAX_SIZE, WHITE};
use super::coords::point_name;
use crate::rules::{FenError, Side, Square};

/// The board and side to move a text sets up; groups without a liberty refused.
pub(crate) fn parse(text: &str) -> Result<(Board, Side), FenError> {
    let at = |part: &str, why: String| FenError::at(text, part, why);
    let shown = text.trim();
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [rows_text, side_text] = fields[..] else {
        return Err(at(
            text.trim_start(),
            format!(
                "position `{shown}`: expected `BOARD SIDE` (two fields), found {} field(s)",
                fields.len()
            ),
        ));
    };
    let side = match side_text {
        "b" => Side::Black,
        "w" => Side::White,
        other => {
            return Err(at(
                other,
                format!("position `{shown}`: side to move `{other}` must be `b` or `w`"),
            ))
        }
    };
    let rows: Vec<&str> = rows_text.split('/').collect();
    let size = rows.len();
    if !(2..=usize::from(MAX_SIZE)).contains(&size) {
        return Err(at(
            rows_text,
            format!("position `{shown}`: {size} row(s); a Go board has 2 to {MAX_SIZE}"),
        ));
    }
    let size = size as u8;
    let mut board = Board::empty(size);
    for (k, row) in rows.iter().enumerate() {
        let rank = size - 1 - k as u8;
        let mut file = 0usize;
        let mut run = 0usize;
        let row_name = u32::from(rank) + 1;
        let wide = |here: &str| {
            at(
                here,
                format!("position `{shown}`: row {row_name} (`{row}`) has more than {size} points"),
            )
        };
        for (j, c) in row.char_indices() {
            let here = &row[j..];
            if let Some(d) = c.to_digit(10) {
                run = run * 10 + d as usize;
                if run > usize::from(size) {
                    return Err(wide(here));
                }
                continue;
            }
            file += std::mem::take(&mut run);
            let stone = match c {
                'X' | 'x' => BLACK,
                'O' | 'o' => WHITE,
                _ => {
                    return Err(at(
                        here,
                        format!(
                            "position `{shown}`: row {row_name} (`{row}`) has `{c}` \
                             (use X, O or a number of empty points)"
                        ),
                    ))
                }
            };
            if file >= usize::from(size) {
                return Err(wide(here));
            }
            if let Some(i) = board.index(Square::new(file as u8, rank)) {
                board.set(i, stone);
            }
            file += 1;
        }
        file += run;
        if file != usize::from(size) {
            return Err(at(
                row,
                format!(
                    "position `{shown}`: row {row_name} (`{row}`) covers {file} points, expected {size}"
                ),
            ));
        }
    }
    if let Some(i) = board.dead_group() {
        return Err(at(
            rows_text,
            format!(
                "position `{shown}`: the group on {} has no liberty",
                point_name(Board::square(i))
            ),
        ));
    }
    Ok((board, side))
}

/// The text of a board and side to move.
pub(crate) fn write(board: &Board, side: Side) -> String {
    let n = board.size();
    let mut s = String::with_capacity(usize::from(n) * (usize::from(n) + 1) + 2);
    for rank in (0..n).rev() {
        let mut empty = 0;
        for file in 0..n {
            let stone = board
                .index(Square::new(file, rank))
                .map_or(EMPTY, |i| board.get(i));
            if stone == EMPTY {
                empty += 1;
                continue;
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
                empty = 0;
            }
            s.push(if stone == BLACK { 'X' } else { 'O' });
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s.push(' ');
    s.push(if side == Side::Black { 'b' } else { 'w' });
    s
}
