//! Go's rules checked against a reference: random legal games (seeded) on
//! 19x19 and 9x9, with passes, handicaps and superko, written as SGF by the
//! record writer and replayed by sgfmill (tests/tools/check_go_sgfmill.py),
//! which must find the same board after every move and the same legal points
//! before it. Skipped when python3 or sgfmill is missing, unless
//! `BOARDSCRIBE_REQUIRE_TOOLS` is set (`.ci/run` sets it after installing
//! them), where a missing tool fails the test.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use boardscribe_core::record::SgfRecord;
use boardscribe_core::record::{GameRecord, Tags};
use boardscribe_core::rules::go::{Go, GoOptions, Move};
use boardscribe_core::rules::{Occupant, Rules, Square};
use boardscribe_rng::Rng;

fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether sgfmill is there; absent, the check is skipped with a message, or
/// fails where `BOARDSCRIBE_REQUIRE_TOOLS` is set.
fn have_sgfmill() -> bool {
    let present = python_has("sgfmill");
    if !present {
        assert!(
            std::env::var_os("BOARDSCRIBE_REQUIRE_TOOLS").is_none(),
            "sgfmill is required (BOARDSCRIBE_REQUIRE_TOOLS) but not installed"
        );
        eprintln!("skipping the sgfmill check: python3 or sgfmill is not installed");
    }
    present
}

/// SGF's letters for a point (row 1 at the bottom).
fn letters(sq: Square, size: u8) -> String {
    let col = char::from(b'a' + sq.file);
    let row = char::from(b'a' + size - 1 - sq.rank);
    format!("{col}{row}")
}

/// The board, rows from the top, as the script draws it.
fn picture(g: &Go) -> String {
    let n = g.size();
    let rows: Vec<String> = (0..n)
        .rev()
        .map(|r| {
            (0..n)
                .map(|f| match g.occupant(Square::new(f, r)) {
                    Occupant::Empty => '.',
                    Occupant::Black => 'X',
                    Occupant::White => 'O',
                })
                .collect()
        })
        .collect();
    rows.join("/")
}

/// A random legal game: its SGF and what the engine said before and after
/// each move.
fn random_game(options: GoOptions, plies: usize, seed: u64) -> (String, String) {
    let mut rng = Rng::new(seed);
    let start = Go::new(options).expect("options make a game");
    let mut rec = SgfRecord::start(&start, &Tags::default());
    let mut g = start.clone();
    let superko = if options.superko { "yes" } else { "no" };
    let mut expect = format!("superko {superko}\n");
    let size = g.size();
    // Passes to play next: with superko, both pass now and then after a
    // single stone is taken, so that the retake would repeat a board.
    let mut passes = 0;
    for _ in 0..plies {
        let moves = g.legal_moves();
        let points: Vec<Move> = moves.iter().copied().filter(|m| *m != Move::Pass).collect();
        let pass = passes > 0 || points.is_empty() || rng.chance(0.03);
        passes = usize::saturating_sub(passes, 1);
        let mv = if pass { Move::Pass } else { *rng.pick(&points) };
        let legal: Vec<String> = points
            .iter()
            .filter_map(|m| match m {
                Move::Play(sq) => Some(letters(*sq, size)),
                Move::Pass => None,
            })
            .collect();
        let _ = writeln!(expect, "legal {}", legal.join(" "));
        if options.superko && g.captures(&mv).len() == 1 && rng.chance(0.5) {
            passes = 2;
        }
        rec.push(&g, &mv, None);
        g.play(&mv).expect("a legal move plays");
        let _ = writeln!(expect, "board {}", picture(&g));
        if g.consecutive_passes() >= 2 && rng.chance(0.5) {
            break;
        }
    }
    (rec.render(), expect)
}

/// The games: 25 on 19x19 (some with a handicap) and 25 on 9x9 (a third
/// with superko), up to 200 moves each.
fn write_games(dir: &Path) -> usize {
    let mut count = 0;
    for k in 0..50u64 {
        let mut o = GoOptions::sized(if k < 25 { 19 } else { 9 });
        if k < 25 && k % 4 == 1 {
            o.handicap = 2 + (k % 8) as u8;
        }
        o.superko = k >= 25 && k % 3 == 0;
        let plies = if k < 25 {
            200
        } else {
            120 + (k as usize % 5) * 20
        };
        let (sgf, expect) = random_game(o, plies, 0x60_0000 + k);
        std::fs::write(dir.join(format!("game{k:02}.sgf")), sgf).expect("write sgf");
        std::fs::write(dir.join(format!("game{k:02}.expect")), expect).expect("write expect");
        count += 1;
    }
    count
}

#[test]
fn random_games_replay_alike_in_sgfmill() {
    if !have_sgfmill() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    assert_eq!(write_games(dir.path()), 50);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/check_go_sgfmill.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(dir.path())
        .output()
        .expect("python3 runs");
    let said = String::from_utf8_lossy(&out.stdout);
    eprintln!("{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "sgfmill disagrees:\n{said}");
    // The check means something only if the games met the rules it checks.
    let count = |word: &str| -> u64 {
        said.split_whitespace()
            .skip_while(|w| *w != word)
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    assert_eq!(count("games"), 50, "{said}");
    assert!(count("moves") > 5000, "{said}");
    assert!(
        count("ko") > 0 && count("suicide") > 0 && count("superko") > 0,
        "{said}"
    );
}

/// Legal moves of a crowded 19x19 board are found fast enough for the
/// inference, which asks them of every candidate position.
#[test]
fn legal_moves_of_a_crowded_board_are_fast() {
    let mut rng = Rng::new(7);
    let mut g = Go::new(GoOptions::default()).expect("19x19");
    for _ in 0..250 {
        let moves = g.legal_moves();
        let mv = *rng.pick(&moves[..moves.len() - 1]);
        g.play_legal(&mv);
    }
    let runs = 2000;
    let t = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..runs {
        n += std::hint::black_box(&g).legal_moves().len();
    }
    let per = t.elapsed() / runs;
    eprintln!(
        "legal_moves on a 250-move 19x19 board: {per:?} ({} moves)",
        n / runs as usize
    );
    // Generous for a debug build on a shared machine; a release build takes
    // a few microseconds.
    assert!(per < std::time::Duration::from_millis(2), "{per:?}");
}
