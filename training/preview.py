#!/usr/bin/env python3
"""Writes a PNG contact sheet of a dataset's crops, raw and augmented, to check by eye
that the labels are right and that the augmentation stays plausible.

    python3 training/preview.py DIR --out /tmp/preview.png [--count 48] [--seed 0]

Rows alternate: a row of crops as stored, then the same crops augmented. The
border colour is the label: grey empty, white white, black black, red occluded.
"""

import argparse
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))

from occupancy.augment import Augmenter  # noqa: E402
from occupancy.data import load  # noqa: E402
from occupancy.evaluate import to_tensor  # noqa: E402

BORDER = {0: (128, 128, 128), 1: (255, 255, 255), 2: (0, 0, 0), 3: (255, 0, 0)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dataset")
    p.add_argument("--out", required=True)
    p.add_argument("--count", type=int, default=48)
    p.add_argument("--per-row", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scale", type=int, default=3)
    args = p.parse_args()

    ds = load(args.dataset)
    rng = np.random.default_rng(args.seed)
    # An even mix of the classes present, so rare ones show up.
    idx = []
    present = [c for c in range(4) if (ds.labels == c).any()]
    for i in range(args.count):
        c = present[i % len(present)]
        idx.append(rng.choice(np.nonzero(ds.labels == c)[0]))
    idx = np.array(idx)
    raw = ds.crops[idx]
    aug = (Augmenter(args.seed)(to_tensor(raw)).permute(0, 2, 3, 1).numpy() * 255 + 0.5).astype(np.uint8)

    h, w, b = raw.shape[1], raw.shape[2], 2
    per = args.per_row
    rows = (len(idx) + per - 1) // per
    sheet = np.full((rows * 2 * (h + 2 * b), per * (w + 2 * b), 3), 60, np.uint8)
    for i, k in enumerate(idx):
        r, c = divmod(i, per)
        for j, img in enumerate((raw[i], aug[i])):
            y0, x0 = (2 * r + j) * (h + 2 * b), c * (w + 2 * b)
            sheet[y0 : y0 + h + 2 * b, x0 : x0 + w + 2 * b] = BORDER[int(ds.labels[k])]
            sheet[y0 + b : y0 + b + h, x0 + b : x0 + b + w] = img
    im = Image.fromarray(sheet)
    im = im.resize((im.width * args.scale, im.height * args.scale), Image.NEAREST)
    im.save(args.out)
    print(f"wrote {args.out}: {len(idx)} crops of {ds.name} ({ds.source}), raw and augmented")


if __name__ == "__main__":
    main()
