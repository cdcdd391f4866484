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

#[test]
fn the_last_photo_that_no_line_explains_is_reported_at_the_end() {
    let cfg = InferConfig {
        misfit_views: 2,
        ..InferConfig::default()
    };
    let mut f = Follower::new(Chess::new(), cfg, 0.0);
    let mut bad = observe(&Chess::new());
    bad.set(Square::new(1, 7), Some(one_hot(Occupant::Empty, 0.99)));
    bad.set(Square::new(3, 4), Some(one_hot(Occupant::Black, 0.99)));
    assert!(f.observe(&bad, 1.0, None).is_empty());
    // The folder ends: no later photo will settle it, so it is said.
    let ev = f.finish();
    assert!(
        matches!(ev.as_slice(), [FollowEvent::Unexplained { .. }]),
        "{ev:?}"
    );
    assert!(!f.in_sync());
}

/// The view after the king's true path from `start` (Kxf3, Kh8, Kf4):
/// the image changed on f3 (the king left it) and f4, not on e3.
fn king_on_f4(start: &Chess) -> Observation {
    let mut truth = start.clone();
    for u in ["f2f3", "g8h8", "f3f4"] {
        truth.play_uci(u).unwrap();
    }
    let mut now = observe(&truth);
    for sq in super::observation::squares(8, 8) {
        let moved = sq == Square::new(5, 2) || sq == Square::new(5, 3);
        now.set_change(sq, Some(if moved { 50.0 } else { 1.0 }));
    }
    now
}

#[test]
fn a_piece_read_next_to_its_square_is_corrected_when_later_play_shows_it() {
    // White's king captures on f3 but the view reads the king on e3 and the pawn
    // still on f3; only when the king goes on to f4 while f3 and e3 are empty
    // does the capture show. (Rooks keep the game from a dead position.)
    let start = Chess::from_fen("r5k1/8/8/8/8/5p2/5K2/R7 w - - 0 1").unwrap();
    let mut f = Follower::new(start.clone(), InferConfig::default(), 0.0);
    let mut misread = start.clone();
    misread.play_uci("f2e3").unwrap();
    // The king stands across the e3/f3 line: e3 reads more empty than white.
    let e3 = Square::new(4, 2);
    let across = |g: &Chess| {
        let mut o = observe(g);
        o.set(e3, Some([0.55, 0.44, 0.01]));
        o
    };
    f.observe(&across(&misread), 1.0, None);
    let mut after = misread.clone();
    after.play_uci("g8h8").unwrap();
    f.observe(&across(&after), 2.0, None);
    f.observe(&across(&after), 3.0, None);
    let now = king_on_f4(&start);
    let ev = f.observe(&now, 4.0, None);
    assert!(
        ev.iter().any(|e| matches!(
            e,
            FollowEvent::Corrected {
                ply: 0,
                why: Correction::Relanded,
                ..
            }
        )),
        "{ev:?}"
    );
    f.finish();
    assert_eq!(committed(&start, &f), ["f2f3", "g8h8", "f3f4"]);
}

#[test]
fn a_king_that_a_view_read_on_its_square_is_not_moved_next_door() {
    // As above, but the photos read the king on e3 clearly (and the pawn on f3):
    // the king did land on e3, so the later change that no line explains is
    // reported, not blamed on the square the king was seen on.
    let start = Chess::from_fen("r5k1/8/8/8/8/5p2/5K2/R7 w - - 0 1").unwrap();
    let mut f = Follower::new(start.clone(), InferConfig::default(), 0.0);
    let mut seen = start.clone();
    seen.play_uci("f2e3").unwrap();
    f.observe(&observe(&seen), 1.0, None);
    let mut after = seen.clone();
    after.play_uci("g8h8").unwrap();
    f.observe(&observe(&after), 2.0, None);
    f.observe(&observe(&after), 3.0, None);
    let now = king_on_f4(&start);
    let ev = f.observe(&now, 4.0, None);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, FollowEvent::Corrected { .. })),
        "{ev:?}"
    );
    assert!(
        ev.iter()
            .any(|e| matches!(e, FollowEvent::Unexplained { .. })),
        "{ev:?}"
    );
}

#[test]
fn plies_seen_together_are_ordered_by_the_view_no_line_explained() {
    // Photos: the first shows Nf3 with a hand-like misread on e8 (no line
    // explains it); the next shows Nf3, Nc6 and Nc3 played. The record must
    // say Nf3 first, as the unexplained photo showed.
    let cfg = InferConfig {
        misfit_views: 2,
        ..InferConfig::default()
    };
    let start = Chess::new();
    let mut f = Follower::new(start.clone(), cfg, 0.0);
    let mut first = observe(&after_ucis(&["g1f3"]));
    first.set(Square::new(4, 7), Some(one_hot(Occupant::White, 0.99)));
    first.set(Square::new(3, 7), Some(one_hot(Occupant::White, 0.99)));
    f.observe(&first, 1.0, None);
    let later = after_ucis(&["g1f3", "b8c6", "b1c3"]);
    f.observe(&observe(&later), 2.0, None);
    f.observe(&observe(&later), 3.0, None);
    f.finish();
    assert_eq!(committed(&start, &f), ["g1f3", "b8c6", "b1c3"]);
}

#[test]
fn a_line_no_view_showed_moves_at_most_one_piece_twice() {
    // 1. Nf3 Nf6 2. Ne5 Ne4 3. f3 f6: both knights move twice (and pawns fill
    // the squares they passed). The photos show only the end: the
    // change-guided search does not tell that story.
    let start = Chess::new();
    let end = after_ucis(&["g1f3", "g8f6", "f3e5", "f6e4", "f2f3", "f7f6"]);
    let mut obs = observe(&end);
    let before = occupancy(&start);
    let after = occupancy(&end);
    for sq in super::observation::squares(8, 8) {
        let i = sq.rank as usize * 8 + sq.file as usize;
        let c = before[i] != after[i];
        obs.set_change(sq, Some(if c { 50.0 } else { 1.0 }));
    }
    let cfg = InferConfig::default();
    let ev = super::explain::Evidence::new(&obs, &cfg, &before);
    let lines = super::explain::search_guided(&start, &ev, &cfg, 6);
    let key = super::observation::occ_key(&after);
    assert!(
        !lines
            .iter()
            .any(|l| super::observation::occ_key(&l.occ) == key),
        "{:?}",
        lines.iter().map(|l| l.moves.len()).collect::<Vec<_>>()
    );
}

#[test]
fn an_uncertain_move_is_corrected_when_its_piece_moves_many_plies_later() {
    // White's king goes to f3, but the view reads it rather on e3 (a piece
    // put down across the line): "Ke3" is recorded, "Kf3" named beside it as
    // uncertain. Nine plies later, well past the last few plies a piece may be
    // found to have landed elsewhere, the king goes on to g4, which e3 does not
    // reach: the record takes "Kf3" and keeps the plies after it.
    let start = Chess::from_fen("r5k1/8/8/8/8/8/5K2/R7 w - - 0 1").unwrap();
    let (e3, f3) = (Square::new(4, 2), Square::new(5, 2));
    let mut f = Follower::new(start.clone(), InferConfig::default(), 0.0);
    let mut belief = start.clone();
    belief.play_uci("f2e3").unwrap();
    let mut across = observe(&belief);
    across.set(e3, Some([0.22, 0.78, 0.0]));
    across.set(f3, Some([0.72, 0.28, 0.0]));
    f.observe(&across, 1.0, None);
    // Later views read afresh only what changed: e3 and f3 say nothing more.
    let later = |g: &Chess| {
        let mut o = observe(g);
        o.set_fresh(e3, false);
        o.set_fresh(f3, false);
        o
    };
    let shuffles = [
        "g8h8", "a1a2", "h8h7", "a2a3", "h7g7", "a3a4", "g7g8", "a4a5", "g8h8",
    ];
    let mut truth = start.clone();
    truth.play_uci("f2f3").unwrap();
    for (i, u) in shuffles.iter().enumerate() {
        belief.play_uci(u).unwrap();
        truth.play_uci(u).unwrap();
        f.observe(&later(&belief), 2.0 + i as f64, None);
    }
    assert_eq!(
        committed(&start, &f).first().map(String::as_str),
        Some("f2e3")
    );
    assert!(
        f.alternatives(0).iter().any(|a| a.notation == "Kf3"),
        "{:?}",
        f.alternatives(0)
    );
    truth.play_uci("f3g4").unwrap();
    let mut now = observe(&truth);
    for sq in super::observation::squares(8, 8) {
        let moved = sq == f3 || sq == Square::new(6, 3);
        now.set_change(sq, Some(if moved { 50.0 } else { 1.0 }));
    }
    let mut ev = f.observe(&now, 20.0, None);
    ev.extend(f.observe(&now, 21.0, None));
    assert!(
        ev.iter().any(|e| matches!(
            e,
            FollowEvent::Corrected {
                ply: 0,
                why: Correction::Alternative,
                ..
            }
        )),
        "{ev:?}"
    );
    f.finish();
    let mut want = vec!["f2f3"];
    want.extend(shuffles);
    want.push("f3g4");
    assert_eq!(committed(&start, &f), want);
}
