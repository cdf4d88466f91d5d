"""Cantris properties over random boards and random play (hypothesis)."""
from __future__ import annotations

import copy
import random

from hypothesis import given, settings, strategies as st

from referee.core.game import Setup
from referee.core.match import Match, MatchSpec, Observer, prepare
from referee.core.players import Reply
from referee.core.runner import RunResult
from referee.games.cantris import GAME
from referee.games.cantris.rules import CantrisState
from referee import replay

SIZES = [(6, 3), (8, 4), (10, 5), (4, 6)]


@st.composite
def boards(draw):
    rows, cols = draw(st.sampled_from(SIZES))
    cells = draw(st.lists(st.integers(1, cols), min_size=rows * cols, max_size=rows * cols))
    return tuple(tuple(cells[r * cols:(r + 1) * cols]) for r in range(rows))


def tiles(state: CantrisState) -> int:
    return sum(1 for row in state.board for v in row if v)


@settings(max_examples=60, deadline=None)
@given(boards(), st.randoms(use_true_random=False))
def test_apply_never_mutates_points_grow_tiles_fall(board, rnd):
    state = CantrisState(board)
    while not state.is_terminal():
        before = copy.deepcopy(state)
        player = state.current_player()
        move = rnd.choice(state.legal_decisions())
        after, events = state.apply(player, move)
        assert state == before  # the input state is untouched
        assert all(a >= b for a, b in zip(after.points, state.points))
        gained = after.points[player - 1] - state.points[player - 1]
        assert gained == sum(e["points"] for e in events if "points" in e) > 0
        assert tiles(after) < tiles(state)
        state = after
    assert any(all(row[c] == 0 for row in state.board) for c in range(len(board[0])))


class RandomAgent:
    """An in-process agent: the match loop, log and replay are exercised
    without paying for a process per step."""

    name = "inline-random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def decide(self, workdir, step, player, state):
        move = self.rng.choice(state.legal_decisions())
        return Reply(f"{move}\n", RunResult(exit_code=0))


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["6x3-1", "8x4-handout", "10x5-2"]), st.integers(0, 10**6))
def test_replay_of_any_logged_match_verifies(tmp_path_factory, board, seed):
    from conftest import BOARDS

    out = tmp_path_factory.mktemp("m") / "match"
    spec = MatchSpec("cantris", ["builtin:random", "builtin:random"],
                     board=BOARDS / "cantris" / f"{board}.txt", seed=seed, out=out)
    prepared = prepare(spec)
    prepared.agents = [RandomAgent(seed), RandomAgent(seed + 1)]
    result = Match(prepared, Observer()).run()
    loaded = replay.load(out)
    assert len(loaded.records) == result.steps
    assert replay.verify(loaded) is None
    states = [s for _, s in loaded.states()]
    assert states[-1].is_terminal()
    assert states[-1].outcome() == result.outcome


def test_initial_state_does_not_depend_on_seed():
    a = GAME.initial_state(Setup("standard", 2, 1))
    b = GAME.initial_state(Setup("standard", 2, 2))
    assert a == b
