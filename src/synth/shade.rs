//! Materials and the per-pixel shading pass over the visibility buffer:
//! Blinn-Phong key light with shadow map, hemisphere ambient, textures.

use super::board::Texture;
use super::camera::Camera;
use super::math::V3;
use super::pool;
use super::raster::{Geometry, ShadowMap, Tri, VisBuf, NO_TRI};
use super::rng::value_noise;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tex {
    Flat,
    Board,
    Table,
    /// Wood grain rings running along z (turned wooden pieces).
    Grain,
    /// Board texture darkened towards the centre of a contact disc, whose
    /// centre is each triangle's third vertex.
    Contact,
}

#[derive(Clone, Copy, Debug)]
pub struct Material {
    pub albedo: V3,
    pub spec: f32,
    pub shininess: f32,
    pub tex: Tex,
    /// Wrap-around diffuse for skin (light bleeding past the terminator).
    pub wrap: f32,
    pub caster: bool,
}

impl Material {
    pub fn flat(albedo: V3, spec: f32, shininess: f32) -> Material {
        Material {
            albedo,
            spec,
            shininess,
            tex: Tex::Flat,
            wrap: 0.0,
            caster: true,
        }
    }
}

pub struct Light {
    pub to_light: V3,
    pub key: V3,
    pub ambient: V3,
    pub soft: f32,
}

pub struct ShadeInputs<'a> {
    pub geoms: [&'a Geometry; 2],
    pub mats: &'a [Material],
    pub cam: &'a Camera,
    pub light: &'a Light,
    pub shadow: &'a ShadowMap,
    pub board_tex: &'a Texture,
    pub table_tex: &'a Texture,
    pub background: V3,
    /// The board's top, whose key-light terms come from a `PlaneLight`.
    pub plane: Plane,
}

/// A horizontal plane at height `z`: the materials in `mats` are only on
/// up-facing flat triangles on it (or a fraction of a millimetre above it),
/// and they share the first one's specular settings.
#[derive(Clone, Copy, Debug)]
pub struct Plane {
    pub z: f32,
    pub mats: [u16; 2],
}

/// Whether triangle `t` lies on the plane. (The table's top is not one:
/// few of its pixels need the shadow filter, it has no specular, and four
/// sample reads cost more than they save there.)
#[inline]
fn on_plane(s: &ShadeInputs, t: &Tri) -> bool {
    t.mat == s.plane.mats[0] || t.mat == s.plane.mats[1]
}

/// Triangle of a visibility-buffer id (the top bit selects the geometry).
#[inline]
pub fn tri_of<'a>(geoms: &[&'a Geometry; 2], id: u32) -> &'a Tri {
    &geoms[(id >> 31) as usize].tris[(id & 0x7FFF_FFFF) as usize]
}

/// The key light's terms on the `Plane`: the lit fraction and the specular,
/// sampled at every second canvas pixel in both directions and interpolated
/// in between. Both vary slowly across the flat board (a penumbra spans a
/// few pixels) while its texture keeps a lookup per pixel, so most of the
/// image pays a quarter of the shadow filter and specular work. Samples are
/// computed when a pixel first needs them.
pub struct PlaneLight {
    gw: usize,
    /// (lit, specular) per sample, valid where `state` is not 0.
    vals: Vec<[f32; 2]>,
    /// Shadow probe per sample, for `dynamic_clear`.
    probes: Vec<(u32, f32)>,
    /// Per sample: 0 not yet known, 1 the static value holds, 2 recomputed.
    state: Vec<u8>,
}

impl PlaneLight {
    pub fn new(canvas_w: usize, canvas_h: usize) -> PlaneLight {
        let n = (canvas_w / 2 + 2) * (canvas_h / 2 + 2);
        let (mut vals, mut probes, mut state) = (pool::take(n), pool::take(n), pool::take(n));
        vals.resize(n, [0.0; 2]);
        probes.resize(n, (u32::MAX, 0.0));
        state.resize(n, 0);
        PlaneLight {
            gw: canvas_w / 2 + 2,
            vals,
            probes,
            state,
        }
    }

    /// Hands the buffers back for reuse.
    pub fn recycle(self) {
        pool::give(self.vals);
        pool::give(self.probes);
        pool::give(self.state);
    }

    /// Sample `k` as this frame shows it: the static scene's value where no
    /// dynamic caster reaches its shadow lookup, else computed again.
    #[inline]
    fn sample(&mut self, s: &ShadeInputs, k: usize, base: Option<&PlaneLight>) -> [f32; 2] {
        if self.state[k] != 0 {
            return self.vals[k];
        }
        if let Some(b) = base {
            let (tile, d) = b.probes[k];
            if b.state[k] != 0 && s.shadow.dynamic_clear(tile, d) {
                self.vals[k] = b.vals[k];
                self.probes[k] = b.probes[k];
                self.state[k] = 1;
                return self.vals[k];
            }
        }
        let (u, v) = ((2 * (k % self.gw)) as f32, (2 * (k / self.gw)) as f32);
        let (v, probe) = plane_terms(s, &s.plane, u, v);
        self.vals[k] = v;
        self.probes[k] = probe;
        self.state[k] = 2;
        v
    }

    /// Interpolated terms at canvas pixel (x, y).
    #[inline]
    fn at(&mut self, s: &ShadeInputs, x: usize, y: usize, base: Option<&PlaneLight>) -> [f32; 2] {
        let k = (y >> 1) * self.gw + (x >> 1);
        let a = self.sample(s, k, base);
        let (fx, fy) = ((x & 1) as f32 * 0.5, (y & 1) as f32 * 0.5);
        let b = if fx > 0.0 {
            self.sample(s, k + 1, base)
        } else {
            a
        };
        let (c, d) = if fy > 0.0 {
            let c = self.sample(s, k + self.gw, base);
            let d = if fx > 0.0 {
                self.sample(s, k + self.gw + 1, base)
            } else {
                c
            };
            (c, d)
        } else {
            (a, b)
        };
        let mut out = [0.0; 2];
        for i in 0..2 {
            let top = a[i] + (b[i] - a[i]) * fx;
            let bot = c[i] + (d[i] - c[i]) * fx;
            out[i] = top + (bot - top) * fy;
        }
        out
    }

    /// Whether every sample pixel (x, y) reads keeps its static value.
    #[inline]
    fn static_at(&mut self, s: &ShadeInputs, x: usize, y: usize, base: &PlaneLight) -> bool {
        let k = (y >> 1) * self.gw + (x >> 1);
        let mut ks = [k, k, k, k];
        if x & 1 == 1 {
            ks[1] = k + 1;
            ks[3] = k + 1;
        }
        if y & 1 == 1 {
            ks[2] += self.gw;
            ks[3] += self.gw;
        }
        ks.iter().all(|&k| {
            self.sample(s, k, Some(base));
            self.state[k] == 1
        })
    }
}

/// Key-light terms of `pl` at canvas position (u, v).
fn plane_terms(s: &ShadeInputs, pl: &Plane, u: f32, v: f32) -> ([f32; 2], (u32, f32)) {
    let cam = s.cam;
    let x = ((u as f64 - cam.cx - cam.canvas_off.0) / cam.focal_px) as f32;
    let y = (-(v as f64 - cam.cy - cam.canvas_off.1) / cam.focal_px) as f32;
    let dir = cam.fwd + cam.right * x + cam.up * y;
    // Rays that miss the plane are never read by a plane pixel's samples
    // in practice; a far point keeps them finite.
    let t = ((pl.z - cam.pos.z) / dir.z.min(-1e-6)).clamp(0.0, 1e3);
    let p = cam.pos + dir * t;
    let m = &s.mats[pl.mats[0] as usize];
    let l = s.light.to_light;
    if l.z <= 0.0 {
        return ([0.0, 0.0], (u32::MAX, 0.0));
    }
    let q = p + V3 {
        x: 0.0,
        y: 0.0,
        z: s.shadow.texel * 1.2,
    };
    let (lit, probe) = s.shadow.light(q, s.light.soft);
    let mut spec = 0.0;
    if m.spec > 0.0 {
        let v = (s.cam.pos - p).norm_fast();
        let h = (l + v).norm_fast();
        let nh = h.z.max(0.0);
        let sp = nh / (m.shininess - m.shininess * nh + nh);
        spec = m.spec * sp * lit;
    }
    ([lit, spec], probe)
}

/// Static-scene shading kept between frames of a still camera: what the
/// static geometry shows at each pixel, its colour, and where its shadow
/// lookup lands, so frames re-shade only pixels that pieces, the hand or
/// their shadows touch. Reuse is exact: a reused colour is the value the
/// full computation would give.
pub struct StaticCache {
    pub q: Vec<f32>,
    pub tri: Vec<u32>,
    pub bary: Vec<[f32; 2]>,
    pub colour: Vec<V3>,
    pub probe: Vec<(u32, f32)>,
    pub plane: PlaneLight,
}

impl StaticCache {
    /// Shades the static geometry alone (`vb` holds only static triangles).
    pub fn build(vb: &VisBuf, s: &ShadeInputs) -> StaticCache {
        let n = vb.w * vb.h;
        let mut colour = Vec::with_capacity(n);
        let mut probe = Vec::with_capacity(n);
        let mut plane = PlaneLight::new(vb.w, vb.h);
        for k in 0..n {
            let (c, pr) = shade_px(vb, s, k, (k % vb.w, k / vb.w), &mut plane, None);
            colour.push(c);
            probe.push(pr);
        }
        StaticCache {
            q: vb.q.clone(),
            tri: vb.tri.clone(),
            bary: vb.bary.clone(),
            colour,
            probe,
            plane,
        }
    }

    /// Puts the static surface wherever no dynamic triangle is in front,
    /// with the same tie rule as drawing dynamic geometry first.
    pub fn merge_into(&self, vb: &mut VisBuf) {
        for k in 0..vb.w * vb.h {
            if vb.tri[k] == NO_TRI || vb.q[k] < self.q[k] {
                vb.tri[k] = self.tri[k];
                vb.q[k] = self.q[k];
                vb.bary[k] = self.bary[k];
            }
        }
    }
}

/// Shades every canvas pixel into linear RGB.
pub fn shade(vb: &VisBuf, s: &ShadeInputs, cache: Option<&StaticCache>, out: &mut Vec<V3>) {
    out.clear();
    let n = vb.w * vb.h;
    let mut plane = PlaneLight::new(vb.w, vb.h);
    let Some(c) = cache else {
        for y in 0..vb.h {
            out.extend(
                (0..vb.w).map(|x| shade_px(vb, s, y * vb.w + x, (x, y), &mut plane, None).0),
            );
        }
        plane.recycle();
        return;
    };
    out.reserve(n);
    for k in 0..n {
        let id = vb.tri[k];
        let (x, y) = (k % vb.w, k / vb.w);
        let reuse = id == c.tri[k] && id >> 31 == 0 && {
            if on_plane(s, &s.geoms[0].tris[id as usize]) {
                plane.static_at(s, x, y, &c.plane)
            } else {
                let (tile, d) = c.probe[k];
                s.shadow.dynamic_clear(tile, d)
            }
        };
        if reuse {
            out.push(c.colour[k]);
        } else {
            out.push(shade_px(vb, s, k, (x, y), &mut plane, Some(&c.plane)).0);
        }
    }
    plane.recycle();
}

/// Colour of one pixel, and its shadow probe (tile, light depth).
#[inline(always)]
fn shade_px(
    vb: &VisBuf,
    s: &ShadeInputs,
    k: usize,
    (x, y): (usize, usize),
    plane: &mut PlaneLight,
    base: Option<&PlaneLight>,
) -> (V3, (u32, f32)) {
    let l = s.light.to_light;
    let bias = s.shadow.texel * 1.2;
    let id = vb.tri[k];
    if id == NO_TRI {
        let fy = y as f32 / vb.h as f32;
        return (s.background * (1.1 - 0.3 * fy), (u32::MAX, 0.0));
    }
    let g = s.geoms[(id >> 31) as usize];
    let t = &g.tris[(id & 0x7FFF_FFFF) as usize];
    let [b0, b1] = vb.bary[k];
    let b2 = 1.0 - b0 - b1;
    let [i0, i1, i2] = [t.v[0] as usize, t.v[1] as usize, t.v[2] as usize];
    let p = g.pos[i0] * b0 + g.pos[i1] * b1 + g.pos[i2] * b2;
    let n = if t.flat {
        g.nrm[i0]
    } else {
        (g.nrm[i0] * b0 + g.nrm[i1] * b1 + g.nrm[i2] * b2).norm_fast()
    };
    let m = &s.mats[t.mat as usize];
    let albedo = match m.tex {
        Tex::Flat => m.albedo,
        Tex::Board => s.board_tex.sample(p.x, p.y),
        Tex::Table => s.table_tex.sample(p.x, p.y).mul_e(m.albedo),
        Tex::Contact => {
            // Radial position on the disc: 1 at the rim, 0 at the centre.
            let rr = b0 + b1;
            let edge = 1.0 / 1.35;
            let t = ((rr - edge) / (1.0 - edge)).clamp(0.0, 1.0);
            s.board_tex.sample(p.x, p.y) * (1.0 - 0.45 * (1.0 - t) * (1.0 - t))
        }
        Tex::Grain => {
            let w = value_noise(p.x * 60.0, p.y * 60.0, 11) * 1.5;
            let ring = 0.5 + 0.5 * ((p.z * 150.0 + w) * std::f32::consts::TAU).sin();
            m.albedo * (1.0 - 0.12 * ring * ring)
        }
    };
    let ndl = n.dot(l);
    if on_plane(s, t) {
        let [lit, spec] = plane.at(s, x, y, base);
        let diff = ndl.max(0.0);
        let amb = s.light.ambient * (0.62 + 0.38 * n.z);
        let c = albedo.mul_e(amb + s.light.key * (diff * lit)) + s.light.key * spec;
        return (c, (u32::MAX, 0.0));
    }
    let (lit, probe) = if ndl > -m.wrap {
        let q = p + n * bias;
        s.shadow.light(q, s.light.soft)
    } else {
        (0.0, (u32::MAX, 0.0))
    };
    let diff = if m.wrap > 0.0 {
        ((ndl + m.wrap) / (1.0 + m.wrap)).max(0.0)
    } else {
        ndl.max(0.0)
    };
    let mut spec = 0.0;
    if ndl > 0.0 && m.spec > 0.0 {
        let v = (s.cam.pos - p).norm_fast();
        let h = (l + v).norm_fast();
        let nh = n.dot(h).max(0.0);
        // Schlick's rational stand-in for nh^shininess; powf dominated.
        let sp = nh / (m.shininess - m.shininess * nh + nh);
        spec = m.spec * sp * lit;
    }
    let amb = s.light.ambient * (0.62 + 0.38 * n.z);
    let c = albedo.mul_e(amb + s.light.key * (diff * lit)) + s.light.key * spec;
    (c, probe)
}
