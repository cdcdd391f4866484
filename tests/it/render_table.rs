//! Issue 32: `render table` draws several boards in one camera view, with truth
//! that holds together: corners in the frame and in canonical order, boards
//! apart, numbered in reading order, positions and records of legal games.

use std::path::Path;

use boardscribe_core::infer::WhiteSide;
use boardscribe_core::record::Resume;
use boardscribe_core::rules::chess::Chess;
use boardscribe_lab::sets::{board_state, game_states};
use boardscribe_lab::synth::clip::cells_text;
use boardscribe_vision::capture::{self, SourceOptions};
use serde_json::Value;

use super::util::{p, run, stderr, tmp};

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn corners(v: &Value) -> [(f64, f64); 4] {
    let c = v.as_array().unwrap();
    std::array::from_fn(|i| (c[i][0].as_f64().unwrap(), c[i][1].as_f64().unwrap()))
}

fn centre(q: &[(f64, f64); 4]) -> (f64, f64) {
    q.iter()
        .fold((0.0, 0.0), |a, c| (a.0 + c.0 / 4.0, a.1 + c.1 / 4.0))
}

/// Whether `(x, y)` lies inside the convex quadrilateral `q` (clockwise on screen).
fn inside(q: &[(f64, f64); 4], (x, y): (f64, f64)) -> bool {
    (0..4).all(|i| {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0) >= 0.0
    })
}

/// Corners inside the frame, in locate's canonical order (TL nearest the image's
/// top left, then clockwise on screen), and a board of at least `min_side` pixels.
fn check_corners(q: &[(f64, f64); 4], (w, h): (f64, f64), min_side: f64) {
    for &(x, y) in q {
        assert!(
            x >= 0.0 && y >= 0.0 && x < w && y < h,
            "{q:?} leaves the frame"
        );
    }
    let area: f64 = (0..4)
        .map(|i| {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum();
    assert!(area > 0.0, "{q:?} is not clockwise on screen");
    let first = (0..4)
        .min_by(|&a, &b| (q[a].0 + q[a].1).total_cmp(&(q[b].0 + q[b].1)))
        .unwrap();
    assert_eq!(first, 0, "{q:?}: TL is not the corner nearest the top left");
    let side = (q[0].0 - q[1].0).hypot(q[0].1 - q[1].1);
    assert!(side >= min_side, "{q:?}: a board of {side:.0} pixels");
}

/// No corner of one board inside another, and reading order: by rows (a centre
/// lower than half a board's height starts a new row), then left to right.
fn check_apart_and_ordered(boards: &[[(f64, f64); 4]]) {
    for (i, a) in boards.iter().enumerate() {
        for (j, b) in boards.iter().enumerate() {
            if i != j {
                assert!(
                    a.iter().all(|&c| !inside(b, c)),
                    "boards {} and {} overlap",
                    i + 1,
                    j + 1
                );
            }
        }
    }
    for w in boards.windows(2) {
        let (a, b) = (centre(&w[0]), centre(&w[1]));
        let tall = (w[0][3].1 - w[0][0].1).abs();
        let same_row = (b.1 - a.1).abs() < tall / 2.0;
        assert!(
            (same_row && b.0 > a.0) || (!same_row && b.1 > a.1),
            "{:?} before {:?} is not reading order",
            w[0],
            w[1]
        );
    }
}

#[test]
fn a_photo_of_two_boards_has_each_boards_corners_and_position() {
    let dir = tmp();
    let out = dir.path().join("t");
    let o = run(&[
        "render",
        "table",
        "--boards",
        "2",
        "--seed",
        "3",
        "--hands",
        "0.5",
        "--out",
        p(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let img = image::open(out.join("table.jpg")).unwrap();
    assert_eq!((img.width(), img.height()), (1920, 1080));
    let truth = read_json(&out.join("truth.json"));
    let boards = truth["boards"].as_array().unwrap();
    assert_eq!(boards.len(), 2);
    let mut quads = Vec::new();
    for (n, b) in boards.iter().enumerate() {
        assert_eq!(b["board"], n + 1);
        assert_eq!(b["grid"], "8x8");
        assert_eq!(b["game"], "chess");
        let q = corners(&b["corners"]);
        // Two boards share 1920 pixels: each gets well over a quarter of them.
        check_corners(&q, (1920.0, 1080.0), 450.0);
        quads.push(q);
        // The position is that of the moves, legal from the start.
        let mut text = String::from("[Event \"t\"]\n\n");
        for (i, m) in b["moves"].as_array().unwrap().iter().enumerate() {
            if i % 2 == 0 {
                text += &format!("{}. ", i / 2 + 1);
            }
            text += &format!("{} ", m.as_str().unwrap());
        }
        let g = Chess::read_record(&(text + "*\n"), &Chess::new())
            .expect("legal moves")
            .game;
        assert_eq!(b["position"], g.fen());
        let cells = serde_json::to_value(cells_text(&board_state(&g, WhiteSide::Bottom))).unwrap();
        assert_eq!(b["cells"], cells);
        for h in b["hands"].as_array().unwrap() {
            assert!((1..=2).contains(&h.as_u64().unwrap()));
        }
    }
    check_apart_and_ordered(&quads);
}

#[test]
fn four_boards_in_two_rows_are_numbered_row_by_row() {
    let dir = tmp();
    let out = dir.path().join("t");
    let o = run(&[
        "render",
        "table",
        "--boards",
        "4",
        "--layout",
        "grid",
        "--games",
        "chess,draughts,go13",
        "--size",
        "960x540",
        "--seed",
        "5",
        "--out",
        p(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let truth = read_json(&out.join("truth.json"));
    let boards = truth["boards"].as_array().unwrap();
    let games: Vec<&str> = boards.iter().map(|b| b["game"].as_str().unwrap()).collect();
    assert_eq!(games, ["chess", "draughts", "go", "go"]);
    let grids: Vec<&str> = boards.iter().map(|b| b["grid"].as_str().unwrap()).collect();
    assert_eq!(grids, ["8x8", "8x8", "13x13:points", "13x13:points"]);
    let quads: Vec<_> = boards.iter().map(|b| corners(&b["corners"])).collect();
    for q in &quads {
        check_corners(q, (960.0, 540.0), 80.0);
    }
    check_apart_and_ordered(&quads);
    // Two rows: the third board lies below the first two.
    assert!(centre(&quads[2]).1 > centre(&quads[0]).1.max(centre(&quads[1]).1));
}

#[test]
fn a_clip_of_two_games_has_each_games_record_and_frames() {
    let dir = tmp();
    let out = dir.path().join("c");
    let o = run(&[
        "render",
        "table",
        "--clip",
        "--boards",
        "2",
        "--plies",
        "3",
        "--size",
        "960x540",
        "--fps",
        "4",
        "--seed",
        "2",
        "--out",
        p(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let truth = read_json(&out.join("truth.json"));
    let frames = truth["frames"].as_u64().unwrap() as usize;
    let src = capture::open(p(&out.join("table.mp4")), SourceOptions::default()).unwrap();
    assert_eq!(src.fps(), 4.0);
    assert_eq!(src.count(), frames);
    let boards = truth["boards"].as_array().unwrap();
    assert_eq!(boards.len(), 2);
    let mut quads = Vec::new();
    let mut starts = Vec::new();
    for (n, b) in boards.iter().enumerate() {
        let record = out.join(b["record"].as_str().unwrap());
        assert_eq!(
            record.file_name().unwrap(),
            format!("board_{}.pgn", n + 1).as_str()
        );
        let r = Chess::read_record(&std::fs::read_to_string(&record).unwrap(), &Chess::new())
            .expect("a legal game");
        let (start, moves) = (r.start, r.moves);
        assert_eq!(moves.len(), 3);
        let side = read_json(&out.join(b["truth"].as_str().unwrap()));
        let states = serde_json::to_value(
            game_states(&start, &moves, WhiteSide::Bottom)
                .iter()
                .map(cells_text)
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert_eq!(side["states"], states, "board {}", n + 1);
        let fr = side["frames"].as_array().unwrap();
        assert_eq!(fr.len(), frames);
        let shown: Vec<u64> = fr.iter().map(|f| f["state"].as_u64().unwrap()).collect();
        assert_eq!((shown[0], *shown.last().unwrap()), (0, 3));
        assert!(shown.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1));
        // A still camera, and the board's own player's hand comes over it.
        let q = corners(&fr[0]["corners"]);
        assert!(fr.iter().all(|f| corners(&f["corners"]) == q));
        check_corners(&q, (960.0, 540.0), 250.0);
        quads.push(q);
        let own = Value::from(n + 1);
        assert!(fr
            .iter()
            .any(|f| f["hands"].as_array().unwrap().contains(&own)));
        for f in fr {
            assert_eq!(
                f["hand_occludes"],
                !f["hands"].as_array().unwrap().is_empty()
            );
        }
        // Each game keeps its own time: when its first move starts.
        starts.push(shown.iter().position(|&s| s > 0).unwrap());
    }
    check_apart_and_ordered(&quads);
    assert_ne!(starts[0], starts[1], "the games move at their own times");
}
