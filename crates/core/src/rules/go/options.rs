//! What a Go game is played with besides the stones: the board size, the
//! handicap, the komi and the ko rule.

use super::GoOptionsError;
use std::fmt;
use std::str::FromStr;

/// The board sizes the camera side reads and the handicap placement knows;
/// the engine itself plays any size from 2 to 25 lines.
pub(crate) const SIZES: [u8; 3] = [19, 13, 9];

/// Choices a Go game is played under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct GoOptions {
    /// Lines a side: 19, 13 or 9 (2 to 25 allowed).
    pub size: u8,
    /// Handicap stones Black places on the star points before White's first
    /// move: 0 for none, or 2 to 9 (one stone is no placement: Black simply
    /// moves first without komi).
    pub handicap: u8,
    /// Points White receives; None when not given (the record writes no KM).
    pub komi: Option<Komi>,
    /// Positional superko: no move may recreate an earlier board. Off by
    /// default, where only the simple ko rule applies (Japanese and Korean
    /// rules): a recorder must never refuse a move the players' rules allow,
    /// and the long cycles superko forbids are rare enough that missing one
    /// under Chinese or AGA rules costs less than refusing a legal move under
    /// Japanese ones. Turn it on for Chinese, AGA or New Zealand rules.
    pub superko: bool,
}

impl Default for GoOptions {
    fn default() -> GoOptions {
        GoOptions {
            size: 19,
            handicap: 0,
            komi: None,
            superko: false,
        }
    }
}

impl GoOptions {
    /// The default options on a board of `size` lines.
    pub fn sized(size: u8) -> GoOptions {
        GoOptions {
            size,
            ..GoOptions::default()
        }
    }
}

/// A komi: a number of points, whole or with up to two decimals (6.5, 7,
/// 0.5, -5.5, 2.75), kept exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Komi {
    /// Hundredths of a point.
    hundredths: i32,
}

impl Komi {
    /// A komi of `hundredths` hundredths of a point (650 is 6.5).
    pub(crate) const fn from_hundredths(hundredths: i32) -> Komi {
        Komi { hundredths }
    }

    /// The komi in hundredths of a point.
    #[cfg(test)]
    pub(crate) fn hundredths(self) -> i32 {
        self.hundredths
    }
}

impl fmt::Display for Komi {
    /// `6.5`, `7`, `-0.5`, `2.75`: no trailing zeros.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.hundredths < 0 { "-" } else { "" };
        let abs = self.hundredths.unsigned_abs();
        let (whole, frac) = (abs / 100, abs % 100);
        match frac {
            0 => write!(f, "{sign}{whole}"),
            _ if frac % 10 == 0 => write!(f, "{sign}{whole}.{}", frac / 10),
            _ => write!(f, "{sign}{whole}.{frac:02}"),
        }
    }
}

impl FromStr for Komi {
    type Err = GoOptionsError;

    fn from_str(s: &str) -> Result<Komi, GoOptionsError> {
        let bad = || GoOptionsError::Komi(s.to_string());
        let t = s.trim();
        let (negative, digits) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
        let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || whole.len() > 6 || frac.len() > 2 {
            return Err(bad());
        }
        if !all_digits(whole) || !all_digits(frac) || (digits.contains('.') && frac.is_empty()) {
            return Err(bad());
        }
        let whole: i32 = whole.parse().map_err(|_| bad())?;
        let frac: i32 = match frac.len() {
            0 => 0,
            1 => frac.parse::<i32>().map_err(|_| bad())? * 10,
            _ => frac.parse().map_err(|_| bad())?,
        };
        let h = whole * 100 + frac;
        Ok(Komi::from_hundredths(if negative { -h } else { h }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn komi_reads_and_writes_points() {
        for (text, h, back) in [
            ("6.5", 650, "6.5"),
            ("7", 700, "7"),
            ("7.0", 700, "7"),
            ("0.5", 50, "0.5"),
            ("-5.5", -550, "-5.5"),
            ("2.75", 275, "2.75"),
            ("+0", 0, "0"),
            (" 6.50 ", 650, "6.5"),
            ("-0.5", -50, "-0.5"),
        ] {
            let k: Komi = text.parse().unwrap();
            assert_eq!(k.hundredths(), h, "{text}");
            assert_eq!(k.to_string(), back, "{text}");
        }
        for bad in [
            "", "6,5", "six", "6.", ".5", "6.555", "1e3", "--1", "9999999",
        ] {
            assert!(bad.parse::<Komi>().is_err(), "{bad}");
        }
        assert!("x".parse::<Komi>().unwrap_err().to_string().contains("'x'"));
    }
}
