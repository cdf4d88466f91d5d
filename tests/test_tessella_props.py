"""Tessella properties (hypothesis): the generated legal moves and the
validation agree, apply never mutates, states survive JSON."""
from __future__ import annotations

import copy
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_pass_exactly_when_stuck, random_play
from referee.core.game import DecisionError
from referee.games.tessella import GAME
from referee.games.tessella.rules import (CELLS, PASS, SIZE, STANDARD_PIECES, Move,
                                          TessellaState, is_capture, shape)

EVERY_CELL = [(r, c) for r in range(SIZE) for c in range(SIZE)]


@st.composite
def positions(draw) -> TessellaState:
    """Any position: up to 7 pieces each anywhere on the diamond, either player to move."""
    cells = draw(st.permutations(CELLS))
    ones, twos = draw(st.integers(0, 7)), draw(st.integers(0, 7))
    rows = [[0] * SIZE for _ in range(SIZE)]
    for i, (r, c) in enumerate(cells[:ones + twos]):
        rows[r][c] = 1 if i < ones else 2
    return TessellaState(pieces=tuple(map(tuple, rows)), to_move=draw(st.sampled_from([1, 2])),
                         captures=(draw(st.integers(0, 3)), draw(st.integers(0, 3))))


def played() -> st.SearchStrategy:
    """A position reached by legal play from the start or from a random position."""
    start = st.just(TessellaState(pieces=STANDARD_PIECES))
    return random_play(st.one_of(start, positions()), max_plies=40)


SETTINGS = settings(max_examples=100, deadline=None)


@SETTINGS
@given(played(), st.lists(st.tuples(st.sampled_from(EVERY_CELL), st.sampled_from(EVERY_CELL)),
                          max_size=200))
def test_validation_accepts_exactly_the_generated_moves(state, extra):
    legal = set(state.legal_decisions())
    mine = [cell for cell in CELLS if state.pieces[cell[0]][cell[1]] == state.to_move]
    # Every move from one of the mover's pieces to any cell, plus random pairs and the pass.
    candidates = [Move(a, b) for a, b in itertools.product(mine, EVERY_CELL)]
    candidates += [Move(a, b) for a, b in extra] + [PASS]
    for decision in candidates:
        assert (state.illegal_reason(decision) is None) == (decision in legal), decision


@SETTINGS
@given(played())
def test_every_legal_move_round_trips_and_stays_on_the_diamond(state):
    for decision in state.legal_decisions():
        assert GAME.parse_decision(state, str(decision)) == decision
        if isinstance(decision, Move):
            assert shape(decision.src) != "X" and shape(decision.dst) != "X"


@SETTINGS
@given(played())
def test_apply_never_mutates_and_counts_captures(state):
    before = copy.deepcopy(state.to_json())
    count = sum(v != 0 for row in state.pieces for v in row)
    for decision in state.legal_decisions():
        after, events = state.apply(state.current_player(), decision)
        assert state.to_json() == before
        captured = isinstance(decision, Move) and is_capture(state.pieces, decision)
        assert sum(v != 0 for row in after.pieces for v in row) == count - captured
        assert sum(after.captures) == sum(state.captures) + captured
        assert any(e["type"] == "capture" for e in events) == captured


@SETTINGS
@given(played())
def test_pass_is_legal_exactly_when_stuck(state):
    assert_pass_exactly_when_stuck(state, PASS)


@SETTINGS
@given(played())
def test_state_json_round_trip_and_board_text_round_trip(state):
    assert GAME.state_from_json(state.to_json()) == state
    assert GAME.parse_board(GAME.board_text(state, None), "snapshot") == state.pieces


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789 -pasX\n", max_size=20))
def test_decision_parsing_never_fails_unexpectedly(text):
    try:
        decision = GAME.parse_decision(TessellaState(pieces=STANDARD_PIECES), text)
    except DecisionError:
        return
    assert decision == PASS or isinstance(decision, Move)
