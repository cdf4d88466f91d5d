"""The 6x6 board: geometry, perimeter start positions, and what one
placement does to the markers.  Pure functions over immutable values.

A marker is stored as the point it *faces*: ``(row, col, port)`` of the cell
it will enter next.  A marker on its start position faces a perimeter cell; a
marker that has left the board faces a cell off the board.  The cell it
stands on (the last one it crossed, or the virtual cell just outside the
board before its first move) is the other side of that point: ``across``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from .decisions import Place
from .tiles import ROTATIONS, TILES

SIZE = 6
PERIMETER = 4 * 2 * SIZE  # 48 start positions

Cell = tuple[int, int]          # (tile id, rotation)
Cells = tuple[Cell | None, ...]  # SIZE * SIZE, row-major
Point = tuple[int, int, int]    # (row, col, port), seen from that cell
Segment = tuple[int, int, int, int]  # (row, col, low port, high port): one path of one tile

EMPTY: Cells = (None,) * (SIZE * SIZE)

# Port p lies on side p // 2 (0 top, 1 right, 2 bottom, 3 left); the
# neighbour on that side sees the same point as OPPOSITE[p].
OPPOSITE = (5, 4, 7, 6, 1, 0, 3, 2)
SIDE_STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


def index(row: int, col: int) -> int:
    return row * SIZE + col


def across(point: Point) -> Point:
    """The same point seen from the neighbouring cell."""
    row, col, port = point
    dr, dc = SIDE_STEP[port // 2]
    return row + dr, col + dc, OPPOSITE[port]


def canonical(point: Point) -> Point:
    """One name for a point whichever side it is seen from."""
    return min(point, across(point))


def perimeter(position: int) -> Point:
    """Start position 0..47 as the on-board (row, col, port) it faces.

    Clockwise from the top-left corner: top edge left to right (ports 0, 1),
    right edge top to bottom (2, 3), bottom edge right to left (4, 5), left
    edge bottom to top (6, 7)."""
    side, k = divmod(position, 2 * SIZE)
    step, half = divmod(k, 2)
    port = 2 * side + half
    if side == 0:
        return 0, step, port
    if side == 1:
        return step, SIZE - 1, port
    if side == 2:
        return SIZE - 1, SIZE - 1 - step, port
    return SIZE - 1 - step, 0, port


START_OF = {perimeter(p): p for p in range(PERIMETER)}


def start_position(facing: Point) -> int | None:
    """The start position a marker still stands on, or None once it moved."""
    stand = across(facing)
    return START_OF.get(facing) if not on_board(stand[0], stand[1]) else None


def free_starts(cells: Cells, taken: Iterable[Point | None]) -> list[int]:
    """Start positions no marker holds whose perimeter cell is still empty."""
    held = set(taken)
    return [s for s in range(PERIMETER)
            if perimeter(s) not in held and cell_at(cells, *perimeter(s)[:2]) is None]


def cell_at(cells: Cells, row: int, col: int) -> Cell | None:
    return cells[index(row, col)] if on_board(row, col) else None


def follow(cells: Cells, facing: Point) -> tuple[list[Segment], Point]:
    """Walk a marker along the paths until it faces an empty cell or the
    edge: the segments it crossed and the point it ends up facing."""
    trail: list[Segment] = []
    row, col, port = facing
    while (cell := cell_at(cells, row, col)) is not None:
        tile, rotation = cell
        out = TILES[tile].exit(rotation, port)
        trail.append((row, col, min(port, out), max(port, out)))
        row, col, port = across((row, col, out))
    return trail, (row, col, port)


@dataclass(frozen=True)
class Placement:
    """What placing one tile did: the new cells, every active marker's new
    facing point, the segments each moved marker crossed, and who is out."""

    cells: Cells
    markers: Mapping[int, Point]
    trails: Mapping[int, list[Segment]]
    eliminated: Mapping[int, str]   # player -> "edge" | "collision"


def place(cells: Cells, markers: Mapping[int, Point], tile: int, rotation: int,
          row: int, col: int) -> Placement:
    """Put ``tile`` on the empty cell (row, col) and move every marker facing it.

    Markers move simultaneously: two that cross the same path segment (head
    on) or end on the same point collide and are both out; a marker that
    ends facing off the board has reached the edge and is out."""
    new_cells = list(cells)
    new_cells[index(row, col)] = (tile, rotation % ROTATIONS)
    placed = tuple(new_cells)
    moved: dict[int, Point] = dict(markers)
    trails: dict[int, list[Segment]] = {}
    for player, facing in markers.items():
        if facing[:2] == (row, col):
            trails[player], moved[player] = follow(placed, facing)
    eliminated: dict[int, str] = {}
    seen_segment: dict[Segment, int] = {}
    for player, trail in trails.items():
        for segment in trail:
            other = seen_segment.setdefault(segment, player)
            if other != player:
                eliminated[player] = eliminated[other] = "collision"
    seen_point: dict[Point, int] = {}
    for player, facing in moved.items():
        other = seen_point.setdefault(canonical(facing), player)
        if other != player:
            eliminated[player] = eliminated[other] = "collision"
    for player in trails:
        if not on_board(*moved[player][:2]):
            eliminated.setdefault(player, "edge")
    return Placement(placed, moved, trails, eliminated)


def stand_cell(facing: Point) -> tuple[int, int]:
    """The cell the marker stands on (virtual, off the board, at its start)."""
    row, col, _ = across(facing)
    return row, col


def target_cells(variant: str, cells: Cells, facing: Point) -> list[tuple[int, int]]:
    """The empty cells the marker's owner may place on, row-major.

    ``seed``: the 8 cells around the cell the marker stands on; ``classic``:
    the cell in front of it."""
    if variant == "classic":
        return [facing[:2]] if cell_at(cells, *facing[:2]) is None else []
    sr, sc = stand_cell(facing)
    return [(r, c) for r in range(sr - 1, sr + 2) for c in range(sc - 1, sc + 2)
            if (r, c) != (sr, sc) and on_board(r, c) and cells[index(r, c)] is None]


def candidates(variant: str, cells: Cells, facing: Point, hand: tuple[int, ...]) -> list[Place]:
    """Every placement on a target cell, in (index, rotation, cell) order."""
    targets = target_cells(variant, cells, facing)
    return [Place(i, rot, r, c) for i in range(len(hand)) for rot in range(ROTATIONS)
            for r, c in targets]


def outcomes(variant: str, cells: Cells, markers: Mapping[int, Point], player: int,
             hand: Iterable[int]) -> list[tuple[Place, Placement]]:
    """Each candidate placement of ``player`` with what it would do."""
    hand = tuple(hand)
    return [(p, place(cells, markers, hand[p.index], p.rotation, p.row, p.col))
            for p in candidates(variant, cells, markers[player], hand)]


def placements(variant: str, cells: Cells, markers: Mapping[int, Point], player: int,
               hand: Iterable[int]) -> list[Place]:
    """Every legal placement for ``player``, in (index, rotation, cell) order.

    ``classic`` forbids a placement that eliminates the mover unless every
    placement of every hand tile does."""
    hand = tuple(hand)
    if variant != "classic":
        return candidates(variant, cells, markers[player], hand)
    results = outcomes(variant, cells, markers, player, hand)
    safe = [p for p, result in results if player not in result.eliminated]
    return safe or [p for p, _ in results]
