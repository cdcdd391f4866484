//! Synthetic board renderer: realistic images of boards with pieces, with
//! exact ground truth, for tests, the demo and classifier training.
//!
//! Everything is seeded and single-threaded, so equal inputs give equal
//! bytes. The renderer knows grids and piece shapes, never a game's rules.
//!
//! World frame (metres): origin at the centre of the cell grid on the
//! board's top surface, x towards increasing column, y towards increasing
//! row (row 0 is the edge from corner TL to TR), z up. See `camera` for the
//! pixel convention and how lens distortion is applied.
//!
//! ```
//! use boardscribe_lab::synth::{BoardState, Label, Piece, PieceKind, PieceSide, Scene, SceneParams};
//! let mut params = SceneParams::chess_overhead(7, false);
//! (params.width, params.height) = (160, 120);
//! let mut state = BoardState::empty(8, 8, false);
//! state.set(6, 4, Some(Piece::new(PieceSide::White, PieceKind::Pawn)));
//! // Build once, render many frames (a still camera reuses the static scene).
//! let scene = Scene::new(&params)?;
//! let hand = scene.hand_pose((6, 4), 0.0, 0.5, None);
//! let frame = scene.render_frame(&state, Some(&hand), 0)?;
//! assert!(frame.hand_occludes);
//! let json = Label::new(&state, &frame, params.seed).to_json();
//! # let _ = json;
//! # Ok::<(), boardscribe_lab::synth::SynthError>(())
//! ```

pub mod actors;
pub mod board;
pub mod camera;
pub mod clip;
pub mod font;
pub mod geom;
pub mod hand;
pub mod jpeg;
pub mod label;
pub mod math;
pub mod mesh;
pub mod occlusion;
pub mod params;
pub mod photos;
pub mod pieces;
mod pool;
pub mod post;
pub mod presets;
pub mod props;
pub mod raster;
pub mod rng;
pub mod scene;
pub mod shade;
pub mod stages;
pub mod table;
pub mod table_clip;
pub mod table_scene;
#[cfg(test)]
mod tests;

use image::RgbImage;
use serde::{Deserialize, Serialize};

pub use hand::HandPose;
pub use label::Label;
pub use params::{
    BoardStyle, CameraParams, Lighting, PieceColor, PieceStyle, RandomRanges, Realism, SceneParams,
    SquareScheme, TableKind, TableStyle,
};
pub use rng::Rng;
pub use scene::Scene;
pub use stages::Stages;

/// Error for inputs the renderer cannot honour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthError(pub String);

impl std::fmt::Display for SynthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "synth: {}", self.0)
    }
}

impl std::error::Error for SynthError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PieceSide {
    White,
    Black,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PieceKind {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
    Man,
    DraughtsKing,
    Soldier,
    TablutKing,
    Stone,
}

impl PieceKind {
    pub const ALL: [PieceKind; 11] = [
        PieceKind::Pawn,
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
        PieceKind::King,
        PieceKind::Man,
        PieceKind::DraughtsKing,
        PieceKind::Soldier,
        PieceKind::TablutKing,
        PieceKind::Stone,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PieceKind::Pawn => "pawn",
            PieceKind::Knight => "knight",
            PieceKind::Bishop => "bishop",
            PieceKind::Rook => "rook",
            PieceKind::Queen => "queen",
            PieceKind::King => "king",
            PieceKind::Man => "man",
            PieceKind::DraughtsKing => "draughts_king",
            PieceKind::Soldier => "soldier",
            PieceKind::TablutKing => "tablut_king",
            PieceKind::Stone => "stone",
        }
    }

    fn index(self) -> usize {
        PieceKind::ALL.iter().position(|&k| k == self).unwrap_or(0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Piece {
    pub side: PieceSide,
    pub kind: PieceKind,
}

impl Piece {
    pub fn new(side: PieceSide, kind: PieceKind) -> Piece {
        Piece { side, kind }
    }
}

/// Contents of the board. For points grids `rows`/`cols` count line
/// crossings (19x19 for Go) and pieces stand on the crossings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardState {
    pub rows: usize,
    pub cols: usize,
    pub points: bool,
    /// Row-major, row 0 = top edge (TL to TR), col 0 = left.
    pub cells: Vec<Option<Piece>>,
}

impl BoardState {
    pub fn empty(rows: usize, cols: usize, points: bool) -> BoardState {
        BoardState {
            rows,
            cols,
            points,
            cells: vec![None; rows * cols],
        }
    }

    pub fn get(&self, r: usize, c: usize) -> Option<Piece> {
        if r < self.rows && c < self.cols {
            self.cells.get(r * self.cols + c).copied().flatten()
        } else {
            None
        }
    }

    /// Sets a cell; out-of-range positions are ignored.
    pub fn set(&mut self, r: usize, c: usize, p: Option<Piece>) {
        if r < self.rows && c < self.cols {
            if let Some(slot) = self.cells.get_mut(r * self.cols + c) {
                *slot = p;
            }
        }
    }

    /// Grid text used in labels: "8x8" or "19x19:points".
    pub fn grid_spec(&self) -> String {
        if self.points {
            format!("{}x{}:points", self.rows, self.cols)
        } else {
            format!("{}x{}", self.rows, self.cols)
        }
    }

    pub fn validate(&self) -> Result<(), SynthError> {
        if self.cells.len() != self.rows * self.cols {
            return Err(SynthError(format!(
                "board state has {} cells for a {}x{} grid",
                self.cells.len(),
                self.rows,
                self.cols
            )));
        }
        Ok(())
    }
}

/// One rendered frame with its ground truth.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub image: RgbImage,
    /// Image positions of the grid corners TL, TR, BR, BL (outermost line
    /// crossings for points grids), lens distortion included; (0, 0) is the
    /// centre of the top-left pixel.
    pub corners: [[f64; 2]; 4],
    /// Some pixel of the hand, arm or carried piece lies over the board.
    pub hand_occludes: bool,
    /// Per cell (row-major): its centre is covered by the hand or arm.
    pub occluded: Vec<bool>,
}

/// Renders one image; build a `Scene` instead to render many frames.
pub fn render(
    params: &SceneParams,
    state: &BoardState,
    hand: Option<&HandPose>,
) -> Result<Rendered, SynthError> {
    Scene::new(params)?.render(state, hand)
}

/// Tiles images into a grid `cols` wide, each scaled to `cell_w` pixels wide
/// (height by the first image's aspect), on a dark background.
pub fn contact_sheet(images: &[RgbImage], cols: u32, cell_w: u32) -> RgbImage {
    let cols = cols.max(1);
    let cell_w = cell_w.max(1);
    let Some(first) = images.first() else {
        return RgbImage::new(1, 1);
    };
    let aspect = first.height().max(1) as f64 / first.width().max(1) as f64;
    let cell_h = ((cell_w as f64 * aspect).round() as u32).max(1);
    let rows = (images.len() as u32).div_ceil(cols);
    let gap = 4;
    let mut sheet = RgbImage::from_pixel(
        cols * (cell_w + gap) + gap,
        rows * (cell_h + gap) + gap,
        image::Rgb([24, 24, 24]),
    );
    for (i, img) in images.iter().enumerate() {
        if img.width() == 0 || img.height() == 0 {
            continue;
        }
        let thumb =
            image::imageops::resize(img, cell_w, cell_h, image::imageops::FilterType::Triangle);
        let x = gap + (i as u32 % cols) * (cell_w + gap);
        let y = gap + (i as u32 / cols) * (cell_h + gap);
        image::imageops::overlay(&mut sheet, &thumb, x as i64, y as i64);
    }
    sheet
}
