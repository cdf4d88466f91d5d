"""Black Hole Escape properties (hypothesis): the generated legal moves and
the validation agree, apply never mutates, states survive JSON."""
from __future__ import annotations

import copy
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_pass_exactly_when_stuck, random_play
from referee.core.game import DecisionError
from referee.games.blackhole import GAME
from referee.games.blackhole.rules import HOLE, PASS, SIZE, BlackHoleState, Move

CELLS = [(r, c) for r in range(SIZE) for c in range(SIZE) if (r, c) != HOLE]
ALL_MOVES = [Move(a, b) for a, b in itertools.product(
    [(r, c) for r in range(SIZE) for c in range(SIZE)], repeat=2)]


@st.composite
def positions(draw) -> BlackHoleState:
    """Any valid position: up to 4 ships each anywhere but the hole, either player to move."""
    cells = draw(st.permutations(CELLS))
    ones, twos = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    rows = [[0] * SIZE for _ in range(SIZE)]
    rows[HOLE[0]][HOLE[1]] = 3
    for i, (r, c) in enumerate(cells[:ones + twos]):
        rows[r][c] = 1 if i < ones else 2
    return BlackHoleState(grid=tuple(map(tuple, rows)), to_move=draw(st.sampled_from([1, 2])),
                          saved=(draw(st.integers(0, 1)), draw(st.integers(0, 1))))


def played() -> st.SearchStrategy:
    """A position reached by legal play from a random position."""
    return random_play(positions(), max_plies=30)


SETTINGS = settings(max_examples=150, deadline=None)


@SETTINGS
@given(played())
def test_validation_accepts_exactly_the_generated_moves(state):
    legal = set(state.legal_decisions())
    for decision in ALL_MOVES + [PASS]:
        assert (state.illegal_reason(decision) is None) == (decision in legal), decision


@SETTINGS
@given(played())
def test_every_legal_move_round_trips_through_the_decision_file(state):
    for decision in state.legal_decisions():
        assert GAME.parse_decision(state, str(decision)) == decision
        if isinstance(decision, Move):
            (r1, c1), (r2, c2) = decision.src, decision.dst
            direction = "U" if r2 < r1 else "D" if r2 > r1 else "L" if c2 < c1 else "R"
            assert GAME.parse_decision(state, f"{r1} {c1} {direction}") == decision


@SETTINGS
@given(played())
def test_apply_never_mutates_and_conserves_ships(state):
    before, grid = copy.deepcopy(state.to_json()), state.grid
    ships = sum(v in (1, 2) for row in grid for v in row) + sum(state.saved)
    for decision in state.legal_decisions():
        after, _ = state.apply(state.current_player(), decision)
        assert state.to_json() == before and state.grid is grid
        assert sum(v in (1, 2) for row in after.grid for v in row) + sum(after.saved) == ships
        assert after.grid[HOLE[0]][HOLE[1]] == 3 and after.ply == state.ply + 1


@SETTINGS
@given(played())
def test_pass_is_legal_exactly_when_no_ship_can_move(state):
    assert_pass_exactly_when_stuck(state, PASS)


@SETTINGS
@given(played())
def test_state_json_round_trip_and_board_text_round_trip(state):
    assert GAME.state_from_json(state.to_json()) == state
    assert GAME.parse_board(GAME.board_text(state, None), "snapshot") == state.grid


@settings(max_examples=200, deadline=None)
@given(positions(), st.text(alphabet="0123456789 -pasUDLRx\n", max_size=16))
def test_decision_parsing_never_fails_unexpectedly(state, text):
    try:
        decision = GAME.parse_decision(state, text)
    except DecisionError:
        return
    assert decision == PASS or isinstance(decision, Move)
