"""Black Hole Escape boards for the student SDK (standard library only).

``read_board()`` and ``read_ckbd(step)`` return the 5x5 matrix as a list of
rows of ints, row 0 at the top: 0 empty, 1 player 1's ship, 2 player 2's ship,
3 the black hole (always at the centre, ``HOLE``).  A decision is
``save_decision(r1, c1, r2, c2)`` (from, and where the slide stops),
``save_decision(r, c, "U")`` (a direction: U D L R), or ``save_decision("pass")``.
"""
from __future__ import annotations

SIZE = 5
HOLE = (2, 2)
DIRECTIONS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def parse_board(text: str) -> list[list[int]]:
    rows = [[int(word) for word in line.split()] for line in text.splitlines() if line.strip()]
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        raise ValueError(f"a Black Hole board is {SIZE} rows of {SIZE} numbers")
    return rows
