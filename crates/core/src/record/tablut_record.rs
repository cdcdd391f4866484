//! Tablut game records: a plain-text format in the spirit of PGN.
//!
//! # Format
//! ```text
//! [Event "Club night"]
//! [Site "Uppsala"]
//! [Date "2026.11.29"]
//! [Round "1"]
//! [White "Linnaeus"]
//! [Black "Celsius"]
//! [Result "*"]
//! [FirstMove "black"]
//! [Repetition "none"]
//! [HostileThrone "no"]
//!
//! {A quiet opening} 1. h5-h6 e6-b6 2. h6-c6xb6 {takes the defender} 2... e7-c7xc6
//! 3. a4-a2 e5-e7 *
//! ```
//! - Tags, one per line, `[Name "value"]`, with `\"` and `\\` escaped inside the value.
//!   The seven PGN tags come first in this order (unknown values are `?`, the date
//!   `????.??.??`), then the rule options:
//!   `FirstMove` (`black` or `white`: who moves first from the standard start),
//!   `Repetition` (`none`, or `draw N`: the N-th occurrence of a position is a draw),
//!   `HostileThrone` (`no` or `yes`: the empty throne helps capture soldiers).
//!   A game that starts anywhere else than the standard start with the `FirstMove`
//!   side to move gets a `Position` tag holding the position text of
//!   `crate::rules::tablut` (`3aaa3/4a4/... b`). Other tags are kept as they are.
//!   A missing option tag means its default (black, none, no).
//! - Then a blank line and the moves. A move number `N.` opens each pair of moves:
//!   the `FirstMove` side's move, then the other side's reply; with Black moving
//!   first, `1. e2-c2 e4-c4` is Black's first move and White's reply. Where the
//!   reply is not right after its number (after a comment, or a set-up game that
//!   starts with the second side to move) it carries `N...` itself.
//! - Moves are `from-to` followed by `x` and each captured square, e.g.
//!   `e1-e3xd3xf3`; readers also accept moves without the capture marks.
//! - `{comments}` may stand before the first move or after any move (no braces
//!   inside; runs of white space count as one space). A `;` comments out the
//!   rest of its line when reading.
//! - The last token is the result: `1-0` (White won), `0-1` (Black won),
//!   `1/2-1/2` (draw) or `*` (unfinished). It matches the `Result` tag. When the
//!   rules decided the game, the result must be theirs; otherwise a decisive
//!   token records a resignation or agreement.
//! - The writer wraps lines at 80 characters.

use crate::record::error::{TagError, TextError, TextPos};
use crate::record::Tags;
use crate::rules::tablut::{Move, Repetition, Tablut, TablutOptions};
use crate::rules::{Rules, Side};

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];
const WRAP: usize = 80;
const RESERVED_TAGS: [&str; 11] = [
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "FirstMove",
    "Repetition",
    "HostileThrone",
    "Position",
];

/// A move of the record and the comments written after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordMove {
    /// The move.
    pub mv: Move,
    /// Comments written after it.
    pub comments: Vec<String>,
}

impl RecordMove {
    /// The move without comments.
    pub(crate) fn new(mv: Move) -> RecordMove {
        RecordMove {
            mv,
            comments: Vec::new(),
        }
    }
}

/// A game record: tags, start, moves with comments and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TablutRecord {
    /// The roster and the tags beyond it and the rule options, in order.
    pub tags: Tags,
    /// Who moves first.
    pub options: TablutOptions,
    /// Position text of a set-up start; `None` for the standard start.
    pub setup: Option<String>,
    /// Comments before the first move.
    pub intro: Vec<String>,
    /// The moves, in order.
    pub moves: Vec<RecordMove>,
    /// A result the rules did not impose (resignation, agreed draw). Ignored when
    /// the moves end the game; `None` otherwise writes `*`.
    pub result: Option<String>,
}

impl TablutRecord {
    /// An empty record from the standard start.
    pub(crate) fn new(options: TablutOptions) -> TablutRecord {
        TablutRecord {
            tags: Tags::unknown(),
            options,
            setup: None,
            intro: Vec::new(),
            moves: Vec::new(),
            result: None,
        }
    }

    /// The record of a game's moves so far, with default tags and no comments.
    pub(crate) fn from_game(game: &Tablut) -> TablutRecord {
        let mut rec = TablutRecord::new(*game.options());
        if game.is_set_up() {
            rec.setup = Some(game.start_position().to_string());
        }
        rec.moves = game.moves().iter().map(|m| RecordMove::new(*m)).collect();
        rec
    }

    fn start_game(&self) -> Result<Tablut, TextError> {
        match &self.setup {
            None => Ok(Tablut::new(self.options)),
            Some(text) => Tablut::from_position(text, self.options)
                .map_err(|e| plain(format!("tag Position: {e}"))),
        }
    }

    /// Plays the moves through the rules; the error names the first illegal one.
    pub(crate) fn replay(&self) -> Result<Tablut, TextError> {
        let mut game = self.start_game()?;
        for (ply, rm) in self.moves.iter().enumerate() {
            let label = move_label(&game, ply, self.options.first_move);
            game.play(&rm.mv)
                .map_err(|_| plain(format!("{label}: {} is not legal here", rm.mv)))?;
        }
        Ok(game)
    }

    /// The result token the record ends with, given the replayed game.
    fn result_token(&self, game: &Tablut) -> String {
        match game.outcome() {
            Some(o) => o.result_token().to_string(),
            None => self.result.clone().unwrap_or_else(|| "*".into()),
        }
    }

    /// Renders the whole record; fails on an illegal move, a bad set-up position,
    /// an unknown result token or an extra tag that would not read back.
    pub(crate) fn to_text(&self) -> Result<String, TextError> {
        if let Some(r) = &self.result {
            if !RESULTS.contains(&r.as_str()) {
                return Err(plain(format!(
                    "result `{r}`: expected 1-0, 0-1, 1/2-1/2 or *"
                )));
            }
        }
        for (name, _) in &self.tags.extra {
            if !valid_tag_name(name) || RESERVED_TAGS.contains(&name.as_str()) {
                return Err(plain(format!(
                    "extra tag `{name}`: not a tag name, or one the record writes itself"
                )));
            }
        }
        let first = self.options.first_move;
        let mut game = self.start_game()?;
        let mut words: Vec<String> = Vec::new();
        for c in &self.intro {
            push_comment(&mut words, c);
        }
        // Whether the next move must carry its own number.
        let mut need_number = true;
        for (ply, rm) in self.moves.iter().enumerate() {
            if !game.legal_moves().contains(&rm.mv) {
                return Err(plain(format!(
                    "{}: {} is not legal here",
                    move_label(&game, ply, first),
                    rm.mv
                )));
            }
            let number = move_number(&game, ply, first);
            if game.side_to_move() == first {
                words.push(format!("{number}."));
            } else if need_number {
                words.push(format!("{number}..."));
            }
            words.push(game.notation(&rm.mv));
            game.play_legal(&rm.mv);
            need_number = false;
            for c in &rm.comments {
                need_number |= push_comment(&mut words, c);
            }
        }
        let result = self.result_token(&game);
        words.push(result.clone());

        let mut out = String::new();
        let tags = self.tags(&result);
        for (name, value) in &tags {
            out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
        }
        out.push('\n');
        let mut line = String::new();
        for w in words {
            if !line.is_empty() && line.len() + 1 + w.len() > WRAP {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&w);
        }
        out.push_str(&line);
        out.push('\n');
        Ok(out)
    }

    fn tags(&self, result: &str) -> Vec<(String, String)> {
        let o = &self.options;
        let roster = self.tags.roster().map(|(n, v)| (n, v.to_string()));
        let mut tags: Vec<(String, String)> = roster
            .into_iter()
            .chain([
                ("Result", result.to_string()),
                ("FirstMove", side_name(o.first_move).to_string()),
                ("Repetition", repetition_text(o.repetition)),
                ("HostileThrone", yes_no(o.hostile_throne).to_string()),
            ])
            .map(|(n, v)| (n.to_string(), v))
            .collect();
        if let Some(p) = &self.setup {
            tags.push(("Position".into(), p.clone()));
        }
        tags.extend(self.tags.extra.iter().cloned());
        tags
    }

    /// Reads a record and replays it; errors name the line, tag or move at fault.
    pub fn parse(text: &str) -> Result<TablutRecord, TextError> {
        let mut rec = TablutRecord::new(TablutOptions::default());
        let mut result_tag: Option<String> = None;
        let mut lines = text.lines().enumerate().peekable();
        while let Some((i, line)) = lines.peek().copied() {
            let t = line.trim();
            if t.is_empty() {
                lines.next();
                continue;
            }
            if !t.starts_with('[') {
                break;
            }
            lines.next();
            // The tag's place: its line, and the column its '[' stands in.
            let column = line.chars().take_while(|c| c.is_whitespace()).count() + 1;
            let (name, value) = parse_tag(t).map_err(|e| at(i + 1, column, e.to_string()))?;
            let bad = |what: &str| {
                at(
                    i + 1,
                    column,
                    format!("tag {name}: {what}, found `{value}`"),
                )
            };
            match name.as_str() {
                roster if Tags::in_roster(roster) => rec.tags.set(roster, &value),
                "Result" => result_tag = Some(value),
                "FirstMove" => {
                    rec.options.first_move = match value.as_str() {
                        "black" => Side::Black,
                        "white" => Side::White,
                        _ => return Err(bad("expected `black` or `white`")),
                    }
                }
                "Repetition" => {
                    rec.options.repetition = parse_repetition(&value)
                        .ok_or_else(|| bad("expected `none` or `draw N` with N >= 2"))?
                }
                "HostileThrone" => {
                    rec.options.hostile_throne = match value.as_str() {
                        "yes" => true,
                        "no" => false,
                        _ => return Err(bad("expected `yes` or `no`")),
                    }
                }
                "Position" => rec.setup = Some(value),
                // Kept as written, a tag given twice twice.
                _ => rec.tags.extra.push((name, value)),
            }
        }
        let first_movetext_line = lines.peek().map_or(0, |(i, _)| *i);
        let body: Vec<&str> = lines.map(|(_, l)| l).collect();
        let tokens = tokenize(&body.join("\n"), first_movetext_line)?;

        let mut game = rec.start_game()?;
        let mut token_result: Option<String> = None;
        for tok in tokens {
            if let Some(r) = &token_result {
                return Err(at(
                    tok.line,
                    tok.column,
                    format!("text after the result {r}"),
                ));
            }
            match tok.kind {
                TokenKind::Comment(c) => match rec.moves.last_mut() {
                    Some(last) => last.comments.push(c),
                    None => rec.intro.push(c),
                },
                TokenKind::Word(w) => {
                    if RESULTS.contains(&w.as_str()) {
                        token_result = Some(w);
                        continue;
                    }
                    let mv_text = strip_move_number(&w);
                    if mv_text.is_empty() {
                        continue;
                    }
                    let ply = rec.moves.len();
                    let mv = game.parse_move(mv_text).map_err(|e| {
                        at(
                            tok.line,
                            tok.column,
                            format!("{}: {e}", move_label(&game, ply, rec.options.first_move)),
                        )
                    })?;
                    game.play_legal(&mv);
                    rec.moves.push(RecordMove::new(mv));
                }
            }
        }
        let token = match (token_result, result_tag) {
            (Some(t), Some(tag)) if t != tag => {
                return Err(plain(format!(
                    "the result {t} at the end differs from the Result tag {tag}"
                )))
            }
            (Some(t), _) => t,
            (None, Some(tag)) => tag,
            (None, None) => "*".into(),
        };
        if !RESULTS.contains(&token.as_str()) {
            return Err(plain(format!(
                "result `{token}`: expected 1-0, 0-1, 1/2-1/2 or *"
            )));
        }
        match game.outcome() {
            Some(o) if token != "*" && token != o.result_token() => {
                return Err(plain(format!(
                    "result {token} contradicts the moves: they end in {} ({})",
                    o.result_token(),
                    outcome_reason(&o)
                )))
            }
            Some(_) => {}
            None if token != "*" => rec.result = Some(token),
            None => {}
        }
        Ok(rec)
    }
}

/// An error at a place in the text.
fn at(line: usize, column: usize, why: String) -> TextError {
    TextError {
        at: Some(TextPos { line, column }),
        why,
    }
}

/// An error of the record as a whole (its moves or tags, not a place in a text).
fn plain(why: String) -> TextError {
    TextError { at: None, why }
}

fn outcome_reason(o: &crate::rules::Outcome) -> &str {
    match o {
        crate::rules::Outcome::Win { reason, .. } | crate::rules::Outcome::Draw { reason } => {
            reason
        }
    }
}

/// Number of the move pair the next move belongs to, counting from the game's start.
fn move_number(game: &Tablut, ply: usize, first: Side) -> usize {
    let offset = usize::from(game.start_position().side_to_move() != first);
    (ply + offset) / 2 + 1
}

/// `move 3 for White` (the move about to be played).
fn move_label(game: &Tablut, ply: usize, first: Side) -> String {
    format!(
        "move {} for {:?}",
        move_number(game, ply, first),
        game.side_to_move()
    )
}

/// Adds `{comment}` word by word; returns whether anything was written.
fn push_comment(words: &mut Vec<String>, comment: &str) -> bool {
    let clean: String = comment.chars().filter(|c| *c != '{' && *c != '}').collect();
    let parts: Vec<&str> = clean.split_whitespace().collect();
    if parts.is_empty() {
        return false;
    }
    let n = parts.len();
    for (i, p) in parts.into_iter().enumerate() {
        let mut w = String::new();
        if i == 0 {
            w.push('{');
        }
        w.push_str(p);
        if i + 1 == n {
            w.push('}');
        }
        words.push(w);
    }
    true
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::Black => "black",
        Side::White => "white",
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn repetition_text(r: Repetition) -> String {
    match r {
        Repetition::Ignore => "none".into(),
        Repetition::Draw(n) => format!("draw {n}"),
    }
}

fn parse_repetition(s: &str) -> Option<Repetition> {
    if s == "none" {
        return Some(Repetition::Ignore);
    }
    let n: u32 = s.strip_prefix("draw ")?.trim().parse().ok()?;
    (n >= 2).then_some(Repetition::Draw(n))
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', " ")
}

fn valid_tag_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse_tag(line: &str) -> Result<(String, String), TagError> {
    let line_text = || line.to_string();
    let inner = line
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| TagError::NotATag { line: line_text() })?;
    let (name, rest) = inner
        .trim()
        .split_once(char::is_whitespace)
        .ok_or_else(|| TagError::NoValue { line: line_text() })?;
    if !valid_tag_name(name) {
        return Err(TagError::BadName {
            line: line_text(),
            name: name.to_string(),
        });
    }
    let rest = rest.trim();
    let quoted = rest
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .ok_or_else(|| TagError::Unquoted { line: line_text() })?;
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('\\' | '"')) => value.push(e),
                _ => return Err(TagError::BadEscape { line: line_text() }),
            },
            '"' => return Err(TagError::StrayQuote { line: line_text() }),
            _ => value.push(c),
        }
    }
    Ok((name.to_string(), value))
}

enum TokenKind {
    Word(String),
    Comment(String),
}

struct Token {
    kind: TokenKind,
    /// 1-based line in the whole text.
    line: usize,
    /// 1-based column (in characters) where the token starts.
    column: usize,
}

/// The characters of a text with the line and column each stands at.
struct Chars<I: Iterator<Item = char>> {
    chars: std::iter::Peekable<I>,
    line: usize,
    column: usize,
}

impl<I: Iterator<Item = char>> Chars<I> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }
}

fn tokenize(body: &str, first_line_index: usize) -> Result<Vec<Token>, TextError> {
    let mut tokens = Vec::new();
    let mut chars = Chars {
        chars: body.chars().peekable(),
        line: first_line_index + 1,
        column: 1,
    };
    while let Some(c) = chars.peek() {
        let (line, column) = (chars.line, chars.column);
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '{' => {
                chars.next();
                let mut text = String::new();
                loop {
                    match chars.next() {
                        None => return Err(at(line, column, "comment `{` never closed".into())),
                        Some('}') => break,
                        Some('\n') => text.push(' '),
                        Some(ch) => text.push(ch),
                    }
                }
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                tokens.push(Token {
                    kind: TokenKind::Comment(text),
                    line,
                    column,
                });
            }
            ';' => {
                while chars.peek().is_some_and(|ch| ch != '\n') {
                    chars.next();
                }
            }
            '}' => return Err(at(line, column, "`}` without `{`".into())),
            _ => {
                let mut word = String::new();
                while let Some(ch) = chars.peek() {
                    if ch.is_whitespace() || ch == '{' || ch == '}' || ch == ';' {
                        break;
                    }
                    word.push(ch);
                    chars.next();
                }
                tokens.push(Token {
                    kind: TokenKind::Word(word),
                    line,
                    column,
                });
            }
        }
    }
    Ok(tokens)
}

/// `12.e2-c2` -> `e2-c2`, `12...` -> ``; other words unchanged.
fn strip_move_number(w: &str) -> &str {
    let digits = w.len() - w.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && w[digits..].starts_with('.') {
        w[digits..].trim_start_matches('.')
    } else {
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::tablut::Position;
    use crate::rules::Square;

    fn mv(text: &str) -> Move {
        let (a, b) = text.split_once('-').unwrap();
        Move::new(Square::parse(a).unwrap(), Square::parse(b).unwrap())
    }

    /// splitmix64: small, seeded, good enough to pick random moves.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// The messages a refused tag gives, as they were when they were plain
    /// strings (users see them).
    #[test]
    fn refused_tags_say_why() {
        let cases = [
            ("[Event]x", "tag `[Event]x` must look like [Name \"value\"]"),
            ("[Event]", "tag `[Event]` has no value"),
            (
                "[Ev-ent \"x\"]",
                "tag `[Ev-ent \"x\"]`: bad tag name `Ev-ent`",
            ),
            (
                "[Event x]",
                "tag `[Event x]`: the value must be in double quotes",
            ),
            (
                "[Event \"a\\b\"]",
                "tag `[Event \"a\\b\"]`: bad escape after `\\`",
            ),
            (
                "[Event \"a\"b\"]",
                "tag `[Event \"a\"b\"]`: unescaped `\"` inside the value",
            ),
        ];
        for (line, why) in cases {
            assert_eq!(parse_tag(line).unwrap_err().to_string(), why, "{line}");
        }
        assert_eq!(
            parse_tag("[Event \"a\\\"b\"]").unwrap(),
            ("Event".to_string(), "a\"b".to_string())
        );
        let err = TablutRecord::parse("  [Event]\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1, column 3: tag `[Event]` has no value"
        );
    }

    #[test]
    fn writes_numbers_comments_and_tags() {
        let mut rec = TablutRecord::new(TablutOptions::default());
        rec.tags.event = "Club \"night\"".into();
        rec.tags.white = "W\\hite".into();
        rec.intro.push("A {braced} start".into());
        for (m, c) in [
            ("e2-c2", None),
            ("e4-c4", None),
            ("d1-d4", Some("threat")),
            ("c4-c3", Some("  spaced   out ")),
            ("e1-e2", None),
        ] {
            let mut rm = RecordMove::new(mv(m));
            if let Some(c) = c {
                rm.comments.push(c.into());
            }
            rec.moves.push(rm);
        }
        let text = rec.to_text().unwrap();
        let expected = "[Event \"Club \\\"night\\\"\"]\n\
            [Site \"?\"]\n\
            [Date \"????.??.??\"]\n\
            [Round \"?\"]\n\
            [White \"W\\\\hite\"]\n\
            [Black \"?\"]\n\
            [Result \"*\"]\n\
            [FirstMove \"black\"]\n\
            [Repetition \"none\"]\n\
            [HostileThrone \"no\"]\n\
            \n\
            {A braced start} 1. e2-c2 e4-c4 2. d1-d4 {threat} 2... c4-c3 {spaced out} 3.\n\
            e1-e2 *\n";
        assert_eq!(text, expected);
        let back = TablutRecord::parse(&text).unwrap();
        assert_eq!(back.tags.event, "Club \"night\"");
        assert_eq!(back.tags.white, "W\\hite");
        assert_eq!(back.intro, ["A braced start"]);
        assert_eq!(back.moves[3].comments, ["spaced out"]);
        assert_eq!(back.moves.len(), 5);
        assert_eq!(back.to_text().unwrap(), text);
    }

    #[test]
    fn captures_are_marked() {
        let mut g =
            Tablut::from_position("9/1k7/9/9/9/9/9/a2da4/9 b", TablutOptions::default()).unwrap();
        g.play(&mv("a2-c2")).unwrap();
        let text = TablutRecord::from_game(&g).to_text().unwrap();
        assert!(
            text.contains("[Position \"9/1k7/9/9/9/9/9/a2da4/9 b\"]\n"),
            "{text}"
        );
        assert!(text.ends_with("\n1. a2-c2xd2 *\n"), "{text}");
    }

    #[test]
    fn set_up_game_starting_with_the_second_side() {
        let opts = TablutOptions::default();
        let start = Position::start().with_side_to_move(Side::White).to_string();
        let mut g = Tablut::from_position(&start, opts).unwrap();
        for m in ["e4-c4", "e2-d2", "c4-c2"] {
            g.play_notation(m).unwrap();
        }
        let text = TablutRecord::from_game(&g).to_text().unwrap();
        assert!(text.contains(&format!("[Position \"{start}\"]")));
        assert!(text.ends_with("\n1... e4-c4 2. e2-d2 c4-c2 *\n"), "{text}");
        // White moving first is written as an option, not a set-up position.
        let opts = TablutOptions {
            first_move: Side::White,
            ..opts
        };
        let mut g = Tablut::new(opts);
        g.play_notation("e4-c4").unwrap();
        let text = TablutRecord::from_game(&g).to_text().unwrap();
        assert!(text.contains("[FirstMove \"white\"]") && !text.contains("Position"));
        assert!(text.ends_with("\n1. e4-c4 *\n"), "{text}");
        assert_eq!(
            TablutRecord::parse(&text)
                .unwrap()
                .replay()
                .unwrap()
                .moves()
                .len(),
            1
        );
    }

    #[test]
    fn module_doc_example_reads() {
        let text = "[Event \"Club night\"]\n[Site \"Uppsala\"]\n[Date \"2026.11.29\"]\n\
            [Round \"1\"]\n[White \"Linnaeus\"]\n[Black \"Celsius\"]\n[Result \"*\"]\n\
            [FirstMove \"black\"]\n[Repetition \"none\"]\n[HostileThrone \"no\"]\n\n\
            {A quiet opening} 1. h5-h6 e6-b6 2. h6-c6xb6 {takes the defender} 2... e7-c7xc6\n\
            3. a4-a2 e5-e7 *\n";
        let rec = TablutRecord::parse(text).unwrap();
        assert_eq!(rec.moves.len(), 6);
        assert_eq!(rec.to_text().unwrap(), text);
        let game = rec.replay().unwrap();
        assert_eq!(game.king_square(), Square::parse("e7"));
        assert!(game.position().king_left_throne());
    }

    #[test]
    fn reads_hand_written_records() {
        let text = "[Event \"Test\"]\n[Repetition \"draw 3\"]\n[HostileThrone \"yes\"]\n\
            [Annotator \"me\"]\n\n\
            ; a line comment\n1.e2-c2 e4-c4{no space} 2. d1d4\n2... c4-c3 *\n";
        let rec = TablutRecord::parse(text).unwrap();
        assert_eq!(rec.options.repetition, Repetition::Draw(3));
        assert!(rec.options.hostile_throne);
        assert_eq!(
            rec.tags.extra,
            [("Annotator".to_string(), "me".to_string())]
        );
        assert_eq!(rec.moves.len(), 4);
        assert_eq!(rec.moves[1].comments, ["no space"]);
        assert_eq!(rec.moves[2].mv, mv("d1-d4"));
        assert_eq!(rec.result, None);
        // A resignation survives the round trip.
        let text = "[Result \"0-1\"]\n\n1. e2-c2 0-1\n";
        let rec = TablutRecord::parse(text).unwrap();
        assert_eq!(rec.result.as_deref(), Some("0-1"));
        assert!(rec.to_text().unwrap().ends_with("1. e2-c2 0-1\n"));
    }

    #[test]
    fn errors_name_the_fault() {
        let err = |t: &str| TablutRecord::parse(t).unwrap_err().to_string();
        let e = err("\n1. e2-c2 e4-c4 2. e1-e9 *\n");
        assert!(
            e.contains("line 2") && e.contains("move 2 for Black"),
            "{e}"
        );
        assert!(e.contains("e1-e9"), "{e}");
        let e = err("1. e2-c2 e2-c3 *");
        assert!(
            e.contains("move 1 for White") && e.contains("no piece on e2"),
            "{e}"
        );
        let e = err("[Event \"x]\n\n*");
        assert!(e.contains("line 1") && e.contains("Event"), "{e}");
        let e = err("[FirstMove \"red\"]\n\n*");
        assert!(e.contains("FirstMove") && e.contains("red"), "{e}");
        let e = err("[Repetition \"draw 1\"]\n\n*");
        assert!(e.contains("Repetition"), "{e}");
        let e = err("[Position \"9/9 b\"]\n\n*");
        assert!(e.contains("tag Position") && e.contains("rank"), "{e}");
        let e = err("1. e2-c2 {open *");
        assert!(e.contains("never closed"), "{e}");
        let e = err("[Result \"1-0\"]\n\n1. e2-c2 0-1");
        assert!(e.contains("Result tag"), "{e}");
        let e = err("1. e2-c2 2-0");
        assert!(e.contains("`2-0`"), "{e}");
        let e = err("1. e2-c2 * e4-c4");
        assert!(e.contains("after the result"), "{e}");
        // The rules decided: White's king reached the edge, so 0-1 is wrong.
        let e = err("[Position \"9/9/9/9/9/9/9/1k7/a8 w\"]\n\n1... b2-b1 0-1");
        assert!(e.contains("contradicts") && e.contains("edge"), "{e}");
        let ok = TablutRecord::parse("[Position \"9/9/9/9/9/9/9/1k7/a8 w\"]\n\n1... b2-b1 1-0");
        assert!(ok.is_ok());
        // Writing an illegal log fails too, naming the move.
        let mut rec = TablutRecord::new(TablutOptions::default());
        rec.moves.push(RecordMove::new(mv("e2-e3")));
        let e = rec.to_text().unwrap_err().to_string();
        assert!(e.contains("move 1 for Black") && e.contains("e2-e3"), "{e}");
        assert!(rec.replay().is_err());
        let mut rec = TablutRecord::new(TablutOptions::default());
        rec.result = Some("2-0".into());
        assert!(rec.to_text().unwrap_err().to_string().contains("`2-0`"));
        rec.result = None;
        rec.tags.extra.push(("Event".into(), "again".into()));
        assert!(rec.to_text().unwrap_err().to_string().contains("`Event`"));
        rec.tags.extra[0].0 = "Two words".into();
        assert!(rec
            .to_text()
            .unwrap_err()
            .to_string()
            .contains("`Two words`"));
        rec.tags.extra[0].0 = "Annotator".into();
        assert!(rec.to_text().is_ok());
    }

    #[test]
    fn random_games_round_trip() {
        let mut rng = Rng(0x7AB1_u64);
        let mut finished = 0;
        let mut tokens_seen = std::collections::BTreeSet::new();
        for game_no in 0..300 {
            let options = TablutOptions {
                first_move: if rng.below(2) == 0 {
                    Side::Black
                } else {
                    Side::White
                },
                repetition: if rng.below(3) == 0 {
                    Repetition::Draw(2 + rng.below(3) as u32)
                } else {
                    Repetition::Ignore
                },
                hostile_throne: rng.below(4) == 0,
            };
            let mut game = Tablut::new(options);
            // Some games start from a set-up position reached by random moves.
            if rng.below(5) == 0 {
                for _ in 0..rng.below(12) {
                    let moves = game.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    game.play(&moves[rng.below(moves.len())]).unwrap();
                }
                game = Tablut::from_position(&game.position().to_string(), options).unwrap();
            }
            let mut rec = TablutRecord::from_game(&game);
            rec.tags.event = format!("Random game {game_no}");
            rec.tags.date = "2026.11.29".into();
            if rng.below(3) == 0 {
                rec.intro.push(format!("seed comment {game_no}"));
            }
            let length = rng.below(250);
            for _ in 0..length {
                let moves = game.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.below(moves.len())];
                game.play(&m).unwrap();
                let mut rm = RecordMove::new(m);
                if rng.below(10) == 0 {
                    rm.comments.push(format!("note {}", rng.below(1000)));
                }
                rec.moves.push(rm);
            }
            if let Some(o) = game.outcome() {
                finished += 1;
                tokens_seen.insert(o.result_token());
            } else if rng.below(4) == 0 {
                rec.result = Some(["1-0", "0-1", "1/2-1/2"][rng.below(3)].into());
            }
            let text = rec.to_text().unwrap();
            assert!(text.lines().all(|l| l.len() <= WRAP), "{text}");
            let back = TablutRecord::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(back, rec, "{text}");
            assert_eq!(back.to_text().unwrap(), text);
            let replayed = back.replay().unwrap();
            assert_eq!(replayed.position(), game.position());
            assert_eq!(replayed.outcome(), game.outcome());
        }
        // The sample must include decided games, not only cut-off ones.
        assert!(finished > 20, "only {finished} finished games");
        assert_eq!(tokens_seen.len(), 3, "{tokens_seen:?}");
    }
}
