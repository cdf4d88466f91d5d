"""The fixed geometry of the 9x9 board, precomputed once as bitmasks.

A position is a handful of Python ints used as bitsets: square ``r*9 + c``
is bit ``r*9 + c``, and for each direction a mask says from which squares a
step that way is open.  Reachability is then a flood fill of a few shifts per
layer, which is what makes path checks for 128 candidate walls affordable in
pure Python.  Walls have ids 0..127 (64 horizontal, then 64 vertical) so the
placed walls and the walls they rule out are bitsets too.
"""
from __future__ import annotations

from typing import NamedTuple

SIZE = 9
SQUARES = SIZE * SIZE
ALL_SQUARES = (1 << SQUARES) - 1

UP, DOWN, LEFT, RIGHT = range(4)
DIRECTIONS = (UP, DOWN, LEFT, RIGHT)
DELTA = {UP: -SIZE, DOWN: SIZE, LEFT: -1, RIGHT: 1}
STEP = {UP: (-1, 0), DOWN: (1, 0), LEFT: (0, -1), RIGHT: (0, 1)}
PERPENDICULAR = {UP: (LEFT, RIGHT), DOWN: (LEFT, RIGHT), LEFT: (UP, DOWN), RIGHT: (UP, DOWN)}


def square(r: int, c: int) -> int:
    return r * SIZE + c


def coords(sq: int) -> tuple[int, int]:
    return divmod(sq, SIZE)


def on_board(r: int, c: int) -> bool:
    return 0 <= r < SIZE and 0 <= c < SIZE


def _mask(squares) -> int:
    bits = 0
    for r, c in squares:
        bits |= 1 << square(r, c)
    return bits


ROW = [_mask((r, c) for c in range(SIZE)) for r in range(SIZE)]
COL = [_mask((r, c) for r in range(SIZE)) for c in range(SIZE)]

OPEN_EMPTY = (
    ALL_SQUARES & ~ROW[0],            # UP: every square but the top row
    ALL_SQUARES & ~ROW[SIZE - 1],     # DOWN
    ALL_SQUARES & ~COL[0],            # LEFT
    ALL_SQUARES & ~COL[SIZE - 1],     # RIGHT
)
"""Open-step masks of the empty board, indexed by direction."""


class WallGeometry(NamedTuple):
    """One of the 128 wall slots: its endpoints and what it blocks."""

    id: int
    horizontal: bool
    r1: int
    c1: int
    r2: int
    c2: int
    blocks: tuple[int, int, int, int]
    """Per direction, the squares whose step that way this wall closes."""
    edges: tuple[tuple[int, int], ...]
    """The two square-to-square edges it cuts (lower square first)."""


def _build_walls() -> list[WallGeometry]:
    walls = []
    for horizontal in (True, False):
        for a in range(SIZE - 1):
            for b in range(SIZE - 1):
                blocks = [0, 0, 0, 0]
                if horizontal:
                    # (r, c)-(r, c+2): between rows r-1 and r, columns c and c+1
                    r, c = a + 1, b
                    ends = (r, c, r, c + 2)
                    pairs = [(square(r - 1, c + k), square(r, c + k)) for k in (0, 1)]
                    for upper, lower in pairs:
                        blocks[DOWN] |= 1 << upper
                        blocks[UP] |= 1 << lower
                else:
                    # (r, c)-(r+2, c): between columns c-1 and c, rows r and r+1
                    r, c = a, b + 1
                    ends = (r, c, r + 2, c)
                    pairs = [(square(r + k, c - 1), square(r + k, c)) for k in (0, 1)]
                    for left, right in pairs:
                        blocks[RIGHT] |= 1 << left
                        blocks[LEFT] |= 1 << right
                walls.append(WallGeometry(len(walls), horizontal, *ends, tuple(blocks), tuple(pairs)))
    return walls


WALLS = _build_walls()
WALL_COUNT = len(WALLS)
ALL_WALLS = (1 << WALL_COUNT) - 1
WALL_ID = {(w.r1, w.c1, w.r2, w.c2): w.id for w in WALLS}


def wall_id(r1: int, c1: int, r2: int, c2: int) -> int | None:
    """The slot of a wall given by its endpoints (either order), or None."""
    found = WALL_ID.get((r1, c1, r2, c2))
    return found if found is not None else WALL_ID.get((r2, c2, r1, c1))


def _conflicts(w: WallGeometry) -> int:
    """Walls that ``w`` overlaps (shares a segment with) or crosses, itself included."""
    if w.horizontal:
        same = [(w.r1, w.c1 + d, w.r1, w.c1 + d + 2) for d in (-1, 0, 1)]
        crossing = (w.r1 - 1, w.c1 + 1, w.r1 + 1, w.c1 + 1)
    else:
        same = [(w.r1 + d, w.c1, w.r1 + d + 2, w.c1) for d in (-1, 0, 1)]
        crossing = (w.r1 + 1, w.c1 - 1, w.r1 + 1, w.c1 + 1)
    bits = 0
    for ends in [*same, crossing]:
        other = WALL_ID.get(ends)
        if other is not None:
            bits |= 1 << other
    return bits


CONFLICTS = [_conflicts(w) for w in WALLS]

EDGE_CUTTERS: dict[tuple[int, int], int] = {}
"""For each square-to-square edge (lower square first), the walls cutting it."""
for _w in WALLS:
    for _edge in _w.edges:
        EDGE_CUTTERS[_edge] = EDGE_CUTTERS.get(_edge, 0) | (1 << _w.id)


GRID = SIZE + 1
"""Grid points (wall ends) are ``r*GRID + c`` for r, c in 0..SIZE."""


def _grid_points(w: WallGeometry) -> int:
    """The three grid points a wall runs through (two ends and its middle)."""
    dr, dc = (w.r2 - w.r1) // 2, (w.c2 - w.c1) // 2
    return sum(1 << ((w.r1 + k * dr) * GRID + w.c1 + k * dc) for k in range(3))


WALL_POINTS = [_grid_points(w) for w in WALLS]
BORDER_POINTS = sum(1 << (r * GRID + c) for r in range(GRID) for c in range(GRID)
                    if r in (0, SIZE) or c in (0, SIZE))
"""Why grid points matter: the walls and the border form a planar drawing,
and a new wall can only close off a region of squares if it closes a loop in
that drawing (see clusters.py, which keeps the drawing's connected pieces)."""


ON_BORDER = sum(1 << w.id for w in WALLS if WALL_POINTS[w.id] & BORDER_POINTS)
"""Walls with an end on the border (a wall is too short to touch it twice)."""


def _byte_tables(items: list) -> list[list[tuple]]:
    """``table[k][b]``: the items whose index bits are set in byte ``b`` of
    byte-position ``k``; turns a bitset into a list 8 bits at a time."""
    tables = []
    for k in range(0, len(items), 8):
        chunk = items[k:k + 8]
        table: list[tuple] = [()]
        for b in range(1, 256):  # byte b's items: its lowest bit's, then those of b less that bit
            low, rest = (b & -b).bit_length() - 1, table[b & (b - 1)]
            table.append((chunk[low], *rest) if low < len(chunk) else rest)
        tables.append(table)
    return tables  # built from smaller bytes: each module start pays ~1 ms, not ~12


STEP_CUTTERS: dict[int, int] = {}
"""The walls cutting a step, keyed ``from * 128 + to`` (both directions): an
int key, as this lookup runs once per step of every path checked."""
for (_a, _b), _bits in EDGE_CUTTERS.items():
    STEP_CUTTERS[_a * 128 + _b] = STEP_CUTTERS[_b * 128 + _a] = _bits


def bits_of(mask: int):
    """The indices of the set bits, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _neighbours(sq: int) -> dict[int, int]:
    """The on-board squares one step from ``sq``, by direction."""
    r, c = coords(sq)
    return {d: sq + DELTA[d] for d in DIRECTIONS if on_board(r + STEP[d][0], c + STEP[d][1])}


def _steps() -> list[list[tuple[int, ...]]]:
    """``STEPS[sq][m]``: the squares one step from ``sq`` in the directions
    whose bits are set in ``m`` (bit d = direction d), in increasing order
    (up, left, right, down), as the legal moves list them."""
    table = []
    for sq in range(SQUARES):
        near = _neighbours(sq)
        table.append([tuple(sorted(t for d, t in near.items() if m >> d & 1)) for m in range(16)])
    return table


STEPS = _steps()
"""Pawn moves when no other pawn is adjacent: a table lookup instead of the
jump rules, which is nearly every position of a game."""
NEAR = [sum(1 << t for t in _neighbours(sq).values()) for sq in range(SQUARES)]
"""The orthogonal neighbours of each square, as a bitset."""
