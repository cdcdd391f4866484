//! Joining a game under way: the camera's first trustworthy view is not the
//! start position but the start some plies later (the camera started late, its
//! exposure settled after the first moves, the first moves came at once). The
//! legal lines from the start are searched for the position whose occupancy the
//! view shows best, plies costing a little and misread squares more, so that a
//! line is only taken where its moves account for what the view shows and a
//! steady misread stays a misread. Branch and bound with an admissible bound: how
//! many squares the plies left could still put right, side by side.

use std::collections::HashMap;

use super::observation::{occ_index, squares, Observation};
use super::sites::{SiteMap, SiteProbs};
use crate::rules::Square;
use crate::rules::{Occupant, PieceType, Rules, Side};

/// What a misread square costs, against one ply: a move that accounts for the
/// two squares it changes (from and to) is worth playing, one that trades a
/// misread for another is not; and two plies that account for a square (a
/// pawn pushed, then taken: b4 Bxb4 leaves b2 empty) are likelier than one
/// misread, three are not.
const MISREAD: f64 = 2.5;
/// Costs this close are equal.
const EPS: f64 = 1e-6;
/// A reading at least this sure of one occupant is a label; others say nothing.
const SURE: f32 = 0.6;
/// Positions the proving pass may look at.
const PROVE_NODES: usize = 1_000_000;
/// Other move sets named for one position, at most.
const MAX_OTHERS: usize = 4;
/// Plies more than the best line's that a line to a look-alike position may
/// have: one more move of each side.
const LONGER: usize = 2;
/// Positions looked at for each look-alike.
const ALIKE_NODES: usize = 200_000;
/// Positions looked at before the search gives up (a view no short line fits).
const MAX_NODES: usize = 1_000_000;

/// How the search is bounded and when its answer is trusted.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct JoinConfig {
    /// Longest line from the start searched.
    pub(crate) max_plies: usize,
    /// Misread squares the answer may leave, as a share of the squares read.
    pub(crate) max_misread_share: f64,
    /// Squares the view may leave unread (hidden, or no sure reading).
    pub(crate) max_unread: usize,
}

impl Default for JoinConfig {
    fn default() -> Self {
        JoinConfig {
            max_plies: 12,
            max_misread_share: 0.125,
            max_unread: 4,
        }
    }
}

/// One position that fits the view best, with a line that reaches it.
#[derive(Clone, Debug)]
pub struct JoinLine<R: Rules> {
    /// The moves from the known position to the one that fits the view.
    pub line: Vec<R::Move>,
    /// The positions before each ply of `line`, then the one it reaches.
    pub positions: Vec<R>,
    /// Squares whose sure reading the position contradicts.
    pub(crate) misread: Vec<crate::rules::Square>,
    /// Another order of the same moves is legal and reaches the same position:
    /// the view cannot tell which was played.
    pub order_open: bool,
    /// Other moves that reach the same position in as many plies (d6 and exd6
    /// for d5 and exd6 en passant), each line in the record's notation: the
    /// view cannot tell them apart either.
    pub others: Vec<Vec<String>>,
    /// The first plies of `line`, those no view showed being played; the
    /// rest were seen after the view, deciding between positions it fits.
    pub unseen: usize,
    /// Lines a few plies longer to positions that look the same (two pieces
    /// exchanged), each in the record's notation: less likely, as the
    /// moves are more, but the view cannot rule them out.
    pub alike: Vec<Vec<String>>,
    /// Whether the search ran out of positions before it could rule out
    /// another position that looks the same, reached by a few more plies.
    pub alike_unchecked: bool,
}

impl<R: Rules> JoinLine<R> {
    /// The position the line reaches.
    pub fn end(&self) -> &R {
        self.positions.last().unwrap_or_else(|| unreachable!())
    }

    /// The line in the game's notation, each ply in its own position.
    pub fn notation(&self) -> Vec<String> {
        self.line
            .iter()
            .zip(&self.positions)
            .map(|(m, p)| p.notation(m))
            .collect()
    }
}

/// What the search makes of a view.
#[derive(Clone, Debug)]
pub enum Joined<R: Rules> {
    /// One position fits best, seen through `map`.
    One {
        /// How the board's sites map to the game's squares.
        map: SiteMap,
        /// The moves from the start to the position.
        line: JoinLine<R>,
    },
    /// Several positions (or orientations) fit equally well: the view cannot
    /// decide between them.
    Several(Vec<(SiteMap, JoinLine<R>)>),
    /// The view does not let a position be read (hidden or unsure squares).
    Unreadable,
    /// No line within `max_plies` fits: the best leaves `misread` squares
    /// misread. The game is further on than the search reaches, or another
    /// game, or another grid.
    NoFit {
        /// The squares the best line leaves misread.
        misread: usize,
    },
    /// The start position itself fits best.
    Start,
}

/// Searches, under every orientation of the grid, the legal lines from `start`
/// for the position the readings show.
///
/// `to_move`, where the views before this one showed which side moved last,
/// is the side to move in the position sought: a line one ply shorter or
/// longer (a bishop's two moves instead of three) often fits the occupancy as
/// well, and only the turn tells them apart.
pub fn join<R: Rules>(
    start: &R,
    probs: &[SiteProbs],
    rows: u32,
    cols: u32,
    cfg: &JoinConfig,
    to_move: Option<Side>,
) -> Joined<R> {
    let (files, ranks) = start.dims();
    let read = count_read(start, probs, rows, cols);
    let allowed = (cfg.max_misread_share * read as f64).floor() as usize;
    // No line costing more than this is believed: the longest searched, with as
    // many misreads as are allowed.
    let mut limit = cfg.max_plies as f64 + MISREAD * allowed as f64;
    let mut targets = Vec::new();
    let mut fewest = usize::MAX;
    for map in SiteMap::all(rows, cols, files, ranks) {
        let obs = map.observation(probs, &[]);
        let Some(target) = labels(start, &obs, cfg) else {
            return Joined::Unreadable;
        };
        let root = Needs::of(start, &target, None).bound(
            start.side_to_move(),
            cfg.max_plies,
            start.ply_reach(),
            to_move,
        );
        fewest = fewest.min(Needs::of(start, &target, None).count());
        targets.push((root, map, target));
    }
    // The likeliest orientation first: its cost then bounds the others', which
    // are mostly dismissed at their root.
    targets.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best: Vec<(f64, SiteMap, Search<R>)> = Vec::new();
    let mut incomplete = false;
    for (root, map, target) in targets {
        if root > limit + EPS {
            continue;
        }
        let mut s = Search::new(start, target, cfg.max_plies);
        s.to_move = to_move;
        s.deepen(start, root, limit, MAX_NODES);
        limit = limit.min(s.best);
        incomplete |= s.cut_short;
        if s.best.is_finite() && !incomplete {
            // Again, a move that puts two squares wrong allowed once in a line
            // (the first pass skips them: 1. d4 in a game whose d-pawn then
            // takes on e5 and whose bishop stands on d2), merging only the same
            // moves in another order: the positions and the sets of moves as
            // good as the best are found, or the answer is not trusted.
            s.by_moves = true;
            s.wasted_left = 1;
            s.deepen(start, root, s.best, PROVE_NODES);
            // Cut short, the first pass's answer is not proven: another
            // position may fit as well (1. g4 ... Bg2 for 1. e4 ... Be2).
            incomplete |= s.cut_short;
            if !incomplete {
                s.look_alike(start);
            }
        }
        best.push((s.best, map, s));
    }
    let Some(top) = best.iter().map(|b| b.0).min_by(f64::total_cmp) else {
        return Joined::NoFit { misread: fewest };
    };
    let mut found: Vec<(SiteMap, JoinLine<R>)> = Vec::new();
    for (cost, map, s) in best {
        if cost > top + EPS {
            continue;
        }
        let unchecked = s.alike.is_none();
        let alike: Vec<Vec<String>> = s
            .alike
            .unwrap_or_default()
            .iter()
            .map(|(l, p, _)| l.iter().zip(p).map(|(m, q)| q.notation(m)).collect())
            .collect();
        for (line, positions, others) in s.found {
            let misread = misread(positions.last().unwrap_or(start), &s.target);
            let order_open = order_open(start, &line);
            found.push((
                map,
                JoinLine {
                    unseen: line.len(),
                    line,
                    positions,
                    misread,
                    order_open,
                    others,
                    alike: alike.clone(),
                    alike_unchecked: unchecked,
                },
            ));
        }
    }
    // A search cut short has not shown its lines to be the best.
    if incomplete || found.iter().all(|(_, l)| l.misread.len() > allowed) {
        return Joined::NoFit {
            misread: found
                .iter()
                .map(|(_, l)| l.misread.len())
                .min()
                .unwrap_or(read),
        };
    }
    match found.as_slice() {
        [(_, one)] if one.line.is_empty() => Joined::Start,
        [(map, one)] => Joined::One {
            map: *map,
            line: one.clone(),
        },
        _ => Joined::Several(found),
    }
}

/// Plies looked for between two views while positions are kept open.
const EXTEND_PLIES: usize = 2;

/// Carries the positions an earlier view left open to a new view: from each,
/// the lines of a ply or two are searched for the position the new view shows,
/// and those that fit it best stay, each line lengthened by what was played
/// since (a queen or a knight on f3: the piece's next move shows which). The
/// start of every line is the same.
pub fn extend<R: Rules>(
    open: &[(SiteMap, JoinLine<R>)],
    probs: &[SiteProbs],
    cfg: &JoinConfig,
    to_move: Option<Side>,
) -> Joined<R> {
    let mut best = f64::INFINITY;
    let mut found: Vec<(f64, SiteMap, JoinLine<R>)> = Vec::new();
    let mut read = 0;
    for (map, was) in open {
        let end = was.end();
        let obs = map.observation(probs, &[]);
        let Some(target) = labels(end, &obs, cfg) else {
            return Joined::Unreadable;
        };
        read = target.iter().filter(|t| t.is_some()).count();
        let root = Needs::of(end, &target, None).bound(
            end.side_to_move(),
            EXTEND_PLIES,
            end.ply_reach(),
            to_move,
        );
        let mut s = Search::new(end, target, EXTEND_PLIES);
        s.to_move = to_move;
        s.by_moves = true;
        s.wasted_left = 1;
        s.deepen(end, root, best, MAX_NODES);
        if s.cut_short || !s.best.is_finite() || s.best > best + EPS {
            continue;
        }
        if s.best < best - EPS {
            best = s.best;
            found.clear();
        }
        for (line, positions, _) in s.found {
            let misread = misread(positions.last().unwrap_or(end), &s.target);
            let mut whole = was.clone();
            whole.line.extend(line);
            whole.positions.extend(positions.into_iter().skip(1));
            whole.misread = misread;
            found.push((s.best, *map, whole));
        }
    }
    let allowed = (cfg.max_misread_share * read as f64).floor() as usize;
    found.retain(|(_, _, l)| l.misread.len() <= allowed);
    match found.len() {
        0 => Joined::NoFit { misread: read },
        1 => {
            let (_, map, line) = found.remove(0);
            Joined::One { map, line }
        }
        _ => Joined::Several(found.into_iter().map(|(_, m, l)| (m, l)).collect()),
    }
}

/// Squares with a sure reading, under the first orientation (all orientations
/// read the same sites).
fn count_read<R: Rules>(start: &R, probs: &[SiteProbs], rows: u32, cols: u32) -> usize {
    let (files, ranks) = start.dims();
    SiteMap::all(rows, cols, files, ranks)
        .next()
        .map_or(0, |m| {
            let obs = m.observation(probs, &[]);
            squares(files, ranks)
                .filter(|sq| start.is_playable(*sq))
                .filter(|sq| label(obs.get(*sq)).is_some())
                .count()
        })
}

/// The side whose pieces alone arrived on sites between two views (sites read
/// surely in both): the side that moved last. None when both sides' did, or
/// neither's.
pub fn last_mover(before: &[SiteProbs], now: &[SiteProbs]) -> Option<Side> {
    let (mut white, mut black) = (false, false);
    for (a, b) in before.iter().zip(now) {
        match (label(*a), label(*b)) {
            (Some(a), Some(b)) if a != b => {
                white |= b == Occupant::White;
                black |= b == Occupant::Black;
            }
            _ => {}
        }
    }
    match (white, black) {
        (true, false) => Some(Side::White),
        (false, true) => Some(Side::Black),
        _ => None,
    }
}

fn label(p: Option<[f32; 3]>) -> Option<Occupant> {
    let p = p?;
    [Occupant::Empty, Occupant::White, Occupant::Black]
        .into_iter()
        .find(|o| p[occ_index(*o)] >= SURE)
}

/// Per square (rank-major) the occupant the view is sure of; None when too many
/// playable squares are unread for the view to be a position.
fn labels<R: Rules>(
    start: &R,
    obs: &Observation,
    cfg: &JoinConfig,
) -> Option<Vec<Option<Occupant>>> {
    let (files, ranks) = start.dims();
    let mut unread = 0;
    let out: Vec<Option<Occupant>> = squares(files, ranks)
        .map(|sq| {
            let l = label(obs.get(sq));
            unread += usize::from(l.is_none() && start.is_playable(sq));
            l
        })
        .collect();
    (unread <= cfg.max_unread).then_some(out)
}

fn misread<R: Rules>(game: &R, target: &[Option<Occupant>]) -> Vec<Square> {
    let (files, ranks) = game.dims();
    squares(files, ranks)
        .zip(target)
        .filter(|(sq, t)| t.is_some_and(|t| t != game.occupant(*sq)))
        .map(|(sq, _)| sq)
        .collect()
}

/// Whether swapping two plies of one side gives a legal line to the same
/// position (the same moves in another order).
fn order_open<R: Rules>(start: &R, line: &[R::Move]) -> bool {
    let end = replay(start, line).map(|g| picture(&g));
    for i in 0..line.len() {
        for j in (i + 2..line.len()).step_by(2) {
            let mut other = line.to_vec();
            other.swap(i, j);
            if replay(start, &other).map(|g| picture(&g)) == end {
                return true;
            }
        }
    }
    false
}

fn replay<R: Rules>(start: &R, line: &[R::Move]) -> Option<R> {
    let mut g = start.clone();
    for m in line {
        g.play(m).ok()?;
    }
    Some(g)
}

type Key = u64;

/// The position, rights included (castling, en passant): lines that meet in
/// it go on alike.
fn key<R: Rules>(g: &R) -> Key {
    g.position_hash()
}

/// What a picture of the position shows: positions that differ only in
/// rights look alike.
fn picture<R: Rules>(g: &R) -> Key {
    crate::rules::picture_hash(g)
}

/// A view's sure readings as bit masks (square i, rank-major, at bit i), where
/// the rules give their occupancy so: comparing a position with the view is
/// then a few instructions instead of a look at every square.
#[derive(Clone, Copy)]
struct Masks {
    white: u128,
    black: u128,
    empty: u128,
    /// Playable squares with no sure reading.
    unread: u128,
    /// Squares with no sure reading, playable or not.
    unknown: u128,
}

impl Masks {
    fn of<R: Rules>(g: &R, target: &[Option<Occupant>]) -> Option<Masks> {
        g.occupancy_masks()?;
        if target.len() > 128 {
            return None;
        }
        let (files, ranks) = g.dims();
        let mut m = Masks {
            white: 0,
            black: 0,
            empty: 0,
            unread: 0,
            unknown: 0,
        };
        for (i, (sq, t)) in squares(files, ranks).zip(target).enumerate() {
            let bit = 1u128 << i;
            match t {
                Some(Occupant::White) => m.white |= bit,
                Some(Occupant::Black) => m.black |= bit,
                Some(Occupant::Empty) => m.empty |= bit,
                None => {
                    m.unknown |= bit;
                    if g.is_playable(sq) {
                        m.unread |= bit;
                    }
                }
            }
        }
        Some(m)
    }
}

/// Whether one ply of White's (of Black's) may put four squares right: a
/// castling whose king's and rook's squares the view shows `emptied`.
fn twice<R: Rules>(g: &R, emptied: impl Fn(Square) -> bool) -> (bool, bool) {
    let side = |s| {
        g.two_piece_plies(s)
            .iter()
            .any(|(a, b)| emptied(*a) && emptied(*b))
    };
    (side(Side::White), side(Side::Black))
}

/// Mismatched squares by what would put them right: a white piece arriving, a
/// white piece leaving (to leave it empty), the same for black.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Needs {
    white_in: usize,
    white_out: usize,
    black_in: usize,
    black_out: usize,
    /// Squares with no sure reading: a piece may land there unseen.
    unread: usize,
    /// Whether one ply of White's (of Black's) may put four squares right:
    /// castling, where the king's square and a rook's must both empty.
    white_twice: bool,
    black_twice: bool,
}

impl Needs {
    /// `types`, where given, is the kind of piece each square must hold: a
    /// piece of another kind there is to be replaced, an arrival its side needs.
    fn of<R: Rules>(
        g: &R,
        target: &[Option<Occupant>],
        types: Option<&[Option<PieceType>]>,
    ) -> Needs {
        let (files, ranks) = g.dims();
        let mut n = Needs::default();
        for (i, (sq, t)) in squares(files, ranks).zip(target).enumerate() {
            let (Some(t), o) = (*t, g.occupant(sq)) else {
                n.unread += usize::from(g.is_playable(sq));
                continue;
            };
            let kind_differs =
                types.is_some_and(|k| k.get(i).is_some_and(|k| *k != g.piece_type(sq)));
            match (o, t) {
                (a, b) if a == b && !kind_differs => {}
                (_, Occupant::White) => n.white_in += 1,
                (_, Occupant::Black) => n.black_in += 1,
                (Occupant::White, Occupant::Empty) => n.white_out += 1,
                (Occupant::Black, Occupant::Empty) => n.black_out += 1,
                _ => {}
            }
        }
        (n.white_twice, n.black_twice) = twice(g, |sq| {
            let (f, r) = (usize::from(sq.file), usize::from(sq.rank));
            target
                .get(r * usize::from(files) + f)
                .is_some_and(|t| t.is_none_or(|t| t == Occupant::Empty))
        });
        n
    }

    /// [`Needs::of`] through the view's masks, where the rules give theirs.
    fn of_masks<R: Rules>(
        g: &R,
        target: &[Option<Occupant>],
        types: Option<&[Option<PieceType>]>,
        masks: Option<&Masks>,
    ) -> Needs {
        let (Some(m), None, Some((w, b))) = (masks, types, g.occupancy_masks()) else {
            return Needs::of(g, target, types);
        };
        let ones = |x: u128| x.count_ones() as usize;
        let files = usize::from(g.dims().0);
        let (white_twice, black_twice) = twice(g, |sq| {
            let i = usize::from(sq.rank) * files + usize::from(sq.file);
            i < 128 && (m.empty | m.unknown) >> i & 1 == 1
        });
        Needs {
            white_in: ones(m.white & !w),
            white_out: ones(m.empty & w),
            black_in: ones(m.black & !b),
            black_out: ones(m.empty & b),
            unread: ones(m.unread),
            white_twice,
            black_twice,
        }
    }

    fn count(&self) -> usize {
        self.white_in + self.white_out + self.black_in + self.black_out
    }

    /// The least cost the position can still reach with at most `left` more
    /// plies, `to_move` first, ending with `last` to move where that is known:
    /// each ply puts right at most one arrival and one departure of its side
    /// (one more, once, for castling where the view shows it done), and the
    /// line may empty `removes` squares of the other side besides (en
    /// passant). A piece that leaves a square puts it right only where it lands
    /// without a new misread: on a square its side must fill, one unread, or
    /// one misread already.
    fn bound(&self, to_move: Side, left: usize, removes: usize, last: Option<Side>) -> f64 {
        let cap = |n: usize, twice: bool| if n > 0 { n + usize::from(twice) } else { 0 };
        let mut best = f64::INFINITY;
        for k in 0..=left {
            let ends_with = if k % 2 == 0 { to_move } else { to_move.other() };
            if last.is_some_and(|l| l != ends_with) {
                continue;
            }
            let first = k.div_ceil(2);
            let second = k / 2;
            let (nw, nb) = match to_move {
                Side::White => (first, second),
                Side::Black => (second, first),
            };
            let (cw, cb) = (cap(nw, self.white_twice), cap(nb, self.black_twice));
            let white_lands = self.white_in
                + self.unread
                + self.black_in
                + self.black_out
                + usize::from(self.white_twice);
            let black_lands = self.black_in
                + self.unread
                + self.white_in
                + self.white_out
                + usize::from(self.black_twice);
            // Arrivals and departures each side's own plies put right.
            let (dw, db) = (cw.min(white_lands), cb.min(black_lands));
            let (wi, wo) = (self.white_in.min(cw), self.white_out.min(dw));
            let (bi, bo) = (self.black_in.min(cb), self.black_out.min(db));
            // A square of the other side's emptied by taking its piece and
            // leaving: one ply's arrival and another's departure spent on it
            // (4. Qxa5 ... 5. Qxc7), or en passant.
            let x = (self.black_out - bo).min((cw - wi).min(dw - wo) + nw.min(removes));
            let y = (self.white_out - wo).min((cb - bi).min(db - bo) + nb.min(removes));
            let fixed = wi + wo + bi + bo + x + y;
            let cost = k as f64 + MISREAD * (self.count() - fixed.min(self.count())) as f64;
            best = best.min(cost);
        }
        best
    }
}

/// A best line, the positions along it, and the other moves that reach its end.
type Found<R> = (Vec<<R as Rules>::Move>, Vec<R>, Vec<Vec<String>>);

struct Search<R: Rules> {
    max_plies: usize,
    /// Lines whose bound exceeds this are left for a later pass...
    threshold: f64,
    /// ... the least such bound, the next pass's threshold.
    next: f64,
    target: Vec<Option<Occupant>>,
    reach: usize,
    best: f64,
    /// The best lines, one a position, with the other moves that reach it.
    found: Vec<Found<R>>,
    found_keys: Vec<Key>,
    seen: HashMap<Key, usize>,
    /// The second pass: positions told apart by the moves that reached them.
    by_moves: bool,
    seen_moves: HashMap<(Key, Vec<String>), usize>,
    /// The side to move in the position sought, when known.
    to_move: Option<Side>,
    /// Moves that put two squares wrong (a piece from where the view shows it
    /// to where it shows nothing) still allowed in a line: none in the first
    /// pass, one in the proving pass (1. e4 in a game whose e-pawn is taken
    /// and whose bishop then stands on e2).
    wasted_left: usize,
    nodes: usize,
    /// Positions the current pass may still look at.
    stop: usize,
    /// Whether a pass ran out of positions before it finished.
    cut_short: bool,
    /// Lines a few plies longer than the best to other positions that fit the
    /// view as well, once looked for.
    alike: Option<Vec<Found<R>>>,
    /// What kind of piece each square must hold, where that is sought.
    types: Option<Vec<Option<PieceType>>>,
    /// The target as bit masks, where the rules allow.
    masks: Option<Masks>,
}

impl<R: Rules> Search<R> {
    fn new(start: &R, target: Vec<Option<Occupant>>, max_plies: usize) -> Search<R> {
        Search {
            masks: Masks::of(start, &target),
            target,
            max_plies,
            threshold: 0.0,
            next: f64::INFINITY,
            reach: start.ply_reach(),
            best: f64::INFINITY,
            found: Vec::new(),
            found_keys: Vec::new(),
            seen: HashMap::new(),
            by_moves: false,
            seen_moves: HashMap::new(),
            to_move: None,
            wasted_left: 0,
            nodes: 0,
            stop: 0,
            cut_short: false,
            alike: None,
            types: None,
        }
    }

    /// Looks for positions other than the best that look the same through
    /// lines up to [`LONGER`] plies longer: the ply count of a game joined
    /// late is not known, and a queen's two moves to h6 and a knight's to f6
    /// look like a knight's to h6 and a queen's to f6. Each position with two
    /// pieces of one side exchanged, both moved, is searched for
    /// exactly (what stands on every square known, a far tighter bound). Left
    /// None when a search is cut short.
    fn look_alike(&mut self, start: &R) {
        let Some(end) = self.found.first().and_then(|f| f.1.last()).cloned() else {
            return;
        };
        let plies = self.found.first().map_or(0, |f| f.0.len());
        let (files, ranks) = end.dims();
        let sqs: Vec<Square> = squares(files, ranks).collect();
        let kinds: Vec<Option<PieceType>> = sqs.iter().map(|sq| end.piece_type(*sq)).collect();
        let occ: Vec<Option<Occupant>> = sqs.iter().map(|sq| Some(end.occupant(*sq))).collect();
        let moved = |i: usize| {
            start.occupant(sqs[i]) != end.occupant(sqs[i]) || start.piece_type(sqs[i]) != kinds[i]
        };
        let piece = |i: usize| kinds[i].filter(|k| *k != PieceType::Pawn);
        let mut alike = Vec::new();
        let mut keys = self.found_keys.clone();
        let max_plies = (plies + LONGER).min(self.max_plies);
        for i in 0..sqs.len() {
            for j in i + 1..sqs.len() {
                let (Some(a), Some(b)) = (piece(i), piece(j)) else {
                    continue;
                };
                if a == b || occ[i] != occ[j] || !(moved(i) && moved(j)) {
                    continue;
                }
                let mut types = kinds.clone();
                types.swap(i, j);
                let mut s = Search::new(start, occ.clone(), max_plies);
                s.types = Some(types);
                s.to_move = self.to_move;
                let root = Needs::of(start, &occ, s.types.as_deref()).bound(
                    start.side_to_move(),
                    max_plies,
                    self.reach,
                    self.to_move,
                );
                s.deepen(start, root, max_plies as f64, ALIKE_NODES);
                if s.cut_short {
                    self.alike = None;
                    return;
                }
                if s.best <= max_plies as f64 + EPS {
                    for f in s.found {
                        let pic = f.1.last().map(picture);
                        if pic.is_some_and(|p| !keys.contains(&p)) && alike.len() < MAX_OTHERS {
                            keys.extend(pic);
                            alike.push(f);
                        }
                    }
                }
            }
        }
        self.alike = Some(alike);
    }

    /// Iterative deepening on cost (IDA*) from `root`: each pass looks only at
    /// lines whose bound is within the threshold, which rises to the least
    /// bound that passed it, until a line costs no more than the threshold or
    /// the threshold passes `limit`, within `budget` positions.
    fn deepen(&mut self, start: &R, root: f64, limit: f64, budget: usize) {
        self.stop = self.nodes + budget;
        let mut threshold = root;
        loop {
            self.threshold = threshold;
            self.next = f64::INFINITY;
            self.seen.clear();
            self.seen_moves.clear();
            self.run(start.clone(), 0, &mut Vec::new(), &mut vec![start.clone()]);
            if self.nodes >= self.stop {
                self.cut_short = true;
                return;
            }
            // Lines as costly as the limit still count (another orientation's
            // as good as the best is the view not deciding).
            if self.best <= threshold + EPS || !self.next.is_finite() || threshold >= limit - EPS {
                return;
            }
            threshold = self.next.min(limit);
        }
    }

    fn run(&mut self, g: R, depth: usize, line: &mut Vec<R::Move>, path: &mut Vec<R>) {
        self.nodes += 1;
        let needs = Needs::of_masks(&g, &self.target, self.types.as_deref(), self.masks.as_ref());
        let turn_fits = self.to_move.is_none_or(|t| t == g.side_to_move());
        let cost = if turn_fits {
            depth as f64 + MISREAD * needs.count() as f64
        } else {
            f64::INFINITY
        };
        self.note(&g, cost, line, path);
        if depth >= self.max_plies || self.nodes >= self.stop {
            return;
        }
        if self.seen_before(&g, depth, line, path) {
            return;
        }
        let kids = self.children(&g, depth, &needs);
        for (m, next, wasted) in kids {
            if self.nodes >= self.stop {
                break;
            }
            line.push(m);
            path.push(next.clone());
            self.wasted_left -= usize::from(wasted);
            self.run(next, depth + 1, line, path);
            self.wasted_left += usize::from(wasted);
            path.pop();
            line.pop();
        }
    }

    /// Keeps the line to `g` among the best found when its cost is as low as
    /// theirs: a new best forgets the others, and a line to a position
    /// already found is merged into that position's entry.
    fn note(&mut self, g: &R, cost: f64, line: &[R::Move], path: &[R]) {
        if cost < self.best - EPS {
            self.best = cost;
            self.found.clear();
            self.found_keys.clear();
        }
        if cost <= self.best + EPS {
            let pic = picture(g);
            match self.found_keys.iter().position(|f| *f == pic) {
                None => {
                    self.found_keys.push(pic);
                    self.found.push((line.to_vec(), path.to_vec(), Vec::new()));
                }
                Some(i) => merge_found(&mut self.found[i], line, path),
            }
        }
    }

    /// Whether `g` was already looked at no deeper than `depth` in this pass
    /// (in the second pass, reached by the same moves), marking it otherwise.
    fn seen_before(&mut self, g: &R, depth: usize, line: &[R::Move], path: &[R]) -> bool {
        let k = key(g);
        if self.by_moves {
            // Lines of other moves to one position are what this pass is
            // for: only the same moves in another order are merged.
            let mut ids: Vec<String> = line
                .iter()
                .zip(path.iter())
                .map(|(m, q)| q.move_id(m))
                .collect();
            ids.sort();
            match self.seen_moves.get(&(k, ids.clone())) {
                Some(&d) if d <= depth => return true,
                _ => {
                    self.seen_moves.insert((k, ids), depth);
                }
            }
        } else {
            match self.seen.get(&k) {
                Some(&d) if d <= depth => return true,
                _ => {
                    self.seen.insert(k, depth);
                }
            }
        }
        false
    }

    /// The moves from `g` (at `depth`, needing `needs`) whose bound is within
    /// this pass's threshold, with the position each leaves and whether it
    /// wastes a move; the least bound over the threshold is kept for the next
    /// pass.
    fn children(&mut self, g: &R, depth: usize, needs: &Needs) -> Vec<(R::Move, R, bool)> {
        g.legal_moves()
            .into_iter()
            .filter_map(|m| {
                let mut next = g.clone();
                next.play_legal(&m);
                let n = Needs::of_masks(
                    &next,
                    &self.target,
                    self.types.as_deref(),
                    self.masks.as_ref(),
                );
                // A move that puts no square right and two wrong (a piece from
                // where the view shows it to where it shows nothing) is in no
                // line worth finding.
                let wasted = n.count() >= needs.count() + 2;
                if wasted && self.wasted_left == 0 {
                    return None;
                }
                let f = (depth + 1) as f64
                    + n.bound(
                        next.side_to_move(),
                        self.max_plies - depth - 1,
                        self.reach,
                        self.to_move,
                    );
                if f > self.threshold + EPS {
                    self.next = self.next.min(f);
                    return None;
                }
                Some((m, next, wasted))
            })
            .collect()
    }
}

/// Merges another line to a position already found into its entry: the same
/// moves in another order may replace the line written, other moves are kept
/// among the others (a few, each set of moves once).
fn merge_found<R: Rules>(found: &mut Found<R>, line: &[R::Move], path: &[R]) {
    let (first, first_path, others) = found;
    let ids = |l: &[R::Move], p: &[R]| {
        let mut v: Vec<String> = l.iter().zip(p).map(|(m, q)| q.move_id(m)).collect();
        v.sort();
        v
    };
    let mine = ids(line, path);
    let theirs = ids(first, first_path);
    // The same moves in another order may leave a right the
    // first order does not (en passant after d5 played last):
    // the order that leaves the most moves open is written, so
    // that whatever is played next is legal in it.
    let open = |p: &[R]| p.last().map_or(0, |e| e.legal_moves().len());
    if mine == theirs && open(path) > open(first_path) {
        *first = line.to_vec();
        *first_path = path.to_vec();
    }
    let named: Vec<String> = line
        .iter()
        .zip(path.iter())
        .map(|(m, q)| q.notation(m))
        .collect();
    if mine != theirs && others.len() < MAX_OTHERS {
        let mut sorted = named.clone();
        sorted.sort();
        let known = others.iter().any(|o| {
            let mut x = o.clone();
            x.sort();
            x == sorted
        });
        if !known {
            others.push(named);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::{one_hot, WhiteSide};
    use crate::rules::chess::Chess;

    use crate::infer::sure_view as seen;

    /// The search from the start on an 8x8 grid, default bounds.
    fn join8(view: &[SiteProbs], to_move: Option<Side>) -> Joined<Chess> {
        join(&Chess::new(), view, 8, 8, &JoinConfig::default(), to_move)
    }

    fn after(ucis: &[&str]) -> Chess {
        let mut g = Chess::new();
        for u in ucis {
            g.play_uci(u).unwrap();
        }
        g
    }

    fn sans(j: &JoinLine<Chess>) -> String {
        j.notation().join(" ")
    }

    #[test]
    fn a_game_two_plies_in_is_joined_with_its_moves() {
        let view = seen(&after(&["e2e4", "a7a6"]), WhiteSide::Left);
        match join8(&view, None) {
            Joined::One { map, line } => {
                assert_eq!(map.side, WhiteSide::Left);
                assert_eq!(sans(&line), "e4 a6");
                assert!(line.misread.is_empty() && !line.order_open);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ten_plies_in_are_found_and_their_order_is_said_to_be_open() {
        let g = after(&[
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1", "d7d6", "b1c3", "c8e6",
        ]);
        match join8(&seen(&g, WhiteSide::Bottom), None) {
            Joined::One { line, .. } => {
                assert_eq!(line.line.len(), 10);
                assert_eq!(key(line.end()), key(&g));
                assert!(line.order_open);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn steady_misreads_stay_misreads_and_invent_no_move() {
        // Five white pieces on their start squares read empty (warm light), and
        // e4 a6 e5 played: never knights and bishops moved to explain them.
        let g = after(&["e2e4", "a7a6", "e4e5"]);
        let map = SiteMap::for_game(&g, WhiteSide::Left, 8, 8).unwrap();
        let mut view = seen(&g, WhiteSide::Left);
        for name in ["b1", "c1", "f1", "g1", "g2"] {
            let sq = crate::rules::Square::parse(name).unwrap();
            view[map.site(sq)] = Some(one_hot(Occupant::Empty, 0.9));
        }
        // Black to move, as the change from the view before says.
        match join8(&view, Some(Side::Black)) {
            Joined::One { line, .. } => {
                assert_eq!(sans(&line), "e4 a6 e5");
                assert_eq!(line.misread.len(), 5);
            }
            // Nf3 a6 Ne5 leaves g1 empty as the view says and e2 filled:
            // as many misreads. Both named, neither picked.
            Joined::Several(v) => {
                assert!(v.iter().any(|(_, l)| sans(l) == "e4 a6 e5"));
                assert!(v.iter().all(|(_, l)| l.misread.len() == 5));
            }
            // The misreads leave the bound slack: the proving pass may not
            // finish, and then no line is given rather than one unproven.
            Joined::NoFit { .. } => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_side_to_move_picks_the_line_of_its_length() {
        // Bc5, Bxb4, Ba5 (10 plies, White to move) leaves what Bxb4, Ba5 leaves
        // in 9 (Black to move): the turn decides. (Where the search cannot
        // prove its answer within its budget, it gives none.)
        let g = after(&[
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "b2b4", "c5b4", "c2c3", "b4a5",
        ]);
        let view = seen(&g, WhiteSide::Bottom);
        match join8(&view, Some(Side::White)) {
            Joined::One { line, .. } => assert_eq!(line.line.len(), 10),
            Joined::Several(v) => assert!(v.iter().all(|(_, l)| l.line.len() == 10)),
            Joined::NoFit { .. } => {}
            other => panic!("{other:?}"),
        }
        match join8(&view, None) {
            Joined::One { line, .. } => assert_eq!(line.line.len(), 9),
            Joined::Several(v) => assert!(v.iter().all(|(_, l)| l.line.len() == 9)),
            Joined::NoFit { .. } => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_side_whose_piece_arrived_moved_last() {
        let before = seen(&after(&["e2e4"]), WhiteSide::Bottom);
        let now = seen(&after(&["e2e4", "e7e5"]), WhiteSide::Bottom);
        assert_eq!(last_mover(&before, &now), Some(Side::Black));
        assert_eq!(last_mover(&now, &now), None);
        let two = seen(&after(&["e2e4", "e7e5", "g1f3"]), WhiteSide::Bottom);
        assert_eq!(last_mover(&before, &two), None);
    }

    #[test]
    fn a_pawn_pushed_and_taken_is_no_misread() {
        // 4. b4 Bxb4: b2 empty, the bishop on b4. Bb4 in one ply would leave
        // b2 misread; the two plies are the likelier story.
        let g = after(&[
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "b2b4", "c5b4",
        ]);
        let view = seen(&g, WhiteSide::Bottom);
        match join8(&view, Some(Side::White)) {
            Joined::One { line, .. } => {
                assert!(line.misread.is_empty(), "{:?}", line.notation());
                assert_eq!(key(line.end()), key(&g));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_move_that_looks_wasted_is_still_weighed() {
        // 1. e4 Nc6 2. e5 d5 3. exd6 Qxd6 4. Nf3 Bg4 5. Be2: the e-pawn went
        // and the bishop stands on e2; 1. g4 ... Bg2 leaves the same squares
        // filled. Both are found: the view cannot tell them apart.
        let g = after(&[
            "e2e4", "b8c6", "e4e5", "d7d5", "e5d6", "d8d6", "g1f3", "c8g4", "f1e2",
        ]);
        let view = seen(&g, WhiteSide::Bottom);
        match join8(&view, Some(Side::Black)) {
            Joined::Several(v) => assert!(v.iter().any(|(_, l)| picture(l.end()) == picture(&g))),
            Joined::NoFit { .. } => {}
            Joined::One { line, .. } => assert_eq!(key(line.end()), key(&g)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn moves_the_view_cannot_tell_apart_are_named() {
        // d5 and exd6 en passant leave what d6 and exd6 leave.
        let g = after(&["e2e4", "b8c6", "e4e5", "d7d5", "e5d6", "d8d6"]);
        match join8(&seen(&g, WhiteSide::Bottom), None) {
            Joined::One { line, .. } => {
                assert_eq!(key(line.end()), key(&g));
                assert!(!line.others.is_empty(), "{line:?}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn positions_left_open_are_decided_by_the_moves_after() {
        // Opera game, nine plies in: 4... Bxf3 5. Qxf3 leaves what 4. Qf3 Bxf3
        // 5. Nxf3 leaves. 7. Qb3 then shows the queen on f3.
        let plies = [
            "e2e4", "e7e5", "g1f3", "d7d6", "d2d4", "c8g4", "d4e5", "g4f3", "d1f3", "d6e5", "f1c4",
            "g8f6", "f3b3",
        ];
        let view = |n: usize| seen(&after(&plies[..n]), WhiteSide::Bottom);
        let Joined::Several(mut open) = join8(&view(9), Some(Side::Black)) else {
            panic!("the view at nine plies fits two positions");
        };
        assert_eq!(open.len(), 2);
        for n in 10..13 {
            let to_move = if n % 2 == 0 { Side::White } else { Side::Black };
            match extend(&open, &view(n), &JoinConfig::default(), Some(to_move)) {
                Joined::Several(v) => open = v,
                other => panic!("{n} plies: {other:?}"),
            }
            assert_eq!(open.len(), 2, "{n} plies: both still fit");
        }
        match extend(&open, &view(13), &JoinConfig::default(), Some(Side::Black)) {
            Joined::One { line, .. } => {
                assert_eq!(picture(line.end()), picture(&after(&plies)));
                assert_eq!(line.line.len(), 13);
                assert_eq!(line.unseen, 9);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_bound_never_exceeds_what_a_legal_line_costs() {
        // Random legal lines (random play takes much): from every position
        // along one, the bound to its end's occupancy is at most the plies
        // left. An overestimate prunes the line played (4. Qxa5 ... 5. Qxc7
        // empties a5 with White's moves).
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2000 {
            let n = 1 + (next() % 12) as usize;
            let mut line = vec![Chess::new()];
            for _ in 0..n {
                let g = line.last().unwrap().clone();
                let moves = g.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Captures first, often: the hard case for the bound.
                let takes: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
                let mv = if !takes.is_empty() && next() % 2 == 0 {
                    *takes[next() as usize % takes.len()]
                } else {
                    moves[next() as usize % moves.len()]
                };
                let mut g = g;
                g.play_legal(&mv);
                line.push(g);
            }
            let end = line.last().unwrap();
            let map = SiteMap::for_game(end, WhiteSide::Bottom, 8, 8).unwrap();
            let obs = map.observation(&seen(end, WhiteSide::Bottom), &[]);
            let target = labels(end, &obs, &JoinConfig::default()).unwrap();
            let plies = line.len() - 1;
            let masks = Masks::of(end, &target);
            assert!(masks.is_some(), "chess gives its occupancy as masks");
            for (i, g) in line.iter().enumerate() {
                // The masks' count is the square-by-square count.
                assert_eq!(
                    Needs::of_masks(g, &target, None, masks.as_ref()),
                    Needs::of(g, &target, None)
                );
                let b = Needs::of(g, &target, None).bound(
                    g.side_to_move(),
                    12 - i,
                    g.ply_reach(),
                    Some(end.side_to_move()),
                );
                assert!(
                    b <= (plies - i) as f64 + EPS,
                    "{} plies left, bound {b}: {} to {}",
                    plies - i,
                    g.position_text(),
                    end.position_text()
                );
            }
        }
    }

    #[test]
    fn a_look_alike_position_a_few_plies_longer_is_named() {
        // Immortal game, twelve plies in: 3... Qh4+ ... 6... Qh6 and 5... Nf6
        // leave what ... Nh6 and ... Qf6 leave in two plies fewer. The shorter
        // line is the likelier, the longer one is named with it.
        let plies = [
            "e2e4", "e7e5", "f2f4", "e5f4", "f1c4", "d8h4", "e1f1", "b7b5", "c4b5", "g8f6", "g1f3",
            "h4h6",
        ];
        let g = after(&plies);
        match join8(&seen(&g, WhiteSide::Bottom), Some(Side::White)) {
            Joined::One { line, .. } => {
                assert_eq!(line.line.len(), 10);
                assert!(!line.alike_unchecked);
                let mut truth = Chess::new();
                let named = line.alike.iter().any(|l| {
                    let mut g = Chess::new();
                    l.iter().all(|san| {
                        g.legal_moves()
                            .into_iter()
                            .find(|m| g.notation(m) == *san)
                            .map(|m| g.play_legal(&m))
                            .is_some()
                    }) && picture(&g) == picture(&after(&plies))
                });
                truth.play_uci("e2e4").unwrap();
                assert!(named, "{:?}", line.alike);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_hidden_view_is_no_position_and_the_start_is_the_start() {
        let mut view = seen(&after(&["e2e4"]), WhiteSide::Bottom);
        view[..12].fill(None);
        assert!(matches!(join8(&view, None), Joined::Unreadable));
        let start = seen(&Chess::new(), WhiteSide::Bottom);
        // The start seen from White's side or Black's: two orientations fit.
        assert!(matches!(
            join8(&start, None),
            Joined::Start | Joined::Several(_)
        ));
    }

    #[test]
    fn a_view_of_another_game_is_too_deep() {
        let mut g = Chess::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        g.play_uci("e1d2").unwrap();
        let view = seen(&g, WhiteSide::Bottom);
        let r = join8(&view, None);
        assert!(matches!(r, Joined::NoFit { .. }), "{r:?}");
    }
}
