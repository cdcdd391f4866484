//! Families of segments that meet in one vanishing point: the board's two sets of
//! grid lines (parallel on the board, converging in an oblique view). Found by
//! RANSAC over pairs of long segments, then refined by least squares.

use super::linalg::least_squares_null;
use super::segments::Segment;
use crate::geometry::mat3::{cross, line_normalised, unit, V3};
use crate::rng::Rng;

/// A segment in normalised image coordinates: centred, the larger half-side = 1,
/// so that homogeneous arithmetic is well conditioned.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NSeg {
    pub(crate) a: (f64, f64),
    pub(crate) b: (f64, f64),
    pub(crate) mid: (f64, f64),
    pub(crate) dir: (f64, f64),
    pub(crate) len: f64,
    /// The segment's line, with a unit normal.
    pub(crate) line: V3,
}

/// Working pixels to normalised coordinates and back.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub(crate) cx: f64,
    pub(crate) cy: f64,
    pub(crate) f: f64,
}

impl Frame {
    pub(crate) fn new(width: i32, height: i32) -> Frame {
        Frame {
            cx: width as f64 / 2.0,
            cy: height as f64 / 2.0,
            f: width.max(height) as f64 / 2.0,
        }
    }

    pub(crate) fn to_norm(self, p: (f64, f64)) -> (f64, f64) {
        ((p.0 - self.cx) / self.f, (p.1 - self.cy) / self.f)
    }

    pub(crate) fn to_px(self, p: (f64, f64)) -> (f64, f64) {
        (p.0 * self.f + self.cx, p.1 * self.f + self.cy)
    }

    pub(crate) fn segment(self, s: &Segment) -> NSeg {
        let (a, b) = (self.to_norm(s.a), self.to_norm(s.b));
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let dir = ((b.0 - a.0) / len, (b.1 - a.1) / len);
        let line = line_normalised(cross([a.0, a.1, 1.0], [b.0, b.1, 1.0]));
        NSeg {
            a,
            b,
            mid: ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0),
            dir,
            len,
            line,
        }
    }
}

/// Segments converging on one vanishing point (homogeneous, unit length).
#[derive(Clone, Debug)]
pub(crate) struct Family {
    pub(crate) vp: V3,
    pub(crate) members: Vec<usize>,
}

impl Family {
    /// Direction of the family's lines at image point `p`.
    pub(crate) fn direction_at(&self, p: (f64, f64)) -> (f64, f64) {
        let u = (self.vp[0] - p.0 * self.vp[2], self.vp[1] - p.1 * self.vp[2]);
        let n = (u.0 * u.0 + u.1 * u.1).sqrt().max(1e-300);
        (u.0 / n, u.1 / n)
    }
}

/// Sine of the angle between a segment and the direction towards `vp`, or `None`
/// when the point lies on the segment's midpoint.
fn misalignment(s: &NSeg, vp: V3) -> Option<f64> {
    let u = (vp[0] - s.mid.0 * vp[2], vp[1] - s.mid.1 * vp[2]);
    let n = (u.0 * u.0 + u.1 * u.1).sqrt();
    (n > 1e-12).then(|| (s.dir.0 * u.1 - s.dir.1 * u.0).abs() / n)
}

/// Whether a segment points at `vp`: its ends stray less than `tol` (normalised
/// units) from the line through its middle and `vp`, and it is within 2 degrees.
fn consistent(s: &NSeg, vp: V3, tol: f64) -> bool {
    misalignment(s, vp).is_some_and(|sin| sin < 0.035 && sin * s.len / 2.0 < tol)
}

/// Up to `max` families, strongest first. `tol` is the endpoint tolerance in
/// normalised units; `cap` bounds one segment's vote so that a long table edge
/// cannot outvote a grid.
pub(crate) fn families(segs: &[NSeg], tol: f64, cap: f64, max: usize) -> Vec<Family> {
    let mut free: Vec<usize> = (0..segs.len()).collect();
    let mut out = Vec::new();
    let mut rng = Rng::new(0x5eed_1a77);
    while out.len() < max && free.len() >= 4 {
        let Some(fam) = best_family(segs, &free, tol, cap, &mut rng) else {
            break;
        };
        free.retain(|i| !fam.members.contains(i));
        out.push(fam);
    }
    out
}

fn best_family(segs: &[NSeg], free: &[usize], tol: f64, cap: f64, rng: &mut Rng) -> Option<Family> {
    let mut by_len: Vec<usize> = free.to_vec();
    by_len.sort_by(|&i, &j| segs[j].len.total_cmp(&segs[i].len));
    let pool = &by_len[..by_len.len().min(250)];
    if pool.len() < 2 {
        return None;
    }
    let score = |vp: V3| -> f64 {
        free.iter()
            .filter(|&&i| consistent(&segs[i], vp, tol))
            .map(|&i| segs[i].len.min(cap))
            .sum()
    };
    let mut best: Option<(f64, V3)> = None;
    for _ in 0..300 {
        let i = pool[rng.below(pool.len())];
        let j = pool[rng.below(pool.len())];
        if i == j {
            continue;
        }
        let vp = unit(cross(segs[i].line, segs[j].line));
        if !vp.iter().all(|v| v.is_finite()) || vp == [0.0; 3] {
            continue;
        }
        // Both seeds must point at their own meeting point, or it is no vanishing point.
        if !consistent(&segs[i], vp, tol) || !consistent(&segs[j], vp, tol) {
            continue;
        }
        let s = score(vp);
        if best.is_none_or(|(b, _)| s > b) {
            best = Some((s, vp));
        }
    }
    let (_, mut vp) = best?;
    for _ in 0..3 {
        let members: Vec<usize> = free
            .iter()
            .copied()
            .filter(|&i| consistent(&segs[i], vp, tol))
            .collect();
        let rows: Vec<(V3, f64)> = members
            .iter()
            .map(|&i| (segs[i].line, segs[i].len.min(cap)))
            .collect();
        match least_squares_null(&rows) {
            Some(v) => vp = v,
            None => break,
        }
    }
    let members: Vec<usize> = free
        .iter()
        .copied()
        .filter(|&i| consistent(&segs[i], vp, tol))
        .collect();
    (members.len() >= 3).then_some(Family { vp, members })
}
