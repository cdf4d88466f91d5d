"""The placed walls and the border as a planar drawing, kept as its connected
pieces ("clusters"), so that the walls able to cut a pawn off are known
without looking at a single square.

Why this is exact: a new wall cuts the squares into more regions only if it
closes a loop in the drawing, and it closes a loop exactly when two of its
three grid points (two ends, middle) touch the *same* cluster: then that
cluster holds a line between them, and line plus wall form a closed curve.
A wall touching two different clusters only joins them, and a region without
a new boundary loses no square.  Only the loop-closing walls need a path check.

A cluster is ``(points, once, twice)``: its grid points, the wall slots
touching at least one of them and the slots touching at least two.  A
position holds a tuple of clusters (the border is one of them),
updated per placed wall in O(clusters) by :func:`add_wall`; their order
follows the order of placement, what they hold only the walls placed.
"""
from __future__ import annotations

from .geometry import BORDER_POINTS, GRID, ON_BORDER, WALL_POINTS, WALLS, bits_of

Cluster = tuple[int, int, int]
Clusters = tuple[Cluster, ...]


def _point_slots() -> list[int]:
    """For every grid point, the bitset of wall slots running through it."""
    slots = [0] * (GRID * GRID)
    for w in WALLS:
        for point in bits_of(WALL_POINTS[w.id]):
            slots[point] |= 1 << w.id
    return slots


POINT_SLOTS = _point_slots()

EMPTY: Clusters = ((BORDER_POINTS, ON_BORDER, 0),)
"""The border alone: no wall is short enough to touch it twice."""


def add_wall(clusters: Clusters, slot: int) -> Clusters:
    """``clusters`` with wall ``slot`` added: the clusters it touches merge
    with it into one.  Point sets of distinct clusters are disjoint, so the
    merged ``twice`` is each part's ``twice`` plus what two parts share; the
    wall's own points outside every cluster are the last part."""
    points = WALL_POINTS[slot]
    touched, once, twice = 0, 0, 0
    kept: list[Cluster] = []
    for cluster in clusters:
        if cluster[0] & points:
            twice |= cluster[2] | (once & cluster[1])
            once |= cluster[1]
            touched |= cluster[0]
        else:
            kept.append(cluster)
    for point in bits_of(points & ~touched):
        through = POINT_SLOTS[point]
        twice |= once & through
        once |= through
    kept.append((touched | points, once, twice))
    return tuple(kept)


def loop_closing(clusters: Clusters) -> int:
    """Bitset of the slots that touch one cluster at two or more points."""
    found = 0
    for cluster in clusters:
        found |= cluster[2]
    return found
