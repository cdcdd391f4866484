//! JPEG compression artefacts: a small baseline encoder (4:2:0, standard
//! Annex K tables), and `round_trip`, which gives what a decoder shows for
//! that encoder's file without writing or reading it. The entropy coding is
//! lossless, so only the transform, quantisation, subsampling and colour
//! conversion matter; the `image` crate's encoder and decoder took most of
//! a frame's budget.

use std::cell::RefCell;

use super::math::trunc_i;

const ZIGZAG: [usize; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

const LUMA_Q: [u8; 64] = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113,
    92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];

const CHROMA_Q: [u8; 64] = [
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];

const DC_LUMA_BITS: [u8; 16] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_CHROMA_BITS: [u8; 16] = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
const DC_VALS: [u8; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const AC_LUMA_BITS: [u8; 16] = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
const AC_CHROMA_BITS: [u8; 16] = [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77];

const AC_LUMA_VALS: [u8; 162] = [
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
    0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0,
    0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
    0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
    0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
    0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
    0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
    0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5,
    0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
    0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
    0xf9, 0xfa,
];

const AC_CHROMA_VALS: [u8; 162] = [
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
    0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0,
    0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
    0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
    0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
    0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
    0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
    0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
    0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
    0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
    0xf9, 0xfa,
];

/// (code length, code) per symbol, from the canonical code counts.
fn huff_table(bits: &[u8; 16], vals: &[u8]) -> [(u8, u16); 256] {
    let mut t = [(0u8, 0u16); 256];
    let mut code = 0u16;
    let mut k = 0;
    for (len, &n) in bits.iter().enumerate() {
        for _ in 0..n {
            t[vals[k] as usize] = (len as u8 + 1, code);
            code += 1;
            k += 1;
        }
        code <<= 1;
    }
    t
}

struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl Bits {
    #[inline]
    fn put(&mut self, len: u8, code: u16) {
        self.acc = (self.acc << len) | code as u32;
        self.n += len as u32;
        while self.n >= 8 {
            self.n -= 8;
            let b = (self.acc >> self.n) as u8;
            self.out.push(b);
            if b == 0xFF {
                self.out.push(0);
            }
        }
        self.acc &= (1 << self.n) - 1;
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            let pad = 8 - self.n as u8;
            self.put(pad, (1 << pad) - 1);
        }
        self.out
    }
}

fn category(v: i32) -> (u8, u16) {
    let a = v.unsigned_abs();
    let size = 32 - a.leading_zeros();
    let bits = if v < 0 {
        (v - 1) as u32 & ((1 << size) - 1)
    } else {
        v as u32
    };
    (size as u8, bits as u16)
}

fn scaled_q(base: &[u8; 64], quality: u8) -> [f32; 64] {
    let q = quality.clamp(1, 100) as u32;
    let scale = if q < 50 { 5000 / q } else { 200 - 2 * q };
    let mut out = [0.0; 64];
    for (o, &b) in out.iter_mut().zip(base) {
        *o = ((b as u32 * scale + 50) / 100).clamp(1, 255) as f32;
    }
    out
}

struct Enc {
    dct: [[f32; 8]; 8],
    dc: [[(u8, u16); 256]; 2],
    ac: [[(u8, u16); 256]; 2],
    inv_q: [[f32; 64]; 2],
}

impl Enc {
    /// Transforms, quantises and entropy-codes one 8x8 block.
    fn block(&self, px: &[f32; 64], table: usize, prev_dc: &mut i32, bits: &mut Bits) {
        let m = &self.dct;
        let mut tmp = [0.0f32; 64];
        for y in 0..8 {
            for u in 0..8 {
                let mut s = 0.0;
                for x in 0..8 {
                    s += m[u][x] * px[y * 8 + x];
                }
                tmp[y * 8 + u] = s;
            }
        }
        let mut coef = [0i32; 64];
        for (v, mv) in m.iter().enumerate() {
            for u in 0..8 {
                let mut s = 0.0;
                for (y, c) in mv.iter().enumerate() {
                    s += c * tmp[y * 8 + u];
                }
                let k = v * 8 + u;
                coef[k] = (s * self.inv_q[table][k]).round() as i32;
            }
        }
        let diff = coef[0] - *prev_dc;
        *prev_dc = coef[0];
        let (size, val) = category(diff);
        let (l, c) = self.dc[table][size as usize];
        bits.put(l, c);
        if size > 0 {
            bits.put(size, val);
        }
        let mut run = 0;
        for &z in &ZIGZAG[1..] {
            let v = coef[z];
            if v == 0 {
                run += 1;
                continue;
            }
            while run > 15 {
                let (l, c) = self.ac[table][0xF0];
                bits.put(l, c);
                run -= 16;
            }
            let (size, val) = category(v);
            let (l, c) = self.ac[table][(run << 4) | size as usize];
            bits.put(l, c);
            bits.put(size, val);
            run = 0;
        }
        if run > 0 {
            let (l, c) = self.ac[table][0];
            bits.put(l, c);
        }
    }
}

fn segment(out: &mut Vec<u8>, marker: u8, body: &[u8]) {
    out.extend_from_slice(&[0xFF, marker]);
    out.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(body);
}

/// The DCT-II basis: `m[u][x]` (orthonormal, so its transpose inverts it).
fn dct_matrix() -> [[f32; 8]; 8] {
    let mut dct = [[0.0f32; 8]; 8];
    for (u, row) in dct.iter_mut().enumerate() {
        for (x, v) in row.iter_mut().enumerate() {
            let c = if u == 0 { (0.5f32).sqrt() } else { 1.0 };
            *v = 0.5 * c * (((2 * x + 1) as f32 * u as f32 * std::f32::consts::PI) / 16.0).cos();
        }
    }
    dct
}

/// Level-shifted Y and centred Cb, Cr planes of 8-bit RGB, padded to whole
/// 16x16 macroblocks by repeating the last pixel; chroma is the mean of
/// each 2x2 block. Returns the padded luma size.
fn planes(rgb: &[u8], w: usize, h: usize, out: [&mut Vec<f32>; 3]) -> (usize, usize) {
    let (pw, ph) = (w.div_ceil(16) * 16, h.div_ceil(16) * 16);
    let [yp, cb, cr] = out;
    for (p, n) in [
        (&mut *yp, pw * ph),
        (&mut *cb, pw * ph / 4),
        (&mut *cr, pw * ph / 4),
    ] {
        p.clear();
        p.resize(n, 0.0);
    }
    let cw = pw / 2;
    for y in 0..ph {
        let sy = y.min(h - 1);
        let src = &rgb[sy * w * 3..(sy + 1) * w * 3];
        let yrow = &mut yp[y * pw..(y + 1) * pw];
        let crow = (y / 2) * cw;
        let (cbr, crr) = (&mut cb[crow..crow + cw], &mut cr[crow..crow + cw]);
        // Pixel pairs: each chroma sample sums its four pixels in raster
        // order, the two of this row here.
        let last = &src[3 * (w - 1)..];
        let mut pairs = src.chunks_exact(6);
        let whole = yrow
            .chunks_exact_mut(2)
            .zip(cbr.iter_mut().zip(crr.iter_mut()));
        for (ys, (cbv, crv)) in whole {
            let pair = pairs.next();
            for (i, yv) in ys.iter_mut().enumerate() {
                // Past the last whole pair: an odd width's last pixel, then
                // the padding, which repeats it.
                let px = pair.map_or(last, |p| &p[3 * i..3 * i + 3]);
                let (r, g, b) = (px[0] as f32, px[1] as f32, px[2] as f32);
                *yv = 0.299 * r + 0.587 * g + 0.114 * b - 128.0;
                *cbv += 0.25 * (-0.168_736 * r - 0.331_264 * g + 0.5 * b);
                *crv += 0.25 * (0.5 * r - 0.418_688 * g - 0.081_312 * b);
            }
        }
    }
    (pw, ph)
}

/// Encodes 8-bit RGB as a baseline JFIF file.
pub fn encode(rgb: &[u8], w: usize, h: usize, quality: u8) -> Vec<u8> {
    let dct = dct_matrix();
    let q = [scaled_q(&LUMA_Q, quality), scaled_q(&CHROMA_Q, quality)];
    let enc = Enc {
        dct,
        dc: [
            huff_table(&DC_LUMA_BITS, &DC_VALS),
            huff_table(&DC_CHROMA_BITS, &DC_VALS),
        ],
        ac: [
            huff_table(&AC_LUMA_BITS, &AC_LUMA_VALS),
            huff_table(&AC_CHROMA_BITS, &AC_CHROMA_VALS),
        ],
        inv_q: [q[0].map(|v| 1.0 / v), q[1].map(|v| 1.0 / v)],
    };
    let (mut yp, mut cb, mut cr) = (Vec::new(), Vec::new(), Vec::new());
    let (pw, ph) = planes(rgb, w, h, [&mut yp, &mut cb, &mut cr]);
    let mut bits = Bits {
        out: Vec::with_capacity(w * h / 4),
        acc: 0,
        n: 0,
    };
    let mut prev = [0i32; 3];
    let mut blk = [0.0f32; 64];
    let cw = pw / 2;
    for my in 0..ph / 16 {
        for mx in 0..pw / 16 {
            for (by, bx) in [(0, 0), (0, 8), (8, 0), (8, 8)] {
                for y in 0..8 {
                    let row = (my * 16 + by + y) * pw + mx * 16 + bx;
                    blk[y * 8..y * 8 + 8].copy_from_slice(&yp[row..row + 8]);
                }
                enc.block(&blk, 0, &mut prev[0], &mut bits);
            }
            for (plane, p) in [(&cb, 1), (&cr, 2)] {
                for y in 0..8 {
                    let row = (my * 8 + y) * cw + mx * 8;
                    blk[y * 8..y * 8 + 8].copy_from_slice(&plane[row..row + 8]);
                }
                enc.block(&blk, 1, &mut prev[p], &mut bits);
            }
        }
    }
    let data = bits.finish();

    let mut out = Vec::with_capacity(data.len() + 700);
    out.extend_from_slice(&[0xFF, 0xD8]);
    segment(
        &mut out,
        0xE0,
        b"JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00",
    );
    let mut dqt = Vec::with_capacity(130);
    for (id, t) in q.iter().enumerate() {
        dqt.push(id as u8);
        dqt.extend(ZIGZAG.iter().map(|&z| t[z] as u8));
    }
    segment(&mut out, 0xDB, &dqt);
    let (w16, h16) = ((w as u16).to_be_bytes(), (h as u16).to_be_bytes());
    segment(
        &mut out,
        0xC0,
        &[
            8, h16[0], h16[1], w16[0], w16[1], 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1,
        ],
    );
    let mut dht = Vec::new();
    for (class_id, b, v) in [
        (0x00u8, &DC_LUMA_BITS, &DC_VALS[..]),
        (0x10, &AC_LUMA_BITS, &AC_LUMA_VALS[..]),
        (0x01, &DC_CHROMA_BITS, &DC_VALS[..]),
        (0x11, &AC_CHROMA_BITS, &AC_CHROMA_VALS[..]),
    ] {
        dht.push(class_id);
        dht.extend_from_slice(b);
        dht.extend_from_slice(v);
    }
    segment(&mut out, 0xC4, &dht);
    segment(&mut out, 0xDA, &[3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]);
    out.extend_from_slice(&data);
    out.extend_from_slice(&[0xFF, 0xD9]);
    out
}

/// Transform, quantisation and back for whole planes of 8x8 blocks.
struct Codec {
    /// `m[u][x]` and its transpose.
    m: [[f32; 8]; 8],
    mt: [[f32; 8]; 8],
    q: [f32; 64],
    inv_q: [f32; 64],
}

impl Codec {
    fn new(base: &[u8; 64], quality: u8) -> Codec {
        let m = dct_matrix();
        let mut mt = [[0.0; 8]; 8];
        for (u, row) in m.iter().enumerate() {
            for (x, &v) in row.iter().enumerate() {
                mt[x][u] = v;
            }
        }
        let q = scaled_q(base, quality);
        Codec {
            m,
            mt,
            q,
            inv_q: q.map(|v| 1.0 / v),
        }
    }

    /// Replaces one block by its decoded self. The loops run over whole
    /// rows of eight so that they vectorise.
    fn block(&self, b: &mut [f32; 64]) {
        let mut t = [[0.0f32; 8]; 8];
        // Forward: rows, then columns.
        for (y, out) in t.iter_mut().enumerate() {
            for (x, basis) in self.mt.iter().enumerate() {
                let v = b[y * 8 + x];
                for (o, c) in out.iter_mut().zip(basis) {
                    *o += v * c;
                }
            }
        }
        let mut f = [[0.0f32; 8]; 8];
        let mut live = [false; 8];
        for (v, out) in f.iter_mut().enumerate() {
            for (y, row) in t.iter().enumerate() {
                let c = self.m[v][y];
                for (o, s) in out.iter_mut().zip(row) {
                    *o += c * s;
                }
            }
            // Quantise and dequantise (round half up). Levels are far below
            // 2^31, so the floor needs no saturation (as `floor_i` has).
            let mut any = 0;
            for (u, o) in out.iter_mut().enumerate() {
                let k = v * 8 + u;
                let x = *o * self.inv_q[k] + 0.5;
                let t = trunc_i(x);
                let level = t - ((t as f32) > x) as i32;
                *o = level as f32 * self.q[k];
                any |= level;
            }
            live[v] = any != 0;
        }
        // Inverse: rows (skipping all-zero ones), then columns.
        let mut t = [[0.0f32; 8]; 8];
        for v in (0..8).filter(|&v| live[v]) {
            for (u, basis) in self.m.iter().enumerate() {
                let c = f[v][u];
                if c != 0.0 {
                    for (o, s) in t[v].iter_mut().zip(basis) {
                        *o += c * s;
                    }
                }
            }
        }
        for y in 0..8 {
            let mut out = [0.0f32; 8];
            for v in (0..8).filter(|&v| live[v]) {
                let c = self.mt[y][v];
                for (o, s) in out.iter_mut().zip(&t[v]) {
                    *o += c * s;
                }
            }
            b[y * 8..y * 8 + 8].copy_from_slice(&out);
        }
    }

    /// Round-trips every block of a `w`-wide plane (both sides multiples
    /// of 8), clamping samples to the 8-bit range as decoders do.
    fn plane(&self, p: &mut [f32], w: usize, lo: f32, hi: f32) {
        let mut blk = [0.0f32; 64];
        for band in p.chunks_exact_mut(8 * w) {
            for bx in (0..w).step_by(8) {
                for y in 0..8 {
                    blk[y * 8..y * 8 + 8].copy_from_slice(&band[y * w + bx..y * w + bx + 8]);
                }
                self.block(&mut blk);
                for y in 0..8 {
                    for (o, v) in band[y * w + bx..y * w + bx + 8]
                        .iter_mut()
                        .zip(&blk[y * 8..])
                    {
                        *o = v.clamp(lo, hi);
                    }
                }
            }
        }
    }
}

thread_local! {
    /// Plane buffers kept between calls (fresh pages cost more than the work).
    static PLANES: RefCell<[Vec<f32>; 7]> = RefCell::new(Default::default());
}

/// Replaces 8-bit RGB by what a decoder shows for `encode(rgb, w, h,
/// quality)`: the same planes, transform and quantisation, then the inverse
/// transform, chroma upsampled with the triangle filter that libjpeg and
/// zune-jpeg ("fancy upsampling") use, and back to RGB.
pub fn round_trip(rgb: &mut [u8], w: usize, h: usize, quality: u8) {
    if w == 0 || h == 0 {
        return;
    }
    PLANES.with(|cell| {
        let mut bufs = cell.borrow_mut();
        let [yp, cb, cr, vb, vr, ub, ur] = &mut *bufs;
        let (pw, _) = planes(rgb, w, h, [yp, cb, cr]);
        let cw = pw / 2;
        let luma = Codec::new(&LUMA_Q, quality);
        luma.plane(yp, pw, -128.0, 127.0);
        let chroma = Codec::new(&CHROMA_Q, quality);
        chroma.plane(cb, cw, -128.0, 127.0);
        chroma.plane(cr, cw, -128.0, 127.0);
        // Chroma samples that cover the image (the rest is padding).
        let (sw, sh) = (w.div_ceil(2), h.div_ceil(2));
        vb.clear();
        vb.resize(sw, 0.0);
        vr.clear();
        vr.resize(sw, 0.0);
        for (y, out) in rgb.chunks_exact_mut(w * 3).enumerate() {
            // Vertical pass: 3/4 of the nearest chroma row, 1/4 of the next
            // nearest one.
            let near = y / 2;
            let far = if y % 2 == 0 {
                near.saturating_sub(1)
            } else {
                (near + 1).min(sh - 1)
            };
            for (plane, v) in [(&*cb, &mut *vb), (&*cr, &mut *vr)] {
                let (a, b) = (
                    &plane[near * cw..near * cw + sw],
                    &plane[far * cw..far * cw + sw],
                );
                for ((o, a), b) in v.iter_mut().zip(a).zip(b) {
                    *o = 0.75 * a + 0.25 * b;
                }
            }
            let yrow = &yp[y * pw..y * pw + w];
            // Horizontal pass, the same way: the left pixel of each pair
            // leans on the chroma sample before, the right one on the next.
            for (plane, up) in [(&*vb, &mut *ub), (&*vr, &mut *ur)] {
                up.clear();
                up.extend((0..w).map(|x| {
                    let i = x / 2;
                    let side = if x % 2 == 0 {
                        i.saturating_sub(1)
                    } else {
                        (i + 1).min(sw - 1)
                    };
                    0.75 * plane[i] + 0.25 * plane[side]
                }));
            }
            for (((o, &l), &b), &r) in out.chunks_exact_mut(3).zip(yrow).zip(&*ub).zip(&*ur) {
                let l = l + 128.0;
                let rgb = [
                    l + 1.402 * r,
                    l - 0.344_136 * b - 0.714_136 * r,
                    l + 1.772 * b,
                ];
                for (o, c) in o.iter_mut().zip(rgb) {
                    *o = trunc_i(c + 0.5).clamp(0, 255) as u8;
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_close_to_the_input() {
        let (w, h) = (37usize, 21usize);
        let mut rgb = Vec::new();
        for y in 0..h {
            for x in 0..w {
                rgb.extend_from_slice(&[(x * 6) as u8, (y * 10) as u8, 128]);
            }
        }
        let bytes = encode(&rgb, w, h, 95);
        let img = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
            .expect("valid JPEG")
            .to_rgb8();
        assert_eq!(img.dimensions(), (w as u32, h as u32));
        let err: f64 = img
            .as_raw()
            .iter()
            .zip(&rgb)
            .map(|(a, b)| (*a as f64 - *b as f64).abs())
            .sum::<f64>()
            / rgb.len() as f64;
        assert!(err < 4.0, "mean error {err}");
    }

    /// The pairwise pass against the plain per-pixel definition, odd sizes
    /// included: the same sums in the same order, so the same bits.
    #[test]
    fn planes_match_the_per_pixel_definition() {
        for (w, h) in [(37usize, 21usize), (16, 16), (33, 8), (1, 1)] {
            let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 37 % 251) as u8).collect();
            let (mut yp, mut cb, mut cr) = (Vec::new(), Vec::new(), Vec::new());
            let (pw, ph) = planes(&rgb, w, h, [&mut yp, &mut cb, &mut cr]);
            let (mut y2, mut cb2, mut cr2) = (
                vec![0.0f32; pw * ph],
                vec![0.0f32; pw * ph / 4],
                vec![0.0f32; pw * ph / 4],
            );
            for y in 0..ph {
                for x in 0..pw {
                    let k = (y.min(h - 1) * w + x.min(w - 1)) * 3;
                    let (r, g, b) = (rgb[k] as f32, rgb[k + 1] as f32, rgb[k + 2] as f32);
                    y2[y * pw + x] = 0.299 * r + 0.587 * g + 0.114 * b - 128.0;
                    let c = (y / 2) * (pw / 2) + x / 2;
                    cb2[c] += 0.25 * (-0.168_736 * r - 0.331_264 * g + 0.5 * b);
                    cr2[c] += 0.25 * (0.5 * r - 0.418_688 * g - 0.081_312 * b);
                }
            }
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&yp), bits(&y2), "{w}x{h} luma");
            assert_eq!(bits(&cb), bits(&cb2), "{w}x{h} Cb");
            assert_eq!(bits(&cr), bits(&cr2), "{w}x{h} Cr");
        }
    }

    #[test]
    fn round_trip_matches_a_decoder() {
        let (w, h) = (75usize, 43usize);
        let mut rgb = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let edge = if (x / 9 + y / 7) % 2 == 0 { 200 } else { 40 };
                rgb.extend_from_slice(&[edge, (x * 3) as u8, (255 - y * 5) as u8]);
            }
        }
        for quality in [40, 75, 95] {
            let bytes = encode(&rgb, w, h, quality);
            let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
                .expect("valid JPEG")
                .to_rgb8();
            let mut ours = rgb.clone();
            round_trip(&mut ours, w, h, quality);
            let diff: Vec<f64> = ours
                .iter()
                .zip(decoded.as_raw())
                .map(|(a, b)| (*a as f64 - *b as f64).abs())
                .collect();
            let mean = diff.iter().sum::<f64>() / diff.len() as f64;
            let max = diff.iter().cloned().fold(0.0, f64::max);
            assert!(
                mean < 1.0 && max <= 8.0,
                "q{quality}: mean {mean}, max {max}"
            );
            // And it did compress: the artefacts are there.
            let err = ours
                .iter()
                .zip(&rgb)
                .map(|(a, b)| (*a as f64 - *b as f64).abs())
                .sum::<f64>()
                / rgb.len() as f64;
            assert!(err > 0.5, "q{quality}: mean change {err}");
        }
    }
}
