#!/usr/bin/env python3
"""onnxruntime's time on the crops `boardscribe bench --what classify` hands it: the
reference the bench prints its ratios against (issue 23). One intra-op thread, thread CPU
time, the median of the given number of runs after one warm-up. Prints one JSON object:
version, median_ms, and the outputs (for the bench to report how far the Rust runtimes
are from them).

    python3 tests/tools/ort_bench.py MODEL CROPS_F32 N RUNS

CROPS_F32: N crops of float32 [3, 40, 32], little-endian, back to back. The bench embeds
this file and runs it with `python3 -`; it is not part of the product.
"""

import json
import sys
import time

import numpy as np
import onnxruntime as ort


def main():
    model, path, n, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    x = np.fromfile(path, dtype="<f4").reshape(n, 3, 40, 32)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    feed = {sess.get_inputs()[0].name: x}
    outs = sess.run(None, feed)
    times = []
    for _ in range(max(runs, 1)):
        t = time.thread_time()
        sess.run(None, feed)
        times.append((time.thread_time() - t) * 1000.0)
    print(
        json.dumps(
            {
                "version": ort.__version__,
                "median_ms": float(np.median(times)),
                "logits": outs[0].reshape(-1).tolist(),
                "embedding": outs[1].reshape(-1).tolist() if len(outs) > 1 else [],
            }
        )
    )


if __name__ == "__main__":
    main()
