//! A grid placed wrong (on a view an arm half hid, or given so): the still
//! views read through it fit no position of the game. The recorder places the
//! grid again, takes it where its readings fit the game, says so, and records
//! the game.

use boardscribe_core::record::parse_pgn;
use boardscribe_core::rules::chess::Chess;
use boardscribe_core::rules::Rules;
use boardscribe_lab::synth::SceneParams;

use super::clips::{fast_clip, render, small, states_of};
use super::recovery::{fixture_games, same_moves};
use super::util::{p, run, stderr, tmp};

const PLIES: usize = 5;

/// The clip's first-frame corners squashed onto the half of the board nearer
/// its bottom edge, as a grid placed under an arm resting over the top half.
fn half_board(corners: &[[f64; 2]; 4]) -> String {
    let mid = |a: [f64; 2], b: [f64; 2]| [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    let squashed = [
        mid(corners[0], corners[3]),
        mid(corners[1], corners[2]),
        corners[2],
        corners[3],
    ];
    squashed
        .iter()
        .map(|[x, y]| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_grid_on_half_the_board_is_placed_again_and_the_game_recorded() {
    let dir = tmp();
    let start = Chess::new().position_text();
    let game = fixture_games()
        .into_iter()
        .find(|g| g.start.position_text() == start && g.moves.len() >= PLIES)
        .expect("a fixture game from the start");
    let (clip, truth) = render(
        dir.path(),
        "half",
        &small(SceneParams::chess_overhead(3, false)),
        &states_of(&game.start, &game.moves[..PLIES]),
        &fast_clip(),
    );
    let out = dir.path().join("half.pgn");
    let o = run(&[
        "record",
        "--input",
        p(&clip),
        "--corners",
        &half_board(&truth.frames[0].corners),
        "--out",
        p(&out),
    ]);
    let err = stderr(&o);
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let ctx = format!("{err}\n{text}");
    assert!(err.contains("the grid was placed again"), "{ctx}");
    let rec = parse_pgn(&text).unwrap_or_else(|e| panic!("invalid PGN ({e}): {ctx}"));
    let got: Vec<String> = rec.moves.iter().map(|m| m.san.clone()).collect();
    assert!(same_moves(&got, &game.sans[..PLIES], &text), "{ctx}");
    assert_eq!(o.status.code(), Some(0), "{ctx}");
}
