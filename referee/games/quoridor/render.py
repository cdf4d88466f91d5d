"""The terminal drawing: Board.txt's layout with the pawns and walls in colour."""
from __future__ import annotations

from .codec import drawing_lines, header_lines
from .rules import COLOR, GOAL_NAME, QuoridorState, seats

_ANSI = {"red": "1;31", "blue": "1;34", "green": "1;32", "yellow": "1;33", "wall": "1;35"}


def _paint(kind: str, text: str) -> str:
    code = _ANSI["wall"] if kind == "wall" else _ANSI[COLOR[int(kind[-1])]]
    return f"\x1b[{code}m{text}\x1b[0m"


def seat_line(state: QuoridorState, viewer: int) -> str:
    """'you are player 2 (blue, shown as 2 on the board), pawn at 0 4, goal row 8,
    7 walls left': which pawn is yours, said before the board."""
    pawn = state.pawn(viewer)
    where = f"pawn at {pawn[0]} {pawn[1]}" if pawn is not None else "pawn off the board"
    return (f"you are player {viewer} ({COLOR[viewer]}, shown as {viewer} on the board), {where}, "
            f"goal {GOAL_NAME[viewer]}, {state.walls_left[viewer - 1]} walls left")


def render(state: QuoridorState, color: bool = False, viewer: int | None = None) -> str:
    lines = header_lines(state)
    if viewer in seats(state.players):
        lines.insert(0, seat_line(state, viewer))
    if state.is_terminal():
        lines.append(f"game over: {state.reason}")
    lines += drawing_lines(state, _paint) if color else drawing_lines(state)
    return "\n".join(lines)
