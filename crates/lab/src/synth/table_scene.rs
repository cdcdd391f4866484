//! A table scene built once from `TableParams` (every board's texture laid into
//! one, the boards, the table, the clocks, the static shadows) and rendered for
//! many states of its boards, with any number of hands at once.

use image::RgbImage;
use serde::Serialize;
use std::sync::Mutex;

use super::actors::{piece_pose, PieceLook};
use super::board::{bake_board, bake_table, Texture};
use super::camera::{build_remap, Camera, Shake};
use super::geom::BoardGeom;
use super::hand::{self, HandPose};
use super::math::{lin, v3, Frame, V3};
use super::mesh::{cuboid, lathe, Mesh};
use super::occlusion::inside;
use super::params::SceneParams;
use super::raster::{Geometry, ShadowMap};
use super::rng::Rng;
use super::scene::{
    add_piece_mats, key_light, piece_meshes, Scene, Scratch, CONTACT_SPREAD, MAT_BOARD_TOP,
    MAT_CONTACT, MAT_FLOOR, MAT_TABLE, MAT_TABLE_TOP, OBJ_BOARD, OBJ_CLUTTER, OBJ_PIECE, OBJ_TABLE,
};
use super::shade::{Material, Tex};
use super::stages::Stages;
use super::table::{Clock, TableParams};
use super::{BoardState, SynthError};

/// Object id of board `b`'s players' hands: `OBJ_TABLE_HAND + b`.
pub const OBJ_TABLE_HAND: u32 = 8;

/// A board as it stands on the table.
struct Placed {
    params: SceneParams,
    geom: BoardGeom,
    rot: Frame,
    /// Its turn, radians.
    yaw: f32,
    centre: V3,
    piece_mats: Vec<[u16; 2]>,
}

impl Placed {
    /// A point of the board's frame in the table's.
    fn to_table(&self, p: V3) -> V3 {
        self.rot.apply(p) + self.centre
    }

    /// A table point (x, y) in the board's frame.
    fn to_local(&self, x: f32, y: f32) -> (f32, f32) {
        let (dx, dy) = (x - self.centre.x, y - self.centre.y);
        let (s, c) = self.yaw.sin_cos();
        (dx * c + dy * s, -dx * s + dy * c)
    }
}

/// A table of boards, built once, rendered for many states.
pub struct TableScene {
    scene: Scene,
    boards: Vec<Placed>,
}

/// One board as a table frame shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardView {
    /// Image positions of its grid corners TL, TR, BR, BL (see `Rendered`).
    pub corners: [[f64; 2]; 4],
    /// The boards (0-based) whose players' hands or arms lie over this board.
    pub hands: Vec<usize>,
    /// Per cell (row-major): its centre is covered by a hand or arm.
    pub occluded: Vec<bool>,
}

/// One rendered frame of a table with its truth, board by board.
#[derive(Clone, Debug)]
pub struct TableFrame {
    pub image: RgbImage,
    /// In the table's order (that of `TableParams::boards`).
    pub boards: Vec<BoardView>,
}

impl TableScene {
    /// Builds the table: every board's texture, the boards, the table and its
    /// clocks, the static shadows.
    pub fn new(tp: &TableParams) -> Result<TableScene, SynthError> {
        tp.validate()?;
        let p = tp.scene.clone();
        let mut boards: Vec<Placed> = tp
            .boards
            .iter()
            .map(|b| {
                let yaw = (b.yaw_deg as f32).to_radians();
                Placed {
                    geom: BoardGeom::new(&b.params),
                    params: b.params.clone(),
                    rot: Frame::rot_z(yaw),
                    yaw,
                    centre: v3(b.centre[0] as f32, b.centre[1] as f32, 0.0),
                    piece_mats: Vec::new(),
                }
            })
            .collect();
        let (ex, ey) = extent(&boards);
        // The camera fits an outline into a square of the shorter image side;
        // one shrunk along the longer side fills the whole frame instead.
        let short = p.width.min(p.height) as f32;
        let thickness = boards[0].geom.thickness.max(0.0005);
        let framing = BoardGeom {
            pitch_x: 0.05,
            pitch_y: 0.05,
            gx: ex * short / p.width as f32,
            gy: ey * short / p.height as f32,
            border: 0.0,
            thickness,
            points: false,
        };
        let (w, h) = (p.width as usize, p.height as usize);
        let cam0 = Camera::new(
            &p.camera,
            &framing.outline(),
            p.width,
            p.height,
            Shake::default(),
        );
        let remap = cam0.has_distortion().then(|| build_remap(&cam0, w, h));
        let mut rng = Rng::derive(p.seed, 1);
        let tpm = cam0.focal_px as f32 / cam0.pos.len().max(0.05);
        let (board_tex, sides) = table_texture(&boards, tpm, &mut rng);
        let table_tex = bake_table(p.table.kind, p.table.color, &mut rng);
        let mut mats = base_mats(&p, sides[0]);
        let mut statics = Geometry::default();
        for (b, side) in boards.iter().zip(&sides) {
            let mat = mats.len() as u16;
            mats.push(Material::flat(*side, 0.05, 10.0));
            add_board(b, mat, &mut statics);
        }
        let table_z = add_table(&mut statics, (ex, ey), thickness, &mut rng);
        for c in &tp.clocks {
            add_clock(c, table_z, &mut statics, &mut mats);
        }
        if !tp.sheets.is_empty() {
            mats.push(Material::flat(lin([236, 236, 230]), 0.05, 10.0));
            let paper = (mats.len() - 1) as u16;
            let sheet = cuboid(v3(0.105, 0.074, 0.0004));
            for s in &tp.sheets {
                let rot = Frame::rot_z((s.yaw_deg as f32).to_radians());
                let at = v3(s.centre[0] as f32, s.centre[1] as f32, table_z + 0.0004);
                statics.add_mesh(&sheet, &rot, v3(1.0, 1.0, 1.0), at, paper, OBJ_CLUTTER);
            }
        }
        let (meshes, footprints) = piece_meshes();
        for b in &mut boards {
            b.piece_mats = add_piece_mats(&b.params.pieces, &mut mats);
        }
        let light = key_light(&p.lighting);
        let radius = ex.hypot(ey) + 0.45;
        let sm_size = (p.lighting.shadow_map_size as usize)
            .min((w.max(h) as f32 * 1.2) as usize)
            .max(64);
        let mut static_shadow = ShadowMap::new(light.to_light, V3::default(), radius, sm_size);
        static_shadow.draw(&statics, |t| mats[t.mat as usize].caster);
        let piece_mats = boards[0].piece_mats.clone();
        Ok(TableScene {
            scene: Scene {
                background: lin(p.table.background),
                params: p,
                geom: framing,
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
            },
            boards,
        })
    }

    /// How many boards stand on the table.
    pub fn boards(&self) -> usize {
        self.boards.len()
    }

    /// The pose at `t` of a hand of board `board`'s player reaching cell
    /// `target` of that board at t = 0.5 from `approach_deg` (measured in the
    /// board's frame like the camera azimuth: 0 = from beyond its bottom edge,
    /// White's side), and leaving again by t = 1. Each player has their own
    /// skin and sleeve.
    pub fn hand_pose(
        &self,
        board: usize,
        target: (usize, usize),
        approach_deg: f64,
        t: f64,
        carrying: Option<super::Piece>,
    ) -> Option<HandPose> {
        let b = self.boards.get(board)?;
        let g = &b.geom;
        let c = b.to_table(g.centre(target.0, target.1));
        let ps = &b.params.pieces;
        let hover = g.pitch_x * ps.size as f32 * ps.height as f32 * 1.2 + 0.02;
        let reach = (g.gx + g.border).hypot(g.gy + g.border) + 0.55;
        let a = approach_deg.to_radians();
        let from = b.to_table(v3(reach * a.sin() as f32, reach * a.cos() as f32, 0.0));
        let start = [from.x as f64, from.y as f64, 0.3];
        let mut pose = hand::path_pose(start, [c.x as f64, c.y as f64, hover as f64], t, carrying);
        // Players on White's side (approaching from below) and Black's differ.
        let side = u64::from(approach_deg.to_radians().cos() < 0.0);
        let mut r = Rng::derive(b.params.seed, 9 + side);
        pose.skin = *r.pick(&hand::SKIN_TONES);
        let sleeves = [
            [40, 44, 58],
            [200, 200, 205],
            [120, 30, 35],
            [60, 90, 60],
            [25, 25, 28],
            [150, 120, 90],
        ];
        pose.sleeve = r.chance(0.7).then(|| *r.pick(&sleeves));
        Some(pose)
    }

    /// Renders frame number `frame` (camera noise varies with it) with each
    /// board's state, and the hands given with the board whose player each is.
    pub fn render(
        &self,
        states: &[BoardState],
        hands: &[(usize, HandPose)],
        frame: u64,
    ) -> Result<TableFrame, SynthError> {
        if states.len() != self.boards.len() {
            return Err(SynthError(format!(
                "{} board states for a table of {} boards",
                states.len(),
                self.boards.len()
            )));
        }
        for (s, b) in states.iter().zip(&self.boards) {
            s.validate()?;
            let p = &b.params;
            if (s.rows, s.cols, s.points) != (p.rows, p.cols, p.points) {
                return Err(SynthError(format!(
                    "board state {} does not match its board's grid",
                    s.grid_spec()
                )));
            }
        }
        for (b, hp) in hands {
            hp.validate()?;
            if *b >= self.boards.len() {
                return Err(SynthError(format!("no board {} on the table", b + 1)));
            }
        }
        let (image, views, _, cam) = self.scene.render_core(
            frame,
            |dynamic, mats| {
                for (b, s) in self.boards.iter().zip(states) {
                    self.add_pieces(b, s, dynamic);
                }
                for (i, hp) in hands {
                    let b = &self.boards[*i];
                    let look = PieceLook {
                        size: b.geom.pitch_x.min(b.geom.pitch_y) * b.params.pieces.size as f32,
                        height: b.params.pieces.height as f32,
                        mats: &b.piece_mats,
                    };
                    self.scene
                        .add_hand_as(hp, &look, OBJ_TABLE_HAND + *i as u32, dynamic, mats);
                }
            },
            |cam, ids| {
                self.boards
                    .iter()
                    .zip(states)
                    .map(|(b, s)| covered(b, s, cam, ids, !hands.is_empty()))
                    .collect::<Vec<_>>()
            },
            false,
            &mut Stages::off(),
        );
        let boards = self
            .boards
            .iter()
            .zip(views)
            .map(|(b, (occluded, hands))| {
                let corners = b
                    .geom
                    .corners()
                    .map(|c| cam.project(b.to_table(c)).unwrap_or([f64::NAN, f64::NAN]));
                BoardView {
                    corners,
                    hands,
                    occluded,
                }
            })
            .collect();
        Ok(TableFrame { image, boards })
    }

    fn add_pieces(&self, b: &Placed, state: &BoardState, out: &mut Geometry) {
        for r in 0..state.rows {
            for c in 0..state.cols {
                let Some(piece) = state.get(r, c) else {
                    continue;
                };
                let (yaw, scale, local) = piece_pose(&b.params, &b.geom, (r, c), piece);
                let pos = b.to_table(local);
                let k = piece.kind.index();
                let mat = b.piece_mats[k][piece.side as usize];
                let obj = OBJ_PIECE + (r * state.cols + c) as u32;
                let rot = Frame::rot_z(yaw + b.yaw);
                out.add_mesh(&self.scene.meshes[k], &rot, scale, pos, mat, obj);
                let rad = self.scene.footprints[k] * scale.x * CONTACT_SPREAD;
                out.add_mesh(
                    &self.scene.contact,
                    &Frame::IDENTITY,
                    v3(rad, rad, 1.0),
                    pos + v3(0.0, 0.0, 0.0003),
                    MAT_CONTACT,
                    OBJ_BOARD,
                );
            }
        }
    }
}

/// Half extents (x, y) of the boards' outlines together, about the origin.
fn extent(boards: &[Placed]) -> (f32, f32) {
    let (mut ex, mut ey) = (0.0f32, 0.0f32);
    for b in boards {
        for c in b.geom.outline() {
            let q = b.to_table(c);
            ex = ex.max(q.x.abs());
            ey = ey.max(q.y.abs());
        }
    }
    (ex, ey)
}

/// Every board's top baked and laid into one texture of the table frame (the
/// board materials look the board up where they are), and each board's edge
/// colour.
fn table_texture(boards: &[Placed], tpm: f32, rng: &mut Rng) -> (Texture, Vec<V3>) {
    let own: Vec<Texture> = boards
        .iter()
        .map(|b| bake_board(&b.params, tpm, rng))
        .collect();
    let sides = own.iter().map(|t| t.data[0] * 0.7).collect();
    let (ex, ey) = extent(boards);
    let (sx, sy) = (2.0 * ex + 0.01, 2.0 * ey + 0.01);
    let w = ((sx * tpm) as usize).clamp(64, 4096);
    let h = ((sy * tpm) as usize).clamp(64, 4096);
    let mut data = Vec::with_capacity(w * h);
    for j in 0..h {
        let y = -sy / 2.0 + (j as f32 + 0.5) * sy / h as f32;
        for i in 0..w {
            let x = -sx / 2.0 + (i as f32 + 0.5) * sx / w as f32;
            // The board the texel is on, or nearest to (clamped at its edge).
            let mut best = (f32::MAX, V3::default());
            for (b, t) in boards.iter().zip(&own) {
                let (lx, ly) = b.to_local(x, y);
                let out = (lx.abs() - (b.geom.gx + b.geom.border))
                    .max(ly.abs() - (b.geom.gy + b.geom.border));
                if out < best.0 {
                    best = (out, t.sample(lx, ly));
                }
            }
            data.push(best.1);
        }
    }
    for t in own {
        t.recycle();
    }
    (
        Texture::new(w, h, data, (-sx / 2.0, -sy / 2.0), (sx, sy), false),
        sides,
    )
}

/// The scene's first materials, in the order `scene`'s constants number them.
fn base_mats(p: &SceneParams, side: V3) -> Vec<Material> {
    let mut mats = vec![
        Material {
            tex: Tex::Board,
            caster: false,
            ..Material::flat(V3::default(), 0.06, 20.0)
        },
        Material::flat(side, 0.05, 10.0),
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
    mats
}

/// A board's top face and the box of its sides, in material `side`.
fn add_board(b: &Placed, side: u16, statics: &mut Geometry) {
    let g = &b.geom;
    let hb = v3(g.gx + g.border, g.gy + g.border, 0.0);
    let top = cuboid(v3(hb.x, hb.y, 0.0));
    let top = Mesh {
        pos: top.pos[16..20].to_vec(),
        nrm: top.nrm[16..20].to_vec(),
        tris: vec![[0, 1, 2], [0, 2, 3]],
    };
    let one = v3(1.0, 1.0, 1.0);
    statics.add_mesh(&top, &b.rot, one, b.centre, MAT_BOARD_TOP, OBJ_BOARD);
    let t = g.thickness.max(0.0005);
    let body = cuboid(v3(hb.x, hb.y, t / 2.0 - 0.0002));
    let at = b.centre + v3(0.0, 0.0, -t / 2.0);
    statics.add_mesh(&body, &b.rot, one, at, side, OBJ_BOARD);
}

/// The table under boards spanning (ex, ey) each way, long to the sides as a
/// row of tables is, and the floor; returns the height of its top.
fn add_table(statics: &mut Geometry, (ex, ey): (f32, f32), t: f32, rng: &mut Rng) -> f32 {
    let one = v3(1.0, 1.0, 1.0);
    // Deep enough for the score sheets in front of the players.
    let half = v3(ex + 1.5, ey + rng.range(0.22, 0.3) as f32, 0.02);
    let first = statics.tris.len();
    let at = v3(0.0, rng.range(-0.05, 0.05) as f32, -t - 0.02);
    statics.add_mesh(
        &cuboid(half),
        &Frame::IDENTITY,
        one,
        at,
        MAT_TABLE,
        OBJ_TABLE,
    );
    let mut table_z = -t;
    for tri in &mut statics.tris[first..] {
        let v = tri.v[0] as usize;
        if tri.flat && statics.nrm[v].z > 0.5 {
            tri.mat = MAT_TABLE_TOP;
            table_z = statics.pos[v].z;
        }
    }
    let floor = cuboid(v3(12.0, 12.0, 0.01));
    let at = v3(0.0, 0.0, -t - 0.75);
    statics.add_mesh(&floor, &Frame::IDENTITY, one, at, MAT_FLOOR, OBJ_TABLE);
    table_z
}

/// A digital chess clock standing on the table at height `z0`: a box with
/// its display on top and a button for each player.
fn add_clock(c: &Clock, z0: f32, statics: &mut Geometry, mats: &mut Vec<Material>) {
    let rot = Frame::rot_z((c.yaw_deg as f32).to_radians());
    let at = |x: f32, y: f32, z: f32| {
        rot.apply(v3(x, y, z)) + v3(c.centre[0] as f32, c.centre[1] as f32, z0)
    };
    let one = v3(1.0, 1.0, 1.0);
    let mut mat = |rgb: [u8; 3], spec: f32| {
        mats.push(Material::flat(lin(rgb), spec, 30.0));
        (mats.len() - 1) as u16
    };
    let (body, screen, button) = (
        mat(c.color, 0.2),
        mat([70, 80, 72], 0.4),
        mat([30, 30, 30], 0.2),
    );
    let (hx, hy, hz) = (0.045f32, 0.09f32, 0.028f32);
    statics.add_mesh(
        &cuboid(v3(hx, hy, hz)),
        &rot,
        one,
        at(0.0, 0.0, hz),
        body,
        OBJ_CLUTTER,
    );
    let lcd = cuboid(v3(0.018, 0.065, 0.001));
    statics.add_mesh(
        &lcd,
        &rot,
        one,
        at(-0.014, 0.0, 2.0 * hz + 0.001),
        screen,
        OBJ_CLUTTER,
    );
    let knob = lathe(
        &[(0.0, 0.0), (0.012, 0.0), (0.012, 0.012), (0.0, 0.013)],
        14,
    );
    for y in [-0.055f32, 0.055] {
        statics.add_mesh(
            &knob,
            &rot,
            one,
            at(0.022, y, 2.0 * hz),
            button,
            OBJ_CLUTTER,
        );
    }
}

/// Which cell centres of board `b` a hand covers, and whose hands lie over it.
fn covered(
    b: &Placed,
    state: &BoardState,
    cam: &Camera,
    ids: &dyn Fn(usize) -> u32,
    any_hand: bool,
) -> (Vec<bool>, Vec<usize>) {
    let (cw, ch) = (cam.canvas_w, cam.canvas_h);
    let hand_of = |id: u32| id.checked_sub(OBJ_TABLE_HAND).filter(|&k| k < 8);
    let id_at = |p: Option<[f64; 2]>| -> u32 {
        match p {
            Some([x, y])
                if x >= -0.5 && y >= -0.5 && x < cw as f64 - 0.5 && y < ch as f64 - 0.5 =>
            {
                ids((y.round() as usize).min(ch - 1) * cw + (x.round() as usize).min(cw - 1))
            }
            _ => 0,
        }
    };
    let mut occluded = Vec::with_capacity(state.rows * state.cols);
    for r in 0..state.rows {
        for c in 0..state.cols {
            let at = cam.project_canvas(b.to_table(b.geom.centre(r, c)));
            occluded.push(any_hand && hand_of(id_at(at)).is_some());
        }
    }
    let mut mask = 0u32;
    let poly: Vec<[f64; 2]> = b
        .geom
        .outline()
        .iter()
        .filter_map(|&v| cam.project_canvas(b.to_table(v)))
        .collect();
    if any_hand && poly.len() == 4 {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for q in &poly {
            (x0, y0) = (x0.min(q[0]), y0.min(q[1]));
            (x1, y1) = (x1.max(q[0]), y1.max(q[1]));
        }
        let xs = x0.max(0.0) as usize..(x1.min(cw as f64 - 1.0).max(0.0) as usize + 1);
        for y in y0.max(0.0) as usize..(y1.min(ch as f64 - 1.0).max(0.0) as usize + 1) {
            for x in xs.clone() {
                if let Some(k) = hand_of(ids(y * cw + x)) {
                    if mask & (1 << k) == 0 && inside(&poly, x as f64, y as f64) {
                        mask |= 1 << k;
                    }
                }
            }
        }
    }
    let hands = (0..8).filter(|k| mask & (1 << k) != 0).collect();
    (occluded, hands)
}
