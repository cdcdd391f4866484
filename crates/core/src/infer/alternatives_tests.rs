//! Committed moves name the other moves the views also support.

use super::*;
use crate::rules::chess::Chess;
use crate::rules::{Occupant, Rules, Square};

fn observe(game: &Chess) -> Observation {
    Observation::certain(8, 8, |sq| game.occupant(sq))
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

fn after(start: &Chess, ucis: &[&str]) -> Chess {
    let mut g = start.clone();
    for u in ucis {
        g.play_uci(u).unwrap();
    }
    g
}

/// Every `Moved` event's (ply, notations of its alternatives).
fn moved(events: &[FollowEvent<<Chess as Rules>::Move>]) -> Vec<(usize, Vec<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            FollowEvent::Moved {
                ply, alternatives, ..
            } => Some((
                *ply,
                alternatives.iter().map(|a| a.notation.clone()).collect(),
            )),
            _ => None,
        })
        .collect()
}

/// A black rook on h1 goes to d1 and is put down across the line with c1: the
/// model reads c1 black (0.9) and cannot tell d1. White's king steps to f3 (the rook's
/// squares are not read again), and the rook goes on to a1, which it reaches
/// from either square: no later view can tell. The record has Rc1, and says
/// that Rd1 is as well supported.
#[test]
fn a_rook_put_down_across_a_line_names_the_square_next_door() {
    let start = Chess::from_fen("6k1/5ppp/8/8/8/6K1/8/7r b - - 0 1").unwrap();
    let mut f = Follower::new(start.clone(), InferConfig::default(), 0.0);
    let across = |g: &Chess, fresh: bool| {
        let mut o = observe(g);
        o.set(sq("c1"), Some(one_hot(Occupant::Black, 0.9)));
        o.set(sq("d1"), Some([0.5, 0.0, 0.5]));
        o.set_fresh(sq("c1"), fresh);
        o.set_fresh(sq("d1"), fresh);
        o
    };
    let mut events = Vec::new();
    let rd1 = after(&start, &["h1d1"]);
    events.extend(f.observe(&across(&rd1, true), 1.0, None));
    events.extend(f.observe(&across(&after(&rd1, &["g3f3"]), false), 2.0, None));
    let ra1 = after(&rd1, &["g3f3", "d1a1"]);
    events.extend(f.observe(&observe(&ra1), 3.0, None));
    events.extend(f.observe(&observe(&ra1), 4.0, None));
    events.extend(f.finish());
    let moves = moved(&events);
    assert_eq!(moves.len(), 3, "{events:?}");
    assert_eq!(start.notation(&f.moves()[0]), "Rc1");
    assert_eq!(moves[0], (0, vec!["Rd1".to_string()]), "{events:?}");
    assert_eq!(f.alternatives(0).len(), 1);
    assert!(moves[1].1.is_empty() && moves[2].1.is_empty(), "{moves:?}");
}

/// The same game seen clearly: c1 reads empty, d1 black. Nothing else is
/// supported, and no move is marked.
#[test]
fn moves_the_views_single_out_name_no_alternative() {
    let start = Chess::from_fen("6k1/5ppp/8/8/8/6K1/8/7r b - - 0 1").unwrap();
    let mut f = Follower::new(start.clone(), InferConfig::default(), 0.0);
    let mut events = Vec::new();
    let mut g = start.clone();
    for (t, u) in ["h1d1", "g3f3", "d1a1", "f3e3", "g8f8"].iter().enumerate() {
        g.play_uci(u).unwrap();
        events.extend(f.observe(&observe(&g), t as f64 + 1.0, None));
    }
    events.extend(f.finish());
    let moves = moved(&events);
    assert_eq!(moves.len(), 5, "{events:?}");
    assert!(moves.iter().all(|(_, a)| a.is_empty()), "{moves:?}");
}

/// A rook's move made under a hand: the squares it may have gone to are hidden
/// until it moves on to a square every one of them reaches. The record names
/// the rook's other squares.
#[test]
fn a_move_made_under_a_hand_names_the_squares_it_hid() {
    let start = Chess::from_fen("6k1/5ppp/8/8/8/6K1/8/7r b - - 0 1").unwrap();
    let mut f = Follower::new(start.clone(), InferConfig::default(), 0.0);
    let mut events = Vec::new();
    let hidden = |g: &Chess| {
        let mut o = observe(g);
        for s in ["b1", "c1", "d1", "e1"] {
            o.set(sq(s), None);
        }
        o
    };
    let rd1 = after(&start, &["h1d1"]);
    events.extend(f.observe(&hidden(&rd1), 1.0, None));
    let kf3 = after(&rd1, &["g3f3"]);
    events.extend(f.observe(&hidden(&kf3), 2.0, None));
    let ra1 = after(&kf3, &["d1a1"]);
    events.extend(f.observe(&observe(&ra1), 3.0, None));
    events.extend(f.observe(&observe(&ra1), 4.0, None));
    events.extend(f.finish());
    let moves = moved(&events);
    assert_eq!(moves.len(), 3, "{events:?}");
    assert!(!moves[0].1.is_empty(), "{moves:?}");
    let recorded = start.notation(&f.moves()[0]);
    assert!(!moves[0].1.contains(&recorded), "{moves:?}");
    for alt in &moves[0].1 {
        assert!(
            ["Rb1", "Rc1", "Rd1", "Re1"].contains(&alt.as_str()),
            "{moves:?}"
        );
    }
}

/// Three plies in one view: the rook went from a1 to d4 through d1 or a4, squares
/// no view showed. The record names the other square of the rook's first move
/// (its second reads the same either way, `Rd4`).
#[test]
fn a_square_no_view_showed_is_named_as_the_other_way() {
    let start = Chess::from_fen("7k/p7/8/8/8/8/8/R6K w - - 0 1").unwrap();
    let cfg = InferConfig {
        max_plies: 3,
        ..InferConfig::default()
    };
    let mut f = Follower::new(start.clone(), cfg, 0.0);
    let end = after(&start, &["a1d1", "a7a6", "d1d4"]);
    let mut events = f.observe(&observe(&end), 1.0, None);
    events.extend(f.observe(&observe(&end), 2.0, None));
    let moves = moved(&events);
    assert_eq!(moves.len(), 3, "{events:?}");
    let first = start.notation(&f.moves()[0]);
    let other = if first == "Rd1" { "Ra4" } else { "Rd1" };
    assert!(["Rd1", "Ra4"].contains(&first.as_str()), "{first}");
    assert_eq!(moves[0].1, [other], "{moves:?}");
    assert!(moves[1].1.is_empty() && moves[2].1.is_empty(), "{moves:?}");
}
