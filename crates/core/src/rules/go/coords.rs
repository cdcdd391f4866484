//! Points as Go players write them, and where handicap stones go.
//!
//! Columns are letters from A at the left, skipping I (so that it is never
//! read as J or 1): A-T on 19x19, A-N on 13x13, A-J on 9x9. Rows are numbers
//! from 1 at the bottom, the edge nearest Black, as a chess board's rank 1 is
//! White's: a point is the crate's [`Square`] with `file` the column from 0
//! and `rank` the row from 0, so K10 is (9, 9), the centre of 19x19.

use crate::rules::Square;

/// The column letter of `file` (0 is A), skipping I.
pub(crate) fn column_letter(file: u8) -> char {
    char::from(b'A' + file + u8::from(file >= 8))
}

/// `K10`: a point as Go players write it.
pub(crate) fn point_name(sq: Square) -> String {
    format!("{}{}", column_letter(sq.file), u32::from(sq.rank) + 1)
}

/// Reads `K10` (either case) on a board of `size` lines; None for anything else,
/// `I` included.
pub(crate) fn parse_point(text: &str, size: u8) -> Option<Square> {
    let mut chars = text.chars();
    let letter = chars.next()?.to_ascii_uppercase();
    if !letter.is_ascii_uppercase() || letter == 'I' {
        return None;
    }
    let file = letter as u8 - b'A' - u8::from(letter > 'I');
    let digits = chars.as_str();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.starts_with('0') {
        return None;
    }
    let row: u32 = digits.parse().ok()?;
    let rank = u8::try_from(row.checked_sub(1)?).ok()?;
    (file < size && rank < size).then_some(Square::new(file, rank))
}

/// The points of a handicap of `stones` on a board of `size` lines, in the
/// traditional order (Black at the bottom): the upper right and lower left
/// corners, the lower right, the upper left, then for five and seven the
/// centre, for six and more the left and right sides, for eight and nine the
/// top and bottom sides. Corners are on the fourth line from 13x13 up, the
/// third below. None when the board has no such points (an even size has no
/// centre or side points; boards under 7 lines none at all) or `stones` is not
/// 2 to 9.
pub(crate) fn handicap_points(size: u8, stones: u8) -> Option<Vec<Square>> {
    if !(2..=9).contains(&stones) || size < 7 {
        return None;
    }
    let edge = if size >= 13 { 3 } else { 2 };
    let (lo, hi, mid) = (edge, size - 1 - edge, size / 2);
    let corners = [(hi, hi), (lo, lo), (hi, lo), (lo, hi)];
    let centre = (mid, mid);
    let sides_lr = [(lo, mid), (hi, mid)];
    let sides_tb = [(mid, hi), (mid, lo)];
    let mut points: Vec<(u8, u8)> = corners[..usize::from(stones.min(4))].to_vec();
    if stones >= 6 {
        points.extend(sides_lr);
    }
    if stones >= 8 {
        points.extend(sides_tb);
    }
    if stones % 2 == 1 && stones >= 5 {
        points.push(centre);
    }
    if stones > 4 && size.is_multiple_of(2) {
        return None;
    }
    Some(points.into_iter().map(|(f, r)| Square::new(f, r)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(size: u8, stones: u8) -> Vec<String> {
        handicap_points(size, stones)
            .unwrap()
            .into_iter()
            .map(point_name)
            .collect()
    }

    #[test]
    fn points_are_named_without_i() {
        assert_eq!(point_name(Square::new(9, 9)), "K10");
        assert_eq!(point_name(Square::new(0, 0)), "A1");
        assert_eq!(point_name(Square::new(7, 3)), "H4");
        assert_eq!(point_name(Square::new(8, 3)), "J4");
        assert_eq!(point_name(Square::new(18, 18)), "T19");
        for size in [9, 13, 19, 25] {
            for f in 0..size {
                for r in 0..size {
                    let sq = Square::new(f, r);
                    assert_eq!(parse_point(&point_name(sq), size), Some(sq));
                }
            }
        }
        assert_eq!(parse_point("k10", 19), Some(Square::new(9, 9)));
        for bad in ["I5", "", "K", "K0", "K20", "K010", "10", "K1x", "Ä3", "U1"] {
            assert_eq!(parse_point(bad, 19), None, "{bad}");
        }
        assert_eq!(parse_point("K10", 9), None);
    }

    #[test]
    fn handicap_stones_go_on_the_traditional_points() {
        assert_eq!(names(19, 2), ["Q16", "D4"]);
        assert_eq!(names(19, 3), ["Q16", "D4", "Q4"]);
        assert_eq!(names(19, 4), ["Q16", "D4", "Q4", "D16"]);
        assert_eq!(names(19, 5), ["Q16", "D4", "Q4", "D16", "K10"]);
        assert_eq!(names(19, 6), ["Q16", "D4", "Q4", "D16", "D10", "Q10"]);
        assert_eq!(
            names(19, 7),
            ["Q16", "D4", "Q4", "D16", "D10", "Q10", "K10"]
        );
        assert_eq!(
            names(19, 9),
            ["Q16", "D4", "Q4", "D16", "D10", "Q10", "K16", "K4", "K10"]
        );
        assert_eq!(names(13, 4), ["K10", "D4", "K4", "D10"]);
        assert_eq!(names(13, 5)[4], "G7");
        assert_eq!(names(9, 2), ["G7", "C3"]);
        assert_eq!(names(9, 9).len(), 9);
        assert_eq!(names(9, 9)[8], "E5");
        assert_eq!(handicap_points(19, 1), None);
        assert_eq!(handicap_points(19, 10), None);
        assert_eq!(handicap_points(5, 2), None);
        assert_eq!(handicap_points(10, 5), None);
        assert_eq!(handicap_points(10, 4).map(|p| p.len()), Some(4));
    }
}
