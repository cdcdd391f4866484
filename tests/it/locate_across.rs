//! Issue 33, item 1: `record` without corners places the grid from many frames of
//! a video's first seconds, says which frames agreed, and draws the grid on the
//! frame it came from; a folder of photos keeps its first photo with a grid.

use std::path::{Path, PathBuf};

use boardscribe_lab::synth::clip::ClipTruth;
use boardscribe_lab::synth::SceneParams;
use boardscribe_vision::geometry::{Corners, GridSpec};
use boardscribe_vision::locate::apart_cells;
use opencv::prelude::*;

use super::clips::{fast_clip, render, small, states_of};
use super::record_chess::{chess_game, fixture, sans_in, true_sans};
use super::util::{p, run, shared_data, stderr};

const GRID: GridSpec = GridSpec::cells(8, 8);

/// The first six plies of castling_en_passant.pgn from a grey overhead scene seen
/// at 45 degrees, where the pieces standing on the outer ranks hide their lines:
/// about half the frames of the first seconds find the ranks' run a rank towards
/// the camera, the other half where it is.
fn oblique_start(dir: &Path) -> (PathBuf, ClipTruth, Vec<String>) {
    let (start, moves) = chess_game(&fixture("castling_en_passant.pgn")).unwrap();
    let states = states_of(&start, &moves[..6]);
    let mut params = small(SceneParams::chess_overhead(1, false));
    params.camera.elevation_deg = 45.0;
    params.camera.azimuth_deg = 7.0;
    let (clip, truth) = render(dir, "game", &params, &states, &fast_clip());
    let (mut want, _) = true_sans("castling_en_passant.pgn");
    want.truncate(6);
    (clip, truth, want)
}

/// The quadrilateral after `--corners "` in `line`.
fn corners_in(line: &str) -> Corners {
    let at = line.find("--corners \"").expect("corners in the line") + 11;
    let text = &line[at..];
    text[..text.find('"').unwrap()].parse().unwrap()
}

/// The line of `log` that starts with `start`.
fn line<'a>(log: &'a str, start: &str) -> &'a str {
    log.lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line '{start}...' in\n{log}"))
}

/// The grid the recording read through: the one found, or where it was moved.
fn grid_used(log: &str) -> Corners {
    let found = line(log, "found the 8x8 grid");
    log.lines()
        .find(|l| l.starts_with("moved the grid"))
        .map_or_else(|| corners_in(found), corners_in)
}

fn truth_corners(truth: &ClipTruth) -> Corners {
    Corners::new(truth.frames[0].corners.map(|[x, y]| (x, y))).unwrap()
}

/// Every frame of a video, decoded as the recorder decodes it.
fn frames_of(video: &Path) -> Vec<opencv::core::Mat> {
    let mut cap = opencv::videoio::VideoCapture::from_file(p(video), opencv::videoio::CAP_ANY)
        .expect("the clip opens");
    let mut frames = Vec::new();
    let mut frame = opencv::core::Mat::default();
    while cap.read(&mut frame).unwrap_or(false) {
        frames.push(frame.clone());
    }
    frames
}

/// The share of pixels `a` and `b` have exactly alike.
fn alike(a: &opencv::core::Mat, b: &opencv::core::Mat) -> f64 {
    let (a, b) = (a.data_bytes().unwrap(), b.data_bytes().unwrap());
    assert_eq!(a.len(), b.len());
    let same = a.chunks(3).zip(b.chunks(3)).filter(|(x, y)| x == y).count();
    same as f64 / (a.len() / 3) as f64
}

#[test]
fn a_clip_whose_frames_disagree_is_located_from_the_frames_that_agree_and_recorded() {
    let dir = super::util::tmp();
    let (clip, truth, want) = oblique_start(dir.path());
    let out = dir.path().join("game.pgn");
    let overlay = dir.path().join("overlay.png");
    let o = run(&[
        "record",
        "--input",
        p(&clip),
        "--pgn",
        p(&out),
        "--overlay",
        p(&overlay),
    ]);
    let log = stderr(&o);
    assert!(o.status.success(), "record failed: {log}");
    assert_eq!(
        sans_in(&std::fs::read_to_string(&out).unwrap()),
        want,
        "{log}"
    );
    // 12 frames a quarter second apart from the first; at least half agree.
    let found = line(&log, "found the 8x8 grid in ");
    let counts: Vec<usize> = found
        .trim_start_matches("found the 8x8 grid in ")
        .split(' ')
        .take(3)
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(counts.len(), 2, "{found}");
    assert_eq!(counts[1], 12, "{found}");
    assert!(2 * counts[0] >= counts[1], "{found}");
    assert!(found.contains("frames from 0.0 s to 2.8 s"), "{found}");
    let used = grid_used(&log);
    let off = apart_cells(GRID, &truth_corners(&truth), &used);
    assert!(off < 0.3, "the grid used is {off:.2} cell off: {log}");
    // The overlay is the frame named, grid drawn: of all frames it is most like
    // that one, and like it away from the lines.
    let at: f64 = found
        .rsplit("the frame at ")
        .next()
        .and_then(|t| t.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no frame named: {found}"));
    let drawn = opencv::imgcodecs::imread(p(&overlay), opencv::imgcodecs::IMREAD_COLOR).unwrap();
    let frames = frames_of(&clip);
    let named = (at * 8.0).round() as usize;
    let likeness: Vec<f64> = frames.iter().map(|f| alike(f, &drawn)).collect();
    let best = (0..frames.len())
        .max_by(|&a, &b| likeness[a].total_cmp(&likeness[b]))
        .unwrap();
    assert_eq!(best, named, "{found}; likeness {likeness:?}");
    assert!(likeness[named] > 0.8, "{likeness:?}");
}

#[test]
fn a_folder_of_photos_is_located_in_its_first_photo_and_moved_back_by_the_start_position() {
    // The clip's frames as photos: the first is one located a rank towards the
    // camera, and nothing else is looked at; the grid is moved back to where that
    // photo reads as the start position.
    let dir = super::util::tmp();
    let (clip, truth, want) = oblique_start(dir.path());
    let photos = dir.path().join("photos");
    std::fs::create_dir(&photos).unwrap();
    for (i, f) in frames_of(&clip).iter().enumerate() {
        let path = photos.join(format!("frame_{i:03}.png"));
        assert!(opencv::imgcodecs::imwrite(p(&path), f, &opencv::core::Vector::new()).unwrap());
    }
    let out = dir.path().join("game.pgn");
    let o = run(&[
        "record",
        "--input",
        p(&photos),
        "--fps",
        "8",
        "--quiet",
        "0.4",
        "--pgn",
        p(&out),
    ]);
    let log = stderr(&o);
    assert!(o.status.success(), "record failed: {log}");
    let found = line(&log, "found the 8x8 grid in ");
    assert!(found.contains("frame_000.png':"), "{found}");
    assert!(apart_cells(GRID, &truth_corners(&truth), &corners_in(found)) > 0.7);
    assert!(
        log.contains("moved the grid -1 rows and 0 columns"),
        "{log}"
    );
    assert!(apart_cells(GRID, &truth_corners(&truth), &grid_used(&log)) < 0.3);
    assert_eq!(
        sans_in(&std::fs::read_to_string(&out).unwrap()),
        want,
        "{log}"
    );
}

/// castle.h264's first located frame has a player's arm over half the board; the
/// grid from the frames of its first seconds is the whole board (as located, one
/// frame at a time, in nearly every frame without the arm).
#[test]
#[ignore = "needs ../shared/data"]
fn a_real_video_with_an_arm_over_the_board_is_located_on_the_whole_board() {
    let video = shared_data("video-chess-overhead").join("castle.h264");
    let dir = super::util::tmp();
    let out = dir.path().join("castle.pgn");
    let o = run(&["record", "--input", p(&video), "--out", p(&out), "--events"]);
    let log = stderr(&o);
    let found = corners_in(line(&log, "found the 8x8 grid in "));
    let whole: Corners = "44.7,23.8 262.5,31.2 254.3,250.0 40.5,241.8"
        .parse()
        .unwrap();
    let off = apart_cells(GRID, &whole, &found);
    assert!(off < 0.3, "{off:.2} cell off: {log}");
}
