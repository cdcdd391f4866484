//! The orthonormal 8x8 DCT-II and its inverse for the JPEG round trip, as
//! even/odd butterflies run on all eight columns of a block at once: each
//! step is one operation on a row of eight lanes, which vectorises, and the
//! butterflies need about half the multiplications of the matrix product
//! (a 2D transform is one pass down the columns, a transpose, and another).

/// A block: eight rows of eight samples.
pub type Block = [[f32; 8]; 8];
type Row = [f32; 8];

/// 0.5 cos(k pi / 16): `C[4]` is also the DC basis value 0.5 sqrt(1/2).
const C: [f32; 8] = [
    0.5,
    0.490_392_64,
    0.461_939_77,
    0.415_734_8,
    0.353_553_38,
    0.277_785_12,
    0.191_341_72,
    0.097_545_16,
];

#[inline(always)]
fn lanes(f: impl Fn(usize) -> f32) -> Row {
    std::array::from_fn(f)
}

/// Odd part of both directions: the matrix of rows u = 1, 3, 5, 7 against
/// the differences (forward) is symmetric, so it also maps the odd
/// coefficients back (inverse).
#[inline(always)]
fn odd(d: [Row; 4]) -> [Row; 4] {
    let (c1, c3, c5, c7) = (C[1], C[3], C[5], C[7]);
    let m = [
        [c1, c3, c5, c7],
        [c3, -c7, -c1, -c5],
        [c5, -c1, c7, c3],
        [c7, -c5, c3, -c1],
    ];
    m.map(|r| lanes(|i| r[0] * d[0][i] + r[1] * d[1][i] + r[2] * d[2][i] + r[3] * d[3][i]))
}

/// Forward transform along the rows index (each column separately).
#[inline(always)]
pub fn forward_columns(b: &mut Block) {
    let s: [Row; 4] = std::array::from_fn(|k| lanes(|i| b[k][i] + b[7 - k][i]));
    let d: [Row; 4] = std::array::from_fn(|k| lanes(|i| b[k][i] - b[7 - k][i]));
    let (c2, c4, c6) = (C[2], C[4], C[6]);
    let e0 = lanes(|i| s[0][i] + s[3][i]);
    let e1 = lanes(|i| s[1][i] + s[2][i]);
    let f0 = lanes(|i| s[0][i] - s[3][i]);
    let f1 = lanes(|i| s[1][i] - s[2][i]);
    b[0] = lanes(|i| c4 * (e0[i] + e1[i]));
    b[4] = lanes(|i| c4 * (e0[i] - e1[i]));
    b[2] = lanes(|i| c2 * f0[i] + c6 * f1[i]);
    b[6] = lanes(|i| c6 * f0[i] - c2 * f1[i]);
    let o = odd(d);
    for (k, row) in o.into_iter().enumerate() {
        b[2 * k + 1] = row;
    }
}

/// Inverse transform along the rows index (each column separately).
#[inline(always)]
pub fn inverse_columns(b: &mut Block) {
    let (c2, c4, c6) = (C[2], C[4], C[6]);
    let a = lanes(|i| c4 * (b[0][i] + b[4][i]));
    let z = lanes(|i| c4 * (b[0][i] - b[4][i]));
    let p = lanes(|i| c2 * b[2][i] + c6 * b[6][i]);
    let r = lanes(|i| c6 * b[2][i] - c2 * b[6][i]);
    let e = [
        lanes(|i| a[i] + p[i]),
        lanes(|i| z[i] + r[i]),
        lanes(|i| z[i] - r[i]),
        lanes(|i| a[i] - p[i]),
    ];
    let o = odd([b[1], b[3], b[5], b[7]]);
    for k in 0..4 {
        b[k] = lanes(|i| e[k][i] + o[k][i]);
        b[7 - k] = lanes(|i| e[k][i] - o[k][i]);
    }
}

#[inline(always)]
pub fn transpose(b: &mut Block) {
    for y in 0..8 {
        for x in y + 1..8 {
            let t = b[y][x];
            b[y][x] = b[x][y];
            b[x][y] = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The DCT-II basis `m[u][x]` written out from its definition.
    fn basis() -> [[f64; 8]; 8] {
        std::array::from_fn(|u| {
            std::array::from_fn(|x| {
                let c = if u == 0 { 0.5f64.sqrt() } else { 1.0 };
                0.5 * c * (((2 * x + 1) as f64 * u as f64 * std::f64::consts::PI) / 16.0).cos()
            })
        })
    }

    fn sample() -> Block {
        std::array::from_fn(|y| std::array::from_fn(|x| ((x * 37 + y * 91) % 255) as f32 - 128.0))
    }

    #[test]
    fn the_2d_transform_matches_the_basis_and_inverts() {
        let m = basis();
        let b0 = sample();
        let mut b = b0;
        forward_columns(&mut b);
        transpose(&mut b);
        forward_columns(&mut b);
        // b now holds F transposed: b[u][v] = F[v][u] = sum m[v][y] m[u][x] b0[y][x].
        for u in 0..8 {
            for v in 0..8 {
                let mut f = 0.0;
                for y in 0..8 {
                    for x in 0..8 {
                        f += m[v][y] * m[u][x] * b0[y][x] as f64;
                    }
                }
                assert!((b[u][v] as f64 - f).abs() < 1e-3, "F[{v}][{u}]");
            }
        }
        inverse_columns(&mut b);
        transpose(&mut b);
        inverse_columns(&mut b);
        for y in 0..8 {
            for x in 0..8 {
                assert!((b[y][x] - b0[y][x]).abs() < 1e-3, "({x}, {y})");
            }
        }
    }
}
