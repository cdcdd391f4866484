use boardscribe_vision::geometry::{perspective_test_card, BoardPose, GridSpec};

use super::util::{assert_fails_with, p, run, stderr, stdout, tmp};

/// A perspective view of a known 8x8 board, as a camera would see it.
fn camera_view(path: &std::path::Path) {
    let pose = BoardPose::new(
        GridSpec::cells(8, 8),
        "152,88 508,112 574,430 84,402".parse().unwrap(),
    );
    let img = perspective_test_card(&pose, (640, 480)).unwrap();
    assert!(opencv::imgcodecs::imwrite(path, &img, &opencv::core::Vector::new()).unwrap());
}

#[test]
fn rectify_writes_the_board_and_the_overlay() {
    let dir = tmp();
    let view = dir.path().join("camera-view.png");
    camera_view(&view);
    let (top, overlay) = (dir.path().join("top.png"), dir.path().join("ov.jpg"));
    let o = run(&[
        "rectify",
        "--grid",
        "8x8",
        "--corners",
        "152,88 508,112 574,430 84,402",
        p(&view),
        "-o",
        p(&top),
        "--overlay",
        p(&overlay),
        "--cell-px",
        "32",
    ]);
    assert!(o.status.success(), "{}", super::util::stderr(&o));
    assert!(stdout(&o).contains("top.png"));
    let img = image::open(&top).unwrap();
    // 8 cells of 32 px plus half a cell of margin each side.
    assert_eq!((img.width(), img.height()), (288, 288));
    assert!(image::open(&overlay).unwrap().width() == 640);
}

#[test]
fn rectify_takes_a_board_profile() {
    let dir = tmp();
    camera_view(&dir.path().join("camera-view.png"));
    let profile = dir.path().join("board.toml");
    std::fs::write(
        &profile,
        "grid = \"8x8\"\ncorners = [[152, 88], [508, 112], [574, 430], [84, 402]]\n",
    )
    .unwrap();
    let out = dir.path().join("top.png");
    let o = run(&[
        "rectify",
        "--profile",
        p(&profile),
        p(&dir.path().join("camera-view.png")),
        "-o",
        p(&out),
    ]);
    assert!(o.status.success(), "{}", super::util::stderr(&o));
    assert!(out.exists());
}

#[test]
fn rectify_errors_name_the_bad_input() {
    let dir = tmp();
    let view = dir.path().join("camera-view.png");
    camera_view(&view);
    let out = dir.path().join("x.png");
    let corners = "152,88 508,112 574,430 84,402";
    // Flag values that are malformed are usage errors (exit status 2, as clap's
    // own); a file that cannot be used is an error (1).
    let cases: Vec<(Vec<&str>, &str, i32)> = vec![
        (
            vec!["--grid", "8x8", "--corners", "0,0 0,100 100,100 100,0"],
            "anticlockwise",
            2,
        ),
        (
            vec!["--grid", "8x8", "--corners", "0,0 100,100 100,0 0,100"],
            "not convex",
            2,
        ),
        (
            vec!["--grid", "8x8", "--corners", "1,2 3,4"],
            "four points",
            2,
        ),
        (vec!["--grid", "8by8", "--corners", corners], "'8by8'", 2),
        (vec!["--grid", "30x30", "--corners", corners], "'30x30'", 2),
        (vec!["--corners", corners], "no grid", 2),
        (
            vec!["--profile", "/nonexistent/board.toml"],
            "/nonexistent/board.toml",
            1,
        ),
    ];
    for (flags, needle, code) in cases {
        let mut args = vec!["rectify"];
        args.extend(flags);
        args.extend([p(&view), "-o", p(&out)]);
        let o = run(&args);
        if code == 1 {
            assert_fails_with(&o, needle);
        } else {
            let err = super::util::stderr(&o);
            assert_eq!(o.status.code(), Some(code), "{needle}: {err}");
            assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
        }
    }
    // Without corners the board is located; a picture with no board names itself.
    let grey = dir.path().join("grey.png");
    image::RgbImage::from_pixel(320, 240, image::Rgb([128, 128, 128]))
        .save(&grey)
        .unwrap();
    let o = run(&["rectify", "--grid", "8x8", p(&grey), "-o", p(&out)]);
    assert_fails_with(&o, "grey.png");
    assert!(super::util::stderr(&o).contains("no --corners given"));
    let o = run(&["rectify", "--grid", "8x8", p(&view), "-o", p(&out)]);
    assert!(o.status.success(), "{}", super::util::stderr(&o));
    let missing = dir.path().join("missing.png");
    assert_fails_with(
        &run(&[
            "rectify",
            "--grid",
            "8x8",
            "--corners",
            corners,
            p(&missing),
            "-o",
            p(&out),
        ]),
        "missing.png",
    );
    let corrupt = dir.path().join("corrupt.png");
    std::fs::write(&corrupt, b"garbage").unwrap();
    assert_fails_with(
        &run(&[
            "rectify",
            "--grid",
            "8x8",
            "--corners",
            corners,
            p(&corrupt),
            "-o",
            p(&out),
        ]),
        "corrupt.png",
    );
}

/// `render images` honours the grid, size, style and pose it is given: every
/// image has the asked size, every label the asked grid, Tablut pieces on 9x9.
#[test]
fn render_images_takes_grid_size_style_and_pose() {
    let dir = tmp();
    let out = dir.path().join("imgs");
    let o = run(&[
        "render",
        "images",
        "--count",
        "3",
        "--out",
        p(&out),
        "--grid",
        "9x9",
        "--size",
        "320x240",
        "--elevation",
        "40,50",
        "--board",
        "black-white",
        "--white",
        "cream",
        "--black",
        "brown",
        "--hands",
        "0",
    ]);
    assert!(o.status.success(), "{}", super::util::stderr(&o));
    for i in 0..3 {
        let stem = out.join(format!("render_{i:05}"));
        let img = image::open(stem.with_extension("png")).unwrap();
        assert_eq!((img.width(), img.height()), (320, 240));
        let label: serde_json::Value =
            serde_json::from_slice(&std::fs::read(stem.with_extension("json")).unwrap()).unwrap();
        assert_eq!(label["grid"], "9x9");
        assert_eq!(label["hand"], false);
        let kinds: Vec<&str> = label["kinds"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r.as_array().unwrap().iter().map(|k| k.as_str().unwrap()))
            .filter(|k| !k.is_empty())
            .collect();
        assert!(!kinds.is_empty());
        assert!(
            kinds.iter().all(|k| *k == "soldier" || *k == "tablut_king"),
            "{kinds:?}"
        );
    }
    // Usage errors exit as clap's do (2), naming the bad value.
    for (flag, value, needle) in [
        ("--elevation", "60,30", "MIN must not exceed MAX"),
        ("--grid", "8by8", "8by8"),
    ] {
        let bad = run(&[
            "render",
            "images",
            "--count",
            "1",
            "--out",
            p(&out),
            flag,
            value,
        ]);
        assert!(!bad.status.success());
        assert!(super::util::stderr(&bad).contains(needle), "{flag} {value}");
    }
}

#[test]
fn a_malformed_grid_is_a_usage_error_for_every_command_that_takes_one() {
    // Checked as the command line is read (exit 2, naming the value), before
    // any file is looked at: locate and calibrate board used to say so only
    // after reading their inputs, with exit 1.
    for args in [
        vec![
            "record", "--input", "nowhere", "--out", "x.pgn", "--grid", "8by8",
        ],
        vec!["locate", "--grid", "8by8", "nowhere.png"],
        vec!["locate", "--grid", "8x8,8by8", "nowhere.png"],
        vec!["rectify", "--grid", "8by8", "nowhere.png"],
        vec![
            "calibrate",
            "board",
            "nowhere.png",
            "--grid",
            "8by8",
            "--out",
            "x.toml",
        ],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(super::util::stderr(&o).contains("8by8"), "{args:?}");
    }
}

/// Boards of cells are read with models/occupancy.onnx, Go's crossings with
/// models/occupancy-points.onnx (each looked for in the current folder first):
/// with a broken points model beside a good one, a chess grid reads and a Go
/// grid fails naming the points model; `--model` reads both with one file.
#[test]
fn go_boards_are_read_with_the_points_model() {
    let dir = tmp();
    let models = dir.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("models/occupancy.onnx"),
        models.join("occupancy.onnx"),
    )
    .unwrap();
    std::fs::write(models.join("occupancy-points.onnx"), b"not a model").unwrap();
    let photo = dir.path().join("board.png");
    image::RgbImage::from_pixel(320, 320, image::Rgb([150, 120, 90]))
        .save(&photo)
        .unwrap();
    let corners = "20,20 300,20 300,300 20,300";
    let detect = |grid: &str, model: Option<&str>| {
        let mut args = vec!["detect", "--grid", grid, "--corners", corners, p(&photo)];
        if let Some(m) = model {
            args.extend(["--model", m]);
        }
        super::util::bin()
            .args(&args)
            .current_dir(dir.path())
            .output()
            .expect("boardscribe runs")
    };
    let chess = detect("8x8", None);
    assert!(chess.status.success(), "{}", stderr(&chess));
    assert_fails_with(&detect("19x19:points", None), "occupancy-points.onnx");
    let good = models.join("occupancy.onnx");
    let go = detect("19x19:points", Some(p(&good)));
    assert!(go.status.success(), "{}", stderr(&go));
}
