#!/usr/bin/env python3
"""Checks a round PGN with python-chess (pip install chess).

Usage: python3 check_round.py [--public] FILE.pgn ROUND BOARD=FEN [BOARD=FEN ...]

Every game must parse without errors and replay legally; the games must come
in the order of the BOARD arguments, each tagged [Board "N"] and
[Round "ROUND.N"], and end in the FEN given for its board. With --public, the
file must hold no comment but [%emt] move times (a public round PGN: the games
only).
"""
import re
import sys

import chess
import chess.pgn


def comments(game):
    """Every comment of the game's main line, [%emt] commands taken out."""
    out = []
    node = game
    while node is not None:
        for c in (node.comment, getattr(node, "starting_comment", "")):
            rest = re.sub(r"\[%emt [^\]]*\]", "", c or "").strip()
            if rest:
                out.append(rest)
        node = node.next()
    return out


def main() -> int:
    public = len(sys.argv) > 1 and sys.argv[1] == "--public"
    if public:
        del sys.argv[1]
    if len(sys.argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, rnd = sys.argv[1], sys.argv[2]
    expected = [a.split("=", 1) for a in sys.argv[3:]]
    games = []
    with open(path, encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            games.append(game)
    if len(games) != len(expected):
        print(f"{path}: {len(games)} games, expected {len(expected)}", file=sys.stderr)
        return 1
    for game, (board, fen) in zip(games, expected):
        if game.errors:
            for err in game.errors:
                print(f"{path}: board {board}: {err}", file=sys.stderr)
            return 1
        if public and comments(game):
            print(f"{path}: board {board}: comments in a public PGN: {comments(game)}", file=sys.stderr)
            return 1
        tags = game.headers
        if tags.get("Board") != board or tags.get("Round") != f"{rnd}.{board}":
            print(f"{path}: game tagged Board {tags.get('Board')} Round {tags.get('Round')}, "
                  f"expected board {board} round {rnd}.{board}", file=sys.stderr)
            return 1
        b = game.board()
        plies = 0
        for move in game.mainline_moves():
            if not b.is_legal(move):
                print(f"{path}: board {board}: illegal move {move}", file=sys.stderr)
                return 1
            b.push(move)
            plies += 1
        if b.fen() != fen:
            print(f"{path}: board {board}: final FEN {b.fen()} != expected {fen}", file=sys.stderr)
            return 1
        print(f"{path}: board {board}: {plies} plies, result {tags.get('Result')}, final {b.fen()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
