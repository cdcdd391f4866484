#!/usr/bin/env python3
"""Trains boardscribe's occupancy classifier and exports it to ONNX.

    python3 training/train.py --train DIR [DIR ...] --val DIR [DIR ...] \
        --out models/occupancy.onnx --epochs E --seed S [--report training/last_run.json]

Each DIR is a dataset written by `boardscribe dataset synth|real` (crops.npy,
labels.npy, meta.json); see training/README.md for the contracts.
"""

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))

from occupancy import CLASSES, EMBEDDING_DIM  # noqa: E402
from occupancy.augment import Augmenter  # noqa: E402
from occupancy.data import load, sampling_weights  # noqa: E402
from occupancy.evaluate import evaluate, to_tensor  # noqa: E402
from occupancy.export import export_onnx, verify_onnx  # noqa: E402
from occupancy.model import OccupancyNet, count_macs, count_params  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--train", nargs="+", required=True, help="training dataset folders")
    p.add_argument("--val", nargs="+", required=True, help="validation dataset folders (reported one by one)")
    p.add_argument("--out", required=True, help="ONNX file to write")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--report", help="JSON report to write")
    p.add_argument("--epoch-size", type=int, default=0, help="crops drawn per epoch (default: all training crops)")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--weight-decay", type=float, default=1e-3)
    p.add_argument("--label-smoothing", type=float, default=0.02)
    p.add_argument("--proto-weight", type=float, default=0.3, help="weight of the prototype (embedding) loss")
    p.add_argument("--class-power", type=float, default=0.5, help="0 balances classes fully, 1 keeps the natural mix")
    p.add_argument("--source-power", type=float, default=0.5, help="the same between dataset sources")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads (default 1: on a busy 2-core machine, intra-op threads on batches this small "
        "spend more time waiting for each other than computing)",
    )
    p.add_argument("--no-augment", action="store_true", help="for debugging only")
    p.add_argument("--colour-p", type=float, default=0.7, help="share of crops given colour/noise augmentation")
    p.add_argument("--blur-p", type=float, default=0.3, help="share of crops blurred")
    p.add_argument("--jpeg-p", type=float, default=0.3, help="share of crops JPEG re-encoded")
    p.add_argument("--layers", help="convolutions as OUT/STRIDE,... e.g. 12/2,32/2,32/1,48/2 (default)")
    p.add_argument("--padding", type=int, default=0, help="padding of every convolution (0, the shipped model: 3-4x faster in tract than 1; see models/README.md)")
    p.add_argument("--checkpoint", help="also save the PyTorch state dict here")
    return p.parse_args()


def parse_layers(text):
    return tuple(tuple(int(v) for v in item.split("/")) for item in text.split(","))


def model_layers(model):
    """(output channels, stride) of each convolution, for the report."""
    return [(b[0].out_channels, b[0].stride[0]) for b in model.features]


def prototype_loss(emb, y):
    """Cross-entropy of the runtime's adaptation rule applied within the batch:
    each sample is scored by squared distance to its batch's class means, scaled by
    the typical own-class distance (src/classify/adapt.rs). Training on it makes
    the embedding a space where mean-of-one-frame prototypes work, which a plain
    classifier loss does not ask for. Only the three classes a labelled frame can
    show take part."""
    mask = y < 3
    e, yy = emb[mask], y[mask]
    present = [c for c in range(3) if (yy == c).any()]
    if len(present) < 2:
        return emb.sum() * 0.0
    protos = torch.stack([e[yy == c].mean(0) for c in present])
    remap = torch.full((3,), -1, dtype=torch.long)
    remap[present] = torch.arange(len(present))
    target = remap[yy]
    d2 = torch.cdist(e, protos).pow(2)
    scale = d2.gather(1, target[:, None]).mean().detach().clamp_min(1e-6)
    return F.cross_entropy(-0.5 * d2 / scale, target)


def main():
    args = parse_args()
    t_start = time.time()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(args.seed)

    train_sets = [load(d, for_training=True) for d in args.train]
    val_sets = [load(d) for d in args.val]
    names = [d.name for d in val_sets]
    if len(set(names)) != len(names):
        raise SystemExit(f"validation folders must have distinct names (they key the report): {names}")
    overlap = {str(d.path.resolve()) for d in train_sets} & {str(d.path.resolve()) for d in val_sets}
    if overlap:
        print(f"warning: folders both trained and validated on: {sorted(overlap)}")
    for role, d in [("train", d) for d in train_sets] + [("val", d) for d in val_sets]:
        print(f"{role:5s} {d.name:24s} source={d.source:18s} crops={len(d):7d} classes={d.class_counts()}")

    crops = np.concatenate([d.crops for d in train_sets])
    labels = torch.from_numpy(np.concatenate([d.labels for d in train_sets]))
    weights = sampling_weights(train_sets, args.class_power, args.source_power)
    expected = np.bincount(labels.numpy(), weights=weights, minlength=len(CLASSES))
    print("expected class mix per batch:", {c: round(float(v), 3) for c, v in zip(CLASSES, expected)})

    layers = parse_layers(args.layers) if args.layers else None
    model = OccupancyNet(padding=args.padding, **({"layers": layers} if layers else {}))
    macs, params = count_macs(model), count_params(model)
    model = model.to(memory_format=torch.channels_last)
    print(f"model: {macs:,} multiply-adds per crop ({macs * 64 / 1e6:.1f} M per 64 crops), {params:,} parameters")

    # No weight decay on BatchNorm and biases: decaying them only fights the
    # normalisation.
    decay = [p for n, p in model.named_parameters() if p.ndim > 1]
    no_decay = [p for n, p in model.named_parameters() if p.ndim <= 1]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr,
    )
    epoch_size = args.epoch_size or len(labels)
    steps_per_epoch = max(1, epoch_size // args.batch)
    total_steps = steps_per_epoch * args.epochs
    warmup = min(200, total_steps // 20)

    def lr_at(step):
        # Short linear warm-up (BatchNorm statistics are poor at first), then cosine to ~0.
        if step < warmup:
            return args.lr * (step + 1) / warmup
        t = (step - warmup) / max(1, total_steps - warmup)
        return args.lr * 0.5 * (1 + math.cos(math.pi * t))

    augment = Augmenter(args.seed + 1, colour_p=args.colour_p, blur_p=args.blur_p, jpeg_p=args.jpeg_p)
    history = []
    step = 0
    for epoch in range(args.epochs):
        t0 = time.time()
        model.train()
        idx = rng.choice(len(labels), size=steps_per_epoch * args.batch, replace=True, p=weights)
        tot_loss = tot_proto = correct = seen = 0.0
        for s in range(steps_per_epoch):
            bi = np.sort(idx[s * args.batch : (s + 1) * args.batch])
            x = to_tensor(crops[bi])
            y = labels[bi]
            if not args.no_augment:
                x = augment(x)
            # oneDNN's convolutions run markedly faster on channels-last tensors on CPU.
            x = x.contiguous(memory_format=torch.channels_last)
            for g in opt.param_groups:
                g["lr"] = lr_at(step)
            logits, emb = model(x)
            ce = F.cross_entropy(logits, y, label_smoothing=args.label_smoothing)
            pl = prototype_loss(emb, y) if args.proto_weight > 0 else torch.zeros(())
            loss = ce + args.proto_weight * pl
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            tot_loss += ce.item() * len(y)
            tot_proto += pl.item() * len(y)
            correct += float((logits.argmax(1) == y).sum())
            seen += len(y)
        t_train = time.time() - t0
        vals = {d.name: evaluate(model, d) for d in val_sets}
        rec = {
            "epoch": epoch + 1,
            "train_loss": tot_loss / seen,
            "train_proto_loss": tot_proto / seen,
            "train_accuracy_augmented": correct / seen,
            "val_accuracy": {k: v["accuracy"] for k, v in vals.items()},
            "seconds": round(time.time() - t0, 1),
        }
        history.append(rec)
        accs = " ".join(f"{k}={v['accuracy']:.5f}({v['errors']})" for k, v in vals.items())
        print(
            f"epoch {epoch + 1:3d}/{args.epochs} loss {rec['train_loss']:.4f} proto {rec['train_proto_loss']:.4f} "
            f"train-acc {rec['train_accuracy_augmented']:.4f} | val {accs} | "
            f"{t_train:.0f}s train ({seen / t_train:.0f} crops/s), {rec['seconds']:.0f}s total",
            flush=True,
        )

    final = {d.name: evaluate(model, d) for d in val_sets}
    trained = {str(d.path.resolve()) for d in train_sets}
    for d in val_sets:
        # A real set that is both trained and validated on gives a figure of fit,
        # not of generalisation; the report says which is which.
        final[d.name]["trained_on"] = str(d.path.resolve()) in trained
    for name, v in final.items():
        note = " [also trained on]" if v["trained_on"] else ""
        print(f"\nval {name} ({v['source']}, {v['count']} crops){note}: accuracy {v['accuracy']:.5f}, {v['errors']} errors")
        print("  confusion (rows true, cols predicted: " + ", ".join(CLASSES) + ")")
        for c, row in zip(CLASSES, v["confusion"]):
            print(f"  {c:9s} " + " ".join(f"{n:7d}" for n in row))
        if "prototype_accuracy" in v:
            print(f"  embedding prototypes: {v['prototype_accuracy']:.5f}; adapted logits: {v['adapted_accuracy']:.5f}")

    if args.checkpoint:
        torch.save(model.state_dict(), args.checkpoint)
    export_onnx(model, args.out)
    # Check on real crops from the validation sets (falling back to training
    # crops), not random noise, so the comparison covers the values that matter.
    pool = np.concatenate([d.crops[:128] for d in val_sets] + [crops[:128]])[:256]
    check = verify_onnx(args.out, model, to_tensor(pool))
    print(
        f"\nexported {args.out}: {check['bytes']} bytes, opset {check['opset']}, ops {check['ops']}; "
        f"onnxruntime vs PyTorch on {check['batch']} crops: max abs diff logits {check['max_abs_diff_logits']:.2e}, "
        f"embedding {check['max_abs_diff_embedding']:.2e}; "
        f"onnxruntime 1 thread: {check['onnxruntime_1thread_ms_per_64']:.2f} ms per 64 crops"
    )

    wall = time.time() - t_start
    print(f"wall time {wall / 60:.1f} min")
    if args.report:
        by_source = {}
        for d in train_sets:
            by_source[d.source] = by_source.get(d.source, 0) + len(d)
        report = {
            "command": " ".join(sys.argv),
            "seed": args.seed,
            "epochs": args.epochs,
            "epoch_size": steps_per_epoch * args.batch,
            "batch": args.batch,
            "lr": args.lr,
            "weight_decay": args.weight_decay,
            "proto_weight": args.proto_weight,
            "class_power": args.class_power,
            "source_power": args.source_power,
            "augment": None if args.no_augment else {"colour_p": args.colour_p, "blur_p": args.blur_p, "jpeg_p": args.jpeg_p},
            "classes": list(CLASSES),
            "train_sets": [
                {"path": str(d.path), "source": d.source, "count": len(d), "class_counts": d.class_counts(), "meta": d.meta}
                for d in train_sets
            ],
            "train_count_per_source": by_source,
            "val": final,
            "model": {"layers": [list(l) for l in model_layers(model)], "padding": args.padding, "macs_per_crop": macs, "parameters": params, "embedding_dim": EMBEDDING_DIM},
            "onnx": {"path": args.out, **check},
            "history": history,
            "wall_seconds": round(wall, 1),
            "versions": {
                "python": platform.python_version(),
                "torch": torch.__version__,
                "numpy": np.__version__,
            },
            "threads": args.threads,
        }
        Path(args.report).parent.mkdir(parents=True, exist_ok=True)
        Path(args.report).write_text(json.dumps(report, indent=2) + "\n")
        print(f"report written to {args.report}")


if __name__ == "__main__":
    main()
