"""Tsuro file formats.

``Board.txt`` and snapshots (one format; ``#`` starts a comment)::

    # Tsuro 6x6. Cells: '.' empty or TILE/ROT ...
    #     0     1     2     3     4     5
    0     .     .     .     .     .     .
    1     .  12/1     .     .     .     .
    ...                                   (6 rows, the row number first)
    marker 1 start 17                     on its start position
    marker 2 cell 2 3 port 4              cell last crossed, port it stands on
    marker 3 cell 0 5 port 1 out edge     eliminated (edge / collision)
    marker 4 none out ejected             no marker (no start yet, or ejected)
    pile 20
    dragon none                           or the holder's id
    hand 1 3 17 22                        the viewer's own hand
    hand 2 hidden 3                       someone else's: only its size
    turn 2                                whose turn, or 'over'

A start file (``--board``) is the 6 rows alone: tiles already on the board.
"""
from __future__ import annotations

from typing import Any

from referee.core.errors import InputError
from referee.core.numbers import NumberError, OutOfRange, parse_int, quote
from referee.core.textgrid import file_lines, words as line_words

from . import board as geo
from .board import Cells, Point
from .rules import TsuroState, marker_json
from .tiles import ROTATIONS, TILES

CELL_WIDTH = 6
SNAPSHOT_KEYWORDS = ("marker", "pile", "dragon", "hand", "turn")


def cell_token(cell: tuple[int, int] | None) -> str:
    return "." if cell is None else f"{cell[0]}/{cell[1]}"


def grid_lines(cells: Cells) -> list[str]:
    header = "#  " + "".join(f"{c:>{CELL_WIDTH}}" for c in range(geo.SIZE))
    lines = [f"# Tsuro {geo.SIZE}x{geo.SIZE}. Cells: '.' empty or TILE/ROT "
             "(tile id 0..34, quarter turns clockwise 0..3).", header]
    for r in range(geo.SIZE):
        row = cells[geo.index(r, 0):geo.index(r, geo.SIZE)]
        lines.append(f"{r:<3}" + "".join(f"{cell_token(c):>{CELL_WIDTH}}" for c in row))
    return lines


def marker_words(facing: Point | None) -> str:
    info = marker_json(facing)
    if info is None:
        return "none"
    if "start" in info:
        return f"start {info['start']}"
    return f"cell {info['cell'][0]} {info['cell'][1]} port {info['port']}"


def board_text(state: TsuroState, viewer: int | None) -> str:
    lines = grid_lines(state.cells)
    lines.append("# Markers: 'start POS', or 'cell R C port P' (the cell it last crossed, "
                 "the port it stands on); 'out REASON' once out.")
    for p in range(1, state.players + 1):
        out = state.out[p - 1]
        lines.append(f"marker {p} {marker_words(state.markers[p - 1])}" + (f" out {out[1]}" if out else ""))
    lines.append(f"pile {len(state.pile)}")
    lines.append(f"dragon {state.dragon if state.dragon is not None else 'none'}")
    for p in range(1, state.players + 1):
        hand = state.hands[p - 1]
        shown = " ".join(map(str, hand)) if viewer in (None, p) else f"hidden {len(hand)}"
        lines.append(f"hand {p} {shown}".rstrip())
    lines.append(f"turn {state.current if state.current is not None else 'over'}")
    return "\n".join(lines) + "\n"


def _number(part: str, high: int, what: str, cell: str, where: tuple[str, int, int]) -> int:
    """One number of a ``TILE/ROT`` cell; the error quotes the whole cell."""
    try:
        return parse_int(part, 0, high, what)
    except NumberError as exc:
        message = str(exc) if isinstance(exc, OutOfRange) else f"{what} of cell {quote(cell)}: {exc}"
        raise InputError(message, *where) from None


def _cell(word: str, source: str, line: int, column: int) -> tuple[int, int] | None:
    if word == ".":
        return None
    tile, slash, rotation = word.partition("/")
    if not slash:
        raise InputError(f"cell {quote(word)} is neither '.' nor TILE/ROT", source, line, column)
    return (_number(tile, len(TILES) - 1, "tile", word, (source, line, column)),
            _number(rotation, ROTATIONS - 1, "rotation", word, (source, line, column + len(tile) + 1)))


def parse_board(text: str, source: str) -> Cells:
    """A start file: the 6 board rows, each its row number then 6 cells."""
    cells: list[tuple[int, int] | None] = []
    where: dict[int, tuple[int, int]] = {}
    rows = 0
    last_line = None
    for number, line in file_lines(text, source):
        last_line = number
        found = line_words(line)
        if not found:
            continue
        first_column, first = found[0]
        if first in SNAPSHOT_KEYWORDS:
            raise InputError(f"a start file holds only the {geo.SIZE} board rows; "
                             f"'{first}' lines belong to snapshots", source, number, first_column)
        if rows == geo.SIZE:
            raise InputError(f"more than {geo.SIZE} board rows", source, number, first_column)
        if first != str(rows):
            raise InputError(f"expected row number {rows} first, got {quote(first)}", source, number,
                             first_column)
        if len(found) != geo.SIZE + 1:
            raise InputError(f"row {rows} has {len(found) - 1} cells, expected {geo.SIZE}",
                             source, number)
        for column, word in found[1:]:
            cell = _cell(word, source, number, column)
            if cell is not None:
                if cell[0] in where:
                    first_seen = where[cell[0]]
                    raise InputError(f"tile {cell[0]} is already on the board at line {first_seen[0]} "
                                     f"column {first_seen[1]}", source, number, column)
                where[cell[0]] = (number, column)
            cells.append(cell)
        rows += 1
    if rows != geo.SIZE:
        raise InputError(f"the board has {rows} rows, expected {geo.SIZE}", source, last_line)
    return tuple(cells)


def start_text(cells: Cells) -> str:
    """A start file for ``cells`` (what ``parse_board`` reads back)."""
    return "\n".join(grid_lines(cells)) + "\n"


def _by_player(values: dict[int, Any]) -> dict[str, Any]:
    return {str(p): v for p, v in values.items()}


def view_json(state: TsuroState, viewer: int | None) -> dict[str, Any]:
    """The game's part of state.json; only the viewer's own hand (viewer
    None: every hand and the pile's order, for the step log)."""
    ids = range(1, state.players + 1)
    markers = {}
    for p in ids:
        facing = state.markers[p - 1]
        info = marker_json(facing)
        markers[p] = None if info is None else {**info, "facing": list(facing)}
    view: dict[str, Any] = {
        "variant": state.variant,
        "size": geo.SIZE,
        "board": [[list(c) if c else None for c in state.cells[geo.index(r, 0):geo.index(r, geo.SIZE)]]
                  for r in range(geo.SIZE)],
        "markers": _by_player(markers),
        "out": _by_player({p: state.out[p - 1][1] for p in ids if state.out[p - 1]}),
        "pile": len(state.pile),
        "dragon": state.dragon,
        "hand_sizes": _by_player({p: len(state.hands[p - 1]) for p in ids}),
        "turn": state.current,
        "tiles": [[list(pair) for pair in t.pairs()] for t in TILES],
    }
    if viewer is None:
        view["hands"] = _by_player({p: list(state.hands[p - 1]) for p in ids})
        view["pile_tiles"] = list(state.pile)
    else:
        view["hand"] = list(state.hands[viewer - 1])
        if viewer == state.current:
            view["legal"] = [str(d) for d in state.legal_decisions()]
    return view


def position_from_view(view: dict[str, Any]) -> tuple[Cells, dict[int, Point]]:
    """Cells and the facing point of every marker still in the game, from a
    state.json view (what a built-in player needs to simulate placements)."""
    cells = tuple(tuple(c) if c else None for row in view["board"] for c in row)
    markers = {int(p): tuple(m["facing"]) for p, m in view["markers"].items()
               if m is not None and p not in view["out"]}
    return cells, markers
