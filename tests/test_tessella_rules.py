"""Tessella rules: worked examples written from shared/rules/tessella.md."""
from __future__ import annotations

import pytest

from referee.core.errors import InputError
from referee.core.game import DecisionError, Setup
from referee.games.tessella import GAME
from referee.games.tessella.rules import (CELLS, PASS, SIZE, STANDARD_PIECES, Move,
                                          TessellaState, shape)


def state_with(ones=(), twos=(), to_move=1, captures=(0, 0), ply_cap=300) -> TessellaState:
    rows = [[0] * SIZE for _ in range(SIZE)]
    for player, cells in ((1, ones), (2, twos)):
        for r, c in cells:
            assert shape((r, c)) != "X"
            rows[r][c] = player
    return TessellaState(pieces=tuple(map(tuple, rows)), to_move=to_move, captures=captures,
                         ply_cap=ply_cap)


def moves_from(state: TessellaState, cell) -> set[str]:
    return {str(m) for m in state.legal_decisions() if getattr(m, "src", None) == cell}


def play(state: TessellaState, *texts: str) -> TessellaState:
    for text in texts:
        decision = GAME.parse_decision(state, text)
        assert state.illegal_reason(decision) is None, (text, state.illegal_reason(decision))
        state, _ = state.apply(state.current_player(), decision)
    return state


def test_geometry_41_cells_25_octagons_16_squares():
    assert len(CELLS) == 41
    assert sum(shape(c) == "O" for c in CELLS) == 25
    assert sum(shape(c) == "S" for c in CELLS) == 16
    assert shape((0, 4)) == "O" and shape((0, 3)) == "X" and shape((4, 3)) == "S"


def test_standard_start_matches_the_rules_and_the_seed_tokens():
    state = GAME.initial_state(Setup("standard", 2, 1, None, {}))
    text = GAME.board_text(state, None).splitlines()
    assert len(text) == 9 and all(len(line.split()) == 9 for line in text)
    assert text[0] == "X0 X0 X0 X0 O2 X0 X0 X0 X0"
    assert text[4] == "O0 S0 O0 S0 O0 S0 O0 S0 O0"
    assert text[5] == "X0 O1 S0 O0 S0 O0 S0 O1 X0"
    assert state.pieces == STANDARD_PIECES and state.current_player() == 1
    assert state.ply_cap == 300


def test_steps_from_an_octagon_reach_all_8_neighbours():
    state = state_with(ones=[(4, 4)], twos=[(0, 4)])
    assert moves_from(state, (4, 4)) == {
        "4 4 3 3", "4 4 3 4", "4 4 3 5", "4 4 4 3", "4 4 4 5", "4 4 5 3", "4 4 5 4", "4 4 5 5"}


def test_steps_from_a_square_are_orthogonal_only():
    state = state_with(ones=[(4, 3)], twos=[(0, 4)])
    assert moves_from(state, (4, 3)) == {"4 3 3 3", "4 3 5 3", "4 3 4 2", "4 3 4 4"}
    reason = state.illegal_reason(Move((4, 3), (3, 4)))
    assert reason == "a piece on a square steps to one of its 4 orthogonal neighbours only"


def test_steps_stay_on_the_diamond_and_onto_empty_cells():
    state = state_with(ones=[(0, 4), (1, 4)], twos=[(1, 3)])
    # From the top corner: 0 3 and 0 5 are off the board, 1 4 is own, 1 3 an enemy.
    assert moves_from(state, (0, 4)) == {"0 4 1 5"}
    assert state.illegal_reason(Move((0, 4), (0, 5))) == "to 0 5 is off the board"
    assert state.illegal_reason(Move((0, 4), (1, 4))) == "1 4 holds your own piece"


def test_capture_with_a_distant_backer():
    # Column 4: backer 8 4, empty 7 4 and 6 4, shooter 5 4, empty 4 4..2 4, enemy 1 4.
    state = state_with(ones=[(8, 4), (5, 4)], twos=[(1, 4), (0, 4)])
    assert "5 4 1 4" in moves_from(state, (5, 4))
    after, events = state.apply(1, Move((5, 4), (1, 4)))
    assert after.pieces[1][4] == 1 and after.pieces[5][4] == 0
    assert after.captures == (1, 0)
    assert {"type": "capture", "player": 1, "at": [1, 4], "captures": 1} in events
    # The backer itself cannot fire: nothing behind 8 4 but the edge.
    assert not any(str(m).startswith("8 4 ") and m.dst == (1, 4) for m in state.legal_decisions())


def test_a_square_fires_along_a_diagonal():
    state = state_with(ones=[(4, 3), (5, 2)], twos=[(2, 5)])
    assert shape((4, 3)) == "S"
    assert "4 3 2 5" in moves_from(state, (4, 3))


def test_capture_blocked_by_a_piece_in_front():
    state = state_with(ones=[(8, 4), (5, 4), (3, 4)], twos=[(1, 4)])
    assert "5 4 1 4" not in moves_from(state, (5, 4))
    assert "cannot capture 1 4" in state.illegal_reason(Move((5, 4), (1, 4)))
    # ...but the front piece, backed by 5 4 across empty cells, can.
    assert "3 4 1 4" in moves_from(state, (3, 4))


def test_capture_blocked_by_an_enemy_between_shooter_and_backer():
    state = state_with(ones=[(8, 4), (5, 4)], twos=[(7, 4), (1, 4)])
    assert "5 4 1 4" not in moves_from(state, (5, 4))


def test_lines_end_at_the_diamonds_edge():
    # 4 0 is the left corner: behind it (4 -1) is outside, so it has no backer, and its
    # steps stay on the diamond.
    state = state_with(ones=[(4, 0)], twos=[(4, 8)])
    assert moves_from(state, (4, 0)) == {"4 0 3 1", "4 0 4 1", "4 0 5 1"}
    # Rows and columns do not wrap round: 8 4 is not behind 0 4, nor 4 8 behind 4 0.
    state = state_with(ones=[(0, 4), (8, 4), (4, 0), (4, 8)], twos=[(1, 4), (4, 1)])
    assert not any(isinstance(m, Move) and m.dst in {(1, 4), (4, 1)}
                   and m.src in {(0, 4), (4, 0)} for m in state.legal_decisions())
    # A diagonal ends at the edge although the 9x9 array goes on: from 3 3 up-left the
    # line is 2 2, then 1 1 is off the board.
    state = state_with(ones=[(3, 3), (5, 5)], twos=[(0, 4)])
    assert not any(isinstance(m, Move) and shape(m.dst) == "X" for m in state.legal_decisions())
    assert not any(m.dst == (0, 4) for m in state.legal_decisions())


def test_fourth_capture_ends_the_game():
    state = state_with(ones=[(8, 4), (5, 4)], twos=[(1, 4), (4, 8)], captures=(3, 1))
    after = play(state, "5 4 1 4")
    assert after.is_terminal() and after.current_player() is None
    outcome = after.outcome()
    assert outcome.winner == 1 and outcome.ranking == ((1,), (2,))
    assert outcome.scores == {1: 4, 2: 1}
    assert outcome.reason == "player 1 captured 4 pieces"


def test_stuck_player_passes_with_0_0_0_0():
    state = state_with(ones=[(0, 4)], twos=[(1, 3), (1, 4), (1, 5)])
    assert state.legal_decisions() == [PASS]
    assert state.auto_decision() == PASS
    assert GAME.parse_decision(state, "0 0 0 0") == PASS == GAME.parse_decision(state, "pass")
    assert str(PASS) == "0 0 0 0"
    after, events = state.apply(1, PASS)
    assert events == [{"type": "pass", "player": 1}] and after.current_player() == 2
    assert after.auto_decision() is None
    assert "only when you cannot move" in after.illegal_reason(PASS)


def test_both_stuck_is_a_draw():
    state = state_with()
    assert state.is_terminal() and "neither player can move" in state.outcome().reason
    assert state.outcome().winner is None


def test_threefold_repetition_is_a_draw():
    state = state_with(ones=[(8, 4)], twos=[(0, 4)])
    cycle = ("8 4 7 4", "0 4 1 4", "7 4 8 4", "1 4 0 4")
    twice = play(state, *cycle)
    assert twice.pieces == state.pieces and not twice.is_terminal()
    done = play(twice, *cycle)
    assert done.is_terminal() and done.outcome().reason == "threefold repetition"


def test_a_capture_resets_the_repetition_history():
    state = state_with(ones=[(8, 4), (5, 4)], twos=[(1, 4), (0, 4)])
    after = play(state, "5 4 1 4")
    assert after.seen == (after.seen[-1],)


def test_ply_cap_draw():
    state = state_with(ones=[(8, 4)], twos=[(0, 4)], ply_cap=2)
    done = play(state, "8 4 7 4", "0 4 1 4")
    assert done.is_terminal() and done.outcome().reason == "ply cap (2) reached"


def test_off_board_and_foreign_pieces_are_rejected_with_reasons():
    state = GAME.initial_state(Setup("standard", 2, 1, None, {}))
    assert state.illegal_reason(Move((0, 0), (1, 1))) == "from 0 0 is off the board"
    assert state.illegal_reason(Move((3, 1), (4, 1))) == \
        "3 1 is player 2's piece, not a piece of player 1"
    assert state.illegal_reason(Move((4, 4), (3, 4))) == "4 4 is empty, not a piece of player 1"
    assert "only when" in state.illegal_reason(PASS)


@pytest.mark.parametrize("text, message", [
    ("", "expected"), ("1 2 3", "expected"), ("a b c d", "expected"), ("1 2 3 4 5", "expected"),
    ("9 0 0 0", "coordinate 9 is outside"), ("1 -1 2 2", "coordinate -1 is outside"),
])
def test_malformed_decisions(text, message):
    with pytest.raises(DecisionError, match=message):
        GAME.parse_decision(state_with(ones=[(8, 4)]), text)


STANDARD_TEXT = GAME.default_board_text("standard", 2)


def test_board_text_round_trips():
    assert GAME.parse_board(STANDARD_TEXT, "b") == STANDARD_PIECES
    assert GAME.board_warnings(STANDARD_PIECES) == []


def replace_token(text: str, row: int, col: int, token: str) -> str:
    lines = text.splitlines()
    words = lines[row].split()
    words[col] = token
    lines[row] = " ".join(words)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("row, col, token, where, message", [
    (4, 4, "S0", "b.txt:5:13", "cell 4 4 is an octagon"),
    (0, 0, "O0", "b.txt:1:1", "cell 0 0 is off the board: expected X"),
    (0, 1, "X1", "b.txt:1:4", "off the board and cannot hold a piece"),
    (4, 1, "S3", "b.txt:5:4", "bad cell 'S3'"),
    (4, 1, "s0", "b.txt:5:4", "bad cell 's0'"),
])
def test_bad_boards_name_line_and_column(row, col, token, where, message):
    with pytest.raises(InputError) as caught:
        GAME.parse_board(replace_token(STANDARD_TEXT, row, col, token), "b.txt")
    assert str(caught.value).startswith(where + ": ") and message in str(caught.value)


def test_bad_board_shapes():
    with pytest.raises(InputError, match="found 8 rows"):
        GAME.parse_board("\n".join(STANDARD_TEXT.splitlines()[:8]), "b")
    with pytest.raises(InputError, match="row 2 has 8 cells"):
        GAME.parse_board(STANDARD_TEXT.replace("X0 X0 O2 S0 O0 S0 O2 X0 X0",
                                               "X0 X0 O2 S0 O0 S0 O2 X0"), "b")


def test_board_warnings_for_too_few_pieces():
    pieces = state_with(ones=[(8, 4), (7, 3), (7, 5), (6, 4)], twos=[(0, 4)]).pieces
    assert GAME.board_warnings(pieces) == [
        "player 2 has 1 piece(s), fewer than the 4 captures that win: player 1 cannot win by "
        "capturing"]


def test_render_draws_octagons_and_squares():
    text = GAME.render(GAME.initial_state(Setup("standard", 2, 1, None, {})))
    assert " 4  ( )[ ]( )[ ]( )[ ]( )[ ]( )" in text and "(1)" in text and "(2)" in text
    assert "player 1 to move" in text


def test_state_json_round_trip():
    state = play(GAME.initial_state(Setup("standard", 2, 1, None, {})), "5 1 4 1", "3 1 3 2")
    again = GAME.state_from_json(state.to_json())
    assert again == state and again.legal_decisions() == state.legal_decisions()


def test_ply_cap_comes_from_settings_and_must_be_positive():
    assert GAME.initial_state(Setup("standard", 2, 1, None, {"ply_cap": 9})).ply_cap == 9
    with pytest.raises(InputError, match="ply_cap: must be at least 1, got -3"):
        GAME.initial_state(Setup("standard", 2, 1, None, {"ply_cap": -3}))
