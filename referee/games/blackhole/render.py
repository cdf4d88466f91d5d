"""Terminal drawing of a Black Hole Escape position (play, human, replay)."""
from __future__ import annotations

from .rules import EMPTY, HOLE_MARK, SIZE, BlackHoleState

_SYMBOLS = {EMPTY: ".", HOLE_MARK: "@", 1: "1", 2: "2"}
_COLORS = {HOLE_MARK: "\033[35m", 1: "\033[31m", 2: "\033[34m"}
_RESET = "\033[0m"


def render(state: BlackHoleState, color: bool = False) -> str:
    lines = ["    " + " ".join(str(c) for c in range(SIZE))]
    for r, row in enumerate(state.grid):
        cells = []
        for value in row:
            symbol = _SYMBOLS[value]
            cells.append(f"{_COLORS[value]}{symbol}{_RESET}" if color and value in _COLORS
                         else symbol)
        lines.append(f" {r}  " + " ".join(cells))
    lines.append(f"saved: player 1 {state.saved[0]}, player 2 {state.saved[1]}"
                 f"   ply {state.ply}/{state.ply_cap}")
    lines.append(state.status_line())
    return "\n".join(lines) + "\n"
