//! Which cells the hand hides, read from the object-id buffer.

use super::camera::Camera;
use super::geom::BoardGeom;
use super::scene::OBJ_HAND;
use super::BoardState;

/// Per cell: the hand's id at the projected centre; and whether any hand
/// pixel lies inside the board outline.
pub fn occlusion(
    geom: &BoardGeom,
    state: &BoardState,
    cam: &Camera,
    ids: &dyn Fn(usize) -> u32,
) -> (Vec<bool>, bool) {
    let (cw, ch) = (cam.canvas_w, cam.canvas_h);
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
            occluded.push(id_at(cam.project_canvas(geom.centre(r, c))) == OBJ_HAND);
        }
    }
    // Any hand pixel inside the projected board outline.
    let poly: Vec<[f64; 2]> = geom
        .outline()
        .iter()
        .filter_map(|&v| cam.project_canvas(v))
        .collect();
    let mut any = occluded.iter().any(|&o| o);
    if !any && poly.len() == 4 {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for q in &poly {
            x0 = x0.min(q[0]);
            y0 = y0.min(q[1]);
            x1 = x1.max(q[0]);
            y1 = y1.max(q[1]);
        }
        let xs = x0.max(0.0) as usize..(x1.min(cw as f64 - 1.0).max(0.0) as usize + 1);
        'outer: for y in y0.max(0.0) as usize..(y1.min(ch as f64 - 1.0).max(0.0) as usize + 1) {
            for x in xs.clone() {
                if ids(y * cw + x) == OBJ_HAND && inside(&poly, x as f64, y as f64) {
                    any = true;
                    break 'outer;
                }
            }
        }
    }
    (occluded, any)
}

pub(super) fn inside(poly: &[[f64; 2]], x: f64, y: f64) -> bool {
    let mut c = false;
    let n = poly.len();
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        if (a[1] > y) != (b[1] > y) && x < a[0] + (y - a[1]) / (b[1] - a[1]) * (b[0] - a[0]) {
            c = !c;
        }
    }
    c
}
