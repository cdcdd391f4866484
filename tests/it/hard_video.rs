//! What real game videos do to a recorder, rendered: a camera warming up, dim
//! warm light, an arm resting over the board, the first moves at once, an
//! exposure jump, tiny frames. Each clip is recorded as a user runs `record`
//! (no corners, no `--white`, no `--fen`) and must give the true game exactly,
//! with exit status 0: never a move that was not played.

use std::path::Path;

use boardscribe_core::record::parse_pgn;
use boardscribe_lab::synth::clip::{ClipOptions, Trouble};
use boardscribe_lab::synth::SceneParams;

use super::clips::{fast_clip, small, states_of};
use super::recovery::{fixture_games, same_moves};
use super::util::{p, run, stderr, tmp};

/// Plies of each clip: short clips keep `make test` quick.
const PLIES: usize = 5;

/// Records a clip of the first plies of a fixture game filmed with `trouble`
/// (and `size`, when given) and checks the record is the true game.
fn records_exactly(dir: &Path, name: &str, seed: u64, size: Option<(u32, u32)>, trouble: Trouble) {
    records_exactly_as(dir, name, "mp4", seed, size, trouble);
}

/// The same, the clip written as a `kind` file (`mp4`, or `h264`: a bare
/// stream with no container and no frame times).
fn records_exactly_as(
    dir: &Path,
    name: &str,
    kind: &str,
    seed: u64,
    size: Option<(u32, u32)>,
    trouble: Trouble,
) {
    let games = fixture_games();
    let standard = boardscribe_core::rules::chess::Chess::new();
    let games: Vec<_> = games
        .iter()
        .filter(|g| {
            use boardscribe_core::rules::Rules;
            g.start.position_text() == standard.position_text() && g.moves.len() >= PLIES
        })
        .collect();
    let game = games[seed as usize % games.len()];
    let mut params = small(SceneParams::chess_overhead(seed, seed.is_multiple_of(2)));
    if let Some((w, h)) = size {
        (params.width, params.height) = (w, h);
    }
    let opts = ClipOptions {
        trouble,
        ..fast_clip()
    };
    let clip = dir.join(format!("{name}-{seed}.{kind}"));
    boardscribe_lab::synth::clip::write_clip(
        &clip,
        &params,
        &states_of(&game.start, &game.moves[..PLIES]),
        &opts,
    )
    .expect("clip renders");
    let out = dir.join(format!("{name}-{seed}.pgn"));
    // The clip's own rate: a bare stream carries none (the demuxer assumes 25).
    let fps = format!("{}", fast_clip().fps);
    let mut args = vec!["record", "--input", p(&clip), "--out", p(&out)];
    if kind == "h264" {
        args.extend(["--fps", fps.as_str()]);
    }
    let o = run(&args);

    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let err = stderr(&o);
    let ctx = format!("{name}, {} seed {seed}:\n{err}\n{text}", game.name);
    let rec = parse_pgn(&text).unwrap_or_else(|e| panic!("invalid PGN ({e}): {ctx}"));
    let got: Vec<String> = rec.moves.iter().map(|m| m.san.clone()).collect();
    assert!(same_moves(&got, &game.sans[..PLIES], &text), "{ctx}");
    assert_eq!(o.status.code(), Some(0), "{ctx}");
}

/// Seeds for the default run and for CI's.
fn seeds(all: bool) -> std::ops::RangeInclusive<u64> {
    if all {
        1..=20
    } else {
        1..=1
    }
}

/// Records every seed's clip of one failure mode (`name`, its frame size and
/// its trouble).
fn mode(all: bool, name: &str, size: Option<(u32, u32)>, trouble: Trouble) {
    let dir = tmp();
    for seed in seeds(all) {
        records_exactly(dir.path(), name, seed, size, trouble.clone());
    }
}

fn camera_warming_up(all: bool) {
    let trouble = Trouble {
        black_s: 1.0,
        ..Trouble::default()
    };
    mode(all, "warm-up", None, trouble);
}

fn dim_warm_light(all: bool) {
    let trouble = Trouble {
        dim_warm: 0.6,
        ..Trouble::default()
    };
    mode(all, "dim-warm", None, trouble);
}

fn arm_resting(all: bool) {
    let trouble = Trouble {
        resting_arm: Some((1, 3.0)),
        ..Trouble::default()
    };
    mode(all, "arm", None, trouble);
}

fn gloved_arm_resting_in_dim_light(all: bool) {
    let trouble = Trouble {
        resting_arm: Some((1, 3.0)),
        dim_warm: 0.6,
        glove: Some([40, 44, 58]),
        ..Trouble::default()
    };
    mode(all, "glove", None, trouble);
}

fn first_moves_at_once(all: bool) {
    let trouble = Trouble {
        first_still_s: Some(0.25),
        ..Trouble::default()
    };
    mode(all, "at-once", None, trouble);
}

fn exposure_jump(all: bool) {
    let trouble = Trouble {
        exposure_jump: Some((4.0, [1.35, 1.2, 1.05])),
        ..Trouble::default()
    };
    mode(all, "exposure", None, trouble);
}

fn reach_at_end(all: bool) {
    // Two frames at rest after the last piece is put down (the first still
    // differs from the hand's last), then a hand coming back over the board
    // until the clip ends: a rest of an eighth to a third of a second, under
    // the quiet period.
    let trouble = Trouble {
        reach_at_end: Some(0.25),
        ..Trouble::default()
    };
    mode(all, "reach", None, trouble);
}

fn tiny_frames(all: bool) {
    mode(all, "tiny", Some((300, 300)), Trouble::default());
}

#[test]
fn a_clip_ending_with_a_hand_reaching_in_records_the_last_move() {
    reach_at_end(false);
}

#[test]
fn a_camera_warming_up_with_black_frames_records_the_game() {
    camera_warming_up(false);
}

#[test]
fn dim_warm_light_records_the_game() {
    dim_warm_light(false);
}

#[test]
fn an_arm_resting_over_the_board_records_the_game() {
    arm_resting(false);
}

#[test]
fn a_gloved_arm_resting_in_dim_light_records_the_game() {
    gloved_arm_resting_in_dim_light(false);
}

#[test]
fn first_moves_at_once_record_the_game() {
    first_moves_at_once(false);
}

#[test]
fn an_exposure_jump_records_the_game() {
    exposure_jump(false);
}

#[test]
fn tiny_frames_record_the_game() {
    tiny_frames(false);
}

fn raw_h264(all: bool) {
    let dir = tmp();
    for seed in seeds(all) {
        records_exactly_as(dir.path(), "raw", "h264", seed, None, Trouble::default());
    }
}

#[test]
fn a_raw_h264_stream_records_the_game() {
    raw_h264(false);
}

#[test]
fn a_raw_h264_stream_without_fps_is_said_to_have_no_frame_times() {
    let dir = tmp();
    let game = &fixture_games()[0];
    let clip = dir.path().join("raw.h264");
    boardscribe_lab::synth::clip::write_clip(
        &clip,
        &small(SceneParams::chess_overhead(3, false)),
        &states_of(&game.start, &game.moves[..1]),
        &fast_clip(),
    )
    .expect("clip renders");
    let out = dir.path().join("raw.pgn");
    let o = run(&["record", "--input", p(&clip), "--out", p(&out)]);
    let err = stderr(&o);
    assert!(
        err.contains("is a raw stream with no frame times: assuming"),
        "{err}"
    );
    let o = run(&[
        "record",
        "--input",
        p(&clip),
        "--out",
        p(&out),
        "--force",
        "--fps",
        "8",
    ]);
    assert!(!stderr(&o).contains("raw stream"), "{}", stderr(&o));
}

/// The long sweeps (seeds, cut points, kills, a CPU measurement): ignored by a
/// plain `cargo test`; `make test-sweeps` runs them, and CI does.
mod sweeps {
    use super::*;

    #[test]
    #[ignore = "twenty rendered clips: make test-sweeps (CI) runs it"]
    fn a_camera_warming_up_records_the_game_over_twenty_seeds() {
        camera_warming_up(true);
    }

    #[test]
    #[ignore = "twenty rendered clips: make test-sweeps (CI) runs it"]
    fn dim_warm_light_records_the_game_over_twenty_seeds() {
        dim_warm_light(true);
    }

    #[test]
    #[ignore = "twenty rendered clips: make test-sweeps (CI) runs it"]
    fn an_arm_resting_over_the_board_records_the_game_over_twenty_seeds() {
        arm_resting(true);
    }

    #[test]
    #[ignore = "twenty rendered clips: make test-sweeps (CI) runs it"]
    fn a_gloved_arm_resting_in_dim_light_records_the_game_over_twenty_seeds() {
        gloved_arm_resting_in_dim_light(true);
    }

    #[test]
    #[ignore = "twenty rendered clips: make test-sweeps (CI) runs it"]
    fn first_moves_at_once_record_the_game_over_twenty_seeds() {
        first_moves_at_once(true);
    }

    #[test]
    #[ignore = "twenty rendered clips: make test-sweeps (CI) runs it"]
    fn an_exposure_jump_records_the_game_over_twenty_seeds() {
        exposure_jump(true);
    }

    #[test]
    #[ignore = "twenty rendered clips: make test-sweeps (CI) runs it"]
    fn a_clip_ending_with_a_hand_reaching_in_records_the_last_move_over_twenty_seeds() {
        reach_at_end(true);
    }

    #[test]
    #[ignore = "twenty rendered clips: make test-sweeps (CI) runs it"]
    fn tiny_frames_record_the_game_over_twenty_seeds() {
        tiny_frames(true);
    }

    #[test]
    #[ignore = "twenty rendered clips: make test-sweeps (CI) runs it"]
    fn a_raw_h264_stream_records_the_game_over_twenty_seeds() {
        raw_h264(true);
    }
}
