//! Issue 19: an arbiter-grade record. No move is written that was not played,
//! every irregularity is named, and play that goes on after an illegal move is a
//! new game in the same file.

use std::path::Path;

use boardscribe_core::infer::WhiteSide;
use boardscribe_core::record::parse_pgn_games;
use boardscribe_core::rules::chess::Chess;
use boardscribe_lab::sets::board_state;
use boardscribe_lab::synth::{BoardState, SceneParams};

use super::clips::{corners_arg, fast_clip, render, small};
use super::util::{p, run, stderr, stdout, tmp};

/// The board states of `game` after each of `ucis`, White at the bottom.
fn states_after(game: &mut Chess, ucis: &[&str]) -> Vec<BoardState> {
    ucis.iter()
        .map(|u| {
            game.play_uci(u).unwrap();
            board_state(game, WhiteSide::Bottom)
        })
        .collect()
}

/// Records `clip` as chess with White at `white`; returns the record's text, the
/// events (stdout), stderr and whether the run succeeded.
fn record(clip: &Path, corners: &str, white: &str, out: &Path) -> (String, String, String, bool) {
    record_with(clip, corners, white, out, &[])
}

fn record_with(
    clip: &Path,
    corners: &str,
    white: &str,
    out: &Path,
    extra: &[&str],
) -> (String, String, String, bool) {
    let mut args = vec![
        "record",
        "--game",
        "chess",
        "--input",
        p(clip),
        "--grid",
        "8x8",
        "--corners",
        corners,
        "--white",
        white,
        "--pgn",
        p(out),
        "--events",
    ];
    args.extend_from_slice(extra);
    if let Some(keep) = std::env::var_os("KEEP_CLIP") {
        // Diagnosis: keep the clip and say how it was recorded.
        let kept = Path::new(&keep).join(clip.file_name().unwrap());
        std::fs::copy(clip, &kept).unwrap();
        eprintln!("kept {}: {}", kept.display(), args.join(" "));
    }
    let o = run(&args);
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    let text = std::fs::read_to_string(out).unwrap_or_default();
    (text, stdout(&o), err, o.status.success())
}

fn sans(game: &boardscribe_core::record::PgnRecord) -> Vec<&str> {
    game.moves.iter().map(|m| m.san.as_str()).collect()
}

/// The reproduction: 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6, then White's knight
/// jumps f3-f5 and play goes on from there: 4... Nf6 5. O-O Be7 6. Re1 d6.
#[test]
fn play_that_goes_on_after_an_illegal_knight_jump_is_a_second_game() {
    let dir = tmp();
    let mut a = Chess::new();
    let mut states = vec![board_state(&a, WhiteSide::Bottom)];
    states.extend(states_after(
        &mut a,
        &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"],
    ));
    let irregular = "r1bqkbnr/1ppp1ppp/p1n5/1B2pN2/4P3/8/PPPP1PPP/RNBQK2R b KQkq - 1 4";
    let mut d = Chess::from_fen(irregular).unwrap();
    states.push(board_state(&d, WhiteSide::Bottom));
    states.extend(states_after(
        &mut d,
        &["g8f6", "e1g1", "f8e7", "f1e1", "d7d6"],
    ));
    let (clip, truth) = render(
        dir.path(),
        "ill",
        &small(SceneParams::chess_overhead(3, false)),
        &states,
        &fast_clip(),
    );
    let out = dir.path().join("rec.pgn");
    let (text, events, err, _) = record(&clip, &corners_arg(&truth), "bottom", &out);
    let games = parse_pgn_games(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(games.len(), 2, "{text}\n{err}");
    assert_eq!(
        sans(&games[0]),
        ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"],
        "{text}"
    );
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("White knight f3-f5 is not a legal move"),
        "{text}"
    );
    assert_eq!(games[1].start_fen.as_deref(), Some(irregular), "{text}");
    assert_eq!(
        sans(&games[1]),
        ["Nf6", "O-O", "Be7", "Re1", "d6"],
        "{text}"
    );
    assert!(text.contains("[SetUp \"1\"]"), "{text}");
    assert!(flat.contains("continues game 1"), "{text}");
    assert!(events.contains("\"type\":\"illegal_move\""), "{events}");
    assert!(events.contains("\"type\":\"new_game\""), "{events}");
    // Every move event is a move really played.
    assert_eq!(events.matches("\"type\":\"move\"").count(), 11, "{events}");
}

/// A fast recapture: the second ply follows before the board is ever still.
#[test]
fn two_plies_seen_together_are_marked() {
    let dir = tmp();
    let mut g = Chess::new();
    let mut states = vec![board_state(&g, WhiteSide::Bottom)];
    states.extend(states_after(
        &mut g,
        &["e2e4", "d7d5", "e4d5", "d8d5", "b1c3"],
    ));
    let mut opts = fast_clip();
    // Qxd5 follows exd5 at once: the hands are out of view for under a second
    // between them, less than the quiet period the recorder is given below.
    opts.no_pause_after = vec![2];
    opts.still_s = 1.5;
    let (clip, truth) = render(
        dir.path(),
        "recapture",
        &small(SceneParams::chess_overhead(4, false)),
        &states,
        &opts,
    );
    let out = dir.path().join("rec.pgn");
    let (text, events, err, ok) = record_with(
        &clip,
        &corners_arg(&truth),
        "bottom",
        &out,
        &["--quiet", "1.0"],
    );
    assert!(ok, "{err}");
    let games = parse_pgn_games(&text).unwrap();
    assert_eq!(
        sans(&games[0]),
        ["e4", "d5", "exd5", "Qxd5", "Nc3"],
        "{text}"
    );
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("plies 3-4 seen together"), "{text}");
    assert!(
        events.contains("\"type\":\"seen_together\",\"time\"")
            && events.contains("\"first\":3,\"last\":4"),
        "{events}"
    );
}

/// A recording started after the first moves: nothing is recorded, and the user
/// is told what differs and what to give.
#[test]
fn a_recording_started_mid_game_reconstructs_the_plies_before_and_marks_them() {
    let dir = tmp();
    let mut g = Chess::new();
    let states = states_after(&mut g, &["e2e4", "e7e5", "g1f3"]);
    let (clip, truth) = render(
        dir.path(),
        "late",
        &small(SceneParams::chess_overhead(6, false)),
        &states,
        &fast_clip(),
    );
    let out = dir.path().join("rec.pgn");
    let (text, events, err, _) = record(&clip, &corners_arg(&truth), "bottom", &out);
    let games = parse_pgn_games(&text).unwrap();
    let sans: Vec<&str> = games[0].moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, ["e4", "e5", "Nf3"], "{text}\n{err}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("not seen: reconstructed from the view at"),
        "{text}"
    );
    assert!(events.contains("\"type\":\"joined\""), "{events}");
    assert!(err.contains("under way"), "{err}");
    assert!(!events.contains("\"type\":\"illegal_move\""), "{events}");
    assert!(!events.contains("\"type\":\"unexplained\""), "{events}");
}

/// White's edge given wrongly: the user is told which edge it looks like.
#[test]
fn a_wrong_white_edge_is_named() {
    let dir = tmp();
    let mut g = Chess::new();
    let mut states = vec![board_state(&g, WhiteSide::Bottom)];
    states.extend(states_after(&mut g, &["e2e4", "e7e5"]));
    let (clip, truth) = render(
        dir.path(),
        "turned",
        &small(SceneParams::chess_overhead(7, false)),
        &states,
        &fast_clip(),
    );
    let out = dir.path().join("rec.pgn");
    let (text, events, err, _) = record(&clip, &corners_arg(&truth), "top", &out);
    assert!(
        parse_pgn_games(&text).unwrap()[0].moves.is_empty(),
        "{text}"
    );
    assert!(events.contains("\"type\":\"not_start\""), "{events}");
    assert!(
        err.contains("White is at the bottom edge: check --white"),
        "{err}"
    );
}

/// A knight knocked off the board and put back: named, and no move invented.
#[test]
fn a_piece_knocked_off_and_put_back_is_named_and_no_move_is_invented() {
    let dir = tmp();
    let mut g = Chess::new();
    let mut states = vec![board_state(&g, WhiteSide::Bottom)];
    states.extend(states_after(&mut g, &["e2e4", "e7e5"]));
    let before = states.last().unwrap().clone();
    let mut knocked = before.clone();
    // g1's knight (row 7, column 6) falls off the board.
    knocked.set(7, 6, None);
    states.push(knocked);
    states.push(before);
    states.extend(states_after(&mut g, &["g1f3", "b8c6"]));
    let (clip, truth) = render(
        dir.path(),
        "knocked",
        &small(SceneParams::chess_overhead(10, false)),
        &states,
        &fast_clip(),
    );
    let out = dir.path().join("rec.pgn");
    let (text, events, err, ok) = record(&clip, &corners_arg(&truth), "bottom", &out);
    assert!(ok, "{err}");
    let games = parse_pgn_games(&text).unwrap();
    assert_eq!(games.len(), 1, "{text}");
    assert_eq!(sans(&games[0]), ["e4", "e5", "Nf3", "Nc6"], "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("the white knight on g1 left the board"),
        "{text}"
    );
    assert!(events.contains("\"type\":\"piece_removed\""), "{events}");
    assert!(events.contains("\"type\":\"sync\""), "{events}");
}

/// Knights going back and forth reach a threefold repetition: the record holds the
/// moves, says a draw may be claimed, and leaves the result open; `--result` sets
/// it (a bad value is refused before anything is written), and a result the rules
/// gave (fivefold repetition) is never overruled.
#[test]
fn a_threefold_repetition_is_a_claim_and_the_result_flag_sets_it() {
    let dir = tmp();
    let mut g = Chess::new();
    let mut states = vec![board_state(&g, WhiteSide::Bottom)];
    states.extend(states_after(
        &mut g,
        &[
            "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
        ],
    ));
    let (clip, truth) = render(
        dir.path(),
        "threefold",
        &small(SceneParams::chess_overhead(11, false)),
        &states,
        &fast_clip(),
    );
    let corners = corners_arg(&truth);
    let out = dir.path().join("rec.pgn");
    let (text, events, err, ok) = record(&clip, &corners, "bottom", &out);
    assert!(ok, "{err}\n{text}");
    let games = parse_pgn_games(&text).unwrap();
    assert_eq!(games.len(), 1, "{text}");
    assert_eq!(
        sans(&games[0]),
        ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"],
        "{text}"
    );
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.ends_with("{draw may be claimed: threefold repetition} *"),
        "{text}"
    );
    assert_eq!(games[0].result, "*", "a claim is no result: {text}");
    assert!(text.contains("[Result \"*\"]"), "{text}");
    let claims: Vec<&str> = events
        .lines()
        .filter(|l| l.contains("\"type\":\"draw_claimable\""))
        .collect();
    assert_eq!(claims.len(), 1, "said once: {events}");
    assert!(
        claims[0].contains("\"ply\":8")
            && claims[0].contains("\"reason\":\"threefold repetition\""),
        "{events}"
    );

    // A bad --result: named, usage status, the record not touched.
    let o = run(&[
        "record",
        "--input",
        p(&clip),
        "--grid",
        "8x8",
        "--corners",
        &corners,
        "--pgn",
        p(&out),
        "--resume",
        "--result",
        "2-1",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    assert!(e.contains("--result") && e.contains("'2-1'"), "{e}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);

    // Four more repetitions, and the fifth time the start position stands the
    // rules end the game (FIDE 9.6.1). A --result that says otherwise is refused;
    // the record keeps the rules' result. (Resuming the record above with a clip
    // of them would not do: every view of that clip shows a position the game
    // had before too, and a resumed record never takes the past for new moves.)
    let mut g = Chess::new();
    let mut states = vec![board_state(&g, WhiteSide::Bottom)];
    states.extend(states_after(
        &mut g,
        &[
            "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1",
            "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
        ],
    ));
    let (fivefold, truth) = render(
        dir.path(),
        "fivefold",
        &small(SceneParams::chess_overhead(11, false)),
        &states,
        &fast_clip(),
    );
    let (resumed, _, err, ok) = record_with(
        &fivefold,
        &corners_arg(&truth),
        "bottom",
        &dir.path().join("fivefold.pgn"),
        &["--result", "1-0"],
    );
    assert!(!ok, "{err}\n{resumed}");
    assert!(
        err.contains(
            "--result not written: the rules already ended the game 1/2-1/2 (fivefold repetition)"
        ),
        "{err}"
    );
    let flat = resumed.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("fivefold repetition: the game is drawn by rule"),
        "{resumed}"
    );
    let games = parse_pgn_games(&resumed).unwrap();
    assert_eq!(games[0].moves.len(), 16, "{resumed}");
    assert_eq!(games[0].result, "1/2-1/2", "{resumed}");
    assert!(!flat.contains("given at the end"), "{resumed}");

    // The record above taken up with its own clip again: every view is of a
    // position the game had already, so nothing is added (exit 3).
    let (again, _, err, ok) = record_with(&clip, &corners, "bottom", &out, &["--resume"]);
    assert!(!ok && err.contains("incomplete"), "{err}");
    assert_eq!(
        parse_pgn_games(&again).unwrap()[0].moves.len(),
        8,
        "{again}"
    );

    // Recorded afresh with the result the players agreed.
    let (text, _, err, ok) = record_with(
        &clip,
        &corners,
        "bottom",
        &out,
        &["--force", "--result", "1/2-1/2"],
    );
    assert!(ok, "{err}\n{text}");
    let games = parse_pgn_games(&text).unwrap();
    assert_eq!(games[0].moves.len(), 8, "{text}");
    assert_eq!(games[0].result, "1/2-1/2", "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("draw may be claimed: threefold repetition"),
        "{text}"
    );
    assert!(
        flat.contains("result 1/2-1/2 given at the end of the recording (--result)"),
        "{text}"
    );
    assert!(err.contains("result 1/2-1/2 written"), "{err}");
}
