//! Hash noise for the renderer, over the crate's seeded generator ([`crate::rng`]).

use super::math::floor_i;

pub use crate::rng::{hash, splitmix64, Rng};

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
