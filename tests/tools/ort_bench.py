#!/usr/bin/env python3
"""onnxruntime's time on the crops `boardscribe bench --what classify` hands it: the
reference the bench prints its ratios against (issue 23). One intra-op thread, thread CPU
time per run.

    python3 tests/tools/ort_bench.py MODEL CROPS_F32 N

CROPS_F32: N crops of float32 [3, 40, 32], little-endian, back to back. Then it answers
lines on stdin, one JSON line each, so that the bench can interleave its own runs with
these (the machines here are shared; load drifts within seconds):

    outputs   -> {"version": ..., "logits": [...], "embedding": [...]}
    time R    -> {"ms": [R times, in ms]}  (after one warm-up run at the start)
    quit

The bench embeds this file and runs it with `python3 -c`; it is not part of the product.
"""

import json
import sys
import time

import numpy as np
import onnxruntime as ort


def main():
    model, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    x = np.fromfile(path, dtype="<f4").reshape(n, 3, 40, 32)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    feed = {sess.get_inputs()[0].name: x}
    outs = sess.run(None, feed)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd or cmd[0] == "quit":
            break
        if cmd[0] == "outputs":
            reply = {
                "version": ort.__version__,
                "logits": outs[0].reshape(-1).tolist(),
                "embedding": outs[1].reshape(-1).tolist() if len(outs) > 1 else [],
            }
        elif cmd[0] == "time":
            times = []
            for _ in range(int(cmd[1])):
                t = time.thread_time()
                sess.run(None, feed)
                times.append((time.thread_time() - t) * 1000.0)
            reply = {"ms": times}
        else:
            reply = {"error": f"unknown command {cmd[0]}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
