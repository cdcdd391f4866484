//! One interface over the three record formats, so the recorder writes any game's
//! record the same way: after every accepted move, the whole file anew.

use crate::record::error::ReadError;
use crate::record::pdn::PdnRecord;
use crate::record::pgn::PgnRecord;
use crate::record::sgf::SgfRecord;
use crate::record::tablut_record::{RecordMove, TablutRecord};
use crate::rules::chess::Chess;
use crate::rules::go::Go;
use crate::rules::russian_draughts::RussianDraughts;
use crate::rules::tablut::Tablut;
use crate::rules::{Outcome, Rules};

// Every record's tags, whatever its format.
pub(crate) use crate::record::tags::Tags;

/// A game record being written as the game is played.
pub trait GameRecord<R: Rules> {
    /// A record of a game that starts at `game`.
    fn start(game: &R, tags: &Tags) -> Self
    where
        Self: Sized;
    /// Appends a move played in position `before`, with the time it took.
    fn push(&mut self, before: &R, mv: &R::Move, emt: Option<f64>);
    /// A comment after the last move (before the first, when there is none).
    fn note(&mut self, text: &str);
    /// Drops every comment, move times kept: the game as spectators and
    /// broadcasts get it, without the recorder's and the arbiter's notes.
    fn drop_comments(&mut self);
    /// Starts the record at `game` instead, its moves dropped and its tags and
    /// comments kept: the other side began ([`Rules::other_begins`]). Only the
    /// records of games whose rules let either side begin implement it; the
    /// others are never asked.
    fn begin_with(&mut self, game: &R) {
        let _ = game;
    }
    /// Keeps the first `plies` moves (a correction re-pushes the rest).
    fn truncate(&mut self, plies: usize);
    /// Sets the result the rules give `game` (checkmate, stalemate, a draw the
    /// rules impose), `*` while it goes on. A draw the players may only claim
    /// (threefold repetition, fifty moves) is no result: the arbiter sets it
    /// ([`crate::record::Resume::set_result_in`]).
    fn set_result(&mut self, game: &R);
    /// The complete file.
    fn render(&self) -> String;
    /// Half-moves recorded.
    fn plies(&self) -> usize;
    /// The result written: `*` while the game goes on.
    fn result_token(&self) -> String;
    /// The record itself where it is a PGN one (chess): a caller that tags it
    /// need not read its text back.
    fn as_pgn(&self) -> Option<&PgnRecord> {
        None
    }
}

/// A record file: the games finished in it and the one being written. Play that
/// goes on from the position an illegal move left is a new game in the same file
/// (FIDE 7.5 leaves it to the arbiter), so nothing seen is lost.
pub struct RecordFile<R: Recordable> {
    done: Vec<String>,
    /// The game being written: the file's last.
    pub current: R::Record,
    tags: Tags,
}

impl<R: Recordable> RecordFile<R> {
    /// A file whose first game starts at `game`.
    pub fn new(game: &R, tags: &Tags) -> RecordFile<R> {
        RecordFile {
            done: Vec::new(),
            current: R::Record::start(game, tags),
            tags: tags.clone(),
        }
    }

    /// Ends the current game with `closing` (its result left open) and starts
    /// another at `game`, whose first comment is `opening`.
    pub fn new_game(&mut self, game: &R, closing: &str, opening: &str) {
        self.current.note(closing);
        let next = R::Record::start(game, &self.tags);
        let finished = std::mem::replace(&mut self.current, next);
        self.done.push(finished.render());
        self.current.note(opening);
    }

    /// A file of one game taken up from its record.
    #[cfg(test)]
    pub(crate) fn single(current: R::Record, tags: &Tags) -> RecordFile<R> {
        RecordFile::after(Vec::new(), current, tags)
    }

    /// A file whose games `done` (rendered, as read back) are kept as they are
    /// before `current`, the game that goes on.
    pub fn after(done: Vec<String>, current: R::Record, tags: &Tags) -> RecordFile<R> {
        RecordFile {
            done,
            current,
            tags: tags.clone(),
        }
    }

    /// A file read back (`record --resume`): the games before the last are kept as
    /// they are, the last goes on. Returns the position after its last move too.
    pub fn resume(text: &str, like: &R, tags: &Tags) -> Result<(R, RecordFile<R>), ReadError> {
        let mut games = R::split_games(text);
        let last = games.pop().unwrap_or_default();
        let (game, current) = R::resume(&last, like)?;
        Ok((
            game,
            RecordFile {
                done: games,
                current,
                tags: tags.clone(),
            },
        ))
    }

    /// Half-moves of the game being written.
    pub fn plies(&self) -> usize {
        self.current.plies()
    }

    /// Games in the file, the current one included.
    pub fn games(&self) -> usize {
        self.done.len() + 1
    }

    /// The whole file: every game, a blank line between them.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for g in &self.done {
            out.push_str(g.trim_end());
            out.push_str("\n\n");
        }
        out.push_str(&self.current.render());
        out
    }
}

/// A record file's games, each from its `[Event` tag on (every format here opens
/// a game with it).
pub(crate) fn split_games(text: &str) -> Vec<String> {
    let mut games: Vec<String> = Vec::new();
    let mut in_moves = false;
    for line in text.lines() {
        let tag = line.trim_start().starts_with('[');
        if line.trim_start().starts_with("[Event ") && (games.is_empty() || in_moves) {
            games.push(String::new());
            in_moves = false;
        }
        if !tag && !line.trim().is_empty() {
            in_moves = true;
        }
        match games.last_mut() {
            Some(g) => {
                g.push_str(line);
                g.push('\n');
            }
            None => games.push(format!("{line}\n")),
        }
    }
    if games.is_empty() {
        games.push(String::new());
    }
    games
}

/// Games that have a record format.
pub trait Recordable: Rules {
    /// The record format of this game (PGN, PDN, the Tablut record).
    type Record: GameRecord<Self>;
    /// Whether the record format has a place for the players' ratings, titles,
    /// FIDE ids and the time control (PGN, PDN and the Tablut record do; SGF
    /// has none).
    const PLAYER_TAGS: bool = true;
    /// A draw the players may claim in the current position.
    fn claimable(&self) -> Option<String> {
        None
    }
    /// Reads a record back (`record --resume`): the game after its last move, with
    /// the history its rules need (repetitions), and the record to write on.
    /// `like` gives the rule options when the format does not.
    fn resume(text: &str, like: &Self) -> Result<(Self, Self::Record), ReadError>
    where
        Self: Sized;
    /// A record file's games, each as its own text: from its `[Event` tag on
    /// (every format but SGF), or for SGF each game tree of the collection.
    fn split_games(text: &str) -> Vec<String> {
        split_games(text)
    }
}

fn result_of<R: Recordable>(game: &R) -> Option<Outcome> {
    game.outcome()
}

/// The record's comment when the rules end a game in a draw by themselves
/// (no claim, no arbiter): which rule, and for chess the FIDE article. Wins need
/// none (a mate is marked `#`, a draughts or Tablut win by its last move).
pub fn rule_ending_note(outcome: &Outcome) -> Option<String> {
    let Outcome::Draw { reason } = outcome else {
        return None;
    };
    let law = match reason.as_str() {
        "stalemate" => " (FIDE 5.2.1)",
        "insufficient material" => {
            return Some(
                "dead position: neither side can checkmate (insufficient material); the game is drawn by rule, no claim needed (FIDE 5.2.2)"
                    .into(),
            )
        }
        "fivefold repetition" => " (FIDE 9.6.1)",
        "seventy-five-move rule" => " (FIDE 9.6.2)",
        _ => "",
    };
    Some(format!(
        "{reason}: the game is drawn by rule, no claim needed{law}"
    ))
}

impl Recordable for Chess {
    type Record = PgnRecord;
    fn claimable(&self) -> Option<String> {
        self.claimable_draw()
    }
    fn resume(text: &str, _like: &Chess) -> Result<(Chess, PgnRecord), ReadError> {
        let rec = crate::record::pgn::parse_pgn(text)?;
        let game = rec.replay()?;
        Ok((game, rec))
    }
}

impl GameRecord<Chess> for PgnRecord {
    fn start(game: &Chess, tags: &Tags) -> PgnRecord {
        let mut r = PgnRecord::new();
        r.tags = tags.filled();
        let fen = game.fen();
        if fen != Chess::new().fen() {
            r.start_fen = Some(fen);
        }
        r
    }
    fn push(&mut self, before: &Chess, mv: &<Chess as Rules>::Move, emt: Option<f64>) {
        self.push_move(&before.notation(mv), &before.move_id(mv), emt);
    }
    fn note(&mut self, text: &str) {
        self.push_comment(text);
    }
    fn drop_comments(&mut self) {
        self.opening_comments.clear();
        for m in &mut self.moves {
            m.comments.clear();
        }
    }
    fn truncate(&mut self, plies: usize) {
        self.moves.truncate(plies);
    }
    fn set_result(&mut self, game: &Chess) {
        self.set_outcome(result_of(game).as_ref());
    }
    fn render(&self) -> String {
        self.to_pgn_string()
    }
    fn plies(&self) -> usize {
        self.moves.len()
    }
    fn result_token(&self) -> String {
        self.result.clone()
    }
    fn as_pgn(&self) -> Option<&PgnRecord> {
        Some(self)
    }
}

impl Recordable for RussianDraughts {
    type Record = PdnRecord;
    fn claimable(&self) -> Option<String> {
        self.draw_claimable().map(|o| match o {
            Outcome::Draw { reason } => reason,
            Outcome::Win { reason, .. } => reason,
        })
    }
    fn resume(
        text: &str,
        like: &RussianDraughts,
    ) -> Result<(RussianDraughts, PdnRecord), ReadError> {
        let rec = PdnRecord::parse(text, like.options())?;
        Ok((rec.game().clone(), rec))
    }
}

impl GameRecord<RussianDraughts> for PdnRecord {
    fn start(game: &RussianDraughts, tags: &Tags) -> PdnRecord {
        let mut r = PdnRecord::from_game(game);
        let tags = tags.filled();
        let extra = tags.extra.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        for (name, value) in tags.roster().into_iter().chain(extra) {
            // Only tags the record derives (FEN, ...) are refused: never written.
            let _ = r.set_tag(name, value);
        }
        r
    }
    fn push(
        &mut self,
        _before: &RussianDraughts,
        mv: &<RussianDraughts as Rules>::Move,
        _emt: Option<f64>,
    ) {
        // The record replays every move through its own engine; the recorder only
        // offers legal moves, so a refusal here is a bug worth seeing in the file.
        if let Err(e) = PdnRecord::push(self, mv) {
            self.note(&format!("internal error: {e}"));
        }
    }
    fn note(&mut self, text: &str) {
        let n = self.moves().len();
        if n == 0 {
            let joined = match self.intro_comment() {
                Some(old) => format!("{old} {text}"),
                None => text.to_string(),
            };
            self.set_intro_comment(Some(&joined));
        } else {
            let joined = match self.comment(n - 1) {
                Some(old) => format!("{old} {text}"),
                None => text.to_string(),
            };
            let _ = self.set_comment(n - 1, Some(&joined));
        }
    }
    fn drop_comments(&mut self) {
        self.set_intro_comment(None);
        for i in 0..self.moves().len() {
            let _ = self.set_comment(i, None);
        }
    }
    fn truncate(&mut self, plies: usize) {
        PdnRecord::truncate(self, plies);
    }
    fn set_result(&mut self, game: &RussianDraughts) {
        let token = result_of(game).map(|o| o.result_token());
        let _ = PdnRecord::set_result(self, token);
    }
    fn render(&self) -> String {
        self.to_pdn_string()
    }
    fn plies(&self) -> usize {
        self.moves().len()
    }
    fn result_token(&self) -> String {
        self.result()
    }
}

impl Recordable for Tablut {
    type Record = TablutRecord;
    fn resume(text: &str, _like: &Tablut) -> Result<(Tablut, TablutRecord), ReadError> {
        let rec = TablutRecord::parse(text)?;
        let game = rec.replay()?;
        Ok((game, rec))
    }
}

impl GameRecord<Tablut> for TablutRecord {
    fn start(game: &Tablut, tags: &Tags) -> TablutRecord {
        let mut r = TablutRecord::from_game(game);
        r.tags = tags.filled();
        r
    }
    fn push(&mut self, _before: &Tablut, mv: &<Tablut as Rules>::Move, _emt: Option<f64>) {
        self.moves.push(RecordMove::new(*mv));
    }
    fn note(&mut self, text: &str) {
        match self.moves.last_mut() {
            Some(m) => m.comments.push(text.to_string()),
            None => self.intro.push(text.to_string()),
        }
    }
    fn drop_comments(&mut self) {
        self.intro.clear();
        for m in &mut self.moves {
            m.comments.clear();
        }
    }
    fn truncate(&mut self, plies: usize) {
        self.moves.truncate(plies);
    }
    fn set_result(&mut self, game: &Tablut) {
        self.result = result_of(game).map(|o| o.result_token().to_string());
    }
    fn render(&self) -> String {
        self.to_text()
            .unwrap_or_else(|e| format!("[Event \"?\"]\n\n{{record error: {e}}} *\n"))
    }
    fn plies(&self) -> usize {
        self.moves.len()
    }
    fn result_token(&self) -> String {
        match self.replay().ok().and_then(|g| g.outcome()) {
            Some(o) => o.result_token().to_string(),
            None => self.result.clone().unwrap_or_else(|| "*".into()),
        }
    }
}

impl Recordable for Go {
    const PLAYER_TAGS: bool = false;
    type Record = SgfRecord;
    fn resume(text: &str, like: &Go) -> Result<(Go, SgfRecord), ReadError> {
        let rec = crate::record::sgf::parse(text, like)?;
        let game = rec
            .replay()
            .map_err(|number| ReadError::Illegal { number })?;
        Ok((game, rec))
    }
    fn split_games(text: &str) -> Vec<String> {
        crate::record::sgf_syntax::split_trees(text)
    }
}

impl GameRecord<Go> for SgfRecord {
    fn begin_with(&mut self, game: &Go) {
        self.moves.clear();
        self.start = game.clone();
    }
    fn start(game: &Go, tags: &Tags) -> SgfRecord {
        crate::record::sgf::start_record(game, tags)
    }
    fn push(&mut self, _before: &Go, mv: &<Go as Rules>::Move, _emt: Option<f64>) {
        self.moves.push(crate::record::sgf::SgfMove {
            mv: *mv,
            comments: Vec::new(),
        });
    }
    fn note(&mut self, text: &str) {
        match self.moves.last_mut() {
            Some(m) => m.comments.push(text.to_string()),
            None => self.intro.push(text.to_string()),
        }
    }
    fn drop_comments(&mut self) {
        self.intro.clear();
        for m in &mut self.moves {
            m.comments.clear();
        }
    }
    fn truncate(&mut self, plies: usize) {
        self.moves.truncate(plies);
    }
    fn set_result(&mut self, game: &Go) {
        // The rules never end a game of Go (counting is the players'): only
        // an arbiter's result stands, and it is kept.
        if let Some(o) = result_of(game) {
            self.result = crate::record::sgf::sgf_result(o.result_token())
                .ok()
                .flatten();
        }
    }
    fn render(&self) -> String {
        self.to_sgf()
    }
    fn plies(&self) -> usize {
        self.moves.len()
    }
    fn result_token(&self) -> String {
        SgfRecord::result_token(self).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::resume::Resume;

    /// The tags block of a record of `start` begun with `tags`, and the tags
    /// read back from it.
    fn tags_of<G: Resume>(start: &G, tags: &Tags) -> (String, String) {
        let text = RecordFile::new(start, tags).render();
        let head: String = text
            .lines()
            .take_while(|l| l.starts_with('['))
            .collect::<Vec<_>>()
            .join("\n");
        let back = G::read_record(&text, start).unwrap();
        let again = RecordFile::<G>::single(back.record, tags).render();
        assert_eq!(again, text, "read back and written again, byte for byte");
        (head, text)
    }

    #[test]
    fn one_tags_value_gives_every_format_its_roster_and_extras_in_order() {
        let tags = Tags {
            event: "Club \"night\"".into(),
            white: "Anna".into(),
            extra: vec![
                ("Annotator".into(), "Ben".into()),
                ("Board".into(), "2".into()),
            ],
            ..Tags::default()
        };
        let roster = "[Event \"Club \\\"night\\\"\"]\n[Site \"?\"]\n[Date \"?\"]\n[Round \"?\"]\n[White \"Anna\"]\n[Black \"?\"]\n[Result \"*\"]";
        let extras = "[Annotator \"Ben\"]\n[Board \"2\"]";
        let (pgn, _) = tags_of(&Chess::new(), &tags);
        assert_eq!(pgn, format!("{roster}\n{extras}"));
        let draughts = RussianDraughts::new(Default::default());
        let (pdn, _) = tags_of(&draughts, &tags);
        assert_eq!(pdn, format!("{roster}\n[GameType \"25\"]\n{extras}"));
        let (txt, _) = tags_of(&Tablut::new(Default::default()), &tags);
        assert_eq!(
            txt,
            format!("{roster}\n[FirstMove \"black\"]\n[Repetition \"none\"]\n[HostileThrone \"no\"]\n{extras}")
        );
    }

    #[test]
    fn a_file_of_two_games_resumes_the_second_and_keeps_the_first() {
        let first = "[Event \"A\"]\n[Result \"*\"]\n\n1. e4 e5 {irregular} *\n";
        let second = "[Event \"A\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"r1bqkbnr/1ppp1ppp/p1n5/1B2pN2/4P3/8/PPPP1PPP/RNBQK2R b KQkq - 1 4\"]\n\n4... Nf6 *\n";
        let text = format!("{first}\n{second}");
        assert_eq!(split_games(&text).len(), 2);
        let (game, file) =
            RecordFile::<Chess>::resume(&text, &Chess::new(), &Tags::default()).unwrap();
        assert_eq!(file.games(), 2);
        assert_eq!(file.plies(), 1);
        assert!(
            game.fen().starts_with("r1bqkb1r/1ppp1ppp/p1n2n2/1B2pN2"),
            "{}",
            game.fen()
        );
        let out = file.render();
        assert!(out.contains("1. e4 e5"), "{out}");
        assert!(out.contains("4... Nf6"), "{out}");
    }
}
