"""Validation figures: what the report and the model card quote."""

import numpy as np
import torch

from . import CLASSES


def to_tensor(crops_u8):
    """uint8 [B,40,32,3] (as the Rust side writes) -> float [B,3,40,32] in 0..1 (as the model reads)."""
    return torch.from_numpy(np.ascontiguousarray(crops_u8)).permute(0, 3, 1, 2).float().div_(255.0)


@torch.no_grad()
def predict(model, crops_u8, batch=1024):
    model.eval()
    logits, embs = [], []
    for i in range(0, len(crops_u8), batch):
        lo, e = model(to_tensor(crops_u8[i : i + batch]))
        logits.append(lo)
        embs.append(e)
    if not logits:
        return np.zeros((0, len(CLASSES)), np.float32), np.zeros((0, 0), np.float32)
    return torch.cat(logits).numpy(), torch.cat(embs).numpy()


def confusion(labels, pred):
    m = np.zeros((len(CLASSES), len(CLASSES)), np.int64)
    np.add.at(m, (labels, pred), 1)
    return m


def prototype_logits(emb, protos, scale):
    """The runtime's board adaptation (src/classify/adapt.rs): -0.5 * squared
    distance to each class's mean embedding, over the typical own-class distance."""
    d2 = ((emb[:, None, :] - protos[None, :, :]) ** 2).sum(-1)
    return -0.5 * d2 / scale


def evaluate(model, ds):
    logits, emb = predict(model, ds.crops)
    y = ds.labels
    pred = logits.argmax(1)
    cm = confusion(y, pred)
    out = {
        "source": ds.source,
        "count": int(len(y)),
        "accuracy": float((pred == y).mean()) if len(y) else None,
        "errors": int((pred != y).sum()),
        "confusion": cm.tolist(),  # rows: true class, columns: predicted, order CLASSES
        "recall": {c: (float(cm[i, i] / cm[i].sum()) if cm[i].sum() else None) for i, c in enumerate(CLASSES)},
    }
    # How well the embedding alone separates the classes a labelled frame shows
    # (empty, white, black), with prototypes taken from this whole set: an upper
    # bound on what adaptation can use, and a guard against an embedding that the
    # classifier reads fine but that is useless as a metric space.
    mask = y < 3
    present = [c for c in range(3) if (y == c).any()]
    if mask.any() and len(present) >= 2:
        protos = np.stack([emb[y == c].mean(0) if (y == c).any() else np.full(emb.shape[1], 1e6) for c in range(3)])
        e, yy = emb[mask], y[mask]
        scale = max(float(((e - protos[yy]) ** 2).sum(1).mean()), 1e-6)
        pl = prototype_logits(e, protos, scale)
        out["prototype_accuracy"] = float((pl.argmax(1) == yy).mean())
        # The runtime's adjusted logits with weight 1, on the three board classes.
        adj = logits[mask][:, :3] + pl
        out["adapted_accuracy"] = float((adj.argmax(1) == yy).mean())
    return out
