//! The first still view against the game's start position: which orientation of
//! the grid shows it best, and whether the view shows it at all (rather than a
//! game already under way, another board, or a wrong grid).

use super::explain::{moved_on, InferConfig};
use super::observation::{occ_index, squares};
use super::sites::{SiteMap, SiteProbs};
use crate::rules::{Occupant, Rules, Square};

/// Share of sites the first view must misread less than to be taken for the
/// game's start position (an empty chess board misreads exactly half): beyond it the view is hardly this board or this grid.
const START_MISREAD_SHARE: f64 = 0.5;

/// Relative difference of log-likelihoods below which two orientations show a
/// position equally: far above rounding, far below one site's evidence.
const SAME_LIKELIHOOD: f64 = 1e-9;

/// How well per-site readings show `game`'s position in its likeliest orientation
/// on a `rows` x `cols` grid: the log-likelihood of its occupants (hidden sites
/// carry none) and that orientation's map. None when the game fits the grid in no
/// orientation. Where orientations show it equally (a Go board empty or set up
/// symmetrically), the first of [`SiteMap::all`] is taken (White at the bottom):
/// the same sums in another order differ in their last bits, and a record's
/// coordinates must not hang on that.
pub fn start_likelihood<R: Rules>(
    game: &R,
    probs: &[SiteProbs],
    rows: u32,
    cols: u32,
) -> Option<(f64, SiteMap)> {
    let (files, ranks) = game.dims();
    let mut best: Option<(f64, SiteMap)> = None;
    for map in SiteMap::all(rows, cols, files, ranks) {
        let ll = likelihood_for(game, probs, &map);
        if best
            .as_ref()
            .is_none_or(|(b, _)| ll > *b + SAME_LIKELIHOOD * b.abs().max(1.0))
        {
            best = Some((ll, map));
        }
    }
    best
}

/// What the first still view shows against the expected start.
#[derive(Clone, Debug, PartialEq)]
pub struct StartCheck {
    /// Visible squares whose reading disagrees with the start position.
    pub misread: Vec<Square>,
    /// Visible squares in all.
    pub(crate) visible: usize,
    /// Some line of one or two legal moves explains the view better than the start
    /// itself: the game has moved on before the first view.
    pub(crate) moved_on: bool,
}

impl StartCheck {
    /// Whether the view is taken for the start position.
    pub fn is_start(&self) -> bool {
        !self.moved_on && (self.misread.len() as f64) < START_MISREAD_SHARE * self.visible as f64
    }
}

/// Checks a view against `game`'s position (the start of the recording). Unlike a
/// count of disagreeing squares alone, the moved-on test stays right on a board
/// the classifier misreads in many places, as long as the misreads are not the
/// traces of legal moves.
pub fn check_start<R: Rules>(
    game: &R,
    map: &SiteMap,
    probs: &[SiteProbs],
    cfg: &InferConfig,
) -> StartCheck {
    let obs = map.observation(probs, &[]);
    let mut misread = Vec::new();
    let mut visible = 0;
    for sq in squares(map.files, map.ranks) {
        if let Some(p) = obs.get(sq) {
            visible += 1;
            if p[occ_index(game.occupant(sq))] < 0.5 {
                misread.push(sq);
            }
        }
    }
    StartCheck {
        misread,
        visible,
        moved_on: moved_on(game, &obs, cfg),
    }
}

/// The least probability of a site's reading for a view to set a game up: a
/// set-up holds every stone seen for good, so one read at even odds would be
/// an invented stone.
const SET_UP_SURE: f32 = 0.9;

/// The game set up as `probs` shows it through `map`, where the game's set-ups
/// are pieces placed ([`Rules::set_up`]: Go) and the view reads every site
/// surely; None otherwise (a hand over the board, a site in doubt).
pub fn view_set_up<R: Rules>(game: &R, map: &SiteMap, probs: &[SiteProbs]) -> Option<R> {
    let obs = map.observation(probs, &[]);
    let files = usize::from(map.files);
    let mut seen = vec![Occupant::Empty; files * usize::from(map.ranks)];
    for sq in squares(map.files, map.ranks) {
        let p = obs.get(sq)?;
        let (best, &pr) = p.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
        if pr < SET_UP_SURE {
            return None;
        }
        seen[usize::from(sq.rank) * files + usize::from(sq.file)] =
            [Occupant::Empty, Occupant::White, Occupant::Black][best];
    }
    let occupant = |sq: Square| seen[usize::from(sq.rank) * files + usize::from(sq.file)];
    game.set_up(&occupant)
}

/// Share of the position's pieces that must read as pieces for the board not to
/// be taken for empty (the pieces not yet set up, or the grid on the table).
const SET_UP_SHARE: f64 = 0.25;
/// Nats by which another orientation must show the position better than the
/// one given for `--white` to be named.
const OTHER_SIDE_NATS: f64 = 20.0;

/// What a first view that is not the expected position most likely means, in a
/// user's words, with what to check.
#[derive(Clone, Debug, PartialEq)]
pub enum StartMismatch {
    /// Few of the position's pieces are seen: not set up yet, or the grid is off
    /// the board.
    Empty,
    /// The position with one or two moves already played.
    MovedOn,
    /// The position shows far better with White at another edge than `--white`
    /// says.
    OtherSide(super::WhiteSide),
    /// Something else: another game, grid or position.
    Other,
}

impl StartMismatch {
    /// What the user should check.
    pub fn advice(&self) -> String {
        match self {
            StartMismatch::Empty => {
                "the board looks empty: set up the pieces (or check --grid and the corners)".into()
            }
            StartMismatch::MovedOn => {
                "the game seems to be under way, and no line of legal moves from the start within reach leads to this view: give the moves played before with --moves, or the position with --fen (--position for Tablut)".into()
            }
            StartMismatch::OtherSide(side) => {
                format!("the pieces look like White is at the {side} edge: check --white")
            }
            StartMismatch::Other => {
                "check --game, --grid, --white and --fen (--position for Tablut)".into()
            }
        }
    }
}

/// Why a view is not `game`'s position, given the check against it: `fixed`
/// says whether White's edge was given (rather than chosen from this view).
pub fn start_mismatch<R: Rules>(
    game: &R,
    map: &SiteMap,
    probs: &[SiteProbs],
    check: &StartCheck,
    fixed: bool,
) -> StartMismatch {
    if check.moved_on {
        return StartMismatch::MovedOn;
    }
    let obs = map.observation(probs, &[]);
    let (mut pieces, mut seen) = (0usize, 0usize);
    for sq in squares(map.files, map.ranks) {
        if game.occupant(sq) == crate::rules::Occupant::Empty {
            continue;
        }
        if let Some(p) = obs.get(sq) {
            pieces += 1;
            seen += usize::from(p[0] < 0.5);
        }
    }
    if pieces > 0 && (seen as f64) < SET_UP_SHARE * pieces as f64 {
        return StartMismatch::Empty;
    }
    if fixed {
        let given = likelihood_for(game, probs, map);
        let others = SiteMap::all(map.rows, map.cols, map.files, map.ranks)
            .filter(|m| m.side != map.side)
            .map(|m| (likelihood_for(game, probs, &m), m.side))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((ll, side)) = others {
            if ll > given + OTHER_SIDE_NATS {
                return StartMismatch::OtherSide(side);
            }
        }
    }
    StartMismatch::Other
}

/// The log-likelihood of `game`'s occupants under the readings seen through `map`.
fn likelihood_for<R: Rules>(game: &R, probs: &[SiteProbs], map: &SiteMap) -> f64 {
    let obs = map.observation(probs, &[]);
    squares(map.files, map.ranks)
        .filter_map(|sq| obs.get(sq).map(|p| (sq, p)))
        .map(|(sq, p)| f64::from(p[occ_index(game.occupant(sq))].max(1e-3)).ln())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::{one_hot, WhiteSide};
    use crate::rules::chess::Chess;
    use crate::rules::Occupant;

    use crate::infer::sure_view as seen;

    #[test]
    fn the_orientation_that_shows_the_start_is_chosen() {
        let g = Chess::new();
        for side in [WhiteSide::Left, WhiteSide::Top, WhiteSide::Right] {
            let (_, map) = start_likelihood(&g, &seen(&g, side), 8, 8).unwrap();
            assert_eq!(map.side, side);
        }
        assert!(start_likelihood(&g, &seen(&g, WhiteSide::Bottom), 9, 9).is_none());
    }

    /// An empty Go board shows the same in every orientation: the record's
    /// coordinates are the grid's own, not whichever sum rounds highest.
    #[test]
    fn orientations_that_show_a_position_equally_leave_the_grid_as_it_is() {
        let g = crate::rules::go::Go::new(Default::default()).unwrap();
        let mut rng = crate::rng::Rng::new(3);
        for _ in 0..20 {
            // Readings that differ from site to site, so that the sums differ in
            // their order.
            let probs: Vec<SiteProbs> = (0..361)
                .map(|_| {
                    Some(one_hot(
                        Occupant::Empty,
                        0.9 + 0.099 * rng.below(1000) as f32 / 1000.0,
                    ))
                })
                .collect();
            let (_, map) = start_likelihood(&g, &probs, 19, 19).unwrap();
            assert_eq!(map.side, WhiteSide::Bottom);
        }
    }

    #[test]
    fn a_game_under_way_is_not_its_start() {
        let start = Chess::new();
        let map = SiteMap::for_game(&start, WhiteSide::Bottom, 8, 8).unwrap();
        let cfg = InferConfig::default();
        assert!(check_start(&start, &map, &seen(&start, WhiteSide::Bottom), &cfg).is_start());
        let mut later = start.clone();
        later.play_uci("e2e4").unwrap();
        let c = check_start(&start, &map, &seen(&later, WhiteSide::Bottom), &cfg);
        assert!(c.moved_on && !c.is_start());
        assert_eq!(c.misread, vec![Square::new(4, 1), Square::new(4, 3)]);
        // An empty board: half the squares misread, not the start.
        let empty: Vec<SiteProbs> = (0..64)
            .map(|_| Some(one_hot(Occupant::Empty, 0.95)))
            .collect();
        assert!(!check_start(&start, &map, &empty, &cfg).is_start());
        assert_eq!(
            start_mismatch(
                &start,
                &map,
                &empty,
                &check_start(&start, &map, &empty, &cfg),
                true
            ),
            StartMismatch::Empty
        );
        assert_eq!(
            start_mismatch(&start, &map, &seen(&later, WhiteSide::Bottom), &c, true),
            StartMismatch::MovedOn
        );
        // The start seen from the other side, with --white bottom given.
        let turned = seen(&start, WhiteSide::Top);
        let c = check_start(&start, &map, &turned, &cfg);
        assert!(!c.is_start());
        assert_eq!(
            start_mismatch(&start, &map, &turned, &c, true),
            StartMismatch::OtherSide(WhiteSide::Top)
        );
        // Hidden sites are not misreads.
        let mut hidden = seen(&start, WhiteSide::Bottom);
        hidden[..16].fill(None);
        let c = check_start(&start, &map, &hidden, &cfg);
        assert_eq!((c.visible, c.misread.len()), (48, 0));
    }
}
