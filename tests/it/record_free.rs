//! Issue 8, games without rules: `record --game free` logs every stable change of
//! the sites as placements and removals, on any grid, from a rendered clip.

use std::collections::BTreeSet;

use boardscribe_core::record::FreeLog;
use boardscribe_lab::synth::{BoardState, Piece, PieceKind, PieceSide, SceneParams};

use crate::clips::{corners_arg, fast_clip, render};
use crate::util::{p, run, stderr, stdout, tmp};

/// The edits from one state to the next, as `+w d4` / `-b c3`, sites named from
/// the bottom edge.
fn edits(a: &BoardState, b: &BoardState) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for r in 0..a.rows {
        for c in 0..a.cols {
            let name = format!("{}{}", (b'a' + c as u8) as char, a.rows - r);
            let letter = |p: &Piece| if p.side == PieceSide::White { 'w' } else { 'b' };
            match (a.get(r, c), b.get(r, c)) {
                (x, y) if x.map(|p| p.side) == y.map(|p| p.side) => {}
                (x, y) => {
                    if let Some(x) = x {
                        out.insert(format!("-{} {name}", letter(&x)));
                    }
                    if let Some(y) = y {
                        out.insert(format!("+{} {name}", letter(&y)));
                    }
                }
            }
        }
    }
    out
}

fn stone(side: PieceSide) -> Option<Piece> {
    Some(Piece::new(side, PieceKind::Stone))
}

#[test]
fn a_free_game_on_a_go_board_logs_placements_captures_and_a_missed_move() {
    let mut s = BoardState::empty(19, 19, true);
    s.set(15, 3, stone(PieceSide::Black));
    s.set(3, 15, stone(PieceSide::White));
    let (b, w) = (PieceSide::Black, PieceSide::White);
    // (row, col, side) placements; a capture removes the surrounded white stone.
    let steps: Vec<Vec<(usize, usize, Option<PieceSide>)>> = vec![
        vec![(9, 9, Some(b))],
        vec![(9, 10, Some(w))],
        vec![(8, 10, Some(b))],
        vec![(3, 3, Some(w))],
        vec![(10, 10, Some(b))],
        vec![(15, 15, Some(w))],
        // Black closes the fourth side: the white stone at (9, 10) is taken.
        vec![(9, 11, Some(b)), (9, 10, None)],
        vec![(16, 2, Some(w))],
    ];
    let mut states = vec![s.clone()];
    for step in &steps {
        for &(r, c, side) in step {
            s.set(r, c, side.and_then(stone));
        }
        states.push(s.clone());
    }
    let mut opts = fast_clip();
    // Two moves never seen apart: one change in the log.
    opts.no_pause_after = vec![3];
    let mut params = SceneParams::go_oblique(31);
    (params.width, params.height) = (640, 480);
    params.camera.elevation_deg = 62.0;
    let dir = tmp();
    let (clip, truth) = render(dir.path(), "go", &params, &states, &opts);
    let out = dir.path().join("go.txt");
    let o = run(&[
        "record",
        "--game",
        "free",
        "--input",
        p(&clip),
        "--grid",
        "19x19:points",
        "--corners",
        &corners_arg(&truth),
        "--out",
        p(&out),
        "--events",
    ]);
    assert!(o.status.success(), "record failed: {}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    let log = FreeLog::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(log.grid, "19x19:points");
    let (_, start) = log.start.clone().expect("a start position");
    let start: BTreeSet<String> = start
        .iter()
        .map(|(s, n)| format!("+{} {n}", s.letter()))
        .collect();
    assert_eq!(start, edits(&BoardState::empty(19, 19, true), &states[0]));
    let mut want = Vec::new();
    let mut from = 0;
    for i in 1..states.len() {
        if opts.no_pause_after.contains(&(i - 1)) {
            continue;
        }
        want.push(edits(&states[from], &states[i]));
        from = i;
    }
    let got: Vec<BTreeSet<String>> = log
        .changes
        .iter()
        .map(|c| {
            c.edits
                .iter()
                .map(|e| {
                    format!(
                        "{}{} {}",
                        if e.placed { '+' } else { '-' },
                        e.stone.letter(),
                        e.site
                    )
                })
                .collect()
        })
        .collect();
    assert_eq!(got, want, "\n{text}");
    // The same as JSON lines: one start, then one line per change.
    let events: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(events[0]["type"], "start");
    assert_eq!(events.len(), want.len() + 1);
    let capture = &events[want.len() - 1];
    assert_eq!(capture["removed"][0]["site"], "k10", "{capture}");
    assert_eq!(capture["placed"][0]["site"], "l10", "{capture}");
}
