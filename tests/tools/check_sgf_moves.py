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
    setup = {(boards[0][r][c].lower(), (r, c)) for r in range(n) for c in range(n)
             if boards[0][r][c] in 'BW'}
    groups = []
    for a, b in zip(boards, boards[1:]):
        new = {(b[r][c].lower(), (r, c)) for r in range(n) for c in range(n)
               if a[r][c] == '.' and b[r][c] in 'BW'}
        if new:
            groups.append(new)
    return n, setup, groups


def sgf_moves(path):
    g = sgf.Sgf_game.from_bytes(open(path, 'rb').read())
    n = g.get_size()
    black, white, _ = g.get_root().get_setup_stones()
    setup = {(col, (n - 1 - r, c)) for col, pts in (('b', black), ('w', white)) for r, c in pts}
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
    return n, setup, out


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
    if a.labels:
        n, want_setup, groups = labels_moves(a.labels)
    else:
        n, want_setup, moves = sgf_moves(a.sgf)
        groups = [{m} for m in moves if m[1] is not None]
    rn, got_setup, got = sgf_moves(a.record)
    if rn != n:
        print(json.dumps({'error': f'board size {rn}, truth {n}'}))
        sys.exit(1)
    played = [m for m in got if m[1] is not None]
    expected = sum(len(g) for g in groups)
    best = None
    for i, f in enumerate(symmetries(n)):
        mapped = [(col, f(*p)) for col, p in played]
        setup = {(col, f(*p)) for col, p in got_setup}
        # Group by group (the stones new in one photo, in any order among
        # themselves): right while the record's next moves are that group.
        right, k = 0, 0
        for g in groups:
            part = set(mapped[k:k + len(g)])
            right += len(part & g)
            if part != g:
                break
            k += len(g)
        score = (right, setup == want_setup)
        if best is None or score > best[0]:
            best = (score, i, mapped, setup)
    (right, setup_ok), sym, mapped, _ = best
    wrong = min(len(mapped), expected) - right
    out = {
        'expected': expected, 'recorded': len(played), 'right': right,
        'wrong': wrong, 'missing': max(0, expected - len(mapped)),
        'invented': max(0, len(mapped) - expected) + wrong,
        'setup_right': setup_ok, 'passes': len(got) - len(played), 'symmetry': sym,
    }
    print(json.dumps(out))
    sys.exit(0 if right == expected and out['invented'] == 0 and setup_ok else 1)


main()
