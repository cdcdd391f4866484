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
    /// The board's top and the table's, shaded from `PlaneLight` samples.
    pub planes: [Plane; 2],
}

/// A horizontal plane at height `z`: the materials in `mats` are only on
/// up-facing flat triangles on it (or a fraction of a millimetre above it),
/// and they share the first one's specular settings.
#[derive(Clone, Copy, Debug)]
pub struct Plane {
    pub z: f32,
    pub mats: [u16; 2],
    pub kind: PlaneKind,
}

/// What a plane's samples hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlaneKind {
    /// The key light's lit fraction and specular; the texture is still
    /// looked up per pixel (the board's squares and print are about a
    /// pixel a texel).
    Light,
    /// The whole colour: the table, whose wood and plain textures have
    /// texels of 2-3 mm, several pixels in most views (the cloth's finer
    /// weave comes out averaged over two pixels, as a soft lens shows it).
    Colour,
}

/// Which of the planes triangle `t` lies on.
#[inline]
fn plane_of(s: &ShadeInputs, t: &Tri) -> Option<usize> {
    s.planes
        .iter()
        .position(|pl| t.mat == pl.mats[0] || t.mat == pl.mats[1])
}

/// A sample's shadow probe where it has none.
const NO_PROBE: (u32, f32) = (u32::MAX, 0.0);

/// Triangle of a visibility-buffer id (the top bit selects the geometry).
#[inline]
pub fn tri_of<'a>(geoms: &[&'a Geometry; 2], id: u32) -> &'a Tri {
    &geoms[(id >> 31) as usize].tris[(id & 0x7FFF_FFFF) as usize]
}

/// A `Plane`'s shading terms sampled at every second canvas pixel in both
/// directions and interpolated in between: on the board, the key light's
/// lit fraction and specular (a penumbra spans a few pixels) while its
/// texture keeps a lookup per pixel; on the table, the whole colour. Most
/// of the image pays a quarter of the shadow filter, specular and table
/// texture work. Samples are computed when a pixel first needs them.
pub struct PlaneLight {
    /// Index of the plane in `ShadeInputs::planes`.
    plane: usize,
    gw: usize,
    /// (lit, specular, 0) or the colour per sample, valid where `state` is
    /// not 0.
    vals: Vec<[f32; 3]>,
    /// Shadow probe per sample, for `dynamic_clear`.
    probes: Vec<(u32, f32)>,
    /// Per sample: 0 not yet known, 1 the static value holds, 2 recomputed.
    state: Vec<u8>,
}

impl PlaneLight {
    pub fn new(plane: usize, canvas_w: usize, canvas_h: usize) -> PlaneLight {
        let n = (canvas_w / 2 + 2) * (canvas_h / 2 + 2);
        let (mut vals, mut probes, mut state) = (pool::take(n), pool::take(n), pool::take(n));
        vals.resize(n, [0.0; 3]);
        probes.resize(n, NO_PROBE);
        state.resize(n, 0);
        PlaneLight {
            plane,
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

    /// Sample (i, j), at canvas pixel (2i, 2j), as this frame shows it: the
    /// static scene's value where no dynamic caster reaches its shadow
    /// lookup, else computed again.
    #[inline(always)]
    fn sample(
        &mut self,
        s: &ShadeInputs,
        i: usize,
        j: usize,
        base: Option<&PlaneLight>,
    ) -> [f32; 3] {
        let k = j * self.gw + i;
        if self.state[k] != 0 {
            return self.vals[k];
        }
        self.fill(s, (i, j), base)
    }

    /// `sample` where the sample is not known yet.
    #[inline(never)]
    fn fill(
        &mut self,
        s: &ShadeInputs,
        (i, j): (usize, usize),
        base: Option<&PlaneLight>,
    ) -> [f32; 3] {
        let k = j * self.gw + i;
        if let Some(b) = base {
            let (tile, d) = b.probes[k];
            if b.state[k] != 0 && s.shadow.dynamic_clear(tile, d) {
                self.vals[k] = b.vals[k];
                self.probes[k] = b.probes[k];
                self.state[k] = 1;
                return self.vals[k];
            }
        }
        let (v, probe) = plane_terms(s, &s.planes[self.plane], (2 * i) as f32, (2 * j) as f32);
        self.vals[k] = v;
        self.probes[k] = probe;
        self.state[k] = 2;
        v
    }

    /// Interpolated terms at canvas pixel (x, y): a sample, or the mean of
    /// the two or four around it.
    #[inline(always)]
    fn at(&mut self, s: &ShadeInputs, x: usize, y: usize, base: Option<&PlaneLight>) -> [f32; 3] {
        let (i, j) = (x >> 1, y >> 1);
        let a = self.sample(s, i, j, base);
        let mean = |p: [f32; 3], q: [f32; 3]| std::array::from_fn(|c| 0.5 * (p[c] + q[c]));
        match (x & 1, y & 1) {
            (0, 0) => a,
            (1, 0) => mean(a, self.sample(s, i + 1, j, base)),
            (0, _) => mean(a, self.sample(s, i, j + 1, base)),
            _ => {
                let b = self.sample(s, i + 1, j, base);
                let c = self.sample(s, i, j + 1, base);
                let d = self.sample(s, i + 1, j + 1, base);
                std::array::from_fn(|n| 0.25 * ((a[n] + b[n]) + (c[n] + d[n])))
            }
        }
    }

    /// Whether every sample pixel (x, y) reads keeps its static value.
    #[inline]
    fn static_at(&mut self, s: &ShadeInputs, x: usize, y: usize, base: &PlaneLight) -> bool {
        let (i, j) = (x >> 1, y >> 1);
        let (di, dj) = (x & 1, y & 1);
        [(i, j), (i + di, j), (i, j + dj), (i + di, j + dj)]
            .into_iter()
            .all(|(i, j)| {
                self.sample(s, i, j, Some(base));
                self.state[j * self.gw + i] == 1
            })
    }
}

/// The terms `pl` keeps (see `PlaneKind`) at canvas position (u, v).
fn plane_terms(s: &ShadeInputs, pl: &Plane, u: f32, v: f32) -> ([f32; 3], (u32, f32)) {
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
    let (lit, probe) = if l.z > 0.0 {
        let q = p + V3 {
            x: 0.0,
            y: 0.0,
            z: s.shadow.texel * 1.2,
        };
        s.shadow.light(q, s.light.soft)
    } else {
        (0.0, NO_PROBE)
    };
    // As `shade_px` lights a flat, up-facing pixel (no contact disc is
    // the first material of a plane).
    let up = V3 {
        x: 0.0,
        y: 0.0,
        z: 1.0,
    };
    let spec = specular(s, m, p, up, l.z, lit);
    if pl.kind == PlaneKind::Light {
        return ([lit, spec, 0.0], probe);
    }
    let c = combine(s, albedo(s, m, p, 1.0), 1.0, l.z.max(0.0), lit, spec);
    ([c.x, c.y, c.z], probe)
}

/// The surface colour of material `m` at `p`; `rr` is the radial position
/// on a contact disc (1 at the rim, 0 at the centre).
#[inline(always)]
fn albedo(s: &ShadeInputs, m: &Material, p: V3, rr: f32) -> V3 {
    match m.tex {
        Tex::Flat => m.albedo,
        Tex::Board => s.board_tex.sample(p.x, p.y),
        Tex::Table => s.table_tex.sample(p.x, p.y).mul_e(m.albedo),
        Tex::Contact => {
            let edge = 1.0 / 1.35;
            let t = ((rr - edge) / (1.0 - edge)).clamp(0.0, 1.0);
            s.board_tex.sample(p.x, p.y) * (1.0 - 0.45 * (1.0 - t) * (1.0 - t))
        }
        Tex::Grain => {
            let w = value_noise(p.x * 60.0, p.y * 60.0, 11) * 1.5;
            let ring = 0.5 + 0.5 * ((p.z * 150.0 + w) * std::f32::consts::TAU).sin();
            m.albedo * (1.0 - 0.12 * ring * ring)
        }
    }
}

/// The key light's specular at `p` with normal `n` (`ndl` = n . to_light).
#[inline(always)]
fn specular(s: &ShadeInputs, m: &Material, p: V3, n: V3, ndl: f32, lit: f32) -> f32 {
    if ndl > 0.0 && m.spec > 0.0 {
        let v = (s.cam.pos - p).norm_fast();
        let h = (s.light.to_light + v).norm_fast();
        let nh = n.dot(h).max(0.0);
        // Schlick's rational stand-in for nh^shininess; powf dominated.
        let sp = nh / (m.shininess - m.shininess * nh + nh);
        m.spec * sp * lit
    } else {
        0.0
    }
}

/// Ambient (by the normal's height `nz`), diffuse and specular light on
/// `albedo`.
#[inline(always)]
fn combine(s: &ShadeInputs, albedo: V3, nz: f32, diff: f32, lit: f32, spec: f32) -> V3 {
    let amb = s.light.ambient * (0.62 + 0.38 * nz);
    albedo.mul_e(amb + s.light.key * (diff * lit)) + s.light.key * spec
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
    pub planes: [PlaneLight; 2],
}

impl StaticCache {
    /// Shades the static geometry alone (`vb` holds only static triangles).
    pub fn build(vb: &VisBuf, s: &ShadeInputs) -> StaticCache {
        let n = vb.w * vb.h;
        let mut colour = Vec::with_capacity(n);
        let mut probe = Vec::with_capacity(n);
        let mut planes = new_planes(vb.w, vb.h);
        for k in 0..n {
            let (c, pr) = shade_px(vb, s, k, (k % vb.w, k / vb.w), &mut planes, None);
            colour.push(c);
            probe.push(pr);
        }
        StaticCache {
            q: vb.q.clone(),
            tri: vb.tri.clone(),
            bary: vb.bary.clone(),
            colour,
            probe,
            planes,
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
    let mut planes = new_planes(vb.w, vb.h);
    let Some(c) = cache else {
        for y in 0..vb.h {
            out.extend(
                (0..vb.w).map(|x| shade_px(vb, s, y * vb.w + x, (x, y), &mut planes, None).0),
            );
        }
        planes.into_iter().for_each(PlaneLight::recycle);
        return;
    };
    out.reserve(n);
    for y in 0..vb.h {
        out.extend((0..vb.w).map(|x| {
            let k = y * vb.w + x;
            let id = vb.tri[k];
            let reuse = id == c.tri[k] && id >> 31 == 0 && {
                if let Some(i) = plane_of(s, &s.geoms[0].tris[id as usize]) {
                    planes[i].static_at(s, x, y, &c.planes[i])
                } else {
                    let (tile, d) = c.probe[k];
                    s.shadow.dynamic_clear(tile, d)
                }
            };
            if reuse {
                c.colour[k]
            } else {
                shade_px(vb, s, k, (x, y), &mut planes, Some(&c.planes)).0
            }
        }));
    }
    planes.into_iter().for_each(PlaneLight::recycle);
}

fn new_planes(w: usize, h: usize) -> [PlaneLight; 2] {
    [PlaneLight::new(0, w, h), PlaneLight::new(1, w, h)]
}

/// Colour of one pixel, and its shadow probe (tile, light depth).
#[inline(always)]
fn shade_px(
    vb: &VisBuf,
    s: &ShadeInputs,
    k: usize,
    (x, y): (usize, usize),
    planes: &mut [PlaneLight; 2],
    base: Option<&[PlaneLight; 2]>,
) -> (V3, (u32, f32)) {
    let l = s.light.to_light;
    let bias = s.shadow.texel * 1.2;
    let id = vb.tri[k];
    if id == NO_TRI {
        let fy = y as f32 / vb.h as f32;
        return (s.background * (1.1 - 0.3 * fy), NO_PROBE);
    }
    let g = s.geoms[(id >> 31) as usize];
    let t = &g.tris[(id & 0x7FFF_FFFF) as usize];
    let on = plane_of(s, t);
    if let Some(i) = on {
        if s.planes[i].kind == PlaneKind::Colour {
            let [r, g, b] = planes[i].at(s, x, y, base.map(|b| &b[i]));
            return (V3 { x: r, y: g, z: b }, NO_PROBE);
        }
    }
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
    // A contact disc's centre is each triangle's third vertex.
    let albedo = albedo(s, m, p, b0 + b1);
    let ndl = n.dot(l);
    if let Some(i) = on {
        let [lit, spec, _] = planes[i].at(s, x, y, base.map(|b| &b[i]));
        return (combine(s, albedo, n.z, ndl.max(0.0), lit, spec), NO_PROBE);
    }
    let (lit, probe) = if ndl > -m.wrap {
        let q = p + n * bias;
        s.shadow.light(q, s.light.soft)
    } else {
        (0.0, NO_PROBE)
    };
    let diff = if m.wrap > 0.0 {
        ((ndl + m.wrap) / (1.0 + m.wrap)).max(0.0)
    } else {
        ndl.max(0.0)
    };
    let spec = specular(s, m, p, n, ndl, lit);
    (combine(s, albedo, n.z, diff, lit, spec), probe)
}
