#!/usr/bin/env python3
"""Writes tests/data/ort_reference.json: onnxruntime's outputs for a few fixed crops, which
the integration test `classify_agrees_with_onnxruntime` (tests/it/classify.rs) checks the
Rust runtimes against (within 1e-4).

Run it again whenever models/occupancy.onnx changes (the test names the model it was made
for by an FNV-1a hash and says so when they differ):

    python3 tests/tools/ort_reference.py [--model models/occupancy.onnx] [--out tests/data/ort_reference.json]

Needs numpy and onnxruntime (pip install onnxruntime); the product never does. The crops
are generated, not stored: the same generator is written in the test (`reference_crop`).
"""

import argparse
import json
import os
import sys

import numpy as np
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
C, H, W = 3, 40, 32

# What each crop is: noise from a seed, one grey level, or a gradient pattern.
CROPS = [
    {"kind": "noise", "seed": 1},
    {"kind": "noise", "seed": 2},
    {"kind": "noise", "seed": 3},
    {"kind": "flat", "value": 0.0},
    {"kind": "flat", "value": 1.0},
    {"kind": "flat", "value": 0.5},
    {"kind": "pattern", "seed": 4},
    {"kind": "pattern", "seed": 5},
]


def lcg(seed, n):
    """The generator the test repeats: s = s * 1664525 + 1013904223 (mod 2^32), each value
    the top 24 bits over 2^24 (exact in float32)."""
    out = np.empty(n, dtype=np.float32)
    s = seed & 0xFFFFFFFF
    for i in range(n):
        s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
        out[i] = (s >> 8) / float(1 << 24)
    return out


def crop(spec):
    n = C * H * W
    if spec["kind"] == "noise":
        return lcg(spec["seed"], n)
    if spec["kind"] == "flat":
        return np.full(n, spec["value"], dtype=np.float32)
    # A piece-like blob on a square: a disc of one colour on a background of another,
    # both drawn from the seed, with a little noise; shapes the model reads as pieces.
    r = lcg(spec["seed"], 8 + n)
    bg, fg = r[0:3], r[3:6]
    # Centres on half pixels, so the disc's edge is exact in any precision.
    cy = 14.5 + float(np.floor(np.float32(12) * r[6]))
    cx = 10.5 + float(np.floor(np.float32(12) * r[7]))
    noise = r[8:].reshape(C, H, W)
    ys, xs = np.mgrid[0:H, 0:W]
    inside = ((ys - cy) ** 2 + (xs - cx) ** 2) < 81.0
    out = np.where(inside[None], fg[:, None, None], bg[:, None, None]) + np.float32(0.1) * (
        noise - np.float32(0.5)
    )
    return np.clip(out, 0.0, 1.0).astype(np.float32).reshape(-1)


def fnv1a64(path):
    h = 0xCBF29CE484222325
    with open(path, "rb") as f:
        for b in f.read():
            h ^= b
            h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "occupancy.onnx"))
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "ort_reference.json"))
    a = ap.parse_args()
    x = np.stack([crop(s) for s in CROPS]).reshape(len(CROPS), C, H, W)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
    outs = sess.run(None, {sess.get_inputs()[0].name: x})
    logits = outs[0]
    emb = outs[1] if len(outs) > 1 else np.zeros((len(CROPS), 0), np.float32)
    doc = {
        "about": "onnxruntime's outputs for generated crops; written by tests/tools/ort_reference.py",
        "model_fnv1a64": fnv1a64(a.model),
        "onnxruntime": ort.__version__,
        "crops": CROPS,
        "logits": [[float(v) for v in row] for row in logits],
        "embedding": [[float(v) for v in row] for row in emb],
    }
    # One line per crop's outputs: small diffs when the model changes.
    lines = ["{"]
    for i, (k, v) in enumerate(doc.items()):
        end = "," if i + 1 < len(doc) else ""
        if isinstance(v, list):
            rows = ",\n  ".join(json.dumps(r) for r in v)
            lines.append(f" {json.dumps(k)}: [\n  {rows}\n ]{end}")
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v)}{end}")
    lines.append("}")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    json.loads(open(a.out).read())
    print(f"wrote {a.out}: {len(CROPS)} crops, model {doc['model_fnv1a64']}", file=sys.stderr)


if __name__ == "__main__":
    main()
