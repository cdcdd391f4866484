"""On-the-fly augmentation of a batch of crops.

Renders are clean; real photos are not. Every sample is pushed through a rough
camera: a slightly wrong rectification (shift, scale, tilt), a different light and
white balance, optics blur, sensor noise, and JPEG. The strengths are set so that
the result still looks like a plausible photo, not so that the class is destroyed.
Everything is batched in torch except JPEG, which only Pillow can do.

Randomness comes from one torch.Generator and one numpy Generator owned by the
augmenter, so a run is reproducible given its seed.
"""

import io
import math

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from . import CROP_H, CROP_W


class Augmenter:
    def __init__(
        self,
        seed,
        shift_px=2.0,
        scale=0.06,
        rotate_deg=3.0,
        hflip=0.3,
        blur_p=0.4,
        jpeg_p=0.35,
        jpeg_quality=(20, 90),
        noise_max=0.05,
        colour_p=1.0,
    ):
        self.g = torch.Generator().manual_seed(seed)
        self.rng = np.random.default_rng(seed)
        self.shift_px = shift_px
        self.scale = scale
        self.rotate = math.radians(rotate_deg)
        self.hflip = hflip
        self.blur_p = blur_p
        self.jpeg_p = jpeg_p
        self.jpeg_quality = jpeg_quality
        self.noise_max = noise_max
        self.colour_p = colour_p

    def _u(self, n, lo, hi):
        return torch.rand(n, generator=self.g) * (hi - lo) + lo

    def __call__(self, x):
        """x: float [B, 3, 40, 32] in 0..1 -> augmented copy, same shape and range."""
        x = self.geometry(x)
        x = self.colour(x)
        x = self.blur(x)
        x = self.noise(x)
        x = x.clamp(0.0, 1.0)
        return self.jpeg(x)

    def geometry(self, x):
        # The corners a user clicks, or the detector finds, are a pixel or two off,
        # and the cell size drifts across an oblique board: shift by up to
        # +-shift_px, scale and turn a little. Flips are horizontal only: "up" in a
        # crop points away from the camera, where a standing piece leans, and a
        # vertical flip would teach the network pieces that lean towards it.
        b = x.shape[0]
        s = 1.0 + self._u(b, -self.scale, self.scale)
        a = self._u(b, -self.rotate, self.rotate)
        flip = torch.where(torch.rand(b, generator=self.g) < self.hflip, -1.0, 1.0)
        # affine_grid works in normalised coordinates (-1..1 across the crop).
        tx = self._u(b, -self.shift_px, self.shift_px) / (CROP_W / 2)
        ty = self._u(b, -self.shift_px, self.shift_px) / (CROP_H / 2)
        cos, sin = torch.cos(a) / s, torch.sin(a) / s
        # Rotation in pixel space, expressed in the non-square normalised frame.
        aspect = CROP_H / CROP_W
        theta = torch.stack(
            [
                torch.stack([cos * flip, -sin * aspect, tx], 1),
                torch.stack([sin / aspect * flip, cos, ty], 1),
            ],
            1,
        )
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        # Border padding: the pixels just outside a crop are board or table, more
        # like the edge than like black.
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)

    def colour(self, x):
        # White balance, hue, saturation, contrast and brightness are all linear in
        # RGB, so they are composed into one 3x3 matrix and offset per sample and
        # applied in a single batched product (the augmenter would otherwise cost
        # as much as the training step).
        b = x.shape[0]
        # White balance: a gain per channel.
        gain = torch.diag_embed(torch.exp(torch.randn(b, 3, generator=self.g) * 0.08))
        # Hue-ish: a small rotation of colour space about the grey axis (Rodrigues),
        # which turns hues without changing brightness much.
        ang = self._u(b, -0.2, 0.2)[:, None, None]
        k = 1 / math.sqrt(3.0)
        kx = torch.tensor([[0.0, -k, k], [k, 0.0, -k], [-k, k, 0.0]])
        eye = torch.eye(3)
        rot = eye + torch.sin(ang) * kx + (1 - torch.cos(ang)) * (kx @ kx)
        # Saturation: blend with the luminance.
        luma = torch.tensor([0.299, 0.587, 0.114])
        sat = self._u(b, 0.4, 1.5)[:, None, None]
        satm = sat * eye + (1 - sat) * luma[None, :].expand(3, 3)
        m = satm @ rot @ gain
        # Contrast about the crop's mean grey level (the mean of a linear map is the
        # map of the mean), then brightness.
        mean_rgb = x.mean(dim=(2, 3))  # [B, 3]
        mean = torch.einsum("bij,bj->bi", m, mean_rgb).mean(1)  # [B]
        con = self._u(b, 0.6, 1.4)
        bright = torch.exp(self._u(b, -0.45, 0.4))
        m = m * (bright * con)[:, None, None]
        offset = bright * (1 - con) * mean
        # The renders already vary light and colour; a share of crops keeps its
        # own, so the network also learns the clean renderer's look exactly.
        on = torch.rand(b, generator=self.g) < self.colour_p
        m = torch.where(on[:, None, None], m, eye)
        offset = torch.where(on, offset, 0.0)
        x = torch.bmm(m, x.reshape(b, 3, -1)).reshape(x.shape) + offset[:, None, None, None]
        # Uneven light: a linear ramp across the crop in a random direction (a
        # lamp to one side, the shadow of a piece or a hand).
        d = self._u(b, 0, 2 * math.pi)
        amp = self._u(b, 0.0, 0.3) * on
        ys = torch.linspace(-1, 1, CROP_H)[None, :, None]
        xs = torch.linspace(-1, 1, CROP_W)[None, None, :]
        ramp = 1 + amp[:, None, None] * (torch.cos(d)[:, None, None] * xs + torch.sin(d)[:, None, None] * ys) / 2
        x = x * ramp[:, None]
        # Gamma, on the clamped image so that the power is defined.
        gamma = torch.exp(self._u(b, -0.35, 0.35) * on)[:, None, None, None]
        return x.clamp_(0.0, 1.0).pow_(gamma)

    def blur(self, x):
        # Defocus and motion smear, with a per-sample sigma in one grouped conv.
        b = x.shape[0]
        sigma = self._u(b, 0.3, 1.3)
        on = torch.rand(b, generator=self.g) < self.blur_p
        r = torch.arange(-2, 3, dtype=torch.float32)
        k1 = torch.exp(-(r[None] ** 2) / (2 * sigma[:, None] ** 2))
        k1 = k1 / k1.sum(1, keepdim=True)
        ident = torch.zeros(5)
        ident[2] = 1
        k1 = torch.where(on[:, None], k1, ident)
        k2 = k1[:, :, None] * k1[:, None, :]  # [B, 5, 5]
        w = k2.repeat_interleave(3, 0)[:, None]  # [B*3, 1, 5, 5]
        y = F.pad(x.reshape(1, b * 3, CROP_H, CROP_W), (2, 2, 2, 2), mode="replicate")
        return F.conv2d(y, w, groups=b * 3).reshape(b, 3, CROP_H, CROP_W)

    def noise(self, x):
        b = x.shape[0]
        sigma = (self._u(b, 0.0, self.noise_max) * (torch.rand(b, generator=self.g) < self.colour_p))[:, None, None, None]
        return x + torch.randn(x.shape, generator=self.g) * sigma

    def jpeg(self, x):
        # Webcams and phones hand over JPEG; the blocking and chroma smear change
        # edges the network might otherwise rely on. Applied at crop scale, which is
        # harsher than the photo-scale compression it stands for.
        b = x.shape[0]
        pick = np.nonzero(self.rng.random(b) < self.jpeg_p)[0]
        if len(pick) == 0:
            return x
        u8 = (x[pick] * 255 + 0.5).to(torch.uint8).permute(0, 2, 3, 1).numpy()
        out = np.empty_like(u8)
        for i, img in enumerate(u8):
            buf = io.BytesIO()
            q = int(self.rng.integers(self.jpeg_quality[0], self.jpeg_quality[1] + 1))
            Image.fromarray(img).save(buf, format="JPEG", quality=q)
            buf.seek(0)
            out[i] = np.asarray(Image.open(buf).convert("RGB"))
        x = x.clone()
        x[pick] = torch.from_numpy(out).permute(0, 3, 1, 2).float() / 255
        return x
