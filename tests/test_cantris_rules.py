"""Cantris rules from the handout's worked example and the rules file."""
from __future__ import annotations

import pytest

from referee.core.errors import InputError
from referee.core.game import DecisionError, Setup
from referee.games.cantris import DEFAULT_BOARD, GAME
from referee.games.cantris.codec import parse_board
from referee.games.cantris.rules import CantrisState, Removal


def state_of(text: str, **kw) -> CantrisState:
    return CantrisState(parse_board(text, "<test>"), **kw)


def test_handout_worked_example_scores_six():
    state = GAME.initial_state(Setup("standard", 2, 0))
    after, events = state.apply(1, Removal(2, 1))
    assert events[0] == {"type": "remove", "cell": [2, 1], "value": 3, "points": 3}
    assert events[1]["type"] == "cascade" and events[1]["points"] == 3
    assert sorted(map(tuple, events[1]["cells"])) == [(2, 0), (2, 1), (2, 2)]
    assert after.points == (6, 0)
    assert after.board[0] == (0, 0, 0, 1)
    assert after.board[2] == (4, 4, 2, 2)
    assert not after.is_terminal()
    assert after.current_player() == 2


def test_cascade_of_two_passes():
    # Removing the 4 at (3,2) drops a 3 in: row 3 reads 3 3 3 4 (9 points);
    # after that clears, row 3 reads 2 4 4 4 (12 points).
    state = state_of("2 4 1 4\n3 2 4 1\n2 4 3 2\n3 3 4 4\n1 1 2 3\n")
    after, events = state.apply(1, Removal(3, 2))
    cascades = [e for e in events if e["type"] == "cascade"]
    assert [c["points"] for c in cascades] == [9, 12]
    assert cascades[0]["cells"] == [[3, 0], [3, 1], [3, 2]]
    assert cascades[1]["cells"] == [[3, 1], [3, 2], [3, 3]]
    assert after.points == (4 + 9 + 12, 0)
    assert after.board == ((0, 0, 0, 0), (2, 0, 0, 4), (3, 4, 0, 1), (2, 2, 1, 2), (1, 1, 2, 3))
    assert not after.is_terminal()


def test_run_of_five_clears_all_five():
    # Removing the 3 at (2,2) drops a 1 in: 1 1 1 1 1 forms, worth 5.
    state = state_of("4 2 4 3 2\n2 3 1 2 4\n1 1 3 1 1\n3 2 4 5 3\n")
    after, events = state.apply(2, Removal(2, 2))
    cascade = [e for e in events if e["type"] == "cascade"]
    assert len(cascade[0]["cells"]) == 5 and cascade[0]["points"] == 5
    assert after.points == (0, 3 + 5)


def test_game_ends_on_cleared_column_before_any_cascade():
    # Row 1 holds a run of three, but removing the last tile of column 3
    # ends the game at once: no cascade runs.
    state = CantrisState(((0, 2, 3, 0), (1, 1, 1, 0), (2, 3, 2, 4)))
    after, events = state.apply(1, Removal(2, 3))
    assert after.is_terminal()
    assert [e["type"] for e in events] == ["remove", "game_over"]
    assert after.points == (4, 0)
    assert after.board[1] == (1, 1, 1, 0)


def test_ten_by_five_turn_is_two_removals_and_ends_after_first_if_over():
    board = [[2, 3, 4, 5, 1]] * 9 + [[1, 2, 3, 4, 5]]
    state = CantrisState(tuple(map(tuple, board)))
    assert state.per_turn == 2
    assert [state.current_player(), state.removal_index()] == [1, 1]
    s1, _ = state.apply(1, Removal(9, 0))
    assert [s1.current_player(), s1.removal_index()] == [1, 2]
    s2, _ = s1.apply(1, Removal(9, 1))
    assert s2.current_player() == 2
    # A column with a single tile: the first removal ends the game.
    rows = [[0, 1, 1, 1, 1]] * 9 + [[5, 2, 3, 4, 5]]
    ending = CantrisState(tuple(map(tuple, rows)))
    done, events = ending.apply(1, Removal(9, 0))
    assert done.is_terminal() and done.current_player() is None
    assert events[-1]["type"] == "game_over"


def test_draw_on_equal_points():
    state = CantrisState(((0, 0, 0), (1, 2, 3), (2, 3, 1)), points=(4, 4), step=2)
    outcome = CantrisState(state.board, (5, 5), 3, True).outcome()
    assert outcome.winner is None and outcome.ranking == ((1, 2),)
    assert "draw" in outcome.reason


def test_winner_has_more_points():
    outcome = CantrisState(((0, 0, 0),) * 3, (3, 9), 4, True).outcome()
    assert outcome.winner == 2 and outcome.ranking == ((2,), (1,))


@pytest.mark.parametrize("decision, reason", [
    (Removal(9, 0), "off the 8x4 board"),
    (Removal(0, 4), "off the 8x4 board"),
    (Removal(-1, 0), "off the 8x4 board"),
])
def test_illegal_cells_are_named(decision, reason):
    state = GAME.initial_state(Setup("standard", 2, 0))
    assert reason in state.illegal_reason(decision)
    assert decision not in state.legal_decisions()


def test_an_edge_counted_from_1_is_told_rows_and_columns_count_from_0():
    state = GAME.initial_state(Setup("standard", 2, 0))
    assert state.illegal_reason(Removal(8, 4)) == (
        "cell (8, 4) is off the 8x4 board (rows 0..7, columns 0..3: they count from 0)")
    assert state.illegal_reason(Removal(9, 0)) == "cell (9, 0) is off the 8x4 board (rows 0..7, columns 0..3)"


def test_empty_cell_is_illegal():
    state = CantrisState(((0, 1, 2), (1, 2, 3), (2, 3, 1)))
    assert state.illegal_reason(Removal(0, 0)) == "cell (0, 0) is empty"


@pytest.mark.parametrize("text, message", [
    ("1", "expected two integers"),
    ("a b", "expected two integers"),
    ("1 2 3", "expected two integers"),
    ("", "expected two integers"),
])
def test_decision_parse_errors(text, message):
    with pytest.raises(DecisionError, match=message):
        Removal.parse(text)


def test_decision_text_round_trip():
    assert Removal.parse(" 3   2 \n") == Removal(3, 2)
    assert str(Removal(3, 2)) == "3 2"


@pytest.mark.parametrize("text, where, message", [
    ("1 2 3\n1 0 3\n1 2 3\n", ":2:3", "empty cell"),
    ("1 2 3\n1 2\n1 2 3\n", ":2", "row has 2 numbers but line 1 has 3"),
    ("1 2 3\n1 x 3\n1 2 3\n", ":2:3", "'x' is not an integer"),
    ("1 2 3\n1 2 13\n1 2 3\n", ":2:5", "outside 1..9"),
    ("1 2 3\n1 2 3\n", "", "at least 3 rows"),
    ("", "", "empty"),
    ("1 2.5 3\n1 2 3\n1 2 3\n", ":1:3", "not an integer"),
])
def test_bad_boards_name_line_column_and_problem(text, where, message):
    with pytest.raises(InputError) as info:
        parse_board(text, "Board.txt")
    line = str(info.value)
    assert line.startswith("Board.txt" + where + ":") or (not where and line.startswith("Board.txt: "))
    assert message in line
    assert "\n" not in line


def test_board_with_comments_and_blank_lines_loads():
    board = parse_board("# a board\n1 2 3\n\n2 3 1\n3 1 2  # last\n", "b")
    assert board == ((1, 2, 3), (2, 3, 1), (3, 1, 2))


def test_existing_runs_are_accepted_with_a_warning():
    board = parse_board("2 3 2\n3 2 3\n1 1 1\n", "b")
    warnings = GAME.board_warnings(board)
    assert any("run of 3" in w for w in warnings)
    # The first mover is credited with the existing run.
    after, events = CantrisState(board).apply(1, Removal(0, 0))
    assert [e["type"] for e in events] == ["remove", "cascade"]
    assert after.points == (2 + 3, 0)
    assert after.board == ((0, 0, 0), (0, 3, 2), (3, 2, 3))


def test_default_board_is_the_standard_8x4():
    board = parse_board(DEFAULT_BOARD, "d")
    assert (len(board), len(board[0])) == (8, 4)
    assert GAME.board_warnings(board) == []
