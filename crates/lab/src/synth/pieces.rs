//! Piece meshes in cell units: base on z = 0, one column pitch = 1.
//! Turned shapes are lathed profiles; the knight's head is an extruded
//! horse-head outline; crenellations, crown points and the cross are boxes
//! and spheres added to the lathe body.

use super::math::{v3, Frame, V3};
use super::mesh::{arc, cuboid, lathe, loft, sphere, Mesh};
use super::params::PieceColor;
use super::{PieceKind, PieceSide};

const SEG: usize = 20;

/// Plinth shared by the Staunton pieces, ending at the start of the stem.
fn plinth(r: f32) -> Vec<(f32, f32)> {
    vec![
        (0.0, 0.0),
        (r, 0.0),
        (r, 0.045),
        (r * 0.96, 0.07),
        (r * 0.86, 0.085),
        (r * 0.86, 0.115),
        (r * 0.78, 0.13),
        (r * 0.66, 0.16),
    ]
}

fn with(mut a: Vec<(f32, f32)>, b: &[(f32, f32)]) -> Vec<(f32, f32)> {
    a.extend_from_slice(b);
    a
}

fn add(m: &mut Mesh, part: &Mesh, scale: V3, off: V3) {
    m.append(part, &Frame::IDENTITY, scale, off);
}

fn pawn() -> Mesh {
    let mut p = with(plinth(0.27), &[(0.12, 0.23), (0.085, 0.38), (0.085, 0.44)]);
    p.extend([(0.16, 0.46), (0.16, 0.5), (0.07, 0.52)]);
    p.extend(arc(0.0, 0.63, 0.125, -62.0, 90.0, 8));
    lathe(&p, SEG)
}

fn rook() -> Mesh {
    let mut p = with(plinth(0.3), &[(0.17, 0.23), (0.15, 0.52), (0.16, 0.58)]);
    p.extend([
        (0.225, 0.63),
        (0.225, 0.68),
        (0.2, 0.7),
        (0.21, 0.8),
        (0.13, 0.8),
        (0.13, 0.77),
        (0.0, 0.77),
    ]);
    let mut m = lathe(&p, SEG);
    let merlon = cuboid(v3(0.045, 0.04, 0.05));
    for k in 0..6 {
        let a = k as f32 * std::f32::consts::TAU / 6.0;
        let rot = Frame::rot_z(a);
        m.append(
            &merlon,
            &rot,
            v3(1.0, 1.0, 1.0),
            rot.apply(v3(0.17, 0.0, 0.85)),
        );
    }
    m
}

fn bishop() -> Mesh {
    let mut p = with(plinth(0.31), &[(0.13, 0.24), (0.09, 0.56)]);
    p.extend([(0.19, 0.6), (0.19, 0.635), (0.085, 0.665), (0.12, 0.7)]);
    p.extend([
        (0.15, 0.76),
        (0.155, 0.82),
        (0.14, 0.88),
        (0.105, 0.95),
        (0.05, 1.0),
        (0.02, 1.02),
    ]);
    p.extend(arc(0.0, 1.06, 0.045, -60.0, 90.0, 5));
    let mut m = lathe(&p, SEG);
    // The mitre's slit: a thin dark-looking notch approximated by a plate.
    let slit = cuboid(v3(0.01, 0.13, 0.05));
    m.append(
        &slit,
        &Frame::rot_z(0.6),
        v3(1.0, 1.0, 1.0),
        v3(0.06, 0.0, 0.9),
    );
    m
}

fn queen() -> Mesh {
    let mut p = with(plinth(0.34), &[(0.14, 0.27), (0.095, 0.72)]);
    p.extend([(0.2, 0.77), (0.2, 0.805), (0.1, 0.835), (0.11, 0.9)]);
    p.extend([
        (0.2, 1.12),
        (0.175, 1.13),
        (0.1, 1.08),
        (0.075, 1.13),
        (0.05, 1.17),
    ]);
    p.extend(arc(0.0, 1.21, 0.05, -50.0, 90.0, 5));
    let mut m = lathe(&p, SEG);
    let ball = sphere(8);
    for k in 0..9 {
        let a = k as f32 * std::f32::consts::TAU / 9.0;
        add(
            &mut m,
            &ball,
            v3(0.032, 0.032, 0.032),
            v3(0.19 * a.cos(), 0.19 * a.sin(), 1.14),
        );
    }
    m
}

fn king() -> Mesh {
    let mut p = with(plinth(0.36), &[(0.15, 0.27), (0.11, 0.8)]);
    p.extend([(0.215, 0.85), (0.215, 0.89), (0.115, 0.92), (0.125, 0.99)]);
    p.extend([
        (0.2, 1.16),
        (0.2, 1.19),
        (0.12, 1.23),
        (0.07, 1.27),
        (0.0, 1.28),
    ]);
    let mut m = lathe(&p, SEG);
    add(
        &mut m,
        &cuboid(v3(0.032, 0.032, 0.11)),
        v3(1.0, 1.0, 1.0),
        v3(0.0, 0.0, 1.38),
    );
    add(
        &mut m,
        &cuboid(v3(0.09, 0.032, 0.032)),
        v3(1.0, 1.0, 1.0),
        v3(0.0, 0.0, 1.41),
    );
    m
}

fn knight() -> Mesh {
    let p = with(plinth(0.31), &[(0.18, 0.22), (0.18, 0.3), (0.0, 0.3)]);
    let mut m = lathe(&p, SEG);
    // Horse head in side view, facing +x: chest, muzzle, forehead, ears
    // and the arched back of the neck.
    let head = [
        (-0.2, 0.27),
        (0.17, 0.27),
        (0.14, 0.36),
        (0.1, 0.46),
        (0.16, 0.5),
        (0.27, 0.55),
        (0.33, 0.6),
        (0.34, 0.67),
        (0.3, 0.73),
        (0.2, 0.8),
        (0.13, 0.88),
        (0.1, 0.99),
        (0.05, 0.94),
        (0.0, 0.99),
        (-0.05, 0.92),
        (-0.14, 0.86),
        (-0.2, 0.76),
        (-0.24, 0.6),
        (-0.25, 0.44),
    ];
    // Layers across the head: narrow at the faces, full in the middle.
    let layers = [
        (-0.11, 0.86),
        (-0.085, 0.97),
        (-0.05, 1.0),
        (0.05, 1.0),
        (0.085, 0.97),
        (0.11, 0.86),
    ];
    add(
        &mut m,
        &loft(&head, &layers),
        v3(1.0, 1.0, 1.0),
        V3::default(),
    );
    // Eyes: small bumps either side.
    let eye = sphere(6);
    for y in [-0.1f32, 0.1] {
        add(&mut m, &eye, v3(0.025, 0.02, 0.025), v3(0.14, y, 0.8));
    }
    m
}

fn man() -> Mesh {
    let mut p = vec![(0.0, 0.0), (0.4, 0.0)];
    let ridges = 5;
    for k in 0..ridges {
        let z = 0.015 + k as f32 * 0.022;
        p.push((0.4, z));
        p.push((0.386, z + 0.011));
    }
    p.extend([
        (0.4, 0.13),
        (0.39, 0.14),
        (0.31, 0.14),
        (0.29, 0.13),
        (0.0, 0.13),
    ]);
    lathe(&p, 24)
}

fn soldier() -> Mesh {
    let mut p = vec![
        (0.0, 0.0),
        (0.28, 0.0),
        (0.28, 0.06),
        (0.22, 0.09),
        (0.15, 0.3),
    ];
    p.extend(arc(0.0, 0.38, 0.12, -50.0, 90.0, 6));
    lathe(&p, SEG)
}

fn tablut_king() -> Mesh {
    let mut p = vec![
        (0.0, 0.0),
        (0.32, 0.0),
        (0.32, 0.07),
        (0.24, 0.1),
        (0.15, 0.52),
        (0.22, 0.56),
    ];
    p.extend([
        (0.22, 0.6),
        (0.15, 0.62),
        (0.19, 0.74),
        (0.15, 0.74),
        (0.1, 0.7),
    ]);
    p.extend(arc(0.0, 0.74, 0.09, -30.0, 90.0, 5));
    lathe(&p, SEG)
}

fn stone() -> Mesh {
    // Double-convex lens; slightly squarer than an ellipse at the rim.
    let p: Vec<(f32, f32)> = (0..=12)
        .map(|i| {
            let a = (-90.0 + 15.0 * i as f32).to_radians();
            let (s, c) = a.sin_cos();
            (
                0.47 * c.abs().powf(0.8),
                0.19 * (1.0 + s.signum() * s.abs().powf(1.1)),
            )
        })
        .collect();
    lathe(&p, 24)
}

/// Mesh of a piece kind in cell units.
pub fn piece_mesh(kind: PieceKind) -> Mesh {
    match kind {
        PieceKind::Pawn => pawn(),
        PieceKind::Knight => knight(),
        PieceKind::Bishop => bishop(),
        PieceKind::Rook => rook(),
        PieceKind::Queen => queen(),
        PieceKind::King => king(),
        PieceKind::Man => man(),
        PieceKind::DraughtsKing => {
            let one = man();
            let mut m = one.clone();
            add(&mut m, &one, v3(1.0, 1.0, 1.0), v3(0.0, 0.0, 0.14));
            m
        }
        PieceKind::Soldier => soldier(),
        PieceKind::TablutKing => tablut_king(),
        PieceKind::Stone => stone(),
    }
}

/// Surface of a piece: sRGB colour, specular strength, shininess, grain.
pub fn piece_look(
    kind: PieceKind,
    side: PieceSide,
    white: PieceColor,
    black: PieceColor,
) -> ([u8; 3], f32, f32, bool) {
    if kind == PieceKind::Stone {
        return match side {
            PieceSide::White => ([236, 236, 228], 0.35, 40.0, false),
            PieceSide::Black => ([22, 22, 25], 0.3, 30.0, false),
        };
    }
    let c = match side {
        PieceSide::White => white,
        PieceSide::Black => black,
    };
    match c {
        PieceColor::White => ([232, 228, 214], 0.3, 30.0, false),
        PieceColor::Cream => ([236, 214, 168], 0.3, 30.0, false),
        PieceColor::LightWood => ([214, 172, 112], 0.25, 25.0, true),
        PieceColor::Black => ([30, 28, 28], 0.45, 40.0, false),
        PieceColor::Brown => ([96, 54, 30], 0.35, 30.0, false),
        PieceColor::DarkWood => ([74, 40, 22], 0.3, 25.0, true),
    }
}
