//! A game as the user set it up, checked once: the raw [`Setup`] (flags, a round
//! file's keys) becomes a [`GameSetup`] holding the parsed start position, or a
//! [`SetupError`] that says what is wrong with which part.

use super::GameKind;
use crate::record::resume::Resume;
use crate::record::EditError;
use crate::rules::chess::Chess;
use crate::rules::go::{Go, GoOptions, GoOptionsError};
use crate::rules::russian_draughts::{DraughtsOptions, RussianDraughts};
use crate::rules::tablut::{Tablut, TablutOptions};
use crate::rules::{FenError, Side};

/// A game as given: which, its start position as text (none: the game's own
/// start), and its rule options. Nothing is checked until [`GameSetup::parse`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    /// The game.
    pub kind: GameKind,
    /// A set-up start in the game's own notation: chess FEN, PDN FEN for
    /// draughts, Tablut's position text.
    pub start: Option<String>,
    /// Tablut: White moves first from the standard start (Black does otherwise).
    pub white_first: bool,
    /// Go: the board size (from the grid), the handicap, the komi, the ko rule.
    pub go: GoOptions,
}

impl Setup {
    /// The game from its standard start, default options.
    pub(crate) fn standard(kind: GameKind) -> Setup {
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
    BadStart {
        /// The game.
        kind: GameKind,
        /// What is wrong with the position.
        error: FenError,
    },
    /// A rule option of another game.
    #[error("an option of {}, not of {}", of.display_name(), kind.display_name())]
    NotForGame {
        /// The game played.
        kind: GameKind,
        /// The option, as the round file spells it (`white-first`).
        option: &'static str,
        /// The game it belongs to.
        of: GameKind,
    },
    /// Go's options make no game: a size or handicap it does not have, or a
    /// handicap besides a set-up position.
    #[error(transparent)]
    Go(#[from] GoOptionsError),
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
    // A Go board is a fixed array of every point: boxed, so that the other
    // starts stay small.
    Go(Box<Go>),
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
    /// What the visit returns.
    type Output;
    /// Does the thing with the start position, `G` being the game's rules type.
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
        if setup.go != GoOptions::default() && kind != GameKind::Go {
            return Err(SetupError::NotForGame {
                kind,
                option: go_option(&setup.go),
                of: GameKind::Go,
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
            GameKind::Go => Start::Go(Box::new(go_start(text, setup.go).map_err(|e| match e {
                GoStartError::Position(error) => SetupError::BadStart { kind, error },
                GoStartError::Options(e) => SetupError::Go(e),
            })?)),
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
            GameKind::Go => Start::Go(Box::new(
                Go::new(GoOptions::default())
                    .unwrap_or_else(|e| unreachable!("the default Go options make a game: {e}")),
            )),
        };
        GameSetup {
            setup: Setup::standard(kind),
            start,
        }
    }

    /// The game.
    pub fn kind(&self) -> GameKind {
        self.setup.kind
    }

    /// The setup as given (what a board's entry sends to a broadcast).
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// Whether the game's records take `token` as a result (`record --result`);
    /// the error names the record format and says what it takes.
    pub fn check_result(&self, token: &str) -> Result<(), EditError> {
        struct Check<'a>(&'a str);
        impl GameVisitor for Check<'_> {
            type Output = Result<(), EditError>;
            fn visit<G: Resume>(self, _: &G) -> Self::Output {
                G::check_result(self.0)
            }
        }
        self.visit(Check(token))
    }

    /// Does `v` with the start position as its game's rules type: the one place
    /// a kind becomes its rules.
    pub fn visit<V: GameVisitor>(&self, v: V) -> V::Output {
        match &self.start {
            Start::Chess(g) => v.visit(g),
            Start::RussianDraughts(g) => v.visit(g),
            Start::Tablut(g) => v.visit(g),
            Start::Go(g) => v.visit(g.as_ref()),
        }
    }
}

/// Why a Go start was refused: its position text, or its options.
enum GoStartError {
    Position(FenError),
    Options(GoOptionsError),
}

/// A Go game from its options, or from a set-up position of the options' size
/// (no handicap besides: the position's stones are the handicap).
fn go_start(text: Option<&str>, options: GoOptions) -> Result<Go, GoStartError> {
    let Some(text) = text else {
        return Go::new(options).map_err(GoStartError::Options);
    };
    if options.handicap != 0 {
        return Err(GoStartError::Options(GoOptionsError::HandicapAndPosition));
    }
    let game = Go::from_position(text, options).map_err(GoStartError::Position)?;
    if game.size() != options.size {
        return Err(GoStartError::Options(GoOptionsError::PositionSize {
            position: game.size(),
            size: options.size,
        }));
    }
    Ok(game)
}

/// The first Go option set otherwise than by default, named as a round file
/// would name it.
fn go_option(o: &GoOptions) -> &'static str {
    let d = GoOptions::default();
    if o.handicap != d.handicap {
        "handicap"
    } else if o.komi != d.komi {
        "komi"
    } else if o.superko != d.superko {
        "superko"
    } else {
        "size"
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
            ..Setup::default()
        })
    }

    #[test]
    fn go_sets_up_with_its_size_handicap_and_position() {
        let (n, side, record) = GameSetup::standard(GameKind::Go).visit(Look);
        assert_eq!((n, side), (362, Side::Black));
        assert!(record.starts_with("(;FF[4]GM[1]SZ[19]"), "{record}");
        let go = |start: Option<&str>, options: GoOptions| {
            GameSetup::parse(&Setup {
                kind: GameKind::Go,
                start: start.map(str::to_string),
                go: options,
                ..Setup::default()
            })
        };
        let h = GoOptions {
            handicap: 3,
            ..GoOptions::sized(13)
        };
        let (n, side, record) = go(None, h).unwrap().visit(Look);
        assert_eq!((n, side), (169 - 3 + 1, Side::White));
        assert!(
            record.contains("SZ[13]") && record.contains("HA[3]"),
            "{record}"
        );
        let nine = GoOptions::sized(9);
        let s = go(Some("9/9/9/9/4X4/9/9/9/9 w"), nine).unwrap();
        assert_eq!(s.visit(Look).1, Side::White);
        let e = go(Some("9/9/9/9/4X4/9/9/9/9 w"), GoOptions::default()).unwrap_err();
        assert!(e.to_string().contains("9x9") && e.is_usage(), "{e}");
        let e = go(
            Some("9/9/9/9/4X4/9/9/9/9 w"),
            GoOptions {
                handicap: 2,
                ..nine
            },
        )
        .unwrap_err();
        assert_eq!(e, SetupError::Go(GoOptionsError::HandicapAndPosition));
        let e = go(Some("nonsense"), nine).unwrap_err();
        assert!(
            e.to_string().starts_with("not a Go start position: "),
            "{e}"
        );
        let e = go(
            None,
            GoOptions {
                handicap: 10,
                ..nine
            },
        )
        .unwrap_err();
        assert!(e.is_usage() && e.to_string().contains("10 stone(s)"), "{e}");
        // Go's options are not chess's.
        let e = GameSetup::parse(&Setup {
            kind: GameKind::Chess,
            go: GoOptions {
                handicap: 2,
                ..GoOptions::default()
            },
            ..Setup::default()
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "an option of Go, not of chess");
        assert!(matches!(
            e,
            SetupError::NotForGame {
                option: "handicap",
                ..
            }
        ));
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
            [
                (20, Side::White),
                (7, Side::White),
                (80, Side::Black),
                (362, Side::Black)
            ]
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
