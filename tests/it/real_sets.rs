//! Issue 4: the classifier measured on the real photographs in `../shared/data`
//! (ignored tests: `make test` runs them when that folder exists). The floors are
//! the issue's targets where they are met (imago-go) and the measured level where they
//! are not (bgu-chess, evaluation only: reported, never tuned on), so a change that
//! makes real photos read worse fails here.

use crate::util::{run, shared_data, stderr, stdout};

fn eval(set: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["eval", "--set", set, "--json"];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "eval {set} failed: {}", stderr(&o));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect()
}

fn accuracy(v: &serde_json::Value) -> f64 {
    v["accuracy"].as_f64().expect("an accuracy")
}

#[test]
#[ignore = "needs ../shared/data"]
fn issue4_imago_go_photos_never_trained_on_read_at_least_99_percent() {
    shared_data("imago-go");
    let r = eval("imago-go", &[]);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["images"], 51);
    assert!(accuracy(&r[0]) >= 0.99, "{}", r[0]);
}

#[test]
#[ignore = "needs ../shared/data"]
fn issue4_chess_ray_vision_is_read_exactly() {
    shared_data("chess-ray-vision");
    let r = eval("chess-ray-vision", &[]);
    assert_eq!(r[0]["exact_boards"], r[0]["images"], "{}", r[0]);
}

#[test]
#[ignore = "needs ../shared/data"]
fn issue4_bgu_chess_games_are_measured_per_game_with_and_without_adaptation() {
    shared_data("bgu-chess");
    for extra in [&[][..], &["--adapt"][..]] {
        let r = eval("bgu-chess", extra);
        assert_eq!(r.len(), 3, "games 4, 5 and 7");
        for g in &r {
            eprintln!("bgu-chess {extra:?}: {g}");
            // Measured 80-96% (model card); below 78% something broke.
            assert!(accuracy(g) > 0.78, "{g}");
        }
    }
}

/// Issue 5: the three real games recorded from their photos (as `record` would,
/// White at the bottom, corners the image's), each scored against the true game.
/// The floors are the measured level (evaluation only, never tuned on); every miss
/// is explained in the README.
#[test]
#[ignore = "needs ../shared/data"]
fn issue5_bgu_chess_games_are_recorded_from_photos_and_scored() {
    shared_data("bgu-chess");
    let dir = std::env::temp_dir().join(format!("boardscribe-it-bgu-{}", std::process::id()));
    let dir_s = dir.to_string_lossy().to_string();
    let r = eval("bgu-chess", &["--record", "--out-dir", &dir_s]);
    assert_eq!(r.len(), 3, "games 4, 5 and 7");
    for s in &r {
        eprintln!("bgu-chess recorded: {s}");
        let game = s["game"].as_u64().expect("a game number");
        let text = std::fs::read_to_string(s["pgn"].as_str().expect("a PGN path"))
            .expect("the record is on disk");
        // A valid record of the moves accepted, whatever the camera made of the rest.
        let pgn = boardscribe::record::pgn::parse_pgn(&text).expect("a valid PGN");
        assert_eq!(
            pgn.moves.len() as u64,
            s["recorded_plies"].as_u64().unwrap()
        );
        let unexplained = s["unexplained"].as_u64().unwrap();
        // Comments wrap at 80 columns like the moves.
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(
            flat.matches("recording waits for a legal position").count() as u64,
            unexplained,
            "every unexplained change is noted in the record"
        );
        let leading = s["first_miss"]
            .as_u64()
            .map_or(pgn.moves.len() as u64, |p| p - 1);
        // Plies recorded right before the first miss, measured at 108, 109 and 6
        // (commit 2e1eeb6); the floors leave room for the inference to trade a
        // few plies between games, not for a record that goes wrong early.
        let floor = match game {
            4 => 60,
            5 => 20,
            7 => 3,
            _ => panic!("unexpected game {game}"),
        };
        assert!(leading >= floor, "game {game}: {s}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
