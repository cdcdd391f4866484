//! Materials and the per-pixel shading pass over the visibility buffer:
//! Blinn-Phong key light with shadow map, hemisphere ambient, textures.

use super::board::Texture;
use super::camera::Camera;
use super::math::V3;
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
}

/// Triangle of a visibility-buffer id (the top bit selects the geometry).
#[inline]
pub fn tri_of<'a>(geoms: &[&'a Geometry; 2], id: u32) -> &'a Tri {
    &geoms[(id >> 31) as usize].tris[(id & 0x7FFF_FFFF) as usize]
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
}

impl StaticCache {
    /// Shades the static geometry alone (`vb` holds only static triangles).
    pub fn build(vb: &VisBuf, s: &ShadeInputs) -> StaticCache {
        let n = vb.w * vb.h;
        let mut colour = Vec::with_capacity(n);
        let mut probe = Vec::with_capacity(n);
        for k in 0..n {
            let (c, pr) = shade_px(vb, s, k);
            colour.push(c);
            probe.push(pr);
        }
        StaticCache {
            q: vb.q.clone(),
            tri: vb.tri.clone(),
            bary: vb.bary.clone(),
            colour,
            probe,
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
    let Some(c) = cache else {
        out.extend((0..n).map(|k| shade_px(vb, s, k).0));
        return;
    };
    out.reserve(n);
    for k in 0..n {
        let id = vb.tri[k];
        let (tile, d) = c.probe[k];
        if id == c.tri[k] && id >> 31 == 0 && s.shadow.dynamic_clear(tile, d) {
            out.push(c.colour[k]);
        } else {
            out.push(shade_px(vb, s, k).0);
        }
    }
}

/// Colour of one pixel, and its shadow probe (tile, light depth).
#[inline(always)]
fn shade_px(vb: &VisBuf, s: &ShadeInputs, k: usize) -> (V3, (u32, f32)) {
    let l = s.light.to_light;
    let bias = s.shadow.texel * 1.2;
    let id = vb.tri[k];
    if id == NO_TRI {
        let fy = (k / vb.w) as f32 / vb.h as f32;
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
