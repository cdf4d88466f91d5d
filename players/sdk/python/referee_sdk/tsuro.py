"""Tsuro boards for the student SDK (standard library only).

``read_board()`` / ``read_ckbd(step)`` return a dict::

    cells       6 rows of 6: None (empty) or (tile id, rotation)
    markers     {player: {"start": p} | {"cell": (r, c), "port": p} | None}
                "cell" is the cell the marker last crossed, "port" the port of
                that cell it stands on; None: no start yet, or ejected
    out         {player: "edge" | "collision" | "ejected"}
    pile        number of tiles in the draw pile
    dragon      the player holding the dragon tile, or None
    hands       {player: [tile ids]} for the hands you may see (your own)
    hand_sizes  {player: number of tiles} for every player
    turn        whose turn it is, or None once the game is over

Ports are numbered 0..7 clockwise from the top-left of a cell: 0,1 top,
2,3 right, 4,5 bottom, 6,7 left.  state.json has the tile table ("tiles":
the 4 paths of each tile at rotation 0), your hand ("hand") and, on your
turn, every legal decision ("legal").  Decisions: ``save_decision("S", p)``
(setup: start position 0..47) and ``save_decision("T", i, rot, r, c)``.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # as in referee_sdk/__init__.py: not paid at every step
    from typing import Any

SIZE = 6
OPPOSITE = (5, 4, 7, 6, 1, 0, 3, 2)
SIDE_STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))


def exit_port(paths: list[list[int]], rotation: int, port: int) -> int:
    """Where a path entering ``port`` leaves a tile (``paths`` from state.json's
    "tiles") turned ``rotation`` quarter turns clockwise (port p -> p + 2)."""
    unturned = (port - 2 * rotation) % 8
    for a, b in paths:
        if unturned in (a, b):
            return ((b if unturned == a else a) + 2 * rotation) % 8
    raise ValueError(f"port {port} is on no path")


def across(row: int, col: int, port: int) -> tuple[int, int, int]:
    """The same point seen from the neighbouring cell (which may be off the board)."""
    dr, dc = SIDE_STEP[port // 2]
    return row + dr, col + dc, OPPOSITE[port]


def _cell(word: str) -> tuple[int, int] | None:
    if word == ".":
        return None
    tile, rotation = word.split("/")
    return int(tile), int(rotation)


def _player(words: list[str]) -> dict[str, Any] | None:
    if words[0] == "start":
        return {"start": int(words[1])}
    if words[0] == "cell":
        return {"cell": (int(words[1]), int(words[2])), "port": int(words[4])}
    return None


def parse_board(text: str) -> dict[str, Any]:
    board: dict[str, Any] = {"cells": [], "markers": {}, "out": {}, "pile": 0, "dragon": None,
                             "hands": {}, "hand_sizes": {}, "turn": None}
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        key = words[0]
        if key.isdigit():
            board["cells"].append([_cell(w) for w in words[1:]])
        elif key == "marker":
            player = int(words[1])
            board["markers"][player] = _player(words[2:])
            if "out" in words:
                board["out"][player] = words[words.index("out") + 1]
        elif key == "hand":
            player = int(words[1])
            if words[2:3] == ["hidden"]:
                board["hand_sizes"][player] = int(words[3])
            else:
                board["hands"][player] = [int(w) for w in words[2:]]
                board["hand_sizes"][player] = len(words) - 2
        elif key == "pile":
            board["pile"] = int(words[1])
        elif key in ("dragon", "turn"):
            board[key] = int(words[1]) if words[1].isdigit() else None
    return board
