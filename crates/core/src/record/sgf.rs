//! Go records in SGF (`FF[4]`, `GM[1]`), written whole after every move and read
//! back by `--resume`.
//!
//! # What is written
//! ```text
//! (;FF[4]GM[1]SZ[19]CA[UTF-8]AP[boardscribe:0.1.0]
//! EV[Club night]RO[3]DT[2026-12-04]PB[Anna]PW[Ben]KM[0.5]HA[2]
//! AB[pd][dp]PL[W]
//! C[the first comment]
//! ;W[qp];B[dd]C[a comment after Black's move];W[]
//! )
//! ```
//! - The root: the format, then the game information the record has (`?`
//!   values are left out): EV event, PC site, DT date (`YYYY-MM-DD`, or less
//!   when parts are unknown), RO round, PB and PW the players, KM komi, HA
//!   handicap, RE result; then the record's other tags, each under an SGF name
//!   (a PGN-style name in capitals: `Board` is written `BOARD`; `Annotator` is
//!   AN and `Rules` RU); then the stones of the start (AB, AW) and `PL[W]` when
//!   White moves first; then C[] with the comments before the first move.
//! - One node a move: `;B[pd]`, a pass `;B[]`, and its comments in C[].
//!   Columns and rows are the letters a-y from the top left, as SGF has them:
//!   Q16 on 19x19 is `pd`. Lines wrap at 80 characters between nodes.
//! - In values, `\` and `]` are escaped with a `\`.
//! - A file of several games (a new game after an irregularity) is a
//!   collection: the game trees one after the other.
//!
//! # What is read
//! Any `FF[1]`-`FF[4]` game tree of Go: its main line (the first variation at
//! each branch), the properties above, `tt` as a pass on boards up to 19x19,
//! and compressed point lists (`AB[aa:cc]`). Two moves of one colour in a row
//! mean the other side passed between them: the pass is put in. Other root
//! properties are kept as tags; other properties of move nodes are dropped.

use crate::record::sgf_syntax::escape;
use crate::record::Tags;
use crate::rules::go::{Go, GoOptions, Move};
use crate::rules::{Rules, Side, Square};

pub(crate) use crate::record::sgf_read::parse;

/// Lines of moves are wrapped before this many characters.
const WRAP: usize = 80;

/// SGF names of the record's own tags; an extra tag by one of these names is
/// never written (the record writes them itself).
pub(crate) const OWN_PROPERTIES: [&str; 19] = [
    "FF", "GM", "SZ", "CA", "AP", "EV", "PC", "DT", "RO", "PB", "PW", "KM", "HA", "RE", "AB", "AW",
    "AE", "PL", "C",
];

/// Tags whose SGF property has another name than the tag's in capitals.
pub(crate) const NAMED: [(&str, &str); 2] = [("Annotator", "AN"), ("Rules", "RU")];

/// A move of the record and the comments written after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfMove {
    /// The move.
    pub mv: Move,
    /// Its comments, in order.
    pub comments: Vec<String>,
}

/// A Go game record: tags, the start (size, handicap, komi, stones), the moves
/// with their comments, and the result.
#[derive(Clone, Debug)]
pub struct SgfRecord {
    /// The roster (`?` for unknown) and the other tags, in order.
    pub tags: Tags,
    /// The game where it starts, with its options (size, handicap, komi).
    pub start: Go,
    /// Comments before the first move.
    pub intro: Vec<String>,
    /// The moves, in order.
    pub moves: Vec<SgfMove>,
    /// The result as SGF writes it (`B+R`, `W+3.5`, `0`), set by an arbiter;
    /// None while the game goes on.
    pub result: Option<String>,
}

impl SgfRecord {
    /// An empty record of a game that starts at `start`, every tag unknown.
    pub(crate) fn new(start: &Go) -> SgfRecord {
        SgfRecord {
            tags: Tags::unknown(),
            start: start.clone(),
            intro: Vec::new(),
            moves: Vec::new(),
            result: None,
        }
    }

    /// Plays the moves from the start; the error names the first illegal one.
    pub(crate) fn replay(&self) -> Result<Go, usize> {
        let mut g = self.start.clone();
        for (i, m) in self.moves.iter().enumerate() {
            g.play(&m.mv).map_err(|_| i + 1)?;
        }
        Ok(g)
    }

    /// The result in the common form: `1-0` when White won, `0-1` when Black
    /// did, `1/2-1/2` for a draw (jigo), `*` otherwise (going on, void, unknown).
    pub(crate) fn result_token(&self) -> &'static str {
        common_result(self.result.as_deref())
    }

    /// The whole record as SGF.
    pub(crate) fn to_sgf(&self) -> String {
        let g = &self.start;
        let size = g.size();
        let mut out = format!(
            "(;FF[4]GM[1]SZ[{size}]CA[UTF-8]AP[boardscribe:{}]\n",
            env!("CARGO_PKG_VERSION")
        );
        let mut info = String::new();
        let t = &self.tags;
        for (id, value) in [
            ("EV", t.event.as_str()),
            ("PC", &t.site),
            ("DT", &sgf_date(&t.date)),
            ("RO", &t.round),
            ("PB", &t.black),
            ("PW", &t.white),
        ] {
            if !unknown(value) {
                info.push_str(&format!("{id}[{}]", escape(value)));
            }
        }
        let o = g.options();
        if let Some(k) = o.komi {
            info.push_str(&format!("KM[{k}]"));
        }
        if o.handicap >= 2 {
            info.push_str(&format!("HA[{}]", o.handicap));
        }
        if let Some(r) = &self.result {
            info.push_str(&format!("RE[{}]", escape(r)));
        }
        push_line(&mut out, &info);
        let mut extra = String::new();
        for (name, value) in &t.extra {
            let id = property_name(name);
            if !id.is_empty() && !OWN_PROPERTIES.contains(&id.as_str()) {
                extra.push_str(&format!("{id}[{}]", escape(value)));
            }
        }
        push_line(&mut out, &extra);
        let mut setup = String::new();
        for (id, side) in [("AB", Side::Black), ("AW", Side::White)] {
            let stones = g.start_stones(side);
            if !stones.is_empty() {
                setup.push_str(id);
                for sq in stones {
                    setup.push_str(&format!("[{}]", point(sq, size)));
                }
            }
        }
        if g.start_side() == Side::White {
            setup.push_str("PL[W]");
        }
        push_line(&mut out, &setup);
        push_line(&mut out, &comment(&self.intro));
        let mut line = String::new();
        let mut side = g.start_side();
        for m in &self.moves {
            let colour = if side == Side::Black { 'B' } else { 'W' };
            let at = match m.mv {
                Move::Play(sq) => point(sq, size),
                Move::Pass => String::new(),
            };
            let node = format!(";{colour}[{at}]{}", comment(&m.comments));
            if !line.is_empty() && line.chars().count() + node.chars().count() > WRAP {
                push_line(&mut out, &line);
                line.clear();
            }
            line.push_str(&node);
            side = side.other();
        }
        push_line(&mut out, &line);
        out.push_str(")\n");
        out
    }
}

/// A record of `game` from its start, with `tags` (empty roster values are
/// unknown), no moves yet.
pub(crate) fn start_record(game: &Go, tags: &Tags) -> SgfRecord {
    let mut r = SgfRecord::new(game);
    r.tags = tags.filled();
    r
}

fn push_line(out: &mut String, line: &str) {
    if !line.is_empty() {
        out.push_str(line);
        out.push('\n');
    }
}

fn unknown(value: &str) -> bool {
    value.trim().is_empty() || value.trim() == "?"
}

/// `C[...]` with the comments one a line; nothing when there are none.
fn comment(comments: &[String]) -> String {
    let kept: Vec<&str> = comments
        .iter()
        .map(|c| c.trim())
        .filter(|c| !c.is_empty())
        .collect();
    if kept.is_empty() {
        return String::new();
    }
    format!("C[{}]", escape(&kept.join("\n")))
}

/// SGF's two letters for a point: column from the left, row from the top.
pub(crate) fn point(sq: Square, size: u8) -> String {
    let col = char::from(b'a' + sq.file);
    let row = char::from(b'a' + (size - 1 - sq.rank));
    format!("{col}{row}")
}

/// The SGF name of a tag: the table's, or its letters in capitals.
pub(crate) fn property_name(tag: &str) -> String {
    if let Some((_, id)) = NAMED.iter().find(|(t, _)| *t == tag) {
        return id.to_string();
    }
    tag.chars()
        .filter(|c| c.is_ascii_alphabetic())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// The tag name of an SGF property kept as a tag: the table's, or the name.
pub(crate) fn tag_name(id: &str) -> String {
    NAMED
        .iter()
        .find(|(_, p)| *p == id)
        .map_or_else(|| id.to_string(), |(t, _)| t.to_string())
}

/// A PGN date (`2026.12.04`, `?` for unknown digits) as SGF's `2026-12-04`:
/// unknown parts dropped from the end, nothing when the year is unknown. Any
/// other text is written as it is.
pub(crate) fn sgf_date(date: &str) -> String {
    let parts: Vec<&str> = date.split('.').collect();
    let known = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let unknown = |p: &str| !p.is_empty() && p.bytes().all(|b| b == b'?');
    if parts.len() != 3 || !parts.iter().all(|p| known(p) || unknown(p)) {
        return date.to_string();
    }
    let mut kept = Vec::new();
    for p in parts {
        if !known(p) {
            break;
        }
        kept.push(p);
    }
    kept.join("-")
}

/// SGF's date as the tags keep it: `2026-12-04` as `2026.12.04`, `2026-12` as
/// `2026.12.??`, `2026` as `2026.??.??`; any other text as it is.
pub(crate) fn tags_date(dt: &str) -> String {
    let parts: Vec<&str> = dt.split('-').collect();
    let widths = [4, 2, 2];
    let ok = parts.len() <= 3
        && parts
            .iter()
            .zip(widths)
            .all(|(p, w)| p.len() == w && p.bytes().all(|b| b.is_ascii_digit()));
    if !ok {
        return dt.to_string();
    }
    let mut out: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    for w in &widths[out.len()..] {
        out.push("?".repeat(*w));
    }
    out.join(".")
}

/// The common result token of an SGF result.
pub(crate) fn common_result(re: Option<&str>) -> &'static str {
    let Some(re) = re.map(str::trim) else {
        return "*";
    };
    let upper = re.to_ascii_uppercase();
    if upper.starts_with("W+") {
        "1-0"
    } else if upper.starts_with("B+") {
        "0-1"
    } else if upper == "0" || upper == "DRAW" || upper == "JIGO" {
        "1/2-1/2"
    } else {
        "*"
    }
}

/// An arbiter's result as SGF writes it: the common tokens (`1-0` is `W+`,
/// `0-1` is `B+`, `1/2-1/2` is `0`, `*` none), or SGF's own: `B+R`, `W+3.5`,
/// `B+T` (time), `B+F` (forfeit), `B+` (won, margin unknown), `0`, `Draw`,
/// `Void`, `?`. None for `*`; Err when it is neither.
pub(crate) fn sgf_result(token: &str) -> Result<Option<String>, ()> {
    let t = token.trim();
    match t {
        "*" => return Ok(None),
        "1-0" => return Ok(Some("W+".into())),
        "0-1" => return Ok(Some("B+".into())),
        "1/2-1/2" | "0" | "Draw" => return Ok(Some("0".into())),
        "Void" | "?" => return Ok(Some(t.into())),
        _ => {}
    }
    let rest = t
        .strip_prefix("B+")
        .or_else(|| t.strip_prefix("W+"))
        .ok_or(())?;
    let score = rest.parse::<f64>().is_ok_and(|s| s.is_finite() && s > 0.0)
        && rest.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let word = ["", "R", "Resign", "T", "Time", "F", "Forfeit"].contains(&rest);
    if score || word {
        Ok(Some(t.into()))
    } else {
        Err(())
    }
}

/// The options of a game played under `like`'s ko rule with a record's size,
/// handicap and komi.
pub(crate) fn options_like(
    like: &Go,
    size: u8,
    handicap: u8,
    komi: Option<crate::rules::go::Komi>,
) -> GoOptions {
    let mut o = *like.options();
    o.size = size;
    o.handicap = handicap;
    o.komi = komi;
    o
}
