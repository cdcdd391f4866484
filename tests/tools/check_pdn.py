#!/usr/bin/env python3
"""Check a boardscribe PDN file against pydraughts (an independent engine).

Usage: python3 check_pdn.py FILE.pdn EXPECTED_FEN

Loads the first game with pydraughts' PDN reader, requires GameType 25
(variant "russian"), replays every move through pydraughts' own move
generator and compares the final position with EXPECTED_FEN (our FEN,
e.g. "W:Wa1,Kd8:Be7"). Exit status 0 on a match, 1 with a message otherwise.

Convention differences handled here:
* pydraughts only parses captures written with 'x' (c3xe5); boardscribe writes
  c3:e5, so ':' is turned into 'x' before the lookup.
* pydraughts lists FEN squares in its own order, so FENs are compared as sets.
* pydraughts 0.6.7's reader lists the first move twice when the FEN has Black
  to move (a bug in PDN.py); the duplicate is dropped here.
"""
import re
import sys


def fen_set(fen):
    """(side to move, frozenset of (colour, is_king, square)) of an algebraic FEN."""
    fen = fen.strip().rstrip(".")
    parts = fen.split(":")
    side = parts[0].strip().upper()
    pieces = set()
    for group in parts[1:]:
        group = group.strip()
        if not group:
            continue
        colour, body = group[0].upper(), group[1:]
        for token in filter(None, (t.strip() for t in body.split(","))):
            king = token[0] in "Kk"
            pieces.add((colour, king, token[1:] if king else token))
    return side, frozenset(pieces)


def light_squares(move_text):
    """Squares of a move that are not dark squares of the board.

    pydraughts silently maps a light square such as h7 onto a dark neighbour,
    so a file with one would otherwise pass."""
    bad = []
    for name in re.split(r"[-x:]", move_text):
        ok = (len(name) == 2 and name[0] in "abcdefgh" and name[1] in "12345678"
              and (ord(name[0]) - ord("a") + int(name[1]) - 1) % 2 == 0)
        if not ok:
            bad.append(name)
    return bad


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    path, expected = sys.argv[1], sys.argv[2]
    try:
        from draughts import Board, Move
        from draughts.PDN import PDNReader
    except ImportError:
        fail("pydraughts is not installed (pip install pydraughts)")

    games = PDNReader(filename=path).games
    if not games:
        fail(f"{path}: no game found")
    game = games[0]
    if game.variant != "russian":
        fail(f"{path}: pydraughts reads variant {game.variant!r}, not 'russian'")
    start = game.tags.get("FEN")
    moves = list(game.moves)
    if start and start.strip().upper().startswith("B") and moves[:1] * 2 == moves[:2]:
        moves = moves[1:]
    board = Board("russian", start) if start else Board("russian")
    for number, text in enumerate(moves, 1):
        bad = light_squares(text)
        if bad:
            fail(f"ply {number}: move {text!r} names squares off the dark squares: {bad}")
        try:
            move = Move(board, pdn_move=text.replace(":", "x"))
        except Exception as exc:  # pydraughts raises KeyError/ValueError for unknown moves
            fail(f"ply {number}: pydraughts finds no legal move {text!r} in {board.fen} ({exc!r})")
        board.push(move)
    if fen_set(board.fen) != fen_set(expected):
        fail(f"final position differs: pydraughts {board.fen} vs expected {expected}")
    result = game.tags.get("Result")
    if result is not None and result != game.game_ending:
        fail(f"Result tag {result!r} differs from the movetext result {game.game_ending!r}")
    print(f"OK: {len(moves)} plies, final {board.fen}")


if __name__ == "__main__":
    main()
