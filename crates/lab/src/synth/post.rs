//! Camera artefacts on the shaded linear image: lens warp, exposure and
//! white balance, vignette, motion blur, defocus, sensor noise, JPEG.

use image::RgbImage;

use super::camera::Remap;
use super::math::{trunc_i, v3, V3};
use super::params::Realism;
use super::rng::Rng;

/// Float RGB image in linear light.
pub struct Lin {
    pub w: usize,
    pub h: usize,
    pub px: Vec<V3>,
}

/// Output image from the canvas: bilinear sampling through the distortion
/// map, or a straight copy when there is no distortion. `px` is reused.
#[allow(clippy::too_many_arguments)]
pub fn warp(
    canvas: &[V3],
    cw: usize,
    ch: usize,
    w: usize,
    h: usize,
    remap: Option<&Remap>,
    mut px: Vec<V3>,
) -> Lin {
    px.clear();
    let Some(r) = remap else {
        px.extend_from_slice(&canvas[..w * h]);
        return Lin { w, h, px };
    };
    debug_assert_eq!((cw, ch), (r.canvas_w, r.canvas_h));
    px.extend(r.taps.iter().map(|t| {
        let k = t.k as usize;
        let (top, bot) = (&canvas[k..k + 2], &canvas[k + cw..k + cw + 2]);
        let a = top[0].lerp(top[1], t.tx);
        let b = bot[0].lerp(bot[1], t.tx);
        a.lerp(b, t.ty)
    }));
    Lin { w, h, px }
}

/// Separable 3-tap filter; `side` is the weight of each neighbour. Stands in
/// for anti-aliasing and the optical softness every real camera has.
pub fn soften(img: &mut Lin, side: f32, tmp: &mut Vec<V3>) {
    if side <= 0.0 {
        return;
    }
    let (w, h) = (img.w, img.h);
    let mid = 1.0 - 2.0 * side;
    tmp.clear();
    tmp.resize(w * h, V3::default());
    for y in 0..h {
        let row = &img.px[y * w..(y + 1) * w];
        for x in 0..w {
            let l = row[x.saturating_sub(1)];
            let r = row[(x + 1).min(w - 1)];
            tmp[y * w + x] = row[x] * mid + (l + r) * side;
        }
    }
    for y in 0..h {
        let up = y.saturating_sub(1) * w;
        let dn = (y + 1).min(h - 1) * w;
        for x in 0..w {
            img.px[y * w + x] = tmp[y * w + x] * mid + (tmp[up + x] + tmp[dn + x]) * side;
        }
    }
}

/// Box blur of radius `r` along x (horizontal) or y, with running sums.
fn box_pass(src: &[V3], dst: &mut [V3], w: usize, h: usize, r: usize, horizontal: bool) {
    let (n, lines) = if horizontal { (w, h) } else { (h, w) };
    let idx = |line: usize, i: usize| {
        if horizontal {
            line * w + i
        } else {
            i * w + line
        }
    };
    let norm = 1.0 / (2 * r + 1) as f32;
    for line in 0..lines {
        let mut acc = V3::default();
        for i in 0..=2 * r {
            let j = (i as isize - r as isize).clamp(0, n as isize - 1) as usize;
            acc = acc + src[idx(line, j)];
        }
        for i in 0..n {
            dst[idx(line, i)] = acc * norm;
            let out = (i as isize - r as isize).clamp(0, n as isize - 1) as usize;
            let inn = (i + r + 1).min(n - 1);
            acc = acc + src[idx(line, inn)] - src[idx(line, out)];
        }
    }
}

/// Separable Gaussian blur with standard deviation `sigma` pixels.
pub fn gauss_blur(img: &mut Lin, sigma: f64) {
    let r = (sigma * 2.0).ceil().max(1.0) as usize;
    let k: Vec<f32> = (0..=2 * r)
        .map(|i| {
            let d = i as f64 - r as f64;
            (-(d * d) / (2.0 * sigma * sigma)).exp() as f32
        })
        .collect();
    let sum: f32 = k.iter().sum();
    let k: Vec<f32> = k.iter().map(|v| v / sum).collect();
    let (w, h) = (img.w, img.h);
    // Both passes work on rows of interleaved channels as flat f32 runs,
    // tap by tap, so that the loops vectorise; every sample still sums its
    // taps in tap order, starting from zero.
    let flat = |n: usize| {
        let mut v: Vec<f32> = super::pool::take(n);
        v.resize(n, 0.0);
        v
    };
    let mut line = flat(3 * (w + 2 * r));
    let mut rows = flat(3 * w * h);
    let mut acc = flat(3 * w);
    // Rows: each padded by repeating its end pixels.
    for (y, out) in rows.chunks_exact_mut(3 * w).enumerate() {
        let row = &img.px[y * w..(y + 1) * w];
        for (i, l) in line.chunks_exact_mut(3).enumerate() {
            let p = row[(i as isize - r as isize).clamp(0, w as isize - 1) as usize];
            l.copy_from_slice(&[p.x, p.y, p.z]);
        }
        sum_taps(&k, |i| &line[3 * i..3 * (i + w)], out);
    }
    // Columns, a whole row at a time (column walks miss the cache).
    for y in 0..h {
        let src = |i: usize| {
            let sy = (y as isize + i as isize - r as isize).clamp(0, h as isize - 1) as usize;
            &rows[3 * w * sy..3 * w * (sy + 1)]
        };
        sum_taps(&k, src, &mut acc);
        for (o, c) in img.px[y * w..(y + 1) * w]
            .iter_mut()
            .zip(acc.chunks_exact(3))
        {
            *o = v3(c[0], c[1], c[2]);
        }
    }
    for v in [line, rows, acc] {
        super::pool::give(v);
    }
}

/// `out = 0 + src(0) * k[0] + src(1) * k[1] + ...`, element by element.
#[inline]
fn sum_taps<'a>(k: &[f32], src: impl Fn(usize) -> &'a [f32], out: &mut [f32]) {
    for (i, kv) in k.iter().enumerate() {
        let s = &src(i)[..out.len()];
        if i == 0 {
            for (o, p) in out.iter_mut().zip(s) {
                *o = 0.0 + *p * *kv;
            }
        } else {
            for (o, p) in out.iter_mut().zip(s) {
                *o += *p * *kv;
            }
        }
    }
}

/// Defocus blur of about `radius` pixels (a standard deviation): an exact
/// Gaussian when small, three box passes (nearly Gaussian) when large.
pub fn defocus(img: &mut Lin, radius: f64, tmp: &mut Vec<V3>) {
    if radius < 0.2 {
        return;
    }
    if radius <= 2.0 {
        gauss_blur(img, radius);
        return;
    }
    // Three boxes of radius r have variance about r(r+1).
    let r = ((radius * radius + 0.25).sqrt() - 0.5).round().max(1.0) as usize;
    tmp.clear();
    tmp.resize(img.px.len(), V3::default());
    for _ in 0..3 {
        box_pass(&img.px, tmp, img.w, img.h, r, true);
        box_pass(tmp, &mut img.px, img.w, img.h, r, false);
    }
}

/// Linear motion blur of `len` pixels at `angle_deg`.
pub fn motion_blur(img: &mut Lin, len: f64, angle_deg: f64) {
    let taps = len.round() as i64;
    if taps < 2 {
        return;
    }
    let (s, c) = angle_deg.to_radians().sin_cos();
    let offs: Vec<(i64, i64)> = (0..taps)
        .map(|i| {
            let t = i as f64 - (taps - 1) as f64 / 2.0;
            ((t * c).round() as i64, (t * s).round() as i64)
        })
        .collect();
    let (w, h) = (img.w as i64, img.h as i64);
    let norm = 1.0 / taps as f32;
    let src = img.px.clone();
    for y in 0..h {
        for x in 0..w {
            let mut acc = V3::default();
            for &(dx, dy) in &offs {
                let sx = (x + dx).clamp(0, w - 1);
                let sy = (y + dy).clamp(0, h - 1);
                acc = acc + src[(sy * w + sx) as usize];
            }
            img.px[(y * w + x) as usize] = acc * norm;
        }
    }
}

/// Entries of the tone table, which spans linear 0..MAX so that the
/// shoulder is baked in.
const N: usize = 8192;
const MAX: f32 = 2.0;

/// Linear light (0..MAX over N entries) to 8-bit sRGB plus 0.5, with a soft
/// shoulder above 0.8, and beside it the shot noise's amplitude at that
/// level relative to the read noise's. The same for every image, so made
/// once.
fn tone_lut() -> &'static [[f32; 2]; N] {
    static LUT: std::sync::OnceLock<Box<[[f32; 2]; N]>> = std::sync::OnceLock::new();
    LUT.get_or_init(|| {
        Box::new(std::array::from_fn(|i| {
            let x = i as f32 / (N - 1) as f32 * MAX;
            let v = if x < 0.8 {
                x
            } else {
                0.8 + 0.2 * (1.0 - (-(x - 0.8) / 0.2).exp())
            };
            let s = if v <= 0.003_130_8 {
                12.92 * v
            } else {
                1.055 * v.powf(1.0 / 2.4) - 0.055
            };
            let level = s * 255.0 + 0.5;
            // Shot noise grows with brightness; read noise does not.
            let b = (level as i32).min(256) as f32;
            [level, 0.5 + 0.5 * (b / 255.0).sqrt()]
        }))
    })
}

/// What `to_srgb` needs per pixel.
struct Tone<'a> {
    g: V3,
    cx: f32,
    vig: f32,
    inv_r2: f32,
    scale: f32,
    sigma: f32,
    lut: &'a [[f32; 2]; N],
    gauss: &'a [f32; 4096],
}

impl Tone<'_> {
    /// One output pixel from linear `c` at column `x`, `dy` rows below the
    /// centre, drawing its noise from the generator `state`.
    #[inline(always)]
    fn pixel(&self, o: &mut [u8], c: V3, x: usize, dy: f32, state: &mut u64) {
        // Truncated, then clamped as an integer (NaN gives 0); the mask
        // keeps the index as it is (N is a power of two) and spares the
        // bounds check.
        let idx = |v: f32| trunc_i(v * self.scale).clamp(0, N as i32 - 1) as usize & (N - 1);
        let dx = x as f32 - self.cx;
        let c = c.mul_e(self.g) * (1.0 - self.vig * (dx * dx + dy * dy) * self.inv_r2);
        let t = [self.lut[idx(c.x)], self.lut[idx(c.y)], self.lut[idx(c.z)]];
        if self.sigma > 0.0 {
            // Four deviates: one shared by the channels, one each.
            let mut next = || {
                *state = xorshift(*state);
                self.gauss[(*state >> 52) as usize]
            };
            let shared = next() * 0.6;
            for ch in 0..3 {
                let n = (shared + next() * 0.8) * (self.sigma * t[ch][1]);
                o[ch] = trunc_i(t[ch][0] + n).clamp(0, 255) as u8;
            }
        } else {
            for ch in 0..3 {
                o[ch] = trunc_i(t[ch][0]).clamp(0, 255) as u8;
            }
        }
    }
}

/// Exposure, white balance and vignette (in linear light), then 8-bit sRGB
/// with a soft shoulder, plus sensor noise; one pass over the image.
pub fn to_srgb(img: &Lin, r: &Realism, seed: u64) -> RgbImage {
    let noise = r.noise;
    let gain = 2f32.powf(r.exposure_ev as f32);
    let g = v3(gain * r.wb_gain[0] as f32, gain, gain * r.wb_gain[1] as f32);
    let (cx, cy) = (img.w as f32 / 2.0, img.h as f32 / 2.0);
    let inv_r2 = 1.0 / (cx * cx + cy * cy);
    let vig = r.vignette as f32;
    let scale = (N - 1) as f32 / MAX;
    let sigma = noise as f32;
    let mut rng = Rng::new(seed);
    // A table of normal deviates keeps per-pixel noise cheap.
    let mut gauss = [0.0f32; 4096];
    for v in gauss.iter_mut() {
        *v = rng.normal() as f32;
    }
    let state = rng.next_u64() | 1;
    let lut = tone_lut();
    let tone = Tone {
        g,
        cx,
        vig,
        inv_r2,
        scale,
        sigma,
        lut,
        gauss: &gauss,
    };
    let mut out = RgbImage::new(img.w as u32, img.h as u32);
    let w = img.w.max(1);
    // The noise sequence runs through the image row by row. The top and
    // bottom halves are drawn side by side, the bottom's generator jumped
    // ahead to where the top's ends: two independent chains of dependent
    // steps run about twice as fast as one, with the same numbers.
    let h_top = img.h - img.h / 2;
    let draws = if sigma > 0.0 { 4 } else { 0 };
    let (mut s_top, mut s_bot) = (state, xorshift_jump(state, (draws * w * h_top) as u64));
    let (top, bot) = out.as_mut().split_at_mut(3 * w * h_top);
    let mut bot_rows = bot
        .chunks_exact_mut(3 * w)
        .zip(img.px[w * h_top..].chunks_exact(w));
    let top_rows = top.chunks_exact_mut(3 * w).zip(img.px.chunks_exact(w));
    for (y, (orow, crow)) in top_rows.enumerate() {
        let dy = y as f32 - cy;
        let top_px = orow.chunks_exact_mut(3).zip(crow);
        if let Some((brow, bcrow)) = bot_rows.next() {
            let dyb = (y + h_top) as f32 - cy;
            let bot_px = brow.chunks_exact_mut(3).zip(bcrow);
            for (x, ((o, c), (ob, cb))) in top_px.zip(bot_px).enumerate() {
                tone.pixel(o, *c, x, dy, &mut s_top);
                tone.pixel(ob, *cb, x, dyb, &mut s_bot);
            }
        } else {
            for (x, (o, c)) in top_px.enumerate() {
                tone.pixel(o, *c, x, dy, &mut s_top);
            }
        }
    }
    out
}

/// One step of the sensor noise generator (xorshift64).
#[inline(always)]
fn xorshift(mut s: u64) -> u64 {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    s
}

/// `xorshift` applied `n` times, in about log2(n) matrix steps: the step is
/// linear over GF(2), so its powers are 64x64 bit matrices (stored as the
/// images of the 64 unit vectors).
fn xorshift_jump(s: u64, mut n: u64) -> u64 {
    let apply = |m: &[u64; 64], v: u64| {
        (0..64).fold(0u64, |acc, i| {
            acc ^ (m[i] & 0u64.wrapping_sub((v >> i) & 1))
        })
    };
    let mut m: [u64; 64] = std::array::from_fn(|i| xorshift(1 << i));
    let mut v = s;
    while n > 0 {
        if n & 1 == 1 {
            v = apply(&m, v);
        }
        n >>= 1;
        if n > 0 {
            m = std::array::from_fn(|i| apply(&m, m[i]));
        }
    }
    v
}

/// Round trip through a JPEG encoder at `quality` (1..=100; 0 = off).
pub fn jpeg(mut img: RgbImage, quality: u8) -> RgbImage {
    if quality == 0 || img.width() == 0 || img.height() == 0 {
        return img;
    }
    let (w, h) = (img.width() as usize, img.height() as usize);
    super::jpeg::round_trip(&mut img, w, h, quality);
    img
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumping_the_noise_generator_equals_stepping_it() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for n in 0..300u64 {
            assert_eq!(xorshift_jump(0x9E37_79B9_7F4A_7C15, n), s, "{n} steps");
            s = xorshift(s);
        }
        let far = (0..123_457).fold(7u64, |s, _| xorshift(s));
        assert_eq!(xorshift_jump(7, 123_457), far);
    }
}
