//! Minimal 3-vector maths in f32; rendering precision needs nothing more.

use std::ops::{Add, Mul, Neg, Sub};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[inline]
pub const fn v3(x: f32, y: f32, z: f32) -> V3 {
    V3 { x, y, z }
}

impl V3 {
    #[inline]
    pub fn dot(self, o: V3) -> f32 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    #[inline]
    pub fn cross(self, o: V3) -> V3 {
        v3(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }
    #[inline]
    pub fn len(self) -> f32 {
        self.dot(self).sqrt()
    }
    #[inline]
    pub fn norm(self) -> V3 {
        let l = self.len();
        if l > 1e-20 {
            self * (1.0 / l)
        } else {
            v3(0.0, 0.0, 1.0)
        }
    }
    /// Normalise with an approximate inverse square root (about 1e-5
    /// relative error); shading normalises three vectors per pixel.
    #[inline]
    pub fn norm_fast(self) -> V3 {
        let d = self.dot(self).max(1e-30);
        let i = 0x5F37_5A86u32.wrapping_sub(d.to_bits() >> 1);
        let mut y = f32::from_bits(i);
        y *= 1.5 - 0.5 * d * y * y;
        y *= 1.5 - 0.5 * d * y * y;
        self * y
    }

    #[inline]
    pub fn mul_e(self, o: V3) -> V3 {
        v3(self.x * o.x, self.y * o.y, self.z * o.z)
    }
    #[inline]
    pub fn lerp(self, o: V3, t: f32) -> V3 {
        self + (o - self) * t
    }
}

impl Add for V3 {
    type Output = V3;
    #[inline]
    fn add(self, o: V3) -> V3 {
        v3(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl Sub for V3 {
    type Output = V3;
    #[inline]
    fn sub(self, o: V3) -> V3 {
        v3(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl Mul<f32> for V3 {
    type Output = V3;
    #[inline]
    fn mul(self, s: f32) -> V3 {
        v3(self.x * s, self.y * s, self.z * s)
    }
}
impl Neg for V3 {
    type Output = V3;
    #[inline]
    fn neg(self) -> V3 {
        v3(-self.x, -self.y, -self.z)
    }
}

/// Orthonormal frame: columns are the local x, y, z axes in world space.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub x: V3,
    pub y: V3,
    pub z: V3,
}

impl Frame {
    pub const IDENTITY: Frame = Frame {
        x: v3(1.0, 0.0, 0.0),
        y: v3(0.0, 1.0, 0.0),
        z: v3(0.0, 0.0, 1.0),
    };

    /// A frame whose z axis points along `dir`.
    pub fn from_z(dir: V3) -> Frame {
        let z = dir.norm();
        let helper = if z.z.abs() < 0.9 {
            v3(0.0, 0.0, 1.0)
        } else {
            v3(1.0, 0.0, 0.0)
        };
        let x = helper.cross(z).norm();
        let y = z.cross(x);
        Frame { x, y, z }
    }

    pub fn rot_z(ang: f32) -> Frame {
        let (s, c) = ang.sin_cos();
        Frame {
            x: v3(c, s, 0.0),
            y: v3(-s, c, 0.0),
            z: v3(0.0, 0.0, 1.0),
        }
    }

    #[inline]
    pub fn apply(&self, p: V3) -> V3 {
        self.x * p.x + self.y * p.y + self.z * p.z
    }
}

/// `x as i32` for |x| < 2^31, saturating beyond at `i32::MIN` and at
/// 2147483520 (the largest f32 below 2^31, not `i32::MAX`); NaN gives
/// `i32::MIN`. The bounds are applied in float, one `maxss` and one
/// `minss`, where `as` adds a range test and a NaN test with a branch each
/// to every conversion.
#[inline(always)]
pub fn trunc_i(x: f32) -> i32 {
    // Comparisons, not `f32::max`/`min`: these lower to single instructions
    // and send NaN to the lower bound.
    let x = if x > -2_147_483_648.0 {
        x
    } else {
        -2_147_483_648.0
    };
    let x = if x < 2_147_483_520.0 {
        x
    } else {
        2_147_483_520.0
    };
    // SAFETY: x is now finite and within i32's range.
    unsafe { x.to_int_unchecked::<i32>() }
}

/// `x.floor()` as an integer, exact for |x| < 2^31 (saturating beyond, as
/// `trunc_i` does).
/// The baseline x86-64 target has no rounding instruction, so `f32::floor`
/// is a libm call; in the per-pixel loops that call was a tenth of the time.
#[inline]
pub fn floor_i(x: f32) -> i32 {
    let i = trunc_i(x);
    i.saturating_sub((i as f32 > x) as i32)
}

/// `x.ceil()` as an integer, exact for |x| < 2^31 (saturating beyond, as
/// `trunc_i` does).
#[inline]
pub fn ceil_i(x: f32) -> i32 {
    let i = trunc_i(x);
    i.saturating_add(((i as f32) < x) as i32)
}

/// sRGB byte to linear float.
pub fn srgb_to_linear(c: u8) -> f32 {
    let v = c as f32 / 255.0;
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

/// sRGB colour to a linear-light vector.
pub fn lin(rgb: [u8; 3]) -> V3 {
    v3(
        srgb_to_linear(rgb[0]),
        srgb_to_linear(rgb[1]),
        srgb_to_linear(rgb[2]),
    )
}

/// Approximate RGB tint of a black body at `kelvin`, normalised to green = 1.
pub fn kelvin_rgb(kelvin: f64) -> V3 {
    let t = (kelvin.clamp(1500.0, 15000.0) / 100.0) as f32;
    let r = if t <= 66.0 {
        1.0
    } else {
        (1.292_936 * (t - 60.0).powf(-0.133_204_76)).clamp(0.0, 1.0)
    };
    let g = if t <= 66.0 {
        (0.390_081_6 * t.ln() - 0.631_841_4).clamp(0.0, 1.0)
    } else {
        (1.129_890_9 * (t - 60.0).powf(-0.075_514_85)).clamp(0.0, 1.0)
    };
    let b = if t >= 66.0 {
        1.0
    } else if t <= 19.0 {
        0.0
    } else {
        (0.543_206_8 * (t - 10.0).ln() - 1.196_254_1).clamp(0.0, 1.0)
    };
    // Work in linear light and keep overall brightness steady.
    let c = v3(r.powf(2.2), g.powf(2.2), b.powf(2.2));
    c * (1.0 / c.y.max(0.05))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trunc_floor_and_ceil_match_the_float_library() {
        let mut xs = vec![
            0.0f32,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999_999_8,
            -2.999_999_8,
            8_388_607.5,
            -8_388_608.0,
            2_147_483_520.0,
            -2_147_483_648.0,
            -3.0e9,
            f32::NEG_INFINITY,
        ];
        // A spread of values of every magnitude and sign.
        xs.extend((0..4000).map(|i| {
            let t = i as f32 * 0.013_7;
            (t * 1.7).sin() * 10f32.powf(t % 11.0 - 2.0)
        }));
        for x in xs {
            assert_eq!(trunc_i(x), x as i32, "trunc {x}");
            assert_eq!(floor_i(x), x.floor() as i32, "floor {x}");
            assert_eq!(ceil_i(x), x.ceil() as i32, "ceil {x}");
        }
        assert_eq!(trunc_i(f32::NAN), i32::MIN);
        for big in [2_147_483_648.0f32, 3.0e9, f32::INFINITY] {
            assert_eq!(trunc_i(big), 2_147_483_520, "{big}");
        }
    }
}
