"""Paths to the goal lines: flood fills, the shortest path and the walls
cutting it, on the bitsets of :mod:`geometry` (pawns never block a path).

Why a module of its own: wall legality is path checks, and the shortest path
is most of their cost.  :func:`route` finds the very path
:func:`shortest_path` would, but without searching in the two cases that
make up most of a game: the straight line to the goal, and (players 1 and 2)
a line with one side step.  Everything here is a pure function of its
arguments.
"""
from __future__ import annotations

from .geometry import COL, DELTA, DOWN, LEFT, RIGHT, ROW, SIZE, STEP_CUTTERS, UP, square

Opens = tuple[int, int, int, int]

GOAL = {1: ROW[0], 2: ROW[SIZE - 1], 3: COL[SIZE - 1], 4: COL[0]}
GOAL_STEP = {1: UP, 2: DOWN, 3: RIGHT, 4: LEFT}
"""The direction that brings each player straight toward its goal line."""


def expand(frontier: int, opens: Opens) -> int:
    """The squares one open step away from ``frontier`` (frontier included)."""
    up, down, left, right = opens
    return (frontier | ((frontier & up) >> SIZE) | ((frontier & down) << SIZE)
            | ((frontier & left) >> 1) | ((frontier & right) << 1))


def reaches(start: int, goal: int, opens: Opens) -> bool:
    """Whether square ``start`` can reach the ``goal`` mask (pawns ignored).

    The flood fill grows only from the squares found last (the frontier):
    ``expand`` inlined, as this is the inner loop of wall legality."""
    up, down, left, right = opens
    seen = frontier = 1 << start
    while not seen & goal:
        grown = (((frontier & up) >> SIZE) | ((frontier & down) << SIZE)
                 | ((frontier & left) >> 1) | ((frontier & right) << 1))
        frontier = grown & ~seen
        if not frontier:
            return False
        seen |= frontier
    return True


def shortest_path(start: int, goal: int, opens: Opens) -> list[int] | None:
    """One shortest path of squares from ``start`` into ``goal`` (both ends
    included), pawns ignored; None if the goal cannot be reached.

    Deterministic: among equally short paths it ends on the lowest goal
    square and steps back through the first open direction (up, down, left,
    right), so players and tests built on it are reproducible."""
    up, down, left, right = opens
    layers = [1 << start]
    seen = frontier = layers[0]
    while not frontier & goal:
        frontier = (((frontier & up) >> SIZE) | ((frontier & down) << SIZE)
                    | ((frontier & left) >> 1) | ((frontier & right) << 1)) & ~seen
        if not frontier:
            return None
        layers.append(frontier)
        seen |= frontier
    last = frontier & goal
    cur = (last & -last).bit_length() - 1
    path = [cur]
    for i in range(len(layers) - 2, -1, -1):
        layer = layers[i]
        # the first open way back into the previous layer: from above, below, left, right
        if cur >= SIZE and (layer & down) >> (cur - SIZE) & 1:
            cur -= SIZE
        elif (layer & up) >> (cur + SIZE) & 1:
            cur += SIZE
        elif cur >= 1 and (layer & right) >> (cur - 1) & 1:
            cur -= 1
        else:
            cur += 1
        path.append(cur)
    path.reverse()
    return path


def cutters(path: list[int]) -> int:
    """Walls cutting at least one edge of ``path``: only they can disconnect it."""
    bits = 0
    prev = path[0] * 128
    for b in path[1:]:
        bits |= STEP_CUTTERS[prev + b]
        prev = b * 128
    return bits


def _straight_paths(player: int) -> list[list[int]]:
    """Per square, the straight line to ``player``'s goal."""
    paths = []
    for sq in range(SIZE * SIZE):
        path = [sq]
        while not GOAL[player] >> path[-1] & 1:
            path.append(path[-1] + DELTA[GOAL_STEP[player]])
        paths.append(path)
    return paths


STRAIGHT = {p: _straight_paths(p) for p in GOAL}
STRAIGHT_NEED = {p: [sum(1 << sq for sq in path[:-1]) for path in STRAIGHT[p]] for p in GOAL}
"""The squares whose step toward the goal must be open for the straight line."""
STRAIGHT_CUTTERS = {p: [cutters(path) for path in STRAIGHT[p]] for p in GOAL}
COLUMN_NEED = {1: [STRAIGHT_NEED[1][square(SIZE - 1, c)] for c in range(SIZE)],
               2: [STRAIGHT_NEED[2][square(0, c)] for c in range(SIZE)]}
"""Per column, the squares whose step toward the goal row must be open for
a walk to it (rows 1..8 for player 1, 0..7 for player 2)."""


def route(player: int, start: int, opens: Opens) -> tuple[list[int] | None, int]:
    """``shortest_path(start, GOAL[player], opens)`` and the walls cutting it
    (0 when there is no path).

    Without a search in two cases.  The straight line, when open, is the only
    path as short as the distance to the goal line.  Else, for players 1 and
    2, a path one step longer has exactly one side step, into the one
    neighbouring column that can be open (the wall blocking the pawn's
    column covers the other one at that height), and the search, walking
    back from the goal, keeps to that column as long as it can: so the side
    step nearest the pawn.  Players 3 and 4 (whose walk back turns at the
    other end) and longer paths are searched."""
    forward = opens[GOAL_STEP[player]]
    need = STRAIGHT_NEED[player][start]
    blocked = need & ~forward
    if not blocked:
        return STRAIGHT[player][start].copy(), STRAIGHT_CUTTERS[player][start]
    if player <= 2:
        found = _side_step(player, start, opens, forward, need, blocked)
        if found is not None:
            return found
    path = shortest_path(start, GOAL[player], opens)
    return (None, 0) if path is None else (path, cutters(path))


def goal_distance(player: int, start: int, opens: Opens) -> int | None:
    """The length of :func:`route`'s path (None without one), for when only
    the length is wanted (a search's leaves): the same shortcuts, and else a
    flood fill that counts its layers, without the walk back."""
    forward = opens[GOAL_STEP[player]]
    need = STRAIGHT_NEED[player][start]
    blocked = need & ~forward
    line = len(STRAIGHT[player][start]) - 1
    if not blocked:
        return line
    if player <= 2 and _side_step(player, start, opens, forward, need, blocked) is not None:
        return line + 1
    up, down, left, right = opens
    goal = GOAL[player]
    seen = frontier = 1 << start
    steps = 0
    while not frontier & goal:
        frontier = (((frontier & up) >> SIZE) | ((frontier & down) << SIZE)
                    | ((frontier & left) >> 1) | ((frontier & right) << 1)) & ~seen
        if not frontier:
            return None
        seen |= frontier
        steps += 1
    return steps


def _side_step(player: int, start: int, opens: Opens, forward: int, need: int,
               blocked: int) -> tuple[list[int], int] | None:
    """The one-side-step path :func:`route` describes (player 1 walks to
    lower square indices, player 2 to higher), or None if there is none."""
    up = player == 1
    # the pawn can walk its column as far as the first blocked step, and
    # must leave it there or before: those squares are where it may turn
    stop = blocked.bit_length() - 1 if up else (blocked & -blocked).bit_length() - 1
    turns = (need & ~STRAIGHT_NEED[player][stop]) | 1 << stop
    column = start % SIZE
    for side, delta in ((LEFT, -1), (RIGHT, 1)):
        lands = turns & opens[side]
        if not lands:
            continue
        lands = lands >> 1 if delta < 0 else lands << 1
        # from where it lands, the new column must be open all the way
        walls = COLUMN_NEED[player][column + delta] & ~forward
        if walls and up:
            lands &= (walls & -walls) - 1  # below the block nearest the goal
        elif walls:
            lands &= ~((1 << walls.bit_length()) - 1)
        if lands:
            land = lands.bit_length() - 1 if up else (lands & -lands).bit_length() - 1
            turn = land - delta
            line = STRAIGHT[player][start]
            path = line[:abs(turn - start) // SIZE + 1] + STRAIGHT[player][land]
            cut = (STRAIGHT_CUTTERS[player][start] & ~STRAIGHT_CUTTERS[player][turn]
                   | STEP_CUTTERS[turn * 128 + land] | STRAIGHT_CUTTERS[player][land])
            return path, cut
    return None
