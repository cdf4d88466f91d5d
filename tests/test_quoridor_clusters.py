"""The wall clusters (referee/games/quoridor/clusters.py) against a slow, plain
model: clusters by union-find over grid points, regions by counting flood
fills.  The legal-wall filter is only as good as the claim tested here: a
wall makes more regions of squares exactly when it closes a loop."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from referee.games.quoridor.clusters import EMPTY, add_wall, loop_closing
from referee.games.quoridor.geometry import CONFLICTS, GRID, SIZE, WALLS, WALL_POINTS, bits_of, wall_id
from referee.games.quoridor.rules import QuoridorState, Wall, with_wall


def random_walls(seed: int, count: int) -> list[int]:
    """Slots of up to ``count`` walls that neither overlap nor cross."""
    rng = random.Random(seed)
    placed, blocked = [], 0
    for slot in rng.sample(range(len(WALLS)), len(WALLS)):
        if len(placed) == count:
            break
        if not blocked >> slot & 1:
            placed.append(slot)
            blocked |= CONFLICTS[slot]
    return placed


def plain_loop_closing(placed: list[int]) -> int:
    """Slots touching one connected piece of border-plus-walls at two or more
    grid points, by union-find over the points."""
    parent = list(range(GRID * GRID))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    def join(a: int, b: int) -> None:
        parent[find(a)] = find(b)

    border = [r * GRID + c for r in range(GRID) for c in range(GRID) if r in (0, SIZE) or c in (0, SIZE)]
    for point in border:
        join(point, border[0])
    drawn = set(border)
    for slot in placed:
        a, mid, b = sorted(bits_of(WALL_POINTS[slot]))
        join(a, mid)
        join(mid, b)
        drawn |= {a, mid, b}
    found = 0
    for w in WALLS:
        roots = [find(p) for p in bits_of(WALL_POINTS[w.id]) if p in drawn]
        if len(roots) != len(set(roots)):
            found |= 1 << w.id
    return found


def regions(opens: tuple[int, int, int, int]) -> int:
    """How many pieces the squares fall into, one flood fill per piece."""
    steps = ((0, -SIZE), (1, SIZE), (2, -1), (3, 1))
    unseen, count = set(range(SIZE * SIZE)), 0
    while unseen:
        count += 1
        todo = [unseen.pop()]
        while todo:
            sq = todo.pop()
            for d, delta in steps:
                if opens[d] >> sq & 1 and sq + delta in unseen:
                    unseen.remove(sq + delta)
                    todo.append(sq + delta)
    return count


def arranged(placed: list[int]) -> QuoridorState:
    walls = [Wall(WALLS[s].r1, WALLS[s].c1, WALLS[s].r2, WALLS[s].c2) for s in placed]
    return QuoridorState.arrange(2, {1: (8, 4), 2: (0, 4)}, walls, {1: 10, 2: 10}, 1)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 24))
def test_loop_closing_walls_are_those_touching_one_piece_twice(seed, count):
    placed = random_walls(seed, count)
    clusters = EMPTY
    for slot in placed:
        clusters = add_wall(clusters, slot)
    assert loop_closing(clusters) == plain_loop_closing(placed)
    backwards = EMPTY
    for slot in reversed(placed):
        backwards = add_wall(backwards, slot)
    assert loop_closing(backwards) == loop_closing(clusters)
    assert arranged(placed).clusters == clusters


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 24))
def test_a_wall_makes_more_regions_exactly_when_it_closes_a_loop(seed, count):
    placed = random_walls(seed, count)
    state = arranged(placed)
    loops, before = loop_closing(state.clusters), regions(state.opens)
    for w in WALLS:
        if state.blocked >> w.id & 1:
            continue
        assert (regions(with_wall(state.opens, w.id)) > before) == bool(loops >> w.id & 1), w


def test_a_wall_from_border_to_a_wall_touching_the_border_closes_a_loop():
    # W 8 0 8 2 touches the border at (8, 0); W 7 2 9 2 (a vertical wall up
    # from the bottom border) meets its end at (8, 2): a corner pocket
    state = arranged([wall_id(7, 2, 9, 2)])
    pocket = wall_id(8, 0, 8, 2)
    assert loop_closing(state.clusters) >> pocket & 1
    assert regions(with_wall(state.opens, pocket)) == 2
