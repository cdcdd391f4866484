//! Small seeded PRNG (xoshiro256** seeded through splitmix64) and hash noise.
//!
//! The renderer must be bit-for-bit reproducible from a seed, so it owns its
//! generator instead of depending on a crate whose stream could change.

use super::math::floor_i;

/// Deterministic pseudo-random generator (xoshiro256**).
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// One step of splitmix64; also used as a cheap integer hash.
pub fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Mixes several integers into one well-spread hash.
pub fn hash(parts: &[u64]) -> u64 {
    let mut h = 0x1234_5678_9ABC_DEF0u64;
    for &p in parts {
        let mut x = h ^ p;
        h = splitmix64(&mut x);
    }
    h
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let s = [
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
        ];
        Rng { s }
    }

    /// A generator for a named sub-stream, so that adding draws to one part
    /// of the scene does not shift every other part.
    pub fn derive(seed: u64, stream: u64) -> Rng {
        Rng::new(hash(&[seed, stream]))
    }

    pub fn next_u64(&mut self) -> u64 {
        let r = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        r
    }

    /// Uniform in [0, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn f32(&mut self) -> f32 {
        self.f64() as f32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.f64()
    }

    /// Uniform integer in [0, n); 0 when n is 0.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }

    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.f64().max(1e-12);
        let u2 = self.f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Hash of a lattice point to [0, 1).
#[inline]
fn lattice(ix: i32, iy: i32, seed: u32) -> f32 {
    let mut h = (ix as u32).wrapping_mul(0x8DA6_B343)
        ^ (iy as u32).wrapping_mul(0xD816_3841)
        ^ seed.wrapping_mul(0xCB1A_B31F);
    h ^= h >> 13;
    h = h.wrapping_mul(0x5BD1_E995);
    h ^= h >> 15;
    (h & 0xFF_FFFF) as f32 / 16_777_216.0
}

/// Smooth 2D value noise in [0, 1).
#[inline]
pub fn value_noise(x: f32, y: f32, seed: u32) -> f32 {
    let (ix, iy) = (floor_i(x), floor_i(y));
    blend(x, y, ix, iy, corners(ix, iy, seed))
}

/// The lattice values around cell (ix, iy).
#[inline]
fn corners(ix: i32, iy: i32, seed: u32) -> [f32; 4] {
    [
        lattice(ix, iy, seed),
        lattice(ix + 1, iy, seed),
        lattice(ix, iy + 1, seed),
        lattice(ix + 1, iy + 1, seed),
    ]
}

#[inline]
fn blend(x: f32, y: f32, ix: i32, iy: i32, [a, b, c, d]: [f32; 4]) -> f32 {
    let tx = x - ix as f32;
    let ty = y - iy as f32;
    let sx = tx * tx * (3.0 - 2.0 * tx);
    let sy = ty * ty * (3.0 - 2.0 * ty);
    let top = a + (b - a) * sx;
    let bot = c + (d - c) * sx;
    top + (bot - top) * sy
}

/// `value_noise` for runs of nearby points (texture rows): the same values,
/// hashing the lattice again only when a point leaves the last one's cell.
pub struct NoiseRun {
    seed: u32,
    cell: Option<(i32, i32)>,
    corners: [f32; 4],
}

impl NoiseRun {
    pub fn new(seed: u32) -> NoiseRun {
        NoiseRun {
            seed,
            cell: None,
            corners: [0.0; 4],
        }
    }

    #[inline]
    pub fn at(&mut self, x: f32, y: f32) -> f32 {
        let (ix, iy) = (floor_i(x), floor_i(y));
        if self.cell != Some((ix, iy)) {
            self.cell = Some((ix, iy));
            self.corners = corners(ix, iy, self.seed);
        }
        blend(x, y, ix, iy, self.corners)
    }
}

/// Two-octave fractal noise in roughly [0, 1), for runs of nearby points
/// like `NoiseRun`.
pub struct Fbm2Run {
    lo: NoiseRun,
    hi: NoiseRun,
}

impl Fbm2Run {
    pub fn new(seed: u32) -> Fbm2Run {
        Fbm2Run {
            lo: NoiseRun::new(seed),
            hi: NoiseRun::new(seed ^ 0x55),
        }
    }

    #[inline]
    pub fn at(&mut self, x: f32, y: f32) -> f32 {
        0.66 * self.lo.at(x, y) + 0.34 * self.hi.at(x * 2.03 + 17.1, y * 2.03 + 5.3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_runs_equal_value_noise() {
        let mut run = NoiseRun::new(9);
        for k in 0..2000 {
            let (x, y) = (k as f32 * 0.37 - 300.0, (k / 40) as f32 * 0.61 - 5.0);
            assert_eq!(run.at(x, y).to_bits(), value_noise(x, y, 9).to_bits());
        }
    }

    #[test]
    fn same_seed_same_stream() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut c = Rng::new(43);
        assert_ne!(Rng::new(42).next_u64(), c.next_u64());
    }

    #[test]
    fn ranges_hold() {
        let mut r = Rng::new(7);
        for _ in 0..1000 {
            let v = r.f64();
            assert!((0.0..1.0).contains(&v));
            assert!(r.below(5) < 5);
            let n = value_noise(r.f32() * 50.0, r.f32() * 50.0, 3);
            assert!((0.0..1.0).contains(&n));
        }
        assert_eq!(r.below(0), 0);
    }
}
