//! Z-buffer rasteriser writing a visibility buffer (triangle id and
//! perspective-correct barycentrics per pixel, shaded later exactly once),
//! and an orthographic depth-only rasteriser for the shadow map.

use super::camera::Camera;
use super::math::{ceil_i, floor_i, trunc_i, Frame, V3};
use super::mesh::Mesh;
use super::pool;

#[derive(Clone, Copy, Debug)]
pub struct Tri {
    pub v: [u32; 3],
    pub mat: u16,
    /// All three vertex normals are equal (shading skips interpolation).
    pub flat: bool,
    pub obj: u32,
}

/// World-space triangles with per-vertex normals.
#[derive(Clone, Debug, Default)]
pub struct Geometry {
    pub pos: Vec<V3>,
    pub nrm: Vec<V3>,
    pub tris: Vec<Tri>,
}

impl Geometry {
    /// Empty, in recycled buffers.
    pub fn pooled() -> Geometry {
        Geometry {
            pos: pool::take(0),
            nrm: pool::take(0),
            tris: pool::take(0),
        }
    }

    /// Hands the buffers back for reuse.
    pub fn recycle(self) {
        pool::give(self.pos);
        pool::give(self.nrm);
        pool::give(self.tris);
    }

    #[allow(clippy::too_many_arguments)]
    pub fn add_mesh(&mut self, m: &Mesh, rot: &Frame, scale: V3, off: V3, mat: u16, obj: u32) {
        let base = self.pos.len() as u32;
        let inv = V3 {
            x: 1.0 / scale.x,
            y: 1.0 / scale.y,
            z: 1.0 / scale.z,
        };
        for (p, n) in m.pos.iter().zip(&m.nrm) {
            self.pos.push(rot.apply(p.mul_e(scale)) + off);
            self.nrm.push(rot.apply(n.mul_e(inv)).norm());
        }
        let nrm = &self.nrm;
        self.tris.extend(m.tris.iter().map(|t| {
            let v = [t[0] + base, t[1] + base, t[2] + base];
            let n = [nrm[v[0] as usize], nrm[v[1] as usize], nrm[v[2] as usize]];
            Tri {
                v,
                mat,
                flat: n[0] == n[1] && n[1] == n[2],
                obj,
            }
        }));
    }
}

pub const NO_TRI: u32 = u32::MAX;

pub struct VisBuf {
    pub w: usize,
    pub h: usize,
    /// 1 / depth; 0 = nothing drawn.
    pub q: Vec<f32>,
    pub tri: Vec<u32>,
    pub bary: Vec<[f32; 2]>,
}

impl VisBuf {
    pub fn new(w: usize, h: usize) -> VisBuf {
        let mut vb = VisBuf {
            w: 0,
            h: 0,
            q: pool::take(w * h),
            tri: pool::take(w * h),
            bary: pool::take(w * h),
        };
        vb.reset(w, h);
        vb
    }

    /// Hands the buffers back for reuse.
    pub fn recycle(self) {
        pool::give(self.q);
        pool::give(self.tri);
        pool::give(self.bary);
    }

    /// Clears for reuse; keeping the allocation avoids fresh zero pages
    /// (page faults were a tenth of the frame time).
    pub fn reset(&mut self, w: usize, h: usize) {
        self.w = w;
        self.h = h;
        self.q.clear();
        self.q.resize(w * h, 0.0);
        self.tri.clear();
        self.tri.resize(w * h, NO_TRI);
        self.bary.resize(w * h, [0.0; 2]);
    }
}

const NEAR: f32 = 0.01;

/// Screen vertex: x, y, 1/z, barycentric weights of the source triangle.
type SV = [f32; 5];

fn clip_near(c: [V3; 3]) -> Vec<(V3, [f32; 2])> {
    let attrs = [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]];
    let mut out = Vec::with_capacity(4);
    for i in 0..3 {
        let j = (i + 1) % 3;
        let (a, b) = (c[i], c[j]);
        let (ina, inb) = (a.z >= NEAR, b.z >= NEAR);
        if ina {
            out.push((a, attrs[i]));
        }
        if ina != inb {
            let t = (NEAR - a.z) / (b.z - a.z);
            let p = a.lerp(b, t);
            let at = [
                attrs[i][0] + (attrs[j][0] - attrs[i][0]) * t,
                attrs[i][1] + (attrs[j][1] - attrs[i][1]) * t,
            ];
            out.push((p, at));
        }
    }
    out
}

/// Draws `geom` into `vb`; pixel triangle ids are `id_base + index`.
pub fn rasterize(geom: &Geometry, id_base: u32, cam: &Camera, vb: &mut VisBuf) {
    let f = cam.focal_px as f32;
    let cx = (cam.cx + cam.canvas_off.0) as f32;
    let cy = (cam.cy + cam.canvas_off.1) as f32;
    let mut cpos: Vec<V3> = pool::take(geom.pos.len());
    cpos.extend(geom.pos.iter().map(|&p| cam.to_cam(p)));
    let proj = |c: V3, at: [f32; 2]| -> SV {
        let q = 1.0 / c.z;
        [cx + f * c.x * q, cy - f * c.y * q, q, at[0], at[1]]
    };
    for (ti, t) in geom.tris.iter().enumerate() {
        let c = [
            cpos[t.v[0] as usize],
            cpos[t.v[1] as usize],
            cpos[t.v[2] as usize],
        ];
        // Cull only when all three vertex normals face away, which holds for
        // back faces of closed meshes and never at a smooth silhouette.
        let away = (0..3)
            .all(|k| geom.nrm[t.v[k] as usize].dot(geom.pos[t.v[k] as usize] - cam.pos) > 0.0);
        if away {
            continue;
        }
        let id = id_base + ti as u32;
        if c[0].z >= NEAR && c[1].z >= NEAR && c[2].z >= NEAR {
            let s = [
                proj(c[0], [1.0, 0.0]),
                proj(c[1], [0.0, 1.0]),
                proj(c[2], [0.0, 0.0]),
            ];
            raster_tri(vb, s, id);
        } else if c[0].z >= NEAR || c[1].z >= NEAR || c[2].z >= NEAR {
            let poly = clip_near(c);
            for k in 1..poly.len().saturating_sub(1) {
                let s = [
                    proj(poly[0].0, poly[0].1),
                    proj(poly[k].0, poly[k].1),
                    proj(poly[k + 1].0, poly[k + 1].1),
                ];
                raster_tri(vb, s, id);
            }
        }
    }
    pool::give(cpos);
}

#[inline]
fn raster_tri(vb: &mut VisBuf, s: [SV; 3], id: u32) {
    let [a, b, c] = s;
    let area = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
    if area.abs() < 1e-9 || !area.is_finite() {
        return;
    }
    let minx = (ceil_i(a[0].min(b[0]).min(c[0])) as f32).max(0.0);
    let maxx = (floor_i(a[0].max(b[0]).max(c[0])) as f32).min(vb.w as f32 - 1.0);
    let miny = (ceil_i(a[1].min(b[1]).min(c[1])) as f32).max(0.0);
    let maxy = (floor_i(a[1].max(b[1]).max(c[1])) as f32).min(vb.h as f32 - 1.0);
    if minx > maxx || miny > maxy {
        return;
    }
    let inv = 1.0 / area;
    // Edge functions as planes e(x, y) = ex * x + ey * y + e0, normalised so
    // that they are barycentric weights.
    let edge = |p: SV, q: SV| -> (f32, f32, f32) {
        let ex = (p[1] - q[1]) * inv;
        let ey = (q[0] - p[0]) * inv;
        let e0 = (p[0] * q[1] - p[1] * q[0]) * inv;
        (ex, ey, e0)
    };
    let e0 = edge(b, c);
    let e1 = edge(c, a);
    let e2 = edge(a, b);
    let (y0, y1) = (miny as usize, maxy as usize);
    let qa = a[2];
    let qb = b[2];
    let qc = c[2];
    let eps = 1e-6;
    for py in y0..=y1 {
        let fy = py as f32;
        // Each edge function is linear in x along the row, so the covered
        // span follows from three inequalities; no per-pixel inside test.
        let (mut lo, mut hi) = (minx, maxx);
        for e in [e0, e1, e2] {
            let base = e.1 * fy + e.2 + eps;
            if e.0.abs() < 1e-12 {
                if base < 0.0 {
                    hi = lo - 1.0;
                }
            } else {
                let x = -base / e.0;
                if e.0 > 0.0 {
                    lo = lo.max(ceil_i(x) as f32);
                } else {
                    hi = hi.min(floor_i(x) as f32);
                }
            }
        }
        if lo > hi {
            continue;
        }
        let span = py * vb.w + lo as usize..py * vb.w + hi as usize + 1;
        let mut w0 = e0.0 * lo + e0.1 * fy + e0.2;
        let mut w1 = e1.0 * lo + e1.1 * fy + e1.2;
        let pixels = vb.q[span.clone()]
            .iter_mut()
            .zip(&mut vb.tri[span.clone()])
            .zip(&mut vb.bary[span]);
        for ((vq, vt), vbary) in pixels {
            let w2 = 1.0 - w0 - w1;
            let q = w0 * qa + w1 * qb + w2 * qc;
            if q > *vq {
                *vq = q;
                *vt = id;
                let iq = 1.0 / q;
                let ba = (w0 * qa * a[3] + w1 * qb * b[3] + w2 * qc * c[3]) * iq;
                let bb = (w0 * qa * a[4] + w1 * qb * b[4] + w2 * qc * c[4]) * iq;
                *vbary = [ba, bb];
            }
            w0 += e0.0;
            w1 += e1.0;
        }
    }
}

/// Depth map seen from a directional light.
#[derive(Clone)]
pub struct ShadowMap {
    pub size: usize,
    pub frame: Frame,
    pub centre: V3,
    pub texel: f32,
    inv_texel: f32,
    /// Row length of `depth`: the map plus a border of `PAD` texels on
    /// every side that stays -inf, so filter taps need no range checks.
    stride: usize,
    /// Light-space height of the closest caster; -inf = none. Texel (x, y)
    /// is at `(y + PAD) * stride + x + PAD`.
    pub depth: Vec<f32>,
    /// Tiles per side.
    nt: usize,
    /// Highest caster in each `TILE`-square tile and its neighbours, so that
    /// the many pixels far from any caster skip the filter taps.
    tiles: Vec<f32>,
    raw_tiles: Vec<f32>,
    /// The same for casters drawn since the last `copy_with` only.
    dyn_tiles: Vec<f32>,
    dyn_raw: Vec<f32>,
}

/// Tile side in texels. The filter reaches at most 3 texels from the
/// lookup (taps at most 2.5 texels off, then a 2x2 footprint), so one
/// dilated ring of 4-texel tiles covers it.
const TILE: usize = 4;
const PAD: usize = 4;

impl ShadowMap {
    /// `to_light` points towards the light; the map covers a disc of
    /// `radius` around `centre`.
    pub fn new(to_light: V3, centre: V3, radius: f32, size: usize) -> ShadowMap {
        let nt = size.div_ceil(TILE);
        let stride = size + 2 * PAD;
        let empty = |n: usize| {
            let mut v = pool::take(n);
            v.resize(n, f32::NEG_INFINITY);
            v
        };
        ShadowMap {
            size,
            frame: Frame::from_z(to_light),
            centre,
            texel: 2.0 * radius / size as f32,
            inv_texel: size as f32 / (2.0 * radius),
            stride,
            depth: empty(stride * stride),
            nt,
            tiles: empty(nt * nt),
            raw_tiles: empty(nt * nt),
            dyn_tiles: empty(nt * nt),
            dyn_raw: empty(nt * nt),
        }
    }

    /// Hands the buffers back for reuse, leaving the map empty.
    pub fn recycle(&mut self) {
        for v in [
            &mut self.depth,
            &mut self.tiles,
            &mut self.raw_tiles,
            &mut self.dyn_tiles,
            &mut self.dyn_raw,
        ] {
            pool::give(std::mem::take(v));
        }
    }

    /// Recomputes the dilated tile maxima after drawing (3x3 maximum, as
    /// a row pass then a column pass).
    fn dilate(&mut self) {
        let n = self.nt;
        let mut rows: Vec<f32> = pool::take(n * n);
        rows.resize(n * n, f32::NEG_INFINITY);
        for (raw, out) in [
            (&self.raw_tiles, &mut self.tiles),
            (&self.dyn_raw, &mut self.dyn_tiles),
        ] {
            // Whole-row slice passes (they vectorise); max is order-free
            // here since tiles only ever meet `<=` comparisons.
            for (src, dst) in raw.chunks_exact(n).zip(rows.chunks_exact_mut(n)) {
                dst.copy_from_slice(src);
                for (d, l) in dst[1..].iter_mut().zip(src) {
                    *d = d.max(*l);
                }
                for (d, r) in dst.iter_mut().zip(&src[1..]) {
                    *d = d.max(*r);
                }
            }
            for (y, o) in out.chunks_exact_mut(n).enumerate() {
                o.copy_from_slice(&rows[y * n..(y + 1) * n]);
                let (lo, hi) = (y.saturating_sub(1), (y + 1).min(n - 1));
                for r in [lo, hi] {
                    for (d, v) in o.iter_mut().zip(&rows[r * n..(r + 1) * n]) {
                        *d = d.max(*v);
                    }
                }
            }
        }
        pool::give(rows);
    }

    /// No caster drawn since the copy can darken a lookup with this probe.
    #[inline]
    pub fn dynamic_clear(&self, tile: u32, d: f32) -> bool {
        tile == u32::MAX || self.dyn_tiles[tile as usize] <= d + self.texel * 1.5
    }

    /// A copy of this map, in `spare`'s buffers where given.
    pub fn copy_with(&self, spare: Option<ShadowMap>) -> ShadowMap {
        let (mut depth, mut tiles, mut raw_tiles, mut dyn_tiles, mut dyn_raw) = match spare {
            Some(s) => (s.depth, s.tiles, s.raw_tiles, s.dyn_tiles, s.dyn_raw),
            None => Default::default(),
        };
        for (dst, src) in [
            (&mut depth, &self.depth),
            (&mut tiles, &self.tiles),
            (&mut raw_tiles, &self.raw_tiles),
        ] {
            dst.clear();
            dst.extend_from_slice(src);
        }
        for v in [&mut dyn_tiles, &mut dyn_raw] {
            v.clear();
            v.resize(self.tiles.len(), f32::NEG_INFINITY);
        }
        ShadowMap {
            size: self.size,
            frame: self.frame,
            centre: self.centre,
            texel: self.texel,
            inv_texel: self.inv_texel,
            stride: self.stride,
            depth,
            nt: self.nt,
            tiles,
            raw_tiles,
            dyn_tiles,
            dyn_raw,
        }
    }

    #[inline]
    fn to_map(&self, p: V3) -> (f32, f32, f32) {
        let d = p - self.centre;
        let half = self.size as f32 / 2.0;
        let inv = self.inv_texel;
        (
            d.dot(self.frame.x) * inv + half,
            d.dot(self.frame.y) * inv + half,
            d.dot(self.frame.z),
        )
    }

    /// Adds the triangles of `geom` for which `caster(tri)` holds.
    pub fn draw(&mut self, geom: &Geometry, caster: impl Fn(&Tri) -> bool) {
        let mut pts: Vec<V3> = pool::take(geom.pos.len());
        pts.extend(geom.pos.iter().map(|&p| {
            let (x, y, d) = self.to_map(p);
            V3 { x, y, z: d }
        }));
        let n = self.size as f32;
        let nt = self.nt;
        let l = self.frame.z;
        // The surface nearest the light faces it: triangles whose normals
        // all face away cannot set a texel's depth on a closed mesh.
        let lit_side = |t: &Tri| t.v.iter().any(|&i| geom.nrm[i as usize].dot(l) >= 0.0);
        for t in geom.tris.iter().filter(|t| caster(t) && lit_side(t)) {
            let [a, b, c] = [
                pts[t.v[0] as usize],
                pts[t.v[1] as usize],
                pts[t.v[2] as usize],
            ];
            let area = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
            if area.abs() < 1e-9 {
                continue;
            }
            let minx = (ceil_i(a.x.min(b.x).min(c.x)) as f32).max(0.0);
            let maxx = (floor_i(a.x.max(b.x).max(c.x)) as f32).min(n - 1.0);
            let miny = (ceil_i(a.y.min(b.y).min(c.y)) as f32).max(0.0);
            let maxy = (floor_i(a.y.max(b.y).max(c.y)) as f32).min(n - 1.0);
            if minx > maxx || miny > maxy {
                continue;
            }
            let inv = 1.0 / area;
            let (x0, x1) = (minx as usize, maxx as usize);
            for py in miny as usize..=maxy as usize {
                let fy = py as f32;
                let row = (py + PAD) * self.stride + PAD;
                let trow = (py / TILE) * nt;
                for px in x0..=x1 {
                    let fx = px as f32;
                    let w0 = ((b.x - fx) * (c.y - fy) - (c.x - fx) * (b.y - fy)) * inv;
                    let w1 = ((c.x - fx) * (a.y - fy) - (a.x - fx) * (c.y - fy)) * inv;
                    let w2 = 1.0 - w0 - w1;
                    if w0 >= -1e-6 && w1 >= -1e-6 && w2 >= -1e-6 {
                        let d = w0 * a.z + w1 * b.z + w2 * c.z;
                        let k = row + px;
                        if d > self.depth[k] {
                            self.depth[k] = d;
                            let tk = trow + px / TILE;
                            self.raw_tiles[tk] = self.raw_tiles[tk].max(d);
                            self.dyn_raw[tk] = self.dyn_raw[tk].max(d);
                        }
                    }
                }
            }
        }
        pool::give(pts);
        self.dilate();
    }

    /// Fraction of light reaching `p` (percentage-closer filter), and the
    /// probe (tile, light depth) that `dynamic_clear` takes.
    #[inline]
    pub fn light(&self, p: V3, soft: f32) -> (f32, (u32, f32)) {
        let (x, y, d) = self.to_map(p);
        let db = d + self.texel * 1.5;
        // Off the map counts as lit (the map covers the board and props).
        if !(x >= 0.0 && y >= 0.0 && x < self.size as f32 && y < self.size as f32) {
            return (1.0, (u32::MAX, d));
        }
        // Non-negative, so truncation is the floor.
        let tile = (trunc_i(y) as usize / TILE) * self.nt + trunc_i(x) as usize / TILE;
        let probe = (tile as u32, d);
        if self.tiles[tile] <= db {
            return (1.0, probe);
        }
        // Four bilinearly weighted 2x2 comparisons spread over `soft`
        // texels: smooth penumbrae without dithering. Only pixels near
        // casters get here; the tile dilation covers the reach, and the
        // -inf border (lit) the taps that fall off the map.
        let soft = soft.clamp(0.5, 4.0) * 0.5;
        let s = self.stride;
        // Tap positions along each axis (two per axis, shared by two taps
        // each): texel index with PAD added, and the weight of the next one.
        let axis = |v: f32| {
            let (a, b) = (v - soft - 0.5, v + soft - 0.5);
            let (ia, ib) = (floor_i(a), floor_i(b));
            // ia, ib >= -3 here, and PAD covers it.
            [
                ((ia + PAD as i32) as usize, a - ia as f32),
                ((ib + PAD as i32) as usize, b - ib as f32),
            ]
        };
        let (xs, ys) = (axis(x), axis(y));
        // One row of a 2x2 footprint: lit weight of its two texels.
        let row = |k: usize, ax: f32| -> f32 {
            let pair = &self.depth[k..k + 2];
            let l = if pair[0] <= db { 1.0 - ax } else { 0.0 };
            let r = if pair[1] <= db { ax } else { 0.0 };
            l + r
        };
        let mut lit = 0.0;
        for &(iy, ay) in &ys {
            for &(ix, ax) in &xs {
                let k = iy * s + ix;
                let top = row(k, ax);
                let bot = row(k + s, ax);
                lit += 0.25 * (top * (1.0 - ay) + bot * ay);
            }
        }
        (lit, probe)
    }
}
