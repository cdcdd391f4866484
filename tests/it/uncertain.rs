//! Issue 28: a move the views also support another for is raised on the live page
//! for the arbiter to check, naming the others.

use boardscribe_round::round::{AlertKind, BoardSink, BoardSpec, EventInfo, GameKind, Round};
use boardscribe_vision::pipeline::{Event, EventSink};

fn a_move(ply: usize, san: &str, alternatives: &[&str]) -> Event {
    Event::Move {
        time: ply as f64,
        ply,
        san: san.into(),
        uci: "c8c1".into(),
        confidence: 0.9999,
        assumed: false,
        alternatives: alternatives.iter().map(|a| a.to_string()).collect(),
    }
}

#[test]
fn a_move_with_alternatives_raises_an_unsure_alert_naming_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = BoardSpec {
        number: 1,
        game: Some(GameKind::Chess),
        input: "b1.mp4".into(),
        ..BoardSpec::default()
    };
    let info = EventInfo {
        name: "x".into(),
        ..EventInfo::default()
    };
    let round = Round::new(
        info,
        "2026.01.01".into(),
        vec![spec],
        dir.path(),
        "t".into(),
    )
    .expect("a round");
    let board = &round.board(1).expect("board 1");
    let mut sink = BoardSink::new(&round, board, None);
    // Clear and confident: no alert.
    sink.emit(a_move(139, "Kg2", &[]));
    assert!(
        board.state().alerts.is_empty(),
        "{:?}",
        board.state().alerts
    );
    // As confident, but the views also support Rd1+.
    sink.emit(a_move(140, "Rc1", &["Rd1+"]));
    let alerts = board.state().alerts;
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0].kind, AlertKind::Unsure);
    assert_eq!(alerts[0].ply, Some(140));
    assert!(
        alerts[0].text.contains("move 140 Rc1") && alerts[0].text.contains("Rd1+"),
        "{}",
        alerts[0].text
    );
}
