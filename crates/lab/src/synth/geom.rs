//! Where the grid, its cells and its corners lie in the world frame.

use super::math::{v3, V3};
use super::params::SceneParams;

/// Grid geometry in world metres.
#[derive(Clone, Copy, Debug)]
pub struct BoardGeom {
    pub pitch_x: f32,
    pub pitch_y: f32,
    /// Half extents of the cell grid.
    pub gx: f32,
    pub gy: f32,
    pub border: f32,
    pub thickness: f32,
    pub points: bool,
}

impl BoardGeom {
    pub fn new(p: &SceneParams) -> BoardGeom {
        let (cr, cc) = p.cell_grid();
        let pitch_x = p.board.cell_size_m as f32;
        let pitch_y = (p.board.cell_size_m * p.board.cell_aspect) as f32;
        BoardGeom {
            pitch_x,
            pitch_y,
            gx: cc as f32 * pitch_x / 2.0,
            gy: cr as f32 * pitch_y / 2.0,
            border: p.board.border_m as f32,
            thickness: p.board.thickness_m as f32,
            points: p.points,
        }
    }

    /// Centre of cell (or crossing) r, c on the board surface.
    pub fn centre(&self, r: usize, c: usize) -> V3 {
        let k = if self.points { 0.0 } else { 0.5 };
        v3(
            -self.gx + (c as f32 + k) * self.pitch_x,
            -self.gy + (r as f32 + k) * self.pitch_y,
            0.0,
        )
    }

    /// Grid corners TL, TR, BR, BL.
    pub fn corners(&self) -> [V3; 4] {
        [
            v3(-self.gx, -self.gy, 0.0),
            v3(self.gx, -self.gy, 0.0),
            v3(self.gx, self.gy, 0.0),
            v3(-self.gx, self.gy, 0.0),
        ]
    }

    /// Outer corners of the board including its border.
    pub fn outline(&self) -> [V3; 4] {
        let (x, y) = (self.gx + self.border, self.gy + self.border);
        [
            v3(-x, -y, 0.0),
            v3(x, -y, 0.0),
            v3(x, y, 0.0),
            v3(-x, y, 0.0),
        ]
    }
}
