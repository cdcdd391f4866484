//! The maps between image, board and rectified view, checked end to end: a known
//! grid rendered in perspective and rectified back, the inverse map, and any four
//! points either refused or usable without a panic.

use opencv::core::{Mat, Vec3b};
use opencv::prelude::*;

use proptest::prelude::*;

use super::{perspective_test_card, rectify, BoardPose, Corners, GridSpec, RectifyLayout};

/// Centroid of the red marker pixels within half a cell of `c` in a rectified image.
fn red_centroid(img: &Mat, c: (f64, f64), half: f64) -> Option<(f64, f64)> {
    let (mut sx, mut sy, mut n) = (0.0, 0.0, 0.0);
    let (x0, x1) = ((c.0 - half).max(0.0) as i32, (c.0 + half) as i32);
    let (y0, y1) = ((c.1 - half).max(0.0) as i32, (c.1 + half) as i32);
    for y in y0..y1.min(img.rows()) {
        for x in x0..x1.min(img.cols()) {
            let p: Vec3b = *img.at_2d(y, x).unwrap();
            // BGR: strongly red, little green or blue.
            let (b, g, r) = (p[0] as f64, p[1] as f64, p[2] as f64);
            let w = ((r - g.max(b)) / 255.0).max(0.0);
            if w > 0.4 {
                sx += w * x as f64;
                sy += w * y as f64;
                n += w;
            }
        }
    }
    (n > 0.0).then(|| (sx / n, sy / n))
}

/// Renders a known grid in perspective, rectifies it with the true corners, and checks
/// that every site's marker lands within 2% of a cell of where the layout says.
fn check(grid: &str, corners: &str, size: (u32, u32)) {
    let grid: GridSpec = grid.parse().unwrap();
    let corners: Corners = corners.parse().unwrap();
    let pose = BoardPose::new(grid, corners);
    let camera = perspective_test_card(&pose, size).unwrap();
    let cell_px = 40;
    let layout = RectifyLayout::new(cell_px, 0.5);
    let top = rectify(&camera, &pose, &layout).unwrap();
    let (w, h) = layout.size(&pose);
    assert_eq!((top.cols() as u32, top.rows() as u32), (w, h));
    let cell = f64::from(cell_px);
    let mut worst: f64 = 0.0;
    for r in 0..grid.rows {
        for c in 0..grid.cols {
            let want = layout.site_center(&pose, r, c);
            let got = red_centroid(&top, want, cell * 0.35)
                .unwrap_or_else(|| panic!("{grid}: no marker near site ({r},{c})"));
            let err = ((got.0 - want.0).powi(2) + (got.1 - want.1).powi(2)).sqrt() / cell;
            worst = worst.max(err);
        }
    }
    assert!(worst < 0.02, "{grid}: worst site error {worst:.4} cells");
}

#[test]
fn rectified_sites_land_within_two_percent_of_a_cell() {
    check("8x8", "152,88 508,112 574,430 84,402", (640, 480));
    check("9x9", "300,60 980,84 1040,690 250,650", (1280, 720));
    check("18x18", "200,30 1100,60 1180,700 120,690", (1280, 720));
    check(
        "19x19:points",
        "260,120 1010,110 1230,700 60,705",
        (1280, 720),
    );
    // A board turned about 30 degrees in the image.
    check("8x8", "300,40 600,200 440,480 140,320", (720, 540));
}

#[test]
fn inverse_map_puts_site_polygons_on_the_board() {
    let pose = BoardPose::new(
        GridSpec::cells(8, 8),
        "152,88 508,112 574,430 84,402".parse().unwrap(),
    );
    // The TL cell's TL corner is the board's TL corner; the BR cell's BR corner is BR.
    let tl = pose.site_polygon(0, 0)[0];
    let br = pose.site_polygon(7, 7)[2];
    assert!((tl.0 - 152.0).abs() < 1e-6 && (tl.1 - 88.0).abs() < 1e-6);
    assert!((br.0 - 574.0).abs() < 1e-6 && (br.1 - 430.0).abs() < 1e-6);
    // A site centre maps back to board units.
    let c = pose.site_center(3, 5);
    let (u, v) = pose.to_board(c).unwrap();
    assert!((u - 5.5 / 8.0).abs() < 1e-9 && (v - 3.5 / 8.0).abs() < 1e-9);
    assert_eq!(pose.lattice_segments().len(), 18);
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(512))]

    /// Any four points: refused, or usable all the way (both maps, a layout and
    /// an overlay's lattice) without a panic.
    #[test]
    fn accepted_corners_always_map(
        pts in prop::array::uniform4((
            prop_oneof![-2e5..2e5f64, -2000.0..2000.0f64, Just(f64::NAN), Just(1e7)],
            prop_oneof![-2e5..2e5f64, -2000.0..2000.0f64, Just(f64::INFINITY), Just(-1e7)],
        )),
        cells in 2u32..=25,
        cell_px in 8u32..=256,
    ) {
        if let Ok(c) = Corners::new(pts) {
            let pose = BoardPose::new(GridSpec::cells(cells, cells), c);
            let layout = RectifyLayout::new(cell_px, 1.0);
            let _ = layout.image_to_rectified(&pose);
            let _ = pose.lattice_segments();
            let _ = pose.sites_in_image(640, 480);
            prop_assert_eq!(c.to_string().parse::<Corners>().map(|d| d.points().len()).ok(), Some(4));
        }
    }
}
