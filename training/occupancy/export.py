"""ONNX export in the form src/classify/model.rs loads, and a check of the file."""

import time
from pathlib import Path

import numpy as np
import torch

from . import CLASSES, CROP_H, CROP_W, EMBEDDING_DIM
from .model import folded


def export_onnx(model, path):
    """Writes the model with BatchNorm folded: input `crops` [N,3,40,32] float RGB
    0..1, outputs `logits` [N,4] and `embedding` [N,32], batch axis dynamic.
    The TorchScript exporter (dynamo=False) at opset 17 is what tract 0.23 is known
    to read; the dynamo exporter emits a graph shape tract has not been tried on."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    net = folded(model)
    dummy = torch.rand(2, 3, CROP_H, CROP_W)
    torch.onnx.export(
        net,
        (dummy,),
        str(path),
        dynamo=False,
        opset_version=17,
        input_names=["crops"],
        output_names=["logits", "embedding"],
        dynamic_axes={"crops": {0: "N"}, "logits": {0: "N"}, "embedding": {0: "N"}},
        do_constant_folding=True,
    )
    return net


def verify_onnx(path, model, crops):
    """Checks the file's structure, then compares onnxruntime with PyTorch (the
    unfolded model, so folding errors show too) on `crops` (float [B,3,40,32]).
    Returns the figures for the report; raises if the file is wrong."""
    import onnx
    import onnxruntime as ort

    m = onnx.load(str(path))
    onnx.checker.check_model(m)
    opset = max(o.version for o in m.opset_import if o.domain in ("", "ai.onnx"))
    inputs = [i.name for i in m.graph.input]
    outputs = [o.name for o in m.graph.output]
    if inputs != ["crops"] or outputs != ["logits", "embedding"] or opset != 17:
        raise RuntimeError(f"unexpected ONNX interface: inputs {inputs}, outputs {outputs}, opset {opset}")
    ops = sorted({n.op_type for n in m.graph.node})

    opts = ort.SessionOptions()
    # One thread, as tract runs: the timing below is then a rough stand-in.
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    x = crops.numpy().astype(np.float32)
    logits, emb = sess.run(["logits", "embedding"], {"crops": x})
    if logits.shape != (len(x), len(CLASSES)) or emb.shape != (len(x), EMBEDDING_DIM):
        raise RuntimeError(f"unexpected output shapes {logits.shape} {emb.shape}")
    model.eval()
    with torch.no_grad():
        t_logits, t_emb = model(crops)
    diff_logits = float(np.abs(logits - t_logits.numpy()).max())
    diff_emb = float(np.abs(emb - t_emb.numpy()).max())
    agree = float((logits.argmax(1) == t_logits.numpy().argmax(1)).mean())
    if max(diff_logits, diff_emb) > 1e-3:
        raise RuntimeError(f"ONNX and PyTorch disagree: max abs diff logits {diff_logits}, embedding {diff_emb}")

    # Batch of 64, best of several runs after a warm-up.
    x64 = np.ascontiguousarray(np.resize(x, (64, 3, CROP_H, CROP_W)))
    sess.run(None, {"crops": x64})
    best = min(_timed(lambda: sess.run(None, {"crops": x64})) for _ in range(20))
    return {
        "opset": opset,
        "ops": ops,
        "batch": len(x),
        "max_abs_diff_logits": diff_logits,
        "max_abs_diff_embedding": diff_emb,
        "argmax_agreement": agree,
        "onnxruntime_1thread_ms_per_64": round(best * 1000, 3),
        "bytes": Path(path).stat().st_size,
    }


def _timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t
