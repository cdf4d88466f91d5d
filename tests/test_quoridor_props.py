"""Quoridor properties over random games (hypothesis): the generated legal
moves are exactly what illegal_reason accepts, the path-check shortcut agrees
with a brute-force check, states never change, drawings round-trip."""
from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings, strategies as st

from referee.games.quoridor import GAME
from referee.games.quoridor.codec import board_text, parse_board, parse_decision
from referee.games.quoridor.geometry import CONFLICTS, WALLS, bits_of
from referee.games.quoridor.rules import (
    GOAL, PASS, Move, QuoridorState, Wall, reaches, shortest_path, with_wall,
)


def brute_force_walls(state: QuoridorState) -> set[Wall]:
    """Every wall slot placed and every active player's reachability checked
    with a full flood fill (no shortcut)."""
    if state.walls_left[state.turn - 1] == 0:
        return set()
    legal = set()
    for w in WALLS:
        if state.walls & CONFLICTS[w.id]:
            continue
        opens = with_wall(state.opens, w.id)
        if all(reaches(state.pawns[p - 1], GOAL[p], opens) for p in state.active()):
            legal.add(Wall(w.r1, w.c1, w.r2, w.c2))
    return legal


def random_decision(rng: random.Random, state: QuoridorState):
    """A decision that may or may not be legal."""
    if rng.random() < 0.5:
        r, c = state.pawn(state.turn)
        return Move(r, c, r + rng.randint(-2, 2), c + rng.randint(-2, 2))
    r, c = rng.randint(-1, 10), rng.randint(-1, 10)
    return Wall.of(r, c, *rng.choice([(r, c + 2), (r + 2, c), (r + 1, c + 1)]))


def games(players: int):
    return st.tuples(st.integers(0, 2**32), st.integers(10, 90)).map(lambda t: (players, *t))


@settings(max_examples=50, deadline=None)
@given(st.one_of(games(2), games(4), games(1)))
def test_random_games_keep_every_invariant(params):
    players, seed, plies = params
    rng = random.Random(seed)
    state = QuoridorState.start(players)
    for ply in range(plies):
        if state.is_terminal():
            break
        legal = state.legal_decisions()
        assert legal and len(set(legal)) == len(legal)
        for decision in legal:
            assert state.illegal_reason(decision) is None, decision
        for _ in range(10):
            decision = random_decision(rng, state)
            assert (state.illegal_reason(decision) is None) == (decision in legal), decision
        if ply % 6 == 0:
            walls = {d for d in legal if isinstance(d, Wall)}
            assert walls == brute_force_walls(state)
            among = rng.getrandbits(128)  # asked about some slots only, before all of them
            assert dataclasses.replace(state).legal_walls(among) == state.legal_walls() & among
            assert (PASS in legal) == (legal == [PASS])
            again = parse_board(board_text(state), "snapshot")
            assert again.to_json() == {**state.to_json(), "ply_cap": again.ply_cap}
            assert set(GAME.state_from_json(GAME.view_json(state, 1)).legal_decisions()) == set(legal)
        before = state.to_json()
        decision = rng.choice(legal)
        after, events = state.apply(state.turn, parse_decision(str(decision)))
        assert state.to_json() == before
        assert events and after.ply == state.ply + 1
        if players == 4 and rng.random() < 0.03 and len(after.active()) > 1 and not after.is_terminal():
            victim = rng.choice(after.active())
            after, _ = after.eject(victim)
            assert after.pawn(victim) is None and after.turn != victim
        state = after
    if state.is_terminal() and state.winner is not None and len(state.active()) > 1:
        assert GOAL[state.winner] >> state.pawns[state.winner - 1] & 1


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32))
def test_paths_are_shortest_and_made_of_open_steps(seed):
    rng = random.Random(seed)
    state = QuoridorState.start(2)
    for _ in range(rng.randint(0, 30)):
        if state.is_terminal():
            break
        state, _ = state.apply(state.turn, rng.choice(state.legal_decisions()))
    if state.is_terminal():
        return
    for player in state.active():
        path = state.path(player)
        assert path[0] == state.pawns[player - 1] and GOAL[player] >> path[-1] & 1
        # the straight-line shortcut returns what the search would
        assert path == shortest_path(state.pawns[player - 1], GOAL[player], state.opens)
        for a, b in zip(path, path[1:]):
            direction = {-9: 0, 9: 1, -1: 2, 1: 3}[b - a]
            assert state.opens[direction] >> a & 1
        # no square of the goal is nearer: a breadth-first count agrees
        frontier, seen, steps = {path[0]}, {path[0]}, 0
        while not any(GOAL[player] >> sq & 1 for sq in frontier):
            nxt = set()
            for sq in frontier:
                for d, delta in enumerate((-9, 9, -1, 1)):
                    if state.opens[d] >> sq & 1 and sq + delta not in seen:
                        nxt.add(sq + delta)
            seen |= nxt
            frontier, steps = nxt, steps + 1
        assert steps == len(path) - 1


def test_every_wall_blocks_exactly_its_two_edges():
    for w in WALLS:
        assert sum(bin(mask).count("1") for mask in w.blocks) == 4
        assert w.id in bits_of(CONFLICTS[w.id])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([2, 4]))
def test_distances_handed_down_by_apply_are_the_searched_ones(seed, players):
    # apply gives a child the parent's paths that are still shortest (and a
    # grandchild those of the child...): the distances must be exactly what
    # a search from scratch finds
    rng = random.Random(seed)
    state, handed = QuoridorState.start(players), 0
    while not state.is_terminal() and state.ply < 120:
        legal = state.legal_decisions()
        state, _ = state.apply(state.turn, rng.choice(legal))
        fresh = dataclasses.replace(state)  # no cache: the distance alone, counted
        for player in state.active():
            handed += -player in state._cache  # a path handed down (rules.py's _cache)
            searched = len(shortest_path(state.pawns[player - 1], GOAL[player], state.opens)) - 1
            assert state.distance(player) == searched
            assert fresh.distance(player) == searched
    assert handed > 0
