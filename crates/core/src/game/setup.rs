//! A game as the user set it up, checked once: the raw [`Setup`] (flags, a round
//! file's keys) becomes a [`GameSetup`] holding the parsed start position, or a
//! [`SetupError`] that says what is wrong with which part.

use super::GameKind;
use crate::record::resume::Resume;
use crate::rules::chess::Chess;
use crate::rules::russian_draughts::{DraughtsOptions, RussianDraughts};
use crate::rules::tablut::{Tablut, TablutOptions};
use crate::rules::{FenError, Side};

/// A game as given: which, its start position as text (none: the game's own
/// start), and its rule options. Nothing is checked until [`GameSetup::parse`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    pub kind: GameKind,
    /// A set-up start in the game's own notation: chess FEN, PDN FEN for
    /// draughts, Tablut's position text.
    pub start: Option<String>,
    /// Tablut: White moves first from the standard start (Black does otherwise).
    pub white_first: bool,
}

impl Setup {
    /// The game from its standard start, default options.
    pub fn standard(kind: GameKind) -> Setup {
        Setup {
            kind,
            ..Setup::default()
        }
    }
}

/// Why a game cannot be set up as given. Each message says what is wrong; the
/// caller puts the flag or key it came from in front.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// No game goes by this name.
    #[error("'{0}' is not a game: {names}", names = GameKind::names())]
    UnknownGame(String),
    /// The start position does not parse, or the rules do not allow it.
    #[error("not a {} start position: {error}", kind.display_name())]
    BadStart { kind: GameKind, error: FenError },
    /// A rule option of another game.
    #[error("an option of {}, not of {}", of.display_name(), kind.display_name())]
    NotForGame {
        kind: GameKind,
        /// The option, as the round file spells it (`white-first`).
        option: &'static str,
        /// The game it belongs to.
        of: GameKind,
    },
}

impl SetupError {
    /// A usage mistake (exit status 2 for `record`), rather than an input that
    /// cannot be used (a start that is not a position: 1).
    pub fn is_usage(&self) -> bool {
        !matches!(self, SetupError::BadStart { .. })
    }
}

/// A game ready to be played: its kind, options and parsed start.
#[derive(Clone, Debug)]
pub struct GameSetup {
    setup: Setup,
    start: Start,
}

/// The start position, of the game's own rules type.
#[derive(Clone, Debug)]
enum Start {
    Chess(Chess),
    RussianDraughts(RussianDraughts),
    Tablut(Tablut),
}

impl Default for GameSetup {
    /// Chess from the standard start.
    fn default() -> GameSetup {
        GameSetup::standard(GameKind::Chess)
    }
}

/// Something done with a game whatever its rules: [`GameSetup::visit`] calls
/// `visit` with the start position as its own rules type.
pub trait GameVisitor {
    type Output;
    fn visit<G: Resume>(self, start: &G) -> Self::Output;
}

impl GameSetup {
    /// Checks a setup: the options belong to the game, the start parses and is a
    /// position its rules allow.
    pub fn parse(setup: &Setup) -> Result<GameSetup, SetupError> {
        let kind = setup.kind;
        if setup.white_first && kind != GameKind::Tablut {
            return Err(SetupError::NotForGame {
                kind,
                option: "white-first",
                of: GameKind::Tablut,
            });
        }
        let bad = |error| SetupError::BadStart { kind, error };
        let text = setup.start.as_deref();
        let start = match kind {
            GameKind::Chess => Start::Chess(match text {
                Some(fen) => Chess::from_fen(fen).map_err(bad)?,
                None => Chess::new(),
            }),
            GameKind::RussianDraughts => {
                let o = DraughtsOptions::default();
                Start::RussianDraughts(match text {
                    Some(fen) => RussianDraughts::from_fen(fen, o).map_err(bad)?,
                    None => RussianDraughts::new(o),
                })
            }
            GameKind::Tablut => {
                let mut o = TablutOptions::default();
                if setup.white_first {
                    o.first_move = Side::White;
                }
                Start::Tablut(match text {
                    Some(p) => Tablut::from_position(p, o).map_err(bad)?,
                    None => Tablut::new(o),
                })
            }
        };
        Ok(GameSetup {
            setup: setup.clone(),
            start,
        })
    }

    /// The game from its standard start, default options.
    pub fn standard(kind: GameKind) -> GameSetup {
        let start = match kind {
            GameKind::Chess => Start::Chess(Chess::new()),
            GameKind::RussianDraughts => {
                Start::RussianDraughts(RussianDraughts::new(DraughtsOptions::default()))
            }
            GameKind::Tablut => Start::Tablut(Tablut::new(TablutOptions::default())),
        };
        GameSetup {
            setup: Setup::standard(kind),
            start,
        }
    }

    pub fn kind(&self) -> GameKind {
        self.setup.kind
    }

    /// The setup as given.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// Does `v` with the start position as its game's rules type: the one place
    /// a kind becomes its rules.
    pub fn visit<V: GameVisitor>(&self, v: V) -> V::Output {
        match &self.start {
            Start::Chess(g) => v.visit(g),
            Start::RussianDraughts(g) => v.visit(g),
            Start::Tablut(g) => v.visit(g),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start's legal moves and whose turn it is, whatever the game.
    struct Look;
    impl GameVisitor for Look {
        type Output = (usize, Side, String);
        fn visit<G: Resume>(self, start: &G) -> (usize, Side, String) {
            let record = crate::record::log::RecordFile::new(start, &Default::default());
            (
                start.legal_moves().len(),
                start.side_to_move(),
                record.render(),
            )
        }
    }

    fn parse(
        kind: GameKind,
        start: Option<&str>,
        white_first: bool,
    ) -> Result<GameSetup, SetupError> {
        GameSetup::parse(&Setup {
            kind,
            start: start.map(str::to_string),
            white_first,
        })
    }

    #[test]
    fn each_game_sets_up_its_standard_start() {
        let looks: Vec<_> = GameKind::ALL
            .iter()
            .map(|&k| {
                let s = GameSetup::standard(k);
                assert_eq!(s.kind(), k);
                let (n, side, _) = s.visit(Look);
                (n, side)
            })
            .collect();
        assert_eq!(
            looks,
            [(20, Side::White), (7, Side::White), (80, Side::Black)]
        );
    }

    #[test]
    fn a_set_up_start_is_the_start_of_every_game() {
        let chess = parse(
            GameKind::Chess,
            Some("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"),
            false,
        )
        .unwrap();
        let (_, _, record) = chess.visit(Look);
        assert!(
            record.contains("[FEN \"4k3/8/8/8/8/8/8/R3K3 w - - 0 1\"]"),
            "{record}"
        );
        let draughts = parse(GameKind::RussianDraughts, Some("B:Wa1,c3:Bh8"), false).unwrap();
        assert_eq!(draughts.visit(Look).1, Side::Black);
        let tablut = parse(GameKind::Tablut, None, true).unwrap();
        assert_eq!(tablut.visit(Look).1, Side::White, "white-first");
        assert!(tablut.setup().white_first);
    }

    #[test]
    fn a_bad_start_is_refused_naming_the_game_and_the_text() {
        for (kind, text, game) in [
            (GameKind::Chess, "8/8/8 w - - 0 1", "chess"),
            (GameKind::Chess, "not a fen", "chess"),
            (GameKind::RussianDraughts, "W:Wz9:B1", "Russian draughts"),
            (GameKind::Tablut, "nonsense", "Tablut"),
        ] {
            let e = parse(kind, Some(text), false).unwrap_err();
            assert!(
                matches!(&e, SetupError::BadStart { kind: k, error } if *k == kind && error.text == text),
                "{e:?}"
            );
            assert!(!e.is_usage(), "an input that cannot be used: exit 1");
            let said = e.to_string();
            assert!(
                said.starts_with(&format!("not a {game} start position: ")),
                "{said}"
            );
        }
    }

    #[test]
    fn an_option_of_another_game_is_refused() {
        for kind in [GameKind::Chess, GameKind::RussianDraughts] {
            let e = parse(kind, None, true).unwrap_err();
            assert_eq!(
                e,
                SetupError::NotForGame {
                    kind,
                    option: "white-first",
                    of: GameKind::Tablut
                }
            );
            assert!(e.is_usage());
            assert!(
                e.to_string().starts_with("an option of Tablut, not of "),
                "{e}"
            );
        }
    }
}
