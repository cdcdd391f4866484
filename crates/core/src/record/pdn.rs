//! PDN (Portable Draughts Notation) records of Russian draughts games
//! (GameType 25, algebraic squares, `c3-d4` / `c3:e5` moves).
//!
//! The record keeps the engine game, not text: the movetext is rendered from the
//! move log each time, so correcting a move is truncating the log, pushing the
//! right moves and rendering again.

use crate::record::error::{EditError, TextError, TextPos};
use crate::record::Tags;
use crate::rules::russian_draughts::{DraughtsOptions, Move, Position, RussianDraughts};
use crate::rules::{Rules, Side};

/// Tags the record derives itself; users cannot set them.
const DERIVED: [&str; 4] = ["Result", "GameType", "SetUp", "FEN"];
const RESULTS: [&str; 8] = ["1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1", "0-0"];
const LINE_WIDTH: usize = 79;

/// A game record: tags, the game (start position and move log), comments, result.
#[derive(Clone, Debug, PartialEq)]
pub struct PdnRecord {
    /// The roster (in the order PDN requires; `Result` is rendered from the
    /// game), then user tags in insertion order.
    tags: Tags,
    game: RussianDraughts,
    /// `comments[i]` follows move `i`.
    comments: Vec<Option<String>>,
    /// Comment before the first move.
    intro: Option<String>,
    /// Explicit result (resignation, agreement, a file's result); `None` takes the
    /// engine's outcome, or `*` while the game goes on.
    result: Option<String>,
}

fn clean_comment(text: &str) -> Option<String> {
    // Braces would end or nest the comment; whitespace runs do not survive line wrapping.
    let t = text.replace('{', "(").replace('}', ")");
    let words: Vec<&str> = t.split_whitespace().collect();
    (!words.is_empty()).then(|| words.join(" "))
}

fn escape_tag(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace(['\n', '\r'], " ")
}

impl PdnRecord {
    /// An empty record from the standard start.
    #[cfg(test)]
    pub(crate) fn new(options: DraughtsOptions) -> PdnRecord {
        Self::from_game(&RussianDraughts::new(options))
    }

    /// A record of `game` from its initial position with all its moves.
    pub(crate) fn from_game(game: &RussianDraughts) -> PdnRecord {
        PdnRecord {
            tags: Tags::unknown(),
            game: game.clone(),
            comments: vec![None; game.moves().len()],
            intro: None,
            result: None,
        }
    }

    /// A tag's value, by name.
    #[cfg(test)]
    pub(crate) fn tag(&self, name: &str) -> Option<&str> {
        self.tags.get(name)
    }

    /// Sets a tag (replacing its value if present). Tag names are letters, digits
    /// and `_`; Result, GameType, SetUp and FEN are derived and refused.
    pub(crate) fn set_tag(&mut self, name: &str, value: &str) -> Result<(), EditError> {
        let name_ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !name_ok {
            return Err(EditError::BadTagName(name.to_string()));
        }
        if DERIVED.contains(&name) {
            return Err(EditError::DerivedTag(name.to_string()));
        }
        self.tags.set(name, value);
        Ok(())
    }

    /// The game after all recorded moves.
    pub(crate) fn game(&self) -> &RussianDraughts {
        &self.game
    }

    /// The moves recorded, in order.
    pub(crate) fn moves(&self) -> &[Move] {
        self.game.moves()
    }

    /// Each move in record notation, as read in the position it was played from.
    pub(crate) fn notations(&self) -> Vec<String> {
        let mut pos = *self.game.initial_position();
        self.game
            .moves()
            .iter()
            .map(|m| {
                let n = pos.notation(m);
                pos = pos.play(m);
                n
            })
            .collect()
    }

    /// Appends a move; it must be legal in the current position.
    pub(crate) fn push(&mut self, mv: &Move) -> Result<(), EditError> {
        self.game.play(mv)?;
        self.comments.push(None);
        Ok(())
    }

    /// Parses a move in record notation and appends it.
    #[cfg(test)]
    pub(crate) fn push_notation(&mut self, text: &str) -> Result<Move, EditError> {
        let mv = self.game.play_notation(text)?;
        self.comments.push(None);
        Ok(mv)
    }

    /// Keeps the first `len` moves (and their comments).
    pub(crate) fn truncate(&mut self, len: usize) {
        if len >= self.game.moves().len() {
            return;
        }
        // A fresh replay keeps every draw counter exact.
        let mut g =
            RussianDraughts::from_position(*self.game.initial_position(), self.game.options());
        for m in &self.game.moves()[..len] {
            g.play_legal(m);
        }
        self.game = g;
        self.comments.truncate(len);
    }

    /// The comment after move `index` (from 0), if any.
    pub(crate) fn comment(&self, index: usize) -> Option<&str> {
        self.comments.get(index).and_then(|c| c.as_deref())
    }

    /// Sets or clears the comment after move `index` (0-based).
    pub(crate) fn set_comment(
        &mut self,
        index: usize,
        text: Option<&str>,
    ) -> Result<(), EditError> {
        let moves = self.comments.len();
        let slot = self
            .comments
            .get_mut(index)
            .ok_or(EditError::NoMove { index, moves })?;
        *slot = text.and_then(clean_comment);
        Ok(())
    }

    /// The comment before the first move, if any.
    pub(crate) fn intro_comment(&self) -> Option<&str> {
        self.intro.as_deref()
    }

    /// Sets (or, with None, removes) the comment before the first move.
    pub(crate) fn set_intro_comment(&mut self, text: Option<&str>) {
        self.intro = text.and_then(clean_comment);
    }

    /// Sets an explicit result token (`1-0`, `0-1`, `1/2-1/2`, `*`, or the draughts
    /// forms `2-0`, `0-2`, `1-1`, `0-0`), or `None` to follow the game's outcome.
    pub(crate) fn set_result(&mut self, token: Option<&str>) -> Result<(), EditError> {
        match token {
            Some(t) if !RESULTS.contains(&t) => Err(EditError::NotAPdnResult(t.to_string())),
            _ => {
                self.result = token.map(str::to_string);
                Ok(())
            }
        }
    }

    /// The result token the file ends with.
    pub(crate) fn result(&self) -> String {
        match (&self.result, self.game.outcome()) {
            (Some(r), _) => r.clone(),
            (None, Some(o)) => o.result_token().to_string(),
            (None, None) => "*".to_string(),
        }
    }

    /// The whole PDN file for this game.
    pub(crate) fn to_pdn_string(&self) -> String {
        let result = self.result();
        let mut out = String::new();
        let mut tag = |k: &str, v: &str| out.push_str(&format!("[{k} \"{}\"]\n", escape_tag(v)));
        for (k, v) in self.tags.roster() {
            tag(k, v);
        }
        tag("Result", &result);
        tag("GameType", "25");
        let start = self.game.initial_position();
        if *start != Position::start() {
            tag("SetUp", "1");
            tag("FEN", &start.to_fen());
        }
        for (k, v) in &self.tags.extra {
            tag(k, v);
        }
        out.push('\n');

        // Units never split across lines; comments are split into words so they wrap.
        let mut units: Vec<String> = Vec::new();
        let comment = |units: &mut Vec<String>, c: &Option<String>| {
            if let Some(c) = c {
                units.extend(format!("{{{c}}}").split(' ').map(str::to_string));
            }
        };
        comment(&mut units, &self.intro);
        let mut number = 1;
        let mut white = start.side_to_move() == Side::White;
        for (i, n) in self.notations().into_iter().enumerate() {
            // No "N..." after a comment: pydraughts' reader miscounts repeated numbers.
            if white {
                units.push(format!("{number}. {n}"));
            } else {
                units.push(if i == 0 {
                    format!("{number}... {n}")
                } else {
                    n
                });
                number += 1;
            }
            white = !white;
            comment(&mut units, &self.comments[i]);
        }
        units.push(result);

        let mut line = String::new();
        for unit in units {
            if !line.is_empty() && line.len() + 1 + unit.len() > LINE_WIDTH {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&unit);
        }
        out.push_str(&line);
        out.push_str("\n\n");
        out
    }

    /// Reads the first game of a PDN text and replays it through the engine.
    pub(crate) fn parse(text: &str, options: DraughtsOptions) -> Result<PdnRecord, TextError> {
        let mut reader = Reader::new(text);
        match reader.game(options)? {
            Some(game) => Ok(game),
            None => Err(reader.fail(reader.pos, "no game in the PDN text")),
        }
    }

    /// Reads every game of a PDN text.
    #[cfg(test)]
    pub(crate) fn parse_all(
        text: &str,
        options: DraughtsOptions,
    ) -> Result<Vec<PdnRecord>, TextError> {
        let mut reader = Reader::new(text);
        let mut games = Vec::new();
        while let Some(g) = reader.game(options)? {
            games.push(g);
        }
        Ok(games)
    }
}

struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Reader<'a> {
        Reader {
            text: text.strip_prefix('\u{feff}').unwrap_or(text),
            pos: 0,
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// An error at byte `pos` of the text.
    fn fail(&self, pos: usize, why: impl Into<String>) -> TextError {
        TextError {
            at: Some(TextPos::of(self.text, pos)),
            why: why.into(),
        }
    }

    /// Skips whitespace and `%` escape lines.
    fn skip_space(&mut self) {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('%') if self.pos == 0 || self.text[..self.pos].ends_with('\n') => {
                    self.skip_line()
                }
                _ => return,
            }
        }
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }

    fn tag(&mut self) -> Result<(String, String), TextError> {
        let open = self.pos;
        self.bump(); // '['
        self.skip_space();
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.bump();
        }
        let name = self.text[start..self.pos].to_string();
        self.skip_space();
        if name.is_empty() || self.bump() != Some('"') {
            return Err(self.fail(open, "malformed tag, expected [Name \"value\"]"));
        }
        let mut value = String::new();
        loop {
            match self.bump() {
                Some('"') => break,
                Some('\\') => match self.bump() {
                    Some(c) => value.push(c),
                    None => break,
                },
                Some('\n') | None => {
                    return Err(self.fail(open, format!("unterminated value of tag {name}")))
                }
                Some(c) => value.push(c),
            }
        }
        self.skip_space();
        if self.bump() != Some(']') {
            return Err(self.fail(open, format!("tag {name} is not closed by ']'")));
        }
        Ok((name, value))
    }

    fn comment(&mut self) -> Result<String, TextError> {
        let open = self.pos;
        self.bump(); // '{'
        let start = self.pos;
        while let Some(c) = self.bump() {
            if c == '}' {
                let body = &self.text[start..self.pos - 1];
                return Ok(body.split_whitespace().collect::<Vec<_>>().join(" "));
            }
        }
        Err(self.fail(open, "comment is not closed by '}'"))
    }

    /// Skips a (possibly nested) variation; comments inside may hold parentheses.
    fn variation(&mut self) -> Result<(), TextError> {
        let open = self.pos;
        let mut depth = 0;
        while let Some(c) = self.peek() {
            match c {
                '{' => {
                    self.comment()?;
                    continue;
                }
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return Ok(());
                    }
                }
                _ => {}
            }
            self.bump();
        }
        Err(self.fail(open, "variation is not closed by ')'"))
    }

    fn word(&mut self) -> &'a str {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| !c.is_whitespace() && !"{}();[]".contains(c))
        {
            self.bump();
        }
        &self.text[start..self.pos]
    }

    /// Next game, or `None` at the end of the text.
    fn game(&mut self, options: DraughtsOptions) -> Result<Option<PdnRecord>, TextError> {
        self.skip_space();
        if self.peek().is_none() {
            return Ok(None);
        }
        let start = self.pos;
        let mut tags = Vec::new();
        while self.peek() == Some('[') {
            tags.push(self.tag()?);
            self.skip_space();
        }
        let find = |name: &str| {
            tags.iter()
                .find(|(k, _): &&(String, String)| k == name)
                .map(|(_, v)| v.clone())
        };
        if let Some(gt) = find("GameType") {
            if gt.split(',').next().map(str::trim) != Some("25") {
                return Err(self.fail(
                    start,
                    format!("GameType {gt:?} is not Russian draughts (25)"),
                ));
            }
        }
        let game = match find("FEN") {
            Some(fen) => RussianDraughts::from_fen(&fen, options)
                .map_err(|e| self.fail(start, format!("FEN tag: {e}")))?,
            None => RussianDraughts::new(options),
        };
        let mut record = PdnRecord::from_game(&game);
        for (k, v) in &tags {
            if !DERIVED.contains(&k.as_str()) {
                record
                    .set_tag(k, v)
                    .map_err(|e| self.fail(start, e.to_string()))?;
            }
        }
        let mut result = find("Result");
        loop {
            self.skip_space();
            let Some(c) = self.peek() else { break };
            match c {
                '[' => break,
                '{' => {
                    let text = self.comment()?;
                    let merged = match record.comments.last_mut() {
                        Some(slot) => slot,
                        None => &mut record.intro,
                    };
                    *merged = clean_comment(&match merged.take() {
                        Some(old) => format!("{old} {text}"),
                        None => text,
                    });
                }
                ';' => self.skip_line(),
                '(' => self.variation()?,
                ')' | '}' | ']' => {
                    return Err(self.fail(self.pos, format!("unexpected {c:?}")));
                }
                _ => {
                    let at = self.pos;
                    let word = self.word();
                    if RESULTS.contains(&word) {
                        result = Some(word.to_string());
                        break;
                    }
                    if word.starts_with('$') {
                        continue;
                    }
                    // Move numbers may be glued to the move: "12.c3-d4", "12...f6-g5".
                    let mv = word
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .trim_start_matches('.');
                    if mv.is_empty() {
                        continue;
                    }
                    let ply = record.moves().len();
                    let number = match game.initial_position().side_to_move() {
                        Side::White => ply / 2 + 1,
                        Side::Black => ply.div_ceil(2) + 1,
                    };
                    let dots = if record.game.side_to_move() == Side::White {
                        "."
                    } else {
                        "..."
                    };
                    // Checked against the board only, not the draw rules: a file may
                    // go on after a draw our options would impose, and the file wins.
                    let parsed = record
                        .game
                        .parse_move(mv)
                        .map_err(|e| self.fail(at, format!("move {number}{dots} {mv}: {e}")))?;
                    record.game.play_legal(&parsed);
                    record.comments.push(None);
                }
            }
        }
        let result = result.filter(|r| r != "*");
        if let Some(r) = result.as_deref() {
            record
                .set_result(Some(r))
                .map_err(|e| self.fail(start, e.to_string()))?;
        }
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Outcome;

    fn opts() -> DraughtsOptions {
        DraughtsOptions::default()
    }

    /// xorshift64: deterministic games without extra crates.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn writes_tags_moves_comments_and_result() {
        let mut r = PdnRecord::new(opts());
        r.set_tag("Event", "Club \"open\"").unwrap();
        r.set_tag("White", "Ivanov").unwrap();
        r.set_tag("Annotator", "boardscribe").unwrap();
        assert!(r.set_tag("Result", "1-0").is_err());
        assert!(r.set_tag("bad tag", "x").is_err());
        for m in ["c3-d4", "f6-g5", "g3-h4"] {
            r.push_notation(m).unwrap();
        }
        r.set_comment(1, Some("a {quiet} move")).unwrap();
        assert!(r.set_comment(3, Some("none")).is_err());
        let expected = "[Event \"Club \\\"open\\\"\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n\
            [Round \"?\"]\n[White \"Ivanov\"]\n[Black \"?\"]\n[Result \"*\"]\n[GameType \"25\"]\n\
            [Annotator \"boardscribe\"]\n\n1. c3-d4 f6-g5 {a (quiet) move} 2. g3-h4 *\n\n";
        assert_eq!(r.to_pdn_string(), expected);
        // A correction is a truncation plus the right move, then a new rendering.
        r.truncate(2);
        r.push_notation("g3-f4").unwrap();
        assert!(r
            .to_pdn_string()
            .ends_with("{a (quiet) move} 2. g3-f4 *\n\n"));
        r.set_result(Some("1/2-1/2")).unwrap();
        assert!(r.to_pdn_string().contains("[Result \"1/2-1/2\"]"));
        assert!(r.to_pdn_string().ends_with("2. g3-f4 1/2-1/2\n\n"));
        assert!(r.set_result(Some("3-0")).is_err());
        let back = PdnRecord::parse(&r.to_pdn_string(), opts()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn set_up_position_black_to_move_and_full_paths() {
        let game = RussianDraughts::from_fen("B:Wc1:Bb2,d2,b4,d4,h8", opts()).unwrap();
        let mut r = PdnRecord::from_game(&game);
        r.push_notation("h8-g7").unwrap();
        r.push_notation("c1:e3:a3:c1").unwrap();
        let text = r.to_pdn_string();
        assert!(text.contains("[SetUp \"1\"]\n[FEN \"B:Wc1:Bb2,d2,b4,d4,h8\"]\n"));
        assert!(
            text.contains("\n1... h8-g7 2. c1:e3:c5:a3:c1 *\n"),
            "{text}"
        );
        let back = PdnRecord::parse(&text, opts()).unwrap();
        assert_eq!(back.game().fen(), "B:Wc1:Bg7");
        assert_eq!(back.moves(), r.moves());
    }

    #[test]
    fn result_follows_the_game() {
        let mut r = PdnRecord::from_game(&RussianDraughts::from_fen("W:Wc3:Bd4", opts()).unwrap());
        r.push_notation("c3:e5").unwrap();
        assert_eq!(r.result(), "1-0");
        assert!(r.to_pdn_string().ends_with("1. c3:e5 1-0\n\n"));
        let back = PdnRecord::parse(&r.to_pdn_string(), opts()).unwrap();
        assert!(matches!(back.game().outcome(), Some(Outcome::Win { .. })));
    }

    #[test]
    fn reader_is_lenient_about_form() {
        let text = "% produced elsewhere\n[Event \"x\"]\n[GameType \"25,W,8,8,A0,0\"]\n\
            [Result \"1-0\"]\n\n{before} 1.c3-d4 $1 f6-e5 ; line comment\n\
            (1... f6-g5 2. g3-h4) 2. d4xf6 {first} {second} 2... g7xe5?! 3.g3-f4 2-0\n\
            [Event \"next\"]\n1. c3-b4 *\n";
        let all = PdnRecord::parse_all(text, opts()).unwrap();
        assert_eq!(all.len(), 2);
        let r = &all[0];
        assert_eq!(r.tag("Event"), Some("x"));
        assert_eq!(r.intro_comment(), Some("before"));
        assert_eq!(r.notations(), ["c3-d4", "f6-e5", "d4:f6", "g7:e5", "g3-f4"]);
        assert_eq!(r.comment(2), Some("first second"));
        assert_eq!(r.result(), "2-0");
        assert_eq!(all[1].tag("Event"), Some("next"));
        assert_eq!(all[1].notations(), ["c3-b4"]);
        // The Result tag stands in for a missing result token.
        let r = PdnRecord::parse("[Result \"0-1\"]\n1. c3-d4\n", opts()).unwrap();
        assert_eq!(r.result(), "0-1");
    }

    #[test]
    fn reader_follows_the_file_past_an_imposed_draw() {
        let free = DraughtsOptions {
            king_only_plies: None,
            ..opts()
        };
        let mut r = PdnRecord::from_game(&RussianDraughts::from_fen("W:WKa1:BKh4", free).unwrap());
        for _ in 0..8 {
            for m in ["a1-b2", "h4-g5", "b2-a1", "g5-h4"] {
                r.push_notation(m).unwrap();
            }
        }
        let text = r.to_pdn_string();
        assert!(text.ends_with(" *\n\n"));
        let back = PdnRecord::parse(&text, opts()).unwrap();
        assert_eq!(back.moves().len(), 32);
        assert!(matches!(back.game().outcome(), Some(Outcome::Draw { .. })));
        assert_eq!(back.result(), "1/2-1/2");
        // Appending is refused once the game is over under the reader's options.
        let mut back = back;
        assert!(back.push_notation("a1-b2").is_err());
    }

    #[test]
    fn reader_errors_name_the_problem() {
        let cases = [
            ("1. c3-d4 f6-g5 2. c3-b4 *", "move 2. c3-b4"),
            ("1. c3-d4 f6-g5 2. g3-h4 h6-h5 *", "move 2... h6-h5"),
            ("[Event \"x\"\n1. c3-d4 *", "line 1"),
            ("[GameType \"20\"]\n1. 32-28 *", "GameType"),
            ("[FEN \"W:Wa1:Bz9\"]\n*", "\"z9\""),
            ("1. c3-d4 {open", "comment"),
            ("", "no game"),
        ];
        for (text, needle) in cases {
            let err = PdnRecord::parse(text, opts()).unwrap_err().to_string();
            assert!(err.contains(needle), "{text:?}: {err}");
        }
    }

    #[test]
    fn random_games_round_trip() {
        let starts = [
            None,
            Some("W:Wa1,c3,e1,g1,b2,f2,Kb8:Bf6,a7,e7,d8,f8,h8"),
            Some("B:Wg3,b4,b6:Be5,Kd2"),
            Some("W:Wa1,g3,b4,e1,g1,f2,a3,Ke5:Be7,g7"),
            Some("W:WKa1,Kc1,e3,g3:BKh8,Kf8,d6,b6"),
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut captures, mut promotions, mut multi, mut draws) = (0, 0, 0, 0);
        for i in 0..300 {
            let game = match starts[i % starts.len()] {
                None => RussianDraughts::new(opts()),
                Some(fen) => RussianDraughts::from_fen(fen, opts()).unwrap(),
            };
            let mut r = PdnRecord::from_game(&game);
            r.set_tag("Round", &i.to_string()).unwrap();
            for ply in 0..rng.below(160) + 20 {
                let moves = Rules::legal_moves(r.game());
                if moves.is_empty() {
                    break;
                }
                // Every third game avoids giving captures away, which makes long
                // king endings and hence the draw rules come up.
                let safe: Vec<&Move> = moves
                    .iter()
                    .filter(|m| {
                        let next = r.game().position().play(m);
                        next.legal_moves().iter().all(|n| !n.is_capture())
                    })
                    .collect();
                let m = if i % 3 == 0 && !safe.is_empty() {
                    safe[rng.below(safe.len())].clone()
                } else {
                    moves[rng.below(moves.len())].clone()
                };
                captures += m.is_capture() as u32;
                promotions += m.promotes as u32;
                multi += (m.captured.len() > 1) as u32;
                r.push(&m).unwrap();
                if rng.below(10) == 0 {
                    r.set_comment(ply, Some(&format!("note {ply}"))).unwrap();
                }
            }
            draws += matches!(r.game().outcome(), Some(Outcome::Draw { .. })) as u32;
            if r.game().outcome().is_none() && rng.below(4) == 0 {
                r.set_result(Some("1/2-1/2")).unwrap();
            }
            let text = r.to_pdn_string();
            let back = PdnRecord::parse(&text, opts()).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(back.game().fen(), r.game().fen(), "{text}");
            assert_eq!(back.moves(), r.moves());
            assert_eq!(back.notations(), r.notations());
            assert_eq!(back.result(), r.result());
            assert_eq!(back.to_pdn_string(), text);
            assert!(text.lines().all(|l| l.len() <= 80), "{text}");
        }
        assert!(captures > 1000 && promotions > 50 && multi > 100 && draws > 5);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

            /// Any text, mostly of PDN's own characters: read or refused, never a panic.
            #[test]
            fn reader_never_panics(s in prop::collection::vec(
                prop_oneof![
                    8 => prop::sample::select("[]\"{}();.0123456789 \n-x:WB,KGameTypeFENabcdefgh*/".chars().collect::<Vec<_>>()),
                    1 => any::<char>(),
                ],
                0..300,
            ).prop_map(|c| c.into_iter().collect::<String>())) {
                let _ = PdnRecord::parse_all(&s, DraughtsOptions::default());
            }
        }
    }
}
