use super::log::{GameRecord, RecordFile, Recordable, Tags};
use super::resume::Resume;
use super::sgf::{parse, SgfRecord};
use crate::rules::go::{Go, GoOptions, Komi, Move};
use crate::rules::{Rules, Side};

fn like_19() -> Go {
    go(19)
}

fn go(size: u8) -> Go {
    Go::new(GoOptions::sized(size)).unwrap()
}

/// A record of `moves` (Go coordinates, `pass`) from `start`, written as the
/// recorder writes it: a push and maybe a note after each move.
fn recorded(start: &Go, tags: &Tags, moves: &[&str]) -> (SgfRecord, Go) {
    let mut rec = SgfRecord::start(start, tags);
    let mut g = start.clone();
    for m in moves {
        let mv = g.parse_move(m).unwrap();
        rec.push(&g, &mv, None);
        g.play(&mv).unwrap();
    }
    (rec, g)
}

#[test]
fn a_handicap_game_is_written_as_sgf_and_read_back_byte_for_byte() {
    let start = Go::new(GoOptions {
        handicap: 2,
        komi: Some(Komi::from_hundredths(50)),
        ..GoOptions::default()
    })
    .unwrap();
    let tags = Tags {
        event: "Club [night]".into(),
        date: "2026.12.??".into(),
        round: "3".into(),
        white: "Ben".into(),
        black: "Anna".into(),
        extra: vec![
            ("Board".into(), "2".into()),
            ("Annotator".into(), "C\\D".into()),
            ("KM".into(), "99".into()),
        ],
        ..Tags::default()
    };
    let (mut rec, _) = recorded(&start, &tags, &["Q4", "D16", "pass"]);
    rec.note("irregular: a stone moved]");
    let text = rec.render();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        text,
        format!(
            "(;FF[4]GM[1]SZ[19]CA[UTF-8]AP[boardscribe:{version}]\n\
             EV[Club [night\\]]DT[2026-12]RO[3]PB[Anna]PW[Ben]KM[0.5]HA[2]\n\
             BOARD[2]AN[C\\\\D]\n\
             AB[dp][pd]PL[W]\n\
             ;W[pp];B[dd];W[]C[irregular: a stone moved\\]]\n\
             )\n"
        )
    );
    let back = parse(&text, &go(19)).unwrap();
    assert_eq!(back.render(), text);
    assert_eq!(back.tags.date, "2026.12.??");
    assert_eq!(back.tags.get("Annotator"), Some("C\\D"));
    assert_eq!(back.tags.get("BOARD"), Some("2"));
    assert_eq!(back.start.options().handicap, 2);
    assert_eq!(back.start.side_to_move(), Side::White);
    assert!(!back.start.is_set_up());
    let g = back.replay().unwrap();
    assert_eq!(g.side_to_move(), Side::Black);
    assert_eq!(g.consecutive_passes(), 1);
}

#[test]
fn long_games_wrap_between_nodes_and_comments_keep_their_lines() {
    let mut moves = Vec::new();
    for r in 1..=9 {
        for c in ["A", "C", "E", "G", "J"] {
            moves.push(format!("{c}{r}"));
        }
    }
    let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
    let (mut rec, _) = recorded(&go(9), &Tags::unknown(), &refs[..20]);
    rec.intro.push("first line".into());
    rec.intro.push("second line".into());
    let text = rec.render();
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    assert!(text.contains("C[first line\nsecond line]"), "{text}");
    let back = parse(&text, &go(9)).unwrap();
    assert_eq!(back.moves.len(), 20);
    assert_eq!(back.render(), text);
}

#[test]
fn other_programs_records_are_read() {
    // FF[3]: `tt` passes, lower-case letters in names, a compressed point list,
    // a variation, a move in the root, two Black moves in a row.
    let text = "(;GaMe[1]FF[3]SZ[9]KM[6.5]AB[aa:bb]AW[ee]PB[A\nB]DT[2026-12-04]GN[final]\
                ;W[cc];B[tt];W[dd];W[gg]C[again]\n(;B[hh])(;B[jj]))";
    let rec = parse(text, &go(19)).unwrap();
    assert_eq!(rec.start.size(), 9);
    assert_eq!(rec.start.start_stones(Side::Black).len(), 4);
    assert_eq!(
        rec.start.start_side(),
        Side::White,
        "the first move is White's"
    );
    assert_eq!(rec.tags.black, "A B");
    assert_eq!(rec.tags.date, "2026.12.04");
    assert_eq!(rec.tags.get("GN"), Some("final"));
    let ids: Vec<String> = {
        let mut g = rec.start.clone();
        rec.moves
            .iter()
            .map(|m| {
                let n = g.notation(&m.mv);
                g.play(&m.mv).unwrap();
                n
            })
            .collect()
    };
    assert_eq!(ids, ["C7", "pass", "D6", "pass", "G3", "H2"]);
    assert_eq!(rec.moves[4].comments, ["again"]);
    assert_eq!(rec.start.options().komi, Some(Komi::from_hundredths(650)));
    // White first on an empty board is a set-up, not a pass.
    let w = parse("(;SZ[9];W[ee];B[aa])", &like_19()).unwrap();
    assert_eq!(w.moves.len(), 2);
    assert_eq!(w.start.start_side(), Side::White);
    // Written again it reads the same game.
    let again = parse(&rec.render(), &go(19)).unwrap();
    assert_eq!(again.moves, rec.moves);
}

#[test]
fn bad_records_are_refused_with_their_place() {
    let like = go(19);
    for (text, needle) in [
        ("(;GM[2])", "GM[2] is not a game of Go"),
        ("(;SZ[30])", "SZ[30]"),
        ("(;SZ[19:9])", "SZ[19:9]"),
        ("(;KM[lots])", "komi 'lots'"),
        ("(;HA[12])", "HA[12]"),
        ("(;PL[X])", "PL[X]"),
        ("(;SZ[9]AB[zz])", "AB[zz]"),
        (
            "(;SZ[9];B[ee];W[ee])",
            "move 2 (White E5): the point is taken",
        ),
        ("(;SZ[9]AB[ba][ab];W[aa])", "move 1 (White A9): suicide"),
        (
            "(;SZ[9]AB[ba][ab]PL[B];W[aa])",
            "move 2 (White A9): suicide",
        ),
        ("(;SZ[9];B[ee]W[dd])", "both B and W"),
        ("(;SZ[9];B[ee];AB[aa])", "set up after the start"),
        ("(;SZ[9]AB[aa]AW[aa])", "overlap"),
        ("junk", "no game tree"),
        ("(;B[aa]", "not closed"),
    ] {
        let e = parse(text, &like).unwrap_err();
        assert!(e.to_string().contains(needle), "{text}: {e}");
        assert!(e.at.is_some(), "{text}: {e}");
    }
    let Err(e) = Go::read_record("(;SZ[9];B[ee];W[ee])", &like) else {
        panic!("an illegal move read");
    };
    assert!(e.to_string().starts_with("SGF line 1, column 15"), "{e}");
}

#[test]
fn a_file_of_two_games_resumes_the_second_and_keeps_the_first() {
    let start = go(9);
    let tags = Tags::default();
    let mut file = RecordFile::new(&start, &tags);
    let mut g = start.clone();
    for m in ["E5", "C3"] {
        let mv = g.parse_move(m).unwrap();
        file.current.push(&g, &mv, None);
        g.play(&mv).unwrap();
    }
    let moved = g
        .displaced(
            crate::rules::go::parse_point("E5", 9).unwrap(),
            crate::rules::go::parse_point("F5", 9).unwrap(),
        )
        .unwrap();
    file.new_game(&moved, "a stone moved (C]losing)", "set up from the board");
    let mv = moved.parse_move("G7").unwrap();
    file.current.push(&moved, &mv, None);
    let text = file.render();
    assert_eq!(Go::split_games(&text).len(), 2, "{text}");
    let (game, back) = RecordFile::<Go>::resume(&text, &start, &tags).unwrap();
    assert_eq!(back.games(), 2);
    assert_eq!(back.plies(), 1);
    assert_eq!(back.render(), text);
    assert_eq!(game.side_to_move(), Side::Black);
    // The second game's start is the set-up the displaced stone left.
    let second = &Go::split_games(&text)[1];
    assert!(
        second.contains("AB[ee]") || second.contains("AB[fe]"),
        "{second}"
    );
}

#[test]
fn results_take_sgf_forms_and_the_common_ones() {
    let (rec, _) = recorded(&go(9), &Tags::default(), &["E5"]);
    let text = rec.render();
    let like = go(9);
    for (token, re, common) in [
        ("B+R", "RE[B+R]", "0-1"),
        ("W+3.5", "RE[W+3.5]", "1-0"),
        ("1-0", "RE[W+]", "1-0"),
        ("1/2-1/2", "RE[0]", "1/2-1/2"),
        ("Void", "RE[Void]", "*"),
    ] {
        let set = Resume::set_result_in(&text, &like, token, "by the arbiter")
            .unwrap()
            .unwrap();
        assert!(set.contains(re), "{token}: {set}");
        assert!(set.contains("C[by the arbiter]"), "{set}");
        let r = Go::read_record(&set, &like).unwrap();
        assert_eq!(r.result, common, "{token}");
        assert_eq!(r.record.result_token(), common);
    }
    for bad in ["2-0", "B+x", "W+-1", "B3"] {
        let e = Resume::set_result_in(&text, &like, bad, "")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("'{bad}'")) && e.contains("B+3.5"),
            "{e}"
        );
    }
}

#[test]
fn a_set_up_position_is_written_as_stones() {
    let start = Go::from_position("9/9/9/9/4X4/9/2O6/9/9 w", GoOptions::default()).unwrap();
    let (rec, _) = recorded(&start, &Tags::default(), &["A1"]);
    let text = rec.render();
    assert!(text.contains("\nAB[ee]AW[cg]PL[W]\n;W[ai]\n"), "{text}");
    let back = parse(&text, &go(19)).unwrap();
    assert_eq!(back.start.start_text(), start.start_text());
    assert_eq!(
        back.moves[0].mv,
        Move::Play(crate::rules::Square::new(0, 0))
    );
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn text_of(alphabet: &'static str, max: usize) -> impl Strategy<Value = String> {
        let chars: Vec<char> = alphabet.chars().collect();
        prop::collection::vec(
            prop_oneof![8 => prop::sample::select(chars), 1 => any::<char>()],
            0..max,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

        /// No text makes the reader panic; what it reads writes back the same.
        #[test]
        fn sgf_texts_never_panic(s in text_of("(;)[]\\:BWABWSZKMHAPLCaeitz019 \n", 120)) {
            let like = Go::new(GoOptions::sized(9)).unwrap();
            let _ = Go::split_games(&s);
            if let Ok(rec) = parse(&s, &like) {
                let text = rec.render();
                let again = parse(&text, &like).unwrap();
                prop_assert_eq!(again.render(), text);
            }
        }

        /// Random legal games, comments with SGF's special characters, written
        /// and read back, give the same moves and the same text.
        #[test]
        fn random_games_round_trip(seed in any::<u64>(), plies in 0usize..60, note in "[\\]\\\\a-z \n]{0,12}") {
            let mut rng = crate::rng::Rng::new(seed);
            let start = Go::new(GoOptions::sized(9)).unwrap();
            let mut rec = SgfRecord::start(&start, &Tags::default());
            let mut g = start.clone();
            for _ in 0..plies {
                let moves = g.legal_moves();
                let mv = *rng.pick(&moves);
                rec.push(&g, &mv, None);
                g.play_legal(&mv);
                if rng.below(4) == 0 {
                    rec.note(&note);
                }
            }
            let text = rec.render();
            let back = parse(&text, &start).unwrap();
            prop_assert_eq!(back.render(), text);
            prop_assert_eq!(back.replay().unwrap().position_text(), g.position_text());
        }
    }
}
