//! A hand and forearm built from capsules and ellipsoids, and a path that
//! brings it from outside the board to a cell and back.

use serde::{Deserialize, Serialize};

use super::math::{v3, Frame, V3};
use super::mesh::{capsule, sphere, Mesh};
use super::{Piece, SynthError};

/// Pose of a right hand reaching over the board (world frame, metres).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandPose {
    /// Point between thumb and fingertips where a piece would be held.
    pub grip_point: [f64; 3],
    /// Reaching direction in the board plane, degrees from +x towards +y.
    pub heading_deg: f64,
    /// Rise of the forearm behind the wrist, degrees above horizontal.
    pub arm_pitch_deg: f64,
    /// 0 = open, relaxed hand; 1 = fingers pinched together.
    pub grip: f64,
    pub skin: [u8; 3],
    /// Colour of a sleeve over the forearm, if any.
    pub sleeve: Option<[u8; 3]>,
    /// A piece held between the fingers.
    pub carrying: Option<Piece>,
}

/// Skin tones from light to dark (sRGB).
pub const SKIN_TONES: [[u8; 3]; 6] = [
    [236, 196, 170],
    [224, 172, 140],
    [198, 140, 106],
    [170, 112, 80],
    [128, 82, 56],
    [92, 60, 42],
];

impl HandPose {
    /// Hand above `grip_point` reaching along `heading_deg`.
    pub fn new(grip_point: [f64; 3], heading_deg: f64) -> HandPose {
        HandPose {
            grip_point,
            heading_deg,
            arm_pitch_deg: 22.0,
            grip: 0.3,
            skin: SKIN_TONES[1],
            sleeve: Some([40, 44, 58]),
            carrying: None,
        }
    }
}

impl HandPose {
    pub fn validate(&self) -> Result<(), SynthError> {
        let nums = [
            self.grip_point[0],
            self.grip_point[1],
            self.grip_point[2],
            self.heading_deg,
            self.arm_pitch_deg,
            self.grip,
        ];
        if nums.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(SynthError("hand pose has a non-finite number".into()))
        }
    }
}

/// Pose at `t` in [0, 1] on a path from `start` (t = 0) to `target` (t = 0.5)
/// and back (t = 1). Points are grip points in world metres.
pub fn path_pose(start: [f64; 3], target: [f64; 3], t: f64, carrying: Option<Piece>) -> HandPose {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let u = 1.0 - (2.0 * t - 1.0).abs();
    let e = u * u * (3.0 - 2.0 * u);
    let lerp = |a: f64, b: f64| a + (b - a) * e;
    let lift = 0.06 * (std::f64::consts::PI * e).sin();
    let p = [
        lerp(start[0], target[0]),
        lerp(start[1], target[1]),
        lerp(start[2], target[2]) + lift,
    ];
    let heading = (target[1] - start[1])
        .atan2(target[0] - start[0])
        .to_degrees();
    let mut pose = HandPose::new(p, heading);
    pose.grip = 0.25 + 0.65 * e.powi(4);
    pose.arm_pitch_deg = 18.0 + 10.0 * (1.0 - e);
    pose.carrying = carrying;
    pose
}

/// Meshes of the hand: skin parts, sleeve parts, and where a carried
/// piece's base goes.
pub struct HandMeshes {
    pub skin: Mesh,
    pub sleeve: Mesh,
    pub carried_base: V3,
}

fn ellipsoid(m: &mut Mesh, centre: V3, rot: &Frame, radii: V3) {
    m.append(&sphere(12), rot, radii, centre);
}

pub fn build(pose: &HandPose, carried_height: f32) -> HandMeshes {
    let g = v3(
        pose.grip_point[0] as f32,
        pose.grip_point[1] as f32,
        pose.grip_point[2] as f32,
    );
    let h = (pose.heading_deg as f32).to_radians();
    let f = v3(h.cos(), h.sin(), 0.0);
    let s = v3(-h.sin(), h.cos(), 0.0);
    let z = v3(0.0, 0.0, 1.0);
    let grip = pose.grip.clamp(0.0, 1.0) as f32;
    let mut skin = Mesh::default();
    let mut sleeve = Mesh::default();

    // Palm tilted down towards the fingers.
    let palm = g - f * 0.065 + z * 0.06;
    let tilt = 0.45f32;
    let pf = (f * tilt.cos() - z * tilt.sin()).norm();
    let pz = s.cross(pf).norm();
    let palm_rot = Frame { x: pf, y: s, z: pz };
    ellipsoid(&mut skin, palm, &palm_rot, v3(0.052, 0.044, 0.017));

    // Fingers: two segments each, curling more as the grip closes.
    let spread = 1.0 - 0.45 * grip;
    let fingers = [
        (-0.027f32, 0.062f32),
        (-0.009, 0.078),
        (0.009, 0.084),
        (0.027, 0.078),
    ];
    for (off, len) in fingers {
        let knuckle = palm + pf * 0.045 + s * (off * spread) - pz * 0.004;
        let a1 = 0.35 + 0.5 * grip;
        let d1 = (f * a1.cos() - z * a1.sin()).norm();
        let mid = knuckle + d1 * (len * 0.55);
        let a2 = a1 + 0.5 + 0.5 * grip;
        let d2 = (f * a2.cos() - z * a2.sin() - s * (off * 2.0 * grip)).norm();
        let tip = mid + d2 * (len * 0.45);
        skin = Mesh::merged(&[
            &skin,
            &capsule(knuckle, mid, 0.0088, 8),
            &capsule(mid, tip, 0.008, 8),
        ]);
    }
    // Thumb from the inner side of the palm towards the grip point.
    let base = palm + s * 0.036 - pf * 0.015 - pz * 0.006;
    let tip = g + s * (0.012 + 0.03 * (1.0 - grip)) + z * 0.01 - f * 0.005;
    let knuckle = base.lerp(tip, 0.5) + s * 0.012 + z * 0.008;
    skin = Mesh::merged(&[
        &skin,
        &capsule(base, knuckle, 0.0105, 8),
        &capsule(knuckle, tip, 0.0095, 8),
    ]);

    // Wrist and forearm rising away from the board.
    let wrist = palm - pf * 0.05 + z * 0.01;
    let p = (pose.arm_pitch_deg as f32).to_radians();
    let back = (-f * p.cos() + z * p.sin()).norm();
    let elbow = wrist + back * 0.3;
    // Long enough that the upper arm leaves the picture in most views.
    let shoulder = elbow + (back + z * 0.3).norm() * 0.6;
    skin = Mesh::merged(&[&skin, &capsule(wrist, wrist + back * 0.06, 0.027, 10)]);
    let cuff = wrist + back * 0.06;
    match pose.sleeve {
        Some(_) => {
            sleeve = Mesh::merged(&[
                &capsule(cuff, elbow, 0.04, 12),
                &capsule(elbow, shoulder, 0.05, 12),
            ]);
        }
        None => {
            skin = Mesh::merged(&[
                &skin,
                &capsule(cuff, elbow, 0.034, 12),
                &capsule(elbow, shoulder, 0.045, 12),
            ]);
        }
    }
    HandMeshes {
        skin,
        sleeve,
        carried_base: g - z * (carried_height * 0.55),
    }
}
