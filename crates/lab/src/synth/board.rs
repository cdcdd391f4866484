//! Baked textures: the board's top face (squares, lines, border, printed
//! coordinates) and the table surface.

use super::font::{text_ink, text_width};
use super::math::{floor_i, lin, trunc_i, V3};
use super::params::{SceneParams, SquareScheme, TableKind};
use super::rng::{value_noise, Fbm2Run, NoiseRun, Rng};

/// Linear-light texture mapped onto a world-space rectangle of the z plane.
pub struct Texture {
    pub w: usize,
    pub h: usize,
    pub data: Vec<V3>,
    pub x0: f32,
    pub y0: f32,
    pub sx: f32,
    pub sy: f32,
    pub tiled: bool,
    /// Texels per metre along x and y, and whether both sides are powers of
    /// two: what every lookup would otherwise work out again.
    pub(super) ku: f32,
    pub(super) kv: f32,
    pub(super) pow2: bool,
}

impl Texture {
    /// `w` x `h` texels over the `sx` x `sy` metre rectangle from (x0, y0),
    /// repeated beyond it where `tiled`, else clamped to its edge.
    pub fn new(
        w: usize,
        h: usize,
        data: Vec<V3>,
        (x0, y0): (f32, f32),
        (sx, sy): (f32, f32),
        tiled: bool,
    ) -> Texture {
        Texture {
            w,
            h,
            data,
            x0,
            y0,
            sx,
            sy,
            tiled,
            ku: w as f32 / sx,
            kv: h as f32 / sy,
            pow2: w.is_power_of_two() && h.is_power_of_two(),
        }
    }

    /// Hands the texels back for reuse.
    pub(super) fn recycle(self) {
        super::pool::give(self.data);
    }

    /// Bilinear lookup at world (x, y).
    #[inline(always)]
    pub fn sample(&self, x: f32, y: f32) -> V3 {
        let (w, h) = (self.w as i32, self.h as i32);
        let u = (x - self.x0) * self.ku - 0.5;
        let v = (y - self.y0) * self.kv - 0.5;
        let (iu, iv) = (floor_i(u), floor_i(v));
        let (tu, tv) = (u - iu as f32, v - iv as f32);
        let (i0, i1, j0, j1) = if self.tiled {
            if self.pow2 {
                // Two's complement masking is rem_euclid for powers of two.
                let (mw, mh) = (w - 1, h - 1);
                (
                    iu & mw,
                    iu.wrapping_add(1) & mw,
                    iv & mh,
                    iv.wrapping_add(1) & mh,
                )
            } else {
                let i0 = iu.rem_euclid(w);
                let j0 = iv.rem_euclid(h);
                (i0, (i0 + 1) % w, j0, (j0 + 1) % h)
            }
        } else {
            (
                iu.clamp(0, w - 1),
                iu.saturating_add(1).clamp(0, w - 1),
                iv.clamp(0, h - 1),
                iv.saturating_add(1).clamp(0, h - 1),
            )
        };
        let (r0, r1) = ((j0 * w) as usize, (j1 * w) as usize);
        let d = &self.data;
        let a = d[r0 + i0 as usize].lerp(d[r0 + i1 as usize], tu);
        let b = d[r1 + i0 as usize].lerp(d[r1 + i1 as usize], tu);
        a.lerp(b, tv)
    }
}

/// Light colour, dark colour, border colour and ink of a scheme (sRGB).
fn scheme_colors(s: SquareScheme) -> ([u8; 3], [u8; 3], [u8; 3], [u8; 3]) {
    match s {
        SquareScheme::Wood => (
            [226, 196, 140],
            [118, 70, 38],
            [92, 52, 28],
            [230, 210, 170],
        ),
        SquareScheme::GreenWhiteVinyl => (
            [236, 236, 228],
            [36, 104, 72],
            [236, 236, 228],
            [40, 60, 50],
        ),
        SquareScheme::GreyWhite => (
            [226, 222, 196],
            [128, 118, 106],
            [110, 100, 90],
            [230, 225, 210],
        ),
        SquareScheme::BrownCream => (
            [236, 216, 172],
            [150, 96, 56],
            [120, 74, 40],
            [236, 216, 172],
        ),
        SquareScheme::BlackWhite => ([232, 232, 228], [32, 32, 34], [40, 40, 42], [220, 220, 220]),
        SquareScheme::PlainWood => (
            [226, 196, 146],
            [226, 196, 146],
            [210, 178, 128],
            [30, 24, 18],
        ),
    }
}

fn is_wood(s: SquareScheme) -> bool {
    matches!(
        s,
        SquareScheme::Wood | SquareScheme::PlainWood | SquareScheme::BrownCream
    )
}

/// Wood grain: rings along `a`, running across `b`. Its two noise lookups
/// run along texture rows, so they reuse the lattice hashes of the texel
/// before (the same values as `value_noise`).
struct Grain {
    warp: NoiseRun,
    streak: NoiseRun,
}

impl Grain {
    fn new(seed: u32) -> Grain {
        Grain {
            warp: NoiseRun::new(seed),
            streak: NoiseRun::new(seed ^ 0x9E37),
        }
    }

    #[inline]
    fn at(&mut self, base: V3, a: f32, b: f32, strength: f32) -> V3 {
        let warp = self.warp.at(a * 4.0, b * 3.0) * 3.0;
        let t = b * 90.0 + warp;
        // Smoothed triangle wave: a sine look-alike without the sine.
        let tri = 1.0 - (2.0 * (t - t.floor()) - 1.0).abs();
        let ring = tri * tri * (3.0 - 2.0 * tri);
        let ring = ring * ring * ring;
        let streak = self.streak.at(a * 2.0, b * 60.0);
        base * ((0.9 + 0.18 * streak) * (1.0 - strength * ring))
    }
}

fn star_lines(n: usize) -> Vec<usize> {
    if n < 7 {
        return Vec::new();
    }
    let e = if n >= 13 { 3 } else { 2 };
    let mut v = vec![e, n - 1 - e];
    if n % 2 == 1 {
        v.push(n / 2);
    }
    v
}

/// Column label: A, B, ... (Go convention skips I on lined boards).
fn col_label(c: usize, skip_i: bool) -> String {
    let mut letters: Vec<char> = ('A'..='Z').collect();
    if skip_i {
        letters.retain(|&ch| ch != 'I');
    }
    letters.get(c).map(|ch| ch.to_string()).unwrap_or_default()
}

/// Bakes the board top. `texels_per_m` sets the resolution.
pub fn bake_board(p: &SceneParams, texels_per_m: f32, rng: &mut Rng) -> Texture {
    let b = &p.board;
    let (cr, cc) = p.cell_grid();
    let pitch_x = b.cell_size_m as f32;
    let pitch_y = (b.cell_size_m * b.cell_aspect) as f32;
    let gx = cc as f32 * pitch_x / 2.0;
    let gy = cr as f32 * pitch_y / 2.0;
    let border = b.border_m as f32;
    let (sx, sy) = (2.0 * (gx + border), 2.0 * (gy + border));
    let w = ((sx * texels_per_m) as usize).clamp(64, 2048);
    let h = ((sy * texels_per_m) as usize).clamp(64, 2048);
    let texel = sx / w as f32;
    let (lc, dc, bc, ink) = scheme_colors(b.scheme);
    let jitter = |c: [u8; 3], r: &mut Rng| -> V3 {
        let k = 0.92 + 0.16 * r.f32();
        lin(c) * k
    };
    let light = jitter(lc, rng);
    let dark = jitter(dc, rng);
    let border_c = jitter(bc, rng);
    let ink = lin(ink);
    let line_ink = if matches!(b.scheme, SquareScheme::BlackWhite) {
        lin([20, 20, 20])
    } else {
        lin([25, 20, 15])
    };
    let seed = rng.next_u64() as u32;
    let wood = is_wood(b.scheme);
    let lined = p.points || !b.checkered;
    let lw = (b.line_width_m as f32).max(texel * 0.6);
    let stars = if p.points && b.star_points {
        (star_lines(p.rows), star_lines(p.cols))
    } else {
        (Vec::new(), Vec::new())
    };
    let centre_mark = b.mark_centre && !p.points && cr % 2 == 1 && cc % 2 == 1;
    let cell_rot: Vec<(bool, f32)> = (0..cr * cc)
        .map(|_| (rng.chance(0.5), rng.f32() * 10.0))
        .collect();
    let (inv_px, inv_py) = (1.0 / pitch_x, 1.0 / pitch_y);
    let mut data = super::pool::take(w * h);
    let mut noise = NoiseRun::new(seed);
    let (mut inner_grain, mut border_grain) = (Grain::new(seed), Grain::new(seed ^ 7));
    for j in 0..h {
        let y = -sy / 2.0 + (j as f32 + 0.5) * texel * (sy / sx) * (w as f32 / h as f32);
        for i in 0..w {
            let x = -sx / 2.0 + (i as f32 + 0.5) * texel;
            let inside = x.abs() < gx && y.abs() < gy;
            let mut c;
            if inside {
                // Non-negative inside the grid, where truncation is the floor.
                let ci = (trunc_i((x + gx) * inv_px).max(0) as usize).min(cc - 1);
                let ri = (trunc_i((y + gy) * inv_py).max(0) as usize).min(cr - 1);
                let dark_sq = !lined && (ri + ci) % 2 == 1;
                c = if dark_sq { dark } else { light };
                if wood {
                    if lined {
                        c = inner_grain.at(c, x, y, 0.12);
                    } else {
                        let (swap, off) = cell_rot[ri * cc + ci];
                        let (a, bb) = if swap { (y, x) } else { (x, y) };
                        c = inner_grain.at(c, a + off, bb + off, if dark_sq { 0.3 } else { 0.15 });
                    }
                } else {
                    c = c * (0.97 + 0.05 * noise.at(x * 300.0, y * 300.0));
                }
                if centre_mark && ri == cr / 2 && ci == cc / 2 {
                    let lx = (x + gx) / pitch_x - ci as f32 - 0.5;
                    let ly = (y + gy) / pitch_y - ri as f32 - 0.5;
                    let diag = (lx.abs() - ly.abs()).abs() * pitch_x;
                    c = c * 0.75;
                    if diag < lw * 1.5 {
                        c = line_ink;
                    }
                }
            } else {
                c = if wood {
                    border_grain.at(border_c, y, x, 0.2)
                } else {
                    border_c * (0.97 + 0.05 * noise.at(x * 300.0, y * 300.0))
                };
            }
            // Grid lines (lined boards) or the frame line around a checkered grid.
            // Nearest line (ties never matter here; `round` is a libm call).
            let dx_line = floor_i((x + gx) * inv_px + 0.5) as f32 * pitch_x - (x + gx);
            let dy_line = floor_i((y + gy) * inv_py + 0.5) as f32 * pitch_y - (y + gy);
            let mut cov = 0.0f32;
            if lined {
                let in_x = x.abs() <= gx + lw / 2.0;
                let in_y = y.abs() <= gy + lw / 2.0;
                if in_y {
                    cov = cov.max((lw / 2.0 - dx_line.abs()) / texel + 0.5);
                }
                if in_x {
                    cov = cov.max((lw / 2.0 - dy_line.abs()) / texel + 0.5);
                }
                // Outer lines of lined boards are drawn a little heavier.
                let edge = (x.abs() - gx).abs().min((y.abs() - gy).abs());
                if x.abs() <= gx + lw && y.abs() <= gy + lw {
                    cov = cov.max((lw - edge) / texel + 0.5);
                }
            } else if b.border_m > 0.0 {
                let ex = (x.abs() - gx).max(y.abs() - gy);
                if ex > -lw * 0.2
                    && ex < lw * 1.2
                    && x.abs() < gx + lw * 1.2
                    && y.abs() < gy + lw * 1.2
                {
                    cov = 1.0;
                }
            }
            if !stars.0.is_empty() {
                for &sr in &stars.0 {
                    for &sc in &stars.1 {
                        let px = -gx + sc as f32 * pitch_x;
                        let py = -gy + sr as f32 * pitch_y;
                        let d = ((x - px).powi(2) + (y - py).powi(2)).sqrt();
                        cov = cov.max((lw * 2.2 - d) / texel + 0.5);
                    }
                }
            }
            let cov = cov.clamp(0.0, 1.0);
            if cov > 0.0 {
                c = c.lerp(line_ink, cov);
            }
            data.push(c);
        }
    }
    let mut tex = Texture::new(w, h, data, (-sx / 2.0, -sy / 2.0), (sx, sy), false);
    if b.coordinates && border > 0.0 {
        print_coordinates(p, &mut tex, gx, gy, pitch_x, pitch_y, border, ink);
    }
    tex
}

/// Prints column letters above and below the grid and row numbers (1 at the
/// bottom edge) beside it.
#[allow(clippy::too_many_arguments)]
fn print_coordinates(
    p: &SceneParams,
    tex: &mut Texture,
    gx: f32,
    gy: f32,
    px: f32,
    py: f32,
    border: f32,
    ink: V3,
) {
    let (cr, cc) = p.cell_grid();
    let (nr, nc) = if p.points { (p.rows, p.cols) } else { (cr, cc) };
    let glyph_h = (border * 0.45).min(px.min(py) * 0.4);
    let unit = glyph_h / 7.0;
    let mut labels: Vec<(String, f32, f32)> = Vec::new();
    for c in 0..nc {
        let x = if p.points {
            -gx + c as f32 * px
        } else {
            -gx + (c as f32 + 0.5) * px
        };
        let s = col_label(c, p.points);
        for y in [-gy - border / 2.0, gy + border / 2.0] {
            labels.push((s.clone(), x, y));
        }
    }
    for r in 0..nr {
        let y = if p.points {
            -gy + r as f32 * py
        } else {
            -gy + (r as f32 + 0.5) * py
        };
        let s = (nr - r).to_string();
        for x in [-gx - border / 2.0, gx + border / 2.0] {
            labels.push((s.clone(), x, y));
        }
    }
    let texel_x = tex.sx / tex.w as f32;
    let texel_y = tex.sy / tex.h as f32;
    for (s, cx, cy) in labels {
        let half_w = text_width(&s) * unit / 2.0;
        let (x0, y0) = (cx - half_w, cy - glyph_h / 2.0);
        let i0 = ((x0 - tex.x0) / texel_x).floor().max(0.0) as usize;
        let i1 = (((x0 + 2.0 * half_w - tex.x0) / texel_x).ceil() as usize).min(tex.w);
        let j0 = ((y0 - tex.y0) / texel_y).floor().max(0.0) as usize;
        let j1 = (((y0 + glyph_h - tex.y0) / texel_y).ceil() as usize).min(tex.h);
        for j in j0..j1 {
            for i in i0..i1 {
                // 2x2 supersampling keeps small glyphs legible.
                let mut cov = 0.0;
                for (ox, oy) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                    let x = tex.x0 + (i as f32 + ox) * texel_x;
                    let y = tex.y0 + (j as f32 + oy) * texel_y;
                    cov += text_ink(&s, (x - x0) / unit, (y - y0) / unit) * 0.25;
                }
                if cov > 0.0 {
                    let k = j * tex.w + i;
                    tex.data[k] = tex.data[k].lerp(ink, cov);
                }
            }
        }
    }
}

/// Tiled table texture covering `tile_m` metres.
pub fn bake_table(kind: TableKind, color: [u8; 3], rng: &mut Rng) -> Texture {
    let n = 256;
    let tile = match kind {
        TableKind::Wood => 0.8,
        TableKind::Cloth => 0.12,
        TableKind::Plain => 0.6,
    };
    let base = lin(color);
    let seed = rng.next_u64() as u32;
    let mut data = super::pool::take(n * n);
    // Rows of nearby lookups: each run hashes the lattice only on entering
    // a new cell.
    let (mut warp, mut fbm) = (NoiseRun::new(seed), Fbm2Run::new(seed));
    for j in 0..n {
        let v = j as f32 / n as f32;
        let plank = (v * 4.0).floor();
        let plank_shade = 0.85 + 0.3 * value_noise(plank * 7.3, 0.5, seed);
        for i in 0..n {
            let u = i as f32 / n as f32;
            let c = match kind {
                TableKind::Wood => {
                    let w = warp.at(u * 4.0, v * 16.0) * 2.0;
                    let ring = 0.5 + 0.5 * ((v * 64.0 + w) * std::f32::consts::TAU).sin();
                    let gap = if (v * 4.0).fract() < 0.012 { 0.55 } else { 1.0 };
                    base * (plank_shade * (1.0 - 0.2 * ring * ring) * gap)
                }
                TableKind::Cloth => {
                    let weave = if (i / 2 + j / 2) % 2 == 0 { 1.0 } else { 0.93 };
                    let blot = 0.92 + 0.16 * fbm.at(u * 8.0, v * 8.0);
                    base * (weave * blot)
                }
                TableKind::Plain => base * (0.93 + 0.12 * fbm.at(u * 8.0, v * 8.0)),
            };
            data.push(c);
        }
    }
    Texture::new(n, n, data, (0.0, 0.0), (tile, tile), true)
}
