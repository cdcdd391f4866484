//! What the rules refuse: a position text that does not parse or is not a position
//! (one error type for the three position parsers, all one line of text), a move
//! text that names no legal move, and a move played that is not legal.

/// A start-position text refused: a chess FEN, a draughts PDN FEN or a Tablut
/// position that does not parse, or describes a position the rules do not allow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{why} (column {column})")]
#[non_exhaustive]
pub struct FenError {
    /// The text as given.
    pub(crate) text: String,
    /// Where in it the problem starts: 1 for the first character.
    pub(crate) column: usize,
    /// What is wrong, naming the text.
    pub(crate) why: String,
}

impl FenError {
    /// An error at `part`, a slice of `text` (column 1 when it is not one).
    pub(crate) fn at(text: &str, part: &str, why: String) -> FenError {
        FenError {
            text: text.to_string(),
            column: column_of(text, part),
            why,
        }
    }
}

/// Why a move text names no move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum MoveErrorKind {
    /// Not a move in the game's notation.
    Malformed,
    /// A move, but not a legal one in the position.
    Illegal,
    /// More than one legal move fits it.
    Ambiguous,
    /// The game is over: no move is legal.
    GameOver,
}

/// A move text (SAN or UCI for chess, `c3-d4` for draughts, `e1-e3` for Tablut)
/// that names no legal move of the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{why}")]
#[non_exhaustive]
pub struct MoveError {
    pub(crate) kind: MoveErrorKind,
    /// The move as given.
    pub(crate) text: String,
    /// What is wrong, naming the move (and the position where that helps).
    pub(crate) why: String,
}

impl MoveError {
    pub(crate) fn new(kind: MoveErrorKind, text: &str, why: String) -> MoveError {
        MoveError {
            kind,
            text: text.to_string(),
            why,
        }
    }
}

/// A move played that the position does not allow ([`crate::rules::Rules::play`]);
/// the game is left as it was.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv} in position \"{position}\"")]
pub struct IllegalMove {
    /// The move, in the game's short form (UCI for chess).
    pub(crate) mv: String,
    /// The position it was refused in (FEN, or the game's position text).
    pub(crate) position: String,
}

/// The column (1-based, in characters) where `part` starts within `text`, when
/// `part` is a slice of it; 1 otherwise.
pub(crate) fn column_of(text: &str, part: &str) -> usize {
    let start = text.as_ptr() as usize;
    let at = part.as_ptr() as usize;
    if at < start || at > start + text.len() {
        return 1;
    }
    let offset = at - start;
    text.get(..offset)
        .map_or(1, |head| head.chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_of_slices() {
        let text = "  W:Wa1,x9";
        let part = &text[8..];
        assert_eq!(column_of(text, part), 9);
        assert_eq!(column_of(text, text), 1);
        assert_eq!(column_of(text, &String::from("elsewhere")), 1);
        let e = FenError::at(text, part, "bad square".into());
        assert_eq!(e.to_string(), "bad square (column 9)");
    }
}
