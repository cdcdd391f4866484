//! Issue 32: `record --board N` records one of several boards in one camera
//! view, each exactly, another board's moves and hands never costing it a move
//! or giving it one.

use boardscribe_core::record::Resume;
use boardscribe_core::rules::chess::Chess;
use boardscribe_core::rules::Rules;

use boardscribe_core::record::parse_pgn_games;

use super::util::{event_command, p, run, stderr, tmp};

/// The moves of a chess record, in its notation.
fn moves_of(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let r = Chess::read_record(&text, &Chess::new()).expect("a legal game");
    let (mut now, moves) = (r.start, r.moves);
    moves
        .iter()
        .map(|m| {
            let san = now.notation(m);
            now.play_legal(m);
            san
        })
        .collect()
}

#[test]
fn each_board_of_a_two_board_table_is_recorded_exactly() {
    let dir = tmp();
    let table = dir.path().join("t");
    let o = run(&[
        "render",
        "table",
        "--clip",
        "--boards",
        "2",
        "--plies",
        "4",
        "--seed",
        "1",
        "--out",
        p(&table),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let input = table.join("table.mp4");
    for n in 1..=2 {
        let out = dir.path().join(format!("b{n}.pgn"));
        let o = run(&[
            "record",
            "--input",
            p(&input),
            "--board",
            &n.to_string(),
            "--pgn",
            p(&out),
        ]);
        let err = stderr(&o);
        assert!(o.status.success(), "board {n}: {err}");
        assert!(err.contains("found the 8x8 grid"), "{err}");
        let truth = moves_of(&table.join(format!("board_{n}.pgn")));
        assert_eq!(truth.len(), 4);
        assert_eq!(moves_of(&out), truth, "board {n}: {err}");
    }
    // A round whose two boards share the input, each named by its region: the
    // input is read once for both, and each board's game is its own.
    let round = dir.path().join("round.toml");
    let mut text = String::from("[event]\nname = \"Table Open\"\nround = \"1\"\n");
    for n in 1..=2 {
        text.push_str(&format!(
            "\n[[board]]\nnumber = {n}\ninput = \"{}\"\nregion = {n}\nwhite = \"W{n}\"\nblack = \"B{n}\"\n",
            p(&input)
        ));
    }
    std::fs::write(&round, text).unwrap();
    let records = dir.path().join("records");
    let o = event_command(&round, &records).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let games =
        parse_pgn_games(&std::fs::read_to_string(records.join("round.pgn")).unwrap()).unwrap();
    assert_eq!(games.len(), 2, "{err}");
    for (n, game) in games.iter().enumerate() {
        let sans: Vec<&str> = game.moves.iter().map(|m| m.san.as_str()).collect();
        let truth = moves_of(&table.join(format!("board_{}.pgn", n + 1)));
        assert_eq!(sans, truth, "board {}: {err}", n + 1);
        assert_eq!(game.tags.round, format!("1.{}", n + 1));
        assert_eq!(game.tags.white, format!("W{}", n + 1));
    }
    // A board the view does not hold is refused, saying how many it holds.
    let o = run(&[
        "record",
        "--input",
        p(&input),
        "--board",
        "3",
        "--pgn",
        p(&dir.path().join("b3.pgn")),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("board 3 was asked for, but the most boards found in one frame"),
        "{err}"
    );
}
