//! The board's pose in an image: four corners of the playing grid.

use std::str::FromStr;

use super::SpecError;

/// Corners TL, TR, BR, BL in image pixels: the outer corners of the cell grid, or
/// for a points grid the four outermost line crossings. Validated on construction:
/// a convex, non-degenerate quadrilateral, clockwise on the image (y down).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Corners([(f64, f64); 4]);

/// Smallest side accepted, in pixels: below that no cell is large enough to classify.
const MIN_SIDE_PX: f64 = 8.0;

/// Largest coordinate accepted, in pixels: no image read is larger (see
/// `capture::MAX_PIXELS`), and far beyond it the maps lose their precision.
pub(crate) const MAX_COORD_PX: f64 = 100_000.0;

impl Corners {
    /// Corners TL, TR, BR, BL in image pixels, refused unless they are finite, within
    /// reach of the image, apart, and a convex quadrilateral taken clockwise.
    pub fn new(pts: [(f64, f64); 4]) -> Result<Corners, SpecError> {
        let text = format_points(&pts);
        let bad = |why: String| SpecError {
            what: "corners",
            text: text.clone(),
            column: None,
            why,
        };
        if pts.iter().any(|(x, y)| !x.is_finite() || !y.is_finite()) {
            return Err(bad("coordinates must be finite numbers".into()));
        }
        if pts
            .iter()
            .any(|(x, y)| x.abs() > MAX_COORD_PX || y.abs() > MAX_COORD_PX)
        {
            return Err(bad(format!(
                "coordinates must lie within {MAX_COORD_PX} px of the image's top left"
            )));
        }
        for i in 0..4 {
            let (a, b) = (pts[i], pts[(i + 1) % 4]);
            let side = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
            if side < MIN_SIDE_PX {
                return Err(bad(format!(
                    "side {} is {side:.1} px long; corners must be distinct and at least {MIN_SIDE_PX} px apart",
                    SIDE_NAMES[i]
                )));
            }
        }
        // With y pointing down, TL→TR→BR→BL is clockwise on screen, which is a
        // positive cross product at every vertex.
        let crosses: Vec<f64> = (0..4)
            .map(|i| {
                let (a, b, c) = (pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]);
                (b.0 - a.0) * (c.1 - b.1) - (b.1 - a.1) * (c.0 - b.0)
            })
            .collect();
        let longest = (0..4)
            .map(|i| {
                let (a, b) = (pts[i], pts[(i + 2) % 4]);
                (b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)
            })
            .fold(0.0, f64::max);
        if crosses.iter().any(|c| c.abs() < 1e-3 * longest) {
            return Err(bad("three corners lie on one line".into()));
        }
        if crosses.iter().all(|&c| c < 0.0) {
            return Err(bad(
                "the corners run anticlockwise; give them in the order top-left, top-right, bottom-right, bottom-left".into(),
            ));
        }
        if !crosses.iter().all(|&c| c > 0.0) {
            return Err(bad(
                "the quadrilateral is not convex (corners out of order or crossing sides)".into(),
            ));
        }
        let area = polygon_area(&pts);
        if area < MIN_SIDE_PX * MIN_SIDE_PX {
            return Err(bad(format!(
                "the quadrilateral is degenerate (area {area:.1} px²)"
            )));
        }
        // Both ways between the grid and the image must be solvable: every later
        // map (rectification, overlays) relies on it.
        let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        if super::Homography::from_points(&unit, &pts).is_none()
            || super::Homography::from_points(&pts, &unit).is_none()
        {
            return Err(bad(
                "the quadrilateral is too close to degenerate to map".into()
            ));
        }
        Ok(Corners(pts))
    }

    /// The corners TL, TR, BR, BL.
    pub fn points(&self) -> [(f64, f64); 4] {
        self.0
    }

    /// The quadrilateral's area, in square pixels.
    pub(crate) fn area(&self) -> f64 {
        let p = self.0;
        let twice: f64 = (0..4)
            .map(|i| {
                let (a, b) = (p[i], p[(i + 1) % 4]);
                a.0 * b.1 - b.0 * a.1
            })
            .sum();
        twice.abs() / 2.0
    }

    /// The same board seen with another corner first: `k` quarter turns, so that the
    /// corner that was at index `k` becomes TL. Used when the board turns out to be
    /// rotated relative to the player's view.
    pub fn rotated(&self, k: usize) -> Corners {
        let p = self.0;
        Corners([p[k % 4], p[(k + 1) % 4], p[(k + 2) % 4], p[(k + 3) % 4]])
    }
}

const SIDE_NAMES: [&str; 4] = ["TL-TR", "TR-BR", "BR-BL", "BL-TL"];

fn polygon_area(p: &[(f64, f64); 4]) -> f64 {
    (0..4)
        .map(|i| {
            let (a, b) = (p[i], p[(i + 1) % 4]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum::<f64>()
        / 2.0
}

fn format_points(p: &[(f64, f64); 4]) -> String {
    p.iter()
        .map(|(x, y)| format!("{x},{y}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `x,y x,y x,y x,y` (TL TR BR BL), as `--corners` takes them; a precision
/// (`{:.1}`) rounds every coordinate to it, as messages give corners.
impl std::fmt::Display for Corners {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match f.precision() {
            Some(p) => {
                let texts = self.0.map(|(x, y)| format!("{x:.p$},{y:.p$}"));
                f.write_str(&texts.join(" "))
            }
            None => f.write_str(&format_points(&self.0)),
        }
    }
}

impl FromStr for Corners {
    type Err = SpecError;

    /// Parses `"x,y x,y x,y x,y"` (TL TR BR BL); semicolons may separate points too.
    fn from_str(s: &str) -> Result<Corners, SpecError> {
        let bad_at = |part: Option<&str>, why: &str| SpecError {
            what: "corners",
            text: s.to_string(),
            column: part.map(|p| super::offset_in(s, p).map_or(1, |o| super::column_at(s, o))),
            why: why.to_string(),
        };
        let bad = |why: &str| bad_at(Some(s), why);
        let pts: Vec<&str> = s
            .split(|c: char| c.is_whitespace() || c == ';')
            .filter(|t| !t.is_empty())
            .collect();
        if pts.len() != 4 {
            return Err(bad(&format!(
                "expected four points \"x,y x,y x,y x,y\" (TL TR BR BL), found {}",
                pts.len()
            )));
        }
        let mut out = [(0.0, 0.0); 4];
        for (i, p) in pts.iter().enumerate() {
            let (x, y) = p
                .split_once(',')
                .ok_or_else(|| bad_at(Some(p), &format!("point '{p}' is not of the form x,y")))?;
            let num = |t: &str| {
                t.trim()
                    .parse::<f64>()
                    .map_err(|_| bad_at(Some(t), &format!("'{t}' in point '{p}' is not a number")))
            };
            out[i] = (num(x)?, num(y)?);
        }
        Corners::new(out).map_err(|e| SpecError {
            text: s.to_string(),
            ..e
        })
    }
}

/// Whether `p` lies inside the convex quadrilateral `q` (either winding).
pub(crate) fn quad_contains(q: &[(f64, f64); 4], p: (f64, f64)) -> bool {
    let sides: Vec<f64> = (0..4)
        .map(|i| {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
        })
        .collect();
    sides.iter().all(|&s| s > 0.0) || sides.iter().all(|&s| s < 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_a_perspective_quad() {
        let c: Corners = "100,50 500,80 520,400 60,380".parse().unwrap();
        assert_eq!(c.points()[2], (520.0, 400.0));
        assert_eq!(c.rotated(1).points()[0], (500.0, 80.0));
        assert_eq!(c.to_string(), "100,50 500,80 520,400 60,380");
        assert_eq!(
            format!("{c:.1}"),
            "100.0,50.0 500.0,80.0 520.0,400.0 60.0,380.0"
        );
    }

    #[test]
    fn rejects_bad_corners_with_reasons() {
        let cases = [
            ("1,2 3,4", "expected four points"),
            ("0,0 100,0 100,100 a,100", "not a number"),
            ("0,0 100 100,100 0,100", "not of the form"),
            ("0,0 0,100 100,100 100,0", "anticlockwise"),
            ("0,0 100,100 100,0 0,100", "not convex"),
            ("0,0 100,0 60,20 0,100", "not convex"),
            ("0,0 50,0 100,0 0,100", "one line"),
            ("0,0 0,0 100,100 0,100", "distinct"),
            ("0,0 100,0 100,nan 0,100", "finite"),
            ("0,0 1e7,0 1e7,1e7 0,1e7", "within"),
            ("0,0 100,0 100,inf 0,100", "finite"),
        ];
        for (text, want) in cases {
            let err = text.parse::<Corners>().unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
        let err = "0,0 100,0 100,100 a,100".parse::<Corners>().unwrap_err();
        assert_eq!(err.column, Some(19));
        let err = "0,0 100,0 100,100 100,0".parse::<Corners>().unwrap_err();
        assert_eq!(err.column, None);
    }
}
