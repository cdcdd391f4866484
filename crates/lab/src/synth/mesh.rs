//! Triangle meshes and the builders the pieces, hand and props are made of.

use super::math::{v3, Frame, V3};

#[derive(Clone, Debug, Default)]
pub struct Mesh {
    pub pos: Vec<V3>,
    pub nrm: Vec<V3>,
    pub tris: Vec<[u32; 3]>,
}

impl Mesh {
    /// Appends `other` rotated by `rot`, scaled per axis (in its own frame)
    /// and moved by `off`.
    pub fn append(&mut self, other: &Mesh, rot: &Frame, scale: V3, off: V3) {
        let base = self.pos.len() as u32;
        let inv = v3(1.0 / scale.x, 1.0 / scale.y, 1.0 / scale.z);
        for (p, n) in other.pos.iter().zip(&other.nrm) {
            self.pos.push(rot.apply(p.mul_e(scale)) + off);
            // Normals transform with the inverse scale.
            self.nrm.push(rot.apply(n.mul_e(inv)).norm());
        }
        self.tris.extend(
            other
                .tris
                .iter()
                .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
        );
    }

    pub fn merged(parts: &[&Mesh]) -> Mesh {
        let mut m = Mesh::default();
        for p in parts {
            m.append(p, &Frame::IDENTITY, v3(1.0, 1.0, 1.0), V3::default());
        }
        m
    }

    /// Top of the mesh (max z), used to stack pieces and carry them.
    pub fn top(&self) -> f32 {
        self.pos.iter().fold(0.0f32, |a, p| a.max(p.z))
    }
}

/// Points of a circular arc in the (r, z) plane, angles in degrees from +r.
pub fn arc(cr: f32, cz: f32, rad: f32, a0: f32, a1: f32, n: usize) -> Vec<(f32, f32)> {
    (0..=n)
        .map(|i| {
            let a = (a0 + (a1 - a0) * i as f32 / n as f32).to_radians();
            ((cr + rad * a.cos()).max(0.0), cz + rad * a.sin())
        })
        .collect()
}

/// Revolves an (r, z) profile about the z axis. Consecutive segments meeting
/// at more than about 40 degrees get a hard edge so turned details read.
pub fn lathe(profile: &[(f32, f32)], segments: usize) -> Mesh {
    let mut m = Mesh::default();
    let n = profile.len();
    if n < 2 || segments < 3 {
        return m;
    }
    let seg_n: Vec<(f32, f32)> = profile
        .windows(2)
        .map(|w| {
            let (dr, dz) = (w[1].0 - w[0].0, w[1].1 - w[0].1);
            let l = (dr * dr + dz * dz).sqrt().max(1e-9);
            (dz / l, -dr / l)
        })
        .collect();
    let smooth = |a: (f32, f32), b: (f32, f32)| -> Option<(f32, f32)> {
        if a.0 * b.0 + a.1 * b.1 > 0.77 {
            let (x, y) = (a.0 + b.0, a.1 + b.1);
            let l = (x * x + y * y).sqrt().max(1e-9);
            Some((x / l, y / l))
        } else {
            None
        }
    };
    let ring: Vec<(f32, f32)> = (0..segments)
        .map(|k| {
            let a = std::f32::consts::TAU * k as f32 / segments as f32;
            (a.cos(), a.sin())
        })
        .collect();
    for s in 0..n - 1 {
        let ns = if s > 0 {
            smooth(seg_n[s - 1], seg_n[s]).unwrap_or(seg_n[s])
        } else {
            seg_n[s]
        };
        let ne = if s + 2 < n {
            smooth(seg_n[s], seg_n[s + 1]).unwrap_or(seg_n[s])
        } else {
            seg_n[s]
        };
        let base = m.pos.len() as u32;
        for (pt, nn) in [(profile[s], ns), (profile[s + 1], ne)] {
            for &(c, si) in &ring {
                m.pos.push(v3(pt.0 * c, pt.0 * si, pt.1));
                m.nrm.push(v3(nn.0 * c, nn.0 * si, nn.1));
            }
        }
        let k = segments as u32;
        for i in 0..k {
            let j = (i + 1) % k;
            let (a0, a1, b0, b1) = (base + i, base + j, base + k + i, base + k + j);
            // A ring of radius zero collapses one of the two triangles.
            if profile[s].0 > 1e-6 {
                m.tris.push([a0, a1, b1]);
            }
            if profile[s + 1].0 > 1e-6 {
                m.tris.push([a0, b1, b0]);
            }
        }
    }
    m
}

fn cross2(o: (f32, f32), a: (f32, f32), b: (f32, f32)) -> f32 {
    (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
}

/// Ear-clipping triangulation of a simple polygon (either winding).
pub fn triangulate(poly: &[(f32, f32)]) -> Vec<[usize; 3]> {
    let n = poly.len();
    let mut out = Vec::new();
    if n < 3 {
        return out;
    }
    let area: f32 = (0..n)
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum();
    let sign = if area >= 0.0 { 1.0 } else { -1.0 };
    let mut idx: Vec<usize> = (0..n).collect();
    let mut guard = 0;
    while idx.len() > 3 && guard < 10 * n {
        guard += 1;
        let m = idx.len();
        let mut clipped = false;
        for i in 0..m {
            let (ia, ib, ic) = (idx[(i + m - 1) % m], idx[i], idx[(i + 1) % m]);
            let (a, b, c) = (poly[ia], poly[ib], poly[ic]);
            if sign * cross2(a, b, c) <= 1e-12 {
                continue;
            }
            let inside = idx.iter().any(|&k| {
                if k == ia || k == ib || k == ic {
                    return false;
                }
                let p = poly[k];
                sign * cross2(a, b, p) >= 0.0
                    && sign * cross2(b, c, p) >= 0.0
                    && sign * cross2(c, a, p) >= 0.0
            });
            if !inside {
                out.push([ia, ib, ic]);
                idx.remove(i);
                clipped = true;
                break;
            }
        }
        if !clipped {
            break;
        }
    }
    if idx.len() == 3 {
        out.push([idx[0], idx[1], idx[2]]);
    }
    out
}

/// A polygon in the (x, z) plane swept along y through `layers` of
/// (y, scale about the polygon's centre); flat-shaded walls and end caps.
/// Scaling the end layers down gives a bevelled, rounded-looking solid.
pub fn loft(poly: &[(f32, f32)], layers: &[(f32, f32)]) -> Mesh {
    let mut m = Mesh::default();
    let n = poly.len();
    if n < 3 || layers.len() < 2 {
        return m;
    }
    let cx = poly.iter().map(|p| p.0).sum::<f32>() / n as f32;
    let cz = poly.iter().map(|p| p.1).sum::<f32>() / n as f32;
    let ring = |(y, s): (f32, f32)| -> Vec<V3> {
        poly.iter()
            .map(|&(x, z)| v3(cx + (x - cx) * s, y, cz + (z - cz) * s))
            .collect()
    };
    let rings: Vec<Vec<V3>> = layers.iter().map(|&l| ring(l)).collect();
    let tri = triangulate(poly);
    for (r, ny) in [(&rings[0], -1.0f32), (&rings[rings.len() - 1], 1.0)] {
        let base = m.pos.len() as u32;
        for p in r {
            m.pos.push(*p);
            m.nrm.push(v3(0.0, ny, 0.0));
        }
        m.tris.extend(
            tri.iter()
                .map(|t| [base + t[0] as u32, base + t[1] as u32, base + t[2] as u32]),
        );
    }
    let centre = v3(cx, 0.0, cz);
    for w in rings.windows(2) {
        for i in 0..n {
            let j = (i + 1) % n;
            let q = [w[0][i], w[0][j], w[1][j], w[1][i]];
            let mut nn = (q[1] - q[0]).cross(q[3] - q[0]).norm();
            // Face the normal away from the solid's axis.
            let mid = (q[0] + q[2]) * 0.5;
            let out = v3(mid.x - centre.x, 0.0, mid.z - centre.z);
            if nn.dot(out) < 0.0 {
                nn = -nn;
            }
            let base = m.pos.len() as u32;
            for p in q {
                m.pos.push(p);
                m.nrm.push(nn);
            }
            m.tris.push([base, base + 1, base + 2]);
            m.tris.push([base, base + 2, base + 3]);
        }
    }
    m
}

/// Axis-aligned box centred on the origin with flat faces.
pub fn cuboid(half: V3) -> Mesh {
    let mut m = Mesh::default();
    let faces = [
        (v3(1.0, 0.0, 0.0), v3(0.0, 1.0, 0.0), v3(0.0, 0.0, 1.0)),
        (v3(-1.0, 0.0, 0.0), v3(0.0, 0.0, 1.0), v3(0.0, 1.0, 0.0)),
        (v3(0.0, 1.0, 0.0), v3(0.0, 0.0, 1.0), v3(1.0, 0.0, 0.0)),
        (v3(0.0, -1.0, 0.0), v3(1.0, 0.0, 0.0), v3(0.0, 0.0, 1.0)),
        (v3(0.0, 0.0, 1.0), v3(1.0, 0.0, 0.0), v3(0.0, 1.0, 0.0)),
        (v3(0.0, 0.0, -1.0), v3(0.0, 1.0, 0.0), v3(1.0, 0.0, 0.0)),
    ];
    for (n, a, b) in faces {
        let base = m.pos.len() as u32;
        for (sa, sb) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p = n + a * sa + b * sb;
            m.pos.push(p.mul_e(half));
            m.nrm.push(n);
        }
        m.tris.push([base, base + 1, base + 2]);
        m.tris.push([base, base + 2, base + 3]);
    }
    m
}

/// Sphere of radius 1 (scale it into an ellipsoid with `Mesh::append`).
pub fn sphere(seg: usize) -> Mesh {
    lathe(&arc(0.0, 0.0, 1.0, -90.0, 90.0, seg / 2), seg)
}

/// Capsule of radius `r` between points `a` and `b`.
pub fn capsule(a: V3, b: V3, r: f32, seg: usize) -> Mesh {
    let len = (b - a).len();
    let mut prof = arc(0.0, 0.0, r, -90.0, 0.0, 3);
    prof.extend(arc(0.0, len, r, 0.0, 90.0, 3));
    let local = lathe(&prof, seg);
    let mut m = Mesh::default();
    m.append(&local, &Frame::from_z(b - a), v3(1.0, 1.0, 1.0), a);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangulates_concave_polygon() {
        let l = [
            (0.0, 0.0),
            (2.0, 0.0),
            (2.0, 1.0),
            (1.0, 1.0),
            (1.0, 2.0),
            (0.0, 2.0),
        ];
        let t = triangulate(&l);
        assert_eq!(t.len(), 4);
        let area: f32 = t
            .iter()
            .map(|t| cross2(l[t[0]], l[t[1]], l[t[2]]).abs() / 2.0)
            .sum();
        assert!((area - 3.0).abs() < 1e-4);
    }

    #[test]
    fn lathe_is_closed_and_normals_unit() {
        let m = lathe(&arc(0.0, 0.0, 1.0, -90.0, 90.0, 6), 12);
        assert!(!m.tris.is_empty());
        for n in &m.nrm {
            assert!((n.len() - 1.0).abs() < 1e-3);
        }
        assert!((m.top() - 1.0).abs() < 1e-5);
    }
}
