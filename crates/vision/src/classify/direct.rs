//! A direct convolution engine for the occupancy network's kind of graph: a chain of
//! 2-D convolutions (any widths, strides, kernel sizes and zero padding, group 1, no
//! dilation), each optionally followed by a ReLU, then a flatten and fully connected
//! layers, optionally with ReLUs. `model.rs` reads the ONNX file into a [`Spec`] and
//! checks this engine against tract's plan on the same file before using it.
//!
//! Why not tract's plan: on batches of 40x32 crops tract spends most of its time copying
//! patches (im2col, one crop at a time) and packing them for its matrix kernels, not
//! multiplying (models/README.md, Speed). Here every layer, the fully connected ones
//! included, is the same loop: activations are kept channel-last (NHWC), so each kernel
//! row of a patch is one contiguous run of the input, and a tile of output pixels times a
//! block of output channels is accumulated in registers straight from the activations,
//! with no patch matrix and no packing. Tiles run across crop boundaries, so the small
//! maps of the later layers still fill whole tiles.

use std::sync::Mutex;

use super::model::NotDirect;

/// A convolution as the ONNX file gives it.
#[derive(Clone, Debug)]
pub(crate) struct ConvSpec {
    pub(crate) cin: usize,
    pub(crate) cout: usize,
    pub(crate) kernel: [usize; 2],
    pub(crate) stride: [usize; 2],
    /// Zero padding: top, left, bottom, right.
    pub(crate) pads: [usize; 4],
    /// `[cout][cin][kh][kw]`.
    pub(crate) weights: Vec<f32>,
    pub(crate) bias: Vec<f32>,
    pub(crate) relu: bool,
}

/// A fully connected layer (ONNX Gemm with alpha = beta = 1) on the flattened input.
#[derive(Clone, Debug)]
pub(crate) struct DenseSpec {
    pub(crate) inputs: usize,
    pub(crate) outputs: usize,
    /// `[outputs][inputs]`, the input in ONNX (NCHW) flattening order.
    pub(crate) weights: Vec<f32>,
    pub(crate) bias: Vec<f32>,
    pub(crate) relu: bool,
}

#[derive(Clone, Debug)]
pub(crate) enum LayerSpec {
    Conv(ConvSpec),
    Dense(DenseSpec),
}

/// The whole network: the input map (channels, height, width), a constant added to
/// every input value before the first layer, the layers in order, and which layers'
/// outputs are the network's outputs (logits; embedding).
#[derive(Clone, Debug)]
pub(crate) struct Spec {
    pub(crate) input: [usize; 3],
    pub(crate) offset: f32,
    pub(crate) layers: Vec<LayerSpec>,
    pub(crate) logits: usize,
    pub(crate) embedding: Option<usize>,
}

/// The instruction set the kernels were compiled for, picked once at load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Portable,
}

impl Isa {
    pub(crate) fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("fma") {
                return Isa::Avx512;
            }
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                return Isa::Avx2;
            }
        }
        Isa::Portable
    }

    /// Lanes of a vector, and the most vectors of output channels one tile holds.
    fn shape(self) -> (usize, usize) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => (16, 4),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => (8, 3),
            Isa::Portable => (8, 2),
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => "AVX-512",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => "AVX2",
            Isa::Portable => "portable",
        }
    }
}

/// Output channels `start..start + len`, as `nv` vectors of lanes: weights `[k][nv *
/// lanes]` (zero past `len`) and the bias likewise.
struct Block {
    start: usize,
    len: usize,
    nv: usize,
    weights: Vec<f32>,
    bias: Vec<f32>,
}

/// One layer, compiled: it reads a crop's input map channel-last and zero-padded
/// (`in_crop` values per crop) and writes each output pixel's channels at
/// `outs[pixel]` within the next layer's input (`out_crop` values per crop).
struct Layer {
    /// Offset of each of a patch's values from its first, in the weights' order
    /// (kernel row, kernel column, input channel).
    koffs: Vec<usize>,
    /// Offset of each output pixel's patch within the crop's input.
    bases: Vec<usize>,
    in_crop: usize,
    outs: Vec<usize>,
    out_crop: usize,
    blocks: Vec<Block>,
    relu: bool,
}

/// Geometry of a layer's input buffer: the map's size, padded, channel-last (or planar,
/// the first layer's input as the caller gives it).
#[derive(Clone, Copy)]
struct Frame {
    planar: bool,
    h: usize,
    w: usize,
    c: usize,
    top: usize,
    left: usize,
    /// Padded height and width.
    ph: usize,
    pw: usize,
}

impl Frame {
    fn len(&self) -> usize {
        self.ph * self.pw * self.c
    }
    /// Where a value of the padded map lies.
    fn index(&self, c: usize, y: usize, x: usize) -> usize {
        if self.planar {
            (c * self.ph + y) * self.pw + x
        } else {
            (y * self.pw + x) * self.c + c
        }
    }
    /// Where a pixel of the map (unpadded coordinates) starts.
    fn at(&self, y: usize, x: usize) -> usize {
        self.index(0, y + self.top, x + self.left)
    }
}

/// The compiled network. Runs on any batch; crops go through all layers a few at a time
/// so that each layer's activations stay in cache.
pub(crate) struct DirectNet {
    isa: Isa,
    input: [usize; 3],
    offset: f32,
    first: Frame,
    layers: Vec<Layer>,
    /// Buffers: the first layer's input, then each layer's output.
    sizes: Vec<usize>,
    logits: usize,
    embedding: Option<usize>,
    out_dims: Vec<usize>,
    scratch: Mutex<Vec<Vec<f32>>>,
}

/// Crops per pass through the layers.
const CHUNK: usize = 16;

impl DirectNet {
    pub(crate) fn new(spec: &Spec, isa: Isa) -> Result<DirectNet, NotDirect> {
        let (frames, geo, last) = plan_frames(spec)?;
        let mut layers = Vec::new();
        for (i, l) in spec.layers.iter().enumerate() {
            let next = frames.get(i + 1).copied().unwrap_or(last);
            layers.push(compile_layer(i, l, frames[i], next, geo[i], isa)?);
        }
        let n = layers.len();
        // An output is read straight from the next layer's input: a dense layer's, not
        // padded.
        let out_ok = |i: usize| {
            i < n
                && matches!(spec.layers[i], LayerSpec::Dense(_))
                && frames.get(i + 1).is_none_or(|f| f.ph == f.h && f.pw == f.w)
        };
        if !out_ok(spec.logits) || spec.embedding.is_some_and(|e| !out_ok(e)) {
            return Err(NotDirect::Shape("outputs must be fully connected layers"));
        }
        let mut sizes = vec![frames.first().map(Frame::len).unwrap_or(0)];
        sizes.extend(layers.iter().map(|l| l.out_crop));
        let out_dims = (0..n)
            .map(|i| frames.get(i + 1).copied().unwrap_or(last).c)
            .collect();
        Ok(DirectNet {
            isa,
            input: spec.input,
            offset: spec.offset,
            first: frames[0],
            layers,
            sizes,
            logits: spec.logits,
            embedding: spec.embedding,
            out_dims,
            scratch: Mutex::new(Vec::new()),
        })
    }

    pub(crate) fn isa(&self) -> Isa {
        self.isa
    }

    pub(crate) fn embedding_dim(&self) -> Option<usize> {
        self.embedding.map(|e| self.out_dims[e])
    }

    pub(crate) fn classes(&self) -> usize {
        self.out_dims[self.logits]
    }

    /// Runs `n` crops (planar, `input` sized, back to back). Returns the logits
    /// (`n * classes`) and the embeddings (`n * embedding_dim`, empty without one).
    pub(crate) fn run(&self, crops: &[f32], n: usize) -> (Vec<f32>, Vec<f32>) {
        let [c, h, w] = self.input;
        let per = c * h * w;
        assert!(crops.len() >= n * per, "fewer crops than asked for");
        let mut bufs = self
            .scratch
            .try_lock()
            .ok()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default();
        if bufs.len() != self.sizes.len() {
            // Zeroed once: the padding borders are never written.
            bufs = self.sizes.iter().map(|s| vec![0f32; s * CHUNK]).collect();
        }
        // The first layer reads the caller's crops where they need no padding or offset.
        let copy =
            self.offset != 0.0 || self.first.ph != self.first.h || self.first.pw != self.first.w;
        let classes = self.classes();
        let dim = self.embedding_dim().unwrap_or(0);
        let mut logits = Vec::with_capacity(n * classes);
        let mut emb = Vec::with_capacity(n * dim);
        for start in (0..n).step_by(CHUNK) {
            let m = CHUNK.min(n - start);
            let chunk = &crops[start * per..(start + m) * per];
            if copy {
                self.load_input(chunk, m, &mut bufs[0]);
            }
            for (i, layer) in self.layers.iter().enumerate() {
                let (done, rest) = bufs.split_at_mut(i + 1);
                let input = if i == 0 && !copy { chunk } else { &done[i][..] };
                run_layer(self.isa, layer, input, &mut rest[0], m);
            }
            logits.extend_from_slice(&bufs[self.logits + 1][..m * classes]);
            if let Some(e) = self.embedding {
                emb.extend_from_slice(&bufs[e + 1][..m * dim]);
            }
        }
        if let Ok(mut s) = self.scratch.try_lock() {
            *s = bufs;
        }
        (logits, emb)
    }

    /// Planar crops into the first layer's padded planar frame, offset added.
    fn load_input(&self, crops: &[f32], m: usize, out: &mut [f32]) {
        let f = self.first;
        let plane = f.h * f.w;
        for k in 0..m {
            let src = &crops[k * f.c * plane..(k + 1) * f.c * plane];
            let dst = &mut out[k * f.len()..(k + 1) * f.len()];
            for ch in 0..f.c {
                for y in 0..f.h {
                    let o = f.index(ch, y + f.top, f.left);
                    let row = &src[ch * plane + y * f.w..ch * plane + (y + 1) * f.w];
                    for (d, v) in dst[o..o + f.w].iter_mut().zip(row) {
                        *d = v + self.offset;
                    }
                }
            }
        }
    }
}

/// A layer's kernel as it moves over its input frame: kernel height and width,
/// strides, output channels. A dense layer is a kernel the size of its input.
#[derive(Clone, Copy)]
struct Kernel {
    kh: usize,
    kw: usize,
    sh: usize,
    sw: usize,
    cout: usize,
}

impl Kernel {
    /// The output map's height and width on frame `f`.
    fn out_size(&self, f: &Frame) -> (usize, usize) {
        (
            (f.ph - self.kh) / self.sh + 1,
            (f.pw - self.kw) / self.sw + 1,
        )
    }
}

/// Each layer's input frame and kernel, and the last layer's output frame.
fn plan_frames(spec: &Spec) -> Result<(Vec<Frame>, Vec<Kernel>, Frame), NotDirect> {
    let [c0, h0, w0] = spec.input;
    let mut dims = (c0, h0, w0);
    let mut frames = Vec::new();
    let mut kernels = Vec::new();
    for (i, l) in spec.layers.iter().enumerate() {
        let (f, k) = layer_frame(i, l, dims)?;
        let (oh, ow) = k.out_size(&f);
        frames.push(f);
        kernels.push(k);
        dims = (k.cout, oh, ow);
    }
    let last = Frame {
        planar: false,
        h: dims.1,
        w: dims.2,
        c: dims.0,
        top: 0,
        left: 0,
        ph: dims.1,
        pw: dims.2,
    };
    Ok((frames, kernels, last))
}

/// Layer `i`'s input frame (a `c` x `h` x `w` map, with the padding the layer asks
/// of it) and its kernel; a dense layer is a convolution whose kernel covers its
/// whole input, unpadded.
fn layer_frame(
    i: usize,
    l: &LayerSpec,
    (c, h, w): (usize, usize, usize),
) -> Result<(Frame, Kernel), NotDirect> {
    let (pads, kernel) = match l {
        LayerSpec::Conv(cv) => {
            if cv.cin != c {
                return Err(NotDirect::Channels(i, cv.cin, c));
            }
            let [t, le, b, r] = cv.pads;
            let (ph, pw) = (h + t + b, w + le + r);
            let [kh, kw] = cv.kernel;
            let [sh, sw] = cv.stride;
            if kh == 0 || kw == 0 || sh == 0 || sw == 0 || kh > ph || kw > pw {
                return Err(NotDirect::KernelTooLarge(i));
            }
            let k = Kernel {
                kh,
                kw,
                sh,
                sw,
                cout: cv.cout,
            };
            (cv.pads, k)
        }
        LayerSpec::Dense(d) => {
            if d.inputs != c * h * w {
                return Err(NotDirect::DenseInputs(i, d.inputs, c * h * w));
            }
            let k = Kernel {
                kh: h,
                kw: w,
                sh: 1,
                sw: 1,
                cout: d.outputs,
            };
            ([0; 4], k)
        }
    };
    let [t, le, b, r] = pads;
    let frame = Frame {
        planar: i == 0,
        h,
        w,
        c,
        top: t,
        left: le,
        ph: h + t + b,
        pw: w + le + r,
    };
    Ok((frame, kernel))
}

/// Layer `i` compiled for `isa`: it reads frame `f` with kernel `k` and writes into
/// frame `next`.
fn compile_layer(
    i: usize,
    l: &LayerSpec,
    f: Frame,
    next: Frame,
    k: Kernel,
    isa: Isa,
) -> Result<Layer, NotDirect> {
    let (lanes, max_nv) = isa.shape();
    let (oh, ow) = k.out_size(&f);
    let cout = k.cout;
    let klen = k.kh * k.kw * f.c;
    let (weights, bias, relu) = match l {
        LayerSpec::Conv(cv) => (&cv.weights, &cv.bias, cv.relu),
        LayerSpec::Dense(d) => (&d.weights, &d.bias, d.relu),
    };
    // Checked before the reordering, which indexes every weight.
    if bias.len() != cout || weights.len() != klen * cout {
        return Err(NotDirect::WeightSizes(i));
    }
    // A dense layer's weights, its input flattened channel-major (ONNX NCHW order),
    // are laid out as a convolution's over its whole input: one reordering for both.
    let wk = patch_major(weights, cout, f.c, k.kh, k.kw);
    let blocks = split_blocks(&wk, bias, klen, cout, lanes, max_nv);
    let mut koffs = Vec::with_capacity(klen);
    for dy in 0..k.kh {
        for dx in 0..k.kw {
            for ci in 0..f.c {
                koffs.push(f.index(ci, dy, dx));
            }
        }
    }
    let mut bases = Vec::with_capacity(oh * ow);
    let mut outs = Vec::with_capacity(oh * ow);
    for oy in 0..oh {
        for ox in 0..ow {
            bases.push(f.index(0, oy * k.sh, ox * k.sw));
            outs.push(next.at(oy, ox));
        }
    }
    if next.c != cout || next.h != oh || next.w != ow {
        return Err(NotDirect::OutputShape(i));
    }
    Ok(Layer {
        koffs,
        bases,
        in_crop: f.len(),
        outs,
        out_crop: next.len(),
        blocks,
        relu,
    })
}

/// Weights `[cout][cin][kh][kw]` as `[k][cout]` with k = (dy, dx, ci), the order of
/// a patch's values.
fn patch_major(weights: &[f32], cout: usize, cin: usize, kh: usize, kw: usize) -> Vec<f32> {
    let mut wk = vec![0f32; kh * kw * cin * cout];
    for o in 0..cout {
        for ci in 0..cin {
            for dy in 0..kh {
                for dx in 0..kw {
                    wk[((dy * kw + dx) * cin + ci) * cout + o] =
                        weights[((o * cin + ci) * kh + dy) * kw + dx];
                }
            }
        }
    }
    wk
}

/// Output channels in blocks of at most `max_nv` vectors of `lanes`, as even as may
/// be, each with its weights (`wk` is `[k][cout]`) and bias, zero past `cout`.
fn split_blocks(
    wk: &[f32],
    bias: &[f32],
    k: usize,
    cout: usize,
    lanes: usize,
    max_nv: usize,
) -> Vec<Block> {
    let vecs = cout.div_ceil(lanes);
    let nblocks = vecs.div_ceil(max_nv);
    let mut blocks = Vec::new();
    let mut v0 = 0;
    for b in 0..nblocks {
        let nv = (vecs - v0).div_ceil(nblocks - b);
        let start = v0 * lanes;
        let len = (nv * lanes).min(cout - start);
        let width = nv * lanes;
        let mut weights = vec![0f32; k * width];
        for kk in 0..k {
            weights[kk * width..kk * width + len]
                .copy_from_slice(&wk[kk * cout + start..kk * cout + start + len]);
        }
        let mut bb = vec![0f32; width];
        bb[..len].copy_from_slice(&bias[start..start + len]);
        blocks.push(Block {
            start,
            len,
            nv,
            weights,
            bias: bb,
        });
        v0 += nv;
    }
    blocks
}

fn run_layer(isa: Isa, layer: &Layer, input: &[f32], output: &mut [f32], m: usize) {
    assert!(input.len() >= m * layer.in_crop && output.len() >= m * layer.out_crop);
    // SAFETY: every offset the tiles read or write lies within one crop's input or
    // output frame (`DirectNet::new` built them from the frames' sizes), and the
    // buffers hold `m` of each (checked above). The ISA was detected at load.
    unsafe {
        match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => x86::layer_avx512(layer, input.as_ptr(), output.as_mut_ptr(), m),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => x86::layer_avx2(layer, input.as_ptr(), output.as_mut_ptr(), m),
            Isa::Portable => layer_portable(layer, input.as_ptr(), output.as_mut_ptr(), m),
        }
    }
}

/// The input and output pointers of every tile of `P` output pixels over `m` crops,
/// for the block of output channels starting at `start`. A short last tile repeats
/// its last pixel and has a count under `P`. Pointer arithmetic is wrapping (no debug
/// checks in the hot loop); the offsets are in bounds (`run_layer`).
#[inline(always)]
fn for_tiles<const P: usize>(
    layer: &Layer,
    start: usize,
    x: *const f32,
    y: *mut f32,
    m: usize,
    mut f: impl FnMut(&[*const f32; P], &[*mut f32; P], usize),
) {
    let npix = layer.bases.len();
    let total = m * npix;
    let mut i = 0;
    while i < total {
        let count = P.min(total - i);
        let mut xs = [x; P];
        let mut ys = [y; P];
        for p in 0..P {
            let q = i + p.min(count - 1);
            let (crop, pix) = (q / npix, q % npix);
            xs[p] = x.wrapping_add(crop * layer.in_crop + layer.bases[pix]);
            ys[p] = y.wrapping_add(crop * layer.out_crop + layer.outs[pix] + start);
        }
        f(&xs, &ys, count);
        i += P;
    }
}

// Register tiles are indexed by pixel and vector: fixed-size loops the compiler unrolls.
#[allow(clippy::needless_range_loop)]
#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The tiles in AVX-512 and AVX2 intrinsics: loads, stores and pointer
    //! arithmetic that debug builds do not check value by value.

    use super::{for_tiles, Block, Layer};
    use std::arch::x86_64::*;

    /// Tiles of `P` pixels by `NV` vectors: at most 24 accumulators of the 32 vector
    /// registers, and at most 8 pixel pointers (more spilled the general registers and
    /// ran slower, measured with `bench --what classify`).
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn layer_avx512(layer: &Layer, x: *const f32, y: *mut f32, m: usize) {
        for b in &layer.blocks {
            match b.nv {
                1 => tiles512::<1, 8>(layer, b, x, y, m),
                2 => tiles512::<2, 8>(layer, b, x, y, m),
                3 => tiles512::<3, 7>(layer, b, x, y, m),
                _ => tiles512::<4, 5>(layer, b, x, y, m),
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    #[inline]
    unsafe fn tiles512<const NV: usize, const P: usize>(
        layer: &Layer,
        b: &Block,
        x: *const f32,
        y: *mut f32,
        m: usize,
    ) {
        let (w, bias) = (b.weights.as_ptr(), b.bias.as_ptr());
        let relu = layer.relu;
        for_tiles::<P>(layer, b.start, x, y, m, |xs, ys, count| {
            // SAFETY: as `run_layer`; the block's weights hold `koffs.len()` rows of
            // `NV` vectors and its bias `NV` vectors.
            unsafe {
                let mut acc = [[_mm512_setzero_ps(); NV]; P];
                for v in 0..NV {
                    let bv = _mm512_loadu_ps(bias.wrapping_add(16 * v));
                    for a in acc.iter_mut() {
                        a[v] = bv;
                    }
                }
                let mut wp = w;
                for &k in &layer.koffs {
                    let mut wv = [_mm512_setzero_ps(); NV];
                    for (v, wvv) in wv.iter_mut().enumerate() {
                        *wvv = _mm512_loadu_ps(wp.wrapping_add(16 * v));
                    }
                    wp = wp.wrapping_add(16 * NV);
                    for p in 0..P {
                        let xv = _mm512_set1_ps(_mm_cvtss_f32(_mm_load_ss(xs[p].wrapping_add(k))));
                        for v in 0..NV {
                            acc[p][v] = _mm512_fmadd_ps(xv, wv[v], acc[p][v]);
                        }
                    }
                }
                let zero = _mm512_setzero_ps();
                for p in 0..count.min(P) {
                    for v in 0..NV {
                        let a = if relu {
                            _mm512_max_ps(acc[p][v], zero)
                        } else {
                            acc[p][v]
                        };
                        let rem = b.len.saturating_sub(16 * v);
                        let out = ys[p].wrapping_add(16 * v);
                        if rem >= 16 {
                            _mm512_storeu_ps(out, a);
                        } else if rem > 0 {
                            _mm512_mask_storeu_ps(out, ((1u32 << rem) - 1) as u16, a);
                        }
                    }
                }
            }
        });
    }

    /// Tiles within the 16 vector registers: accumulators, the block's weights and a
    /// broadcast input.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn layer_avx2(layer: &Layer, x: *const f32, y: *mut f32, m: usize) {
        for b in &layer.blocks {
            match b.nv {
                1 => tiles256::<1, 8>(layer, b, x, y, m),
                2 => tiles256::<2, 6>(layer, b, x, y, m),
                _ => tiles256::<3, 4>(layer, b, x, y, m),
            }
        }
    }

    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn tiles256<const NV: usize, const P: usize>(
        layer: &Layer,
        b: &Block,
        x: *const f32,
        y: *mut f32,
        m: usize,
    ) {
        let (w, bias) = (b.weights.as_ptr(), b.bias.as_ptr());
        let relu = layer.relu;
        for_tiles::<P>(layer, b.start, x, y, m, |xs, ys, count| {
            // SAFETY: as in `tiles512`.
            unsafe {
                let mut acc = [[_mm256_setzero_ps(); NV]; P];
                for v in 0..NV {
                    let bv = _mm256_loadu_ps(bias.wrapping_add(8 * v));
                    for a in acc.iter_mut() {
                        a[v] = bv;
                    }
                }
                let mut wp = w;
                for &k in &layer.koffs {
                    let mut wv = [_mm256_setzero_ps(); NV];
                    for (v, wvv) in wv.iter_mut().enumerate() {
                        *wvv = _mm256_loadu_ps(wp.wrapping_add(8 * v));
                    }
                    wp = wp.wrapping_add(8 * NV);
                    for p in 0..P {
                        let xv = _mm256_set1_ps(_mm_cvtss_f32(_mm_load_ss(xs[p].wrapping_add(k))));
                        for v in 0..NV {
                            acc[p][v] = _mm256_fmadd_ps(xv, wv[v], acc[p][v]);
                        }
                    }
                }
                let zero = _mm256_setzero_ps();
                for p in 0..count.min(P) {
                    for v in 0..NV {
                        let a = if relu {
                            _mm256_max_ps(acc[p][v], zero)
                        } else {
                            acc[p][v]
                        };
                        let rem = b.len.saturating_sub(8 * v);
                        let out = ys[p].wrapping_add(8 * v);
                        if rem >= 8 {
                            _mm256_storeu_ps(out, a);
                        } else if rem > 0 {
                            let mut lanes = [0f32; 8];
                            _mm256_storeu_ps(lanes.as_mut_ptr(), a);
                            std::ptr::copy_nonoverlapping(lanes.as_ptr(), out, rem);
                        }
                    }
                }
            }
        });
    }
}

/// Without known vector units: plain arrays the compiler vectorises as it can, and a
/// plain multiply and add where a fused one would be a library call.
unsafe fn layer_portable(layer: &Layer, x: *const f32, y: *mut f32, m: usize) {
    for b in &layer.blocks {
        match b.nv {
            1 => tiles_portable::<1, 8>(layer, b, x, y, m),
            _ => tiles_portable::<2, 4>(layer, b, x, y, m),
        }
    }
}

#[allow(clippy::needless_range_loop)]
fn tiles_portable<const NV: usize, const P: usize>(
    layer: &Layer,
    b: &Block,
    x: *const f32,
    y: *mut f32,
    m: usize,
) {
    const L: usize = 8;
    const FMA: bool = cfg!(any(target_arch = "aarch64", target_feature = "fma"));
    for_tiles::<P>(layer, b.start, x, y, m, |xs, ys, count| {
        let mut acc = [[[0f32; L]; NV]; P];
        for a in acc.iter_mut() {
            for (v, av) in a.iter_mut().enumerate() {
                av.copy_from_slice(&b.bias[v * L..(v + 1) * L]);
            }
        }
        for (&k, wk) in layer.koffs.iter().zip(b.weights.chunks_exact(NV * L)) {
            for p in 0..P {
                // SAFETY: as `run_layer`.
                let xv = unsafe { xs[p].wrapping_add(k).read() };
                for v in 0..NV {
                    for l in 0..L {
                        let wl = wk[v * L + l];
                        acc[p][v][l] = if FMA {
                            xv.mul_add(wl, acc[p][v][l])
                        } else {
                            acc[p][v][l] + xv * wl
                        };
                    }
                }
            }
        }
        for p in 0..count.min(P) {
            for v in 0..NV {
                for l in 0..L {
                    let c = v * L + l;
                    if c < b.len {
                        let a = acc[p][v][l];
                        // SAFETY: as `run_layer`.
                        unsafe {
                            ys[p]
                                .wrapping_add(c)
                                .write(if layer.relu { a.max(0.0) } else { a })
                        };
                    }
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Straightforward NCHW reference of a spec, for the engine's unit test.
    fn reference(spec: &Spec, crop: &[f32]) -> Vec<Vec<f32>> {
        let [mut c, mut h, mut w] = spec.input;
        let mut x: Vec<f32> = crop.iter().map(|v| v + spec.offset).collect();
        let mut outs = Vec::new();
        for l in &spec.layers {
            match l {
                LayerSpec::Conv(cv) => {
                    let [t, le, bo, r] = cv.pads;
                    let (ph, pw) = (h + t + bo, w + le + r);
                    let [kh, kw] = cv.kernel;
                    let [sh, sw] = cv.stride;
                    let (oh, ow) = ((ph - kh) / sh + 1, (pw - kw) / sw + 1);
                    let get = |ci: usize, yy: isize, xx: isize| {
                        if yy < 0 || xx < 0 || yy >= h as isize || xx >= w as isize {
                            0.0
                        } else {
                            x[(ci * h + yy as usize) * w + xx as usize]
                        }
                    };
                    let mut y = vec![0f32; cv.cout * oh * ow];
                    for o in 0..cv.cout {
                        for oy in 0..oh {
                            for ox in 0..ow {
                                let mut s = cv.bias[o] as f64;
                                for ci in 0..c {
                                    for dy in 0..kh {
                                        for dx in 0..kw {
                                            let yy = (oy * sh + dy) as isize - t as isize;
                                            let xx = (ox * sw + dx) as isize - le as isize;
                                            s += cv.weights[((o * c + ci) * kh + dy) * kw + dx]
                                                as f64
                                                * get(ci, yy, xx) as f64;
                                        }
                                    }
                                }
                                let s = s as f32;
                                y[(o * oh + oy) * ow + ox] = if cv.relu { s.max(0.0) } else { s };
                            }
                        }
                    }
                    (c, h, w) = (cv.cout, oh, ow);
                    x = y;
                }
                LayerSpec::Dense(d) => {
                    let y: Vec<f32> = (0..d.outputs)
                        .map(|o| {
                            let s = d.bias[o] as f64
                                + (0..d.inputs)
                                    .map(|i| d.weights[o * d.inputs + i] as f64 * x[i] as f64)
                                    .sum::<f64>();
                            let s = s as f32;
                            if d.relu {
                                s.max(0.0)
                            } else {
                                s
                            }
                        })
                        .collect();
                    (c, h, w) = (d.outputs, 1, 1);
                    x = y;
                }
            }
            outs.push(x.clone());
        }
        outs
    }

    fn lcg(state: &mut u32) -> f32 {
        *state = state.wrapping_mul(1664525).wrapping_add(1013904223);
        (*state >> 8) as f32 / (1u32 << 24) as f32
    }

    fn random_spec(seed: u32, padding: usize, widths: &[(usize, usize)]) -> Spec {
        let mut s = seed;
        let mut r = |n: usize, scale: f32| -> Vec<f32> {
            (0..n).map(|_| (lcg(&mut s) - 0.5) * scale).collect()
        };
        let (mut c, mut h, mut w) = (3, 40, 32);
        let mut layers = Vec::new();
        for &(cout, stride) in widths {
            layers.push(LayerSpec::Conv(ConvSpec {
                cin: c,
                cout,
                kernel: [3, 3],
                stride: [stride, stride],
                pads: [padding; 4],
                weights: r(cout * c * 9, 0.6),
                bias: r(cout, 0.2),
                relu: true,
            }));
            h = (h + 2 * padding - 3) / stride + 1;
            w = (w + 2 * padding - 3) / stride + 1;
            c = cout;
        }
        let flat = c * h * w;
        layers.push(LayerSpec::Dense(DenseSpec {
            inputs: flat,
            outputs: 32,
            weights: r(32 * flat, 0.3),
            bias: r(32, 0.2),
            relu: true,
        }));
        layers.push(LayerSpec::Dense(DenseSpec {
            inputs: 32,
            outputs: 4,
            weights: r(4 * 32, 0.5),
            bias: r(4, 0.2),
            relu: false,
        }));
        let n = layers.len();
        Spec {
            input: [3, 40, 32],
            offset: if padding > 0 { -0.5 } else { 0.0 },
            layers,
            logits: n - 1,
            embedding: Some(n - 2),
        }
    }

    /// The engine against a plain reference, on every instruction set this machine
    /// has, for padded and unpadded networks of several widths, and batches that leave
    /// short tiles and short chunks.
    #[test]
    fn engine_matches_a_plain_reference() {
        let mut isas = vec![Isa::Portable];
        let best = Isa::detect();
        #[cfg(target_arch = "x86_64")]
        {
            if best == Isa::Avx512 {
                isas.push(Isa::Avx2);
            }
        }
        if best != Isa::Portable {
            isas.push(best);
        }
        let nets = [
            random_spec(1, 0, &[(12, 2), (32, 2), (32, 1), (48, 2)]),
            random_spec(2, 1, &[(12, 2), (32, 2), (32, 1), (48, 2)]),
            random_spec(3, 0, &[(5, 1), (70, 2), (17, 2)]),
        ];
        for spec in &nets {
            let mut s = 99;
            let n = 37;
            let crops: Vec<f32> = (0..n * 3840).map(|_| lcg(&mut s)).collect();
            for &isa in &isas {
                let net = DirectNet::new(spec, isa).unwrap();
                let (logits, emb) = net.run(&crops, n);
                assert_eq!(logits.len(), n * 4);
                assert_eq!(emb.len(), n * 32);
                for k in 0..n {
                    let r = reference(spec, &crops[k * 3840..(k + 1) * 3840]);
                    let (want_l, want_e) = (&r[spec.logits], &r[spec.embedding.unwrap()]);
                    for (a, b) in logits[k * 4..(k + 1) * 4].iter().zip(want_l) {
                        assert!((a - b).abs() < 1e-4 * b.abs().max(1.0), "{isa:?}: {a} {b}");
                    }
                    for (a, b) in emb[k * 32..(k + 1) * 32].iter().zip(want_e) {
                        assert!((a - b).abs() < 1e-4 * b.abs().max(1.0), "{isa:?}: {a} {b}");
                    }
                }
            }
        }
    }
}
