#!/usr/bin/env python3
"""A truth at the crossings for go-roboflow's board photos (issue 30).

The data's corners.json was made from the centres of the source's corner boxes, which
lie inside the board's first square (docs/location.md). This tool moves each side of the
labelled quad onto the board's outermost line near it, found in the photo itself: the
photo is rectified through the labels' homography, each side's outer line is read as the
darkest thin ridge within 0.6 cell outward and 0.45 cell inward of the labelled side on
profiles across it (one per cell, at the cell's middle, where stones on crossings rarely
reach), the ridge points are fitted by a robust line, and the corners are the crossings
of the four fitted sides. The result is to be checked by eye (`--crops DIR` writes each
photo's four corners magnified, the new corner a green cross and the label a red ring);
a photo whose corners are not on the crossings is listed in `rejected` with why.

Usage: python3 tests/tools/refine_go_roboflow_corners.py OUT.json [--crops DIR]
Needs numpy and opencv-python (pip). Reads ../shared/data/go-roboflow/boards.
"""
import json, os, sys
import numpy as np
import cv2

ROOT = '../shared/data/go-roboflow/boards'
P = 24          # rectified pixels per cell
M = 2           # margin, cells
OUT, IN = 0.6, 0.45


def picks():
    d = json.load(open(os.path.join(ROOT, 'corners.json')))['corners']
    groups = {}
    for n in sorted(d):
        groups.setdefault(n.split('_jpg.rf.')[0], []).append(n)
    return d, [v[0] for _, v in sorted(groups.items())]


def rectifier(quad):
    """Image -> rectified board (u, v cells; corner (0,0) at pixel (M*P, M*P))."""
    dst = np.float32([[0, 0], [18, 0], [18, 18], [0, 18]]) * P + M * P
    return cv2.getPerspectiveTransform(np.float32(quad), dst)


def ridge_peak(prof, w):
    """Index of the deepest dark thin ridge in a 1-D profile (sides w samples off)."""
    best, at = 0.0, None
    for i in range(w, len(prof) - w):
        d = min(prof[i - w], prof[i + w]) - prof[i]
        if d > best:
            best, at = d, i
    return at, best


def side_points(rect, side):
    """Ridge points of the outer line along one side, in rectified pixels."""
    pts = []
    lo, hi = int(round(-OUT * P)), int(round(IN * P))
    for i in range(18):
        t = (i + 0.5) * P + M * P
        # Offsets across the side, inward positive; a strip 0.3 cell long along it.
        prof = []
        for o in range(lo - 4, hi + 5):
            if side == 0:   x0, y0 = t, M * P + o            # top: y grows inward
            elif side == 1: x0, y0 = M * P + 18 * P - o, t   # right
            elif side == 2: x0, y0 = t, M * P + 18 * P - o   # bottom
            else:           x0, y0 = M * P + o, t            # left
            if side in (0, 2):
                xs = np.arange(int(x0 - 0.15 * P), int(x0 + 0.15 * P) + 1)
                vals = rect[int(round(y0)), xs]
            else:
                ys = np.arange(int(y0 - 0.15 * P), int(y0 + 0.15 * P) + 1)
                vals = rect[ys, int(round(x0))]
            prof.append(float(np.median(vals)))
        k, depth = ridge_peak(prof, 2)
        if k is None or depth < 6:
            continue
        o = lo - 4 + k
        if not (lo <= o <= hi):
            continue
        if side == 0:   pts.append((t, M * P + o))
        elif side == 1: pts.append((M * P + 18 * P - o, t))
        elif side == 2: pts.append((t, M * P + 18 * P - o))
        else:           pts.append((M * P + o, t))
    return pts


def robust_line(pts, vertical):
    """x = a y + b (vertical) or y = a x + b, by least squares after dropping outliers."""
    if len(pts) < 5:
        return None
    p = np.array(pts, float)
    s, r = (p[:, 1], p[:, 0]) if vertical else (p[:, 0], p[:, 1])
    keep = np.ones(len(p), bool)
    for _ in range(4):
        a, b = np.polyfit(s[keep], r[keep], 1)
        res = np.abs(r - (a * s + b))
        thr = max(2.5 * np.median(res[keep]), 1.5)
        keep = res <= thr
        if keep.sum() < 5:
            return None
    return a, b, int(keep.sum())


def cross(top_or_bottom, left_or_right):
    """Crossing of y = a1 x + b1 and x = a2 y + b2."""
    a1, b1 = top_or_bottom
    a2, b2 = left_or_right
    y = (a1 * b2 + b1) / (1 - a1 * a2)
    return a2 * y + b2, y


def refine(img, quad):
    Hm = rectifier(quad)
    size = (18 + 2 * M) * P
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    grey = cv2.medianBlur(grey, 3)  # the augmentation's salt-and-pepper specks
    rect = cv2.warpPerspective(grey, Hm, (size, size), flags=cv2.INTER_LINEAR).astype(float)
    lines, support = [], []
    for side in range(4):
        f = robust_line(side_points(rect, side), vertical=side in (1, 3))
        if f is None:
            return None, 'a side with too few ridge points'
        lines.append(f[:2])
        support.append(f[2])
    top, right, bottom, left = lines
    rq = [cross(top, left), cross(top, right), cross(bottom, right), cross(bottom, left)]
    inv = np.linalg.inv(Hm)
    out = cv2.perspectiveTransform(np.float32([rq]), inv)[0]
    return [[round(float(x), 1), round(float(y), 1)] for x, y in out], support


def crops(img, quad, new, path):
    tiles = []
    cell = np.mean([np.linalg.norm(np.subtract(quad[i], quad[(i + 1) % 4])) for i in range(4)]) / 18
    r = int(1.3 * cell)
    for (lx, ly), (nx, ny) in zip(quad, new):
        big = cv2.copyMakeBorder(img, r, r, r, r, cv2.BORDER_CONSTANT)
        cx, cy = int(round(nx)) + r, int(round(ny)) + r
        c = big[cy - r:cy + r, cx - r:cx + r].copy()
        s = 200 / c.shape[0]
        c = cv2.resize(c, (200, 200), interpolation=cv2.INTER_CUBIC)
        to = lambda x, y: (int(round((x - nx + r) * s)), int(round((y - ny + r) * s)))
        cv2.circle(c, to(lx, ly), 6, (0, 0, 255), 2)
        px, py = to(nx, ny)
        cv2.line(c, (px - 8, py), (px + 8, py), (0, 255, 0), 1)
        cv2.line(c, (px, py - 8), (px, py + 8), (0, 255, 0), 1)
        tiles.append(c)
    cv2.imwrite(path, np.hstack(tiles))


def main():
    out = sys.argv[1]
    cdir = sys.argv[sys.argv.index('--crops') + 1] if '--crops' in sys.argv else None
    d, names = picks()
    res, moved = {}, []
    for n in names:
        img = cv2.imread(os.path.join(ROOT, n))
        new, why = refine(img, d[n])
        if new is None:
            res[n] = {'label': d[n], 'corners': None, 'why': why}
            continue
        cell = np.mean([np.linalg.norm(np.subtract(d[n][i], d[n][(i + 1) % 4])) for i in range(4)]) / 18
        mv = max(np.linalg.norm(np.subtract(a, b)) for a, b in zip(new, d[n])) / cell
        moved.append(mv)
        res[n] = {'label': d[n], 'corners': new, 'moved_cells': round(float(mv), 3), 'support': why}
        if cdir:
            os.makedirs(cdir, exist_ok=True)
            crops(img, d[n], new, os.path.join(cdir, n.split('_jpg')[0] + '.png'))
    json.dump(res, open(out, 'w'), indent=1)
    print(f'{len(names)} photos, {len(moved)} refined, largest corner move median {np.median(moved):.3f} cell')


if __name__ == '__main__':
    main()
