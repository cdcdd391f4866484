//! The real videos of `../shared/data` (webcam-pcwawc, video-chess-overhead),
//! recorded as a user would (no corners, no `--white`, no `--fen`). Needs the
//! data folder (CI has it).

use std::path::{Path, PathBuf};

use crate::util::{run, stderr, stdout};

fn video(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/webcam-pcwawc/videos")
        .join(name)
}

/// The events `record --events` printed, one JSON object a line.
fn record_events(name: &str) -> (Vec<serde_json::Value>, String, Option<i32>) {
    let (events, record, code, _) = record_input(&video(name));
    (events, record, code)
}

/// `record --events` of `input`: the events, the record, the exit status and
/// the standard error.
fn record_input(input: &Path) -> (Vec<serde_json::Value>, String, Option<i32>, String) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let out = dir.path().join("rec.pgn");
    let o = run(&[
        "record",
        "--input",
        &input.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--events",
    ]);
    let events = stdout(&o)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let record = std::fs::read_to_string(&out).unwrap_or_default();
    (events, record, o.status.code(), stderr(&o))
}

fn of_type<'a>(events: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// Every kind of change no legal move explains.
const IRREGULAR: [&str; 5] = [
    "unexplained",
    "illegal_move",
    "piece_removed",
    "displaced",
    "unreadable",
];

fn irregular(events: &[serde_json::Value]) -> Vec<&serde_json::Value> {
    IRREGULAR.iter().flat_map(|k| of_type(events, k)).collect()
}

#[test]
#[ignore = "needs ../shared/data"]
fn an_empty_real_board_gives_no_move_and_no_unexplained_change() {
    let (events, record, code) = record_events("emptyBoard001.avi");
    // Nothing recorded is exit status 3, not a crash.
    assert_eq!(code, Some(3), "{events:?}");
    assert!(of_type(&events, "move").is_empty(), "{events:?}");
    assert!(irregular(&events).is_empty(), "{events:?}");
    assert!(of_type(&events, "orientation").is_empty(), "{events:?}");
    let waits = of_type(&events, "not_start");
    assert!(
        waits
            .iter()
            .any(|e| e["advice"].as_str().unwrap_or("").contains("looks empty")),
        "{events:?}"
    );
    // The record on disk is a valid, empty game.
    let games = boardscribe_core::record::parse_pgn(&record).expect("a valid PGN");
    assert!(games.moves.is_empty(), "{record}");
}

#[test]
#[ignore = "needs ../shared/data"]
fn the_baxter_montage_invents_no_move() {
    // A montage (docs/real-video.md): the board jumps to another place and
    // another moment of the game every few frames; no ply can be seen.
    let (events, _, code) = record_events("baxter.avi");
    assert_eq!(code, Some(3), "{events:?}");
    assert!(of_type(&events, "move").is_empty(), "{events:?}");
    assert!(irregular(&events).is_empty(), "{events:?}");
}

/// `record` of a real overhead game video as a user runs it: no corners, no
/// `--white`, no `--fen`. Returns the moves written and the exit status.
fn overhead(name: &str) -> (Vec<String>, Option<i32>, String) {
    let input = crate::util::shared_data("video-chess-overhead").join(name);
    let (events, text, code, err) = record_input(&input);
    let rec = boardscribe_core::record::parse_pgn(&text).expect("a valid PGN");
    let moves = rec.moves.iter().map(|m| m.san.clone()).collect();
    assert!(irregular(&events).is_empty(), "{events:?}");
    (moves, code, format!("{err}\n{text}"))
}

#[test]
#[ignore = "needs ../shared/data"]
fn the_real_castling_game_video_records_all_fourteen_plies() {
    let (moves, code, ctx) = overhead("castle.h264");
    let want = "e4 e5 Nf3 Nc6 Bc4 Nf6 O-O d6 Nc3 Be6 a3 Qd7 Qe2 O-O-O";
    assert_eq!(moves.join(" "), want, "{ctx}");
    assert_eq!(code, Some(0), "{ctx}");
}

#[test]
#[ignore = "needs ../shared/data"]
fn the_real_en_passant_game_video_records_all_seven_plies() {
    let (moves, code, ctx) = overhead("en_passant.h264");
    assert_eq!(moves.join(" "), "e4 a6 e5 d5 exd6 cxd6 Nf3", "{ctx}");
    assert_eq!(code, Some(0), "{ctx}");
}
