//! Joining a game under way at the first views, and placing the grid again when
//! views fit no position of the game.

use super::{RecordJob, StillView};
use crate::infer::{check_start, join, JoinLine, Joined, SiteMap, SiteProbs};
use crate::record::Recordable;
use crate::rules::Rules;

/// The game under way that a first view shows, when the search from the start
/// finds one line to it that can be believed (see [`crate::infer::join`]).
/// Err holds the lines to several positions the view fits equally: none is
/// picked, and play after the view may decide between them.
pub(super) fn join_under_way<R: Recordable>(
    game: &R,
    probs: &[SiteProbs],
    job: &RecordJob,
    to_move: Option<crate::rules::Side>,
) -> Result<Option<OpenJoin<R>>, Vec<OpenJoin<R>>> {
    let Some(cfg) = job.infer.join else {
        return Ok(None);
    };
    let grid = job.pose.grid();
    match join(game, probs, grid.rows, grid.cols, &cfg, to_move) {
        Joined::One { map, line } if job.white.is_none_or(|w| w == map.side) => {
            Ok(Some((map, line)))
        }
        Joined::Several(lines) => {
            let lines: Vec<_> = lines
                .into_iter()
                .filter(|(m, _)| job.white.is_none_or(|w| w == m.side))
                .collect();
            match lines.len() {
                0 => Ok(None),
                1 => Ok(lines.into_iter().next()),
                _ => Err(lines),
            }
        }
        _ => Ok(None),
    }
}

/// A position a view of a game under way fits, under its orientation.
pub(super) type OpenJoin<R> = (SiteMap, JoinLine<R>);

/// Each line as the record would write it.
pub(super) fn named_lines<R: Rules>(game: &R, lines: &[OpenJoin<R>]) -> Vec<String> {
    lines
        .iter()
        .map(|(_, l)| numbered(game, &l.notation()))
        .collect()
}

/// Moves as a record writes them from `start`: "1. e4 e5 2. Nf3" (or "1... e5"
/// when Black moves first).
pub(super) fn numbered<R: Rules>(start: &R, sans: &[String]) -> String {
    let black_first = start.side_to_move() == crate::rules::Side::Black;
    let mut out = Vec::new();
    for (i, san) in sans.iter().enumerate() {
        let ply = i + usize::from(black_first);
        if ply % 2 == 0 {
            out.push(format!("{}. {san}", ply / 2 + 1));
        } else if i == 0 {
            out.push(format!("{}... {san}", ply / 2 + 1));
        } else {
            out.push(san.clone());
        }
    }
    out.join(" ")
}

/// What the record says of plies reconstructed from a view: that the first
/// `unseen` were not seen, what else the view fits, and when play after it
/// showed which of several positions it was.
pub(super) fn joined_note<R: Rules>(line: &JoinLine<R>, at: &str, decided: &str) -> String {
    let unseen = line.unseen;
    let mut note = format!(
        "{} not seen: reconstructed from the view at {at}",
        ply_span(unseen)
    );
    if unseen < line.line.len() {
        note.push_str(&format!(
            "; the view fits other positions as well, and the moves seen up to {decided} showed which"
        ));
    }
    if line.order_open {
        note.push_str("; their order is not known");
    }
    let start = line.positions.first();
    let named = |moves: &[String]| match start {
        Some(s) => numbered(s, moves),
        None => moves.join(" "),
    };
    for other in &line.others {
        note.push_str(&format!(
            "; the view fits other moves as well: {}",
            named(other)
        ));
    }
    for other in &line.alike {
        note.push_str(&format!(
            "; the view fits as well a position that looks the same, reached by more moves: {}",
            named(other)
        ));
    }
    if line.alike_unchecked {
        note.push_str(
            "; a position that looks the same, reached by a few more moves, was not ruled out",
        );
    }
    note
}

/// "ply 1" or "plies 1-4".
pub(super) fn ply_span(n: usize) -> String {
    if n == 1 {
        "ply 1".into()
    } else {
        format!("plies 1-{n}")
    }
}

/// How far (in cells) a grid placed anew must lie from the one used to be
/// taken: nearer, it is the same grid found again.
pub(super) const PLACE_AGAIN_CELLS: f64 = 0.5;
/// Squares fewer that a grid placed anew must contradict the position by.
pub(super) const PLACE_AGAIN_GAIN: usize = 4;

/// The still view `still` read again, every site, through a grid placed anew.
pub(super) fn read_again(still: &StillView, sites: usize) -> StillView {
    StillView {
        time_s: still.time_s,
        read_now: vec![true; sites],
        regrid: None,
        change: Vec::new(),
        episodes: still.episodes,
    }
}

/// Whether readings show the start position under some orientation (the one
/// given, where given), or a game under way the search can join.
pub(super) fn fits_a_position<R: Recordable>(
    game: &R,
    probs: &[SiteProbs],
    job: &RecordJob,
    to_move: Option<crate::rules::Side>,
) -> bool {
    let grid = job.pose.grid();
    let (files, ranks) = game.dims();
    let start = SiteMap::all(grid.rows, grid.cols, files, ranks)
        .filter(|m| job.white.is_none_or(|w| w == m.side))
        .any(|m| check_start(game, &m, probs, &job.infer).is_start());
    start
        || job.infer.join.is_some_and(|cfg| {
            matches!(
                join(game, probs, grid.rows, grid.cols, &cfg, to_move),
                Joined::One { .. } | Joined::Several(_)
            )
        })
}
