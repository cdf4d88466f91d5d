"""Black Hole Escape rules: worked examples written from shared/rules/blackhole.md."""
from __future__ import annotations

import pytest

from referee.core.errors import InputError
from referee.core.game import DecisionError, Setup
from referee.games.blackhole import GAME
from referee.games.blackhole.rules import PASS, BlackHoleState, Move

STANDARD = """\
1 0 0 0 1
0 1 0 1 0
0 0 3 0 0
0 2 0 2 0
2 0 0 0 2
"""


def state_of(text: str, to_move: int = 1, saved=(0, 0), ply_cap: int = 200) -> BlackHoleState:
    grid = GAME.parse_board(text, "test")
    return BlackHoleState(grid=grid, to_move=to_move, saved=saved, ply_cap=ply_cap)


def play(state: BlackHoleState, *texts: str) -> BlackHoleState:
    for text in texts:
        decision = GAME.parse_decision(state, text)
        assert state.illegal_reason(decision) is None, (text, state.illegal_reason(decision))
        state, _ = state.apply(state.current_player(), decision)
    return state


def test_standard_start_is_the_embedded_default():
    state = GAME.initial_state(Setup("standard", 2, 1, None, {"ply_cap": 200}))
    assert GAME.board_text(state, None) == STANDARD
    assert state.current_player() == 1
    # Player 1's corner ship at 0 0 slides down to 3 0 (4 0 holds a ship) and right to 0 3.
    legal = {str(d) for d in state.legal_decisions()}
    assert {"0 0 3 0", "0 0 0 3"} <= legal
    assert "0 0 4 0" not in legal and len(legal) == 12


def test_sliding_over_the_hole_does_not_save():
    state = state_of("0 0 0 0 1\n0 0 0 0 0\n1 0 3 0 2\n0 0 0 0 0\n2 0 0 0 0\n")
    after = play(state, "2 0 R")
    # The ship passes over the hole at 2 2 and stops next to the ship at 2 4.
    assert after.grid[2] == (0, 0, 3, 1, 2)
    assert after.saved == (0, 0)


def test_sliding_to_the_edge_over_the_hole():
    state = state_of("0 0 0 0 0\n0 0 0 0 0\n1 0 3 0 0\n0 0 0 0 0\n2 0 0 0 0\n")
    assert play(state, "2 0 2 4").grid[2] == (0, 0, 3, 0, 1)


def test_stopping_on_the_hole_saves_the_ship():
    state = state_of("0 0 1 0 0\n0 0 0 0 0\n0 0 3 0 0\n0 0 2 0 0\n2 0 0 0 0\n")
    after, events = state.apply(1, GAME.parse_decision(state, "0 2 D"))
    assert after.grid[0][2] == 0 and after.grid[2][2] == 3
    assert after.saved == (1, 0)
    assert {"type": "save", "player": 1, "saved": 1} in events
    assert after.current_player() == 2
    assert str(GAME.parse_decision(state, "0 2 D")) == "0 2 2 2"


def test_blocked_zero_length_move_is_rejected():
    state = state_of("1 2 0 0 0\n0 0 0 0 0\n0 0 3 0 0\n0 0 0 0 0\n2 0 0 0 0\n")
    for text in ("0 0 U", "0 0 L", "0 0 R"):
        move = GAME.parse_decision(state, text)
        assert move == Move((0, 0), (0, 0))
        assert "zero-length" in state.illegal_reason(move)
    assert "zero-length" in state.illegal_reason(Move((0, 0), (0, 0)))
    assert "blocked" in state.illegal_reason(GAME.parse_decision(state, "0 0 0 1"))
    assert state.illegal_reason(GAME.parse_decision(state, "0 0 D")) is None


def test_to_must_be_where_the_slide_stops():
    state = state_of(STANDARD)
    assert state.illegal_reason(Move((0, 0), (2, 0))) == "the ship slides to 3 0, not 2 0"
    assert "row or column" in state.illegal_reason(Move((0, 0), (1, 1)))
    assert "player 2's ship" in state.illegal_reason(Move((4, 0), (4, 3)))
    assert "empty" in state.illegal_reason(Move((0, 1), (0, 3)))


def test_two_saved_ships_win_at_once():
    state = state_of("0 0 1 0 0\n0 0 0 0 0\n0 0 3 0 0\n0 0 2 0 0\n2 0 0 0 0\n", saved=(1, 0))
    after = play(state, "0 2 2 2")
    assert after.is_terminal() and after.current_player() is None
    outcome = after.outcome()
    assert outcome.winner == 1 and outcome.ranking == ((1,), (2,))
    assert outcome.scores == {1: 2, 2: 0}
    assert after.legal_decisions() == []


def test_stuck_player_passes_and_the_other_goes_on():
    state = state_of("1 2 0 0 0\n2 0 0 0 0\n0 0 3 0 0\n0 0 0 0 0\n0 0 0 0 0\n")
    assert state.legal_decisions() == [PASS]
    assert state.auto_decision() == PASS
    assert GAME.parse_decision(state, "pass") == PASS
    after, events = state.apply(1, PASS)
    assert events == [{"type": "pass", "player": 1}]
    assert after.current_player() == 2 and after.auto_decision() is None
    assert "only when" in after.illegal_reason(PASS)


def test_draw_when_neither_player_can_move():
    state = state_of("0 0 0 0 0\n0 0 0 0 0\n0 0 3 0 0\n0 0 0 0 0\n0 0 0 0 0\n")
    assert state.is_terminal()
    assert state.outcome().winner is None
    assert "neither player can move" in state.outcome().reason


def test_third_occurrence_of_a_position_is_a_draw():
    state = state_of("1 0 0 0 0\n0 0 0 0 0\n0 0 3 0 0\n0 0 0 0 0\n0 0 0 0 2\n")
    cycle = ("0 0 0 4", "4 4 4 0", "0 4 0 0", "4 0 4 4")
    twice = play(state, *cycle)
    assert not twice.is_terminal() and twice.grid == state.grid
    almost = play(twice, *cycle[:3])
    assert not almost.is_terminal()
    done = play(almost, cycle[3])
    assert done.is_terminal() and done.outcome().reason == "threefold repetition"
    assert done.ply == 8


def test_ply_cap_draw():
    state = state_of(STANDARD, ply_cap=3)
    done = play(state, "0 0 0 3", "4 0 4 3", "0 3 0 0")
    assert done.is_terminal() and done.outcome().reason == "ply cap (3) reached"
    assert done.outcome().ranking == ((1, 2),)


def test_ply_cap_comes_from_settings():
    state = GAME.initial_state(Setup("standard", 2, 1, None, {"ply_cap": 7}))
    assert state.ply_cap == 7
    assert GAME.settings == {"ply_cap": 200}


@pytest.mark.parametrize("text", ["", "0 0", "1 2 3 4 5", "a b c d", "0 0 X", "1 1 U D"])
def test_malformed_decisions(text):
    with pytest.raises(DecisionError, match="expected"):
        GAME.parse_decision(state_of(STANDARD), text)


def test_off_board_coordinates_are_malformed():
    with pytest.raises(DecisionError, match="row 5 is off the board"):
        GAME.parse_decision(state_of(STANDARD), "5 0 0 0")
    with pytest.raises(DecisionError, match="column -1 is off the board"):
        GAME.parse_decision(state_of(STANDARD), "0 -1 D")


def test_lowercase_direction_and_pass_are_accepted():
    state = state_of(STANDARD)
    assert GAME.parse_decision(state, " 0 0 d\n") == Move((0, 0), (3, 0))
    assert GAME.parse_decision(state, "PASS") == PASS


def test_snapshot_round_trips_and_comments_are_ignored():
    grid = GAME.parse_board("# a start\n" + STANDARD.replace("2 0 0 0 2", "2 0 0 0 2  # row 4"),
                            "f")
    assert GAME.parse_board(STANDARD, "f") == grid


@pytest.mark.parametrize("text, where, message", [
    (STANDARD.replace("0 0 3 0 0", "0 0 0 0 0"), "b.txt:3:5", "centre 2 2 must hold"),
    (STANDARD.replace("0 1 0 1 0", "3 1 0 1 0"), "b.txt:2:1", "must be at the centre"),
    (STANDARD.replace("0 2 0 2 0", "0 2 0 7 0"), "b.txt:4:7", "bad cell '7'"),
    (STANDARD.replace("2 0 0 0 2", "2 0 0 0"), "b.txt:5:7", "row 4 has 4 cells"),
    (STANDARD.replace("2 0 0 0 2", "2 0 0 0 2 0"), "b.txt:5:11", "row 4 has 6 cells"),
    (STANDARD + "0 0 0 0 0\n", "b.txt:6", "found 6 rows"),
    (STANDARD.replace("0 0 3 0 0", "1 0 3 0 0"), "b.txt:3:1", "player 1 has more than 4"),
])
def test_bad_start_files_name_line_and_column(text, where, message):
    with pytest.raises(InputError) as caught:
        GAME.parse_board(text, "b.txt")
    assert str(caught.value).startswith(where + ": ")
    assert message in str(caught.value)


def test_board_warnings():
    lonely = GAME.parse_board("1 0 0 0 0\n0 0 0 0 0\n0 0 3 0 0\n0 0 0 0 0\n0 0 0 2 2\n", "f")
    assert GAME.board_warnings(lonely) == ["player 1 has 1 ship(s) and can never win"]
    assert GAME.board_warnings(GAME.parse_board(STANDARD, "f")) == []


def test_apply_refuses_the_wrong_player_and_illegal_moves():
    state = state_of(STANDARD)
    with pytest.raises(ValueError):
        state.apply(2, Move((4, 0), (4, 3)))
    with pytest.raises(ValueError):
        state.apply(1, Move((0, 0), (2, 0)))


def test_render_shows_ships_hole_and_mover():
    text = GAME.render(state_of(STANDARD))
    assert " 2  . . @ . ." in text and "player 1 to move" in text
    assert "\033[" in GAME.render(state_of(STANDARD), color=True)


def test_state_json_round_trip():
    state = play(state_of(STANDARD), "0 0 0 3", "4 0 4 3")
    again = GAME.state_from_json(state.to_json())
    assert again == state and again.legal_decisions() == state.legal_decisions()


def test_a_ply_cap_below_one_is_refused():
    with pytest.raises(InputError, match="ply_cap: must be at least 1, got 0"):
        GAME.initial_state(Setup("standard", 2, 1, None, {"ply_cap": 0}))
