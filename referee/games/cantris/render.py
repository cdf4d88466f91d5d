"""Terminal drawing of a Cantris board, with row/column indices so a human can
type a move straight from it."""
from __future__ import annotations

from .rules import Board

# ANSI colours per tile number (1..9); the empty cell is a dot.
_COLOURS = {1: 31, 2: 32, 3: 33, 4: 34, 5: 35, 6: 36, 7: 91, 8: 92, 9: 93}


def render(board: Board, points: tuple[int, int], color: bool = False) -> str:
    cols = len(board[0])
    lines = ["    " + " ".join(f"{c:>2}" for c in range(cols))]
    for r, row in enumerate(board):
        cells = []
        for v in row:
            text = f"{v:>2}" if v else " ."
            if color and v:
                text = f"\x1b[{_COLOURS.get(v, 37)}m{text}\x1b[0m"
            cells.append(text)
        lines.append(f"{r:>3} " + " ".join(cells))
    lines.append(f"points: player 1 = {points[0]}, player 2 = {points[1]}")
    return "\n".join(lines) + "\n"
