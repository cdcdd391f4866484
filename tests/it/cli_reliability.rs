//! The command line's reliability (issue 22): no panic, no lost record, a record
//! resumed after a crash, errors that name the input, exit statuses as the README
//! lists them (0 done, 1 error, 2 usage, 3 record incomplete).

use std::path::Path;
use std::process::{Output, Stdio};

use opencv::core::{Size, Vector};
use opencv::prelude::*;
use opencv::videoio::VideoWriter;

use boardscribe_core::record::parse_pgn;
use boardscribe_core::record::Lock;
use boardscribe_core::rules::chess::Chess;
use boardscribe_lab::mjpeg::{MjpegServer, StallPlan};
use boardscribe_lab::synth::SceneParams;
use boardscribe_vision::capture::{self, FrameSource, SourceOptions, VideoSource};
use boardscribe_vision::geometry::{perspective_test_card, BoardPose, GridSpec};

use super::clips::{corners_arg, fast_clip, render, small, states_of};
use super::util::{bin, p, run, stderr, stdout, tmp};

pub(super) const CORNERS: &str = "152,88 508,112 574,430 84,402";

/// A perspective view of an empty 8x8 board (640x480).
pub(super) fn board_view(path: &Path) {
    let pose = BoardPose::new(GridSpec::cells(8, 8), CORNERS.parse().unwrap());
    let img = perspective_test_card(&pose, (640, 480)).unwrap();
    assert!(opencv::imgcodecs::imwrite(path, &img, &Vector::new()).unwrap());
}

/// Asserts a failure with `code`, no panic, one `error:` line naming `needle`.
pub(super) fn fails(o: &Output, code: i32, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "exit status: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    assert_eq!(err.matches("error:").count(), 1, "one error line: {err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
}

fn record_args<'a>(input: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["record", "--input", input, "--pgn", out];
    v.extend_from_slice(extra);
    v
}

#[test]
fn usage_errors_exit_2_naming_the_flag() {
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["record", "--input", "x", "--pgn", "y", "--quiet", "NaN"],
            "--quiet",
        ),
        (
            vec!["record", "--input", "x", "--pgn", "y", "--fps", "1e-300"],
            "--fps",
        ),
        (
            vec!["record", "--input", "x", "--pgn", "y", "--max-fps", "inf"],
            "--max-fps",
        ),
        (
            vec!["record", "--input", "x", "--pgn", "y", "--date", "garbage"],
            "--date",
        ),
        (
            vec!["record", "--input", "x", "--pgn", "y", "--white", "north"],
            "--white",
        ),
        (
            vec![
                "render", "clip", "--pgn", "x", "--out", "y.mp4", "--still", "inf",
            ],
            "--still",
        ),
        (vec!["bench", "--what", "garbage"], "garbage"),
        (vec!["perft", "--depth", "5000"], "5000"),
        (
            vec![
                "rectify",
                "--grid",
                "8by8",
                "--corners",
                CORNERS,
                "a.png",
                "-o",
                "b.png",
            ],
            "8by8",
        ),
        (
            vec![
                "rectify",
                "--grid",
                "8x8",
                "--corners",
                "0,0 1e7,0 1e7,1e7 0,1e7",
                "a.png",
                "-o",
                "b.png",
            ],
            "within",
        ),
        (
            vec![
                "detect",
                "--grid",
                "8x8",
                "--corners",
                "0,0 1e7,0 1e7,1e7 0,1e7",
                "a.png",
            ],
            "within",
        ),
    ];
    for (args, needle) in cases {
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: '{needle}' not in {err}");
    }
}

#[test]
fn a_grid_that_is_not_the_games_is_refused_before_anything_runs() {
    let dir = tmp();
    let out = dir.path().join("g.pgn");
    for (game, grid) in [
        ("tablut", "8x8"),
        ("tablut", "8x9"),
        ("chess", "7x7"),
        ("chess", "9x9"),
        ("chess", "8x9"),
        ("chess", "8x8:points"),
        ("draughts", "10x10"),
        ("russian-draughts", "10x10"),
    ] {
        let args = [
            "record",
            "--game",
            game,
            "--grid",
            grid,
            "--input",
            "nothing.mp4",
            "--out",
            p(&out),
            "--corners",
            CORNERS,
        ];
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{game} {grid}: {}", stderr(&o));
        assert!(stderr(&o).contains("is played on a"), "{}", stderr(&o));
        assert!(!out.exists());
    }
    // A Tablut record is not written into a .pgn, nor chess into --pdn.
    let o = run(&[
        "record", "--game", "tablut", "--input", "x.mp4", "--pgn", "t.pgn",
    ]);
    fails(&o, 2, "--pgn is for chess");
    let o = run(&[
        "record", "--game", "chess", "--input", "x.mp4", "--pdn", "t.pdn",
    ]);
    fails(&o, 2, "--pdn is for draughts");
}

#[test]
fn a_record_never_replaces_its_input_or_a_special_file() {
    let dir = tmp();
    let photo = dir.path().join("a.jpg");
    board_view(&photo);
    let before = std::fs::read(&photo).unwrap();
    let o = run(&record_args(p(&photo), p(&photo), &["--corners", CORNERS]));
    fails(&o, 1, "is the input");
    assert_eq!(std::fs::read(&photo).unwrap(), before);
    // rectify X -o X --overlay X
    let o = run(&[
        "rectify",
        "--grid",
        "8x8",
        "--corners",
        CORNERS,
        p(&photo),
        "-o",
        p(&photo),
        "--overlay",
        p(&photo),
    ]);
    fails(&o, 1, "is the input");
    assert_eq!(std::fs::read(&photo).unwrap(), before);
    // An overlay written into the photo folder being recorded.
    let o = run(&record_args(
        p(dir.path()),
        p(&dir.path().join("g.pgn")),
        &[
            "--corners",
            CORNERS,
            "--overlay",
            p(&dir.path().join("ov.png")),
        ],
    ));
    fails(&o, 1, "inside the input folder");
    // A device and a symbolic link are never replaced.
    let o = run(&record_args(
        p(&photo),
        "/dev/null",
        &["--corners", CORNERS],
    ));
    fails(&o, 1, "device");
    let target = dir.path().join("target.pgn");
    std::fs::write(&target, "").unwrap();
    let link = dir.path().join("link.pgn");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = run(&record_args(p(&photo), p(&link), &["--corners", CORNERS]));
    fails(&o, 1, "symbolic link");
}

#[test]
fn a_record_holding_a_game_is_kept_without_resume_or_force() {
    let dir = tmp();
    let photo = dir.path().join("a.png");
    board_view(&photo);
    let pgn = dir.path().join("g.pgn");
    let game = "[Event \"club\"]\n\n1. e4 e5 2. Nf3 *\n";
    std::fs::write(&pgn, game).unwrap();
    let o = run(&record_args(p(&photo), p(&pgn), &["--corners", CORNERS]));
    fails(&o, 1, "already holds a record");
    assert_eq!(std::fs::read_to_string(&pgn).unwrap(), game);
    // A second recorder on the same record is kept off.
    let lock = Lock::record(&pgn, "a test").unwrap();
    let o = run(&record_args(
        p(&photo),
        p(&pgn),
        &["--corners", CORNERS, "--force"],
    ));
    fails(&o, 1, "another recorder");
    drop(lock);
    // A finished game is not resumed.
    std::fs::write(&pgn, "1. f3 e5 2. g4 Qh4# 0-1\n").unwrap();
    let o = run(&record_args(
        p(&photo),
        p(&pgn),
        &["--corners", CORNERS, "--resume"],
    ));
    fails(&o, 1, "is over (0-1)");
    assert!(std::fs::read_to_string(&pgn).unwrap().contains("Qh4#"));
}

/// The CRC of a PNG chunk (type and data).
pub(super) fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn corners_outside_the_image_and_huge_images_are_refused_naming_them() {
    let dir = tmp();
    let photo = dir.path().join("view.png");
    board_view(&photo);
    let out = dir.path().join("top.png");
    let far = "5000,5000 5400,5000 5400,5400 5000,5400";
    let o = run(&[
        "rectify",
        "--grid",
        "8x8",
        "--corners",
        far,
        p(&photo),
        "-o",
        p(&out),
    ]);
    fails(&o, 1, "outside '");
    assert!(stderr(&o).contains("view.png"));
    let o = run(&record_args(
        p(&photo),
        p(&dir.path().join("g.pgn")),
        &["--corners", far],
    ));
    fails(&o, 1, "outside");
    // A PNG header claiming 32000x32000 pixels is refused before decoding.
    let huge = dir.path().join("huge.png");
    image::RgbImage::new(1, 1).save(&huge).unwrap();
    let mut bytes = std::fs::read(&huge).unwrap();
    bytes[16..20].copy_from_slice(&32_000u32.to_be_bytes());
    bytes[20..24].copy_from_slice(&32_000u32.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    std::fs::write(&huge, bytes).unwrap();
    let o = run(&[
        "rectify",
        "--grid",
        "8x8",
        "--corners",
        CORNERS,
        p(&huge),
        "-o",
        p(&out),
    ]);
    fails(&o, 1, "32000x32000");
    // A profile with corners far out is refused with its name, not a panic.
    let profile = dir.path().join("far.toml");
    std::fs::write(
        &profile,
        "grid = \"8x8\"\ncorners = [[0, 0], [1e7, 0], [1e7, 1e7], [0, 1e7]]\n",
    )
    .unwrap();
    let o = run(&[
        "rectify",
        "--profile",
        p(&profile),
        p(&photo),
        "-o",
        p(&out),
    ]);
    fails(&o, 1, "far.toml");
}

#[test]
fn output_that_cannot_be_written_is_an_error_not_a_panic() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = bin()
        .args(["perft", "--depth", "1"])
        .stdout(full)
        .output()
        .unwrap();
    fails(&o, 1, "cannot write to standard output");
    // A closed pipe ends a command quietly.
    let mut child = bin()
        .args(["perft", "--depth", "3", "--divide"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

#[test]
fn help_puts_record_first_and_describes_demo() {
    let o = run(&["--help"]);
    let text = stdout(&o);
    let first = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .nth(1)
        .unwrap();
    assert!(first.trim_start().starts_with("record"), "{text}");
    let demo = stdout(&run(&["demo", "--help"]));
    assert!(demo.contains("Opera Game"), "{demo}");
    let rec = stdout(&run(&["record", "--help"]));
    for flag in [
        "--site",
        "--round",
        "--event",
        "--resume",
        "--force",
        "--overlay",
    ] {
        let line = rec
            .lines()
            .find(|l| l.trim_start().starts_with(flag))
            .unwrap();
        let idx = rec.find(line).unwrap();
        let next = rec[idx + line.len()..].lines().nth(1).unwrap_or("");
        assert!(
            line.len() > flag.len() + 12 || !next.trim().is_empty(),
            "{flag} has no help: {rec}"
        );
    }
    // --game draughts is Russian draughts.
    let o = run(&["perft", "--game", "draughts", "--depth", "1"]);
    assert_eq!(stdout(&o).trim(), "7", "{}", stderr(&o));
}

/// Writes an MJPG .avi of `n` frames of the board view.
pub(super) fn board_video(path: &Path, n: usize) {
    let pose = BoardPose::new(GridSpec::cells(8, 8), CORNERS.parse().unwrap());
    let img = perspective_test_card(&pose, (640, 480)).unwrap();
    let code = VideoWriter::fourcc('M', 'J', 'P', 'G').unwrap();
    let mut w = VideoWriter::new(path, code, 10.0, Size::new(640, 480), true).unwrap();
    for _ in 0..n {
        w.write(&img).unwrap();
    }
    w.release().unwrap();
}

#[test]
fn locate_and_rectify_take_a_video_s_first_frame() {
    let dir = tmp();
    let video = dir.path().join("clip.avi");
    board_video(&video, 3);
    let top = dir.path().join("top.png");
    let o = run(&[
        "rectify",
        "--grid",
        "8x8",
        "--corners",
        CORNERS,
        p(&video),
        "-o",
        p(&top),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(top.exists());
    let o = run(&[
        "locate",
        "--grid",
        "8x8",
        p(&video),
        "--overlay",
        p(dir.path()),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.path().join("clip.avi.jpg").exists());
}

#[test]
fn a_damaged_video_warns_and_exits_3() {
    let dir = tmp();
    let video = dir.path().join("clip.avi");
    board_video(&video, 60);
    let bytes = std::fs::read(&video).unwrap();
    std::fs::write(&video, &bytes[..bytes.len() / 3]).unwrap();
    let src = capture::open(p(&video), SourceOptions::default()).unwrap();
    let mut src = src;
    let n = src.by_ref().filter(|f| f.is_ok()).count();
    assert!(n < 40, "{n} frames");
    let why = src.end_reason().expect("an early end is noticed");
    assert!(why.contains("clip.avi") && why.contains("of 60"), "{why}");
    let pgn = dir.path().join("g.pgn");
    let o = run(&record_args(p(&video), p(&pgn), &["--corners", CORNERS]));
    fails(&o, 3, "of 60");
    assert!(stderr(&o).contains("warning: the video"), "{}", stderr(&o));
    parse_pgn(&std::fs::read_to_string(&pgn).unwrap()).unwrap();
}

#[test]
fn photos_of_other_sizes_are_skipped_naming_them_and_one_photo_is_a_view() {
    let dir = tmp();
    let photos = dir.path().join("photos");
    std::fs::create_dir(&photos).unwrap();
    board_view(&photos.join("p1.png"));
    board_view(&photos.join("p2.png"));
    let sideways = image::open(photos.join("p2.png")).unwrap().rotate90();
    sideways.save(photos.join("p3.png")).unwrap();
    let pgn = dir.path().join("g.pgn");
    let o = run(&record_args(p(&photos), p(&pgn), &["--corners", CORNERS]));
    let err = stderr(&o);
    assert!(
        err.contains("skipping photo") && err.contains("p3.png"),
        "{err}"
    );
    assert!(err.contains("480x640"), "{err}");
    assert!(!err.contains("OpenCV"), "{err}");
    // Nothing is played on an empty board: exit 3, said in one line.
    fails(&o, 3, "no move was recorded");
    assert!(err.contains("from 2 frames"), "{err}");
    // A single photo is a still view with the default --quiet.
    let o = run(&record_args(
        p(&photos.join("p1.png")),
        p(&pgn),
        &["--corners", CORNERS, "--force"],
    ));
    assert!(stderr(&o).contains("1 still view,"), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 frame "), "{}", stderr(&o));
    fails(&o, 3, "no move was recorded");
}

#[test]
fn a_stream_that_stalls_is_reconnected_and_one_that_stops_is_said() {
    // Noise compresses badly: frames of some size, as a camera's are (FFmpeg
    // probes a stream's first megabytes before it hands on a frame).
    let mut img = opencv::core::Mat::new_rows_cols_with_default(
        240,
        320,
        opencv::core::CV_8UC3,
        opencv::core::Scalar::all(90.0),
    )
    .unwrap();
    opencv::core::randu(
        &mut img,
        &opencv::core::Scalar::all(0.0),
        &opencv::core::Scalar::all(255.0),
    )
    .unwrap();
    let mut buf = Vector::<u8>::new();
    opencv::imgcodecs::imencode(".jpg", &img, &mut buf, &Vector::new()).unwrap();
    let plan = StallPlan {
        stalls: vec![(60, 2.0)],
        total: 120,
        fps: 0.0,
        burst: 0,
    };
    let server = MjpegServer::start(vec![buf.to_vec()], plan).unwrap();
    let mut src = VideoSource::stream(&server.url)
        .unwrap()
        .with_reconnect(4.0, None);
    let mut frames = 0;
    let mut warnings = Vec::new();
    while let Some(f) = src.next() {
        f.unwrap();
        frames += 1;
        warnings.extend(src.take_warnings());
    }
    warnings.extend(src.take_warnings());
    let text = warnings.join("\n");
    assert!(frames >= 100, "{frames} frames\n{text}");
    assert!(text.contains("trying to reconnect"), "{text}");
    assert!(text.contains("is back after"), "{text}");
    let why = src.end_reason().expect("the end is said");
    assert!(why.contains("did not come back"), "{why}");
}

/// A short game rendered as a clip: `moves` played from the start.
fn game_clip(
    dir: &Path,
    name: &str,
    start: &Chess,
    ucis: &[&str],
    seed: u64,
) -> (std::path::PathBuf, String) {
    let mut g = start.clone();
    let moves: Vec<_> = ucis.iter().map(|u| g.play_uci(u).unwrap()).collect();
    let (clip, truth) = render(
        dir,
        name,
        &small(SceneParams::chess_overhead(seed, false)),
        &states_of(start, &moves),
        &fast_clip(),
    );
    (clip, corners_arg(&truth))
}

#[test]
fn a_record_is_resumed_after_a_crash_with_its_tags_and_comments() {
    let dir = tmp();
    let (first, corners) = game_clip(dir.path(), "first", &Chess::new(), &["e2e4", "e7e5"], 3);
    let pgn = dir.path().join("game.pgn");
    let overlay = dir.path().join("check.jpeg");
    // --grid comes from the game; the events reader goes away at once: the
    // recording goes on and says so once.
    let mut child = bin()
        .args([
            "record",
            "--input",
            p(&first),
            "--corners",
            &corners,
            "--pgn",
            p(&pgn),
            "--white",
            "bottom",
            "--event",
            "Club night",
            "--events",
            "--overlay",
            p(&overlay),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("cannot write events").count(), 1, "{err}");
    assert!(overlay.exists(), "{err}");
    assert!(err.contains("White at the bottom edge"), "{err}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(parse_pgn(&text).unwrap().moves.len(), 2, "{text}");

    // The same again is refused; --resume goes on from e4 e5.
    let mut after = Chess::new();
    after.play_uci("e2e4").unwrap();
    after.play_uci("e7e5").unwrap();
    let (second, corners2) = game_clip(dir.path(), "second", &after, &["g1f3", "b8c6"], 4);
    let o = run(&[
        "record",
        "--input",
        p(&second),
        "--corners",
        &corners2,
        "--pgn",
        p(&pgn),
        "--white",
        "bottom",
    ]);
    fails(&o, 1, "already holds a record");
    let o = run(&[
        "record",
        "--input",
        p(&second),
        "--corners",
        &corners2,
        "--pgn",
        p(&pgn),
        "--white",
        "bottom",
        "--resume",
        "--events",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("resuming") && err.contains("(4 in all)"),
        "{err}"
    );
    assert!(stdout(&o).contains("\"ply\":3"), "{}", stdout(&o));
    let text = std::fs::read_to_string(&pgn).unwrap();
    let rec = parse_pgn(&text).unwrap();
    let sans: Vec<&str> = rec.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6"], "{text}");
    assert_eq!(rec.tags.event, "Club night", "{text}");
    assert!(text.contains("recording resumed"), "{text}");
    // --force replaces it.
    let o = run(&[
        "record",
        "--input",
        p(&first),
        "--corners",
        &corners,
        "--pgn",
        p(&pgn),
        "--white",
        "bottom",
        "--force",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        parse_pgn(&std::fs::read_to_string(&pgn).unwrap())
            .unwrap()
            .moves
            .len(),
        2
    );
}

#[test]
fn sigterm_ends_a_live_recording_cleanly_with_its_summary() {
    let dir = tmp();
    let (clip, corners) = game_clip(dir.path(), "live", &Chess::new(), &["e2e4", "e7e5"], 5);
    let mut jpegs = Vec::new();
    let mut src = capture::open(p(&clip), SourceOptions::default()).unwrap();
    for f in src.by_ref() {
        let mut buf = Vector::<u8>::new();
        opencv::imgcodecs::imencode(".jpg", &f.unwrap().image, &mut buf, &Vector::new()).unwrap();
        jpegs.push(buf.to_vec());
    }
    // The start position while the reader probes the stream (about 5 s of it at
    // once), then the game at the clip's pace, once; then the stream stays quiet.
    let probe = 140;
    let mut frames = vec![jpegs[0].clone(); probe];
    frames.extend(jpegs);
    let n = frames.len();
    let plan = StallPlan {
        stalls: vec![],
        total: n,
        fps: 8.0,
        burst: probe,
    };
    let server = MjpegServer::start(frames, plan).unwrap();
    let pgn = dir.path().join("live.pgn");
    let child = bin()
        .args([
            "record",
            "--input",
            &server.url,
            "--corners",
            &corners,
            "--pgn",
            p(&pgn),
            "--white",
            "bottom",
            "--max-fps",
            "0",
            "--reconnect",
            "600",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while server.sent.load(std::sync::atomic::Ordering::SeqCst) < n
        && start.elapsed().as_secs() < 60
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_secs(3));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("recorded 2 half-moves"), "{err}");
    let rec = parse_pgn(&std::fs::read_to_string(&pgn).unwrap()).unwrap();
    assert_eq!(rec.moves.len(), 2);
    assert!(!dir.path().join(".live.pgn.lock").exists());
}

/// The first SIGTERM asks a recording to stop, which it can only do once its
/// stalled stream's read returns (up to 5 s); a second SIGTERM meanwhile ends
/// the program at once, killed by that signal, as with no handler.
#[cfg(unix)]
#[test]
fn a_second_sigterm_ends_a_recording_at_once() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tmp();
    let (clip, corners) = game_clip(dir.path(), "stall", &Chess::new(), &["e2e4"], 5);
    let mut jpegs = Vec::new();
    let mut src = capture::open(p(&clip), SourceOptions::default()).unwrap();
    for f in src.by_ref() {
        let mut buf = Vector::<u8>::new();
        opencv::imgcodecs::imencode(".jpg", &f.unwrap().image, &mut buf, &Vector::new()).unwrap();
        jpegs.push(buf.to_vec());
    }
    // The start position while the reader probes the stream, a few frames more,
    // then a stall far longer than the test.
    let probe = 140;
    let stall_at = probe + 10;
    let mut frames = vec![jpegs[0].clone(); probe];
    frames.extend(jpegs);
    let plan = StallPlan {
        stalls: vec![(stall_at, 120.0)],
        total: frames.len(),
        fps: 8.0,
        burst: probe,
    };
    let server = MjpegServer::start(frames, plan).unwrap();
    let pgn = dir.path().join("stall.pgn");
    let mut child = bin()
        .args([
            "record",
            "--input",
            &server.url,
            "--corners",
            &corners,
            "--pgn",
            p(&pgn),
            "--white",
            "bottom",
            "--max-fps",
            "0",
            "--reconnect",
            "600",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while server.sent.load(std::sync::atomic::Ordering::SeqCst) < stall_at
        && start.elapsed().as_secs() < 60
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // The reader is now waiting on the stalled stream.
    std::thread::sleep(std::time::Duration::from_secs(1));
    let pid = child.id() as i32;
    unsafe { libc::kill(pid, libc::SIGTERM) };
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the recording ended before a second signal could be sent"
    );
    let second = std::time::Instant::now();
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status}");
    assert!(
        second.elapsed().as_secs_f64() < 2.0,
        "{:?}",
        second.elapsed()
    );
    // Whatever is on disk is a valid record.
    if let Ok(text) = std::fs::read_to_string(&pgn) {
        parse_pgn(&text).unwrap();
    }
}

#[test]
fn photo_folders_write_no_made_up_move_times() {
    let dir = tmp();
    let game = dir.path().join("g.pgn");
    std::fs::write(&game, "1. e4 e5 2. Nf3 *\n").unwrap();
    let photos = dir.path().join("photos");
    let o = run(&[
        "render",
        "photos",
        "--pgn",
        p(&game),
        "--out",
        p(&photos),
        "--size",
        "480x360",
        "--shake",
        "0",
        "--hands",
        "0",
        "--seed",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let corners = super::util::first_photo_corners(&photos);
    let pgn = dir.path().join("rec.pgn");
    let o = run(&record_args(
        p(&photos),
        p(&pgn),
        &[
            "--corners",
            &corners.join(" "),
            "--white",
            "bottom",
            "--fps",
            "0.1",
        ],
    ));
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(o.status.code(), Some(0), "{}\n{text}", stderr(&o));
    let rec = parse_pgn(&text).unwrap();
    assert_eq!(rec.moves.len(), 3, "{text}");
    // Photos taken ten seconds apart by --fps say nothing of the players' time.
    assert!(!text.contains("%emt"), "{text}");
}

#[test]
fn a_missing_camera_is_one_clear_line() {
    let dir = tmp();
    let o = run(&[
        "record",
        "--input",
        "camera:57",
        "--corners",
        CORNERS,
        "--pgn",
        p(&dir.path().join("g.pgn")),
    ]);
    fails(&o, 1, "camera 57 could not be opened");
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn consistent_flags_keep_their_old_spellings() {
    let dir = tmp();
    for (white, black) in [("--white-pieces", "--black-pieces"), ("--white", "--black")] {
        let out = dir.path().join(white.trim_start_matches('-'));
        let o = run(&[
            "render",
            "images",
            "--count",
            "1",
            "--out",
            p(&out),
            "--size",
            "160x120",
            white,
            "cream",
            black,
            "brown",
            "--hands",
            "0",
        ]);
        assert!(o.status.success(), "{white}: {}", stderr(&o));
    }
    // --size and --width/--height for a clip; both at once is a usage error.
    let game = dir.path().join("g.pgn");
    std::fs::write(&game, "1. e4 *\n").unwrap();
    let clip = dir.path().join("c.avi");
    let o = run(&[
        "render",
        "clip",
        "--pgn",
        p(&game),
        "--out",
        p(&clip),
        "--size",
        "160x120",
        "--still",
        "0.2",
        "--move-time",
        "0.4",
        "--fps",
        "5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let src = capture::open(p(&clip), SourceOptions::default()).unwrap();
    let first = src.into_iter().next().unwrap().unwrap();
    assert_eq!((first.image.cols(), first.image.rows()), (160, 120));
    let o = run(&[
        "render",
        "clip",
        "--pgn",
        p(&game),
        "--out",
        p(&clip),
        "--size",
        "160x120",
        "--width",
        "320",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // locate's annotations: --annotations, and --corners as before.
    for flag in ["--annotations", "--corners"] {
        let o = run(&[
            "locate",
            "--eval-real",
            flag,
            "/nonexistent.json",
            "--data",
            "/nonexistent",
        ]);
        assert!(
            !stderr(&o).contains("unexpected argument"),
            "{flag}: {}",
            stderr(&o)
        );
    }
}
