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
/// Positions looked at before the search gives up (a view no short line fits).
const MAX_NODES: usize = 1_000_000;

/// How the search is bounded and when its answer is trusted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JoinConfig {
    /// Longest line from the start searched.
    pub max_plies: usize,
    /// Misread squares the answer may leave, as a share of the squares read.
    pub max_misread_share: f64,
    /// Squares the view may leave unread (hidden, or no sure reading).
    pub max_unread: usize,
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
    pub line: Vec<R::Move>,
    /// The positions before each ply of `line`, then the one it reaches.
    pub positions: Vec<R>,
    /// Squares whose sure reading the position contradicts.
    pub misread: Vec<crate::rules::Square>,
    /// Another order of the same moves is legal and reaches the same position:
    /// the view cannot tell which was played.
    pub order_open: bool,
    /// Other moves that reach the same position in as many plies (d6 and exd6
    /// for d5 and exd6 en passant), each line in the record's notation: the
    /// view cannot tell them apart either.
    pub others: Vec<Vec<String>>,
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
    One { map: SiteMap, line: JoinLine<R> },
    /// Several positions (or orientations) fit equally well: the view cannot
    /// decide between them.
    Several(Vec<(SiteMap, JoinLine<R>)>),
    /// The view does not let a position be read (hidden or unsure squares).
    Unreadable,
    /// No line within `max_plies` fits: the best leaves `misread` squares
    /// misread. The game is further on than the search reaches, or another
    /// game, or another grid.
    NoFit { misread: usize },
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
        let root =
            Needs::of(start, &target).bound(start.side_to_move(), cfg.max_plies, start.ply_reach());
        fewest = fewest.min(Needs::of(start, &target).count());
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
        // Iterative deepening on cost (IDA*): each pass looks only at lines whose
        // bound is within the threshold, which rises to the least bound that
        // passed it, until a line costs no more than the threshold.
        let mut threshold = root;
        while s.nodes < MAX_NODES {
            s.threshold = threshold;
            s.next = f64::INFINITY;
            s.seen.clear();
            s.run(start.clone(), 0, &mut Vec::new(), &mut vec![start.clone()]);
            if s.best <= threshold + EPS || !s.next.is_finite() || s.next > limit + EPS {
                break;
            }
            threshold = s.next;
        }
        limit = limit.min(s.best);
        incomplete |= s.nodes >= MAX_NODES;
        if s.best.is_finite() && !incomplete {
            // Again at the best cost, a move that puts two squares wrong
            // allowed once in a line (the first pass skips them), merging only
            // the same moves in another order: the positions and the sets of
            // moves as good as the best are found, or the answer is not trusted.
            s.by_moves = true;
            s.wasted_left = 1;
            s.threshold = s.best;
            s.nodes = MAX_NODES - PROVE_NODES;
            s.run(start.clone(), 0, &mut Vec::new(), &mut vec![start.clone()]);
            // Cut short, the first pass's answer is not proven: another
            // position may fit as well (1. g4 ... Bg2 for 1. e4 ... Be2).
            incomplete |= s.nodes >= MAX_NODES;
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
        for (line, positions, others) in s.found {
            let misread = misread(positions.last().unwrap_or(start), &s.target);
            let order_open = order_open(start, &line);
            found.push((
                map,
                JoinLine {
                    line,
                    positions,
                    misread,
                    order_open,
                    others,
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

fn misread<R: Rules>(game: &R, target: &[Option<Occupant>]) -> Vec<crate::rules::Square> {
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
    let end = replay(start, line).map(|g| key(&g));
    for i in 0..line.len() {
        for j in (i + 2..line.len()).step_by(2) {
            let mut other = line.to_vec();
            other.swap(i, j);
            if replay(start, &other).map(|g| key(&g)) == end {
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

type Key = (Vec<(Occupant, Option<PieceType>)>, Side);

fn key<R: Rules>(g: &R) -> Key {
    let (files, ranks) = g.dims();
    (
        squares(files, ranks)
            .map(|sq| (g.occupant(sq), g.piece_type(sq)))
            .collect(),
        g.side_to_move(),
    )
}

/// Mismatched squares by what would put them right: a white piece arriving, a
/// white piece leaving (to leave it empty), the same for black.
#[derive(Clone, Copy, Default)]
struct Needs {
    white_in: usize,
    white_out: usize,
    black_in: usize,
    black_out: usize,
    /// Squares with no sure reading: a piece may land there unseen.
    unread: usize,
}

impl Needs {
    fn of<R: Rules>(g: &R, target: &[Option<Occupant>]) -> Needs {
        let (files, ranks) = g.dims();
        let mut n = Needs::default();
        for (sq, t) in squares(files, ranks).zip(target) {
            let (Some(t), o) = (*t, g.occupant(sq)) else {
                n.unread += usize::from(g.is_playable(sq));
                continue;
            };
            match (o, t) {
                (a, b) if a == b => {}
                (_, Occupant::White) => n.white_in += 1,
                (_, Occupant::Black) => n.black_in += 1,
                (Occupant::White, Occupant::Empty) => n.white_out += 1,
                (Occupant::Black, Occupant::Empty) => n.black_out += 1,
                _ => {}
            }
        }
        n
    }

    fn count(&self) -> usize {
        self.white_in + self.white_out + self.black_in + self.black_out
    }

    /// The least cost the position can still reach with at most `left` more
    /// plies, `to_move` first: each ply puts right at most one arrival and one
    /// departure of its side (one more, once, for castling), and the line may
    /// empty `removes` squares of the other side besides (en passant). A piece that leaves a
    /// square puts it right only where it lands without a new misread: on a
    /// square its side must fill, one unread, or one misread already.
    fn bound(&self, to_move: Side, left: usize, reach: (usize, usize)) -> f64 {
        let (once, removes) = reach;
        let cap = |n: usize| if n > 0 { n + once } else { 0 };
        let mut best = f64::INFINITY;
        for k in 0..=left {
            let first = k.div_ceil(2);
            let second = k / 2;
            let (nw, nb) = match to_move {
                Side::White => (first, second),
                Side::Black => (second, first),
            };
            let white_lands = self.white_in + self.unread + self.black_in + self.black_out + once;
            let black_lands = self.black_in + self.unread + self.white_in + self.white_out + once;
            let fixed = self.white_in.min(cap(nw))
                + self
                    .white_out
                    .min(cap(nw).min(white_lands) + nb.min(removes))
                + self.black_in.min(cap(nb))
                + self
                    .black_out
                    .min(cap(nb).min(black_lands) + nw.min(removes));
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
    reach: (usize, usize),
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
}

impl<R: Rules> Search<R> {
    fn new(start: &R, target: Vec<Option<Occupant>>, max_plies: usize) -> Search<R> {
        Search {
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
        }
    }

    fn run(&mut self, g: R, depth: usize, line: &mut Vec<R::Move>, path: &mut Vec<R>) {
        self.nodes += 1;
        let needs = Needs::of(&g, &self.target);
        let turn_fits = self.to_move.is_none_or(|t| t == g.side_to_move());
        let cost = if turn_fits {
            depth as f64 + MISREAD * needs.count() as f64
        } else {
            f64::INFINITY
        };
        let k = key(&g);
        if cost < self.best - EPS {
            self.best = cost;
            self.found.clear();
            self.found_keys.clear();
        }
        if cost <= self.best + EPS {
            match self.found_keys.iter().position(|f| *f == k) {
                None => {
                    self.found_keys.push(k.clone());
                    self.found.push((line.clone(), path.clone(), Vec::new()));
                }
                Some(i) => {
                    let (first, first_path, others) = &mut self.found[i];
                    let ids = |l: &[R::Move], p: &[R]| {
                        let mut v: Vec<String> =
                            l.iter().zip(p).map(|(m, q)| q.move_id(m)).collect();
                        v.sort();
                        v
                    };
                    let mine = ids(line, path);
                    let theirs = ids(first, first_path);
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
            }
        }
        if depth >= self.max_plies || self.nodes >= MAX_NODES {
            return;
        }
        if self.by_moves {
            // Lines of other moves to one position are what this pass is
            // for: only the same moves in another order are merged.
            let mut ids: Vec<String> = line
                .iter()
                .zip(path.iter())
                .map(|(m, q)| q.move_id(m))
                .collect();
            ids.sort();
            match self.seen_moves.get(&(k.clone(), ids.clone())) {
                Some(&d) if d <= depth => return,
                _ => {
                    self.seen_moves.insert((k, ids), depth);
                }
            }
        } else {
            match self.seen.get(&k) {
                Some(&d) if d <= depth => return,
                _ => {
                    self.seen.insert(k, depth);
                }
            }
        }
        let kids: Vec<(R::Move, R, bool)> = g
            .legal_moves()
            .into_iter()
            .filter_map(|m| {
                let mut next = g.clone();
                next.play_legal(&m);
                let n = Needs::of(&next, &self.target);
                // A move that puts no square right and two wrong (a piece from
                // where the view shows it to where it shows nothing) is in no
                // line worth finding.
                let wasted = n.count() >= needs.count() + 2;
                if wasted && self.wasted_left == 0 {
                    return None;
                }
                let f = (depth + 1) as f64
                    + n.bound(next.side_to_move(), self.max_plies - depth - 1, self.reach);
                if f > self.threshold + EPS {
                    self.next = self.next.min(f);
                    return None;
                }
                Some((m, next, wasted))
            })
            .collect();
        for (m, next, wasted) in kids {
            if self.nodes >= MAX_NODES {
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
            Joined::Several(v) => assert!(v.iter().any(|(_, l)| key(l.end()) == key(&g))),
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
