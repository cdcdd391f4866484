use boardscribe_lab::sets::locate_eval::{
    corner_error, real_trials, scene_trial, synth_trial, tl_cell_is_light,
};
use boardscribe_lab::sets::rgb_to_bgr_mat;
use boardscribe_lab::synth::{render, BoardState, SceneParams};
use boardscribe_vision::geometry::GridSpec;
use boardscribe_vision::locate::locate;

use super::util::{p, run, shared_data, stdout, tmp};

/// Locates `seeds` random renders of `grid` within `elevation` and returns the
/// worst-corner errors in cells (infinity where nothing was found).
fn errors(grid: &str, seeds: std::ops::Range<u64>, elevation: (f64, f64)) -> Vec<f64> {
    let grid: GridSpec = grid.parse().unwrap();
    seeds
        .map(|s| {
            let (t, _) = synth_trial(grid, s, (1280, 720), elevation).unwrap();
            t.error_cells.unwrap_or(f64::INFINITY)
        })
        .collect()
}

/// Most renders located within a tenth of a cell, and nearly all within a quarter.
fn assert_located(grid: &str, errs: &[f64], min_within_quarter: usize) {
    let within = errs.iter().filter(|&&e| e < 0.25).count();
    assert!(
        within >= min_within_quarter,
        "{grid}: {within} of {} within a quarter cell: {errs:.3?}",
        errs.len()
    );
    let mut sorted: Vec<f64> = errs.to_vec();
    sorted.sort_by(f64::total_cmp);
    assert!(sorted[sorted.len() / 2] < 0.1, "{grid}: median {errs:.3?}");
}

// Seeds below were not used to tune the method (it was tuned on seeds 1-30 and
// 101-120 of --eval-synth); thresholds leave room for the odd hard scene
// (boards whose cells differ only by wood grain, stones hiding most lines).

#[test]
fn locates_chess_boards_from_overhead_to_oblique() {
    let errs = errors("8x8", 500..506, (30.0, 90.0));
    assert_located("8x8", &errs, 5);
}

#[test]
fn locates_nine_by_nine_boards() {
    let errs = errors("9x9", 600..606, (30.0, 90.0));
    assert_located("9x9", &errs, 5);
}

#[test]
fn locates_eighteen_by_eighteen_boards() {
    let errs = errors("18x18", 700..706, (45.0, 90.0));
    assert_located("18x18", &errs, 4);
}

/// Go boards as the real sets show them (the `go_oblique` preset: 22 mm cells, a
/// table around, 40 to 80 degrees). Random scenes with cells of a dozen pixels and
/// sub-pixel lines are measured by `--eval-synth`, not held to here.
#[test]
fn locates_go_boards_on_their_line_crossings() {
    let grid = GridSpec::points(19, 19);
    let errs: Vec<f64> = (800..806)
        .map(|seed| {
            let mut params = SceneParams::go_oblique(seed);
            (params.width, params.height) = (1280, 720);
            let mut rng = boardscribe_lab::synth::Rng::new(seed);
            let (t, _) = scene_trial(grid, &params, &mut rng).unwrap();
            t.error_cells.unwrap_or(f64::INFINITY)
        })
        .collect();
    assert_located("19x19:points", &errs, 5);
}

#[test]
fn tells_the_colour_of_the_top_left_cell() {
    let mut params = SceneParams::chess_overhead(3, false);
    (params.width, params.height) = (640, 480);
    let r = render(&params, &BoardState::empty(8, 8, false), None).unwrap();
    let img = rgb_to_bgr_mat(&r.image).unwrap();
    let found = locate(&img, GridSpec::cells(8, 8)).unwrap();
    let truth = boardscribe_vision::geometry::Corners::new(r.corners.map(|[x, y]| (x, y))).unwrap();
    assert!(corner_error(GridSpec::cells(8, 8), &found.corners, &truth) < 0.25);
    let pose = boardscribe_vision::geometry::BoardPose::new(GridSpec::cells(8, 8), found.corners);
    let light = tl_cell_is_light(&img, &pose).expect("a checkered board");
    // Turning the corners a quarter turn moves TL to a cell of the other colour.
    let turned = boardscribe_vision::geometry::BoardPose::new(
        GridSpec::cells(8, 8),
        found.corners.rotated(1),
    );
    assert_eq!(tl_cell_is_light(&img, &turned), Some(!light));
}

#[test]
fn cli_prints_one_json_record_per_image_and_fails_on_a_plain_image() {
    let dir = tmp();
    let mut params = SceneParams::vinyl_tournament(5);
    (params.width, params.height) = (800, 600);
    let r = render(&params, &BoardState::empty(8, 8, false), None).unwrap();
    let board = dir.path().join("board.png");
    r.image.save(&board).unwrap();
    let grey = dir.path().join("grey.png");
    image::RgbImage::from_pixel(320, 240, image::Rgb([128, 128, 128]))
        .save(&grey)
        .unwrap();
    let overlays = dir.path().join("overlays");
    let o = run(&[
        "locate",
        "--grid",
        "8x8",
        "--json",
        "--overlay",
        p(&overlays),
        p(&board),
        p(&grey),
    ]);
    assert!(!o.status.success(), "a failed image must fail the run");
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{}", stdout(&o));
    assert_eq!(lines[0]["image"], p(&board));
    let corners = lines[0]["corners"].as_array().unwrap();
    assert_eq!(corners.len(), 4);
    let pts: Vec<(f64, f64)> = corners
        .iter()
        .map(|c| (c[0].as_f64().unwrap(), c[1].as_f64().unwrap()))
        .collect();
    let found =
        boardscribe_vision::geometry::Corners::new([pts[0], pts[1], pts[2], pts[3]]).unwrap();
    let truth = boardscribe_vision::geometry::Corners::new(r.corners.map(|[x, y]| (x, y))).unwrap();
    assert!(corner_error(GridSpec::cells(8, 8), &found, &truth) < 0.25);
    let conf = lines[0]["confidence"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&conf));
    assert_eq!(lines[1]["image"], p(&grey));
    assert_eq!(lines[1]["error"], "no 8x8 grid found");
    // Overlays keep the image's own name and extension (issue 22).
    assert!(overlays.join("board.png").is_file());
    assert!(!overlays.join("grey.png").exists());

    let o = run(&["locate", "--grid", "8x8", p(&board)]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("--corners \""), "{}", stdout(&o));
}

#[test]
#[ignore = "needs ../shared/data"]
fn locates_the_annotated_real_photos() {
    let data = shared_data("");
    let corners =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real_corners.json");
    for (set, min_share) in [("chess-ray-vision", 0.9), ("imago-go", 0.9)] {
        shared_data(set);
        let trials = real_trials(&data, &corners, set, |_, _| {}).unwrap();
        let within = trials
            .iter()
            .filter(|t| t.error_cells.is_some_and(|e| e < 0.25))
            .count();
        let share = within as f64 / trials.len() as f64;
        assert!(
            share >= min_share,
            "{set}: {within} of {} within a quarter cell",
            trials.len()
        );
    }
}

#[test]
fn calibrate_board_writes_a_profile_that_detect_uses() {
    let dir = tmp();
    let mut params = SceneParams::tablut(8);
    (params.width, params.height) = (800, 600);
    let r = render(&params, &BoardState::empty(9, 9, false), None).unwrap();
    let photo = dir.path().join("board.png");
    r.image.save(&photo).unwrap();
    let profile = dir.path().join("boards/club.toml");
    let o = run(&[
        "calibrate",
        "board",
        p(&photo),
        "--grid",
        "9x9",
        "--white",
        "bottom",
        "--out",
        p(&profile),
    ]);
    assert!(o.status.success(), "{}", crate::util::stderr(&o));
    assert!(dir.path().join("boards/club.overlay.png").is_file());
    let prof = boardscribe_vision::geometry::BoardProfile::load(&profile).unwrap();
    let truth = boardscribe_vision::geometry::Corners::new(r.corners.map(|[x, y]| (x, y))).unwrap();
    assert!(corner_error(GridSpec::cells(9, 9), &prof.corners, &truth) < 0.25);
    assert_eq!(prof.white.as_deref(), Some("bottom"));
    let o = run(&["detect", "--profile", p(&profile), "--json", p(&photo)]);
    assert!(o.status.success(), "{}", crate::util::stderr(&o));
    let j: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(j["rows"], 9);
    // An empty board reads empty everywhere.
    let cells = j["cells"].as_array().unwrap();
    assert!(cells
        .iter()
        .flat_map(|r| r.as_array().unwrap())
        .all(|c| c == "."));
    // Without a board in the picture there is nothing to write.
    let grey = dir.path().join("grey.png");
    image::RgbImage::from_pixel(320, 240, image::Rgb([128, 128, 128]))
        .save(&grey)
        .unwrap();
    let o = run(&[
        "calibrate",
        "board",
        p(&grey),
        "--grid",
        "9x9",
        "--out",
        p(&dir.path().join("x.toml")),
    ]);
    crate::util::assert_fails_with(&o, "grey.png");
}

/// The start of a chess game at 45 degrees: the pieces hide the outer ranks' lines,
/// and a run of nine row lines at half the ranks' pitch fits the visible ones as
/// well as the true run (found 2.45 cells off before its cells' alternation was
/// checked across both families).
#[test]
fn a_start_position_is_not_taken_at_half_its_ranks_pitch() {
    use boardscribe_core::infer::WhiteSide;
    use boardscribe_core::rules::chess::Chess;
    use boardscribe_vision::geometry::Corners;
    let grid: GridSpec = "8x8".parse().unwrap();
    let state = boardscribe_lab::sets::board_state(&Chess::new(), WhiteSide::Bottom);
    let mut params = SceneParams::chess_overhead(21, false);
    (params.width, params.height) = (480, 360);
    (params.camera.elevation_deg, params.camera.azimuth_deg) = (45.0, 0.0);
    let r = render(&params, &state, None).unwrap();
    let truth = Corners::new(r.corners.map(|[x, y]| (x, y))).unwrap();
    let found = locate(&rgb_to_bgr_mat(&r.image).unwrap(), grid).expect("a grid");
    let err = corner_error(grid, &found.corners, &truth);
    assert!(err < 0.25, "{err:.3} cells off");
}

/// go-roboflow's 90 board photos against the corners on their crossings
/// (tests/data/go_roboflow_crossings.json, checked by eye): issue 30 asks for 95%
/// within 0.3 cell, on all of them and on the held-out third (photos whose
/// number is a multiple of 3), and a board found a line off is worse than none.
#[test]
#[ignore = "needs ../shared/data"]
fn locates_go_roboflow_boards_on_their_crossings() {
    use boardscribe_vision::geometry::Corners;
    use opencv::imgcodecs;
    let dir = shared_data("go-roboflow/boards");
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/go_roboflow_crossings.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let grid: GridSpec = "19x19:points".parse().unwrap();
    let (mut all, mut held) = (Vec::new(), Vec::new());
    for (name, c) in truth["corners"].as_object().unwrap() {
        let pt = |i: usize| (c[i][0].as_f64().unwrap(), c[i][1].as_f64().unwrap());
        let want = Corners::new([pt(0), pt(1), pt(2), pt(3)]).unwrap();
        let path = dir.join(name);
        let img = imgcodecs::imread(p(&path), imgcodecs::IMREAD_COLOR).unwrap();
        let err = locate(&img, grid)
            .map(|l| corner_error(grid, &l.corners, &want))
            .unwrap_or(f64::INFINITY);
        let number: u32 = name.split('_').next().unwrap().parse().unwrap();
        if number.is_multiple_of(3) {
            held.push(err);
        }
        all.push((name.clone(), err));
    }
    assert_eq!(all.len(), 90);
    let within = |e: &[f64]| e.iter().filter(|&&x| x <= 0.3).count();
    let errs: Vec<f64> = all.iter().map(|a| a.1).collect();
    let report: Vec<String> = all
        .iter()
        .filter(|a| a.1 > 0.3)
        .map(|(n, e)| format!("{} {e:.2}", n.split("_jpg").next().unwrap_or(n)))
        .collect();
    assert!(
        within(&errs) * 100 >= 95 * errs.len(),
        "within 0.3 cell: {} of 90; worse: {report:?}",
        within(&errs)
    );
    assert!(
        within(&held) * 100 >= 95 * held.len(),
        "held-out third: {} of {}",
        within(&held),
        held.len()
    );
    assert!(
        errs.iter().all(|&e| e < 1.0 || e.is_infinite()),
        "a board found a line or more off: {report:?}"
    );
}
