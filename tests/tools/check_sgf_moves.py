#!/usr/bin/env python3
"""Scores a recorded SGF against a photo sequence's labels (imago-go style:
<photo>.txt beside each photo, 19 lines of 19 tokens . B W, first line the
image's top edge) or against a reference SGF, with sgfmill.

  check_sgf_moves.py RECORD.sgf --labels DIR     moves = the new stone of each photo
  check_sgf_moves.py RECORD.sgf --sgf TRUTH.sgf  moves = TRUTH's main line

A Go board has no fixed way up, so the record is scored under each of the
board's eight symmetries and the best one is kept (one symmetry for the whole
game). Prints one JSON line: moves expected, right (colour and point, in
order), wrong, missing, invented (recorded moves beyond the truth or never
played), the symmetry. Exit status 0 when every move is right and none
invented, 1 otherwise, 2 on bad input.
"""
import argparse, json, os, re, sys

from sgfmill import sgf


def labels_moves(folder):
    files = sorted(f for f in os.listdir(folder) if f.endswith('.txt'))
    boards = []
    for f in files:
        rows = [l.split() for l in open(os.path.join(folder, f)) if l.strip()]
        boards.append(rows)
    n = len(boards[0])
    moves = []
    for a, b in zip(boards, boards[1:]):
        new = [(r, c, b[r][c]) for r in range(n) for c in range(n)
               if a[r][c] == '.' and b[r][c] in 'BW']
        if len(new) != 1:
            sys.exit(f"labels: {len(new)} new stones between two photos")
        r, c, col = new[0]
        moves.append((col.lower(), (r, c)))
    return n, moves


def sgf_moves(path):
    g = sgf.Sgf_game.from_bytes(open(path, 'rb').read())
    n = g.get_size()
    out = []
    for node in g.get_main_sequence():
        colour, move = node.get_move()
        if colour is None:
            continue
        if move is None:
            out.append((colour, None))
        else:
            row, col = move  # sgfmill: row 0 is the bottom line
            out.append((colour, (n - 1 - row, col)))
    return n, out


def symmetries(n):
    m = n - 1
    return [
        lambda r, c: (r, c), lambda r, c: (c, m - r), lambda r, c: (m - r, m - c),
        lambda r, c: (m - c, r), lambda r, c: (r, m - c), lambda r, c: (m - r, c),
        lambda r, c: (c, r), lambda r, c: (m - c, m - r),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('record')
    ap.add_argument('--labels')
    ap.add_argument('--sgf')
    a = ap.parse_args()
    if bool(a.labels) == bool(a.sgf):
        ap.error('give --labels or --sgf')
    n, truth = labels_moves(a.labels) if a.labels else sgf_moves(a.sgf)
    rn, got = sgf_moves(a.record)
    if rn != n:
        print(json.dumps({'error': f'board size {rn}, truth {n}'}))
        sys.exit(1)
    played = [m for m in got if m[1] is not None]
    best = None
    for i, f in enumerate(symmetries(n)):
        mapped = [(col, f(*p)) for col, p in played]
        right = sum(1 for x, y in zip(mapped, truth) if x == y)
        if best is None or right > best[0]:
            best = (right, i, mapped)
    right, sym, mapped = best
    wrong = sum(1 for x, y in zip(mapped, truth) if x != y)
    out = {
        'expected': len(truth), 'recorded': len(played), 'right': right,
        'wrong': wrong, 'missing': max(0, len(truth) - len(mapped)),
        'invented': max(0, len(mapped) - len(truth)) + wrong,
        'passes': len(got) - len(played), 'symmetry': sym,
    }
    print(json.dumps(out))
    sys.exit(0 if right == len(truth) and out['invented'] == 0 else 1)


main()
