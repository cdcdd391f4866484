//! Issue 4: the classifier measured on the real photographs in `../shared/data`
//! (ignored tests: `make test` runs them when that folder exists). The floors are
//! the targets where they are met (imago-go) and the measured level where they
//! are not (bgu-chess, evaluation only: reported, never tuned on), so a change that
//! makes real photos read worse fails here.

use crate::util::{run, shared_data, stderr, stdout};
use boardscribe_core::record::Resume;
use boardscribe_core::rules::chess::Chess;

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
fn imago_go_photos_never_trained_on_read_at_least_99_percent() {
    shared_data("imago-go");
    let r = eval("imago-go", &[]);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["images"], 51);
    assert!(accuracy(&r[0]) >= 0.99, "{}", r[0]);
}

/// go-roboflow's held-out stones (its test and valid folders, whole boards as judged
/// by eye, never trained on): every board located at its own size, and the points
/// read by Go's model as measured on 2026-12-05 (99.41%, a site the model flags
/// hidden counted wrong; 98.32% with the chess model; docs/accuracy.md).
#[test]
#[ignore = "needs ../shared/data"]
fn go_roboflow_whole_boards_never_trained_on_are_located_and_read() {
    shared_data("go-roboflow");
    let r = eval("go-roboflow", &["--split", "val"]);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["images"], 21, "every whole board located: {}", r[0]);
    assert!(accuracy(&r[0]) >= 0.99, "{}", r[0]);
}

#[test]
#[ignore = "needs ../shared/data"]
fn chess_ray_vision_is_read_exactly() {
    shared_data("chess-ray-vision");
    let r = eval("chess-ray-vision", &[]);
    assert_eq!(r[0]["exact_boards"], r[0]["images"], "{}", r[0]);
}

#[test]
#[ignore = "needs ../shared/data"]
fn bgu_chess_games_are_measured_per_game_with_and_without_adaptation() {
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

/// Records bgu-chess games 4, 5 and 7 through the real pipeline (`eval --set
/// bgu-chess --record`, the code `record` runs on a folder of photos) and checks
/// each record against the true game. `floors` holds, per game, the half-moves that
/// must match the true game: a game recorded exactly must stay exact (every ply,
/// nothing more), the others may not lose a half-move against the measured count.
/// Every half-move recorded wrongly must be marked `{uncertain: ...}`, and at most
/// 5% of the right ones may be (issue 28; docs/accuracy.md has the counts).
fn record_bgu(extra: &[&str], floors: [(u64, u64); 3]) {
    shared_data("bgu-chess");
    let dir = tempfile::tempdir().expect("temp dir");
    let dir_s = dir.path().to_string_lossy().to_string();
    let mut args = vec!["--record", "--out-dir", &dir_s];
    args.extend_from_slice(extra);
    let r = eval("bgu-chess", &args);
    assert_eq!(r.len(), 3, "games 4, 5 and 7");
    for s in &r {
        eprintln!("bgu-chess recorded {extra:?}: {s}");
        let game = s["game"].as_u64().expect("a game number");
        let text = std::fs::read_to_string(s["pgn"].as_str().expect("a PGN path"))
            .expect("the record is on disk");
        // A valid record of the moves accepted, whatever the camera made of the rest.
        let pgn = boardscribe_core::record::parse_pgn(&text).expect("a valid PGN");
        let recorded = s["recorded_plies"].as_u64().unwrap();
        assert_eq!(pgn.moves.len() as u64, recorded);
        let unexplained = s["unexplained"].as_u64().unwrap();
        // Comments wrap at 80 columns like the moves.
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(
            flat.matches("recording waits for a legal position").count() as u64,
            unexplained,
            "every unexplained change is noted in the record"
        );
        let (_, floor) = floors
            .iter()
            .copied()
            .find(|(g, _)| *g == game)
            .unwrap_or_else(|| panic!("unexpected game {game}"));
        let true_plies = s["true_plies"].as_u64().unwrap();
        let matching = s["matching"].as_u64().unwrap();
        assert!(
            matching >= floor,
            "game {game} lost half-moves: {matching} of {true_plies} match, floor {floor}: {s}"
        );
        // Issue 28: an arbiter signs the record only where it is sure. Every
        // wrong half-move is marked `{uncertain: ...}`, and at most 5% of the
        // right ones are.
        let wrong = s["wrong"].as_array().expect("wrong plies").len() as u64;
        let wrong_marked = s["wrong_marked"].as_u64().unwrap();
        let right_marked = s["right_marked"].as_u64().unwrap();
        let marks = flat.matches("{uncertain: ").count() as u64;
        assert_eq!(marks, wrong_marked + right_marked, "game {game}: {s}");
        assert_eq!(
            wrong_marked, wrong,
            "game {game}: a wrong ply unmarked: {s}"
        );
        assert!(
            right_marked as f64 <= 0.05 * (recorded - wrong) as f64,
            "game {game}: too many right plies marked: {s}"
        );
        if floor == true_plies {
            // Recorded exactly: every move, nothing more, no miss.
            assert_eq!(recorded, true_plies, "game {game}: {s}");
            assert!(s["first_miss"].is_null(), "game {game}: {s}");
            assert_eq!(unexplained, 0, "game {game}: {s}");
        }
    }
}

/// Issue 5: the corners given (each game's first labelled photo, as `record
/// --corners` would have them), White at the bottom. Measured 182/185, 109/109 and
/// 56/56 (docs/accuracy.md).
#[test]
#[ignore = "needs ../shared/data"]
fn bgu_chess_games_recorded_with_corners_keep_every_half_move() {
    record_bgu(&[], [(4, 182), (5, 109), (7, 56)]);
}

/// Issue 21: as `record` without `--corners`: the board located in the first
/// photo, snapped to the start, White's side decided by the game. Measured
/// 182/185, 109/109 and 55/56 (docs/accuracy.md).
#[test]
#[ignore = "needs ../shared/data"]
fn bgu_chess_games_recorded_with_the_board_located_keep_every_half_move() {
    record_bgu(&["--locate"], [(4, 182), (5, 109), (7, 55)]);
}

/// The site name `record --game free` gives a 19x19 label's (row, column), row 0
/// being the image's top edge (the located grid keeps the photo's orientation).
fn go_site(r: usize, c: usize) -> String {
    format!("{}{}", (b'a' + c as u8) as char, 19 - r)
}

/// imago-go's t3 (the held-out sequence, never trained on): one stone a photo, then
/// a jump of 39 stones. `record --game free` on the folder, the board located in
/// the first photo, must log each photo's new stones, the right colour on the right
/// point, and nothing else. Measured (2026-12-03): every stone but two of the 39 of
/// the jump (black stones on the far edge, read as empty), so at most two may be
/// missed. Before per-game learning kept a class it had not seen yet (no white
/// stone in the first view), every white stone was logged black.
#[test]
#[ignore = "needs ../shared/data"]
fn a_real_go_sequence_is_logged_stone_by_stone_in_free_mode() {
    use boardscribe_core::record::{FreeLog, Stone};
    use std::collections::BTreeSet;
    let dir = shared_data("imago-go").join("t3");
    let out = tempfile::tempdir().expect("temp dir");
    let log = out.path().join("t3.txt");
    let o = run(&[
        "record",
        "--game",
        "free",
        "--grid",
        "19x19:points",
        "--input",
        &dir.to_string_lossy(),
        "--out",
        &log.to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = FreeLog::parse(&std::fs::read_to_string(&log).expect("the log")).expect("valid");
    let mut labels: Vec<_> = std::fs::read_dir(&dir)
        .expect("t3")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    labels.sort();
    let stones = |p: &std::path::Path| -> BTreeSet<(char, String)> {
        let text = std::fs::read_to_string(p).expect("a label");
        let mut s = BTreeSet::new();
        for (r, line) in text.lines().enumerate() {
            for (c, t) in line.split_whitespace().enumerate() {
                match t {
                    "B" => s.insert(('b', go_site(r, c))),
                    "W" => s.insert(('w', go_site(r, c))),
                    _ => false,
                };
            }
        }
        s
    };
    let mut want = Vec::new();
    for pair in labels.windows(2) {
        let (a, b) = (stones(&pair[0]), stones(&pair[1]));
        assert!(a.is_subset(&b), "t3 only adds stones");
        let added: BTreeSet<_> = b.difference(&a).cloned().collect();
        if !added.is_empty() {
            want.push(added);
        }
    }
    let (_, start) = got.start.clone().expect("a start view");
    let start: BTreeSet<_> = start.iter().map(|(s, n)| (s.letter(), n.clone())).collect();
    assert_eq!(start, stones(&labels[0]), "the first photo's stones");
    let logged: Vec<BTreeSet<(char, String)>> = got
        .changes
        .iter()
        .map(|ch| {
            assert!(
                ch.edits.iter().all(|e| e.placed),
                "nothing is removed in t3"
            );
            ch.edits
                .iter()
                .map(|e| (Stone::letter(e.stone), e.site.clone()))
                .collect()
        })
        .collect();
    assert_eq!(logged.len(), want.len(), "one change a photo: {logged:?}");
    let mut missed = 0;
    for (got, want) in logged.iter().zip(&want) {
        assert!(got.is_subset(want), "logged {got:?}, placed {want:?}");
        missed += want.len() - got.len();
    }
    assert!(missed <= 2, "{missed} stones missed: {logged:?}");
}

/// A hand-held phone game (chesscog-grey IMG_4755-IMG_4763: the camera moves between
/// every photo, a phone's shadow on the board; photos the classifier was trained on,
/// so this checks finding the board again in each photo and the inference, not the
/// reading). Recorded from the first photo's position, the record must be the moves
/// the labels show: 1. e4 e5 2. Nc3 Nf6 3. Bc4 Bc5 4. d4 exd4 5. Nf3, the last three
/// in one photo. (The labels go on with White moving twice, which no record can hold.)
#[test]
#[ignore = "needs ../shared/data"]
fn a_hand_held_phone_game_is_recorded_with_the_board_found_in_every_photo() {
    let set = shared_data("chesscog-grey");
    let labels: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(set.join("labels.json")).expect("labels.json"),
    )
    .expect("a JSON list");
    let photos: Vec<&serde_json::Value> = labels
        .iter()
        .filter(|l| {
            let name = l["image"].as_str().unwrap_or("");
            ("images/IMG_4755.jpg"..="images/IMG_4763.jpg").contains(&name)
        })
        .collect();
    assert_eq!(photos.len(), 7, "IMG_4755-4760 and 4763");
    let dir = tempfile::tempdir().expect("temp dir");
    for l in &photos {
        let name = l["image"].as_str().unwrap();
        let to = dir.path().join(name.trim_start_matches("images/"));
        std::fs::copy(set.join(name), to).expect("copy a photo");
    }
    let first = photos[0]["placement"].as_str().unwrap();
    let fen = format!("{first} w KQkq - 0 1");
    let out = dir.path().join("game.pgn");
    let o = run(&[
        "record",
        "--input",
        &dir.path().to_string_lossy(),
        "--fen",
        &fen,
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    let pgn = boardscribe_core::record::parse_pgn(&text).expect("a valid PGN");
    let sans: Vec<&str> = pgn.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(
        sans,
        ["e4", "e5", "Nc3", "Nf6", "Bc4", "Bc5", "d4", "exd4", "Nf3"],
        "{}",
        stderr(&o)
    );
    let last = photos[6]["placement"].as_str().unwrap();
    let end = <Chess as Resume>::read_record(&text, &Chess::new())
        .expect("replays")
        .game
        .fen();
    assert_eq!(end.split(' ').next(), Some(last), "the last photo's labels");
}
