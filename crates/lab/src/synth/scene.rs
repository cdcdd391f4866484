//! A scene built once from `SceneParams` (textures, static geometry, piece
//! meshes, static shadows) and rendered for many board states.

use super::board::{bake_board, bake_table, Texture};
use super::camera::{build_remap, Camera, Remap, Shake};
use std::sync::Mutex;

use super::geom::BoardGeom;
use super::hand::{self, HandPose};
use super::math::{kelvin_rgb, lin, v3, Frame, V3};
use super::mesh::{cuboid, lathe, Mesh};
use super::occlusion::occlusion;
use super::params::SceneParams;
use super::pieces::{piece_look, piece_mesh};
use super::pool;
use super::post;
use super::props::add_clutter;
use super::raster::{rasterize, Geometry, ShadowMap, VisBuf, NO_TRI};
use super::rng::{hash, value_noise, Rng};
use super::shade::{
    shade, tri_of, Light, Material, Plane, PlaneKind, ShadeInputs, StaticCache, Tex,
};
use super::stages::Stages;
use super::{BoardState, Piece, PieceKind, PieceSide, Rendered, SynthError};

pub const OBJ_TABLE: u32 = 1;
pub const OBJ_BOARD: u32 = 2;
pub const OBJ_CLUTTER: u32 = 3;
pub const OBJ_HAND: u32 = 4;
/// Pieces get `OBJ_PIECE + cell index`.
pub const OBJ_PIECE: u32 = 16;

/// Blur equivalent to `post::soften(0.12)`.
const SOFT_SIGMA: f64 = 0.49;

pub(super) const MAT_BOARD_TOP: u16 = 0;
pub(super) const MAT_BOARD_SIDE: u16 = 1;
pub(super) const MAT_TABLE: u16 = 2;
pub(super) const MAT_FLOOR: u16 = 3;
pub(super) const MAT_CONTACT: u16 = 4;
/// The table's top face (its sides are `MAT_TABLE`).
pub(super) const MAT_TABLE_TOP: u16 = 5;
/// Contact disc radius over the piece's footprint radius.
pub(super) const CONTACT_SPREAD: f32 = 1.35;

/// Frame buffers kept between renders of one scene (and, through
/// `pool`, between scenes).
pub(super) struct Scratch {
    vb: VisBuf,
    canvas: Vec<V3>,
    lin: Vec<V3>,
    tmp: Vec<V3>,
    shadow: Option<ShadowMap>,
    dynamic: Geometry,
}

impl Scratch {
    /// Empty, in recycled buffers.
    pub(super) fn pooled() -> Scratch {
        Scratch {
            vb: VisBuf::new(0, 0),
            canvas: pool::take(0),
            lin: pool::take(0),
            tmp: pool::take(0),
            shadow: None,
            dynamic: Geometry::pooled(),
        }
    }

    fn recycle(self) {
        self.vb.recycle();
        for v in [self.canvas, self.lin, self.tmp] {
            pool::give(v);
        }
        if let Some(mut s) = self.shadow {
            s.recycle();
        }
        self.dynamic.recycle();
    }
}

pub struct Scene {
    pub(super) params: SceneParams,
    pub(super) geom: BoardGeom,
    pub(super) remap: Option<Remap>,
    pub(super) board_tex: Texture,
    pub(super) table_tex: Texture,
    pub(super) statics: Geometry,
    pub(super) mats: Vec<Material>,
    pub(super) meshes: Vec<Mesh>,
    pub(super) footprints: Vec<f32>,
    /// Disc laid under each piece to darken the board where it stands
    /// (contact shadow, which a shadow map alone misses).
    pub(super) contact: Mesh,
    /// Material of (kind index, side) pieces.
    pub(super) piece_mats: Vec<[u16; 2]>,
    pub(super) static_shadow: ShadowMap,
    pub(super) scratch: Mutex<Scratch>,
    /// (a frame was rendered before, cache of the static scene)
    pub(super) cache: Mutex<(bool, Option<StaticCache>)>,
    pub(super) light: Light,
    pub(super) background: V3,
    /// Height of the table's top.
    pub(super) table_z: f32,
}

impl Drop for Scene {
    /// Hands the big buffers back for the next scene on this thread.
    fn drop(&mut self) {
        let scratch = self.scratch.get_mut().unwrap_or_else(|e| e.into_inner());
        let empty = Scratch {
            vb: VisBuf {
                w: 0,
                h: 0,
                q: Vec::new(),
                tri: Vec::new(),
                bary: Vec::new(),
            },
            canvas: Vec::new(),
            lin: Vec::new(),
            tmp: Vec::new(),
            shadow: None,
            dynamic: Geometry::default(),
        };
        std::mem::replace(scratch, empty).recycle();
        let take_tex = |t: &mut Texture| Texture {
            data: std::mem::take(&mut t.data),
            ..*t
        };
        take_tex(&mut self.board_tex).recycle();
        take_tex(&mut self.table_tex).recycle();
        if let Some(r) = self.remap.take() {
            pool::give(r.taps);
        }
        self.static_shadow.recycle();
        std::mem::take(&mut self.statics).recycle();
    }
}

fn mesh_mat(look: ([u8; 3], f32, f32, bool)) -> Material {
    let mut m = Material::flat(lin(look.0), look.1, look.2);
    if look.3 {
        m.tex = Tex::Grain;
    }
    m
}

impl Scene {
    pub fn new(params: &SceneParams) -> Result<Scene, SynthError> {
        Scene::new_timed(params, &mut Stages::off())
    }

    /// `new`, charging its steps to `stages`.
    pub fn new_timed(params: &SceneParams, stages: &mut Stages) -> Result<Scene, SynthError> {
        stages.restart();
        params.validate()?;
        let p = params.clone();
        let geom = BoardGeom::new(&p);
        let (w, h) = (p.width as usize, p.height as usize);
        let cam0 = Camera::new(
            &p.camera,
            &geom.outline(),
            p.width,
            p.height,
            Shake::default(),
        );
        let remap = cam0.has_distortion().then(|| build_remap(&cam0, w, h));
        stages.mark("scene: distortion table");
        let mut rng = Rng::derive(p.seed, 1);
        // About one texel per image pixel at the board.
        let dist = (cam0.pos.len()).max(0.05);
        let tpm = cam0.focal_px as f32 / dist;
        let board_tex = bake_board(&p, tpm, &mut rng);
        stages.mark("scene: board texture");
        let table_tex = bake_table(p.table.kind, p.table.color, &mut rng);
        stages.mark("scene: table texture");

        let mut mats = vec![
            Material {
                tex: Tex::Board,
                caster: false,
                ..Material::flat(V3::default(), 0.06, 20.0)
            },
            Material::flat(board_tex.data[0] * 0.7, 0.05, 10.0),
            Material {
                tex: Tex::Table,
                caster: false,
                ..Material::flat(v3(1.0, 1.0, 1.0), 0.0, 10.0)
            },
            Material {
                caster: false,
                ..Material::flat(lin(p.table.background) * 0.5, 0.0, 1.0)
            },
            Material {
                tex: Tex::Contact,
                caster: false,
                ..Material::flat(V3::default(), 0.06, 20.0)
            },
        ];
        mats.push(mats[MAT_TABLE as usize]);
        let mut statics = Geometry::default();
        let hb = v3(geom.gx + geom.border, geom.gy + geom.border, 0.0);
        // Board: top face, then a box for its sides.
        let top = cuboid(v3(hb.x, hb.y, 0.0));
        let top = Mesh {
            pos: top.pos[16..20].to_vec(),
            nrm: top.nrm[16..20].to_vec(),
            tris: vec![[0, 1, 2], [0, 2, 3]],
        };
        statics.add_mesh(
            &top,
            &Frame::IDENTITY,
            v3(1.0, 1.0, 1.0),
            V3::default(),
            MAT_BOARD_TOP,
            OBJ_BOARD,
        );
        let t = geom.thickness.max(0.0005);
        let body = cuboid(v3(hb.x, hb.y, t / 2.0 - 0.0002));
        statics.add_mesh(
            &body,
            &Frame::IDENTITY,
            v3(1.0, 1.0, 1.0),
            v3(0.0, 0.0, -t / 2.0),
            MAT_BOARD_SIDE,
            OBJ_BOARD,
        );
        // Table top (a box so its edge shows in low views) and a floor.
        let tx = (
            hb.x + rng.range(0.25, 0.8) as f32,
            hb.y + rng.range(0.25, 0.7) as f32,
        );
        let toff = v3(
            rng.range(-0.2, 0.2) as f32,
            rng.range(-0.15, 0.15) as f32,
            0.0,
        );
        let table = cuboid(v3(tx.0, tx.1, 0.02));
        let first = statics.tris.len();
        statics.add_mesh(
            &table,
            &Frame::IDENTITY,
            v3(1.0, 1.0, 1.0),
            toff + v3(0.0, 0.0, -t - 0.02),
            MAT_TABLE,
            OBJ_TABLE,
        );
        // Its up-facing face is the top.
        let mut table_z = 0.0;
        for tri in &mut statics.tris[first..] {
            let v = tri.v[0] as usize;
            if tri.flat && statics.nrm[v].z > 0.5 {
                tri.mat = MAT_TABLE_TOP;
                table_z = statics.pos[v].z;
            }
        }
        let floor = cuboid(v3(12.0, 12.0, 0.01));
        statics.add_mesh(
            &floor,
            &Frame::IDENTITY,
            v3(1.0, 1.0, 1.0),
            v3(0.0, 0.0, -t - 0.75),
            MAT_FLOOR,
            OBJ_TABLE,
        );
        add_clutter(&p, &geom, (tx, toff), -t, &mut rng, &mut statics, &mut mats);

        let (meshes, footprints) = piece_meshes();
        let piece_mats = add_piece_mats(&p.pieces, &mut mats);
        let l = &p.lighting;
        let light = key_light(l);
        let to_light = light.to_light;
        let radius = (hb.x * hb.x + hb.y * hb.y).sqrt() + 0.45;
        // Shadow texels much finer than image pixels are wasted work.
        let sm_size = (l.shadow_map_size as usize)
            .min((w.max(h) as f32 * 1.2) as usize)
            .max(64);
        let mut static_shadow = ShadowMap::new(to_light, V3::default(), radius, sm_size);
        static_shadow.draw(&statics, |t| mats[t.mat as usize].caster);
        stages.mark("scene: meshes, static shadow map");
        Ok(Scene {
            background: lin(p.table.background),
            params: p,
            geom,
            remap,
            board_tex,
            table_tex,
            statics,
            mats,
            meshes,
            footprints,
            contact: lathe(&[(1.0, 0.0), (0.0, 0.0)], 16),
            piece_mats,
            static_shadow,
            scratch: Mutex::new(Scratch::pooled()),
            cache: Mutex::new((false, None)),
            light,
            table_z,
        })
    }

    pub fn params(&self) -> &SceneParams {
        &self.params
    }

    pub fn geom(&self) -> &BoardGeom {
        &self.geom
    }

    /// World position of the centre of cell (or crossing) `r`, `c`.
    pub fn cell_centre(&self, r: usize, c: usize) -> [f64; 3] {
        let v = self.geom.centre(r, c);
        [v.x as f64, v.y as f64, v.z as f64]
    }

    /// Hand pose at `t` on a path that enters from `approach_deg` (measured
    /// like the camera azimuth: 0 = from beyond the bottom edge), reaches
    /// cell `target` at t = 0.5 and leaves again by t = 1.
    pub fn hand_pose(
        &self,
        target: (usize, usize),
        approach_deg: f64,
        t: f64,
        carrying: Option<Piece>,
    ) -> HandPose {
        let g = &self.geom;
        let c = g.centre(target.0, target.1);
        let hover =
            g.pitch_x * self.params.pieces.size as f32 * self.params.pieces.height as f32 * 1.2
                + 0.02;
        let reach = (g.gx + g.border).hypot(g.gy + g.border) + 0.55;
        let a = approach_deg.to_radians();
        let start = [reach as f64 * a.sin(), reach as f64 * a.cos(), 0.3];
        let mut pose = hand::path_pose(start, [c.x as f64, c.y as f64, hover as f64], t, carrying);
        // One player per scene: skin and sleeve follow the scene seed.
        let mut r = Rng::derive(self.params.seed, 9);
        pose.skin = *r.pick(&hand::SKIN_TONES);
        let sleeves = [
            [40, 44, 58],
            [200, 200, 205],
            [120, 30, 35],
            [60, 90, 60],
            [25, 25, 28],
        ];
        pose.sleeve = r.chance(0.7).then(|| *r.pick(&sleeves));
        pose
    }

    pub fn render(
        &self,
        state: &BoardState,
        hand: Option<&HandPose>,
    ) -> Result<Rendered, SynthError> {
        self.render_frame(state, hand, 0)
    }

    /// Renders frame number `frame` of a clip: camera shake and sensor noise
    /// vary with it, everything else stays put.
    pub fn render_frame(
        &self,
        state: &BoardState,
        hand: Option<&HandPose>,
        frame: u64,
    ) -> Result<Rendered, SynthError> {
        self.render_timed(state, hand, frame, &mut Stages::off())
    }

    /// `render_frame`, charging its steps to `stages`.
    pub fn render_timed(
        &self,
        state: &BoardState,
        hand: Option<&HandPose>,
        frame: u64,
        stages: &mut Stages,
    ) -> Result<Rendered, SynthError> {
        Ok(self.render_full(state, hand, frame, false, stages)?.0)
    }

    fn shake(&self, frame: u64) -> Shake {
        let a = self.params.camera.shake;
        if a == 0.0 {
            return Shake::default();
        }
        let seed = hash(&[self.params.seed, 77]) as u32;
        let n =
            |k: u32| (value_noise(frame as f32 * 0.13, k as f32 * 7.7, seed) - 0.5) as f64 * 2.0;
        Shake {
            d_az_deg: a * 0.3 * n(1),
            d_el_deg: a * 0.3 * n(2),
            d_roll_deg: a * 0.2 * n(3),
            d_target: [a * 0.002 * n(4), a * 0.002 * n(5)],
        }
    }

    /// Renders and also returns the per-pixel object ids of the pinhole
    /// canvas and the camera (for tests).
    pub(crate) fn render_full(
        &self,
        state: &BoardState,
        hand: Option<&HandPose>,
        frame: u64,
        want_ids: bool,
        stages: &mut Stages,
    ) -> Result<(Rendered, Vec<u32>, Camera), SynthError> {
        stages.restart();
        state.validate()?;
        if let Some(hp) = hand {
            hp.validate()?;
        }
        let p = &self.params;
        if state.rows != p.rows || state.cols != p.cols || state.points != p.points {
            return Err(SynthError(format!(
                "board state {} does not match the scene grid {}",
                state.grid_spec(),
                BoardState::empty(p.rows, p.cols, p.points).grid_spec()
            )));
        }
        let (image, (occluded, hand_occludes), ids, cam) = self.render_core(
            frame,
            |dynamic, mats| {
                self.add_pieces(state, dynamic);
                if let Some(hp) = hand {
                    self.add_hand(hp, dynamic, mats);
                }
            },
            |cam, obj_at| occlusion(&self.geom, state, cam, obj_at),
            want_ids,
            stages,
        );
        let corners_w = self.geom.corners();
        let mut corners = [[0.0; 2]; 4];
        for (c, wc) in corners.iter_mut().zip(corners_w) {
            *c = cam.project(wc).unwrap_or([f64::NAN, f64::NAN]);
        }
        Ok((
            Rendered {
                image,
                corners,
                hand_occludes,
                occluded,
            },
            ids,
            cam,
        ))
    }
    /// Renders frame number `frame` of whatever `build` adds to the static
    /// scene (pieces, hands, with their materials), and the labels `labels`
    /// reads off the camera and the canvas's object ids; also the object ids
    /// themselves where `want_ids`, and the camera.
    pub(super) fn render_core<L>(
        &self,
        frame: u64,
        build: impl FnOnce(&mut Geometry, &mut Vec<Material>),
        labels: impl FnOnce(&Camera, &dyn Fn(usize) -> u32) -> L,
        want_ids: bool,
        stages: &mut Stages,
    ) -> (image::RgbImage, L, Vec<u32>, Camera) {
        let p = &self.params;
        let (w, h) = (p.width as usize, p.height as usize);
        let mut cam = Camera::new(
            &p.camera,
            &self.geom.outline(),
            p.width,
            p.height,
            self.shake(frame),
        );
        if let Some(r) = &self.remap {
            cam.canvas_off = r.off;
            cam.canvas_w = r.canvas_w;
            cam.canvas_h = r.canvas_h;
        }
        let mut mats = self.mats.clone();
        // A poisoned lock only means another render panicked; the buffers
        // are still plain memory.
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let sc = &mut *guard;
        let mut dynamic = std::mem::take(&mut sc.dynamic);
        dynamic.pos.clear();
        dynamic.nrm.clear();
        dynamic.tris.clear();
        build(&mut dynamic, &mut mats);
        let mut shadow = self.static_shadow.copy_with(sc.shadow.take());
        shadow.draw(&dynamic, |t| mats[t.mat as usize].caster);
        stages.mark("frame: pieces, shadow map");

        let geoms = [&self.statics, &dynamic];
        let mut inputs = ShadeInputs {
            geoms,
            mats: &mats,
            cam: &cam,
            light: &self.light,
            shadow: &self.static_shadow,
            board_tex: &self.board_tex,
            table_tex: &self.table_tex,
            background: self.background,
            planes: [
                Plane {
                    z: 0.0,
                    mats: [MAT_BOARD_TOP, MAT_CONTACT],
                    kind: PlaneKind::Light,
                },
                Plane {
                    z: self.table_z,
                    mats: [MAT_TABLE_TOP, MAT_TABLE_TOP],
                    kind: PlaneKind::Colour,
                },
            ],
        };
        // A still camera sees the same static scene every frame.
        // Built on the second frame, so one-off renders do not pay for it.
        let mut cache_guard = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let still = p.camera.shake == 0.0;
        if still && cache_guard.0 && cache_guard.1.is_none() {
            let mut svb = VisBuf::new(cam.canvas_w, cam.canvas_h);
            rasterize(&self.statics, 0, &cam, &mut svb);
            cache_guard.1 = Some(StaticCache::build(&svb, &inputs));
            svb.recycle();
        }
        cache_guard.0 = true;
        let cache = if still { cache_guard.1.as_ref() } else { None };
        inputs.shadow = &shadow;
        let vb = &mut sc.vb;
        vb.reset(cam.canvas_w, cam.canvas_h);
        rasterize(&dynamic, 1 << 31, &cam, vb);
        match cache {
            Some(c) => c.merge_into(vb),
            None => rasterize(&self.statics, 0, &cam, vb),
        }
        stages.mark("frame: raster");
        let canvas = &mut sc.canvas;
        shade(vb, &inputs, cache, canvas);
        stages.mark("frame: shading");
        drop(cache_guard);
        let obj_at = |k: usize| match vb.tri[k] {
            NO_TRI => 0,
            t => tri_of(&geoms, t).obj,
        };
        let found = labels(&cam, &obj_at);
        stages.mark("frame: occlusion labels");
        let ids: Vec<u32> = if want_ids {
            (0..vb.tri.len()).map(obj_at).collect()
        } else {
            Vec::new()
        };

        let r = &p.realism;
        let mut img = post::warp(
            canvas,
            cam.canvas_w,
            cam.canvas_h,
            w,
            h,
            self.remap.as_ref(),
            std::mem::take(&mut sc.lin),
        );
        stages.mark("frame: lens warp");
        blur(&mut img, r, &mut sc.tmp);
        stages.mark("frame: blur");
        let out = post::to_srgb(&img, r, hash(&[p.seed, frame, 3]));
        stages.mark("frame: sRGB, noise");
        sc.lin = img.px;
        sc.shadow = Some(shadow);
        sc.dynamic = dynamic;
        drop(guard);
        let image = post::jpeg(out, r.jpeg_quality);
        stages.mark("frame: JPEG");
        (image, found, ids, cam)
    }
}

/// Every piece kind's mesh, and its footprint radius: the widest part of its
/// lower third.
pub(super) fn piece_meshes() -> (Vec<Mesh>, Vec<f32>) {
    let meshes: Vec<Mesh> = PieceKind::ALL.iter().map(|&k| piece_mesh(k)).collect();
    let footprints = meshes
        .iter()
        .map(|m| {
            let top = m.top();
            m.pos
                .iter()
                .filter(|v| v.z <= 0.3 * top)
                .fold(0.0f32, |a, v| a.max(v.x.hypot(v.y)))
        })
        .collect();
    (meshes, footprints)
}

/// Adds the materials of a piece set to `mats`: per kind, White's and Black's.
pub(super) fn add_piece_mats(
    pieces: &super::params::PieceStyle,
    mats: &mut Vec<Material>,
) -> Vec<[u16; 2]> {
    let mut piece_mats = Vec::new();
    for &k in &PieceKind::ALL {
        let mut pair = [0u16; 2];
        for (i, side) in [PieceSide::White, PieceSide::Black].into_iter().enumerate() {
            pair[i] = mats.len() as u16;
            mats.push(mesh_mat(piece_look(k, side, pieces.white, pieces.black)));
        }
        piece_mats.push(pair);
    }
    piece_mats
}

/// The key light and the ambient of a lighting.
pub(super) fn key_light(l: &super::params::Lighting) -> Light {
    let (el, az) = (
        l.key_elevation_deg.to_radians(),
        l.key_azimuth_deg.to_radians(),
    );
    let to_light = v3(
        (el.cos() * az.sin()) as f32,
        (el.cos() * az.cos()) as f32,
        el.sin() as f32,
    )
    .norm();
    let tint = kelvin_rgb(l.color_temp_k);
    let sky = kelvin_rgb(l.color_temp_k + 2500.0);
    Light {
        to_light,
        key: tint * l.key_intensity as f32,
        ambient: sky * l.ambient as f32,
        soft: l.shadow_softness as f32,
    }
}

/// Motion blur, then the defocus of `r` with the softness every real lens has
/// folded in.
fn blur(img: &mut post::Lin, r: &super::params::Realism, tmp: &mut Vec<V3>) {
    post::motion_blur(img, r.motion_blur_px, r.motion_angle_deg);
    if r.defocus_px > 0.2 {
        post::defocus(
            img,
            (r.defocus_px * r.defocus_px + SOFT_SIGMA * SOFT_SIGMA).sqrt(),
            tmp,
        );
    } else {
        post::soften(img, 0.12, tmp);
    }
}
