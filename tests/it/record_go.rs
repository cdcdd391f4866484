//! `record --game go`: flags checked against the game, and real Go photos and
//! video recorded move by move, scored with sgfmill (tests/tools/
//! check_sgf_moves.py) under the board's eight symmetries.

use std::path::Path;
use std::process::Command;

use crate::util::{have_tool, p, run, shared_data, stderr, tmp};

/// The scorer's verdict on `record` against photo labels or a true SGF:
/// (exit status 0, its JSON line), or None where sgfmill is not installed.
fn score(record: &Path, truth_flag: &str, truth: &Path) -> Option<(bool, String)> {
    let sgfmill = Command::new("python3")
        .args(["-c", "import sgfmill"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_tool("sgfmill", sgfmill) {
        return None;
    }
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/check_sgf_moves.py");
    let o = Command::new("python3")
        .arg(tool)
        .arg(record)
        .arg(truth_flag)
        .arg(truth)
        .output()
        .expect("python3 runs");
    Some((
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).trim().to_string(),
    ))
}

#[test]
fn go_flags_are_checked_against_the_game_before_any_input_is_read() {
    let dir = tmp();
    let out = dir.path().join("g.sgf");
    let cases: [(&[&str], &str); 4] = [
        (
            &["--game", "go", "--grid", "8x8"],
            "go is played on a 19x19:points grid (or 13x13:points, 9x9:points), not 8x8",
        ),
        (
            &["--game", "chess", "--sgf", p(&out)],
            "--sgf is for Go records",
        ),
        (
            &["--game", "chess", "--handicap", "3"],
            "--handicap: an option of Go, not of chess",
        ),
        (&["--game", "go", "--handicap", "1"], "--handicap"),
    ];
    for (flags, needle) in cases {
        let mut args = vec!["record", "--input", "nowhere.mp4"];
        args.extend_from_slice(flags);
        if !flags.contains(&"--sgf") {
            args.extend_from_slice(&["--out", p(&out)]);
        }
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {err}");
        assert!(err.contains(needle), "{flags:?}: '{needle}' not in {err}");
        assert!(!out.exists(), "{flags:?} wrote a record");
    }
}

/// imago-go t1: ten stones photographed one by one, the phone's EXIF way up
/// changing between photos while the pixels keep one way up.
#[test]
#[ignore = "needs ../shared/data"]
fn real_go_photos_record_every_stone_in_order() {
    let dir = shared_data("imago-go").join("t1");
    let out = tmp();
    let sgf = out.path().join("t1.sgf");
    let o = run(&[
        "record",
        "--game",
        "go",
        "--input",
        p(&dir),
        "--sgf",
        p(&sgf),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    if let Some((ok, verdict)) = score(&sgf, "--labels", &dir) {
        assert!(ok, "{verdict}");
        assert!(verdict.contains("\"right\": 10"), "{verdict}");
    }
}

/// imago-go t2 (every photo, the harder ones kept apart in `skip/` among them)
/// and t3's first twelve (a five-stone set-up photographed first, White to
/// begin, then one stone a photo): every stone in order, no pass invented.
#[test]
#[ignore = "needs ../shared/data"]
fn real_go_sequences_with_a_set_up_record_every_stone_and_no_pass() {
    let root = shared_data("imago-go");
    let out = tmp();
    let t2: Vec<_> = [
        "000", "001", "002", "003", "004", "005", "006", "007", "008", "009", "010", "011",
    ]
    .iter()
    .map(|n| {
        let f = root.join("t2").join(format!("t2_{n}.jpg"));
        if f.is_file() {
            f
        } else {
            root.join("t2/skip").join(format!("t2_{n}.jpg"))
        }
    })
    .collect();
    let t3: Vec<_> = (0..12)
        .map(|i| root.join("t3").join(format!("t3_{i:03}.jpg")))
        .collect();
    for (name, photos, stones) in [("t2", t2, 11), ("t3", t3, 10)] {
        let (input, labels) = (
            out.path().join(name),
            out.path().join(format!("{name}-labels")),
        );
        std::fs::create_dir_all(&input).unwrap();
        std::fs::create_dir_all(&labels).unwrap();
        for photo in &photos {
            let file = photo.file_name().unwrap();
            std::fs::copy(photo, input.join(file)).unwrap();
            std::fs::copy(
                photo.with_extension("txt"),
                labels.join(file).with_extension("txt"),
            )
            .unwrap();
        }
        let sgf = out.path().join(format!("{name}.sgf"));
        let o = run(&[
            "record",
            "--game",
            "go",
            "--input",
            p(&input),
            "--sgf",
            p(&sgf),
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let text = std::fs::read_to_string(&sgf).expect("the record");
        assert!(
            !text.contains("B[]") && !text.contains("W[]"),
            "{name}: {text}"
        );
        if let Some((ok, verdict)) = score(&sgf, "--labels", &labels) {
            assert!(ok, "{name}: {verdict}\n{text}");
            assert!(
                verdict.contains(&format!("\"right\": {stones},")),
                "{name}: {verdict}"
            );
        }
    }
}

/// video-go stones4.mp4 (evaluation only): a hand-held phone over an empty
/// board, White first, all four stones. The fourth is on the board for half a
/// second at the end, with the camera drifting and a hand coming back: never
/// still for the quiet period, so the end of the input takes its last rest.
#[test]
#[ignore = "needs ../shared/data"]
fn a_real_go_video_records_white_first_and_invents_nothing() {
    let clip = shared_data("video-go").join("stones4.mp4");
    let truth = shared_data("video-go").join("stones4.sgf");
    let out = tmp();
    let sgf = out.path().join("v.sgf");
    let o = run(&[
        "record",
        "--game",
        "go",
        "--input",
        p(&clip),
        "--out",
        p(&sgf),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&sgf).expect("the record");
    assert!(text.contains("PL[W]") && text.contains(";W["), "{text}");
    if let Some((_, verdict)) = score(&sgf, "--sgf", &truth) {
        let field = |name: &str| -> u32 {
            let at = verdict.find(&format!("\"{name}\": ")).expect(name) + name.len() + 4;
            verdict[at..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|d| d.parse().ok())
                .expect("a count")
        };
        assert_eq!(field("right"), 4, "{verdict}");
        assert_eq!(field("invented"), 0, "{verdict}");
    }
}

/// `detect --game go photo --out pos.sgf`: one photo's stones as a set-up, as
/// Imago writes them; the SGF's first line is the photo's top edge, as the
/// labels' first line is.
#[test]
#[ignore = "needs ../shared/data"]
fn one_real_go_photo_becomes_an_sgf_set_up() {
    let dir = shared_data("imago-go").join("t3");
    let out = tmp();
    let sgf = out.path().join("pos.sgf");
    let photo = dir.join("t3_011.jpg");
    let o = run(&["detect", "--game", "go", p(&photo), "--out", p(&sgf)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&sgf).expect("the SGF");
    let labels = std::fs::read_to_string(dir.join("t3_011.txt")).expect("labels");
    let letters = "abcdefghijklmnopqrs".as_bytes();
    for (r, line) in labels.lines().enumerate() {
        for (c, t) in line.split_whitespace().enumerate() {
            let point = format!("[{}{}]", letters[c] as char, letters[r] as char);
            let (black, white) = (text.find("AB"), text.find("AW"));
            let at = text.find(&point);
            match t {
                "." => assert!(at.is_none(), "{point} read as a stone: {text}"),
                "B" => assert!(
                    at.is_some() && black < at && (white.is_none() || at < white),
                    "{point}: {text}"
                ),
                _ => assert!(
                    at.is_some() && white.is_some_and(|w| w < at.unwrap_or(0)),
                    "{point}: {text}"
                ),
            }
        }
    }
}

#[test]
fn detect_writes_one_photos_position_only() {
    let dir = tmp();
    let out = dir.path().join("pos.sgf");
    let o = run(&["detect", "--game", "go", "a.jpg", "b.jpg", "--out", p(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("give one image"), "{}", stderr(&o));
}
