//! Taking a game up again from its record on disk: the position it starts from, its
//! moves, the position after them and the record itself to go on writing (tags and
//! comments kept). `event` continues every board's game this way after a restart,
//! after a failing camera and after an arbiter's take-back; `record --resume` can
//! share it.

use crate::record::error::{EditError, ReadError};
use crate::record::log::{GameRecord, Recordable};
use crate::record::pdn::PdnRecord;
use crate::record::pgn::{parse_pgn, PgnRecord};
use crate::record::sgf::SgfRecord;
use crate::record::tablut_record::TablutRecord;
use crate::rules::chess::Chess;
use crate::rules::go::Go;
use crate::rules::russian_draughts::RussianDraughts;
use crate::rules::tablut::Tablut;
use crate::rules::{Outcome, Rules};

/// A game read back from its record.
pub struct Resumed<R: Recordable> {
    /// The position the record starts from.
    pub start: R,
    /// The recorded moves, in order.
    pub moves: Vec<R::Move>,
    /// The position after them (with the history the rules need: repetitions).
    pub game: R,
    /// The record as read, to go on writing.
    pub record: R::Record,
    /// The result token the record holds (`*` while the game goes on).
    pub result: String,
}

impl<R: Recordable> Resumed<R> {
    /// A new, empty record of a game that starts at `start`.
    pub fn fresh(start: R, record: R::Record) -> Resumed<R> {
        Resumed {
            game: start.clone(),
            start,
            moves: Vec::new(),
            record,
            result: "*".into(),
        }
    }

    /// The game is over: a result stands in the record, or the rules end it.
    pub fn finished(&self) -> bool {
        self.result != "*" || self.game.outcome().is_some()
    }

    /// The positions before each recorded move, the start first (where a
    /// recording that takes the game up may find the camera still showing the
    /// past), and the moves.
    pub fn before(&self) -> Before<R> {
        let mut g = self.start.clone();
        let mut positions = Vec::with_capacity(self.moves.len());
        for m in &self.moves {
            positions.push(g.clone());
            g.play_legal(m);
        }
        Before {
            positions,
            moves: self.moves.clone(),
            taken_back: None,
        }
    }
}

/// What a recording knows of its game before the first view: the half-moves its
/// record holds and the position before each (the record's start first; none for
/// a new game), and the half-move an arbiter just took back, when that is why it
/// goes on.
pub struct Before<R: Rules> {
    /// The position before each half-move, the record's start first.
    pub positions: Vec<R>,
    /// The half-moves the record holds.
    pub moves: Vec<R::Move>,
    /// The half-move an arbiter just took back, in the record's notation.
    pub taken_back: Option<String>,
}

impl<R: Rules> Default for Before<R> {
    fn default() -> Self {
        Before {
            positions: Vec::new(),
            moves: Vec::new(),
            taken_back: None,
        }
    }
}

/// Games whose records can be read back and edited.
pub trait Resume: Recordable + Sized {
    /// Reads a record. `like` is a game of the same kind whose options (draughts
    /// rules, who moves first in Tablut) the record does not state.
    fn read_record(text: &str, like: &Self) -> Result<Resumed<Self>, ReadError>;
    /// Sets the result token (`1-0`, `0-1`, `1/2-1/2`, `*`), as an arbiter does.
    fn set_result_token(record: &mut Self::Record, token: &str) -> Result<(), EditError>;
    /// The result tokens this game's record format takes; the first four are
    /// always `RESULT_TOKENS`.
    fn result_tokens() -> &'static [&'static str] {
        &RESULT_TOKENS
    }
    /// Whether `token` is a result of this game's record format; the error names
    /// it and says what is.
    fn check_result(token: &str) -> Result<(), EditError> {
        let tokens = Self::result_tokens();
        if tokens.contains(&token) {
            return Ok(());
        }
        let (last, rest) = tokens.split_last().unwrap_or((&"*", &[]));
        Err(EditError::NotAResultOf(
            token.to_string(),
            format!("{} or {last}", rest.join(", ")),
        ))
    }
    /// An arbiter's result for the last game of a record file (`text`), as the live
    /// page's `set_result` and `record --result` set it: the games before it are kept
    /// as they are, `note` (when not empty) is written after its last move. Refused,
    /// the file untouched, when `token` is not a result of the game's format, when
    /// the file cannot be read back, or when the rules already ended the game with
    /// another result (a mate on the board is not overruled; a checkmate's `1-0`
    /// stands). Returns the new file, or None when the result already stands.
    fn set_result_in(
        text: &str,
        like: &Self,
        token: &str,
        note: &str,
    ) -> Result<Option<String>, EditError> {
        Self::check_result(token)?;
        let mut games = Self::split_games(text);
        let last = games.pop().unwrap_or_default();
        let r = Self::read_record(&last, like)?;
        if let Some(o) = r.game.outcome() {
            let ruled = o.result_token();
            if common_result(token) != ruled {
                let reason = match &o {
                    Outcome::Win { reason, .. } | Outcome::Draw { reason } => reason,
                };
                return Err(EditError::RulesEnded {
                    ruled: ruled.to_string(),
                    reason: reason.to_string(),
                    token: token.to_string(),
                });
            }
        }
        if r.result == token {
            return Ok(None);
        }
        let mut record = r.record;
        if !note.is_empty() {
            record.note(note);
        }
        Self::set_result_token(&mut record, token)?;
        let mut out = String::new();
        for g in &games {
            out.push_str(g.trim_end());
            out.push_str("\n\n");
        }
        out.push_str(&record.render());
        Ok(Some(out))
    }
    /// The moves of the last game of a record file (`text`) and the positions
    /// before each, its start first; none when it cannot be read back.
    fn before_in(text: &str, like: &Self) -> Before<Self> {
        Self::split_games(text)
            .pop()
            .and_then(|last| Self::read_record(&last, like).ok())
            .map(|r| r.before())
            .unwrap_or_default()
    }
}

/// The result tokens an arbiter may set in any game's record.
pub(crate) const RESULT_TOKENS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// PDN's draughts results besides: `2-0`, `0-2`, `1-1` score a win as two points
/// (the same results as `1-0`, `0-1`, `1/2-1/2`), `0-0` both sides lose (a double
/// forfeit).
pub(crate) const PDN_RESULT_TOKENS: [&str; 8] =
    ["1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1", "0-0"];

fn check_token(token: &str) -> Result<(), EditError> {
    if RESULT_TOKENS.contains(&token) {
        Ok(())
    } else {
        Err(EditError::NotAResult(token.to_string()))
    }
}

/// A result in the common form: PDN's two-point draughts results as `1-0`,
/// `0-1`, `1/2-1/2`; other tokens as they are.
fn common_result(token: &str) -> &str {
    match token {
        "2-0" => "1-0",
        "0-2" => "0-1",
        "1-1" => "1/2-1/2",
        t => t,
    }
}

/// Plays `moves` from `start`, checking each.
fn replay<R: Rules>(start: &R, moves: &[R::Move]) -> Result<R, ReadError> {
    let mut g = start.clone();
    for (i, m) in moves.iter().enumerate() {
        g.play(m)
            .map_err(|_| ReadError::Illegal { number: i + 1 })?;
    }
    Ok(g)
}

impl Resume for Chess {
    fn read_record(text: &str, _like: &Chess) -> Result<Resumed<Chess>, ReadError> {
        let record: PgnRecord = parse_pgn(text)?;
        let start = match &record.start_fen {
            Some(f) => Chess::from_fen(f)?,
            None => Chess::new(),
        };
        let mut g = start.clone();
        let mut moves = Vec::new();
        for uci in record.ucis() {
            let m = g.parse_uci(&uci)?;
            g.play_legal(&m);
            moves.push(m);
        }
        Ok(Resumed {
            result: record.result.clone(),
            start,
            moves,
            game: g,
            record,
        })
    }
    fn set_result_token(record: &mut PgnRecord, token: &str) -> Result<(), EditError> {
        check_token(token)?;
        record.result = token.to_string();
        Ok(())
    }
}

impl Resume for RussianDraughts {
    fn read_record(
        text: &str,
        like: &RussianDraughts,
    ) -> Result<Resumed<RussianDraughts>, ReadError> {
        let options = like.options();
        let record = PdnRecord::parse(text, options)?;
        let start = RussianDraughts::from_position(*record.game().initial_position(), options);
        let moves = record.moves().to_vec();
        let game = replay(&start, &moves)?;
        Ok(Resumed {
            result: record.result(),
            start,
            moves,
            game,
            record,
        })
    }
    fn set_result_token(record: &mut PdnRecord, token: &str) -> Result<(), EditError> {
        Self::check_result(token)?;
        record.set_result((token != "*").then_some(token))
    }
    fn result_tokens() -> &'static [&'static str] {
        &PDN_RESULT_TOKENS
    }
}

impl Resume for Tablut {
    fn read_record(text: &str, _like: &Tablut) -> Result<Resumed<Tablut>, ReadError> {
        let record = TablutRecord::parse(text)?;
        let start = match &record.setup {
            None => Tablut::new(record.options),
            Some(p) => Tablut::from_position(p, record.options)?,
        };
        let moves: Vec<_> = record.moves.iter().map(|m| m.mv).collect();
        let game = replay(&start, &moves)?;
        let result = match game.outcome() {
            Some(o) => o.result_token().to_string(),
            None => record.result.clone().unwrap_or_else(|| "*".into()),
        };
        Ok(Resumed {
            result,
            start,
            moves,
            game,
            record,
        })
    }
    fn set_result_token(record: &mut TablutRecord, token: &str) -> Result<(), EditError> {
        check_token(token)?;
        record.result = (token != "*").then(|| token.to_string());
        Ok(())
    }
}

impl Resume for Go {
    fn read_record(text: &str, like: &Go) -> Result<Resumed<Go>, ReadError> {
        let record = crate::record::sgf::parse(text, like)?;
        let start = record.start.clone();
        let moves: Vec<_> = record.moves.iter().map(|m| m.mv).collect();
        let game = replay(&start, &moves)?;
        Ok(Resumed {
            result: record.result_token().to_string(),
            start,
            moves,
            game,
            record,
        })
    }
    fn set_result_token(record: &mut SgfRecord, token: &str) -> Result<(), EditError> {
        Self::check_result(token)?;
        record.result = crate::record::sgf::sgf_result(token)
            .map_err(|()| EditError::NotAResult(token.to_string()))?;
        Ok(())
    }
    fn result_tokens() -> &'static [&'static str] {
        &GO_RESULT_TOKENS
    }
    fn check_result(token: &str) -> Result<(), EditError> {
        match crate::record::sgf::sgf_result(token) {
            Ok(_) => Ok(()),
            Err(()) => Err(EditError::NotAResultOf(
                token.to_string(),
                format!("{}, or a score such as B+3.5", GO_RESULT_TOKENS.join(", ")),
            )),
        }
    }
}

/// SGF's Go results besides the common ones: a win by resignation, on time, by
/// forfeit, with the margin unknown, a draw, no result; a win by points is
/// written `B+3.5` or `W+0.5`.
pub(crate) const GO_RESULT_TOKENS: [&str; 14] = [
    "1-0", "0-1", "1/2-1/2", "*", "B+R", "W+R", "B+T", "W+T", "B+F", "W+F", "B+", "W+", "0", "Void",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::log::{GameRecord, Tags};
    use crate::rules::russian_draughts::DraughtsOptions;
    use crate::rules::tablut::TablutOptions;

    /// Writes `n` first legal moves of `start` into a record, with a comment.
    fn written<R: Resume>(start: &R, n: usize) -> (String, R) {
        let tags = Tags {
            white: "Anna".into(),
            round: "3.1".into(),
            ..Tags::default()
        };
        let mut rec = R::Record::start(start, &tags);
        let mut g = start.clone();
        for _ in 0..n {
            let m = g.legal_moves()[0].clone();
            rec.push(&g, &m, None);
            g.play_legal(&m);
        }
        rec.note("arbiter 12:00:00 UTC: noted");
        rec.set_result(&g);
        (rec.render(), g)
    }

    fn round_trip<R: Resume>(start: R) {
        let (text, g) = written(&start, 5);
        let r = R::read_record(&text, &start).unwrap();
        assert_eq!(r.moves.len(), 5);
        assert_eq!(r.game.legal_moves(), g.legal_moves());
        assert_eq!(r.result, "*");
        assert!(!r.finished());
        // The record goes on as it was: tags and comments kept.
        let again = r.record.render();
        assert_eq!(again, text);
        let mut rec = r.record;
        R::set_result_token(&mut rec, "1/2-1/2").unwrap();
        assert!(R::set_result_token(&mut rec, "2-1").is_err());
        let r = R::read_record(&rec.render(), &start).unwrap();
        assert_eq!(r.result, "1/2-1/2");
        assert!(r.finished());
        assert!(again.contains("Anna") && again.contains("noted"), "{again}");
    }

    #[test]
    fn records_of_every_game_are_taken_up_again() {
        round_trip(Chess::new());
        round_trip(RussianDraughts::new(DraughtsOptions::default()));
        round_trip(Tablut::new(TablutOptions::default()));
        round_trip(Go::new(crate::rules::go::GoOptions::sized(9)).unwrap());
    }

    #[test]
    fn a_set_up_chess_start_is_kept() {
        let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
        let start = Chess::from_fen(fen).unwrap();
        let (text, _) = written(&start, 2);
        let r = Chess::read_record(&text, &Chess::new()).unwrap();
        assert_eq!(r.start.fen(), start.fen());
        assert_eq!(r.moves.len(), 2);
    }

    #[test]
    fn a_record_with_castling_written_in_zeros_is_taken_up() {
        let text = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. 0-0 0-0 *\n";
        let r = Chess::read_record(text, &Chess::new()).unwrap();
        assert_eq!(r.moves.len(), 8);
        let mut g = Chess::new();
        for u in [
            "e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5", "e1g1", "e8g8",
        ] {
            g.play_uci(u).unwrap();
        }
        assert_eq!(r.game.fen(), g.fen(), "both sides castled short");
    }

    /// Fool's mate: the rules end the game 0-1.
    fn mated() -> (String, Chess) {
        let mut g = Chess::new();
        let mut rec = <Chess as Recordable>::Record::start(&g, &Tags::default());
        for u in ["f2f3", "e7e5", "g2g4", "d8h4"] {
            let m = g.parse_uci(u).unwrap();
            rec.push(&g, &m, None);
            g.play(&m).unwrap();
        }
        rec.set_result(&g);
        (rec.render(), g)
    }

    #[test]
    fn an_arbiter_result_is_set_on_the_last_game_and_never_overrules_the_rules() {
        let (text, _) = written(&Chess::new(), 3);
        let like = Chess::new();
        // A bad token is named, whatever the game.
        let e = Resume::set_result_in(&text, &like, "2-1", "n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'2-1'") && e.contains("1/2-1/2"), "{e}");
        assert!(
            Resume::set_result_in(&text, &like, "2-0", "n").is_err(),
            "no PDN results in PGN"
        );
        // Set, with its comment; the same again changes nothing.
        let set = Resume::set_result_in(&text, &like, "1-0", "resigned")
            .unwrap()
            .unwrap();
        let r = Chess::read_record(&set, &like).unwrap();
        assert_eq!(r.result, "1-0");
        assert!(
            set.contains("{resigned}") && set.contains("[Result \"1-0\"]"),
            "{set}"
        );
        assert_eq!(
            Resume::set_result_in(&set, &like, "1-0", "again").unwrap(),
            None
        );
        // An arbiter may change a result an arbiter set.
        let changed = Resume::set_result_in(&set, &like, "1/2-1/2", "")
            .unwrap()
            .unwrap();
        assert_eq!(
            Chess::read_record(&changed, &like).unwrap().result,
            "1/2-1/2"
        );
        // A mate on the board stands.
        let (mate, _) = mated();
        let e = Resume::set_result_in(&mate, &like, "1-0", "n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("0-1 (checkmate)") && e.contains("1-0 is not set"),
            "{e}"
        );
        assert!(Resume::set_result_in(&mate, &like, "*", "n").is_err());
        assert_eq!(
            Resume::set_result_in(&mate, &like, "0-1", "n").unwrap(),
            None
        );
        // A file of two games: the first is kept as it is, the second gets it.
        let file = format!("{mate}\n{text}");
        let two = Resume::set_result_in(&file, &like, "0-1", "flag")
            .unwrap()
            .unwrap();
        let games = crate::record::pgn::parse_pgn_games(&two).unwrap();
        assert_eq!(games.len(), 2, "{two}");
        assert_eq!(games[0].result, "0-1");
        assert_eq!(games[1].result, "0-1");
        assert!(two.starts_with(mate.trim_end()), "{two}");
    }

    #[test]
    fn draughts_take_pdn_results_and_tablut_its_own() {
        let d = RussianDraughts::new(DraughtsOptions::default());
        let (text, _) = written(&d, 2);
        let set = Resume::set_result_in(&text, &d, "2-0", "")
            .unwrap()
            .unwrap();
        assert_eq!(
            RussianDraughts::read_record(&set, &d).unwrap().result,
            "2-0"
        );
        assert!(Resume::set_result_in(&text, &d, "3-0", "").is_err());
        let t = Tablut::new(TablutOptions::default());
        let (text, _) = written(&t, 2);
        let set = Resume::set_result_in(&text, &t, "0-1", "")
            .unwrap()
            .unwrap();
        assert_eq!(Tablut::read_record(&set, &t).unwrap().result, "0-1");
        let e = Resume::set_result_in(&text, &t, "2-0", "")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'2-0'"), "{e}");
    }
}
