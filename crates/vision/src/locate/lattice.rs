//! Fitting the grid to two families of lines. Sending the line through both
//! vanishing points to infinity makes the view affine to the board, where each
//! family is parallel and equally spaced; the grid is then the run of exactly
//! as many lines as the board has, at one spacing, best covered by segments
//! over the other family's extent.

use super::vanishing::{Family, NSeg};

/// Tolerance of a segment's offset from a lattice line, in cells.
const TAU: f64 = 0.1;
/// How far (cells) past the outermost lines of the other family a segment still counts.
const OVERHANG: f64 = 0.3;

/// The affine rectification: q = p / (1 + a x + b y).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Affine {
    a: f64,
    b: f64,
}

impl Affine {
    /// From the two vanishing points; `None` when their line passes too near the
    /// image centre (a view along the table, no board to see).
    pub(crate) fn new(v1: [f64; 3], v2: [f64; 3]) -> Option<Affine> {
        let h = crate::geometry::mat3::cross(v1, v2);
        let n = (h[0] * h[0] + h[1] * h[1]).sqrt();
        if h[2].abs() < 0.6 * n {
            return None;
        }
        Some(Affine {
            a: h[0] / h[2],
            b: h[1] / h[2],
        })
    }

    pub(crate) fn forward(&self, p: (f64, f64)) -> Option<(f64, f64)> {
        let w = 1.0 + self.a * p.0 + self.b * p.1;
        (w > 0.05).then(|| (p.0 / w, p.1 / w))
    }

    pub(crate) fn inverse(&self, q: (f64, f64)) -> Option<(f64, f64)> {
        let w = 1.0 - self.a * q.0 - self.b * q.1;
        (w > 1e-9).then(|| (q.0 / w, q.1 / w))
    }

    /// Unit normal, in rectified space, of the lines through `vp`.
    pub(crate) fn normal(&self, vp: [f64; 3]) -> (f64, f64) {
        let (dx, dy) = (vp[0], vp[1]);
        let n = (dx * dx + dy * dy).sqrt().max(1e-300);
        (-dy / n, dx / n)
    }
}

/// One segment seen in rectified space: its offset across its family, and the
/// span it covers along it (in the other family's offset units).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Obs {
    pub(crate) rho: f64,
    pub(crate) s0: f64,
    pub(crate) s1: f64,
}

impl Obs {
    fn weight(&self) -> f64 {
        self.s1 - self.s0
    }
}

fn dotp(n: (f64, f64), q: (f64, f64)) -> f64 {
    n.0 * q.0 + n.1 * q.1
}

/// The observations of one family: offsets along `n_own`, spans along `n_other`.
pub(crate) fn observe(
    segs: &[NSeg],
    fam: &Family,
    aff: &Affine,
    n_own: (f64, f64),
    n_other: (f64, f64),
) -> Vec<Obs> {
    fam.members
        .iter()
        .filter_map(|&i| {
            let s = &segs[i];
            let (qa, qb) = (aff.forward(s.a)?, aff.forward(s.b)?);
            let (ra, rb) = (dotp(n_own, qa), dotp(n_own, qb));
            let (sa, sb) = (dotp(n_other, qa), dotp(n_other, qb));
            Some(Obs {
                rho: (ra + rb) / 2.0,
                s0: sa.min(sb),
                s1: sa.max(sb),
            })
        })
        .collect()
}

/// Equally spaced lines at `o + k d`, with the grid's run starting at `k0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Lattice {
    pub(crate) d: f64,
    pub(crate) o: f64,
    pub(crate) k0: i64,
    pub(crate) score: f64,
}

impl Lattice {
    pub(crate) fn line(&self, k: i64) -> f64 {
        self.o + k as f64 * self.d
    }
}

struct Cluster {
    rho: f64,
    w: f64,
}

fn clusters(obs: &[Obs], eps: f64) -> Vec<Cluster> {
    let mut sorted: Vec<&Obs> = obs.iter().filter(|o| o.weight() > 0.0).collect();
    sorted.sort_by(|a, b| a.rho.total_cmp(&b.rho));
    let mut out: Vec<Cluster> = Vec::new();
    let mut last = f64::NEG_INFINITY;
    for o in sorted {
        let w = o.weight();
        match out.last_mut() {
            Some(c) if o.rho - last < eps => {
                c.rho = (c.rho * c.w + o.rho * w) / (c.w + w);
                c.w += w;
            }
            _ => out.push(Cluster { rho: o.rho, w }),
        }
        last = o.rho;
    }
    out
}

/// The integer nearest `t` (ties to even): a few instructions where `f64::round`
/// is a libm call without SSE4.1, and the lattice search makes millions. Ties are
/// half a cell off every line, beyond any tolerance here, so the choice is moot.
#[inline]
fn nearest(t: f64) -> f64 {
    const SHIFT: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
    if t.abs() < 1e15 {
        (t + SHIFT) - SHIFT
    } else {
        t.round()
    }
}

/// Best run of `n` lines of the lattice (d, o) and its score, each line's support capped.
///
/// The lines run over the clusters' whole extent, up to 4000 of them at a fine
/// spacing, yet at most one per cluster has support: the run's sum is slid only
/// where a supported line enters or leaves it (elsewhere it would add 0 - 0),
/// which gives the same sums, in the same order, as sliding over every line.
fn window(cl: &[Cluster], d: f64, o: f64, n: usize, cap: f64) -> Option<(f64, i64)> {
    let (lo, hi) = (cl.first()?.rho, cl.last()?.rho);
    let kmin = ((lo - o) / d).floor() as i64 - 1;
    let kmax = ((hi - o) / d).ceil() as i64 + 1;
    let len = (kmax - kmin + 1) as usize;
    if len > 4000 {
        return None;
    }
    // The supported lines (index from kmin, support), ascending: the clusters are
    // sorted by offset.
    let mut bins: Vec<(usize, f64)> = Vec::with_capacity(cl.len());
    for c in cl {
        let t = (c.rho - o) / d;
        let k = nearest(t);
        if (t - k).abs() < TAU {
            let idx = (k as i64 - kmin) as usize;
            match bins.last_mut() {
                Some((i, v)) if *i == idx => *v = (*v + c.w).min(cap),
                _ => bins.push((idx, (0.0 + c.w).min(cap))),
            }
        }
    }
    if len < n {
        let s: f64 = bins.iter().map(|b| b.1).sum();
        return Some((s, kmin));
    }
    let at = |i: usize| {
        bins.binary_search_by(|b| b.0.cmp(&i))
            .map_or(0.0, |j| bins[j].1)
    };
    let mut sum: f64 = bins.iter().take_while(|b| b.0 < n).map(|b| b.1).sum();
    let mut best = (sum, kmin);
    // Starts where a supported line enters (at start + n - 1) or leaves (start - 1).
    let enter = bins.iter().filter(|b| b.0 + 1 >= n).map(|b| b.0 + 1 - n);
    let leave = bins.iter().map(|b| b.0 + 1);
    let mut starts: Vec<usize> = enter
        .chain(leave)
        .filter(|&s| s >= 1 && s <= len - n)
        .collect();
    starts.sort_unstable();
    starts.dedup();
    for start in starts {
        sum += at(start + n - 1) - at(start - 1);
        if sum > best.0 + 1e-12 {
            best = (sum, kmin + start as i64);
        }
    }
    Some(best)
}

/// Least-squares spacing and offset from the clusters near the run's lines.
fn refit(cl: &[Cluster], d: f64, o: f64, k0: i64, n: usize) -> (f64, f64) {
    let (mut sw, mut sk, mut sr, mut skk, mut skr) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for c in cl {
        let t = (c.rho - o) / d;
        let k = nearest(t);
        let ki = k as i64;
        if (t - k).abs() < TAU && ki >= k0 && ki < k0 + n as i64 {
            let w = c.w;
            sw += w;
            sk += w * k;
            sr += w * c.rho;
            skk += w * k * k;
            skr += w * k * c.rho;
        }
    }
    let det = sw * skk - sk * sk;
    if sw <= 0.0 || det.abs() < 1e-12 * sw * sw {
        return (d, o);
    }
    let d2 = (sw * skr - sk * sr) / det;
    let o2 = (sr - d2 * sk) / sw;
    if d2 > 0.5 * d && d2 < 2.0 * d {
        (d2, o2)
    } else {
        (d, o)
    }
}

/// The strongest distinct lattices of `n` lines among one family's observations,
/// spacing within `d_range` (rectified units).
pub(crate) fn hypotheses(obs: &[Obs], n: usize, d_range: (f64, f64), eps: f64) -> Vec<Lattice> {
    let cl = clusters(obs, eps);
    if cl.len() < 2 {
        return Vec::new();
    }
    let mut ws: Vec<f64> = cl.iter().map(|c| c.w).collect();
    ws.sort_by(|a, b| b.total_cmp(a));
    let cap = ws[(n - 1).min(ws.len() - 1)].max(ws[0] * 0.05);
    let mut strong: Vec<usize> = (0..cl.len()).collect();
    strong.sort_by(|&i, &j| cl[j].w.total_cmp(&cl[i].w));
    strong.truncate(24);
    strong.sort_by(|&i, &j| cl[i].rho.total_cmp(&cl[j].rho));
    let mut found: Vec<Lattice> = Vec::new();
    for (x, &i) in strong.iter().enumerate() {
        for &j in &strong[x + 1..] {
            let gap = cl[j].rho - cl[i].rho;
            for m in 1..n {
                let d = gap / m as f64;
                if d < d_range.0 || d > d_range.1 {
                    continue;
                }
                let o = cl[i].rho;
                let Some((_, k0)) = window(&cl, d, o, n, cap) else {
                    continue;
                };
                let (d, o) = refit(&cl, d, o, k0, n);
                let Some((score, k0)) = window(&cl, d, o, n, cap) else {
                    continue;
                };
                found.push(Lattice { d, o, k0, score });
            }
        }
    }
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut out: Vec<Lattice> = Vec::new();
    for h in found {
        let same = |g: &Lattice| {
            (g.d - h.d).abs() < 0.04 * h.d && (g.line(g.k0) - h.line(h.k0)).abs() < 0.3 * h.d
        };
        if !out.iter().any(same) {
            out.push(h);
            if out.len() == 6 {
                break;
            }
        }
    }
    out
}

/// The observations of one family near a lattice's lines, in their order: the
/// line index (from the lattice's origin) and the span along the other family.
/// Computed once per lattice, since the joint search only shifts its run.
fn near_lines(obs: &[Obs], lat: &Lattice) -> Vec<(i64, f64, f64)> {
    obs.iter()
        .filter_map(|ob| {
            let t = (ob.rho - lat.o) / lat.d;
            let k = nearest(t);
            ((t - k).abs() < TAU).then_some((k as i64, ob.s0, ob.s1))
        })
        .collect()
}

/// Coverage (0..=1) of lattice lines `k` in `ks` by the observations `near` them
/// (see `near_lines`) within the other family's extent `[lo, hi]`.
fn coverage(near: &[(i64, f64, f64)], ks: std::ops::Range<i64>, lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-12);
    let mut cov = vec![0.0; (ks.end - ks.start).max(0) as usize];
    for &(k, s0, s1) in near {
        if !ks.contains(&k) {
            continue;
        }
        let inside = s1.min(hi) - s0.max(lo);
        if inside > 0.0 {
            cov[(k - ks.start) as usize] += inside / span;
        }
    }
    cov.iter_mut().for_each(|c| *c = f64::min(*c, 1.0));
    cov
}

/// The offsets of a run's first and last lines.
fn ends(lat: &Lattice, n: usize) -> (f64, f64) {
    (lat.line(lat.k0), lat.line(lat.k0 + n as i64 - 1))
}

/// Score of a pair of runs: mean coverage of their lines over the other run's
/// extent, less what shows the run is off by one: support for the lines just
/// outside it, and the other family's lines carrying on past it (a grid's lines
/// stop at its border). Also the plain mean coverage, the confidence.
fn pair_score(
    near1: &[(i64, f64, f64)],
    a: &Lattice,
    n1: usize,
    near2: &[(i64, f64, f64)],
    b: &Lattice,
    n2: usize,
) -> (f64, f64) {
    let side = |obs: &[(i64, f64, f64)], l: &Lattice, n: usize, other: &Lattice, m: usize| {
        let (lo, hi) = ends(other, m);
        let d = other.d;
        let ks = l.k0 - 1..l.k0 + n as i64 + 1;
        let cov = coverage(obs, ks, lo - OVERHANG * d, hi + OVERHANG * d);
        let inner: f64 = cov[1..=n].iter().sum();
        let run = l.k0..l.k0 + n as i64;
        let before = coverage(obs, run.clone(), lo - d, lo - OVERHANG * d);
        let after = coverage(obs, run, hi + OVERHANG * d, hi + d);
        let past: f64 = before.iter().chain(&after).sum();
        (inner, cov[0] + cov[n + 1] + past)
    };
    let (i1, o1) = side(near1, a, n1, b, n2);
    let (i2, o2) = side(near2, b, n2, a, n1);
    let n = (n1 + n2) as f64;
    ((i1 + i2 - 0.5 * (o1 + o2)) / n, (i1 + i2) / n)
}

/// The best pair of runs (family 1 with `n1` lines, family 2 with `n2`), their
/// mean coverage (1 = every grid line fully seen) and the score they were chosen
/// by (the coverage less what shows the runs off by a line, see `pair_score`).
pub(crate) fn joint(
    obs1: &[Obs],
    hyp1: &[Lattice],
    n1: usize,
    obs2: &[Obs],
    hyp2: &[Lattice],
    n2: usize,
) -> Option<(Lattice, Lattice, f64, f64)> {
    const SHIFT: i64 = 2;
    let mut best: Option<(Lattice, Lattice, f64, f64)> = None;
    let near2: Vec<_> = hyp2.iter().map(|h| near_lines(obs2, h)).collect();
    for h1 in hyp1 {
        let near1 = near_lines(obs1, h1);
        for (h2, near2) in hyp2.iter().zip(&near2) {
            for s1 in -SHIFT..=SHIFT {
                for s2 in -SHIFT..=SHIFT {
                    let a = Lattice {
                        k0: h1.k0 + s1,
                        ..*h1
                    };
                    let b = Lattice {
                        k0: h2.k0 + s2,
                        ..*h2
                    };
                    let (score, conf) = pair_score(&near1, &a, n1, near2, &b, n2);
                    if best.as_ref().is_none_or(|x| score > x.2) {
                        best = Some((a, b, score, conf));
                    }
                }
            }
        }
    }
    best.map(|(a, b, score, conf)| (a, b, conf, score))
}
