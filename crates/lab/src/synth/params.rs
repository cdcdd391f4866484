//! Scene parameters: board style, pieces, camera, lighting, realism, table.
//! Presets resemble the real photo sets; `SceneParams::random` varies all of it.

use serde::{Deserialize, Serialize};

use super::SynthError;

/// Colours (and texture) of the board's playing surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SquareScheme {
    /// Maple and walnut veneer with procedural grain.
    Wood,
    GreenWhiteVinyl,
    GreyWhite,
    BrownCream,
    BlackWhite,
    /// One light wood colour (Go boards, lined Tablut boards).
    PlainWood,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoardStyle {
    pub scheme: SquareScheme,
    /// Alternate square colours; false draws grid lines on a uniform surface.
    /// Points grids are always drawn as lines.
    pub checkered: bool,
    /// Column pitch in metres.
    pub cell_size_m: f64,
    /// Row pitch divided by column pitch (Go boards are about 1.07).
    pub cell_aspect: f64,
    pub border_m: f64,
    pub thickness_m: f64,
    /// Print letters and numbers in the border.
    pub coordinates: bool,
    /// Mark the centre cell (a throne) when rows and cols are odd.
    pub mark_centre: bool,
    /// Dots on the usual handicap points of a lined board.
    pub star_points: bool,
    pub line_width_m: f64,
}

/// Material colour of one side's pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PieceColor {
    White,
    Cream,
    LightWood,
    Black,
    Brown,
    DarkWood,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PieceStyle {
    pub white: PieceColor,
    pub black: PieceColor,
    /// Footprint scale relative to the default for the cell size.
    pub size: f64,
    /// Height scale; about 0.5 gives the low, flat pieces of travel sets.
    pub height: f64,
    /// Largest random offset of a piece from its cell centre, in cells.
    pub offset_jitter: f64,
    /// Largest random turn about the vertical axis, in degrees.
    pub rot_jitter_deg: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CameraParams {
    /// 90 = straight down on the board, 25 = low oblique view.
    pub elevation_deg: f64,
    /// Rotation of the camera around the board; 0 = looking from the
    /// bottom edge so that row 0 is at the top of the image.
    pub azimuth_deg: f64,
    pub roll_deg: f64,
    /// Focal length as a 35 mm equivalent (36 mm wide sensor = image width).
    pub focal_35mm: f64,
    /// Fraction of the shorter image side the board (with border) spans.
    pub fill: f64,
    /// Shift of the aim point, in fractions of the board size.
    pub target_offset: [f64; 2],
    /// Radial distortion: a pinhole point at normalised radius r is moved
    /// to r * (1 + k1 r^2 + k2 r^4). Negative k1 = barrel.
    pub k1: f64,
    pub k2: f64,
    /// Per-frame camera shake amplitude (1 = about 0.3 degrees and 2 mm).
    pub shake: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lighting {
    pub key_elevation_deg: f64,
    pub key_azimuth_deg: f64,
    pub key_intensity: f64,
    pub ambient: f64,
    pub color_temp_k: f64,
    /// Largest shadow map side in texels (64..=4096); the renderer uses at
    /// most 1.2 times the larger image side, finer texels being wasted.
    pub shadow_map_size: u32,
    /// Percentage-closer filter radius in shadow texels.
    pub shadow_softness: f64,
    pub specular: f64,
}

/// Camera artefacts applied after shading; zero values switch them off.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Realism {
    /// Sensor noise standard deviation in 8-bit levels.
    pub noise: f64,
    pub defocus_px: f64,
    pub motion_blur_px: f64,
    pub motion_angle_deg: f64,
    /// 1..=100, 0 = no JPEG pass.
    pub jpeg_quality: u8,
    pub exposure_ev: f64,
    /// Gains on red and blue relative to green (white-balance error).
    pub wb_gain: [f64; 2],
    /// Darkening at the image corners, 0..1.
    pub vignette: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TableKind {
    Wood,
    Cloth,
    Plain,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableStyle {
    pub kind: TableKind,
    pub color: [u8; 3],
    /// Number of boxes, cylinders and mugs standing beside the board.
    pub clutter: usize,
    pub background: [u8; 3],
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneParams {
    pub width: u32,
    pub height: u32,
    pub seed: u64,
    /// Cells, or line crossings when `points` is set.
    pub rows: usize,
    pub cols: usize,
    pub points: bool,
    pub board: BoardStyle,
    pub pieces: PieceStyle,
    pub camera: CameraParams,
    pub lighting: Lighting,
    pub realism: Realism,
    pub table: TableStyle,
}

/// Limits for `SceneParams::random`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomRanges {
    pub sizes: Vec<(u32, u32)>,
    pub elevation_deg: (f64, f64),
    pub focal_35mm: (f64, f64),
    pub fill: (f64, f64),
    pub max_k1: f64,
    pub max_noise: f64,
    pub max_defocus_px: f64,
    pub max_motion_px: f64,
    pub jpeg_quality: (u8, u8),
    pub max_shake: f64,
    pub max_clutter: usize,
}

impl Default for RandomRanges {
    fn default() -> Self {
        RandomRanges {
            sizes: vec![(640, 480)],
            elevation_deg: (25.0, 90.0),
            focal_35mm: (24.0, 60.0),
            fill: (0.55, 0.98),
            max_k1: 0.12,
            max_noise: 6.0,
            max_defocus_px: 1.5,
            max_motion_px: 3.0,
            jpeg_quality: (55, 95),
            max_shake: 1.0,
            max_clutter: 5,
        }
    }
}

impl Default for Realism {
    fn default() -> Self {
        Realism {
            noise: 2.0,
            defocus_px: 0.0,
            motion_blur_px: 0.0,
            motion_angle_deg: 0.0,
            jpeg_quality: 90,
            exposure_ev: 0.0,
            wb_gain: [1.0, 1.0],
            vignette: 0.15,
        }
    }
}

impl Default for Lighting {
    fn default() -> Self {
        Lighting {
            key_elevation_deg: 60.0,
            key_azimuth_deg: 30.0,
            key_intensity: 0.85,
            ambient: 0.32,
            color_temp_k: 5000.0,
            shadow_map_size: 1024,
            shadow_softness: 1.5,
            specular: 0.35,
        }
    }
}

fn bad(msg: String) -> Result<(), SynthError> {
    Err(SynthError(msg))
}

fn finite(name: &str, v: f64) -> Result<(), SynthError> {
    if v.is_finite() {
        Ok(())
    } else {
        bad(format!("{name} must be a finite number, got {v}"))
    }
}

impl SceneParams {
    /// Number of cells across (rows, cols) of the drawn grid.
    pub fn cell_grid(&self) -> (usize, usize) {
        if self.points {
            (self.rows.saturating_sub(1), self.cols.saturating_sub(1))
        } else {
            (self.rows, self.cols)
        }
    }

    pub fn validate(&self) -> Result<(), SynthError> {
        if self.width == 0 || self.height == 0 || self.width > 8192 || self.height > 8192 {
            return bad(format!(
                "resolution {}x{} is outside 1..=8192",
                self.width, self.height
            ));
        }
        let (cr, cc) = self.cell_grid();
        if !(2..=25).contains(&cr) || !(2..=25).contains(&cc) {
            return bad(format!(
                "grid of {}x{} {} gives {cr}x{cc} cells; 2..=25 supported",
                self.rows,
                self.cols,
                if self.points { "points" } else { "cells" }
            ));
        }
        let b = &self.board;
        for (n, v) in [
            ("cell_size_m", b.cell_size_m),
            ("cell_aspect", b.cell_aspect),
            ("border_m", b.border_m),
            ("thickness_m", b.thickness_m),
            ("line_width_m", b.line_width_m),
            ("pieces.size", self.pieces.size),
            ("pieces.height", self.pieces.height),
            ("elevation_deg", self.camera.elevation_deg),
            ("azimuth_deg", self.camera.azimuth_deg),
            ("roll_deg", self.camera.roll_deg),
            ("focal_35mm", self.camera.focal_35mm),
            ("fill", self.camera.fill),
            ("k1", self.camera.k1),
            ("k2", self.camera.k2),
            ("shake", self.camera.shake),
            ("key_intensity", self.lighting.key_intensity),
            ("color_temp_k", self.lighting.color_temp_k),
            ("noise", self.realism.noise),
            ("defocus_px", self.realism.defocus_px),
            ("motion_blur_px", self.realism.motion_blur_px),
            ("exposure_ev", self.realism.exposure_ev),
            ("wb_gain[0]", self.realism.wb_gain[0]),
            ("wb_gain[1]", self.realism.wb_gain[1]),
            ("vignette", self.realism.vignette),
            ("motion_angle_deg", self.realism.motion_angle_deg),
            ("target_offset[0]", self.camera.target_offset[0]),
            ("target_offset[1]", self.camera.target_offset[1]),
            ("key_elevation_deg", self.lighting.key_elevation_deg),
            ("key_azimuth_deg", self.lighting.key_azimuth_deg),
            ("ambient", self.lighting.ambient),
            ("shadow_softness", self.lighting.shadow_softness),
            ("specular", self.lighting.specular),
            ("offset_jitter", self.pieces.offset_jitter),
            ("rot_jitter_deg", self.pieces.rot_jitter_deg),
        ] {
            finite(n, v)?;
        }
        if !(0.001..=1.0).contains(&b.cell_size_m) || !(0.5..=2.0).contains(&b.cell_aspect) {
            return bad("cell_size_m must be in 0.001..=1 m and cell_aspect in 0.5..=2".into());
        }
        if b.border_m < 0.0 || b.thickness_m < 0.0 || b.line_width_m < 0.0 {
            return bad("board border, thickness and line width must not be negative".into());
        }
        if !(10.0..=90.0).contains(&self.camera.elevation_deg) {
            return bad("camera elevation must be in 10..=90 degrees".into());
        }
        if !(5.0..=400.0).contains(&self.camera.focal_35mm)
            || !(0.05..=3.0).contains(&self.camera.fill)
        {
            return bad("focal_35mm must be in 5..=400 and fill in 0.05..=3".into());
        }
        if self.camera.k1.abs() > 1.0 || self.camera.k2.abs() > 1.0 {
            return bad("|k1| and |k2| must be at most 1".into());
        }
        if self.pieces.size <= 0.0 || self.pieces.height <= 0.0 {
            return bad("piece size and height scales must be positive".into());
        }
        if !(64..=4096).contains(&self.lighting.shadow_map_size) {
            return bad("shadow_map_size must be in 64..=4096".into());
        }
        if self.realism.noise < 0.0
            || self.realism.defocus_px < 0.0
            || self.realism.motion_blur_px < 0.0
        {
            return bad("noise and blur amounts must not be negative".into());
        }
        if self.realism.defocus_px > 50.0 || self.realism.motion_blur_px > 100.0 {
            return bad("defocus_px must be <= 50 and motion_blur_px <= 100".into());
        }
        if self.realism.jpeg_quality > 100 {
            return bad("jpeg_quality must be 0 (off) or 1..=100".into());
        }
        Ok(())
    }
}
