//! The occupancy model: an ONNX network loaded, optimised and planned once by tract,
//! then run on batches of crops, by the direct convolution engine (`direct.rs`) where
//! the file's graph is one it runs and it agrees with tract there. No tract type leaves
//! this file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tract_onnx::pb::{GraphProto, NodeProto};
use tract_onnx::prelude::*;
use tract_onnx::tensor::load_tensor;
use tract_onnx::tract_core::dims;
use tract_onnx::tract_hir::internal::DimLike;

use super::crop::{CROP_H, CROP_W};
use super::direct::{ConvSpec, DenseSpec, DirectNet, Isa, LayerSpec, Spec};

/// Classes the model tells apart, in output order.
pub(crate) const CLASSES: [&str; 4] = ["empty", "white", "black", "occluded"];

/// Why the occupancy model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// No file at this path.
    #[error("model file '{0}' does not exist (run `make model` to build it, or pass --model)")]
    Missing(PathBuf),
    /// The file is no occupancy model tract can plan: not ONNX, or not four
    /// class logits out.
    #[error("model file '{path}' is not a usable occupancy model: {why}")]
    Corrupt {
        /// The model file.
        path: PathBuf,
        /// What is wrong, one line: tract's first, or the class logits found.
        why: String,
    },
    /// Tract failed on a batch of crops: its error, in words.
    #[error("running the model: {0}")]
    Run(String),
}

/// Why the direct engine does not run a model file (tract runs it then), said in
/// [`OccupancyModel::runtime`]; also why tract's own run failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotDirect {
    #[error("{0:#}")]
    Tract(#[from] TractError),
    #[error("{0} inputs")]
    Inputs(usize),
    #[error("node '{node}' ({op}) is off the chain")]
    OffChain { node: String, op: String },
    #[error("node '{node}' ({op}) is not supported here")]
    Unsupported { node: String, op: String },
    #[error("'{0}' is not a constant")]
    NotConstant(String),
    #[error("{0} of a non-scalar")]
    NonScalar(String),
    #[error("layer {0}: {1} input channels, {2} given")]
    Channels(usize, usize, usize),
    #[error("layer {0}: kernel does not fit its input")]
    KernelTooLarge(usize),
    #[error("layer {0}: {1} inputs, {2} given")]
    DenseInputs(usize, usize, usize),
    #[error("layer {0}: bias or weights of the wrong size")]
    WeightSizes(usize),
    #[error("layer {0}: output does not match the next input")]
    OutputShape(usize),
    /// A graph or output the engine does not take, in words.
    #[error("{0}")]
    Shape(&'static str),
    #[error("the engine reads other outputs than tract")]
    OtherOutputs,
    #[error("the engine disagrees with tract on this file")]
    Disagrees,
}

type Plan = Arc<TypedRunnableModel>;

/// Which code runs the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// The direct convolution engine (`direct.rs`) where the file is a chain of
    /// convolutions and fully connected layers and the engine agrees with tract on it
    /// at load; tract's plan otherwise. The default.
    Direct,
    /// Tract's optimised plan, always.
    Tract,
}

/// Crops per run of tract's plan: its patch copying slows down per crop on larger
/// batches (a batch of 8 took 0.09 ms a crop, one of 64 0.17 ms; models/README.md).
const TRACT_BATCH: usize = 8;

/// A planned occupancy network. Input: crops of `CROP_W` x `CROP_H` RGB floats in 0..1,
/// planar. Outputs: class logits, and (when the file has it) an embedding used to
/// adapt to the user's board.
pub struct OccupancyModel {
    plan: Plan,
    direct: Option<DirectNet>,
    /// What runs, in words (and why tract, where the engine was not taken).
    runtime: String,
    path: PathBuf,
    embedding_dim: Option<usize>,
}

/// One crop's reading: probabilities of empty / white / black / occluded, and the
/// embedding when the model exports one.
#[derive(Clone, Debug, PartialEq)]
pub struct RawReading {
    /// Logits of empty, white, black, occluded.
    pub logits: [f32; 4],
    /// The crop's embedding (empty when the model has none).
    pub embedding: Vec<f32>,
}

impl OccupancyModel {
    /// Loads and plans the model; the direct engine runs it where it can
    /// ([`Runtime::Direct`]).
    pub fn load(path: &Path) -> Result<OccupancyModel, ModelError> {
        OccupancyModel::load_with(path, Runtime::Direct)
    }

    /// Loads and plans the model, run by `runtime`.
    pub fn load_with(path: &Path, runtime: Runtime) -> Result<OccupancyModel, ModelError> {
        if !path.exists() {
            return Err(ModelError::Missing(path.to_path_buf()));
        }
        let corrupt = |e: TractError| ModelError::Corrupt {
            path: path.to_path_buf(),
            why: format!("{e:#}").lines().next().unwrap_or("").to_string(),
        };
        let model = tract_onnx::onnx().model_for_path(path).map_err(corrupt)?;
        let n = model.sym("N");
        let model = model
            .with_input_fact(
                0,
                f32::fact(dims!(n, 3, CROP_H as usize, CROP_W as usize)).into(),
            )
            .map_err(corrupt)?;
        let typed = model.into_optimized().map_err(corrupt)?;
        let outputs = typed.output_outlets().map_err(corrupt)?.len();
        let embedding_dim = if outputs >= 2 {
            let fact = typed.output_fact(1).map_err(corrupt)?;
            fact.shape.iter().last().and_then(|d| d.to_usize().ok())
        } else {
            None
        };
        let logits_fact = typed.output_fact(0).map_err(corrupt)?;
        let classes = logits_fact
            .shape
            .iter()
            .last()
            .and_then(|d| d.to_usize().ok());
        if classes != Some(CLASSES.len()) {
            return Err(ModelError::Corrupt {
                path: path.to_path_buf(),
                why: format!("expected {} class logits, found {classes:?}", CLASSES.len()),
            });
        }
        let plan = typed.into_runnable().map_err(corrupt)?;
        let mut m = OccupancyModel {
            plan,
            direct: None,
            runtime: "tract".into(),
            path: path.to_path_buf(),
            embedding_dim,
        };
        if runtime == Runtime::Direct {
            match m.direct_engine() {
                Ok(net) => {
                    m.runtime = format!("direct convolutions ({})", net.isa().name());
                    m.direct = Some(net);
                }
                Err(why) => m.runtime = format!("tract ({why})"),
            }
        }
        Ok(m)
    }

    /// What runs the network, in words: the direct engine and its instruction set, or
    /// tract and why.
    pub fn runtime(&self) -> &str {
        &self.runtime
    }

    /// The engine for this file, once it has given tract's outputs on a few fixed crops.
    fn direct_engine(&self) -> Result<DirectNet, NotDirect> {
        let spec = read_spec(&self.path)?;
        let net = DirectNet::new(&spec, Isa::detect())?;
        if net.classes() != CLASSES.len() || net.embedding_dim() != self.embedding_dim {
            return Err(NotDirect::OtherOutputs);
        }
        let probe = probe_crops();
        let n = probe.len() / crop_len();
        let (logits, emb) = net.run(&probe, n);
        let (want_l, want_e) = self.run_tract(&probe, n)?;
        let close = |a: &[f32], b: &[f32]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| (x - y).abs() <= 1e-4 * y.abs().max(1.0))
        };
        if !close(&logits, &want_l) || !close(&emb, &want_e) {
            return Err(NotDirect::Disagrees);
        }
        Ok(net)
    }

    /// Runs the model on `crops` (n crops, planar RGB, back to back).
    pub fn run(&self, crops: &[f32]) -> Result<Vec<RawReading>, ModelError> {
        let per = crop_len();
        let n = crops.len() / per;
        if n == 0 {
            return Ok(Vec::new());
        }
        let (logits, emb) = match &self.direct {
            Some(net) => net.run(&crops[..n * per], n),
            None => self
                .run_tract(&crops[..n * per], n)
                .map_err(|e| ModelError::Run(e.to_string()))?,
        };
        let d = self.embedding_dim.unwrap_or(0);
        Ok((0..n)
            .map(|i| RawReading {
                logits: [
                    logits[4 * i],
                    logits[4 * i + 1],
                    logits[4 * i + 2],
                    logits[4 * i + 3],
                ],
                embedding: if emb.len() >= (i + 1) * d {
                    emb[i * d..(i + 1) * d].to_vec()
                } else {
                    Vec::new()
                },
            })
            .collect())
    }

    /// Tract's plan on `n` crops, `TRACT_BATCH` at a time: logits and embeddings back
    /// to back (no embeddings where the model has none).
    fn run_tract(&self, crops: &[f32], n: usize) -> Result<(Vec<f32>, Vec<f32>), NotDirect> {
        let per = crop_len();
        let mut logits = Vec::with_capacity(n * CLASSES.len());
        let mut emb = Vec::new();
        for start in (0..n).step_by(TRACT_BATCH) {
            let m = TRACT_BATCH.min(n - start);
            let input = Tensor::from_shape(
                &[m, 3, CROP_H as usize, CROP_W as usize],
                &crops[start * per..(start + m) * per],
            )?;
            let out = self.plan.run(tvec!(input.into_tvalue()))?;
            let l = out[0].to_plain_array_view::<f32>()?;
            logits.extend_from_slice(
                l.as_slice()
                    .ok_or(NotDirect::Shape("logits are not contiguous"))?,
            );
            if let (Some(_), Some(t)) = (self.embedding_dim, out.get(1)) {
                let e = t.to_plain_array_view::<f32>()?;
                emb.extend_from_slice(
                    e.as_slice()
                        .ok_or(NotDirect::Shape("embedding is not contiguous"))?,
                );
            }
        }
        Ok((logits, emb))
    }
}

fn crop_len() -> usize {
    3 * (CROP_W * CROP_H) as usize
}

/// Fixed crops the engine is checked on at load: noise, black, white and a gradient.
fn probe_crops() -> Vec<f32> {
    let per = crop_len();
    let mut s = 12345u32;
    let mut v = Vec::with_capacity(per * 6);
    for _ in 0..3 * per {
        s = s.wrapping_mul(1664525).wrapping_add(1013904223);
        v.push((s >> 8) as f32 / (1u32 << 24) as f32);
    }
    v.extend(std::iter::repeat_n(0.0, per));
    v.extend(std::iter::repeat_n(1.0, per));
    v.extend((0..per).map(|i| (i % 97) as f32 / 96.0));
    v
}

/// The network as the direct engine reads it, from the ONNX graph: a chain starting at
/// the one input, optionally a constant added or subtracted, convolutions (group 1,
/// no dilation, explicit padding) each optionally followed by a ReLU, a flatten, then
/// Gemm layers (alpha = beta = 1) each optionally followed by a ReLU; logits and the
/// embedding the outputs of Gemm layers (after their ReLU if they have one). Anything
/// else is refused, with the reason, and tract runs the file.
fn read_spec(path: &Path) -> Result<Spec, NotDirect> {
    let onnx = tract_onnx::onnx();
    let proto = onnx.proto_model_for_path(path)?;
    let graph = proto.graph.as_ref().ok_or(NotDirect::Shape("no graph"))?;
    let dir = path.parent().and_then(|p| p.to_str());
    let consts = Consts::load(&onnx, graph, dir)?;
    let inputs: Vec<&str> = graph
        .input
        .iter()
        .map(|i| i.name.as_str())
        .filter(|n| !consts.map.contains_key(n))
        .collect();
    let [input] = inputs[..] else {
        return Err(NotDirect::Inputs(inputs.len()));
    };
    let outputs: Vec<&str> = graph.output.iter().map(|o| o.name.as_str()).collect();
    let mut chain = Chain::new(input);
    for node in &graph.node {
        if node.op_type == "Constant" {
            continue;
        }
        chain.step(node, &consts, &outputs)?;
    }
    chain.finish(&outputs)
}

/// The graph's constant values (initializers and Constant nodes), by name.
struct Consts<'g> {
    map: HashMap<&'g str, Tensor>,
}

impl<'g> Consts<'g> {
    fn load(
        onnx: &tract_onnx::Onnx,
        graph: &'g GraphProto,
        dir: Option<&str>,
    ) -> Result<Self, NotDirect> {
        let mut map: HashMap<&str, Tensor> = HashMap::new();
        for t in &graph.initializer {
            let tensor = load_tensor(&*onnx.provider, t, dir)?;
            map.insert(t.name.as_str(), tensor);
        }
        for node in graph.node.iter().filter(|n| n.op_type == "Constant") {
            let t: &tract_onnx::pb::TensorProto = node.get_attr("value")?;
            let tensor = load_tensor(&*onnx.provider, t, dir)?;
            map.insert(node.output[0].as_str(), tensor);
        }
        Ok(Consts { map })
    }

    /// The constant `name`'s values as floats, in order.
    fn floats(&self, name: &str) -> Result<Vec<f32>, NotDirect> {
        let t = self
            .map
            .get(name)
            .ok_or_else(|| NotDirect::NotConstant(name.to_string()))?;
        let t = t.cast_to::<f32>()?;
        let a = t.to_plain_array_view::<f32>()?;
        Ok(a.iter().copied().collect())
    }

    /// The constant `name`'s shape, where it is one.
    fn shape(&self, name: &str) -> Option<Vec<usize>> {
        self.map.get(name).map(|t| t.shape().to_vec())
    }

    /// The bias a layer with `outs` outputs reads from its third input: zeros when it
    /// has none.
    fn bias(&self, node: &NodeProto, outs: usize) -> Result<Vec<f32>, NotDirect> {
        match node.input.get(2).filter(|b| !b.is_empty()) {
            Some(b) => self.floats(b),
            None => Ok(vec![0.0; outs]),
        }
    }
}

/// An integer list attribute, where the node has it.
fn attr_ints(node: &NodeProto, attr: &str) -> Result<Option<Vec<i64>>, NotDirect> {
    Ok(node.get_attr_opt_vec::<i64>(attr)?)
}

/// An integer attribute, `default` when absent.
fn attr_int(node: &NodeProto, attr: &str, default: i64) -> Result<i64, NotDirect> {
    Ok(node.get_attr_opt::<i64>(attr)?.unwrap_or(default))
}

/// A float attribute, 1 when absent (Gemm's alpha and beta).
fn attr_float(node: &NodeProto, attr: &str) -> Result<f32, NotDirect> {
    Ok(node.get_attr_opt::<f32>(attr)?.unwrap_or(1.0))
}

/// The chain as read so far: the spec, the value the chain has reached, the value each
/// layer ends in, whether the map has been flattened, and the map's size there.
struct Chain {
    spec: Spec,
    cur: String,
    ends: Vec<String>,
    flat: bool,
    c: usize,
    h: usize,
    w: usize,
}

impl Chain {
    fn new(input: &str) -> Chain {
        Chain {
            spec: Spec {
                input: [3, CROP_H as usize, CROP_W as usize],
                offset: 0.0,
                layers: Vec::new(),
                logits: usize::MAX,
                embedding: None,
            },
            cur: input.to_string(),
            ends: Vec::new(),
            flat: false,
            c: 3,
            h: CROP_H as usize,
            w: CROP_W as usize,
        }
    }

    /// Reads one node (not a Constant) of the graph, which must go on from the value
    /// the chain has reached.
    fn step(
        &mut self,
        node: &NodeProto,
        consts: &Consts,
        outputs: &[&str],
    ) -> Result<(), NotDirect> {
        let op = node.op_type.as_str();
        if node.input.first().map(String::as_str) != Some(self.cur.as_str())
            || node.output.len() != 1
        {
            return Err(NotDirect::OffChain {
                node: node.name.clone(),
                op: op.to_string(),
            });
        }
        let relu_ok = matches!(
            self.spec.layers.last(),
            Some(LayerSpec::Conv(ConvSpec { relu: false, .. }))
                | Some(LayerSpec::Dense(DenseSpec { relu: false, .. }))
        ) && self.ends.last() == Some(&self.cur)
            && !outputs.contains(&self.cur.as_str());
        match op {
            "Sub" | "Add" if self.spec.layers.is_empty() && !self.flat => {
                let v = consts.floats(&node.input[1])?;
                let [v] = v[..] else {
                    return Err(NotDirect::NonScalar(op.to_string()));
                };
                self.spec.offset += if op == "Sub" { -v } else { v };
            }
            "Conv" if !self.flat => self.conv(node, consts)?,
            "Relu" if relu_ok => {
                match self.spec.layers.last_mut() {
                    Some(LayerSpec::Conv(cv)) => cv.relu = true,
                    Some(LayerSpec::Dense(d)) => d.relu = true,
                    None => return Err(NotDirect::Shape("a ReLU before any layer")),
                }
                if let Some(end) = self.ends.last_mut() {
                    *end = node.output[0].clone();
                }
            }
            "Flatten" if !self.flat && attr_int(node, "axis", 1)? == 1 => self.flat = true,
            "Gemm" if self.flat => self.gemm(node, consts)?,
            _ => {
                return Err(NotDirect::Unsupported {
                    node: node.name.clone(),
                    op: op.to_string(),
                })
            }
        }
        self.cur = node.output[0].clone();
        Ok(())
    }

    /// A convolution: its weights `[cout][cin][kh][kw]`, strides and pads.
    fn conv(&mut self, node: &NodeProto, consts: &Consts) -> Result<(), NotDirect> {
        let wshape = consts
            .shape(&node.input[1])
            .ok_or(NotDirect::Shape("conv weights are not constant"))?;
        let &[cout, cin, kh, kw] = &wshape[..] else {
            return Err(NotDirect::Shape("not a 2-D convolution"));
        };
        let group = attr_int(node, "group", 1)?;
        let dil = attr_ints(node, "dilations")?.unwrap_or(vec![1, 1]);
        let auto = node.get_attr_opt::<&str>("auto_pad")?.unwrap_or("NOTSET");
        if group != 1 || dil.iter().any(|&d| d != 1) || !matches!(auto, "NOTSET" | "VALID") {
            return Err(NotDirect::Shape(
                "grouped, dilated or auto-padded convolution",
            ));
        }
        let st = attr_ints(node, "strides")?.unwrap_or(vec![1, 1]);
        let pads = attr_ints(node, "pads")?.unwrap_or(vec![0; 4]);
        let (&[sh, sw], &[pt, pl, pb, pr]) = (&st[..], &pads[..]) else {
            return Err(NotDirect::Shape(
                "strides or pads of a 2-D convolution expected",
            ));
        };
        if [sh, sw, pt, pl, pb, pr].iter().any(|&v| v < 0) || cin != self.c {
            return Err(NotDirect::Shape(
                "negative strides or pads, or channels that do not chain",
            ));
        }
        let bias = consts.bias(node, cout)?;
        let u = |v: i64| v as usize;
        let (ph, pw) = (self.h + u(pt) + u(pb), self.w + u(pl) + u(pr));
        if kh > ph || kw > pw || sh == 0 || sw == 0 {
            return Err(NotDirect::Shape("a kernel larger than its input"));
        }
        (self.c, self.h, self.w) = (cout, (ph - kh) / u(sh) + 1, (pw - kw) / u(sw) + 1);
        self.spec.layers.push(LayerSpec::Conv(ConvSpec {
            cin,
            cout,
            kernel: [kh, kw],
            stride: [u(sh), u(sw)],
            pads: [u(pt), u(pl), u(pb), u(pr)],
            weights: consts.floats(&node.input[1])?,
            bias,
            relu: false,
        }));
        self.ends.push(node.output[0].clone());
        Ok(())
    }

    /// A fully connected layer on the flattened map; its weights are kept
    /// `[outputs][inputs]` whichever way the file stores them.
    fn gemm(&mut self, node: &NodeProto, consts: &Consts) -> Result<(), NotDirect> {
        let (ta, tb) = (attr_int(node, "transA", 0)?, attr_int(node, "transB", 0)?);
        if ta != 0 || attr_float(node, "alpha")? != 1.0 || attr_float(node, "beta")? != 1.0 {
            return Err(NotDirect::Shape("a Gemm with transA, alpha or beta"));
        }
        let wshape = consts
            .shape(&node.input[1])
            .ok_or(NotDirect::Shape("Gemm weights are not constant"))?;
        let &[a, b] = &wshape[..] else {
            return Err(NotDirect::Shape("Gemm weights are not a matrix"));
        };
        let (outs, ins) = if tb == 1 { (a, b) } else { (b, a) };
        if ins != self.c * self.h * self.w {
            return Err(NotDirect::Shape("a Gemm whose inputs do not chain"));
        }
        let mut weights = consts.floats(&node.input[1])?;
        if tb == 0 {
            weights = (0..outs * ins)
                .map(|i| weights[(i % ins) * outs + i / ins])
                .collect();
        }
        let bias = consts.bias(node, outs)?;
        if bias.len() != outs {
            return Err(NotDirect::Shape("a Gemm bias that is not one per output"));
        }
        (self.c, self.h, self.w) = (outs, 1, 1);
        self.spec.layers.push(LayerSpec::Dense(DenseSpec {
            inputs: ins,
            outputs: outs,
            weights,
            bias,
            relu: false,
        }));
        self.ends.push(node.output[0].clone());
        Ok(())
    }

    /// The spec, once the graph's outputs are found among the layers' ends.
    fn finish(mut self, outputs: &[&str]) -> Result<Spec, NotDirect> {
        let layer_of = |name: &str| self.ends.iter().position(|e| e == name);
        self.spec.logits = outputs
            .first()
            .and_then(|o| layer_of(o))
            .ok_or(NotDirect::Shape("the logits are not a layer's output"))?;
        if let Some(e) = outputs.get(1) {
            self.spec.embedding =
                Some(layer_of(e).ok_or(NotDirect::Shape("the embedding is not a layer's output"))?);
        }
        if outputs.len() > 2 {
            return Err(NotDirect::Shape("more than two outputs"));
        }
        Ok(self.spec)
    }
}

/// Softmax over logits.
pub(crate) fn softmax(logits: &[f32; 4]) -> [f32; 4] {
    let m = logits.iter().cloned().fold(f32::MIN, f32::max);
    let e = logits.map(|l| (l - m).exp());
    let s: f32 = e.iter().sum();
    e.map(|v| v / s)
}
