#!/usr/bin/env python3
"""Checks a PGN file with python-chess (pip install chess).

Usage: python3 check_pgn.py FILE.pgn [EXPECTED_FEN]

Fails (exit 1) on a parse error, an illegal or ambiguous move, or a file
without games. With EXPECTED_FEN, the final position of the last game must
match it (the move counters are compared too).
"""
import sys

import chess
import chess.pgn


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = sys.argv[1]
    expected = sys.argv[2] if len(sys.argv) == 3 else None
    games = 0
    final_fen = None
    with open(path, encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            games += 1
            if game.errors:
                for err in game.errors:
                    print(f"{path}: game {games}: {err}", file=sys.stderr)
                return 1
            board = game.board()
            plies = 0
            for move in game.mainline_moves():
                if not board.is_legal(move):
                    print(f"{path}: game {games}: illegal move {move}", file=sys.stderr)
                    return 1
                board.push(move)
                plies += 1
            final_fen = board.fen()
            result = game.headers.get("Result", "?")
            print(f"{path}: game {games}: {plies} plies, result {result}, final {final_fen}")
    if games == 0:
        print(f"{path}: no game found", file=sys.stderr)
        return 1
    if expected is not None and final_fen != expected.strip():
        print(f"{path}: final FEN {final_fen} != expected {expected}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
