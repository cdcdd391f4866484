//! Inference on observations made from known positions, with the real rules engines.

use super::*;
use crate::rules::chess::Chess;
use crate::rules::tablut::{Tablut, TablutOptions};
use crate::rules::{Occupant, Rules, Square};

fn observe<R: Rules>(game: &R) -> Observation {
    let (f, r) = game.dims();
    Observation::certain(f, r, |sq| game.occupant(sq))
}

fn after_ucis(ucis: &[&str]) -> Chess {
    let mut g = Chess::new();
    for u in ucis {
        g.play_uci(u).unwrap();
    }
    g
}

fn ids<R: Rules>(game: &R, v: &Verdict<R::Move>) -> Vec<String> {
    match v {
        Verdict::Moves { moves, .. } => {
            let mut g = game.clone();
            moves
                .iter()
                .map(|m| {
                    let id = g.move_id(m);
                    g.play(m).unwrap();
                    id
                })
                .collect()
        }
        other => panic!("expected moves, got {other:?}"),
    }
}

#[test]
fn one_two_and_three_plies_are_found() {
    let start = Chess::new();
    let cfg = InferConfig::default();
    for line in [
        vec!["e2e4"],
        vec!["e2e4", "e7e5"],
        vec!["e2e4", "d7d5", "e4d5"],
    ] {
        let obs = observe(&after_ucis(&line));
        let cfg = InferConfig {
            max_plies: 3,
            ..cfg
        };
        let v = explain(&start, &obs, &cfg);
        assert_eq!(ids(&start, &v), line);
    }
    assert_eq!(explain(&start, &observe(&start), &cfg), Verdict::Unchanged);
}

#[test]
fn castling_en_passant_and_promotion() {
    let cfg = InferConfig::default();
    let before = Chess::from_fen("r3k2r/ppp2ppp/8/3pP3/8/8/PPPQ1PPP/R3K2R w KQkq d6 0 1").unwrap();
    for (uci, want) in [("e1g1", "e1g1"), ("e1c1", "e1c1"), ("e5d6", "e5d6")] {
        let mut after = before.clone();
        after.play_uci(uci).unwrap();
        assert_eq!(
            ids(&before, &explain(&before, &observe(&after), &cfg)),
            [want]
        );
    }
    // A promotion cannot be told from under-promotions: the queen is recorded.
    let before = Chess::from_fen("8/4P1k1/8/8/8/8/6K1/8 w - - 0 1").unwrap();
    let mut after = before.clone();
    after.play_uci("e7e8n").unwrap();
    let v = explain(&before, &observe(&after), &cfg);
    assert_eq!(ids(&before, &v), ["e7e8q"]);
}

#[test]
fn hidden_squares_carry_no_evidence() {
    let start = Chess::new();
    let after = after_ucis(&["e2e4"]);
    let mut obs = observe(&after);
    // A hand over e2 and e4: nothing can be said yet.
    obs.set(Square::new(4, 1), None);
    obs.set(Square::new(4, 3), None);
    assert_eq!(
        explain(&start, &obs, &InferConfig::default()),
        Verdict::Unchanged
    );
}

#[test]
fn an_illegal_move_is_unexplained_with_its_squares() {
    let start = Chess::new();
    // The king's bishop's pawn vanishes and a white piece appears on h5: no legal line
    // of three plies does that while everything else stays.
    let mut obs = observe(&start);
    obs.set(
        Square::new(5, 1),
        Some(one_hot(crate::rules::Occupant::Empty, 0.99)),
    );
    obs.set(
        Square::new(7, 4),
        Some(one_hot(crate::rules::Occupant::White, 0.99)),
    );
    obs.set(
        Square::new(0, 6),
        Some(one_hot(crate::rules::Occupant::Empty, 0.99)),
    );
    match explain(&start, &obs, &InferConfig::default()) {
        Verdict::Unexplained { squares } => {
            assert_eq!(
                squares,
                [Square::new(5, 1), Square::new(7, 4), Square::new(0, 6)]
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn weak_evidence_waits() {
    let start = Chess::new();
    let after = after_ucis(&["e2e4"]);
    let mut obs = observe(&start);
    // The camera half-believes e2 emptied and e4 filled.
    obs.set(Square::new(4, 1), Some([0.55, 0.44, 0.01]));
    obs.set(Square::new(4, 3), Some([0.5, 0.49, 0.01]));
    assert_eq!(
        explain(&start, &obs, &InferConfig::default()),
        Verdict::Unchanged
    );
    let _ = after;
}

#[test]
fn tablut_moves_and_captures() {
    let game = Tablut::new(TablutOptions::default());
    let mv = game.legal_moves()[5];
    let mut after = game.clone();
    after.play(&mv).unwrap();
    let v = explain(&game, &observe(&after), &InferConfig::default());
    assert_eq!(ids(&game, &v), [game.move_id(&mv)]);
}

/// The committed moves of a follower as UCI.
fn committed<R: Rules>(start: &R, f: &Follower<R>) -> Vec<String> {
    let mut g = start.clone();
    f.moves()
        .iter()
        .map(|m| {
            let id = g.move_id(m);
            g.play(m).unwrap();
            id
        })
        .collect()
}

#[test]
fn a_move_is_committed_once_a_later_view_confirms_it() {
    let mut f = Follower::new(Chess::new(), InferConfig::default(), 0.0);
    assert!(f
        .observe(&observe(&after_ucis(&["e2e4"])), 5.0, None)
        .is_empty());
    assert!(f.moves().is_empty());
    assert_eq!(f.current().occupant(Square::new(4, 3)), Occupant::White);
    let ev = f.observe(&observe(&after_ucis(&["e2e4"])), 6.0, None);
    assert!(
        matches!(ev.as_slice(), [FollowEvent::Moved { ply: 0, emt: Some(e), .. }] if *e == 5.0),
        "{ev:?}"
    );
    // The end of the input commits what is likeliest.
    f.observe(&observe(&after_ucis(&["e2e4", "e7e5"])), 8.0, None);
    let ev = f.finish();
    assert!(
        matches!(ev.as_slice(), [FollowEvent::Moved { ply: 1, .. }]),
        "{ev:?}"
    );
}

#[test]
fn a_view_that_fooled_the_readings_is_outvoted_by_the_next() {
    // A hand over d2 is read as a white piece there: "Kd2" fits that view best.
    let start = after_ucis(&["d2d4", "g8f6", "c1f4", "d7d5"]);
    let mut f = Follower::new(start.clone(), InferConfig::default(), 0.0);
    let mut fooled = observe(&start);
    fooled.set(Square::new(3, 1), Some(one_hot(Occupant::White, 0.98)));
    fooled.set(Square::new(4, 0), Some(one_hot(Occupant::Empty, 0.9)));
    f.observe(&fooled, 1.0, None);
    // The hand has gone: e3 was played, the king never moved.
    let mut after = start.clone();
    after.play_uci("e2e3").unwrap();
    f.observe(&observe(&after), 2.0, None);
    f.observe(&observe(&after), 3.0, None);
    f.finish();
    assert_eq!(committed(&start, &f), ["e2e3"]);
}

#[test]
fn follower_flags_an_illegal_move_then_resyncs() {
    let mut f = Follower::new(Chess::new(), InferConfig::default(), 0.0);
    f.observe(&observe(&after_ucis(&["e2e4"])), 5.0, None);
    // Black lifts a knight off the board and puts it on d5: no legal move does that.
    let mut bad = observe(&after_ucis(&["e2e4"]));
    bad.set(Square::new(1, 7), Some(one_hot(Occupant::Empty, 0.99)));
    bad.set(Square::new(3, 4), Some(one_hot(Occupant::Black, 0.99)));
    let ev = f.observe(&bad, 8.0, None);
    // e4, which this view confirms, is committed; then the jump is named.
    assert!(
        matches!(
            ev.as_slice(),
            [
                FollowEvent::Moved { ply: 0, .. },
                FollowEvent::Unexplained {
                    why: Some(crate::infer::Irregularity::IllegalMove { .. }),
                    ..
                }
            ]
        ),
        "{ev:?}"
    );
    assert!(!f.in_sync());
    // Still wrong: no second report.
    assert!(f.observe(&bad, 9.0, None).is_empty());
    // The knight goes to c6 instead: a legal move again.
    let ev = f.observe(&observe(&after_ucis(&["e2e4", "b8c6"])), 12.0, None);
    assert!(matches!(ev.first(), Some(FollowEvent::Resynced)), "{ev:?}");
    assert!(f.in_sync());
    f.finish();
    assert_eq!(committed(&Chess::new(), &f), ["e2e4", "b8c6"]);
}

#[test]
fn photos_wait_one_view_before_reporting_a_change() {
    let cfg = InferConfig {
        misfit_views: 2,
        ..InferConfig::default()
    };
    let mut f = Follower::new(Chess::new(), cfg, 0.0);
    let mut bad = observe(&Chess::new());
    bad.set(Square::new(1, 7), Some(one_hot(Occupant::Empty, 0.99)));
    bad.set(Square::new(3, 4), Some(one_hot(Occupant::Black, 0.99)));
    assert!(
        f.observe(&bad, 1.0, None).is_empty(),
        "one photo may show a hand"
    );
    assert!(matches!(
        f.observe(&bad, 2.0, None).as_slice(),
        [FollowEvent::Unexplained { .. }]
    ));
}

#[test]
fn follower_corrects_a_promotion_when_the_piece_moves_like_a_knight() {
    let start = Chess::from_fen("8/4P1k1/8/8/8/p7/6K1/8 w - - 0 1").unwrap();
    let mut f = Follower::new(start.clone(), InferConfig::default(), 0.0);
    let mut truth = start.clone();
    truth.play_uci("e7e8n").unwrap();
    f.observe(&observe(&truth), 1.0, None);
    let ev = f.observe(&observe(&truth), 1.5, None);
    assert!(
        matches!(ev.as_slice(), [FollowEvent::Moved { assumed: true, .. }]),
        "{ev:?}"
    );
    assert_eq!(f.game().move_id(&f.moves()[0]), "e7e8q");
    truth.play_uci("g7g6").unwrap();
    f.observe(&observe(&truth), 2.0, None);
    // The new piece jumps like a knight: only possible if it was a knight.
    truth.play_uci("e8d6").unwrap();
    let ev = f.observe(&observe(&truth), 3.0, None);
    assert!(
        ev.iter()
            .any(|e| matches!(e, FollowEvent::Corrected { ply: 0, .. })),
        "{ev:?}"
    );
    f.finish();
    assert_eq!(committed(&start, &f), ["e7e8n", "g7g6", "e8d6"]);
}

#[test]
fn a_misread_start_position_has_not_moved_on_but_a_played_one_has() {
    let start = Chess::new();
    let cfg = InferConfig::default();
    assert!(!moved_on(&start, &observe(&start), &cfg));
    // Twelve confident misreads that are no legal move's trace: grey squares taken
    // for black pieces, pale pieces for empty squares, white pawns for black ones.
    let mut obs = observe(&start);
    for (f, r, o) in [
        (1, 1, Occupant::Empty),
        (3, 1, Occupant::Black),
        (5, 1, Occupant::Black),
        (6, 0, Occupant::Empty),
        (0, 3, Occupant::Black),
        (2, 4, Occupant::Black),
        (4, 5, Occupant::Black),
        (7, 2, Occupant::Black),
        (1, 7, Occupant::Empty),
        (3, 6, Occupant::Empty),
        (6, 6, Occupant::White),
        (5, 5, Occupant::Black),
    ] {
        obs.set(Square::new(f, r), Some(one_hot(o, 0.98)));
    }
    assert!(!moved_on(&start, &obs, &cfg));
    assert!(matches!(
        explain(&start, &obs, &cfg),
        Verdict::Unexplained { .. }
    ));
    for line in [vec!["e2e4"], vec!["g1f3", "d7d5"]] {
        assert!(
            moved_on(&start, &observe(&after_ucis(&line)), &cfg),
            "{line:?}"
        );
    }
}
