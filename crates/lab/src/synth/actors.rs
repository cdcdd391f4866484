//! Placing the per-frame geometry: pieces (with their contact discs) and
//! the hand with anything it carries.

use super::hand::{self, HandPose};
use super::math::{lin, v3, Frame, V3};
use super::raster::Geometry;
use super::rng::{hash, Rng};
use super::scene::{Scene, CONTACT_SPREAD, MAT_CONTACT, OBJ_BOARD, OBJ_HAND, OBJ_PIECE};
use super::shade::Material;
use super::{BoardState, Piece, PieceKind, PieceSide};

/// How a board's pieces are drawn: the footprint scale (metres), the height
/// scale and the material of each (kind, side).
pub(super) struct PieceLook<'a> {
    pub size: f32,
    pub height: f32,
    pub mats: &'a [[u16; 2]],
}

impl Scene {
    pub(super) fn piece_instance(&self, r: usize, c: usize, piece: Piece) -> (Frame, V3, V3) {
        let (yaw, scale, pos) = piece_pose(&self.params, &self.geom, (r, c), piece);
        (Frame::rot_z(yaw), scale, pos)
    }

    pub(super) fn add_pieces(&self, state: &BoardState, out: &mut Geometry) {
        for r in 0..state.rows {
            for c in 0..state.cols {
                if let Some(piece) = state.get(r, c) {
                    let (rot, scale, pos) = self.piece_instance(r, c, piece);
                    let k = piece.kind.index();
                    let mat = self.piece_mats[k][piece.side as usize];
                    let obj = OBJ_PIECE + (r * state.cols + c) as u32;
                    out.add_mesh(&self.meshes[k], &rot, scale, pos, mat, obj);
                    let rad = self.footprints[k] * scale.x * CONTACT_SPREAD;
                    out.add_mesh(
                        &self.contact,
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

    pub(super) fn add_hand(&self, hp: &HandPose, out: &mut Geometry, mats: &mut Vec<Material>) {
        let g = &self.geom;
        let s = g.pitch_x.min(g.pitch_y) * self.params.pieces.size as f32;
        let look = PieceLook {
            size: s,
            height: self.params.pieces.height as f32,
            mats: &self.piece_mats,
        };
        self.add_hand_as(hp, &look, OBJ_HAND, out, mats);
    }

    /// The hand of `hp` as object `obj`, a carried piece drawn as `look` says.
    pub(super) fn add_hand_as(
        &self,
        hp: &HandPose,
        look: &PieceLook,
        obj: u32,
        out: &mut Geometry,
        mats: &mut Vec<Material>,
    ) {
        let (s, height) = (look.size, look.height);
        let carried = hp
            .carrying
            .map(|pc| (pc, self.meshes[pc.kind.index()].top() * s * height));
        let hm = hand::build(hp, carried.map(|c| c.1).unwrap_or(0.0));
        let skin = mats.len() as u16;
        mats.push(Material {
            wrap: 0.35,
            ..Material::flat(lin(hp.skin), 0.08, 12.0)
        });
        let sleeve = mats.len() as u16;
        mats.push(Material::flat(
            lin(hp.sleeve.unwrap_or([60, 60, 60])),
            0.04,
            8.0,
        ));
        out.add_mesh(
            &hm.skin,
            &Frame::IDENTITY,
            v3(1.0, 1.0, 1.0),
            V3::default(),
            skin,
            obj,
        );
        out.add_mesh(
            &hm.sleeve,
            &Frame::IDENTITY,
            v3(1.0, 1.0, 1.0),
            V3::default(),
            sleeve,
            obj,
        );
        if let Some((pc, _)) = carried {
            let k = pc.kind.index();
            let scale = v3(s, s, s * height);
            let rot = Frame::rot_z((hp.heading_deg as f32).to_radians());
            out.add_mesh(
                &self.meshes[k],
                &rot,
                scale,
                hm.carried_base,
                look.mats[k][pc.side as usize],
                obj,
            );
        }
    }
}

/// Where a piece of a board of `params` and `g` stands on cell `r`, `c` in the
/// board's frame: its turn about the vertical, its scale and its base, a little
/// off the cell's centre as players leave pieces.
pub(super) fn piece_pose(
    params: &super::params::SceneParams,
    g: &super::geom::BoardGeom,
    (r, c): (usize, usize),
    piece: Piece,
) -> (f32, V3, V3) {
    let ps = &params.pieces;
    let mut rng = Rng::new(hash(&[
        params.seed,
        5,
        (r * 64 + c) as u64,
        piece.kind as u64,
        piece.side as u64,
    ]));
    let j = ps.offset_jitter as f32;
    let off = v3(
        (rng.f32() * 2.0 - 1.0) * j * g.pitch_x,
        (rng.f32() * 2.0 - 1.0) * j * g.pitch_y,
        0.0,
    );
    let mut yaw = (rng.f32() * 2.0 - 1.0) * (ps.rot_jitter_deg as f32).to_radians();
    if piece.kind == PieceKind::Knight {
        // Knights face the opponent, give or take a few degrees.
        let face = if piece.side == PieceSide::White {
            -90.0f32
        } else {
            90.0
        };
        yaw += (face + (rng.f32() - 0.5) * 70.0).to_radians();
    } else {
        yaw += rng.f32() * std::f32::consts::TAU;
    }
    let s = g.pitch_x.min(g.pitch_y) * ps.size as f32;
    let scale = v3(s, s, s * ps.height as f32);
    (yaw, scale, g.centre(r, c) + off)
}
