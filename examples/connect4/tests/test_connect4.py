"""Connect Four's tests: the referee's conformance kit, one test per check,
and the rules' own cases."""
import pytest

from referee.conformance.testing import conformance_test
from referee.core.errors import InputError
from referee.core.game import DecisionError, Setup

from connect4 import GAME

test_conformance = conformance_test("connect4")


def start(board: str | None = None, connect: int = 4):
    grid = GAME.parse_board(board, "<test>", "standard") if board else None
    return GAME.initial_state(Setup(variant="standard", players=2, seed=1, board=grid,
                                    settings={"connect": connect}))


def play(state, *columns):
    for col in columns:
        state, events = state.apply(state.current_player(), col)
    return state, events


def test_pieces_fall_and_four_in_a_column_wins():
    state, events = play(start(), 3, 4, 3, 4, 3, 4, 3)
    assert state.is_terminal() and state.outcome().winner == 1
    assert events[-1] == {"type": "line", "player": 1, "cells": [[2, 3], [3, 3], [4, 3], [5, 3]]}


def test_a_diagonal_wins_and_the_setting_changes_the_length():
    state, _ = play(start(connect=3), 0, 1, 1, 2, 2, 0, 2)
    assert state.outcome().winner == 1 and state.outcome().reason == "player 1 connected 3"


def test_a_full_grid_is_a_draw():
    state, _ = play(start(". .\n. .\n"), 0, 1, 0, 1)
    assert state.is_terminal() and state.outcome().winner is None


def test_full_and_missing_columns_are_illegal_and_words_are_malformed():
    state, _ = play(start(". .\n. .\n"), 0, 0)
    assert state.illegal_reason(0) == "column 0 is full"
    assert state.illegal_reason(7) == "column 7 is not on the board (columns 0..1)"
    with pytest.raises(DecisionError, match="expected a column number"):
        GAME.parse_decision(state, "left")


def test_who_moves_follows_the_pieces_on_the_board():
    assert start(". .\n1 .\n").current_player() == 2


@pytest.mark.parametrize("text, message", [
    (". .\n1 .\n. .\n", "<test>:2:1: the piece in row 1, column 0 floats over an empty cell"),
    (". .\n2 2\n", "<test>: player 1 has 0 pieces and player 2 2: player 1 moves first, so they "
                   "have as many or one more"),
    (". x\n. .\n", "<test>:1:3: cell 'x' is not '.', '1' or '2'"),
    (". .\n. . .\n", "<test>:2:5: row 1 has 3 cells, the first row has 2"),
])
def test_bad_boards_name_the_line_and_column(text, message):
    with pytest.raises(InputError) as err:
        GAME.parse_board(text, "<test>", "standard")
    assert str(err.value) == message
