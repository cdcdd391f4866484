//! Issue 8: lens calibration. A round trip on renders made with known lens distortion
//! recovers it, and `--camera` straightens what the lens bent.

use std::path::Path;

use boardscribe_lab::synth::{BoardState, Scene, SceneParams, SquareScheme, TableKind};
use boardscribe_vision::geometry::{find_checkerboard, CameraProfile, CheckerPattern};

use super::util::{assert_fails_with, p, run, stderr, stdout, tmp};

/// The lens of every render here: 640x480, 30 mm equivalent, barrel distortion.
const W: u32 = 640;
const H: u32 = 480;
const FOCAL_35MM: f64 = 30.0;
const K1: f64 = -0.15;
const K2: f64 = 0.02;

fn true_fx() -> f64 {
    FOCAL_35MM / 36.0 * W as f64
}

/// A printed checkerboard of 10x7 squares (9x6 inner corners, 25 mm) lying on a white
/// table, seen from elevation `el` and azimuth `az` (degrees).
fn checkerboard(seed: u64, el: f64, az: f64, roll: f64, fill: f64, off: [f64; 2]) -> SceneParams {
    let mut s = SceneParams::new(7, 10, false, seed);
    (s.width, s.height) = (W, H);
    s.board.scheme = SquareScheme::BlackWhite;
    s.board.checkered = true;
    s.board.cell_size_m = 0.025;
    // No frame: the outer squares meet the white table, as on a printed sheet.
    s.board.border_m = 0.0;
    s.board.thickness_m = 0.0005;
    s.table.kind = TableKind::Plain;
    s.table.color = [236, 236, 232];
    s.table.clutter = 0;
    s.lighting.specular = 0.0;
    s.realism.noise = 1.0;
    s.realism.jpeg_quality = 0;
    s.realism.vignette = 0.1;
    let c = &mut s.camera;
    (c.elevation_deg, c.azimuth_deg, c.roll_deg) = (el, az, roll);
    (c.fill, c.target_offset) = (fill, off);
    (c.focal_35mm, c.k1, c.k2, c.shake) = (FOCAL_35MM, K1, K2, 0.0);
    s
}

/// Renders drawn this many times larger and shrunk: the renderer bakes the board at
/// about one texel per pixel with hard square edges, which leaves every printed line up
/// to half a pixel off (measured: inner corners found up to 0.7 px from their true
/// projection at 1x, 0.25 px at 3x).
fn supersample() -> u32 {
    std::env::var("BOARDSCRIBE_TEST_SS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
}

/// Renders a scene; returns the corners the renderer reports (distortion included).
fn render_to(params: &SceneParams, path: &Path) -> [[f64; 2]; 4] {
    let ss = supersample();
    let mut big = params.clone();
    (big.width, big.height) = (params.width * ss, params.height * ss);
    let state = BoardState::empty(params.rows, params.cols, false);
    let r = Scene::new(&big).unwrap().render(&state, None).unwrap();
    let small = image::imageops::resize(
        &r.image,
        params.width,
        params.height,
        image::imageops::FilterType::Triangle,
    );
    small.save(path).unwrap();
    // Pixel centres: big pixel x is small pixel (x + 0.5) / ss - 0.5.
    r.corners.map(|c| c.map(|v| (v + 0.5) / ss as f64 - 0.5))
}

/// The camera poses of the calibration photos (elevation, azimuth, roll, fill, aim
/// offset): four overhead to oblique views of the middle, then two views that bring the
/// pattern close to each corner of the frame (chosen by projecting many random poses),
/// since the corners are where distortion is strongest and k1 and k2 part ways.
const POSES: [(f64, f64, f64, f64, [f64; 2]); 12] = [
    (90.0, 0.0, 0.0, 0.85, [0.0, 0.0]),
    (55.0, 30.0, -5.0, 0.8, [-0.1, 0.1]),
    (65.0, 90.0, 0.0, 0.9, [0.0, 0.1]),
    (50.0, 160.0, -8.0, 0.8, [0.1, 0.0]),
    (49.0, 227.0, 24.0, 1.32, [-0.36, 0.25]),
    (49.0, 48.0, 21.0, 1.33, [0.27, -0.18]),
    (58.0, 123.0, -18.0, 1.33, [0.26, 0.38]),
    (41.0, 158.0, -25.0, 1.34, [0.44, -0.24]),
    (66.0, 168.0, 18.0, 1.3, [0.44, 0.34]),
    (82.0, 199.0, -14.0, 1.27, [0.41, 0.34]),
    (73.0, 198.0, -23.0, 1.34, [-0.41, 0.32]),
    (80.0, 169.0, 8.0, 1.3, [-0.36, 0.36]),
];

#[test]
fn calibration_round_trip_recovers_the_lens() {
    let dir = tmp();
    let photos = dir.path().join("photos");
    std::fs::create_dir(&photos).unwrap();
    // Two threads: renders are single-threaded and the slowest part of this test.
    std::thread::scope(|s| {
        for half in [0, 1] {
            let photos = &photos;
            s.spawn(move || {
                for (i, &(el, az, roll, fill, off)) in POSES.iter().enumerate() {
                    if i % 2 == half {
                        let params = checkerboard(100 + i as u64, el, az, roll, fill, off);
                        render_to(&params, &photos.join(format!("view-{i}.png")));
                    }
                }
            });
        }
    });
    let out = dir.path().join("cameras/test.toml");
    let o = run(&[
        "calibrate",
        "camera",
        "--images",
        p(&photos),
        "--pattern",
        "9x6",
        "--square-mm",
        "25",
        "--out",
        p(&out),
    ]);
    assert!(o.status.success(), "calibrate failed: {}", stderr(&o));
    let found = stderr(&o).matches(": found").count();
    let prof = CameraProfile::load(&out).unwrap();
    let rms = prof.rms_px.unwrap();
    eprintln!(
        "{found} of {} views found; true k1 {K1} k2 {K2} fx {:.2} cx {:.1} cy {:.1}; \
         recovered k1 {:.4} k2 {:.4} p1 {:.5} p2 {:.5} fx {:.2} fy {:.2} cx {:.2} cy {:.2}; RMS {rms:.3} px",
        POSES.len(),
        true_fx(),
        W as f64 / 2.0 - 0.5,
        H as f64 / 2.0 - 0.5,
        prof.k1,
        prof.k2,
        prof.p1,
        prof.p2,
        prof.fx,
        prof.fy,
        prof.cx,
        prof.cy
    );
    eprintln!("{}{}", stdout(&o), std::fs::read_to_string(&out).unwrap());
    // Measured (3x supersampling): all 12 found; k1 -0.1471, k2 0.0150, fx 533.35,
    // fy 533.37, cx 319.81, cy 239.23, RMS 0.109 px.
    assert!(found >= 10, "the pattern was found in only {found} views");
    assert_eq!(prof.size, [W, H]);
    assert_eq!(prof.images, Some(found as u32));
    assert!(rms < 0.3, "RMS {rms}");
    assert!((prof.k1 - K1).abs() < 0.01, "k1 {} vs {K1}", prof.k1);
    assert!((prof.k2 - K2).abs() < 0.03, "k2 {} vs {K2}", prof.k2);
    for f in [prof.fx, prof.fy] {
        assert!(
            (f / true_fx() - 1.0).abs() < 0.005,
            "focal {f} vs {}",
            true_fx()
        );
    }
    assert!(
        (prof.cx - (W as f64 / 2.0 - 0.5)).abs() < 2.0,
        "cx {}",
        prof.cx
    );
    assert!(
        (prof.cy - (H as f64 / 2.0 - 0.5)).abs() < 2.0,
        "cy {}",
        prof.cy
    );
    assert!(prof.p1.abs() < 0.002 && prof.p2.abs() < 0.002);
}

/// Where a distorted pixel lies in the undistorted image of the true lens.
fn undistort_point([u, v]: [f64; 2]) -> [f64; 2] {
    let (f, cx, cy) = (true_fx(), W as f64 / 2.0 - 0.5, H as f64 / 2.0 - 0.5);
    let (xd, yd) = ((u - cx) / f, (v - cy) / f);
    let (mut x, mut y) = (xd, yd);
    for _ in 0..30 {
        let r2 = x * x + y * y;
        let s = 1.0 + K1 * r2 + K2 * r2 * r2;
        (x, y) = (xd / s, yd / s);
    }
    [cx + f * x, cy + f * y]
}

fn corners_arg(c: &[[f64; 2]; 4]) -> String {
    c.iter()
        .map(|[x, y]| format!("{x:.2},{y:.2}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Largest distance, in rectified pixels, from an inner corner of the checkerboard
/// found in the top-down image to the nearest lattice crossing of the grid drawn there.
fn worst_lattice_error(top: &Path, cell: f64, margin: f64) -> f64 {
    let img = boardscribe_vision::capture::read_image(top).unwrap();
    let found = find_checkerboard(&img, CheckerPattern { cols: 9, rows: 6 })
        .unwrap()
        .expect("the checkerboard in the rectified image");
    let mut worst: f64 = 0.0;
    for pt in found.iter() {
        let (x, y) = (pt.x as f64, pt.y as f64);
        let lx = ((x / cell - margin).round() + margin) * cell;
        let ly = ((y / cell - margin).round() + margin) * cell;
        worst = worst.max(((x - lx).powi(2) + (y - ly).powi(2)).sqrt());
    }
    worst
}

#[test]
fn camera_profile_straightens_the_board_before_rectification() {
    let dir = tmp();
    let view = dir.path().join("view.png");
    // Oblique and off centre, so the edges run through strongly distorted parts.
    let params = checkerboard(7, 58.0, 25.0, 4.0, 0.92, [0.12, 0.1]);
    let bent = render_to(&params, &view);
    let cam = dir.path().join("lens.toml");
    let profile = format!(
        "size = [{W}, {H}]\nfx = {f}\nfy = {f}\ncx = {cx}\ncy = {cy}\nk1 = {K1}\nk2 = {K2}\n",
        f = true_fx(),
        cx = W as f64 / 2.0 - 0.5,
        cy = H as f64 / 2.0 - 0.5
    );
    std::fs::write(&cam, profile).unwrap();
    let straight = bent.map(undistort_point);
    let (cell, margin) = (48.0, 0.5);
    let rectify = |extra: &[&str], corners: &str, out: &Path| {
        let mut args = vec!["rectify", "--grid", "7x10", "--corners", corners];
        args.extend_from_slice(extra);
        args.extend([p(&view), "-o", p(out), "--cell-px", "48", "--no-grid"]);
        let o = run(&args);
        assert!(o.status.success(), "rectify failed: {}", stderr(&o));
        worst_lattice_error(out, cell, margin)
    };
    let raw = rectify(&[], &corners_arg(&bent), &dir.path().join("raw.png"));
    let fixed = rectify(
        &["--camera", p(&cam)],
        &corners_arg(&straight),
        &dir.path().join("fixed.png"),
    );
    eprintln!("worst inner-corner error off the lattice: raw {raw:.2} px, undistorted {fixed:.2} px (cells of 48 px)");
    assert!(fixed < 1.0, "undistorted: {fixed:.2} px");
    assert!(
        raw > 3.0 * fixed && raw > 2.0,
        "raw {raw:.2} px vs {fixed:.2} px"
    );

    // A board profile naming the camera profile (relative to its own folder) does the same.
    let board = dir.path().join("board.toml");
    let pts: Vec<String> = straight
        .iter()
        .map(|[x, y]| format!("[{x:.2}, {y:.2}]"))
        .collect();
    std::fs::write(
        &board,
        format!(
            "grid = \"7x10\"\ncorners = [{}]\ncamera = \"lens.toml\"\n",
            pts.join(", ")
        ),
    )
    .unwrap();
    let out = dir.path().join("profiled.png");
    let o = run(&[
        "rectify",
        "--profile",
        p(&board),
        p(&view),
        "-o",
        p(&out),
        "--cell-px",
        "48",
        "--no-grid",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let via_profile = worst_lattice_error(&out, cell, margin);
    assert!(
        (via_profile - fixed).abs() < 1e-6,
        "{via_profile} vs {fixed}"
    );
}

#[test]
fn calibrate_and_camera_errors_name_the_bad_input() {
    let dir = tmp();
    let missing = dir.path().join("no-such-folder");
    let calib = |images: &Path, pattern: &str| {
        run(&[
            "calibrate",
            "camera",
            "--images",
            p(images),
            "--pattern",
            pattern,
            "--out",
            p(&dir.path().join("out.toml")),
        ])
    };
    assert_fails_with(&calib(&missing, "9x6"), "does not exist");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_fails_with(&calib(&empty, "9x6"), "holds no photos");
    assert_fails_with(&calib(&empty, "9by6"), "'9by6'");
    assert_fails_with(&calib(&empty, "1x6"), "'1x6'");
    // Photos without the pattern: too few views, and the message says how many.
    let blank = dir.path().join("blank");
    std::fs::create_dir(&blank).unwrap();
    for i in 0..3 {
        image::RgbImage::from_pixel(160, 120, image::Rgb([200, 200, 200]))
            .save(blank.join(format!("b{i}.png")))
            .unwrap();
    }
    assert_fails_with(&calib(&blank, "9x6"), "found in 0 of 3 photos");
    assert!(!dir.path().join("out.toml").exists());

    // --camera: a missing profile, a broken one, a frame of another shape.
    let view = blank.join("b0.png");
    let rectify = |camera: &Path| {
        run(&[
            "rectify",
            "--grid",
            "8x8",
            "--corners",
            "10,10 150,10 150,110 10,110",
            "--camera",
            p(camera),
            p(&view),
            "-o",
            p(&dir.path().join("top.png")),
        ])
    };
    assert_fails_with(&rectify(&dir.path().join("none.toml")), "none.toml");
    let broken = dir.path().join("broken.toml");
    std::fs::write(&broken, "size = [640, 480]\nfx = 500\n").unwrap();
    assert_fails_with(&rectify(&broken), "broken.toml");
    let wide = dir.path().join("wide.toml");
    std::fs::write(
        &wide,
        "size = [1280, 720]\nfx = 900\nfy = 900\ncx = 640\ncy = 360\nk1 = -0.1\nk2 = 0\n",
    )
    .unwrap();
    let o = rectify(&wide);
    assert_fails_with(&o, "wide.toml");
    assert_fails_with(&o, "160x120");

    // detect and record take the same flag; record undistorts every frame of its source.
    let corners = "10,10 150,10 150,110 10,110";
    let o = run(&[
        "detect",
        "--grid",
        "8x8",
        "--corners",
        corners,
        "--camera",
        p(&wide),
        p(&view),
    ]);
    assert_fails_with(&o, "160x120");
    let record = |camera: &Path| {
        run(&[
            "record",
            "--input",
            p(&blank),
            "--grid",
            "8x8",
            "--corners",
            corners,
            "--white",
            "bottom",
            "--camera",
            p(camera),
            "--pgn",
            p(&dir.path().join("game.pgn")),
        ])
    };
    let o = record(&wide);
    assert_fails_with(&o, "undistorting frame 0");
    assert_fails_with(&o, "wide.toml");
    // A profile of the same aspect ratio is scaled to the 160x120 photos.
    let vga = dir.path().join("vga.toml");
    std::fs::write(
        &vga,
        "size = [640, 480]\nfx = 520\nfy = 520\ncx = 319.5\ncy = 239.5\nk1 = -0.1\nk2 = 0\n",
    )
    .unwrap();
    let o = record(&vga);
    // Recorded (a blank board: no move, which exits 3 since issue 22).
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("from 3 frames"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no move was recorded"),
        "{}",
        stderr(&o)
    );
}
