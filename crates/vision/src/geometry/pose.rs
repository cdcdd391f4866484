//! A grid placed in an image: where every site of the board is on the camera image.

use super::{Corners, GridSpec, Homography};

/// A grid spec together with the corners that place it in the image, and the map
/// from board units (the unit square, TL = (0,0), BR = (1,1)) to image pixels.
/// The fields are private: the map is computed from the corners once, in `new`.
#[derive(Clone, Copy, Debug)]
pub struct BoardPose {
    grid: GridSpec,
    corners: Corners,
    board_to_image: Homography,
}

const UNIT_SQUARE: [(f64, f64); 4] = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];

impl BoardPose {
    /// `grid` placed at `corners`.
    pub fn new(grid: GridSpec, corners: Corners) -> BoardPose {
        let board_to_image = Homography::from_points(&UNIT_SQUARE, &corners.points())
            .expect("validated corners always give an invertible homography");
        BoardPose {
            grid,
            corners,
            board_to_image,
        }
    }

    /// The grid placed.
    pub fn grid(&self) -> GridSpec {
        self.grid
    }

    /// Where the grid's outer corners are in the image.
    pub fn corners(&self) -> Corners {
        self.corners
    }

    /// How many site centres lie inside an image of `width` x `height` pixels:
    /// none means the corners put the board outside the image.
    pub(crate) fn sites_in_image(&self, width: u32, height: u32) -> usize {
        (0..self.grid.rows)
            .flat_map(|r| (0..self.grid.cols).map(move |c| (r, c)))
            .filter(|&(r, c)| {
                let (x, y) = self.site_center(r, c);
                x >= 0.0 && y >= 0.0 && x < width as f64 && y < height as f64
            })
            .count()
    }

    /// Board units to image pixels.
    pub(crate) fn homography(&self) -> &Homography {
        &self.board_to_image
    }

    /// Image pixel position of a point in board units.
    pub(crate) fn to_image(self, p: (f64, f64)) -> (f64, f64) {
        self.board_to_image.apply(p).unwrap_or((f64::NAN, f64::NAN))
    }

    /// Board-unit position of an image pixel.
    pub(crate) fn to_board(&self, p: (f64, f64)) -> Option<(f64, f64)> {
        self.board_to_image.apply_inverse(p)
    }

    /// The polygon of a site (a cell, or the cell-sized square around a crossing) in the
    /// camera image, TL TR BR BL: what overlays draw.
    pub(crate) fn site_polygon(&self, row: u32, col: u32) -> [(f64, f64); 4] {
        self.grid.site_square(row, col).map(|p| self.to_image(p))
    }

    /// Image position of a site's centre.
    pub(crate) fn site_center(&self, row: u32, col: u32) -> (f64, f64) {
        self.to_image(self.grid.site_center(row, col))
    }

    /// The drawn lines of the lattice as image-space segments: cell borders for a cell
    /// grid, the board's lines for a points grid.
    pub(crate) fn lattice_segments(&self) -> Vec<((f64, f64), (f64, f64))> {
        let (lr, lc) = self.grid.lattice_cells();
        let mut segs = Vec::with_capacity((lr + lc + 2) as usize);
        for r in 0..=lr {
            let v = r as f64 / lr as f64;
            segs.push((self.to_image((0.0, v)), self.to_image((1.0, v))));
        }
        for c in 0..=lc {
            let u = c as f64 / lc as f64;
            segs.push((self.to_image((u, 0.0)), self.to_image((u, 1.0))));
        }
        segs
    }

    /// Mean side of a cell in image pixels: a scale for tolerances.
    pub fn mean_cell_px(&self) -> f64 {
        let p = self.corners.points();
        let d = |a: (f64, f64), b: (f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
        let (lr, lc) = self.grid.lattice_cells();
        let horiz = (d(p[0], p[1]) + d(p[3], p[2])) / 2.0 / lc as f64;
        let vert = (d(p[0], p[3]) + d(p[1], p[2])) / 2.0 / lr as f64;
        (horiz + vert) / 2.0
    }

    /// How far, in cells, `corners` lie from this pose's on average.
    pub(crate) fn moved_cells(&self, corners: &Corners) -> f64 {
        let (a, b) = (self.corners.points(), corners.points());
        let mean = (0..4)
            .map(|i| (a[i].0 - b[i].0).hypot(a[i].1 - b[i].1))
            .sum::<f64>()
            / 4.0;
        mean / self.mean_cell_px().max(1e-6)
    }
}
