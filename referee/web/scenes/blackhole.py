"""Black Hole Escape frames: the 5x5 grid, the hole, saved ships and the
slide just played (from the applied decision, parsed on the state before)."""
from __future__ import annotations

from typing import Any

from referee.games.blackhole.rules import HOLE, BlackHoleState, Move

from ._common import applied_decision
from . import STATIC

SCRIPT = STATIC / "draw_blackhole.js"
"""Draws this scene (see scenes/__init__.py)."""
PLAY_SCRIPT = STATIC / "play_blackhole.js"
"""The mouse input of the human's page (see scenes/__init__.py)."""


def scene(prev: BlackHoleState | None, record: dict[str, Any] | None,
          state: BlackHoleState) -> dict[str, Any]:
    out: dict[str, Any] = {"grid": [list(row) for row in state.grid], "hole": list(HOLE),
                           "saved": list(state.saved)}
    move = applied_decision("blackhole", prev, record)
    if isinstance(move, Move):
        out["move"] = [*move.src, *move.dst]
        out["saved_now"] = any(e.get("type") == "save" for e in (record or {}).get("events") or [])
    return out
