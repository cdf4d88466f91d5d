"""paths.route, the search-free shortest paths, against the search itself:
for every square, player and random wall set, the same path (not only one
as short: players and their tests depend on which), its cutting walls and
its length (paths.goal_distance)."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from referee.games.quoridor.geometry import CONFLICTS, OPEN_EMPTY, SIZE, WALLS, square, wall_id
from referee.games.quoridor.paths import GOAL, cutters, goal_distance, route, shortest_path
from referee.games.quoridor.rules import with_wall


def walled(seed: int, count: int) -> tuple[int, int, int, int]:
    """The open steps left by up to ``count`` random walls that neither
    overlap nor cross (the pawns may be cut off: route must say so too)."""
    rng = random.Random(seed)
    opens, blocked, placed = OPEN_EMPTY, 0, 0
    for slot in rng.sample(range(len(WALLS)), len(WALLS)):
        if placed == count:
            break
        if not blocked >> slot & 1:
            opens, blocked, placed = with_wall(opens, slot), blocked | CONFLICTS[slot], placed + 1
    return opens


def line_distance(player: int, sq: int) -> int:
    r, c = divmod(sq, SIZE)
    return {1: r, 2: SIZE - 1 - r, 3: SIZE - 1 - c, 4: c}[player]


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 30))
def test_route_is_the_searched_path_and_its_cutters(seed, count):
    opens = walled(seed, count)
    for player in GOAL:
        for sq in range(SIZE * SIZE):
            path = shortest_path(sq, GOAL[player], opens)
            assert route(player, sq, opens) == ((path, cutters(path)) if path else (None, 0)), (player, sq)
            assert goal_distance(player, sq, opens) == (len(path) - 1 if path else None), (player, sq)


def test_random_boards_use_both_shortcuts_often():
    # the comparison above means little if the shortcuts never ran
    straight = side_step = 0
    for seed in range(40):
        opens = walled(seed, 12)
        for player in (1, 2):
            for sq in range(SIZE * SIZE):
                path, _ = route(player, sq, opens)
                if path and len(path) - 1 == line_distance(player, sq):
                    straight += 1
                elif path and len(path) - 2 == line_distance(player, sq):
                    side_step += 1
    assert straight > 1000 and side_step > 1000


def column(c: int, rows) -> list[int]:
    return [square(r, c) for r in rows]


def test_one_side_step_to_the_left_first_and_as_near_the_pawn_as_open():
    # W 5 4 5 6 closes (5,4)->(4,4): the search ends on (0,3), the lower goal
    # square, and keeps to column 3 as far back as it can: it turns at once
    opens = with_wall(OPEN_EMPTY, wall_id(5, 4, 5, 6))
    path, cut = route(1, square(8, 4), opens)
    assert path == [square(8, 4)] + column(3, range(8, -1, -1))
    assert cut == cutters(path)
    # a wall beside rows 7 and 8 of column 4: the turn moves up to row 6
    beside = with_wall(opens, wall_id(7, 4, 9, 4))
    assert route(1, square(8, 4), beside)[0] == column(4, (8, 7, 6)) + column(3, range(6, -1, -1))
    # W 5 3 5 5 closes columns 3 and 4 at row 5: to the right
    right = with_wall(OPEN_EMPTY, wall_id(5, 3, 5, 5))
    assert route(1, square(8, 4), right)[0] == [square(8, 4)] + column(5, range(8, -1, -1))
    # player 2 walks down: W 4 4 4 6 closes (3,4)->(4,4), it turns at once to column 3
    down = with_wall(OPEN_EMPTY, wall_id(4, 4, 4, 6))
    assert route(2, square(0, 4), down)[0] == [square(0, 4)] + column(3, range(0, 9))
