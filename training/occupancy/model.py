"""The occupancy network, and what is needed to count and export it."""

import copy

import torch
from torch import nn
import torch.nn.functional as F

from . import CLASSES, CROP_H, CROP_W, EMBEDDING_DIM


def conv_bn(cin, cout, stride, padding):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride=stride, padding=padding, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class OccupancyNet(nn.Module):
    """Four 3x3 convolutions down to a 5x4 map, then a small head.

    The budget is tract on one core: 64 crops in 5 ms. Striding early spends it where
    the features are rich rather than on full-resolution pixels (a cell is 16 px; a
    piece is never a few-pixel detail). `padding=0` (unpadded convolutions, a 3x2 map)
    runs 3-4x faster in tract, whose padded im2col costs more than the multiply-adds,
    but the one trained that way misread light-wood pieces on dark squares in the demo
    clip (models/README.md, Speed), so the shipped model keeps padding 1.

    The head flattens the last map instead of pooling it globally: where something
    is in the crop matters (the site's own cell is at a fixed place, a neighbour's
    piece leaning in from below is not this site's piece), and a global average
    would throw that away.

    The embedding is the ReLU output that feeds the final linear layer directly,
    so the classes are (nearly) linearly separable there; the runtime's board
    adaptation (src/classify/adapt.rs) builds per-class mean embeddings from one
    labelled frame and scores squared Euclidean distances to them.
    """

    def __init__(self, layers=((12, 2), (32, 2), (32, 1), (48, 2)), dropout=0.1, padding=1):
        """layers: (output channels, stride) of each 3x3 convolution; padding: of all."""
        super().__init__()
        self.padding = padding
        blocks, cin = [], 3
        for cout, stride in layers:
            blocks.append(conv_bn(cin, cout, stride, padding))
            cin = cout
        self.features = nn.Sequential(*blocks)
        with torch.no_grad():
            flat = self.features(torch.zeros(1, 3, CROP_H, CROP_W)).numel()
        self.dropout = nn.Dropout(dropout)
        self.embed = nn.Linear(flat, EMBEDDING_DIM, bias=False)
        self.embed_bn = nn.BatchNorm1d(EMBEDDING_DIM)
        self.classify = nn.Linear(EMBEDDING_DIM, len(CLASSES))

    def forward(self, x):
        """x: float [N, 3, 40, 32] RGB in 0..1. Returns (logits [N, 4], embedding [N, 32])."""
        x = self.features(x - 0.5)
        x = torch.flatten(x, 1)
        e = F.relu(self.embed_bn(self.embed(self.dropout(x))))
        return self.classify(e), e


def count_macs(model):
    """Multiply-adds of one crop through the convolutions and linear layers."""
    macs = 0

    def conv_hook(m, _inp, out):
        nonlocal macs
        k = m.kernel_size[0] * m.kernel_size[1] * m.in_channels // m.groups
        macs += out.shape[1] * out.shape[2] * out.shape[3] * k

    def linear_hook(m, _inp, _out):
        nonlocal macs
        macs += m.in_features * m.out_features

    hooks = []
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            hooks.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            hooks.append(m.register_forward_hook(linear_hook))
    was_training = model.training
    model.eval()
    with torch.no_grad():
        model(torch.zeros(1, 3, CROP_H, CROP_W))
    model.train(was_training)
    for h in hooks:
        h.remove()
    return macs


def count_params(model):
    return sum(p.numel() for p in model.parameters())


class _Folded(nn.Module):
    """Inference-only copy with every BatchNorm folded into the layer before it,
    so the exported graph is only Conv/Relu/Flatten/Gemm: fewer nodes for tract to
    plan and nothing that behaves differently between train and eval. Without
    padding, the input offset (x - 0.5) is folded into the first convolution's bias
    too (exact: every tap sees a real pixel), which spares tract a pass over the input."""

    def __init__(self, model):
        super().__init__()
        m = copy.deepcopy(model).eval()
        layers = []
        for block in m.features:
            conv, bn = block[0], block[1]
            layers += [torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn), nn.ReLU()]
        self.offset = 0.5
        if m.padding == 0:
            first = layers[0]
            with torch.no_grad():
                first.bias -= 0.5 * first.weight.sum(dim=(1, 2, 3))
            self.offset = 0.0
        self.features = nn.Sequential(*layers)
        self.embed = fuse_linear_bn(m.embed, m.embed_bn)
        self.classify = m.classify

    def forward(self, x):
        if self.offset:
            x = x - self.offset
        x = self.features(x)
        e = F.relu(self.embed(torch.flatten(x, 1)))
        return self.classify(e), e


def fuse_linear_bn(linear, bn):
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    fused = nn.Linear(linear.in_features, linear.out_features, bias=True)
    with torch.no_grad():
        fused.weight.copy_(linear.weight * scale[:, None])
        bias = linear.bias if linear.bias is not None else torch.zeros_like(bn.running_mean)
        fused.bias.copy_((bias - bn.running_mean) * scale + bn.bias)
    return fused


def folded(model):
    return _Folded(model).eval()
