//! PGN (Portable Game Notation) records of chess games.
//!
//! The record keeps a move log with both SAN and UCI. UCI is the truth: when an
//! earlier move is corrected (a promotion that turned out to be a knight), the
//! caller edits the log's UCI and calls [`PgnRecord::rebuild_san`], since the SAN
//! of later moves may change too (check marks, disambiguation).

use crate::record::error::{PgnError, TextPos};
use crate::record::Tags;
use crate::rules::chess::Chess;
use crate::rules::{FenError, Outcome, ReplayError, Rules};

/// One half-move of the log.
#[derive(Clone, Debug, PartialEq)]
pub struct PgnMove {
    /// The move in Standard Algebraic Notation (`Nf3`).
    pub san: String,
    /// The move in UCI notation (`g1f3`).
    pub uci: String,
    /// Time the player spent on the move, written as `[%emt H:MM:SS]`.
    pub emt_seconds: Option<f64>,
    /// Comments placed after the move.
    pub comments: Vec<String>,
}

impl PgnMove {
    /// A move without time or comments.
    pub(crate) fn new(san: &str, uci: &str) -> PgnMove {
        PgnMove {
            san: san.to_string(),
            uci: uci.to_string(),
            emt_seconds: None,
            comments: Vec::new(),
        }
    }
}

/// A game record: tags, comments and the move log.
#[derive(Clone, Debug, PartialEq)]
pub struct PgnRecord {
    /// The roster (less Result) and the tags beyond it, FEN and SetUp, in
    /// output order.
    pub tags: Tags,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// Set-up start position; rendered as the `SetUp` and `FEN` tags.
    pub start_fen: Option<String>,
    /// Comments before the first move.
    pub opening_comments: Vec<String>,
    /// The half-moves, in order.
    pub moves: Vec<PgnMove>,
}

impl Default for PgnRecord {
    fn default() -> Self {
        PgnRecord::new()
    }
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

impl PgnRecord {
    /// An empty record with the PGN "unknown" values in the Seven Tag Roster.
    pub(crate) fn new() -> PgnRecord {
        PgnRecord {
            tags: Tags::unknown(),
            result: "*".into(),
            start_fen: None,
            opening_comments: Vec::new(),
            moves: Vec::new(),
        }
    }

    /// Sets the Date tag to `YYYY.MM.DD`.
    #[cfg(test)]
    pub(crate) fn set_date(&mut self, year: u32, month: u32, day: u32) {
        self.tags.date = format!("{year:04}.{month:02}.{day:02}");
    }

    /// Sets any tag; the roster tags and FEN go to their fields, `SetUp` is
    /// derived from `start_fen` and so ignored.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match name {
            "Result" => self.result = value.to_string(),
            "FEN" => self.start_fen = Some(value.to_string()),
            "SetUp" => {}
            _ => self.tags.set(name, value),
        }
    }

    /// A tag's value, by name (the roster's and the others).
    pub fn tag(&self, name: &str) -> Option<&str> {
        match name {
            "Result" => Some(&self.result),
            "FEN" => self.start_fen.as_deref(),
            "SetUp" => self.start_fen.as_ref().map(|_| "1"),
            _ => self.tags.get(name),
        }
    }

    /// Sets the result from the rules' outcome (`*` for none).
    pub(crate) fn set_outcome(&mut self, outcome: Option<&Outcome>) {
        self.result = outcome.map_or("*", Outcome::result_token).to_string();
    }

    /// Appends a half-move with the time spent on it.
    pub(crate) fn push_move(&mut self, san: &str, uci: &str, emt_seconds: Option<f64>) {
        let mut mv = PgnMove::new(san, uci);
        mv.emt_seconds = emt_seconds;
        self.moves.push(mv);
    }

    /// Adds a comment at the current end of the game (before the first move if
    /// none has been played yet), in the form it will read back: braces dropped,
    /// whitespace collapsed.
    pub(crate) fn push_comment(&mut self, text: &str) {
        let clean = clean_comment(text);
        if clean.is_empty() {
            return;
        }
        match self.moves.last_mut() {
            Some(mv) => mv.comments.push(clean),
            None => self.opening_comments.push(clean),
        }
    }

    /// The moves in UCI notation, in order.
    pub fn ucis(&self) -> Vec<String> {
        self.moves.iter().map(|m| m.uci.clone()).collect()
    }

    /// Replays the log's UCI moves and returns the final position.
    pub(crate) fn replay(&self) -> Result<Chess, ReplayError> {
        Chess::replay(self.start_fen.as_deref(), &self.ucis())
    }

    /// Re-derives every SAN from the UCI moves, after the log was edited.
    #[cfg(test)]
    pub(crate) fn rebuild_san(&mut self) -> Result<(), ReplayError> {
        let sans = rebuild_san(self.start_fen.as_deref(), &self.ucis())?;
        for (mv, san) in self.moves.iter_mut().zip(sans) {
            mv.san = san;
        }
        Ok(())
    }

    /// The complete PGN text of the game, ending in a newline.
    pub fn to_pgn_string(&self) -> String {
        let result = if RESULTS.contains(&self.result.as_str()) {
            self.result.as_str()
        } else {
            "*"
        };
        let mut out = String::new();
        for (name, value) in self.tags.roster() {
            push_tag(&mut out, name, value);
        }
        push_tag(&mut out, "Result", result);
        if let Some(fen) = &self.start_fen {
            push_tag(&mut out, "SetUp", "1");
            push_tag(&mut out, "FEN", fen.trim());
        }
        for (name, value) in &self.tags.extra {
            let name: String = name
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let reserved = Tags::in_roster(&name) || name == "Result" || name == "SetUp";
            if !name.is_empty() && !reserved && name != "FEN" {
                push_tag(&mut out, &name, value);
            }
        }
        out.push('\n');
        wrap_units(&mut out, &self.movetext_units(result), 80);
        out.push('\n');
        out
    }

    /// Movetext as unbreakable units (a move with its number, or one word of a comment).
    fn movetext_units(&self, result: &str) -> Vec<String> {
        let mut units = Vec::new();
        for c in &self.opening_comments {
            comment_units(&mut units, c);
        }
        let (mut black, mut number) = start_turn(self.start_fen.as_deref());
        let mut need_number = true;
        for mv in &self.moves {
            let san = mv.san.trim();
            if !black {
                units.push(format!("{number}. {san}"));
            } else if need_number {
                units.push(format!("{number}... {san}"));
            } else {
                units.push(san.to_string());
            }
            let before = units.len();
            if let Some(emt) = mv.emt_seconds.and_then(format_emt) {
                units.push(format!("{{[%emt {emt}]}}"));
            }
            for c in &mv.comments {
                comment_units(&mut units, c);
            }
            need_number = units.len() > before;
            if black {
                number += 1;
            }
            black = !black;
        }
        units.push(result.to_string());
        units
    }
}

/// Side to move and move number of the start position, read from the FEN's
/// fields directly so that rendering never fails.
fn start_turn(fen: Option<&str>) -> (bool, u32) {
    let Some(fen) = fen else {
        return (false, 1);
    };
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let black = fields.get(1) == Some(&"b");
    let number = fields
        .get(5)
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(1);
    (black, number)
}

fn push_tag(out: &mut String, name: &str, value: &str) {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            '"' => escaped.push_str("\\\""),
            c if c.is_control() => escaped.push(' '),
            c => escaped.push(c),
        }
    }
    out.push_str(&format!("[{name} \"{escaped}\"]\n"));
}

/// Comment text made safe for `{...}`: braces would end it early, and line
/// breaks are the wrapper's business.
fn clean_comment(text: &str) -> String {
    text.replace(['{', '}'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn comment_units(units: &mut Vec<String>, text: &str) {
    let clean = clean_comment(text);
    if clean.is_empty() {
        return;
    }
    let words: Vec<&str> = clean.split(' ').collect();
    let last = words.len() - 1;
    for (i, w) in words.iter().enumerate() {
        let mut unit = String::new();
        if i == 0 {
            unit.push('{');
        }
        unit.push_str(w);
        if i == last {
            unit.push('}');
        }
        units.push(unit);
    }
}

/// Greedy wrap at `width` columns. A line that would start with `%` is indented
/// by one space, because a `%` in column one makes the line an escape readers drop.
fn wrap_units(out: &mut String, units: &[String], width: usize) {
    let mut line_len = 0;
    for unit in units {
        let len = unit.chars().count();
        if line_len > 0 && line_len + 1 + len <= width {
            out.push(' ');
            line_len += 1;
        } else if line_len > 0 {
            out.push('\n');
            line_len = 0;
        }
        if line_len == 0 && unit.starts_with('%') {
            out.push(' ');
            line_len = 1;
        }
        out.push_str(unit);
        line_len += len;
    }
}

/// `H:MM:SS`, rounded to the second; None for a negative or non-finite time.
pub(crate) fn format_emt(seconds: f64) -> Option<String> {
    if !seconds.is_finite() || seconds < 0.0 {
        return None;
    }
    let total = seconds.round() as u64;
    Some(format!(
        "{}:{:02}:{:02}",
        total / 3600,
        (total / 60) % 60,
        total % 60
    ))
}

/// Parses `H:MM:SS`, `MM:SS` or `SS`, each part possibly fractional in the last place.
pub(crate) fn parse_emt(text: &str) -> Option<f64> {
    let mut total = 0.0;
    for part in text.trim().split(':') {
        let v: f64 = part.parse().ok()?;
        if !v.is_finite() || v < 0.0 {
            return None;
        }
        total = total * 60.0 + v;
    }
    Some(total)
}

/// SAN of each UCI move played from `start_fen` (or the initial position).
#[cfg(test)]
pub(crate) fn rebuild_san(
    start_fen: Option<&str>,
    ucis: &[String],
) -> Result<Vec<String>, ReplayError> {
    let mut game = match start_fen {
        Some(fen) => Chess::from_fen(fen)?,
        None => Chess::new(),
    };
    let mut sans = Vec::with_capacity(ucis.len());
    for uci in ucis {
        let label = move_label(&game);
        let mv = game.parse_uci(uci).map_err(|mut e| {
            e.why = format!("move {label} {uci}: {}", e.why);
            e
        })?;
        sans.push(game.notation(&mv));
        game.play_legal(&mv);
    }
    Ok(sans)
}

/// `12.` or `12...`, for error messages.
fn move_label(game: &Chess) -> String {
    let dots = match game.side_to_move() {
        crate::rules::Side::White => ".",
        crate::rules::Side::Black => "...",
    };
    format!("{}{dots}", game.fullmove_number())
}

/// Parses the first game of a PGN text and replays it.
pub fn parse_pgn(text: &str) -> Result<PgnRecord, PgnError> {
    parse_pgn_games(text)?
        .into_iter()
        .next()
        .ok_or_else(|| PgnError {
            game: 1,
            at: TextPos::of(text, text.len()),
            why: "no game found in PGN".to_string(),
        })
}

/// Parses every game of a PGN text, replaying each move through [`Chess`].
/// Variations and NAGs are skipped; `%emt` commands fill `emt_seconds`.
pub fn parse_pgn_games(text: &str) -> Result<Vec<PgnRecord>, PgnError> {
    let mut lexer = Lexer {
        chars: text.trim_start_matches('\u{feff}').chars().collect(),
        pos: 0,
    };
    let mut games = Vec::new();
    loop {
        lexer.skip_space();
        if lexer.at_end() {
            break;
        }
        let n = games.len() + 1;
        let game = parse_game(&mut lexer).map_err(|e| PgnError {
            game: n,
            at: lexer.text_pos(e.pos),
            why: e.why,
        })?;
        games.push(game);
    }
    Ok(games)
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
}

enum Token {
    Tag(String, String),
    Comment(String),
    Symbol(String),
    VariationStart,
    Nag,
}

/// A failure at character `pos` of the lexer's text.
struct Fail {
    pos: usize,
    why: String,
}

impl Fail {
    fn at(pos: usize, why: impl Into<String>) -> Fail {
        Fail {
            pos,
            why: why.into(),
        }
    }
}

impl Lexer {
    /// Line and column of character `pos`.
    fn text_pos(&self, pos: usize) -> TextPos {
        let head = &self.chars[..pos.min(self.chars.len())];
        let line_start = head.iter().rposition(|c| *c == '\n').map_or(0, |i| i + 1);
        TextPos {
            line: 1 + head.iter().filter(|c| **c == '\n').count(),
            column: head.len() - line_start + 1,
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.chars.len()
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    /// Skips whitespace and `%` escape lines.
    fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            let line_start = self.pos == 0 || self.chars[self.pos - 1] == '\n';
            if c == '%' && line_start {
                self.skip_line();
            } else if c.is_whitespace() {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == '\n' {
                break;
            }
        }
    }

    fn read_until(&mut self, end: char) -> Result<String, Fail> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == end {
                return Ok(self.chars[start..self.pos - 1].iter().collect());
            }
        }
        self.pos = start;
        Err(Fail::at(
            start.saturating_sub(1),
            format!("unterminated '{end}'"),
        ))
    }

    fn next_token(&mut self) -> Result<Option<Token>, Fail> {
        self.skip_space();
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        match c {
            '[' => self.tag().map(Some),
            '{' => {
                self.pos += 1;
                Ok(Some(Token::Comment(self.read_until('}')?)))
            }
            ';' => {
                self.pos += 1;
                let start = self.pos;
                self.skip_line();
                let text: String = self.chars[start..self.pos].iter().collect();
                Ok(Some(Token::Comment(text)))
            }
            '(' => {
                self.pos += 1;
                Ok(Some(Token::VariationStart))
            }
            ')' => Err(Fail::at(self.pos, "unbalanced ')'")),
            '$' => {
                self.pos += 1;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
                Ok(Some(Token::Nag))
            }
            '}' | ']' => Err(Fail::at(self.pos, format!("unexpected '{c}'"))),
            _ => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| !c.is_whitespace() && !"{}()[];$".contains(c))
                {
                    self.pos += 1;
                }
                Ok(Some(Token::Symbol(
                    self.chars[start..self.pos].iter().collect(),
                )))
            }
        }
    }

    fn tag(&mut self) -> Result<Token, Fail> {
        let start_pos = self.pos;
        self.pos += 1;
        self.skip_space();
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos].iter().collect();
        self.skip_space();
        if name.is_empty() || self.peek() != Some('"') {
            return Err(Fail::at(start_pos, "malformed tag pair"));
        }
        self.pos += 1;
        let mut value = String::new();
        loop {
            match self.peek() {
                None => return Err(Fail::at(start_pos, "unterminated tag value")),
                Some('\\') => {
                    self.pos += 1;
                    if let Some(c) = self.peek() {
                        value.push(c);
                        self.pos += 1;
                    }
                }
                Some('"') => {
                    self.pos += 1;
                    break;
                }
                Some(c) => {
                    value.push(c);
                    self.pos += 1;
                }
            }
        }
        self.skip_space();
        if self.peek() != Some(']') {
            return Err(Fail::at(start_pos, format!("tag {name} lacks its ']'")));
        }
        self.pos += 1;
        Ok(Token::Tag(name, value))
    }

    /// Skips a variation whose '(' was already read, nested ones included.
    fn skip_variation(&mut self) -> Result<(), Fail> {
        let open = self.pos.saturating_sub(1);
        let mut depth = 1;
        while depth > 0 {
            self.skip_space();
            match self.peek() {
                None => return Err(Fail::at(open, "unterminated variation")),
                Some('(') => depth += 1,
                Some(')') => depth -= 1,
                Some('{') => {
                    self.pos += 1;
                    self.read_until('}')?;
                    continue;
                }
                Some(';') => {
                    self.skip_line();
                    continue;
                }
                Some(_) => {}
            }
            self.pos += 1;
        }
        Ok(())
    }
}

fn parse_game(lexer: &mut Lexer) -> Result<PgnRecord, Fail> {
    let mut rec = PgnRecord::new();
    let mut game: Option<Chess> = None;
    let mut seen_movetext = false;
    let mut termination: Option<String> = None;
    loop {
        lexer.skip_space();
        let save = lexer.pos;
        let Some(token) = lexer.next_token()? else {
            break;
        };
        match token {
            Token::Tag(name, value) => {
                if seen_movetext {
                    // The next game's tags: this one ended without a result token.
                    lexer.pos = save;
                    break;
                }
                rec.set_tag(&name, &value);
            }
            Token::Comment(text) => {
                seen_movetext = true;
                add_comment(&mut rec, &text);
            }
            Token::VariationStart => {
                seen_movetext = true;
                lexer.skip_variation()?;
            }
            Token::Nag => seen_movetext = true,
            Token::Symbol(sym) => {
                seen_movetext = true;
                if RESULTS.contains(&sym.as_str()) {
                    termination = Some(sym);
                    break;
                }
                let san = without_move_number(&sym)
                    .trim_end_matches(['!', '?'])
                    .trim_end_matches("e.p.");
                if san.is_empty() {
                    continue;
                }
                let chess = match &mut game {
                    Some(g) => g,
                    None => game.insert(match &rec.start_fen {
                        Some(fen) => Chess::from_fen(fen).map_err(|e| fen_fail(save, e))?,
                        None => Chess::new(),
                    }),
                };
                let label = move_label(chess);
                let mv = chess
                    .parse_san(san)
                    .map_err(|e| Fail::at(save, format!("move {label} {san}: {e}")))?;
                let entry = PgnMove::new(&chess.notation(&mv), &chess.move_id(&mv));
                chess
                    .play(&mv)
                    .map_err(|e| Fail::at(save, format!("move {label} {san}: {e}")))?;
                rec.moves.push(entry);
            }
        }
    }
    if !seen_movetext && rec == PgnRecord::new() {
        return Err(Fail::at(lexer.pos, "empty game"));
    }
    if let Some(fen) = &rec.start_fen {
        // Validates a FEN even when no move follows it.
        Chess::from_fen(fen).map_err(|e| fen_fail(lexer.pos, e))?;
    }
    if let Some(t) = termination {
        rec.result = t;
    }
    Ok(rec)
}

/// A move symbol without the move number run into it (`12.e4`, `3...Nf6`); a bare
/// number is nothing. Castling written with zeros (`0-0`, `0-0-0`, as some
/// programs write it) starts with a digit but is no move number: it is kept.
fn without_move_number(sym: &str) -> &str {
    let rest = sym.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.is_empty() || rest.starts_with('.') {
        rest.trim_start_matches('.')
    } else {
        sym
    }
}

/// A FEN tag refused, reported where the game's moves or end stand.
fn fen_fail(pos: usize, e: FenError) -> Fail {
    Fail::at(pos, format!("FEN tag: {e}"))
}

/// Files a comment, pulling out an `[%emt ...]` command into the move's time.
fn add_comment(rec: &mut PgnRecord, text: &str) {
    let mut rest = text.to_string();
    let mut emt = None;
    if let Some(start) = rest.find("[%emt") {
        if let Some(len) = rest[start..].find(']') {
            emt = parse_emt(&rest[start + 5..start + len]);
            if emt.is_some() {
                rest.replace_range(start..start + len + 1, " ");
            }
        }
    }
    if let (Some(e), Some(mv)) = (emt, rec.moves.last_mut()) {
        mv.emt_seconds = Some(e);
    }
    rec.push_comment(&rest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Side;

    const GAMES: [(&str, &str); 9] = [
        (
            "opera",
            include_str!("../../../../tests/data/games/opera.pgn"),
        ),
        (
            "immortal",
            include_str!("../../../../tests/data/games/immortal.pgn"),
        ),
        (
            "evergreen",
            include_str!("../../../../tests/data/games/evergreen.pgn"),
        ),
        (
            "castling_en_passant",
            include_str!("../../../../tests/data/games/castling_en_passant.pgn"),
        ),
        (
            "underpromotion_check",
            include_str!("../../../../tests/data/games/underpromotion_check.pgn"),
        ),
        (
            "queen_promotion_mate",
            include_str!("../../../../tests/data/games/queen_promotion_mate.pgn"),
        ),
        (
            "stalemate",
            include_str!("../../../../tests/data/games/stalemate.pgn"),
        ),
        (
            "threefold",
            include_str!("../../../../tests/data/games/threefold.pgn"),
        ),
        (
            "setup_black_to_move",
            include_str!("../../../../tests/data/games/setup_black_to_move.pgn"),
        ),
    ];

    fn game(name: &str) -> PgnRecord {
        let text = GAMES.iter().find(|(n, _)| *n == name).unwrap().1;
        parse_pgn(text).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    #[test]
    fn every_fixture_replays_and_round_trips() {
        for (name, text) in GAMES {
            let rec = parse_pgn(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!rec.moves.is_empty(), "{name}");
            assert!(rec.moves.len() <= 60, "{name}");
            let end = rec.replay().unwrap_or_else(|e| panic!("{name}: {e}"));
            let expected = end.outcome().map_or("*", |o| o.result_token());
            if expected != "*" {
                assert_eq!(rec.result, expected, "{name}");
            }
            let written = rec.to_pgn_string();
            let again = parse_pgn(&written).unwrap_or_else(|e| panic!("{name}: {e}\n{written}"));
            assert_eq!(again, rec, "{name}\n{written}");
            assert_eq!(again.to_pgn_string(), written, "{name}");
            for line in written.lines() {
                assert!(line.len() <= 80 || line.starts_with('['), "{name}: {line}");
            }
        }
    }

    #[test]
    fn castling_written_with_zeros_reads_as_castling() {
        let sans = |text: &str| -> Vec<String> {
            let rec = parse_pgn(text).unwrap();
            rec.moves.iter().map(|m| m.san.clone()).collect()
        };
        let short = sans("1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. 0-0 0-0 5. d3 *");
        assert_eq!(short[6..8], ["O-O", "O-O"], "{short:?}");
        let long = sans("1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5.0-0-0 0-0-0 *");
        assert_eq!(long[8..10], ["O-O-O", "O-O-O"], "{long:?}");
        let rec = parse_pgn("1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5.0-0-0 *").unwrap();
        assert_eq!(rec.moves[8].uci, "e1c1");
        // Move numbers run into moves are still numbers; a bare number is nothing.
        assert_eq!(without_move_number("12.e4"), "e4");
        assert_eq!(without_move_number("3...Nf6"), "Nf6");
        assert_eq!(without_move_number("17"), "");
        assert_eq!(without_move_number("0-0+"), "0-0+");
        assert_eq!(without_move_number("9.0-0"), "0-0");
    }

    #[test]
    fn famous_games_end_in_mate() {
        for (name, last) in [
            ("opera", "Rd8#"),
            ("immortal", "Be7#"),
            ("evergreen", "Bxe7#"),
        ] {
            let rec = game(name);
            assert_eq!(rec.moves.last().unwrap().san, last, "{name}");
            let end = rec.replay().unwrap();
            assert_eq!(
                end.outcome(),
                Some(Outcome::Win {
                    winner: Side::White,
                    reason: "checkmate".into()
                }),
                "{name}"
            );
        }
    }

    #[test]
    fn fixtures_cover_special_moves() {
        let all: Vec<PgnMove> = GAMES.iter().flat_map(|(n, _)| game(n).moves).collect();
        let has = |san: &str| all.iter().any(|m| m.san == san);
        assert!(has("O-O") && has("O-O-O"));
        assert!(has("exd6"), "en passant in castling_en_passant");
        assert!(all.iter().any(|m| m.san.contains("=N+")));
        assert!(all.iter().any(|m| m.san.contains("=Q")));

        let stalemate = game("stalemate").replay().unwrap();
        assert_eq!(
            stalemate.outcome(),
            Some(Outcome::Draw {
                reason: "stalemate".into()
            })
        );
        let threefold = game("threefold").replay().unwrap();
        assert_eq!(
            threefold.claimable_draw().as_deref(),
            Some("threefold repetition")
        );
        let ep = game("castling_en_passant");
        let mut g = Chess::new();
        for m in &ep.moves {
            let mv = g.parse_uci(&m.uci).unwrap();
            if m.san == "exd6" {
                assert!(mv.is_en_passant());
            }
            g.play(&mv).unwrap();
        }
    }

    #[test]
    fn writer_layout() {
        let mut rec = PgnRecord::new();
        rec.tags.event = "Club \"blitz\" \\ night".into();
        rec.set_date(2026, 3, 7);
        rec.tags.white = "Alice".into();
        rec.set_tag("TimeControl", "300+2");
        rec.push_comment("camera {calibrated}");
        let mut g = Chess::new();
        for (i, uci) in ["e2e4", "e7e5", "g1f3"].iter().enumerate() {
            let mv = g.parse_uci(uci).unwrap();
            rec.push_move(&g.notation(&mv), uci, Some(5.0 + 60.0 * i as f64));
            g.play(&mv).unwrap();
        }
        rec.moves[0].emt_seconds = None;
        rec.push_comment("unexplained change at 0:12:03: cells e2,e4");
        let text = rec.to_pgn_string();
        let expected = "[Event \"Club \\\"blitz\\\" \\\\ night\"]\n\
[Site \"?\"]\n\
[Date \"2026.03.07\"]\n\
[Round \"?\"]\n\
[White \"Alice\"]\n\
[Black \"?\"]\n\
[Result \"*\"]\n\
[TimeControl \"300+2\"]\n\
\n\
{camera calibrated} 1. e4 e5 {[%emt 0:01:05]} 2. Nf3 {[%emt 0:02:05]}\n\
{unexplained change at 0:12:03: cells e2,e4} *\n";
        assert_eq!(text, expected);
        let back = parse_pgn(&text).unwrap();
        assert_eq!(back.tags.event, rec.tags.event);
        assert_eq!(back.moves[1].emt_seconds, Some(65.0));
        assert_eq!(back.moves[0].emt_seconds, None);
        assert_eq!(back.opening_comments, vec!["camera calibrated".to_string()]);
        assert_eq!(back.tag("TimeControl"), Some("300+2"));
    }

    #[test]
    fn black_move_numbers_after_comments_and_setup() {
        let mut rec = PgnRecord::new();
        rec.start_fen = Some("4k3/8/8/8/8/8/4p3/K7 b - - 0 40".into());
        rec.push_move("e1=Q+", "e2e1q", None);
        rec.push_move("Ka2", "a1a2", None);
        rec.moves[0].san = "stale".into();
        rec.rebuild_san().unwrap();
        assert_eq!(rec.moves[0].san, "e1=Q+");
        rec.push_comment("x");
        rec.push_move("Qe2+", "e1e2", None);
        let text = rec.to_pgn_string();
        assert!(text.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4p3/K7 b - - 0 40\"]"));
        assert!(
            text.contains("40... e1=Q+ 41. Ka2 {x} 41... Qe2+ *"),
            "{text}"
        );
        let back = parse_pgn(&text).unwrap();
        assert_eq!(back, rec);
    }

    #[test]
    fn correcting_a_promotion_rebuilds_later_san() {
        let fen = "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1";
        let mut rec = PgnRecord::new();
        rec.start_fen = Some(fen.into());
        let ucis = ["e7e8q", "g7h6", "e8e6"];
        let sans = rebuild_san(Some(fen), &ucis.map(String::from)).unwrap();
        assert_eq!(sans, ["e8=Q", "Kh6", "Qe6+"]);
        for (s, u) in sans.iter().zip(ucis) {
            rec.push_move(s, u, None);
        }
        rec.moves[0].uci = "e7e8n".into();
        // The queen move no longer exists for a knight.
        let err = rec.rebuild_san().unwrap_err().to_string();
        assert!(err.contains("e8e6"), "{err}");
        rec.moves[2].uci = "e8d6".into();
        rec.rebuild_san().unwrap();
        let sans: Vec<&str> = rec.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["e8=N+", "Kh6", "Nd6"]);
    }

    #[test]
    fn reader_skips_variations_nags_and_escapes() {
        let text = "% exported by hand\n[Event \"a\\\\b \\\"c\\\"\"]\n[Result \"1-0\"]\n\n\
1.e4 $1 e5!? (1...c5 {Sicilian (popular)} 2.Nf3 (2.c3) d6) 2.Nf3 ; rest of line\n\
Nc6 2...a6?? {not reached} 0-1\n";
        let err = parse_pgn(text).unwrap_err().to_string();
        assert!(err.contains("a6"), "{err}");
        let text = text.replace("2...a6?? {not reached} ", "{[%emt 0:00:07.5] thinks} ");
        let rec = parse_pgn(&text).unwrap();
        assert_eq!(rec.tags.event, "a\\b \"c\"");
        assert_eq!(rec.ucis(), ["e2e4", "e7e5", "g1f3", "b8c6"]);
        assert_eq!(rec.moves[2].comments, vec!["rest of line".to_string()]);
        assert_eq!(rec.moves[3].emt_seconds, Some(7.5));
        assert_eq!(rec.moves[3].comments, vec!["thinks".to_string()]);
        assert_eq!(rec.result, "0-1");
    }

    #[test]
    fn reader_errors_are_clear() {
        let err = parse_pgn("1. e4 e5 2. Ke3 *").unwrap_err().to_string();
        assert!(err.contains("2. Ke3"), "{err}");
        let err = parse_pgn("[FEN \"bad fen\"]\n1. e4 *")
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"bad fen\""), "{err}");
        assert!(parse_pgn("{never closed").is_err());
        assert!(parse_pgn("1. e4 (1. d4").is_err());
        assert!(parse_pgn("[Event \"x").is_err());
        assert!(parse_pgn("").is_err());
        // A stray closing brace or bracket is an error, not an endless loop.
        assert!(parse_pgn("1. e4 } e5 *")
            .unwrap_err()
            .to_string()
            .contains("'}'"));
        assert!(parse_pgn("1. e4 ] *")
            .unwrap_err()
            .to_string()
            .contains("']'"));
        let ep = parse_pgn("1. e4 Nf6 2. e5 d5 3. exd6 e.p. *").unwrap();
        assert_eq!(ep.moves[4].uci, "e5d6");
        assert_eq!(ep.moves[4].san, "exd6");
        let games = parse_pgn_games("1. e4 *\n\n[Event \"2\"]\n1. d4 d5 1-0\n").unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].result, "1-0");
        assert_eq!(games[1].moves.len(), 2);
    }

    #[test]
    fn long_comments_wrap_within_80_columns() {
        let mut rec = PgnRecord::new();
        let mut g = Chess::new();
        for _ in 0..6 {
            for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] {
                let mv = g.parse_uci(uci).unwrap();
                rec.push_move(&g.notation(&mv), uci, Some(3725.0));
                g.play(&mv).unwrap();
            }
        }
        rec.push_comment(&"word ".repeat(40));
        rec.push_comment("50% %certain");
        rec.set_outcome(g.outcome().as_ref());
        assert_eq!(rec.result, "1/2-1/2");
        let text = rec.to_pgn_string();
        assert!(text.contains("{[%emt 1:02:05]}"));
        for line in text.lines() {
            assert!(line.len() <= 80, "{line}");
            assert!(!line.starts_with('%'), "{line}");
        }
        assert_eq!(parse_pgn(&text).unwrap(), rec);
    }
}
