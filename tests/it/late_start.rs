//! A camera that starts late: the first view shows a game some plies in. The
//! recorder searches the legal lines from the start for the position the view
//! shows, writes those plies marked as reconstructed (and says when their order
//! cannot be seen), and records the rest as seen. Never a move not played.

use std::path::Path;

use boardscribe_core::record::parse_pgn;
use boardscribe_core::rules::chess::Chess;
use boardscribe_core::rules::Rules;
use boardscribe_lab::synth::SceneParams;

use super::clips::{corners_arg, fast_clip, render, small, states_of};
use super::recovery::{fixture_games, same_moves, Game};
use super::util::{p, run, stderr, tmp};

/// Plies recorded after the late start: enough to show recording goes on.
const AFTER: usize = 4;

/// The board (placement and side to move) after `sans` from the standard start.
fn board_after(sans: &[String]) -> Option<String> {
    let mut g = Chess::new();
    for s in sans {
        let mv = g.legal_moves().into_iter().find(|m| {
            g.notation(m).trim_end_matches(['+', '#']) == s.trim_end_matches(['+', '#'])
        })?;
        g.play_legal(&mv);
    }
    let fen = g.position_text();
    Some(fen.split(' ').take(2).collect::<Vec<_>>().join(" "))
}

/// Records `game`'s clip begun after `late` plies (the first `late + AFTER`
/// plies of it) and checks the record: the true moves, or the same position
/// reached by the same moves in another order (or other moves) with the record
/// saying so, then the true moves, exit status 0; or, where the view fits
/// several positions, nothing recorded (exit 3) and each position named.
fn late_start(dir: &Path, game: &Game, late: usize, seed: u64) -> Outcome {
    let n = (late + AFTER).min(game.moves.len());
    let states = states_of(&game.start, &game.moves[..n]);
    let (clip, truth) = render(
        dir,
        &format!("{}-{late}-{seed}", game.name),
        &small(SceneParams::chess_overhead(seed, seed.is_multiple_of(2))),
        &states[late..],
        &fast_clip(),
    );
    let out = dir.join(format!("{}-{late}-{seed}.pgn", game.name));
    let o = run(&[
        "record",
        "--input",
        p(&clip),
        "--corners",
        &corners_arg(&truth),
        "--out",
        p(&out),
    ]);
    let err = stderr(&o);
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let ctx = format!("{} late by {late}, seed {seed}:\n{err}\n{text}", game.name);
    assert!(!err.contains("panicked"), "{ctx}");
    let rec = parse_pgn(&text).unwrap_or_else(|e| panic!("invalid PGN ({e}): {ctx}"));
    let got: Vec<String> = rec.moves.iter().map(|m| m.san.clone()).collect();
    let want = &game.sans[..n];
    if got.is_empty() && o.status.code() == Some(3) {
        let Some(named) = err
            .split_once("positions that moves from the start reach (")
            .and_then(|(_, rest)| rest.split_once("):"))
            .map(|(lines, _)| lines.to_string())
        else {
            // Deeper than the search proves within its budget: nothing
            // written, and the user told what to give.
            assert!(
                err.contains("no line of legal moves from the start within reach")
                    && err.contains("--moves")
                    && err.contains("--fen"),
                "{ctx}"
            );
            return Outcome::NotReconstructed;
        };
        // Positions occupancy cannot tell apart (a knight or a queen on f3):
        // nothing picked, each named, the true one among them.
        // The view named may come a move or more after the camera started.
        let truths: Vec<_> = (late..=n).map(|m| board_after(&want[..m])).collect();
        assert!(
            named.split(" | ").any(|line| {
                let sans: Vec<String> = line
                    .split_whitespace()
                    .filter(|t| !t.ends_with('.'))
                    .map(str::to_string)
                    .collect();
                truths.contains(&board_after(&sans))
            }),
            "{ctx}"
        );
        return Outcome::Named;
    }
    assert_eq!(o.status.code(), Some(0), "{ctx}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("not seen: reconstructed from the view at"),
        "{ctx}"
    );
    if same_moves(&got, want, &text) {
        return Outcome::Whole;
    }
    // What the view could not tell: the same position, the record naming what
    // else it fits (another order, or other moves), then the truth. The view
    // joined may come a move or two after the camera started: whose turn it
    // is shows only once a move has been seen.
    let seen_from = flat
        .split_once("plies 1-")
        .and_then(|(_, r)| r.split_once(' '))
        .and_then(|(n, _)| n.parse::<usize>().ok())
        .unwrap_or(1);
    assert!(seen_from >= late, "{ctx}");
    let late = seen_from;
    assert_eq!(got.len(), want.len(), "{ctx}");
    assert_eq!(
        board_after(&got[..late]),
        board_after(&want[..late]),
        "{ctx}"
    );
    // A check in one order may be none in another: the moves are the same.
    let bare = |v: &[String]| -> Vec<String> {
        v.iter()
            .map(|s| s.trim_end_matches(['+', '#']).to_string())
            .collect()
    };
    let mut sorted_got = bare(&got[..late]);
    let mut sorted_want = bare(&want[..late]);
    sorted_got.sort();
    sorted_want.sort();
    if sorted_got == sorted_want {
        assert!(flat.contains("their order is not known"), "{ctx}");
    } else {
        assert!(flat.contains("the view fits other moves as well"), "{ctx}");
    }
    assert!(same_moves(&got[late..], &want[late..], &text), "{ctx}");
    Outcome::Whole
}

/// How a late start ended (never with a move that was not played).
#[derive(Debug, PartialEq)]
enum Outcome {
    /// The whole game, with what the view could not tell said.
    Whole,
    /// Several positions named, none written.
    Named,
    /// Deeper than the search proves: nothing written, --moves and --fen named.
    NotReconstructed,
}

/// The fixture games that start from the standard position, long enough.
fn games() -> Vec<Game> {
    let start = Chess::new().position_text();
    fixture_games()
        .into_iter()
        .filter(|g| g.start.position_text() == start && g.moves.len() >= 10 + AFTER)
        .collect()
}

#[test]
fn a_camera_started_two_and_five_plies_late_records_the_whole_game() {
    let dir = tmp();
    let games = games();
    assert_eq!(late_start(dir.path(), &games[0], 2, 1), Outcome::Whole);
    assert_eq!(
        late_start(dir.path(), &games[1 % games.len()], 5, 2),
        Outcome::Whole
    );
}

/// The long sweeps (seeds, cut points, kills, a CPU measurement): ignored by a
/// plain `cargo test`; `make test-sweeps` runs them, and CI does.
mod sweeps {
    use super::*;

    #[test]
    #[ignore = "twenty rendered clips (about a minute): make test-sweeps (CI) runs it"]
    fn late_starts_of_one_to_ten_plies_over_twenty_seeds_record_the_whole_game() {
        let dir = tmp();
        let games = games();
        let mut outcomes = Vec::new();
        for seed in 1..=20u64 {
            let late = 1 + (seed as usize - 1) % 10;
            let game = &games[seed as usize % games.len()];
            let outcome = late_start(dir.path(), game, late, seed);
            eprintln!(
                "late start: {} late by {late}, seed {seed}: {outcome:?}",
                game.name
            );
            outcomes.push((late, outcome));
        }
        // Every late start ends with the game or the positions the view fits
        // named: none is left unreconstructed.
        assert!(
            outcomes
                .iter()
                .all(|(_, o)| *o != Outcome::NotReconstructed),
            "{outcomes:?}"
        );
    }
}
