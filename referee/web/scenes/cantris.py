"""Cantris frames: the board after the step, and how the step got there
(the board before with the removed tile, then each cascade pass with the cells
it cleared), because a cascade's cells only make sense on the board it ran on."""
from __future__ import annotations

from typing import Any

from referee.games.cantris.rules import CantrisState, clear, remove_tile
from . import STATIC

SCRIPT = STATIC / "draw_cantris.js"
"""Draws this scene (see scenes/__init__.py)."""
PLAY_SCRIPT = STATIC / "play_cantris.js"
"""The mouse input of the human's page (see scenes/__init__.py)."""


def scene(prev: CantrisState | None, record: dict[str, Any] | None,
          state: CantrisState) -> dict[str, Any]:
    out: dict[str, Any] = {"board": [list(row) for row in state.board],
                           "points": list(state.points), "stages": []}
    if prev is None or record is None:
        return out
    events = record.get("events") or []
    removal = next((e for e in events if e.get("type") == "remove"), None)
    if removal is None:
        return out
    r, c = removal["cell"]
    out["removed"] = [r, c]
    out["stages"].append({"label": f"before: remove {r} {c} (+{removal.get('points', 0)})",
                          "board": [list(row) for row in prev.board], "marks": [[r, c]],
                          "mark": "removed"})
    board = remove_tile(prev.board, r, c)
    for event in events:
        if event.get("type") != "cascade":
            continue
        cells = [tuple(cell) for cell in event.get("cells", [])]
        out["stages"].append({"label": f"cascade {event.get('pass')} (+{event.get('points', 0)})",
                              "board": [list(row) for row in board],
                              "marks": [list(cell) for cell in cells], "mark": "cascade"})
        board = clear(board, cells)
    return out
