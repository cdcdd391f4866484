//! Ready-made scenes resembling real photo sets, and random scenes.

use super::params::*;
use super::rng::Rng;

fn jitter_rgb(c: [u8; 3], rng: &mut Rng) -> [u8; 3] {
    c.map(|v| (v as f64 + rng.range(-15.0, 15.0)).clamp(0.0, 255.0) as u8)
}

fn base(rows: usize, cols: usize, points: bool, seed: u64) -> SceneParams {
    SceneParams {
        width: 640,
        height: 480,
        seed,
        rows,
        cols,
        points,
        board: BoardStyle {
            scheme: SquareScheme::Wood,
            checkered: !points,
            cell_size_m: 0.05,
            cell_aspect: 1.0,
            border_m: 0.025,
            thickness_m: 0.015,
            coordinates: false,
            mark_centre: false,
            star_points: points,
            line_width_m: 0.0009,
        },
        pieces: PieceStyle {
            white: PieceColor::LightWood,
            black: PieceColor::DarkWood,
            size: 1.0,
            height: 1.0,
            offset_jitter: 0.06,
            rot_jitter_deg: 15.0,
        },
        camera: CameraParams {
            elevation_deg: 88.0,
            azimuth_deg: 0.0,
            roll_deg: 0.0,
            focal_35mm: 35.0,
            fill: 0.9,
            target_offset: [0.0, 0.0],
            k1: 0.0,
            k2: 0.0,
            shake: 0.0,
        },
        lighting: Lighting::default(),
        realism: Realism::default(),
        table: TableStyle {
            kind: TableKind::Wood,
            color: [150, 110, 75],
            clutter: 0,
            background: [90, 90, 95],
        },
    }
}

impl SceneParams {
    /// Defaults for a grid; a plain wooden board seen from above.
    pub fn new(rows: usize, cols: usize, points: bool, seed: u64) -> SceneParams {
        base(rows, cols, points, seed)
    }

    /// A webcam over a club chess board, filmed from above: grey/white
    /// squares, or dark wood when `dark_wood`; light and dark wooden pieces.
    pub fn chess_overhead(seed: u64, dark_wood: bool) -> SceneParams {
        let mut r = Rng::derive(seed, 100);
        let mut p = base(8, 8, false, seed);
        p.board.scheme = if dark_wood {
            SquareScheme::Wood
        } else {
            SquareScheme::GreyWhite
        };
        p.board.border_m = 0.02;
        p.board.cell_size_m = 0.05;
        p.pieces.white = PieceColor::LightWood;
        p.pieces.black = PieceColor::DarkWood;
        p.pieces.size = r.range(1.03, 1.15);
        // A webcam close above the board with a wide lens: tall pieces
        // lean outwards from the image centre, as in real overhead footage.
        p.camera.elevation_deg = r.range(82.0, 90.0);
        p.camera.azimuth_deg = r.range(-3.0, 3.0);
        p.camera.focal_35mm = r.range(20.0, 28.0);
        p.camera.fill = r.range(0.9, 0.98);
        p.camera.k1 = r.range(-0.06, 0.0);
        p.lighting.key_elevation_deg = r.range(55.0, 85.0);
        p.lighting.key_azimuth_deg = r.range(0.0, 360.0);
        p.lighting.color_temp_k = r.range(3800.0, 5500.0);
        p.lighting.shadow_softness = 2.5;
        p.realism.noise = r.range(2.0, 5.0);
        p.realism.defocus_px = r.range(0.4, 1.1);
        p.realism.jpeg_quality = 75;
        p.realism.wb_gain = [r.range(0.95, 1.1), r.range(0.85, 1.0)];
        p
    }

    /// A green/white vinyl roll-up tournament board with printed
    /// coordinates, photographed near top-down with the table around it.
    pub fn vinyl_tournament(seed: u64) -> SceneParams {
        let mut r = Rng::derive(seed, 101);
        let mut p = base(8, 8, false, seed);
        p.width = 1024;
        p.height = 768;
        p.board.scheme = SquareScheme::GreenWhiteVinyl;
        p.board.cell_size_m = 0.057;
        p.board.border_m = 0.03;
        p.board.thickness_m = 0.001;
        p.board.coordinates = true;
        p.pieces.white = PieceColor::White;
        p.pieces.black = PieceColor::Black;
        p.pieces.size = 1.0;
        p.camera.elevation_deg = r.range(72.0, 88.0);
        p.camera.azimuth_deg = 90.0 + r.range(-6.0, 6.0);
        p.camera.roll_deg = r.range(-3.0, 3.0);
        p.camera.focal_35mm = 26.0;
        p.camera.fill = r.range(0.7, 0.85);
        p.table = TableStyle {
            kind: TableKind::Plain,
            color: [38, 38, 40],
            clutter: r.below(3),
            background: [30, 30, 32],
        };
        p.lighting.key_elevation_deg = r.range(60.0, 85.0);
        p.lighting.key_azimuth_deg = r.range(0.0, 360.0);
        p.lighting.shadow_softness = 3.0;
        p.realism.noise = 1.5;
        p.realism.jpeg_quality = 88;
        p
    }

    /// A 19x19 Go board on a table, seen obliquely.
    pub fn go_oblique(seed: u64) -> SceneParams {
        let mut r = Rng::derive(seed, 102);
        let mut p = base(19, 19, true, seed);
        p.board.scheme = SquareScheme::PlainWood;
        p.board.cell_size_m = 0.022;
        p.board.cell_aspect = 1.07;
        p.board.border_m = 0.015;
        p.board.thickness_m = r.range(0.015, 0.05);
        p.board.line_width_m = 0.0008;
        p.pieces.offset_jitter = 0.04;
        p.camera.elevation_deg = r.range(40.0, 80.0);
        p.camera.azimuth_deg = r.range(-20.0, 20.0);
        p.camera.focal_35mm = r.range(28.0, 40.0);
        p.camera.fill = r.range(0.75, 0.92);
        let cloth = r.chance(0.5);
        p.table = TableStyle {
            kind: if cloth {
                TableKind::Cloth
            } else {
                TableKind::Plain
            },
            color: if cloth { [40, 44, 70] } else { [225, 228, 232] },
            clutter: r.below(3),
            background: [70, 70, 75],
        };
        p.lighting.key_elevation_deg = r.range(45.0, 75.0);
        p.lighting.key_azimuth_deg = r.range(0.0, 360.0);
        p.realism.noise = r.range(1.5, 4.0);
        p.realism.defocus_px = r.range(0.0, 0.8);
        p.realism.jpeg_quality = 85;
        p
    }

    /// A small magnetic travel set: an 18 cm board with low, flat pieces.
    pub fn magnetic_travel(seed: u64) -> SceneParams {
        let mut r = Rng::derive(seed, 103);
        let mut p = base(8, 8, false, seed);
        p.board.scheme = *r.pick(&[
            SquareScheme::BrownCream,
            SquareScheme::BlackWhite,
            SquareScheme::GreenWhiteVinyl,
        ]);
        p.board.cell_size_m = 0.02;
        p.board.border_m = 0.01;
        p.board.thickness_m = 0.012;
        p.board.coordinates = r.chance(0.5);
        p.pieces.white = PieceColor::White;
        p.pieces.black = PieceColor::Black;
        p.pieces.height = 0.5;
        p.pieces.size = 0.95;
        p.camera.elevation_deg = r.range(50.0, 88.0);
        p.camera.azimuth_deg = r.range(-30.0, 30.0);
        p.camera.fill = r.range(0.6, 0.85);
        p.table.clutter = r.below(3);
        p
    }

    /// A 9x9 Tablut board with a marked throne.
    pub fn tablut(seed: u64) -> SceneParams {
        let mut r = Rng::derive(seed, 104);
        let mut p = base(9, 9, false, seed);
        p.board.scheme = SquareScheme::PlainWood;
        p.board.checkered = false;
        p.board.mark_centre = true;
        p.board.cell_size_m = 0.04;
        p.board.line_width_m = 0.0015;
        p.camera.elevation_deg = r.range(50.0, 88.0);
        p.camera.azimuth_deg = r.range(-30.0, 30.0);
        p.pieces.white = PieceColor::Cream;
        p.pieces.black = PieceColor::Black;
        p
    }

    /// A varied scene for training data.
    pub fn random(
        rows: usize,
        cols: usize,
        points: bool,
        rng: &mut Rng,
        rr: &RandomRanges,
    ) -> SceneParams {
        let mut p = base(rows, cols, points, rng.next_u64());
        let (w, h) = rr
            .sizes
            .get(rng.below(rr.sizes.len()))
            .copied()
            .unwrap_or((640, 480));
        p.width = w;
        p.height = h;
        let (cr, cc) = p.cell_grid();
        let cells = cr.max(cc).max(1) as f64;
        let b = &mut p.board;
        b.scheme = if points {
            SquareScheme::PlainWood
        } else {
            *rng.pick(&[
                SquareScheme::Wood,
                SquareScheme::GreenWhiteVinyl,
                SquareScheme::GreyWhite,
                SquareScheme::BrownCream,
                SquareScheme::BlackWhite,
                SquareScheme::PlainWood,
            ])
        };
        b.checkered = !points && (b.scheme != SquareScheme::PlainWood || rng.chance(0.3));
        let total = if rng.chance(0.15) {
            0.16
        } else {
            rng.range(0.3, 0.5)
        };
        b.cell_size_m = (total / cells).clamp(0.012, 0.07);
        b.cell_aspect = if points && rng.chance(0.5) { 1.07 } else { 1.0 };
        b.border_m = rng.range(0.0, 2.0) * b.cell_size_m * 0.5 + 0.004;
        b.thickness_m = if b.scheme == SquareScheme::GreenWhiteVinyl {
            0.001
        } else {
            rng.range(0.004, 0.04)
        };
        b.coordinates = b.border_m > 0.012 && rng.chance(0.5);
        b.mark_centre = cr % 2 == 1 && cc % 2 == 1 && rng.chance(0.5);
        b.star_points = points && rng.chance(0.8);
        b.line_width_m = b.cell_size_m * rng.range(0.025, 0.05);
        let lights = [PieceColor::White, PieceColor::Cream, PieceColor::LightWood];
        let darks = [PieceColor::Black, PieceColor::Brown, PieceColor::DarkWood];
        p.pieces.white = *rng.pick(&lights);
        p.pieces.black = *rng.pick(&darks);
        p.pieces.size = rng.range(0.88, 1.08);
        p.pieces.height = if rng.chance(0.15) {
            rng.range(0.45, 0.7)
        } else {
            rng.range(0.9, 1.1)
        };
        p.pieces.offset_jitter = rng.range(0.0, 0.1);
        let c = &mut p.camera;
        c.elevation_deg = rng.range(rr.elevation_deg.0, rr.elevation_deg.1);
        c.azimuth_deg = rng.range(0.0, 360.0);
        c.roll_deg = rng.range(-5.0, 5.0);
        c.focal_35mm = rng.range(rr.focal_35mm.0, rr.focal_35mm.1);
        c.fill = rng.range(rr.fill.0, rr.fill.1);
        c.target_offset = [rng.range(-0.05, 0.05), rng.range(-0.05, 0.05)];
        c.k1 = rng.range(-rr.max_k1, rr.max_k1 * 0.3);
        c.k2 = 0.0;
        c.shake = rng.range(0.0, rr.max_shake);
        let l = &mut p.lighting;
        l.key_elevation_deg = rng.range(30.0, 88.0);
        l.key_azimuth_deg = rng.range(0.0, 360.0);
        l.key_intensity = rng.range(0.6, 1.1);
        l.ambient = rng.range(0.2, 0.5);
        l.color_temp_k = rng.range(2800.0, 7500.0);
        l.shadow_softness = rng.range(1.0, 4.0);
        let q = &mut p.realism;
        q.noise = rng.range(0.0, rr.max_noise);
        q.defocus_px = if rng.chance(0.5) {
            rng.range(0.0, rr.max_defocus_px)
        } else {
            0.0
        };
        q.motion_blur_px = if rng.chance(0.2) {
            rng.range(0.0, rr.max_motion_px)
        } else {
            0.0
        };
        q.motion_angle_deg = rng.range(0.0, 180.0);
        let (jq0, jq1) = rr.jpeg_quality;
        q.jpeg_quality = if jq1 == 0 {
            0
        } else {
            jq0 + rng.below((jq1.saturating_sub(jq0)) as usize + 1) as u8
        };
        q.exposure_ev = rng.range(-0.5, 0.4);
        q.wb_gain = [rng.range(0.85, 1.15), rng.range(0.85, 1.15)];
        q.vignette = rng.range(0.0, 0.35);
        let t = &mut p.table;
        t.kind = *rng.pick(&[TableKind::Wood, TableKind::Cloth, TableKind::Plain]);
        // Real tables and rooms are muted; fully random colours are not.
        let palette: &[[u8; 3]] = match t.kind {
            TableKind::Wood => &[[150, 110, 75], [120, 80, 50], [180, 140, 100], [90, 60, 40]],
            TableKind::Cloth => &[
                [40, 44, 70],
                [30, 70, 45],
                [90, 30, 30],
                [60, 60, 60],
                [200, 200, 195],
            ],
            TableKind::Plain => &[
                [225, 228, 232],
                [38, 38, 40],
                [200, 190, 170],
                [120, 120, 125],
                [170, 160, 140],
            ],
        };
        t.color = jitter_rgb(*rng.pick(palette), rng);
        t.clutter = rng.below(rr.max_clutter + 1);
        let walls = [
            [70, 70, 75],
            [110, 105, 100],
            [40, 40, 45],
            [150, 150, 150],
            [90, 80, 70],
            [170, 165, 150],
        ];
        t.background = jitter_rgb(*rng.pick(&walls), rng);
        p
    }
}
