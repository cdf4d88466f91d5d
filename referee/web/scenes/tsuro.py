"""Tsuro frames: every placed tile with its four paths, the markers (start
position, on the board, or where they went out), the trail each marker
travelled this step, every hand (the replay is the referee's view: all
hidden information is shown), the pile and the dragon."""
from __future__ import annotations

from typing import Any

from referee.games.tsuro import board as geo
from referee.games.tsuro.decisions import Place
from referee.games.tsuro.rules import TsuroState
from referee.games.tsuro.tiles import TILES
from . import STATIC

SCRIPT = STATIC / "draw_tsuro.js"
"""Draws this scene (see scenes/__init__.py)."""
PLAY_SCRIPT = STATIC / "play_tsuro.js"
"""The mouse input of the human's page (see scenes/__init__.py)."""


def tile_paths() -> list[list[list[list[int]]]]:
    """For every tile id and rotation, its 4 paths as port pairs: sent once
    per page so frames carry only (tile, rotation)."""
    return [[[list(pair) for pair in tile.pairs(rot)] for rot in range(4)] for tile in TILES]


def scene(prev: TsuroState | None, record: dict[str, Any] | None,
          state: TsuroState) -> dict[str, Any]:
    cells = []
    for i, cell in enumerate(state.cells):
        if cell is not None:
            row, col = divmod(i, geo.SIZE)
            cells.append([row, col, cell[0], cell[1]])
    markers = []
    for p in range(1, state.players + 1):
        facing = state.markers[p - 1]
        if facing is not None:
            markers.append([p, *facing])
    out: dict[str, Any] = {
        "size": geo.SIZE,
        "players": state.players,
        "cells": cells,
        "markers": markers,
        "out": [[p, *o] if o else None for p, o in enumerate(state.out, 1)],
        "hands": [list(h) for h in state.hands],
        "pile": len(state.pile),
        "dragon": state.dragon,
        "current": state.current,
        "trails": {},
    }
    events = (record or {}).get("events") or []
    placed = next((e for e in events if e.get("type") == "place"), None)
    if prev is not None and placed is not None:
        r, c = placed["cell"]
        out["placed"] = [r, c]
        result = geo.place(prev.cells, prev.active_markers(), placed["tile"], placed["rotation"], r, c)
        out["trails"] = {str(p): [list(seg) for seg in trail] for p, trail in sorted(result.trails.items())}
    return out


def page_extras() -> dict[str, Any]:
    return {"tiles": tile_paths()}


def for_viewer(scene: dict[str, Any], viewer: int) -> dict[str, Any]:
    """The scene as ``viewer`` may see it: the other hands as their sizes
    only (a list of nulls), for the human's page; the replay is the
    referee's view and shows them all."""
    hands = [hand if p == viewer else [None] * len(hand) for p, hand in enumerate(scene["hands"], 1)]
    return {**scene, "hands": hands, "viewer": viewer}


def previews(state: TsuroState, player: int) -> dict[str, Any]:
    """For each legal placement ('T i rot r c'), what it would do: the
    trails the markers would travel and who would be out, so the page shows
    where the marker goes before the tile is placed."""
    out: dict[str, Any] = {}
    if state.step_kind() != "play":
        return out
    hand = state.hands[player - 1]
    markers = state.active_markers()
    for decision in state.legal_decisions():
        if not isinstance(decision, Place):
            continue
        result = geo.place(state.cells, markers, hand[decision.index], decision.rotation,
                           decision.row, decision.col)
        out[str(decision)] = {
            "tile": hand[decision.index],
            "trails": {str(p): [list(seg) for seg in trail] for p, trail in sorted(result.trails.items())},
            "out": {str(p): why for p, why in sorted(result.eliminated.items())},
        }
    return out
