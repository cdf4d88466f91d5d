"""The Cantris second-seat analysis (tests/bench/cantris_second_mover.py) is
only as good as its two searches: both are checked here against plain
enumeration (exact values memoised per position, no cut-offs, no bounds) on
small boards and on late 10x5 positions (two removals a turn), and the 6x3
facts the docs quote are pinned."""
from __future__ import annotations

import importlib.util
import random
from functools import lru_cache
from pathlib import Path

import pytest

from referee.games.cantris.rules import CantrisState

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "cantris_second_mover", ROOT / "tests" / "bench" / "cantris_second_mover.py")
solve = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(solve)
GREEDY = solve.load_greedy()


def small_board(seed: int, rows: int = 4, cols: int = 3) -> CantrisState:
    rng = random.Random(seed)
    return CantrisState(tuple(tuple(rng.randint(1, cols) for _ in range(cols)) for _ in range(rows)))


def late_10x5(seed: int) -> CantrisState:
    """A 10x5 board (two removals a turn) with 2-3 tiles left per column."""
    rng = random.Random(seed)
    heights = [rng.randint(2, 3) for _ in range(5)]
    return CantrisState(tuple(tuple(rng.randint(1, 5) if 10 - r <= h else 0 for h in heights)
                              for r in range(10)))


BOARDS = [small_board(seed) for seed in range(6)] + [late_10x5(seed) for seed in range(4)]


@lru_cache(maxsize=None)
def negamax(state: CantrisState) -> int:
    """Points still to come, side to move minus the other, by enumeration."""
    best = None
    for move in state.legal_decisions():
        gain, child = solve.gain_of(state, move)
        if child.over:
            value = gain
        elif child.current_player() == state.current_player():
            value = gain + negamax(solve.fresh(child))
        else:
            value = gain - negamax(solve.fresh(child))
        best = value if best is None else max(best, value)
    return best


@lru_cache(maxsize=None)
def best_against_greedy(state: CantrisState) -> int:
    """The same question as AgainstGreedy, enumerated independently."""
    best = None
    for move in state.legal_decisions():
        gain, child = solve.gain_of(state, move)
        if not child.over and child.current_player() == state.current_player():
            gain += best_against_greedy(solve.fresh(child))
        elif not child.over:
            after = child
            while not after.over and after.current_player() == child.current_player():
                lost, after = solve.gain_of(after, GREEDY(after.board))
                gain -= lost
            if not after.over:
                gain += best_against_greedy(solve.fresh(after))
        best = gain if best is None else max(best, gain)
    return best


@pytest.mark.parametrize("state", BOARDS)
def test_perfect_play_value_is_the_brute_force_one(state):
    exact = negamax(state)
    solver = solve.PerfectPlay()
    assert solver.value(state, exact - 1, exact) >= exact   # not below the true value
    assert solver.value(state, exact, exact + 1) <= exact   # not above it
    for behind in (exact - 1, exact, exact + 1):
        expected = "WIN" if exact > behind else ("DRAW" if exact == behind else "LOSS")
        assert solve.PerfectPlay().result(state, behind) == expected


@pytest.mark.parametrize("state", [small_board(seed, rows=5) for seed in range(6)] + BOARDS[6:])
def test_best_margin_against_greedy_is_the_brute_force_one(state):
    assert solve.AgainstGreedy(GREEDY).value(state) == best_against_greedy(state)


def test_the_documented_6x3_second_seat_facts():
    """docs/strong-players.md: after greedy's first removal on 6x3-1 the second
    player is lost, and even knowing greedy's replies it loses by 6."""
    path = ROOT / "boards" / "cantris" / "6x3-1.txt"
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    board = tuple(tuple(int(w) for w in line.split()) for line in lines)
    solver = solve.AgainstGreedy(GREEDY)
    scored, state = solver.greedy_turn(CantrisState(board))
    assert scored == 12
    assert solve.PerfectPlay().result(solve.fresh(state), scored) == "LOSS"
    assert solver.value(solve.fresh(state)) - scored == -6
