#!/usr/bin/env python3
"""Replays Go games written by boardscribe with sgfmill and compares, move by
move, the board (captures) and the legal points with what boardscribe's engine
said.

Usage: check_go_sgfmill.py DIR

DIR holds pairs NAME.sgf (the game as boardscribe wrote it) and NAME.expect:
  superko yes|no
  then for every move, two lines:
    legal PT PT ...   the points boardscribe lets the side to move play (SGF
                      letters), before the move
    board ROWS        the board after the move, rows from the top joined by
                      '/', '.' empty, 'X' black, 'O' white

sgfmill's Board.play takes captures and raises ValueError on a taken point,
but allows suicide and enforces no ko, so legality is judged here from its
boards: a stone that is gone after its own play was suicide; the point that
Board.play returned for the previous move is the simple-ko point; with
superko, a board seen before is refused.

Prints one summary line; exits 1 with the first differences when any.
"""

import glob
import os
import sys

from sgfmill import boards, sgf, sgf_moves


def letters(row, col, size):
    return chr(ord("a") + col) + chr(ord("a") + size - 1 - row)


def picture(board):
    size = board.side
    rows = []
    for row in range(size - 1, -1, -1):
        line = ""
        for col in range(size):
            c = board.get(row, col)
            line += "." if c is None else ("X" if c == "b" else "O")
        rows.append(line)
    return "/".join(rows)


def has_empty_neighbour(board, row, col):
    for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        if 0 <= r < board.side and 0 <= c < board.side and board.get(r, c) is None:
            return True
    return False


def legal_points(board, colour, ko_point, superko, seen, refusals):
    """The points `colour` may play, judged from sgfmill's boards alone."""
    legal = set()
    for row in range(board.side):
        for col in range(board.side):
            if board.get(row, col) is not None:
                continue
            if (row, col) == ko_point:
                refusals["ko"] += 1
                continue
            # A point beside an empty one is never suicide: only the others
            # (and every point, with superko) are played on a copy.
            if superko or not has_empty_neighbour(board, row, col):
                after = board.copy()
                after.play(row, col, colour)
                if after.get(row, col) is None:
                    refusals["suicide"] += 1
                    continue
                if superko and picture(after) in seen:
                    refusals["superko"] += 1
                    continue
            legal.add(letters(row, col, board.side))
    return legal


def check_game(sgf_path, expect_path, refusals):
    """Differences between boardscribe and sgfmill in one game, and its moves."""
    with open(sgf_path, "rb") as f:
        game = sgf.Sgf_game.from_bytes(f.read())
    with open(expect_path) as f:
        lines = [l.rstrip("\n") for l in f]
    superko = lines[0] == "superko yes"
    expected = lines[1:]
    board, plays = sgf_moves.get_setup_and_moves(game)
    size = board.side
    name = os.path.basename(sgf_path)
    problems = []
    if len(expected) != 2 * len(plays):
        return [f"{name}: {len(plays)} moves in the SGF, {len(expected) // 2} expected"], 0
    ko_point = None
    seen = {picture(board)}
    for n, (colour, move) in enumerate(plays, start=1):
        said = set(expected[2 * n - 2].split()[1:])
        judged = legal_points(board, colour, ko_point, superko, seen, refusals)
        if said != judged:
            extra = sorted(said - judged)
            missing = sorted(judged - said)
            problems.append(
                f"{name} move {n}: boardscribe allows {extra} that sgfmill refuses, "
                f"refuses {missing} that sgfmill allows"
            )
            break
        if move is None:
            ko_point = None
        else:
            row, col = move
            if letters(row, col, size) not in judged:
                problems.append(f"{name} move {n}: {colour} {letters(row, col, size)} is not legal")
                break
            ko_point = board.play(row, col, colour)
            seen.add(picture(board))
        want = expected[2 * n - 1].split()[1]
        if picture(board) != want:
            problems.append(f"{name} move {n}: boards differ\n  sgfmill     {picture(board)}\n  boardscribe {want}")
            break
    return problems, len(plays)


def main():
    folder = sys.argv[1]
    refusals = {"ko": 0, "suicide": 0, "superko": 0}
    problems = []
    games = moves = 0
    for sgf_path in sorted(glob.glob(os.path.join(folder, "*.sgf"))):
        expect = sgf_path[:-4] + ".expect"
        p, n = check_game(sgf_path, expect, refusals)
        problems += p
        games += 1
        moves += n
    print(
        f"games {games} moves {moves} refusals ko {refusals['ko']} "
        f"suicide {refusals['suicide']} superko {refusals['superko']} "
        f"differences {len(problems)}"
    )
    for p in problems[:10]:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
