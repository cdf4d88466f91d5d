"""Quoridor boards for student programs (standard library only).

``read_board()`` and ``read_ckbd(step)`` return a :class:`QuoridorBoard`::

    board = read_ckbd(step - 1)
    board.pawns        # {1: (8, 4), 2: (0, 4)}   (row, column); ejected players absent
    board.walls        # [(3, 1, 3, 3), (1, 4, 3, 4)]  grid endpoints, as in "W r1 c1 r2 c2"
    board.walls_left   # {1: 10, 2: 9}
    board.to_move      # 1 (None once the game is over)

Grid line k runs above row k and left of column k, so the horizontal wall
(r, c)-(r, c+2) separates rows r-1 and r under columns c and c+1, and the
vertical wall (r, c)-(r+2, c) separates columns c-1 and c beside rows r and r+1.
The referee has already checked the file, so this parser trusts it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

SIZE = 9


@dataclass
class QuoridorBoard:
    players: int = 2
    to_move: int | None = 1
    ply: int = 0
    walls_left: dict = field(default_factory=dict)
    pawns: dict = field(default_factory=dict)
    walls: list = field(default_factory=list)


def parse_board(text: str) -> QuoridorBoard:
    board = QuoridorBoard()
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    start = next(i for i, line in enumerate(lines) if "+---" in line)
    for line in lines[:start]:
        key, _, value = line.partition(":")
        key, value = key.strip().lower(), value.strip()
        if key == "players":
            board.players = int(value)
        elif key == "to move":
            board.to_move = None if value == "-" else int(value)
        elif key == "ply":
            board.ply = int(value)
        elif key == "walls left":
            board.walls_left = {int(p): int(n) for p, n in (item.split("=") for item in value.split())}
    margin = lines[start].index("+")
    grid = [line[margin:].ljust(4 * SIZE + 1) for line in lines[start:start + 2 * SIZE + 1]]
    for r in range(SIZE):
        row = grid[2 * r + 1]
        for c in range(SIZE):
            if row[4 * c + 2].isdigit():
                board.pawns[int(row[4 * c + 2])] = (r, c)
    for g in range(1, SIZE):
        for k in range(1, SIZE):
            middle = grid[2 * g][4 * k]
            if middle == "-":
                board.walls.append((g, k - 1, g, k + 1))
            elif middle == "|":
                board.walls.append((g - 1, k, g + 1, k))
    return board
