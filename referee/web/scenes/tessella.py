"""Tessella frames: the diamond's cells (octagon or square), both sides'
pieces, the captures so far and the move just played."""
from __future__ import annotations

from typing import Any

from referee.games.tessella.rules import CELLS, EMPTY, Move, TessellaState, shape

from ._common import applied_decision
from . import STATIC

SCRIPT = STATIC / "draw_tessella.js"
"""Draws this scene (see scenes/__init__.py)."""
PLAY_SCRIPT = STATIC / "play_tessella.js"
"""The mouse input of the human's page (see scenes/__init__.py)."""


def scene(prev: TessellaState | None, record: dict[str, Any] | None,
          state: TessellaState) -> dict[str, Any]:
    out: dict[str, Any] = {
        "cells": [[r, c, shape((r, c))] for r, c in CELLS],
        "pieces": [[r, c, state.pieces[r][c]] for r, c in CELLS if state.pieces[r][c] != EMPTY],
        "captures": list(state.captures),
    }
    move = applied_decision("tessella", prev, record)
    if isinstance(move, Move):
        out["move"] = [*move.src, *move.dst]
        out["captured"] = any(e.get("type") == "capture" for e in (record or {}).get("events") or [])
    return out
