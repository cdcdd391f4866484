//! Issue 4: the classifier measured on the real photographs in `../shared/data`,
//! when that folder exists (skipped with a message otherwise). The floors are the
//! issue's targets where they are met (imago-go) and the measured level where they
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
fn issue4_imago_go_photos_never_trained_on_read_at_least_99_percent() {
    if shared_data("imago-go").is_none() {
        return;
    }
    let r = eval("imago-go", &[]);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["images"], 51);
    assert!(accuracy(&r[0]) >= 0.99, "{}", r[0]);
}

#[test]
fn issue4_chess_ray_vision_is_read_exactly() {
    if shared_data("chess-ray-vision").is_none() {
        return;
    }
    let r = eval("chess-ray-vision", &[]);
    assert_eq!(r[0]["exact_boards"], r[0]["images"], "{}", r[0]);
}

#[test]
fn issue4_bgu_chess_games_are_measured_per_game_with_and_without_adaptation() {
    if shared_data("bgu-chess").is_none() {
        return;
    }
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
