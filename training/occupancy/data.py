"""Datasets written by `boardscribe dataset ...`, and how training draws from them."""

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import CLASSES, CROP_H, CROP_W


@dataclass(eq=False)
class Dataset:
    path: Path
    name: str  # folder name: what reports call the set
    source: str  # meta.json "source": synth, chess-ray-vision, imago-go, ...
    crops: np.ndarray  # uint8 [N, 40, 32, 3]
    labels: np.ndarray  # uint8 [N]
    meta: dict

    def __len__(self):
        return len(self.labels)

    def class_counts(self):
        return np.bincount(self.labels, minlength=len(CLASSES)).tolist()


# Sets that may never shape a shipped model (see ../shared/data/README.md): refusing
# them here guards against a wrong command line, not only a wrong script.
EVALUATION_ONLY = ("bgu-chess", "bgu")


def load(path, for_training=False):
    path = Path(path)
    meta = json.loads((path / "meta.json").read_text())
    source = str(meta.get("source", "unknown"))
    if for_training and any(s in source.lower() or s in path.name.lower() for s in EVALUATION_ONLY):
        raise SystemExit(f"{path}: source '{source}' is evaluation-only and must not be trained on")
    crops = np.load(path / "crops.npy")
    labels = np.load(path / "labels.npy")
    if crops.dtype != np.uint8 or crops.shape[1:] != (CROP_H, CROP_W, 3):
        raise SystemExit(f"{path}/crops.npy: expected uint8 [N,{CROP_H},{CROP_W},3], got {crops.dtype} {crops.shape}")
    if labels.shape != (len(crops),):
        raise SystemExit(f"{path}/labels.npy: {labels.shape} labels for {len(crops)} crops")
    if len(labels) and labels.max() >= len(CLASSES):
        raise SystemExit(f"{path}/labels.npy: label {labels.max()} out of range")
    if "count" in meta and meta["count"] != len(labels):
        print(f"warning: {path}: meta.json count {meta['count']} but {len(labels)} crops")
    return Dataset(path, path.name, source, crops, labels.astype(np.int64), meta)


def sampling_weights(datasets, class_power=0.5, source_power=0.5):
    """Per-crop probabilities for drawing a training batch.

    Within a source, a class is drawn in proportion to count**class_power: 0 would
    balance fully, 1 keep the natural mix. Full balance would over-draw the rare
    occluded class and bias the model against the empty squares that dominate a
    real board; the square root is a compromise. Between sources the same rule
    (count**source_power) keeps thirteen real photos from being either drowned by
    thousands of renders or memorised by being drawn as often as all of them.
    """
    by_source = {}
    for d in datasets:
        by_source.setdefault(d.source, []).append(d)
    source_sizes = {s: sum(len(d) for d in ds) for s, ds in by_source.items()}
    source_share = {s: n ** source_power for s, n in source_sizes.items()}
    total_share = sum(source_share.values())
    weights = []
    for d in datasets:
        same = by_source[d.source]
        counts = np.sum([np.bincount(x.labels, minlength=len(CLASSES)) for x in same], axis=0).astype(float)
        class_share = np.where(counts > 0, counts**class_power, 0.0)
        class_share /= class_share.sum()
        per_crop = np.where(counts > 0, class_share / np.maximum(counts, 1), 0.0)
        weights.append(per_crop[d.labels] * source_share[d.source] / total_share)
    w = np.concatenate(weights)
    return w / w.sum()
