"""Quoridor rules: worked examples written from shared/rules/quoridor.md."""
from __future__ import annotations

import dataclasses

import pytest

from referee.core.errors import InputError
from referee.core.game import DecisionError, Setup
from referee.core.match import forfeit_outcome
from referee.core.verdicts import Verdict
from referee.games.quoridor import GAME
from referee.games.quoridor.codec import board_text, parse_board, parse_decision
from referee.games.quoridor.rules import PASS, START, Move, QuoridorState, Wall


def position(pawns, walls=(), players=2, turn=1, walls_left=None, ply_cap=324):
    walls = [parse_decision(w) for w in walls]
    left = walls_left if walls_left is not None else {p: 10 for p in pawns}
    return QuoridorState.arrange(players, pawns, walls, left, turn, 0, ply_cap)


def targets(state, player=None):
    player = player or state.turn
    return sorted((m.r2, m.c2) for m in state.legal_decisions() if isinstance(m, Move))


def legal(state, text):
    decision = parse_decision(text)
    reason = state.illegal_reason(decision)
    assert (reason is None) == (decision in state.legal_decisions()), reason
    return reason


# ----------------------------------------------------------------- start
def test_start_position_has_three_steps_and_every_wall():
    state = QuoridorState.start(2)
    assert state.turn == 1
    assert targets(state) == [(7, 4), (8, 3), (8, 5)]
    assert sum(isinstance(d, Wall) for d in state.legal_decisions()) == 128
    assert state.walls_left == (10, 10)


def test_four_players_start_and_turn_order_is_1_2_3_4():
    state = QuoridorState.start(4)
    assert [state.pawn(p) for p in (1, 2, 3, 4)] == [(8, 4), (0, 4), (4, 0), (4, 8)]
    assert state.walls_left == (5, 5, 5, 5)
    order = []
    for decision in ["M 8 4 7 4", "M 0 4 1 4", "M 4 0 4 1", "M 4 8 4 7", "M 7 4 6 4"]:
        order.append(state.turn)
        state, _ = state.apply(state.turn, parse_decision(decision))
    assert order == [1, 2, 3, 4, 1]


def test_practice_mode_is_player_one_alone_with_twenty_walls():
    state = QuoridorState.start(1)
    assert state.walls_left == (20,)
    state, _ = state.apply(1, parse_decision("W 5 0 5 2"))
    assert state.turn == 1 and state.walls_left == (19,)


# ----------------------------------------------------------------- jumps
def test_straight_jump_replaces_the_step_onto_the_pawn():
    state = position({1: (4, 4), 2: (3, 4)})
    assert targets(state) == [(2, 4), (4, 3), (4, 5), (5, 4)]


def test_diagonal_when_a_wall_is_behind_the_jumped_pawn():
    state = position({1: (4, 4), 2: (3, 4)}, ["W 3 4 3 6"])
    assert targets(state) == [(3, 3), (3, 5), (4, 3), (4, 5), (5, 4)]


def test_diagonal_when_the_board_edge_is_behind_the_jumped_pawn():
    state = position({1: (1, 4), 2: (0, 4)})
    assert targets(state) == [(0, 3), (0, 5), (1, 3), (1, 5), (2, 4)]


def test_diagonal_when_a_third_pawn_is_behind_the_jumped_pawn():
    state = position({1: (4, 4), 2: (3, 4), 3: (2, 4), 4: (4, 8)}, players=4)
    assert targets(state) == [(3, 3), (3, 5), (4, 3), (4, 5), (5, 4)]


def test_diagonal_needs_the_side_open_and_empty():
    # wall behind player 2, a wall on its right, player 3 on its left
    state = position({1: (4, 4), 2: (3, 4), 3: (3, 3), 4: (4, 8)}, ["W 3 4 3 6", "W 2 5 4 5"], players=4)
    assert targets(state) == [(4, 3), (4, 5), (5, 4)]


def test_no_jump_over_a_pawn_behind_a_wall():
    state = position({1: (4, 4), 2: (3, 4)}, ["W 4 4 4 6"])
    assert targets(state) == [(4, 3), (4, 5), (5, 4)]


def test_never_jump_two_pawns():
    state = position({1: (4, 4), 2: (3, 4), 3: (2, 4), 4: (4, 8)}, players=4)
    assert legal(state, "M 4 4 1 4") is not None
    assert "cannot move" in legal(state, "M 4 4 2 4")


def test_a_move_from_the_wrong_square_is_rejected():
    state = QuoridorState.start(2)
    assert legal(state, "M 0 4 1 4") == "your pawn is on (8,4), not (0,4)"
    # The same move counted from 1: said so.
    assert legal(state, "M 9 5 8 5") == "your pawn is on (8,4), not (9,5): rows and columns count from 0"


# ----------------------------------------------------------------- walls
@pytest.fixture
def walled():
    return position({1: (8, 4), 2: (0, 4)}, ["W 3 1 3 3"])


@pytest.mark.parametrize("text", ["W 3 2 3 4", "W 3 0 3 2"])
def test_overlapping_walls_are_rejected(walled, text):
    assert "overlaps W 3 1 3 3" in legal(walled, text)


def test_the_same_wall_twice_is_rejected(walled):
    assert "already on the board" in legal(walled, "W 3 1 3 3")


def test_crossing_walls_are_rejected(walled):
    assert "crosses W 3 1 3 3" in legal(walled, "W 2 2 4 2")


@pytest.mark.parametrize("text", ["W 3 3 3 5", "W 1 3 3 3", "W 3 3 5 3", "W 1 2 3 2", "W 3 2 5 2"])
def test_touching_and_t_junction_walls_are_legal(walled, text):
    assert legal(walled, text) is None


def test_endpoints_in_either_order_name_the_same_wall():
    assert parse_decision("W 3 3 3 1") == parse_decision("W 3 1 3 3") == Wall(3, 1, 3, 3)


@pytest.mark.parametrize("text, words", [
    ("W 0 1 0 3", "border"), ("W 1 0 3 0", "border"), ("W 1 1 1 2", "not a wall"),
    ("W 1 1 2 2", "not a wall"), ("W 8 8 8 10", "off the board"),
])
def test_misshapen_walls_are_rejected(walled, text, words):
    assert words in legal(walled, text)


def test_a_wall_closing_the_last_path_is_rejected():
    state = position({1: (8, 4), 2: (0, 0)}, ["W 1 0 1 2"])
    assert "would leave player 2 no path to row 8" in legal(state, "W 0 2 2 2")
    # the same pocket is fine when nobody is inside it
    state = position({1: (8, 4), 2: (0, 4)}, ["W 1 0 1 2"])
    assert legal(state, "W 0 2 2 2") is None


def test_pawns_do_not_block_paths():
    # player 2's only way out of the pocket runs through player 1's square
    state = position({1: (0, 1), 2: (0, 0)}, ["W 1 0 1 2", "W 0 2 2 2"])
    assert state.distance(2) is None  # sanity: the pocket is closed
    open_state = position({1: (1, 1), 2: (0, 0)}, ["W 1 0 1 2"])
    assert legal(open_state, "W 1 2 1 4") is None


def test_walls_run_out():
    state = position({1: (8, 4), 2: (0, 4)}, walls_left={1: 0, 2: 10})
    assert "no walls left" in legal(state, "W 4 4 4 6")
    assert not any(isinstance(d, Wall) for d in state.legal_decisions())


def test_placing_a_wall_spends_one_and_blocks_the_step():
    state = QuoridorState.start(2)
    after, events = state.apply(1, parse_decision("W 8 4 8 6"))
    assert after.walls_left == (9, 10)
    assert events[0]["type"] == "wall"
    after, _ = after.apply(2, parse_decision("M 0 4 1 4"))
    assert (7, 4) not in targets(after)


# ----------------------------------------------------------------- pass
def boxed_in():
    """Player 1 on the bottom row, walled left and right, player 2 above it,
    player 3 above player 2, walls on both sides of player 2: nothing to do."""
    return position({1: (8, 4), 2: (7, 4), 3: (6, 4), 4: (4, 8)}, ["W 7 4 9 4", "W 7 5 9 5"],
                    players=4, walls_left={1: 0, 2: 5, 3: 5, 4: 5})


def test_pass_only_when_nothing_else_is_legal():
    state = boxed_in()
    assert state.legal_decisions() == [PASS]
    assert state.auto_decision() == PASS
    after, events = state.apply(1, PASS)
    assert after.turn == 2 and after.pawn(1) == (8, 4) and events == [{"type": "pass", "player": 1}]


def test_pass_is_illegal_when_a_move_exists():
    state = QuoridorState.start(2)
    assert "only allowed when" in legal(state, "PASS")
    assert state.auto_decision() is None
    with_walls = dataclasses.replace(boxed_in(), walls_left=(1, 5, 5, 5))
    assert PASS not in with_walls.legal_decisions()


# ----------------------------------------------------------------- end
def test_reaching_the_goal_line_wins_at_once():
    state = position({1: (4, 4), 2: (3, 4), 3: (2, 2), 4: (1, 0)}, players=4, turn=4)
    after, events = state.apply(4, parse_decision("M 1 0 1 1"))
    assert not after.is_terminal()
    state = position({1: (1, 4), 2: (5, 5), 3: (2, 2), 4: (4, 8)}, players=4)
    after, events = state.apply(1, parse_decision("M 1 4 0 4"))
    assert after.is_terminal() and after.outcome().winner == 1
    assert after.outcome().ranking == ((1,), (2, 3, 4))
    assert events[-1]["type"] == "win"


def test_a_jump_onto_the_goal_line_wins():
    state = position({1: (2, 4), 2: (1, 4)})
    after, _ = state.apply(1, parse_decision("M 2 4 0 4"))
    assert after.outcome().winner == 1


def test_ply_cap_is_a_draw():
    state = position({1: (8, 4), 2: (0, 4)}, ply_cap=2)
    state, _ = state.apply(1, parse_decision("M 8 4 7 4"))
    assert not state.is_terminal()
    state, events = state.apply(2, parse_decision("M 0 4 1 4"))
    assert state.is_terminal()
    outcome = state.outcome()
    assert outcome.winner is None and outcome.ranking == ((1, 2),) and "ply cap" in outcome.reason


def test_eject_removes_the_pawn_keeps_walls_and_skips_turns():
    state = QuoridorState.start(4)
    state, _ = state.apply(1, parse_decision("W 4 4 4 6"))
    state, events = state.eject(2)
    assert events == [{"type": "eject", "player": 2}]
    assert state.pawn(2) is None and state.turn == 3 and len(state.wall_list()) == 1
    state, _ = state.apply(3, parse_decision("M 4 0 4 1"))
    state, _ = state.apply(4, parse_decision("M 4 8 4 7"))
    assert state.turn == 1
    # player 2's old square is free, and its path no longer restricts walls
    assert state.active() == (1, 3, 4)


def test_last_active_player_wins_after_ejections():
    state = QuoridorState.start(4)
    state, _ = state.eject(1)
    state, _ = state.eject(2)
    assert not state.is_terminal() and state.turn == 3
    state, events = state.eject(3)
    assert state.is_terminal()
    assert state.outcome().winner == 4
    assert state.outcome().ranking == ((4,), (1, 2, 3))
    assert events[-1] == {"type": "win", "player": 4, "reason": "player 4 is the last active player"}


def without_pawns(players, *gone):
    """The standard start of ``players`` as a board file with the pawns of
    ``gone`` left out of the drawing."""
    text = board_text(QuoridorState.start(players))
    for player in gone:
        r, c = START[player]
        text = edit(text, 7 + 2 * r, 6 + 4 * c, ".")
    return parse_board(text.replace("to move: 1\n", ""), "b.txt")  # (the lowest pawn moves first)


def test_two_players_and_a_pawn_not_drawn_the_other_wins_before_any_move():
    # Player 2's pawn left out of a two-player board: its seat starts as
    # ejected and player 1 is the last active player, so the game is over
    # at once (it played alone to the ply cap, a draw).
    board = without_pawns(2, 2)
    state = GAME.initial_state(Setup("standard", 2, 1, board, dict(GAME.settings)))
    assert state.is_terminal() and state.current_player() is None and state.active() == (1,)
    outcome = state.outcome()
    assert outcome.winner == 1 and outcome.ranking == ((1,), (2,))
    assert outcome.reason == "player 1 is the last active player (no pawn of player 2 on the board)"
    assert GAME.board_warnings(board) == [
        "no pawn of player 2 on the board: that seat starts as ejected; player 1, the last active "
        "player, wins before any move"]
    assert without_pawns(2, 1).outcome().winner == 2  # and the other way round


def test_four_players_and_pawns_not_drawn_are_skipped_ranked_last_and_never_share_a_win():
    board = without_pawns(4, 2, 3)
    state = GAME.initial_state(Setup("standard", 4, 1, board, dict(GAME.settings)))
    assert not state.is_terminal() and state.active() == state.in_game() == (1, 4)
    order = []
    for decision in ["M 8 4 7 4", "M 4 8 4 7", "M 7 4 6 4"]:
        order.append(state.turn)
        state, _ = state.apply(state.turn, parse_decision(decision))
    assert order == [1, 4, 1]
    # a forfeit (policy forfeit) leaves player 1 alone on the board: its win,
    # not a tie with the seats that never had a pawn
    forfeit = forfeit_outcome(state, {1: "active", 2: "active", 3: "active", 4: "forfeited"}, 4,
                              Verdict.CRASH)
    assert forfeit.winner == 1 and forfeit.ranking == ((1,), (4,), (2, 3))
    state, events = state.eject(4)  # policy eject: the last active player wins
    assert state.outcome().winner == 1 and state.outcome().ranking == ((1,), (2, 3, 4))
    assert events[-1] == {"type": "win", "player": 1, "reason": "player 1 is the last active player"}
    alone = without_pawns(4, 1, 2, 4)
    assert alone.outcome().winner == 3 and alone.outcome().ranking == ((3,), (1, 2, 4))
    assert alone.reason == "player 3 is the last active player (no pawn of players 1, 2, 4 on the board)"
    assert GAME.board_warnings(board) == [
        "no pawn of players 2, 3 on the board: those seats start as ejected; their turns are "
        "skipped and they rank last"]


def test_apply_never_changes_its_input():
    state = QuoridorState.start(2)
    before = state.to_json()
    state.apply(1, parse_decision("W 4 4 4 6"))
    state.eject(1)
    assert state.to_json() == before


def test_a_state_rebuilt_field_by_field_is_the_same_position_without_its_cache():
    # QuoridorState writes its own __init__: every declared field must reach it
    state = position({1: (8, 4), 2: (0, 4)}, ["W 4 4 4 6", "W 3 2 5 2"], turn=2)
    state.legal_decisions()
    again = dataclasses.replace(state)
    for f in dataclasses.fields(state):
        if f.init:
            assert getattr(again, f.name) == getattr(state, f.name), f.name
    assert again._cache == {} and state._cache
    with pytest.raises(dataclasses.FrozenInstanceError):
        again.turn = 1


# ----------------------------------------------------------------- decisions
@pytest.mark.parametrize("text, expected", [
    ("M 8 4 7 4", Move(8, 4, 7, 4)), ("1 8 4 7 4\n", Move(8, 4, 7, 4)),
    ("True 8 4 7 4", Move(8, 4, 7, 4)), ("m 8,4,7,4", Move(8, 4, 7, 4)),
    ("W 1 0 1 2", Wall(1, 0, 1, 2)), ("0 1 0 1 2", Wall(1, 0, 1, 2)),
    ("False 1 0 1 2", Wall(1, 0, 1, 2)), ("pass", PASS), ("  PASS \n\n", PASS),
])
def test_decision_forms(text, expected):
    assert parse_decision(text) == expected
    assert parse_decision(str(expected)) == expected


@pytest.mark.parametrize("text, words", [
    ("", "empty"), ("X 1 2 3 4", "unknown decision"), ("M 1 2 3", "needs 4 integers"),
    ("M 1 2 3 a", "'a' is not an integer"), ("PASS 1", "nothing after"),
    ("M 8 4 7 4\nM 7 4 6 4", "one line"),
])
def test_malformed_decisions(text, words):
    with pytest.raises(DecisionError, match=words):
        parse_decision(text)


# ----------------------------------------------------------------- boards
def test_board_text_round_trips():
    state = position({1: (7, 4), 2: (0, 4), 3: (4, 0), 4: (4, 8)},
                     ["W 1 4 3 4", "W 3 1 3 3", "W 3 3 3 5", "W 5 5 7 5"], players=4,
                     walls_left={1: 5, 2: 4, 3: 3, 4: 5}, turn=3)
    again = parse_board(board_text(state), "b.txt")
    assert again.to_json() == state.to_json()


def test_drawing_marks_wall_middles():
    text = board_text(position({1: (8, 4), 2: (0, 4)}, ["W 3 1 3 3", "W 3 3 3 5", "W 1 4 3 4"]))
    lines = text.splitlines()
    grid_line_3 = lines[4 + 1 + 2 * 3]
    assert grid_line_3.strip() == "+   +-------+-------+   +   +   +   +"
    assert lines[4 + 1 + 2 * 2][3 + 16] == "|"  # the vertical wall's middle crossing


def edit(text, line, column, replacement):
    lines = text.splitlines()
    row = lines[line - 1]
    lines[line - 1] = row[:column - 1] + replacement + row[column - 1 + len(replacement):]
    return "\n".join(lines) + "\n"


def test_board_errors_name_line_and_column():
    text = board_text(QuoridorState.start(2))
    with pytest.raises(InputError) as err:
        parse_board(edit(text, 7, 10, "x"), "b.txt")
    assert str(err.value).startswith("b.txt:7:10: a square holds")
    with pytest.raises(InputError, match="belongs to no wall") as err:
        parse_board(edit(text, 10, 5, "---"), "b.txt")
    assert str(err.value).startswith("b.txt:10:5: ")
    with pytest.raises(InputError, match="pawn 1 appears twice"):
        parse_board(edit(text, 7, 6, "1"), "b.txt")
    with pytest.raises(InputError, match="b.txt:4: player 1 cannot have 11 walls left"):
        parse_board(text.replace("walls left: 1=10", "walls left: 1=11"), "b.txt")


def test_board_with_a_closed_pocket_around_a_pawn_is_rejected():
    state = position({1: (8, 4), 2: (0, 0)}, ["W 1 0 1 2", "W 0 2 2 2"])
    with pytest.raises(InputError, match="player 2 has no path to row 8"):
        parse_board(board_text(state), "b.txt")


def test_board_player_count_must_match():
    board = parse_board(GAME.default_board_text("standard", 4), "b.txt")
    with pytest.raises(InputError, match="for 4 player"):
        GAME.initial_state(Setup("standard", 2, 1, board, dict(GAME.settings)))


# ----------------------------------------------------------------- pre-moves
def test_premoves_are_applied_in_turn_order(tmp_path):
    file = tmp_path / "pre.txt"
    file.write_text("# opening\nM 8 4 7 4\nM 0 4 1 4 ; W 5 0 5 2\n")
    settings = {**GAME.settings, "premoves_file": str(file), "premoves": "M 1 4 2 4"}
    state = GAME.initial_state(Setup("standard", 2, 1, None, settings))
    assert state.ply == 4 and state.pawn(1) == (7, 4) and state.pawn(2) == (2, 4)
    assert state.walls_left == (9, 10) and state.turn == 1
    view = GAME.view_json(state, 1)
    assert [m["decision"] for m in view["moves"]] == ["M 8 4 7 4", "M 0 4 1 4", "W 5 0 5 2", "M 1 4 2 4"]


def test_an_illegal_premove_names_its_line(tmp_path):
    file = tmp_path / "pre.txt"
    file.write_text("M 8 4 7 4\nM 0 4 2 4\n")
    settings = {**GAME.settings, "premoves_file": str(file)}
    with pytest.raises(InputError) as err:
        GAME.initial_state(Setup("standard", 2, 1, None, settings))
    assert str(err.value).startswith(f"{file}:2: pre-move M 0 4 2 4 by player 2: the pawn cannot move")
