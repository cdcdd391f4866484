//! Props on the table beside the board: boxes, cans, mugs and paper.

use super::geom::BoardGeom;
use super::math::{lin, v3, Frame, V3};
use super::mesh::{capsule, cuboid, lathe, Mesh};
use super::params::SceneParams;
use super::raster::Geometry;
use super::rng::Rng;
use super::scene::OBJ_CLUTTER;
use super::shade::Material;

/// Boxes, cans, mugs and papers on the table, kept off the board and out of
/// the strip between the camera and the board so they never hide the grid.
pub fn add_clutter(
    p: &SceneParams,
    g: &BoardGeom,
    table: ((f32, f32), V3),
    z0: f32,
    rng: &mut Rng,
    out: &mut Geometry,
    mats: &mut Vec<Material>,
) {
    let ((tx, ty), toff) = table;
    let (bx, by) = (g.gx + g.border, g.gy + g.border);
    let cam_az = p.camera.azimuth_deg.to_radians() as f32;
    let cam_dir = v3(cam_az.sin(), cam_az.cos(), 0.0);
    // Low views look across the table: keep props further round the side.
    let max_facing = if p.camera.elevation_deg < 55.0 {
        -0.3
    } else {
        0.3
    };
    let mut placed: Vec<(V3, f32)> = Vec::new();
    let mut tries = 0;
    while placed.len() < p.table.clutter && tries < 60 {
        tries += 1;
        let kind = rng.below(4);
        let size = match kind {
            2 => 0.075,
            3 => 0.19,
            _ => rng.range(0.03, 0.09) as f32,
        };
        let pos = v3(
            toff.x + (rng.f32() * 2.0 - 1.0) * (tx - size),
            toff.y + (rng.f32() * 2.0 - 1.0) * (ty - size),
            z0,
        );
        let clear = pos.x.abs() > bx + size + 0.01 || pos.y.abs() > by + size + 0.01;
        let facing = pos.norm().dot(cam_dir);
        if !clear
            || facing > max_facing
            || placed
                .iter()
                .any(|&(q, s)| (q - pos).len() < s + size + 0.01)
        {
            continue;
        }
        let col = [
            rng.below(200) as u8 + 30,
            rng.below(200) as u8 + 30,
            rng.below(200) as u8 + 30,
        ];
        let mat = mats.len() as u16;
        mats.push(Material::flat(lin(col), rng.range(0.05, 0.5) as f32, 30.0));
        let rot = Frame::rot_z(rng.f32() * std::f32::consts::TAU);
        let one = v3(1.0, 1.0, 1.0);
        match kind {
            0 => {
                let hgt = rng.range(0.03, 0.15) as f32;
                let b = cuboid(v3(size, size * rng.range(0.5, 1.0) as f32, hgt / 2.0));
                out.add_mesh(
                    &b,
                    &rot,
                    one,
                    pos + v3(0.0, 0.0, hgt / 2.0),
                    mat,
                    OBJ_CLUTTER,
                );
            }
            1 => {
                let hgt = rng.range(0.06, 0.2) as f32;
                let r = size * 0.6;
                let m = lathe(
                    &[
                        (0.0, 0.0),
                        (r, 0.0),
                        (r, hgt),
                        (r * 0.9, hgt + 0.005),
                        (0.0, hgt + 0.005),
                    ],
                    16,
                );
                out.add_mesh(&m, &rot, one, pos, mat, OBJ_CLUTTER);
            }
            2 => {
                let r = 0.04f32;
                let hgt = 0.095f32;
                let prof = vec![
                    (0.0, 0.0),
                    (r, 0.0),
                    (r, hgt),
                    (r - 0.004, hgt),
                    (r - 0.004, 0.012),
                    (0.0, 0.012),
                ];
                let mut mug = lathe(&prof, 18);
                let (a, b, c, d) = (
                    v3(r, 0.0, 0.075),
                    v3(r + 0.03, 0.0, 0.07),
                    v3(r + 0.03, 0.0, 0.03),
                    v3(r, 0.0, 0.025),
                );
                for (s, e) in [(a, b), (b, c), (c, d)] {
                    mug = Mesh::merged(&[&mug, &capsule(s, e, 0.006, 6)]);
                }
                out.add_mesh(&mug, &rot, one, pos, mat, OBJ_CLUTTER);
            }
            _ => {
                // A sheet of paper or a score sheet lying flat.
                mats[mat as usize] = Material::flat(lin([236, 236, 230]), 0.05, 10.0);
                let b = cuboid(v3(0.105, 0.148, 0.0008));
                out.add_mesh(&b, &rot, one, pos + v3(0.0, 0.0, 0.0008), mat, OBJ_CLUTTER);
            }
        }
        placed.push((pos, size));
    }
}
