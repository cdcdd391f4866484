//! Naming a change that no legal line explains, as an arbiter would: an illegal
//! move (which piece, from where to where), a piece taken off the board, pieces
//! displaced or knocked over, or squares that could not be read. The board or
//! camera moving is told by the watcher, not here.

use super::explain::{occupancy, InferConfig};
use super::observation::{squares, Observation};
use crate::rules::{Occupant, Rules, Side, Square};

/// A reading at least this sure names what stands on a square; one less sure
/// makes the square unreadable rather than the trace of a move.
const CLEAR: f32 = 0.85;

/// What a change no legal line explains most likely is.
#[derive(Clone, Debug, PartialEq)]
pub enum Irregularity {
    /// One piece went from `from` to `to` (taking what stood there, if
    /// `captured`) where no legal move goes.
    IllegalMove {
        /// The piece's side.
        side: Side,
        /// The piece, in words (`knight`).
        piece: &'static str,
        /// Where it stood.
        from: Square,
        /// Where it stands now.
        to: Square,
        /// Whether a piece stood on `to` before.
        captured: bool,
        /// The side whose turn it was.
        to_move: Side,
    },
    /// A piece left the board with no legal move taking it.
    Removed {
        /// The piece's side.
        side: Side,
        /// The piece, in words.
        piece: &'static str,
        /// Where it stood.
        at: Square,
    },
    /// Pieces moved or knocked over on or near their squares: their squares
    /// changed while the board reads the same pieces, or the change is not one
    /// piece going from one square to another.
    Displaced {
        /// The squares that changed.
        squares: Vec<Square>,
    },
    /// Squares whose readings disagree with the position but are too unsure to be
    /// a move: a shadow, a reflection, a piece the camera cannot make out.
    Unreadable {
        /// The squares read unsurely.
        squares: Vec<Square>,
    },
    /// A move was played, and the pieces it took still stand on the board.
    NotTakenOff {
        /// The move, in the game's notation.
        by: String,
        /// Where the pieces it took still stand.
        squares: Vec<Square>,
    },
}

impl Irregularity {
    /// The squares concerned, for events and the record.
    pub fn squares(&self) -> Vec<Square> {
        match self {
            Irregularity::IllegalMove { from, to, .. } => vec![*from, *to],
            Irregularity::Removed { at, .. } => vec![*at],
            Irregularity::Displaced { squares }
            | Irregularity::Unreadable { squares }
            | Irregularity::NotTakenOff { squares, .. } => squares.clone(),
        }
    }

    /// The event kind (`--events` `type`).
    #[cfg(test)]
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Irregularity::IllegalMove { .. } => "illegal_move",
            Irregularity::Removed { .. } => "piece_removed",
            Irregularity::Displaced { .. } => "displaced",
            Irregularity::Unreadable { .. } => "unreadable",
            Irregularity::NotTakenOff { .. } => "not_taken_off",
        }
    }

    /// What happened, in an arbiter's words (no time, no advice), squares named
    /// as chess names them.
    #[cfg(test)]
    pub(crate) fn describe(&self) -> String {
        self.describe_with(&|s| s.name())
    }

    /// What happened, in an arbiter's words, squares named by `name` (a Go
    /// player's A6 rather than a6).
    pub fn describe_with(&self, name: &dyn Fn(Square) -> String) -> String {
        let names = |sq: &[Square]| sq.iter().map(|s| name(*s)).collect::<Vec<_>>().join(", ");
        match self {
            Irregularity::IllegalMove {
                side,
                piece,
                from,
                to,
                captured,
                to_move,
            } => {
                let sep = if *captured { "x" } else { "-" };
                let turn = if side != to_move {
                    format!(" ({} is to move)", to_move.name())
                } else {
                    String::new()
                };
                format!(
                    "{} {piece} {}{sep}{} is not a legal move{turn}",
                    side.name(),
                    name(*from),
                    name(*to)
                )
            }
            Irregularity::Removed { side, piece, at } => format!(
                "the {} {piece} on {} left the board with no legal move taking it",
                side.name().to_lowercase(),
                name(*at)
            ),
            Irregularity::Displaced { squares } => format!(
                "pieces displaced or knocked over on {} (no legal move explains the change)",
                names(squares)
            ),
            Irregularity::Unreadable { squares } => format!(
                "{} could not be read with confidence (not taken for a move)",
                names(squares)
            ),
            Irregularity::NotTakenOff { by, squares } => format!(
                "{by} was played, and what it took still stands on {}",
                names(squares)
            ),
        }
    }
}

/// What the view shows of one square against the position.
struct Seen {
    sq: Square,
    was: Occupant,
    /// The likeliest occupant now and how sure the reading is.
    now: Occupant,
    p: f32,
    changed: bool,
}

/// Names the irregularity between `game`'s position and the observation; None
/// when nothing disagrees with the position.
pub(crate) fn diagnose<R: Rules>(
    game: &R,
    obs: &Observation,
    cfg: &InferConfig,
) -> Option<Irregularity> {
    let (files, ranks) = game.dims();
    let occ = occupancy(game);
    let llrs = cfg.change.square_llrs(obs, &occ);
    let mut odd: Vec<Seen> = Vec::new();
    for (i, sq) in squares(files, ranks).enumerate() {
        let Some((now, p)) = obs.best(sq) else {
            continue;
        };
        let changed = llrs[i].is_some_and(|l| l > 0.0);
        let fresh = obs.is_fresh(sq);
        if (now != occ[i] && (fresh || changed)) || (changed && p >= CLEAR) {
            odd.push(Seen {
                sq,
                was: occ[i],
                now,
                p,
                changed,
            });
        }
    }
    classify(game, &odd)
}

/// Squares that the line accepted for this view left as they were (`before`, the
/// occupancy the view's changes are measured from, and `game`, the position
/// accepted), whose image changed and which now read clearly as something else:
/// a piece taken off, knocked over or put down with no move. None when there are
/// none; the irregularity they show otherwise.
pub(crate) fn noticed<R: Rules>(
    game: &R,
    before: &[Occupant],
    obs: &Observation,
    cfg: &InferConfig,
) -> Option<Irregularity> {
    let (files, ranks) = game.dims();
    let occ = occupancy(game);
    let llrs = cfg.change.square_llrs(obs, before);
    let odd: Vec<Seen> = squares(files, ranks)
        .enumerate()
        .filter(|(i, _)| before.get(*i) == Some(&occ[*i]))
        .filter(|(i, _)| llrs[*i].is_some_and(|l| l > 0.0))
        .filter_map(|(i, sq)| {
            let (now, p) = obs.best(sq)?;
            (now != occ[i] && p >= CLEAR).then_some(Seen {
                sq,
                was: occ[i],
                now,
                p,
                changed: true,
            })
        })
        .collect();
    if odd.is_empty() {
        return None;
    }
    classify(game, &odd)
}

/// What the squares that disagree with `game` (or changed on it) amount to.
fn classify<R: Rules>(game: &R, odd: &[Seen]) -> Option<Irregularity> {
    let files = game.dims().0;
    let disagree: Vec<&Seen> = odd.iter().filter(|s| s.now != s.was).collect();
    if disagree.is_empty() {
        let moved: Vec<Square> = odd.iter().filter(|s| s.changed).map(|s| s.sq).collect();
        return (!moved.is_empty()).then_some(Irregularity::Displaced { squares: moved });
    }
    if disagree.iter().all(|s| s.p < CLEAR) {
        return Some(Irregularity::Unreadable {
            squares: disagree.iter().map(|s| s.sq).collect(),
        });
    }
    let clear: Vec<&&Seen> = disagree.iter().filter(|s| s.p >= CLEAR).collect();
    let vanished: Vec<&&&Seen> = clear
        .iter()
        .filter(|s| s.was != Occupant::Empty && s.now == Occupant::Empty)
        .collect();
    let arrived: Vec<&&&Seen> = clear
        .iter()
        .filter(|s| s.now != Occupant::Empty && s.now != s.was)
        .collect();
    let side_of = |o: Occupant| match o {
        Occupant::Black => Side::Black,
        _ => Side::White,
    };
    let piece = |sq: Square| game.piece_type(sq).map_or("piece", |t| t.name());
    match (vanished.as_slice(), arrived.as_slice()) {
        ([from], [to]) if to.now == from.was => {
            let legal = game.legal_moves().iter().any(|mv| {
                let mut g = game.clone();
                g.play_legal(mv);
                let after = occupancy(&g);
                after[idx(from.sq, files)] == Occupant::Empty
                    && after[idx(to.sq, files)] == from.was
            });
            if legal {
                // A legal move's squares, with something else wrong besides.
                return Some(Irregularity::Displaced {
                    squares: clear.iter().map(|s| s.sq).collect(),
                });
            }
            Some(Irregularity::IllegalMove {
                side: side_of(from.was),
                piece: piece(from.sq),
                from: from.sq,
                to: to.sq,
                captured: to.was != Occupant::Empty,
                to_move: game.side_to_move(),
            })
        }
        ([at], []) => Some(Irregularity::Removed {
            side: side_of(at.was),
            piece: piece(at.sq),
            at: at.sq,
        }),
        _ => Some(Irregularity::Displaced {
            squares: clear.iter().map(|s| s.sq).collect(),
        }),
    }
}

fn idx(sq: Square, files: u8) -> usize {
    sq.rank as usize * files as usize + sq.file as usize
}

/// The position the board shows after `irregularity`, when it is an illegal move
/// that leaves a position the rules can play on.
pub(crate) fn irregular_position<R: Rules>(game: &R, irregularity: &Irregularity) -> Option<R> {
    match irregularity {
        Irregularity::IllegalMove { from, to, .. } => game.displaced(*from, *to),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::chess::Chess;

    fn after(ucis: &[&str]) -> Chess {
        let mut g = Chess::new();
        for u in ucis {
            g.play_uci(u).unwrap();
        }
        g
    }

    /// A clear view of `occ` with the squares in `changed` marked as changed.
    fn view(occ: impl Fn(Square) -> Occupant, changed: &[&str]) -> Observation {
        let mut o = Observation::certain(8, 8, occ);
        for sq in squares(8, 8) {
            let c = if changed.contains(&sq.name().as_str()) {
                60.0
            } else {
                2.0
            };
            o.set_change(sq, Some(c));
        }
        o
    }

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    #[test]
    fn a_knight_jumping_where_no_move_goes_is_an_illegal_move() {
        let game = after(&["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]);
        let shown = game.displaced(sq("f3"), sq("f5")).unwrap();
        let obs = view(|s| shown.occupant(s), &["f3", "f5"]);
        let d = diagnose(&game, &obs, &InferConfig::default()).unwrap();
        assert_eq!(d.describe(), "White knight f3-f5 is not a legal move");
        assert_eq!(d.kind(), "illegal_move");
        let q = irregular_position(&game, &d).unwrap();
        assert_eq!(
            q.fen(),
            "r1bqkbnr/1ppp1ppp/p1n5/1B2pN2/4P3/8/PPPP1PPP/RNBQK2R b KQkq - 1 4"
        );
    }

    #[test]
    fn moving_out_of_turn_says_whose_turn_it_was() {
        let game = after(&["e2e4"]);
        let shown = {
            let mut g = Chess::new();
            g.play_uci("e2e4").unwrap();
            g.play_uci("e7e5").unwrap();
            g.play_uci("d2d4").unwrap();
            g
        };
        // White's second pawn moved too, before Black: two pawns changed.
        let obs = view(|s| shown.occupant(s), &["e7", "e5", "d2", "d4"]);
        let d = diagnose(&game, &obs, &InferConfig::default()).unwrap();
        assert_eq!(d.kind(), "displaced", "{d:?}");
        // One white pawn stepping while Black is to move.
        let g = after(&["e2e4"]);
        let shown = g.displaced(sq("d2"), sq("d3")).unwrap();
        let obs = view(|s| shown.occupant(s), &["d2", "d3"]);
        let d = diagnose(&g, &obs, &InferConfig::default()).unwrap();
        assert_eq!(
            d.describe(),
            "White pawn d2-d3 is not a legal move (Black is to move)"
        );
    }

    #[test]
    fn a_piece_gone_and_unsure_squares_are_named_as_such() {
        let game = Chess::new();
        let obs = view(
            |s| {
                if s == sq("b1") {
                    Occupant::Empty
                } else {
                    game.occupant(s)
                }
            },
            &["b1"],
        );
        let d = diagnose(&game, &obs, &InferConfig::default()).unwrap();
        assert_eq!(
            d.describe(),
            "the white knight on b1 left the board with no legal move taking it"
        );
        let mut unsure = view(|s| game.occupant(s), &["e4"]);
        unsure.set(sq("e4"), Some([0.4, 0.35, 0.25]));
        unsure.set(sq("e5"), Some([0.3, 0.1, 0.6]));
        let d = diagnose(&game, &unsure, &InferConfig::default());
        // e4 still reads empty (its best) though changed and unsure; e5 disagrees
        // unsurely: nothing clear enough to be a move.
        assert_eq!(d.map(|d| d.kind()), Some("unreadable"));
        assert_eq!(
            diagnose(
                &game,
                &view(|s| game.occupant(s), &[]),
                &InferConfig::default()
            ),
            None
        );
    }

    #[test]
    fn a_piece_knocked_over_on_its_square_is_displaced() {
        let game = Chess::new();
        let obs = view(|s| game.occupant(s), &["d1"]);
        let d = diagnose(&game, &obs, &InferConfig::default()).unwrap();
        assert_eq!(
            d,
            Irregularity::Displaced {
                squares: vec![sq("d1")]
            }
        );
    }
}
