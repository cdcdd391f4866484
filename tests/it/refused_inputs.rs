//! Recovery never invents: inputs that would make up moves or silently record
//! nothing are refused up front, named, with `record`'s exit statuses — a round
//! file's bad values, a JPEG cut short, a photo too large to read, corners off the
//! frame — and a file whose name is not UTF-8 is still the file it names.

use std::path::{Path, PathBuf};

use boardscribe_vision::capture::{self, SourceOptions};

use super::cli_reliability::{board_video, board_view, crc32, fails, CORNERS};
use super::util::{bin, p, run, stderr, tmp};

/// A round file of one chess board, `extra` lines added to it.
fn round_with(dir: &Path, extra: &str) -> PathBuf {
    let path = dir.join("round.toml");
    std::fs::write(
        &path,
        format!("[event]\nname = \"x\"\n\n[[board]]\nnumber = 1\ninput = \"clip.mp4\"\n{extra}\n"),
    )
    .unwrap();
    path
}

#[test]
fn round_file_mistakes_are_said_before_anything_starts_naming_board_and_key() {
    let dir = tmp();
    // (lines, key, exit status `record` gives the same mistake in its flags)
    let cases = [
        ("quiet = -1.0", "quiet", 2),
        ("quiet = nan", "quiet", 2),
        ("quiet = inf", "quiet", 2),
        ("quiet = 1e9", "quiet", 2),
        ("fps = nan", "fps", 2),
        ("max-fps = -1.0", "max-fps", 2),
        ("corners = \"1,2 3,4\"", "corners", 2),
        ("grid = \"8by8\"", "grid", 2),
        ("grid = \"9x9\"", "grid", 2),
        ("white-side = \"north\"", "white-side", 2),
        ("fen = \"8/8/8 w - - 0 1\"", "fen", 1),
        (
            "fen = \"4k3/8/8/8/8/8/8/R3K3 w - - 99999999999 80\"",
            "fen",
            1,
        ),
        ("game = \"tablut\"\nposition = \"xyz\"", "position", 1),
        ("profile = \"missing.toml\"", "profile", 1),
        ("white-elo = \"strong\"", "white-elo", 2),
        ("black-elo = 2215.5", "black-elo", 2),
        ("white-title = \"Master\"", "white-title", 2),
        ("black-fide-id = \"15-03\"", "black-fide-id", 2),
        ("time-control = \"90 min\"", "time-control", 2),
    ];
    let out = dir.path().join("round1");
    for (lines, key, code) in cases {
        let round = round_with(dir.path(), lines);
        let o = run(&[
            "event",
            p(&round),
            "--out",
            p(&out),
            "--listen",
            "127.0.0.1:0",
        ]);
        fails(&o, code, &format!("board 1: {key}: "));
        assert!(!stderr(&o).contains("live page"), "{lines}: {}", stderr(&o));
        assert!(!out.exists(), "{lines}: nothing is made");
    }
    // A rating is said to be one, naming the file.
    let round = round_with(dir.path(), "white-elo = \"strong\"");
    let o = run(&["event", p(&round), "--out", p(&out)]);
    fails(
        &o,
        2,
        &format!(
            "round file '{}': board 1: white-elo: 'strong' is not an Elo rating: a whole number from 1 to 3999",
            round.display()
        ),
    );
    // Every mistake of every board at once.
    let round = round_with(
        dir.path(),
        "quiet = -1.0\n[[board]]\nnumber = 2\ninput = \"b.mp4\"\nfps = nan\nfen = \"x\"\n",
    );
    let o = run(&["event", p(&round), "--out", p(&out)]);
    fails(&o, 2, "board 1: quiet: ");
    for part in ["board 2: fps: ", "board 2: fen: "] {
        assert!(stderr(&o).contains(part), "{part}: {}", stderr(&o));
    }
}

#[test]
fn a_start_that_is_not_a_position_is_refused_before_the_input_is_opened() {
    let dir = tmp();
    // The input does not exist: the start is refused before it is looked for.
    let missing = dir.path().join("no-such-clip.mp4");
    let out = dir.path().join("game.txt");
    // (flags, exit status, said)
    let cases: [(&[&str], i32, &str); 6] = [
        (
            &["--fen", "8/8/8 w - - 0 1"],
            1,
            "--fen: not a chess start position: ",
        ),
        (
            &["--game", "draughts", "--fen", "W:Wz9:B1"],
            1,
            "--fen: not a Russian draughts start position: ",
        ),
        (
            &["--game", "tablut", "--position", "nonsense"],
            1,
            "--position: not a Tablut start position: ",
        ),
        // Tablut's start is taken from --fen as well, as always.
        (
            &["--game", "tablut", "--fen", "nonsense"],
            1,
            "--fen: not a Tablut start position: ",
        ),
        (
            &["--white-first"],
            2,
            "--white-first: an option of Tablut, not of chess",
        ),
        (
            &["--game", "draughts", "--white-first"],
            2,
            "--white-first: an option of Tablut, not of Russian draughts",
        ),
    ];
    for (flags, code, said) in cases {
        let mut args = vec!["record", "--input", p(&missing), "--out", p(&out)];
        args.extend_from_slice(flags);
        let o = run(&args);
        fails(&o, code, said);
        assert!(
            !stderr(&o).contains("no-such-clip"),
            "{flags:?}: {}",
            stderr(&o)
        );
        assert!(!out.exists(), "{flags:?}: nothing is written");
    }
    // perft takes the same starts through the same parse.
    let o = run(&[
        "perft", "--game", "draughts", "--fen", "W:Wz9:B1", "--depth", "1",
    ]);
    fails(&o, 1, "--fen: not a Russian draughts start position: ");
}

/// Writes a solid-colour JPEG of 64x48 pixels.
fn jpeg(path: &Path, v: u8) {
    image::RgbImage::from_pixel(64, 48, image::Rgb([v, v, v]))
        .save(path)
        .unwrap();
}

#[test]
fn a_jpeg_cut_short_in_a_photo_folder_is_skipped_not_read_half_grey() {
    let dir = tmp();
    for (i, v) in [(1, 40), (2, 120), (3, 200)] {
        jpeg(&dir.path().join(format!("p{i}.jpg")), v);
    }
    let cut = dir.path().join("p2.jpg");
    let bytes = std::fs::read(&cut).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    // Bytes after the end marker (padding, a maker's trailer) are no cut.
    let padded = dir.path().join("p3.jpg");
    let mut bytes = std::fs::read(&padded).unwrap();
    bytes.extend_from_slice(&[0u8; 64]);
    std::fs::write(&padded, bytes).unwrap();

    let mut src = capture::open(p(dir.path()), SourceOptions::default()).unwrap();
    let frames: Vec<_> = src.by_ref().map(|f| f.unwrap()).collect();
    let names: Vec<String> = frames
        .iter()
        .map(|f| {
            let name = f.path.as_ref().unwrap().file_name().unwrap();
            name.to_string_lossy().into_owned()
        })
        .collect();
    assert_eq!(names, ["p1.jpg", "p3.jpg"]);
    let warnings = src.take_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("p2.jpg"), "{warnings:?}");
    assert!(warnings[0].contains("cut short"), "{warnings:?}");
    // A photo cut short named by itself is an error naming it.
    let o = run(&["detect", "--grid", "8x8", "--corners", CORNERS, p(&cut)]);
    fails(&o, 1, "p2.jpg' is cut short");
}

/// A PNG whose header claims `w` x `h` pixels.
fn png_claiming(path: &Path, w: u32, h: u32) {
    image::RgbImage::new(1, 1).save(path).unwrap();
    let mut bytes = std::fs::read(path).unwrap();
    bytes[16..20].copy_from_slice(&w.to_be_bytes());
    bytes[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_photo_too_large_to_read_is_named_with_its_size_not_no_frames() {
    let dir = tmp();
    let bomb = dir.path().join("bomb.png");
    png_claiming(&bomb, 100_000, 100_000);
    let pgn = dir.path().join("g.pgn");
    let o = run(&["record", "--input", p(&bomb), "--pgn", p(&pgn)]);
    fails(&o, 1, "image '");
    let err = stderr(&o);
    assert!(err.contains("bomb.png' is 100000x100000 pixels"), "{err}");
    assert!(!err.contains("no frame"), "{err}");
    let o = run(&[
        "record",
        "--input",
        p(&bomb),
        "--pgn",
        p(&pgn),
        "--corners",
        CORNERS,
    ]);
    fails(&o, 1, "bomb.png' is 100000x100000 pixels");
    // A folder of nothing else says so too.
    let folder = dir.path().join("photos");
    std::fs::create_dir(&folder).unwrap();
    png_claiming(&folder.join("a.png"), 100_000, 100_000);
    png_claiming(&folder.join("b.png"), 90_000, 90_000);
    let o = run(&["record", "--input", p(&folder), "--pgn", p(&pgn)]);
    fails(&o, 1, "no photo of folder '");
    let err = stderr(&o);
    assert!(err.contains("a.png' is 100000x100000 pixels"), "{err}");
    assert!(err.contains("1 more photo skipped"), "{err}");
    assert!(!pgn.exists() || std::fs::read_to_string(&pgn).unwrap().trim().is_empty());
}

#[test]
fn corners_off_the_frame_are_refused_naming_the_input_and_the_frame_size() {
    let dir = tmp();
    let photos = dir.path().join("photos");
    std::fs::create_dir(&photos).unwrap();
    board_view(&photos.join("1.png"));
    board_view(&photos.join("2.png"));
    // The board's top-left square in the 640x480 frame, the rest beyond it.
    let off = "600,400 1200,400 1200,1000 600,1000";
    let pgn = dir.path().join("g.pgn");
    let o = run(&[
        "record",
        "--input",
        p(&photos),
        "--pgn",
        p(&pgn),
        "--corners",
        off,
    ]);
    fails(&o, 1, "the corners lie outside the frame");
    let err = stderr(&o);
    assert!(err.contains("63 of the 64 squares"), "{err}");
    assert!(err.contains("1.png', which is 640x480 pixels"), "{err}");
    assert!(!err.contains("squares differ"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_file_whose_name_is_not_utf8_is_read_not_said_missing() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tmp();
    let video = dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"board\xff.avi"));
    board_video(&dir.path().join("v.avi"), 3);
    std::fs::rename(dir.path().join("v.avi"), &video).unwrap();
    let frame = dir.path().join("f.png");
    board_view(&frame);
    let photo = dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"photo\xfe.png"));
    std::fs::rename(&frame, &photo).unwrap();
    for path in [&video, &photo] {
        let o = bin()
            .args(["rectify", "--grid", "8x8", "--corners", CORNERS])
            .arg(path)
            .arg("-o")
            .arg(dir.path().join("top.png"))
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(o.status.success(), "{}: {err}", path.display());
        assert!(!err.contains("does not exist"), "{err}");
        let o = bin()
            .args(["locate", "--grid", "8x8"])
            .arg(path)
            .output()
            .unwrap();
        assert!(!stderr(&o).contains("does not exist"), "{}", stderr(&o));
        assert!(
            !String::from_utf8_lossy(&o.stdout).contains("does not exist"),
            "{}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    // The library opens it by its path.
    let mut src = capture::open_path(&video, SourceOptions::default()).unwrap();
    assert!(src.next().is_some());
    assert_eq!(src.fps(), 10.0);
}
