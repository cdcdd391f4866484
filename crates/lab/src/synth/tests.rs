//! Ground-truth checks: determinism, labels against the object-id buffer,
//! corners against pixels, hand occlusion, input errors.

use super::scene::{OBJ_BOARD, OBJ_HAND, OBJ_PIECE};
use super::*;

fn chess_start() -> BoardState {
    use PieceKind::*;
    let mut s = BoardState::empty(8, 8, false);
    let back = [Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook];
    for (c, &k) in back.iter().enumerate() {
        s.set(0, c, Some(Piece::new(PieceSide::Black, k)));
        s.set(1, c, Some(Piece::new(PieceSide::Black, Pawn)));
        s.set(6, c, Some(Piece::new(PieceSide::White, Pawn)));
        s.set(7, c, Some(Piece::new(PieceSide::White, k)));
    }
    s
}

fn small(mut p: SceneParams) -> SceneParams {
    p.width = 320;
    p.height = 240;
    p
}

fn scatter(rows: usize, cols: usize, points: bool, kind: PieceKind, seed: u64) -> BoardState {
    let mut s = BoardState::empty(rows, cols, points);
    let mut r = Rng::new(seed);
    for i in 0..rows * cols {
        if r.chance(0.3) {
            let side = if r.chance(0.5) {
                PieceSide::White
            } else {
                PieceSide::Black
            };
            s.cells[i] = Some(Piece::new(side, kind));
        }
    }
    s
}

fn id_at(ids: &[u32], cam: &camera::Camera, p: math::V3) -> u32 {
    let [x, y] = cam.project_canvas(p).expect("in front of the camera");
    let (x, y) = (x.round() as usize, y.round() as usize);
    assert!(
        x < cam.canvas_w && y < cam.canvas_h,
        "cell centre off the canvas"
    );
    ids[y * cam.canvas_w + x]
}

#[test]
fn same_seed_same_bytes() {
    let p = small(SceneParams::chess_overhead(5, false));
    let s = chess_start();
    let a = render(&p, &s, None).unwrap();
    let b = render(&p, &s, None).unwrap();
    assert_eq!(a.image.as_raw(), b.image.as_raw());
    assert_eq!(a.corners, b.corners);
    let mut q = p.clone();
    q.seed = 6;
    let c = render(&q, &s, None).unwrap();
    assert_ne!(a.image.as_raw(), c.image.as_raw());
    // Random scenes are reproducible too.
    let pr = SceneParams::random(9, 9, false, &mut Rng::new(3), &RandomRanges::default());
    assert_eq!(
        pr,
        SceneParams::random(9, 9, false, &mut Rng::new(3), &RandomRanges::default())
    );
}

#[test]
fn frames_do_not_depend_on_earlier_frames() {
    // The still-camera cache must give the bytes a fresh scene gives.
    for shake in [0.0, 1.0] {
        let mut p = small(SceneParams::chess_overhead(8, true));
        p.camera.shake = shake;
        let a = chess_start();
        let mut b = a.clone();
        b.set(6, 4, None);
        b.set(4, 4, Some(Piece::new(PieceSide::White, PieceKind::Pawn)));
        let scene = Scene::new(&p).unwrap();
        let hand = scene.hand_pose((4, 4), 30.0, 0.45, None);
        scene.render_frame(&a, Some(&hand), 3).unwrap();
        let warm = scene.render_frame(&b, None, 4).unwrap();
        let cold = Scene::new(&p).unwrap().render_frame(&b, None, 4).unwrap();
        assert_eq!(warm.image.as_raw(), cold.image.as_raw(), "shake {shake}");
    }
}

/// Every occupied cell's centre shows its own piece; every empty one shows
/// the board.
fn check_labels(p: &SceneParams, s: &BoardState) {
    let scene = Scene::new(p).unwrap();
    let (_, ids, cam) = scene
        .render_full(s, None, 0, true, &mut super::Stages::off())
        .unwrap();
    for r in 0..s.rows {
        for c in 0..s.cols {
            let want = match s.get(r, c) {
                Some(_) => OBJ_PIECE + (r * s.cols + c) as u32,
                None => OBJ_BOARD,
            };
            let got = id_at(&ids, &cam, scene.geom().centre(r, c));
            assert_eq!(got, want, "cell {r},{c} of {}", s.grid_spec());
        }
    }
}

#[test]
fn labels_agree_with_pixels() {
    let mut p = small(SceneParams::chess_overhead(1, true));
    p.camera.elevation_deg = 90.0;
    check_labels(&p, &chess_start());
    let mut d = small(SceneParams::new(10, 10, false, 2));
    d.camera.elevation_deg = 40.0;
    d.camera.azimuth_deg = 30.0;
    check_labels(&d, &scatter(10, 10, false, PieceKind::Man, 4));
    let g = small(SceneParams::go_oblique(3));
    check_labels(&g, &scatter(19, 19, true, PieceKind::Stone, 5));
    let m = small(SceneParams::magnetic_travel(4));
    let mut ms = chess_start();
    ms.set(3, 3, Some(Piece::new(PieceSide::White, PieceKind::Queen)));
    let mut mp = m.clone();
    mp.camera.elevation_deg = 90.0;
    check_labels(&mp, &ms);
}

/// Brightness at a pixel of an 8-bit image (nearest).
fn luma(img: &image::RgbImage, x: f64, y: f64) -> f64 {
    let px = img.get_pixel(x.round() as u32, y.round() as u32);
    (px[0] as f64 + px[1] as f64 + px[2] as f64) / 3.0
}

#[test]
fn corners_match_pixels_and_orientation() {
    for (k1, az) in [(0.0, 0.0), (-0.12, 0.0), (0.0, 137.0), (-0.08, 250.0)] {
        let mut p = small(SceneParams::new(5, 7, false, 9));
        p.board.scheme = SquareScheme::BlackWhite;
        p.board.border_m = 0.03;
        p.camera.elevation_deg = 90.0;
        p.camera.azimuth_deg = az;
        p.camera.k1 = k1;
        p.camera.fill = 0.8;
        p.realism.noise = 0.0;
        p.realism.jpeg_quality = 0;
        p.realism.vignette = 0.0;
        p.pieces.black = PieceColor::Black;
        let mut s = BoardState::empty(5, 7, false);
        s.set(0, 0, Some(Piece::new(PieceSide::Black, PieceKind::Man)));
        let scene = Scene::new(&p).unwrap();
        let (r, ids, cam) = scene
            .render_full(&s, None, 0, true, &mut super::Stages::off())
            .unwrap();
        let cx = r.corners.iter().map(|c| c[0]).sum::<f64>() / 4.0;
        let cy = r.corners.iter().map(|c| c[1]).sum::<f64>() / 4.0;
        for (i, c) in r.corners.iter().enumerate() {
            let (dx, dy) = (cx - c[0], cy - c[1]);
            let l = dx.hypot(dy);
            let (ux, uy) = (dx / l, dy / l);
            let inner = luma(&r.image, c[0] + 5.0 * ux, c[1] + 5.0 * uy);
            let outer = luma(&r.image, c[0] - 5.0 * ux, c[1] - 5.0 * uy);
            // Corner squares of a 5x7 board are all light; the border is dark.
            assert!(
                inner > outer + 60.0,
                "corner {i} k1={k1} az={az}: inner {inner} outer {outer}"
            );
        }
        // Without distortion the corners are the pinhole projection.
        if k1 == 0.0 {
            for (c, w) in r.corners.iter().zip(scene.geom().corners()) {
                let q = cam.project_canvas(w).unwrap();
                assert!((c[0] - q[0]).abs() < 1e-6 && (c[1] - q[1]).abs() < 1e-6);
            }
        }
        // Cell (0, 0) lies next to corner TL: its piece is where the corners say.
        let [tl, tr, _, bl] = r.corners;
        let u = 0.5 / 7.0;
        let v = 0.5 / 5.0;
        let x = tl[0] + (tr[0] - tl[0]) * u + (bl[0] - tl[0]) * v;
        let y = tl[1] + (tr[1] - tl[1]) * u + (bl[1] - tl[1]) * v;
        let l = luma(&r.image, x, y);
        assert!(
            l < 90.0,
            "az={az}: cell 0,0 should show the black man, luma {l} at {x},{y} corners {:?}",
            r.corners
        );
        let _ = ids;
    }
}

#[test]
fn hand_flag_follows_the_hand() {
    let p = small(SceneParams::chess_overhead(2, false));
    let scene = Scene::new(&p).unwrap();
    let s = chess_start();
    for approach in [0.0, 100.0, 200.0, 300.0] {
        let away = scene.hand_pose((4, 4), approach, 0.0, None);
        let r = scene.render(&s, Some(&away)).unwrap();
        assert!(
            !r.hand_occludes,
            "approach {approach}: hand away still flagged"
        );
        assert!(r.occluded.iter().all(|&o| !o));
        let over = scene.hand_pose(
            (4, 4),
            approach,
            0.5,
            Some(Piece::new(PieceSide::White, PieceKind::Pawn)),
        );
        let (r, ids, cam) = scene
            .render_full(&s, Some(&over), 0, true, &mut super::Stages::off())
            .unwrap();
        assert!(
            r.hand_occludes,
            "approach {approach}: hand over the board not flagged"
        );
        assert!(r.occluded.iter().any(|&o| o));
        for (i, &o) in r.occluded.iter().enumerate() {
            let at = id_at(&ids, &cam, scene.geom().centre(i / 8, i % 8));
            assert_eq!(o, at == OBJ_HAND);
        }
    }
    let none = scene.render(&s, None).unwrap();
    assert!(!none.hand_occludes);
}

#[test]
fn bad_input_is_an_error() {
    let s = BoardState::empty(8, 8, false);
    let mut p = SceneParams::new(8, 8, false, 1);
    p.width = 0;
    assert!(render(&p, &s, None).is_err());
    let p = SceneParams::new(0, 0, false, 1);
    assert!(render(&p, &BoardState::empty(0, 0, false), None).is_err());
    let p = SceneParams::new(1, 1, true, 1);
    assert!(Scene::new(&p).is_err());
    let p = small(SceneParams::new(8, 8, false, 1));
    assert!(render(&p, &BoardState::empty(9, 9, false), None).is_err());
    let mut broken = BoardState::empty(8, 8, false);
    broken.cells.pop();
    assert!(render(&p, &broken, None).is_err());
    let mut nan = p.clone();
    nan.camera.focal_35mm = f64::NAN;
    assert!(Scene::new(&nan).is_err());
}

#[test]
fn tiny_and_odd_sizes_render() {
    for (w, h) in [(1, 1), (3, 2), (17, 100)] {
        let mut p = SceneParams::chess_overhead(1, true);
        p.width = w;
        p.height = h;
        p.camera.k1 = -0.1;
        p.realism.defocus_px = 3.0;
        p.realism.motion_blur_px = 4.0;
        let r = render(&p, &chess_start(), None).unwrap();
        assert_eq!(r.image.dimensions(), (w, h));
    }
    let p = small(SceneParams::chess_overhead(1, true));
    let mut hp = HandPose::new([0.0, 0.0, 0.1], 0.0);
    hp.grip = f64::NAN;
    assert!(render(&p, &chess_start(), Some(&hp)).is_err());
}

#[test]
fn label_json_round_trips() {
    let p = small(SceneParams::go_oblique(1));
    let s = scatter(19, 19, true, PieceKind::Stone, 2);
    let r = render(&p, &s, None).unwrap();
    let l = Label::new(&s, &r, p.seed);
    assert_eq!(l.grid, "19x19:points");
    assert_eq!(l.cells.len(), 19);
    assert!(l.cells.iter().all(|row| row.len() == 19));
    let back: Label = serde_json::from_str(&l.to_json()).unwrap();
    assert_eq!(
        (&back.grid, &back.cells, &back.kinds, &back.occluded),
        (&l.grid, &l.cells, &l.kinds, &l.occluded)
    );
    for (a, b) in back.corners.iter().zip(&l.corners) {
        assert!((a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9);
    }
    let n_w = l.cells.iter().flatten().filter(|c| *c == "w").count();
    let want = s
        .cells
        .iter()
        .flatten()
        .filter(|p| p.side == PieceSide::White)
        .count();
    assert_eq!(n_w, want);
}

#[test]
fn random_scenes_render() {
    let mut rng = Rng::new(11);
    let rr = RandomRanges {
        sizes: vec![(200, 150)],
        ..RandomRanges::default()
    };
    for (rows, cols, points) in [
        (8, 8, false),
        (9, 9, false),
        (18, 18, false),
        (19, 19, true),
        (2, 25, false),
    ] {
        let p = SceneParams::random(rows, cols, points, &mut rng, &rr);
        let s = scatter(rows, cols, points, PieceKind::Pawn, 1);
        let r = render(&p, &s, None).unwrap();
        assert_eq!(r.image.dimensions(), (200, 150));
        assert!(r
            .corners
            .iter()
            .all(|c| c[0].is_finite() && c[1].is_finite()));
    }
}

#[test]
fn contact_sheet_tiles() {
    let imgs = vec![image::RgbImage::new(40, 30); 5];
    let sheet = contact_sheet(&imgs, 3, 20);
    assert_eq!(sheet.width(), 3 * 24 + 4);
    assert_eq!(sheet.height(), 2 * 19 + 4);
    assert_eq!(contact_sheet(&[], 3, 20).dimensions(), (1, 1));
}

#[test]
fn knight_is_not_turned() {
    // A lathed piece is symmetric about z; the knight's head is not.
    let m = pieces::piece_mesh(PieceKind::Knight);
    let high: Vec<_> = m.pos.iter().filter(|p| p.z > 0.5).collect();
    let (minx, maxx) = high
        .iter()
        .fold((f32::MAX, f32::MIN), |a, p| (a.0.min(p.x), a.1.max(p.x)));
    let (miny, maxy) = high
        .iter()
        .fold((f32::MAX, f32::MIN), |a, p| (a.0.min(p.y), a.1.max(p.y)));
    assert!(
        maxx - minx > 2.0 * (maxy - miny),
        "knight head should be long and thin"
    );
    for k in PieceKind::ALL {
        let m = pieces::piece_mesh(k);
        assert!(
            m.tris.len() > 50 && m.tris.len() < 2000,
            "{k:?} has {} triangles",
            m.tris.len()
        );
    }
}
