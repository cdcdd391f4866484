//! Tables of several boards in one camera view: a tournament table with two or
//! four boards side by side (or two rows of two), each of its own style, turned
//! and shifted a little against the others, chess clocks between the boards of
//! a pair, one camera on a tall stand over all of them.
//!
//! Table frame (metres): origin at the middle of the boards' layout on the
//! boards' top surface, x to the right of the camera, y towards the camera's
//! side of the table (White's players sit there), z up. Each board keeps its own
//! frame (see `synth`), placed by a turn about z and the position of its centre.

use serde::{Deserialize, Serialize};

use super::params::{
    BoardStyle, CameraParams, Lighting, PieceColor, PieceStyle, Realism, SceneParams, SquareScheme,
    TableKind, TableStyle,
};
use super::rng::Rng;
use super::SynthError;

/// How the boards stand on the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Layout {
    /// One row, left to right: boards of tables put end to end, as in a hall.
    Row,
    /// Two rows of boards, one behind the other (two rows of tables).
    Grid,
}

/// One board on the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableBoard {
    /// Its grid, board style, pieces and seed (its camera, light, realism,
    /// image size and table are the table's).
    pub params: SceneParams,
    /// Turn about the vertical in degrees, anticlockwise seen from above.
    pub yaw_deg: f64,
    /// Where the centre of its grid stands, in the table frame.
    pub centre: [f64; 2],
}

/// A chess clock on the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    pub centre: [f64; 2],
    pub yaw_deg: f64,
    /// Body colour (sRGB).
    pub color: [u8; 3],
}

/// A score sheet lying on the table in front of a player (A5, landscape).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sheet {
    pub centre: [f64; 2],
    pub yaw_deg: f64,
}

/// Everything a table scene is built from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableParams {
    /// Image size, seed, camera, light, realism and table; its grid and
    /// board style are unused (the boards have their own).
    pub scene: SceneParams,
    pub boards: Vec<TableBoard>,
    pub clocks: Vec<Clock>,
    /// Score sheets: flat, white, beside the boards.
    #[serde(default)]
    pub sheets: Vec<Sheet>,
}

/// The squares a table's boards draw from, each used once while it can.
const SCHEMES: [SquareScheme; 5] = [
    SquareScheme::GreenWhiteVinyl,
    SquareScheme::Wood,
    SquareScheme::GreyWhite,
    SquareScheme::BrownCream,
    SquareScheme::BlackWhite,
];

/// Piece sets, light and dark.
const PIECE_SETS: [(PieceColor, PieceColor); 4] = [
    (PieceColor::White, PieceColor::Black),
    (PieceColor::LightWood, PieceColor::DarkWood),
    (PieceColor::Cream, PieceColor::Brown),
    (PieceColor::Cream, PieceColor::Black),
];

impl TableParams {
    /// A random table of `boards` 8x8 boards (1 to 4) in `layout`, seen in a
    /// `width` x `height` image.
    pub fn random(
        boards: usize,
        layout: Layout,
        size: (u32, u32),
        seed: u64,
    ) -> Result<TableParams, SynthError> {
        TableParams::random_with(&vec![(8, 8, false); boards], layout, size, seed)
    }

    /// A random table of boards of these grids (rows, columns, whether on
    /// points; 1 to 4 boards) in `layout`, seen in a `width` x `height` image.
    pub fn random_with(
        grids: &[(usize, usize, bool)],
        layout: Layout,
        (width, height): (u32, u32),
        seed: u64,
    ) -> Result<TableParams, SynthError> {
        let boards = grids.len();
        if !(1..=4).contains(&boards) {
            return Err(SynthError(format!(
                "a table holds 1 to 4 boards, not {boards}"
            )));
        }
        let mut r = Rng::derive(seed, 300);
        // One thickness for all: roll-up vinyl or wooden boards throughout,
        // so every board's top is the same plane.
        let thickness = if r.chance(0.4) {
            0.002
        } else {
            r.range(0.01, 0.018)
        };
        let mut schemes: Vec<SquareScheme> = Vec::new();
        let mut styles = Vec::new();
        for (i, &grid) in grids.iter().enumerate() {
            if grid.2 {
                styles.push(go_board_params(seed, i, grid, thickness, &mut r));
                continue;
            }
            if schemes.is_empty() {
                schemes = SCHEMES.to_vec();
            }
            let scheme = schemes.remove(r.below(schemes.len()));
            let (white, black) = *r.pick(&PIECE_SETS);
            let mut p = board_params(seed, i, (scheme, white, black), thickness, &mut r);
            (p.rows, p.cols) = (grid.0, grid.1);
            styles.push(p);
        }
        let per_row = match layout {
            Layout::Grid if boards > 2 => boards.div_ceil(2),
            _ => boards,
        };
        let half = |b: &SceneParams| {
            let (cr, cc) = b.cell_grid();
            let x = cc as f64 * b.board.cell_size_m / 2.0 + b.board.border_m;
            let y = cr as f64 * b.board.cell_size_m * b.board.cell_aspect / 2.0 + b.board.border_m;
            (x, y)
        };
        let mut placed = Vec::new();
        let mut clocks = Vec::new();
        let rows = boards.div_ceil(per_row);
        let row_gap = r.range(0.12, 0.2);
        let row_h = styles.iter().map(|b| half(b).1 * 2.0).fold(0.0, f64::max);
        for row in 0..rows {
            let members: Vec<&SceneParams> =
                styles.iter().skip(row * per_row).take(per_row).collect();
            // Gaps between neighbours: a clock's room within a pair, more
            // between pairs (another table's end).
            let gaps: Vec<f64> = (1..members.len())
                .map(|i| {
                    if i % 2 == 1 {
                        r.range(0.13, 0.17)
                    } else {
                        r.range(0.2, 0.3)
                    }
                })
                .collect();
            let width: f64 =
                members.iter().map(|b| half(b).0 * 2.0).sum::<f64>() + gaps.iter().sum::<f64>();
            let y = (row as f64 - (rows as f64 - 1.0) / 2.0) * (row_h + row_gap);
            let mut x = -width / 2.0;
            for (i, b) in members.iter().enumerate() {
                let hx = half(b).0;
                let centre = [x + hx + r.range(-0.015, 0.015), y + r.range(-0.02, 0.02)];
                if i % 2 == 1 {
                    // The pair's clock, in the gap, its long side between the players.
                    clocks.push(Clock {
                        centre: [x - gaps[i - 1] / 2.0, y + r.range(-0.1, 0.1)],
                        yaw_deg: r.range(-6.0, 6.0),
                        color: *r.pick(&[[30, 30, 32], [60, 40, 28], [200, 200, 196]]),
                    });
                }
                placed.push(TableBoard {
                    params: (*b).clone(),
                    yaw_deg: r.range(-4.0, 4.0),
                    centre,
                });
                x += 2.0 * hx + gaps.get(i).copied().unwrap_or(0.0);
            }
        }
        Ok(TableParams {
            scene: table_scene_params((width, height), seed, &mut r),
            sheets: score_sheets(&placed, per_row, seed),
            boards: placed,
            clocks,
        })
    }

    /// Checks every board's and the scene's parameters, and that the boards
    /// are of one thickness (their tops one plane).
    pub fn validate(&self) -> Result<(), SynthError> {
        self.scene.validate()?;
        if self.boards.is_empty() || self.boards.len() > 8 {
            return Err(SynthError("a table holds 1 to 8 boards".into()));
        }
        for b in &self.boards {
            b.params.validate()?;
            if (b.params.board.thickness_m - self.boards[0].params.board.thickness_m).abs() > 1e-9 {
                return Err(SynthError(
                    "the boards of a table are all of one thickness".into(),
                ));
            }
        }
        Ok(())
    }
}

/// Score sheets in front of the players, most of them, on the sides of the
/// boards that face the table's edges (rows of `per_row` boards).
fn score_sheets(boards: &[TableBoard], per_row: usize, seed: u64) -> Vec<Sheet> {
    let mut r = Rng::derive(seed, 302);
    let rows = boards.len().div_ceil(per_row.max(1));
    let mut sheets = Vec::new();
    for (i, b) in boards.iter().enumerate() {
        let row = i / per_row.max(1);
        let (cr, _) = b.params.cell_grid();
        let hy = cr as f64 * b.params.board.cell_size_m * b.params.board.cell_aspect / 2.0
            + b.params.board.border_m;
        // +1: White's side, towards the camera; -1: Black's, beyond.
        for side in [1.0, -1.0] {
            let faces_edge =
                rows == 1 || (side < 0.0 && row == 0) || (side > 0.0 && row + 1 == rows);
            if faces_edge && r.chance(0.7) {
                sheets.push(Sheet {
                    centre: [
                        b.centre[0] + r.range(-0.12, 0.12),
                        b.centre[1] + side * (hy + 0.09 + r.range(0.0, 0.03)),
                    ],
                    yaw_deg: r.range(-15.0, 15.0),
                });
            }
        }
    }
    sheets
}

/// Board `i`'s own style: its grid, squares, border and pieces.
fn board_params(
    seed: u64,
    i: usize,
    (scheme, white, black): (SquareScheme, PieceColor, PieceColor),
    thickness: f64,
    r: &mut Rng,
) -> SceneParams {
    let mut p = SceneParams::new(8, 8, false, super::rng::hash(&[seed, 301, i as u64]));
    let vinyl = scheme == SquareScheme::GreenWhiteVinyl;
    p.board = BoardStyle {
        scheme,
        checkered: true,
        cell_size_m: r.range(0.05, 0.058),
        cell_aspect: 1.0,
        border_m: if vinyl {
            r.range(0.025, 0.035)
        } else {
            r.range(0.015, 0.03)
        },
        thickness_m: thickness,
        coordinates: vinyl || r.chance(0.4),
        mark_centre: false,
        star_points: false,
        line_width_m: 0.0009,
    };
    p.pieces = PieceStyle {
        white,
        black,
        size: r.range(1.0, 1.12),
        height: r.range(0.9, 1.05),
        offset_jitter: 0.06,
        rot_jitter_deg: 15.0,
    };
    p
}

/// Board `i`'s style for a game on the points of a `grid`: a plain wooden
/// board with star points, cells a little longer than wide, and stones.
fn go_board_params(
    seed: u64,
    i: usize,
    (rows, cols, _): (usize, usize, bool),
    thickness: f64,
    r: &mut Rng,
) -> SceneParams {
    let mut p = SceneParams::new(rows, cols, true, super::rng::hash(&[seed, 301, i as u64]));
    // Small boards are for beginners and travel: a little larger cells.
    let pitch = if rows.max(cols) > 13 { 0.022 } else { 0.026 };
    p.board = BoardStyle {
        scheme: SquareScheme::PlainWood,
        checkered: false,
        cell_size_m: pitch * r.range(0.97, 1.03),
        cell_aspect: 1.07,
        border_m: r.range(0.012, 0.02),
        thickness_m: thickness,
        coordinates: false,
        mark_centre: false,
        star_points: true,
        line_width_m: 0.0008,
    };
    p.pieces.offset_jitter = 0.04;
    p
}

/// The table's camera on a tall stand behind White's players, light, realism
/// and tablecloth.
fn table_scene_params((width, height): (u32, u32), seed: u64, r: &mut Rng) -> SceneParams {
    let mut p = SceneParams::new(8, 8, false, seed);
    (p.width, p.height) = (width, height);
    p.camera = CameraParams {
        elevation_deg: r.range(62.0, 80.0),
        azimuth_deg: r.range(-5.0, 5.0),
        roll_deg: r.range(-1.5, 1.5),
        focal_35mm: r.range(24.0, 35.0),
        fill: r.range(0.96, 1.01),
        target_offset: [0.0, r.range(-0.03, 0.03)],
        k1: r.range(-0.04, 0.0),
        k2: 0.0,
        shake: 0.0,
    };
    p.lighting = Lighting {
        key_elevation_deg: r.range(60.0, 85.0),
        key_azimuth_deg: r.range(0.0, 360.0),
        color_temp_k: r.range(4000.0, 5600.0),
        shadow_softness: 2.5,
        shadow_map_size: 2048,
        ..Lighting::default()
    };
    p.realism = Realism {
        noise: r.range(1.5, 3.5),
        defocus_px: r.range(0.3, 0.9),
        jpeg_quality: 85,
        wb_gain: [r.range(0.95, 1.08), r.range(0.9, 1.02)],
        ..Realism::default()
    };
    let (kind, color) = *r.pick(&[
        (TableKind::Cloth, [226, 228, 226]),
        (TableKind::Cloth, [36, 70, 52]),
        (TableKind::Plain, [200, 200, 204]),
        (TableKind::Wood, [160, 120, 80]),
        (TableKind::Plain, [70, 72, 80]),
    ]);
    p.table = TableStyle {
        kind,
        color,
        clutter: 0,
        background: [70, 70, 75],
    };
    p
}
