"""Quoridor frames: pawns, walls (the one just placed marked), each seat's
goal side and walls left."""
from __future__ import annotations

from typing import Any

from referee.games.quoridor.rules import COLOR, GOAL_NAME, SIZE, QuoridorState, seats
from . import STATIC

SCRIPT = STATIC / "draw_quoridor.js"
"""Draws this scene (see scenes/__init__.py)."""
PLAY_SCRIPT = STATIC / "play_quoridor.js"
"""The mouse input of the human's page (see scenes/__init__.py)."""


def scene(prev: QuoridorState | None, record: dict[str, Any] | None,
          state: QuoridorState) -> dict[str, Any]:
    players = list(seats(state.players))
    out: dict[str, Any] = {
        "size": SIZE,
        "seats": players,
        "colors": {str(p): COLOR[p] for p in players},
        "goals": {str(p): GOAL_NAME[p] for p in players},
        "pawns": [[p, *state.pawn(p)] for p in players if state.pawn(p) is not None],
        "out": [p for p in players if state.pawn(p) is None],
        "walls": [[w.r1, w.c1, w.r2, w.c2] for w in state.wall_list()],
        "walls_left": {str(p): state.walls_left[p - 1] for p in players},
    }
    for event in (record or {}).get("events") or []:
        if event.get("type") == "move":
            out["last_move"] = [*event["from"], *event["to"]]
        elif event.get("type") == "wall":
            out["last_wall"] = list(event["wall"])
    return out
