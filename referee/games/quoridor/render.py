"""The terminal drawing: Board.txt's layout with the pawns and walls in colour."""
from __future__ import annotations

from .codec import drawing_lines, header_lines
from .rules import COLOR, QuoridorState

_ANSI = {"red": "1;31", "blue": "1;34", "green": "1;32", "yellow": "1;33", "wall": "1;35"}


def _paint(kind: str, text: str) -> str:
    code = _ANSI["wall"] if kind == "wall" else _ANSI[COLOR[int(kind[-1])]]
    return f"\x1b[{code}m{text}\x1b[0m"


def render(state: QuoridorState, color: bool = False) -> str:
    lines = header_lines(state)
    if state.is_terminal():
        lines.append(f"game over: {state.reason}")
    lines += drawing_lines(state, _paint) if color else drawing_lines(state)
    return "\n".join(lines)
