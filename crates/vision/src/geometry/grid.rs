//! Grid specifications: how many rows and columns, and whether pieces stand in
//! the cells (chess) or on the line crossings (Go).

use std::fmt;
use std::str::FromStr;

use super::SpecError;

/// Smallest and largest number of cells along one side (for `:points`, of lines minus one).
pub(crate) const MIN_CELLS: u32 = 2;
/// The most cells a side a grid may have.
pub(crate) const MAX_CELLS: u32 = 25;

/// A playing grid. `rows` x `cols` counts the *sites* where pieces stand: cells for a
/// cell grid, line crossings for a points grid (so `19x19:points` is an 18x18-cell board).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GridSpec {
    /// Rows of sites.
    pub rows: u32,
    /// Columns of sites.
    pub cols: u32,
    /// Sites are the crossings of lines (Go-like), not cells.
    pub points: bool,
}

impl GridSpec {
    /// A grid of `rows` x `cols` cells.
    pub const fn cells(rows: u32, cols: u32) -> GridSpec {
        GridSpec {
            rows,
            cols,
            points: false,
        }
    }

    /// A grid of `rows` x `cols` crossings.
    pub const fn points(rows: u32, cols: u32) -> GridSpec {
        GridSpec {
            rows,
            cols,
            points: true,
        }
    }

    /// Number of sites (cells or crossings).
    pub fn len(&self) -> usize {
        (self.rows * self.cols) as usize
    }

    /// Every site as (row, col), row-major.
    pub fn sites(&self) -> impl Iterator<Item = (u32, u32)> {
        let cols = self.cols;
        (0..self.rows).flat_map(move |r| (0..cols).map(move |c| (r, c)))
    }

    /// The size of the square lattice the corners span, in cells: (rows, cols).
    /// A points grid of 19x19 crossings spans 18x18 cells.
    pub(crate) fn lattice_cells(&self) -> (u32, u32) {
        if self.points {
            (self.rows - 1, self.cols - 1)
        } else {
            (self.rows, self.cols)
        }
    }

    /// Centre of site (row, col) in board units, where the corner quadrilateral maps
    /// to the unit square: (0,0) = TL, (1,0) = TR, (1,1) = BR.
    pub(crate) fn site_center(&self, row: u32, col: u32) -> (f64, f64) {
        let (lr, lc) = self.lattice_cells();
        if self.points {
            (col as f64 / lc as f64, row as f64 / lr as f64)
        } else {
            (
                (col as f64 + 0.5) / lc as f64,
                (row as f64 + 0.5) / lr as f64,
            )
        }
    }

    /// The square around a site in board units: a cell, or for a crossing the cell-sized
    /// square centred on it. Corners in TL, TR, BR, BL order.
    pub(crate) fn site_square(&self, row: u32, col: u32) -> [(f64, f64); 4] {
        let (lr, lc) = self.lattice_cells();
        let (cx, cy) = self.site_center(row, col);
        let (hx, hy) = (0.5 / lc as f64, 0.5 / lr as f64);
        [
            (cx - hx, cy - hy),
            (cx + hx, cy - hy),
            (cx + hx, cy + hy),
            (cx - hx, cy + hy),
        ]
    }
}

impl fmt::Display for GridSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)?;
        if self.points {
            write!(f, ":points")?;
        }
        Ok(())
    }
}

impl FromStr for GridSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<GridSpec, SpecError> {
        let lead = s.len() - s.trim_start().len();
        let lower = s.trim().to_ascii_lowercase();
        // `lower` has the byte offsets of `s` less `lead` (ASCII case changes keep
        // lengths), so a slice of it names its column in `s`.
        let bad_at = |part: &str, why: &str| SpecError {
            what: "grid",
            text: s.to_string(),
            column: Some(
                super::offset_in(&lower, part).map_or(1, |o| super::column_at(s, o + lead)),
            ),
            why: why.to_string(),
        };
        let bad = |why: &str| bad_at(&lower, why);
        let (size, kind) = match lower.split_once(':') {
            Some((size, kind)) => (size, Some(kind)),
            None => (lower.as_str(), None),
        };
        let points = match kind {
            None | Some("cells") => false,
            Some("points") => true,
            Some(k) => return Err(bad_at(k, "the part after ':' must be 'points' or 'cells'")),
        };
        let (r, c) = size
            .split_once('x')
            .ok_or_else(|| bad("expected ROWSxCOLS, such as 8x8 or 19x19:points"))?;
        let parse = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| bad_at(t, "rows and columns must be whole numbers"))
        };
        let (rows, cols) = (parse(r)?, parse(c)?);
        let extra = u32::from(points);
        let (lo, hi) = (MIN_CELLS + extra, MAX_CELLS + extra);
        if !(lo..=hi).contains(&rows) || !(lo..=hi).contains(&cols) {
            return Err(bad(&if points {
                format!("a points grid has {lo} to {hi} lines a side")
            } else {
                format!("a cell grid has {lo} to {hi} cells a side")
            }));
        }
        Ok(GridSpec { rows, cols, points })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cell_and_point_grids() {
        assert_eq!("8x8".parse::<GridSpec>().unwrap(), GridSpec::cells(8, 8));
        assert_eq!("9X9".parse::<GridSpec>().unwrap(), GridSpec::cells(9, 9));
        assert_eq!(
            "18x18".parse::<GridSpec>().unwrap(),
            GridSpec::cells(18, 18)
        );
        assert_eq!("3x25".parse::<GridSpec>().unwrap(), GridSpec::cells(3, 25));
        let go = "19x19:points".parse::<GridSpec>().unwrap();
        assert_eq!(go, GridSpec::points(19, 19));
        assert_eq!(go.lattice_cells(), (18, 18));
        assert_eq!(go.to_string(), "19x19:points");
    }

    #[test]
    fn rejects_bad_grids_with_a_reason() {
        for bad in [
            "", "8", "8x", "x8", "1x8", "26x26", "8x8:dots", "ax8", "-8x8",
        ] {
            let err = bad.parse::<GridSpec>().unwrap_err().to_string();
            assert!(err.contains(&format!("'{bad}'")), "{err}");
        }
        let err = " 8x8:dots".parse::<GridSpec>().unwrap_err();
        assert_eq!(err.column, Some(6));
        assert_eq!("8xa".parse::<GridSpec>().unwrap_err().column, Some(3));
    }

    #[test]
    fn site_centres_follow_corner_order() {
        let g = GridSpec::cells(8, 8);
        assert_eq!(g.site_center(0, 0), (0.0625, 0.0625));
        assert_eq!(g.site_center(0, 7), (0.9375, 0.0625));
        let p = GridSpec::points(19, 19);
        assert_eq!(p.site_center(18, 0), (0.0, 1.0));
    }
}
