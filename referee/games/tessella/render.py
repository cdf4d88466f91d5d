"""Terminal drawing of a Tessella position: the diamond with octagons shown
as ``( )`` and squares as ``[ ]`` around the piece (1, 2 or a blank)."""
from __future__ import annotations

from .rules import EMPTY, SIZE, TessellaState, shape

_FRAMES = {"O": "()", "S": "[]"}
_COLORS = {1: "\033[31m", 2: "\033[34m"}
_RESET = "\033[0m"


def _cell(state: TessellaState, r: int, c: int, color: bool) -> str:
    kind = shape((r, c))
    if kind == "X":
        return "   "
    role = state.pieces[r][c]
    inside = " " if role == EMPTY else str(role)
    if color and role in _COLORS:
        inside = f"{_COLORS[role]}{inside}{_RESET}"
    return _FRAMES[kind][0] + inside + _FRAMES[kind][1]


def render(state: TessellaState, color: bool = False) -> str:
    lines = [("    " + "".join(f" {c} " for c in range(SIZE))).rstrip()]
    for r in range(SIZE):
        lines.append(f" {r}  " + "".join(_cell(state, r, c, color) for c in range(SIZE)).rstrip())
    lines.append(f"captures: player 1 {state.captures[0]}, player 2 {state.captures[1]}"
                 f"   ply {state.ply}/{state.ply_cap}")
    lines.append(state.status_line())
    return "\n".join(lines) + "\n"
