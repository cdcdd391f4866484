//! The record of a game without rules: the first stable position, then every
//! stable change as placements (`+`) and removals (`-`).
//!
//! ```text
//! [Grid "19x19:points"]
//! [Date "2026.11.29"]
//! start 0:00:01 white d4 q16 black c3
//! 0:00:05 +b q4
//! 0:00:09 +w e3 -b c3
//! ```
//!
//! Sites are named like chess squares from the white side's view: columns `a`,
//! `b`, ... left to right (no letter skipped), rows `1`, `2`, ... from that edge.
//! The text is complete after every change, so a stopped recording leaves a
//! valid file.

use crate::record::error::{TextError, TextPos};
use std::fmt::Write as _;

/// What stands on a site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stone {
    /// A white piece or stone.
    White,
    /// A black piece or stone.
    Black,
}

impl Stone {
    /// The log's letter for it: `w` or `b`.
    pub fn letter(self) -> char {
        match self {
            Stone::White => 'w',
            Stone::Black => 'b',
        }
    }

    /// The word for it in messages: `white` or `black`.
    pub fn word(self) -> &'static str {
        match self {
            Stone::White => "white",
            Stone::Black => "black",
        }
    }

    fn from_letter(c: char) -> Option<Stone> {
        match c {
            'w' => Some(Stone::White),
            'b' => Some(Stone::Black),
            _ => None,
        }
    }
}

/// One placement or removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// True for a placement, false for a removal.
    pub placed: bool,
    /// What was placed or removed.
    pub stone: Stone,
    /// The site, as the grid names it (`c17`).
    pub site: String,
}

/// All edits seen between two still views.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// When the view that showed it was taken, in seconds from the start.
    pub time_s: f64,
    /// The placements and removals, in site order.
    pub edits: Vec<Edit>,
}

/// A free log (`record --game free`): the grid, tags, what stood on the board at the first still view, and every change after it.
#[derive(Clone, Debug, PartialEq)]
pub struct FreeLog {
    /// The grid, as `--grid` takes it (`18x18`).
    pub grid: String,
    /// `YYYY.MM.DD`, `?` for unknown digits.
    pub date: String,
    /// Other tags (Event, Site, Round, White, Black), written after the date.
    pub tags: Vec<(String, String)>,
    /// Time of the first still view and what stood on the board then.
    pub start: Option<(f64, Vec<(Stone, String)>)>,
    /// The changes seen after the first still view, in order.
    pub changes: Vec<Change>,
}

impl FreeLog {
    /// An empty log of `grid`, dated `date`.
    pub fn new(grid: &str, date: &str) -> FreeLog {
        FreeLog {
            grid: grid.to_string(),
            date: date.to_string(),
            tags: Vec::new(),
            start: None,
            changes: Vec::new(),
        }
    }

    /// The log's text: tags, the start, one line per change.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "[Grid \"{}\"]", self.grid);
        let _ = writeln!(s, "[Date \"{}\"]", self.date);
        for (name, value) in &self.tags {
            let name: String = name.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
            if name.is_empty() || name == "Grid" || name == "Date" {
                continue;
            }
            // The value reads back up to the closing quote and bracket.
            let value: String = value
                .chars()
                .map(|c| if c == '"' || c.is_control() { '\'' } else { c })
                .collect();
            let _ = writeln!(s, "[{name} \"{}\"]", value.trim());
        }
        if let Some((t, stones)) = &self.start {
            let _ = write!(s, "start {}", clock(*t));
            for side in [Stone::White, Stone::Black] {
                let sites: Vec<&str> = stones
                    .iter()
                    .filter(|(st, _)| *st == side)
                    .map(|(_, n)| n.as_str())
                    .collect();
                if !sites.is_empty() {
                    let _ = write!(s, " {} {}", side.word(), sites.join(" "));
                }
            }
            s.push('\n');
        }
        for c in &self.changes {
            let _ = write!(s, "{}", clock(c.time_s));
            for e in &c.edits {
                let sign = if e.placed { '+' } else { '-' };
                let _ = write!(s, " {sign}{} {}", e.stone.letter(), e.site);
            }
            s.push('\n');
        }
        s
    }

    /// Reads back what `render` writes.
    pub fn parse(text: &str) -> Result<FreeLog, TextError> {
        let mut log = FreeLog::new("", "");
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let bad = |why: &str| TextError {
                at: Some(TextPos {
                    line: n + 1,
                    column: raw.chars().take_while(|c| c.is_whitespace()).count() + 1,
                }),
                why: format!("{why}: '{line}'"),
            };
            if line.is_empty() {
                continue;
            }
            if let Some(tag) = line.strip_prefix('[') {
                let (name, value) = tag
                    .trim_end_matches(']')
                    .split_once(' ')
                    .ok_or_else(|| bad("bad tag"))?;
                let value = value.trim().trim_matches('"').to_string();
                match name {
                    "Grid" => log.grid = value,
                    "Date" => log.date = value,
                    _ => log.tags.push((name.to_string(), value)),
                }
                continue;
            }
            let mut words = line.split_whitespace();
            if line.starts_with("start ") {
                words.next();
                let t = parse_clock(words.next().unwrap_or("")).ok_or_else(|| bad("bad time"))?;
                let mut stones = Vec::new();
                let mut side = None;
                for w in words {
                    match w {
                        "white" => side = Some(Stone::White),
                        "black" => side = Some(Stone::Black),
                        site => stones.push((
                            side.ok_or_else(|| bad("site before colour"))?,
                            site.to_string(),
                        )),
                    }
                }
                log.start = Some((t, stones));
                continue;
            }
            let t = parse_clock(words.next().unwrap_or("")).ok_or_else(|| bad("bad time"))?;
            let mut edits = Vec::new();
            while let Some(w) = words.next() {
                let mut chars = w.chars();
                let placed = match chars.next() {
                    Some('+') => true,
                    Some('-') => false,
                    _ => return Err(bad("an edit starts with + or -")),
                };
                let stone = chars
                    .next()
                    .and_then(Stone::from_letter)
                    .ok_or_else(|| bad("colour is w or b"))?;
                let site = words.next().ok_or_else(|| bad("edit without a site"))?;
                edits.push(Edit {
                    placed,
                    stone,
                    site: site.to_string(),
                });
            }
            log.changes.push(Change { time_s: t, edits });
        }
        Ok(log)
    }
}

/// `h:mm:ss.s`: changes can come faster than one a second.
fn clock(t: f64) -> String {
    let ds = (t.max(0.0) * 10.0).round() as u64;
    format!(
        "{}:{:02}:{:02}.{}",
        ds / 36000,
        ds / 600 % 60,
        ds / 10 % 60,
        ds % 10
    )
}

fn parse_clock(s: &str) -> Option<f64> {
    let mut parts = s.split(':');
    let h: f64 = parts.next()?.parse().ok()?;
    let m: f64 = parts.next()?.parse().ok()?;
    let sec: f64 = parts.next()?.parse().ok()?;
    parts
        .next()
        .is_none()
        .then_some(h * 3600.0 + m * 60.0 + sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_reads_back_as_written() {
        let mut log = FreeLog::new("19x19:points", "2026.11.29");
        log.start = Some((
            1.0,
            vec![(Stone::White, "d4".into()), (Stone::Black, "q16".into())],
        ));
        log.changes.push(Change {
            time_s: 5.25,
            edits: vec![Edit {
                placed: true,
                stone: Stone::Black,
                site: "c3".into(),
            }],
        });
        log.changes.push(Change {
            time_s: 3725.0,
            edits: vec![
                Edit {
                    placed: true,
                    stone: Stone::White,
                    site: "c4".into(),
                },
                Edit {
                    placed: false,
                    stone: Stone::Black,
                    site: "c3".into(),
                },
            ],
        });
        let text = log.render();
        assert!(
            text.contains("start 0:00:01.0 white d4 black q16\n"),
            "{text}"
        );
        assert!(text.contains("1:02:05.0 +w c4 -b c3\n"), "{text}");
        let back = FreeLog::parse(&text).unwrap();
        assert_eq!(back.grid, log.grid);
        assert_eq!(back.start, log.start);
        assert_eq!(back.changes.len(), 2);
        assert_eq!(back.changes[1].edits, log.changes[1].edits);
        assert!((back.changes[0].time_s - 5.3).abs() < 0.051);
        assert!(FreeLog::parse("0:00:01.0 *w c3").is_err());
    }
}
