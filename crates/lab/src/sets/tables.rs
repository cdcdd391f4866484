//! Frames of several boards on one table, one camera over them all, made by
//! compositing single-board renders: each board is rendered in its own slot of the
//! frame (one table, one light, boards turned a little against each other), and
//! the slots' renders are cross-faded where they meet, so that no seam draws a
//! straight edge across the table. A scoresheet lies beside the boards where
//! there is room. The truth is each board's grid and corners.

use image::RgbImage;

use super::locate_eval::piece_kinds;
use crate::geometry::{Corners, GridSpec};
use crate::sets::random_state;
use crate::synth::{render, RandomRanges, Rng, SceneParams};

/// Half the band (pixels) over which neighbouring slots' renders are cross-faded.
const BLEND_PX: u32 = 24;

/// One board of a composited table: its grid and where its corners are.
#[derive(Clone, Copy, Debug)]
pub struct TableBoard {
    pub grid: GridSpec,
    pub corners: Corners,
    /// The board's slot of the frame: x, y, width, height.
    pub slot: (u32, u32, u32, u32),
}

/// A composited frame and its boards, in slot order (rows of slots, left to right).
pub struct TableFrame {
    pub image: RgbImage,
    pub boards: Vec<TableBoard>,
}

/// The grids a table of mixed games draws from: chess twice as often as the others.
fn mixed_grid(rng: &mut Rng) -> GridSpec {
    *rng.pick(&[
        GridSpec::cells(8, 8),
        GridSpec::cells(8, 8),
        GridSpec::cells(10, 10),
        GridSpec::cells(9, 9),
        GridSpec::points(19, 19),
    ])
}

/// Renders `boards` boards (8x8, or a mix of games when `mixed`) side by side in a
/// frame of `size`: two boards in a row, four in two rows (the slots are the
/// frame split into `ceil(sqrt(n))` columns). Boards face the camera from any
/// quarter turn, each turned up to 8 degrees more, seen from 60 to 90 degrees.
pub fn composite_table(
    seed: u64,
    boards: usize,
    size: (u32, u32),
    mixed: bool,
) -> anyhow::Result<TableFrame> {
    anyhow::ensure!(boards >= 1, "a table holds at least one board");
    let mut rng = Rng::new(seed ^ 0x7ab1e);
    let cols = (boards as f64).sqrt().ceil() as u32;
    let rows = (boards as u32).div_ceil(cols);
    let (sw, sh) = (size.0 / cols, size.1 / rows);
    let (rw, rh) = (sw + 2 * BLEND_PX, sh + 2 * BLEND_PX);
    let ranges = RandomRanges {
        sizes: vec![(rw, rh)],
        elevation_deg: (60.0, 90.0),
        fill: (0.9, 1.0),
        max_k1: 0.0,
        max_shake: 0.0,
        max_clutter: 1,
        ..RandomRanges::default()
    };
    // One table and one light for all the boards.
    let shared = SceneParams::random(8, 8, false, &mut rng, &ranges);
    let mut acc = vec![0f32; (size.0 * size.1 * 3) as usize];
    let mut wsum = vec![0f32; (size.0 * size.1) as usize];
    let mut out = Vec::new();
    for i in 0..boards as u32 {
        let grid = if mixed {
            mixed_grid(&mut rng)
        } else {
            GridSpec::cells(8, 8)
        };
        let (gr, gc) = (grid.rows as usize, grid.cols as usize);
        let mut p = SceneParams::random(gr, gc, grid.points, &mut rng, &ranges);
        p.table = shared.table.clone();
        p.table.clutter = rng.below(2);
        p.lighting = shared.lighting.clone();
        p.realism = shared.realism.clone();
        p.camera.azimuth_deg = 90.0 * rng.below(4) as f64 + rng.range(-8.0, 8.0);
        p.camera.roll_deg = rng.range(-2.0, 2.0);
        p.camera.target_offset = [0.0, 0.0];
        let state = random_state(grid, rng.range(0.05, 0.6), piece_kinds(grid), &mut rng);
        // A board reaching into the band where slots fade into each other would be
        // half faded: it is seen from a little further until it keeps clear.
        let mut r = render(&p, &state, None)?;
        for _ in 0..6 {
            if clear_of_band(&r.corners, grid, (rw, rh)) {
                break;
            }
            p.camera.fill *= 0.94;
            r = render(&p, &state, None)?;
        }
        let (x0, y0) = (
            (i % cols) as f64 * sw as f64 - BLEND_PX as f64,
            (i / cols) as f64 * sh as f64 - BLEND_PX as f64,
        );
        blend_in(&mut acc, &mut wsum, size, &r.image, (x0, y0));
        let corners = Corners::new(r.corners.map(|[x, y]| (x + x0, y + y0)))?;
        let slot = ((i % cols) * sw, (i / cols) * sh, sw, sh);
        out.push(TableBoard {
            grid,
            corners,
            slot,
        });
    }
    let mut image = RgbImage::from_fn(size.0, size.1, |x, y| {
        let i = (y * size.0 + x) as usize;
        let w = wsum[i].max(1e-6);
        image::Rgb(std::array::from_fn(|c| {
            (acc[3 * i + c] / w).round().clamp(0.0, 255.0) as u8
        }))
    });
    scoresheet(&mut image, &out, &mut rng);
    Ok(TableFrame { image, boards: out })
}

/// Lays a scoresheet on the table where it touches no board: a white sheet turned
/// a little, ruled with 24 lines and 4 columns, as players keep beside their
/// board (something `locate --all` must not take for a board). Tried at a few
/// random places (half of it in view at least); none where no place is free.
fn scoresheet(image: &mut RgbImage, boards: &[TableBoard], rng: &mut Rng) {
    let (w, h) = (image.width() as f64, image.height() as f64);
    let (sw, sh) = (0.08 * w, 0.13 * w);
    let turn = rng.range(-0.3, 0.3);
    let (c, s) = (turn.cos(), turn.sin());
    for _ in 0..40 {
        let centre = (rng.range(0.0, w), rng.range(0.0, h));
        let corner = |u: f64, v: f64| {
            let (x, y) = ((u - 0.5) * sw, (v - 0.5) * sh);
            (centre.0 + c * x - s * y, centre.1 + s * x + c * y)
        };
        let sheet = [
            corner(0.0, 0.0),
            corner(1.0, 0.0),
            corner(1.0, 1.0),
            corner(0.0, 1.0),
        ];
        // At least half of it in view: a sheet at the table's edge is cut by the frame.
        let in_view = sheet
            .iter()
            .filter(|p| p.0 > 0.0 && p.0 < w && p.1 > 0.0 && p.1 < h)
            .count();
        let inside_frame = in_view >= 2;
        let clear = boards.iter().all(|b| {
            let q = b.corners.points();
            let (cx, cy) = centre_of(&q);
            // Clear of the board's grid grown by a sixth (its border and pieces).
            let grown = q.map(|p| (cx + 1.16 * (p.0 - cx), cy + 1.16 * (p.1 - cy)));
            !sheet
                .iter()
                .any(|p| super::locate_eval::in_quad(&grown, *p))
                && !grown
                    .iter()
                    .any(|p| super::locate_eval::in_quad(&sheet, *p))
        });
        if !(inside_frame && clear) {
            continue;
        }
        for y in 0..image.height() {
            for x in 0..image.width() {
                // Sheet coordinates of the pixel.
                let (dx, dy) = (x as f64 - centre.0, y as f64 - centre.1);
                let (u, v) = ((c * dx + s * dy) / sw + 0.5, (-s * dx + c * dy) / sh + 0.5);
                if !(0.0..1.0).contains(&u) || !(0.0..1.0).contains(&v) {
                    continue;
                }
                // Lines 1.2 pixels wide, their edges anti-aliased as a camera
                // would blur them (hard-edged, slanted lines break into dashes).
                let t = v * 26.0;
                let row_px = (t - t.round()).abs() * sh / 26.0;
                let col_px = [0.08, 0.5, 0.58]
                    .iter()
                    .map(|&col| (u - col).abs() * sw)
                    .fold(f64::INFINITY, f64::min);
                let row_px = if t > 1.5 { row_px } else { f64::INFINITY };
                let ink = (1.1 - row_px.min(col_px)).clamp(0.0, 1.0);
                let g = (238.0 - ink * 150.0).round() as u8;
                image.put_pixel(x, y, image::Rgb([g, g, g - 6]));
            }
        }
        return;
    }
}

fn centre_of(q: &[(f64, f64); 4]) -> (f64, f64) {
    (
        q.iter().map(|p| p.0).sum::<f64>() / 4.0,
        q.iter().map(|p| p.1).sum::<f64>() / 4.0,
    )
}

/// Whether a board's grid, with half a cell round it (its border, at least),
/// keeps out of its render's outer `2 * BLEND_PX` pixels.
fn clear_of_band(corners: &[[f64; 2]; 4], grid: GridSpec, size: (u32, u32)) -> bool {
    let (lo, hi) = (2.0 * BLEND_PX as f64, 2.0 * BLEND_PX as f64);
    let side = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).hypot(a[1] - b[1]);
    let cells = grid.rows.max(grid.cols) as f64;
    let cell = (0..4)
        .map(|i| side(corners[i], corners[(i + 1) % 4]))
        .sum::<f64>()
        / 4.0
        / cells;
    corners.iter().all(|p| {
        p[0] - 0.5 * cell > lo
            && p[0] + 0.5 * cell < size.0 as f64 - hi
            && p[1] - 0.5 * cell > lo
            && p[1] + 0.5 * cell < size.1 as f64 - hi
    })
}

/// Adds `tile`, placed with its top left at `at`, to the weighted sums: its weight
/// falls to 0 over the `2 * BLEND_PX` pixels along its edges, where the
/// neighbouring slot's render rises.
fn blend_in(acc: &mut [f32], wsum: &mut [f32], size: (u32, u32), tile: &RgbImage, at: (f64, f64)) {
    let (tw, th) = (tile.width() as i64, tile.height() as i64);
    let ramp = 2.0 * BLEND_PX as f32;
    for ty in 0..th {
        let y = at.1 as i64 + ty;
        if y < 0 || y >= size.1 as i64 {
            continue;
        }
        let wy = ((ty.min(th - 1 - ty) as f32 + 0.5) / ramp).min(1.0);
        for tx in 0..tw {
            let x = at.0 as i64 + tx;
            if x < 0 || x >= size.0 as i64 {
                continue;
            }
            let w = wy * ((tx.min(tw - 1 - tx) as f32 + 0.5) / ramp).min(1.0);
            let i = (y as usize) * size.0 as usize + x as usize;
            let px = tile.get_pixel(tx as u32, ty as u32);
            for c in 0..3 {
                acc[3 * i + c] += w * px[c] as f32;
            }
            wsum[i] += w;
        }
    }
}
