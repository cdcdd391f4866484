//! White's edge when the camera cannot tell the pieces' colours apart (warm dim
//! light makes the light pieces look dark): the start position fits with White
//! at either edge, so both are kept open and the first move decides, the record
//! saying so. Never a game recorded from the wrong edge.

use boardscribe_core::record::parse_pgn;
use boardscribe_core::rules::chess::Chess;
use boardscribe_core::rules::Rules;
use boardscribe_lab::synth::SceneParams;

use super::clips::{fast_clip, render, small, states_of};
use super::recovery::{fixture_games, same_moves};
use super::util::{p, run, stderr, tmp};

const PLIES: usize = 5;

/// Records a clip whose light pieces look like the dark ones and checks the
/// record is the true game; returns what `record` said.
fn one_colour(seed: u64) -> String {
    let dir = tmp();
    let start = Chess::new().position_text();
    let games: Vec<_> = fixture_games()
        .into_iter()
        .filter(|g| g.start.position_text() == start && g.moves.len() >= PLIES)
        .collect();
    let game = &games[seed as usize % games.len()];
    let mut params = small(SceneParams::chess_overhead(seed, seed.is_multiple_of(2)));
    params.pieces.white = params.pieces.black;
    let (clip, _) = render(
        dir.path(),
        "one-colour",
        &params,
        &states_of(&game.start, &game.moves[..PLIES]),
        &fast_clip(),
    );
    let out = dir.path().join("one-colour.pgn");
    let o = run(&["record", "--input", p(&clip), "--out", p(&out)]);
    let err = stderr(&o);
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let ctx = format!("{} seed {seed}:\n{err}\n{text}", game.name);
    let rec = parse_pgn(&text).unwrap_or_else(|e| panic!("invalid PGN ({e}): {ctx}"));
    let got: Vec<String> = rec.moves.iter().map(|m| m.san.clone()).collect();
    assert!(same_moves(&got, &game.sans[..PLIES], &text), "{ctx}");
    assert_eq!(o.status.code(), Some(0), "{ctx}");
    err
}

#[test]
fn pieces_of_one_colour_are_recorded_from_the_edge_the_first_move_shows() {
    // Seed 3 is taken with White at the top edge first: the first move, a
    // black pawn's from there, shows the bottom edge.
    let err = one_colour(3);
    assert!(
        err.contains("white is at the bottom edge after all"),
        "{err}"
    );
}

/// The long sweeps (seeds, cut points, kills, a CPU measurement): ignored by a
/// plain `cargo test`; `make test-sweeps` runs them, and CI does.
mod sweeps {
    use super::*;

    #[test]
    #[ignore = "twenty rendered clips: make test-sweeps (CI) runs it"]
    fn pieces_of_one_colour_are_recorded_over_twenty_seeds() {
        for seed in 1..=20 {
            one_colour(seed);
        }
    }
}
