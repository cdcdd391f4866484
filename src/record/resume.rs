//! Taking a game up again from its record on disk: the position it starts from, its
//! moves, the position after them and the record itself to go on writing (tags and
//! comments kept). `event` continues every board's game this way after a restart,
//! after a failing camera and after an arbiter's take-back; `record --resume` can
//! share it.

use crate::record::error::{EditError, ReadError};
use crate::record::log::Recordable;
use crate::record::pdn::PdnRecord;
use crate::record::pgn::{parse_pgn, PgnRecord};
use crate::record::tablut_record::TablutRecord;
use crate::rules::chess::Chess;
use crate::rules::russian_draughts::RussianDraughts;
use crate::rules::tablut::Tablut;
use crate::rules::Rules;

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
}

/// Games whose records can be read back and edited.
pub trait Resume: Recordable + Sized {
    /// Reads a record. `like` is a game of the same kind whose options (draughts
    /// rules, who moves first in Tablut) the record does not state.
    fn read_record(text: &str, like: &Self) -> Result<Resumed<Self>, ReadError>;
    /// Sets the result token (`1-0`, `0-1`, `1/2-1/2`, `*`), as an arbiter does.
    fn set_result_token(record: &mut Self::Record, token: &str) -> Result<(), EditError>;
}

/// The result tokens an arbiter may set.
pub const RESULT_TOKENS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

fn check_token(token: &str) -> Result<(), EditError> {
    if RESULT_TOKENS.contains(&token) {
        Ok(())
    } else {
        Err(EditError::NotAResult(token.to_string()))
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
        check_token(token)?;
        record.set_result((token != "*").then_some(token))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::log::{GameRecord, RecordTags};
    use crate::rules::russian_draughts::DraughtsOptions;
    use crate::rules::tablut::TablutOptions;

    /// Writes `n` first legal moves of `start` into a record, with a comment.
    fn written<R: Resume>(start: &R, n: usize) -> (String, R) {
        let tags = RecordTags {
            white: "Anna".into(),
            round: "3.1".into(),
            ..RecordTags::default()
        };
        let mut rec = R::Record::start(start, &tags);
        let mut g = start.clone();
        for _ in 0..n {
            let m = g.legal_moves()[0].clone();
            rec.push(&g, &m, None);
            g.play_legal(&m);
        }
        rec.note("arbiter 12:00:00 UTC: noted");
        rec.set_result(&g, false);
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
}
