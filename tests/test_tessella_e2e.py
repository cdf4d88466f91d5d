"""Tessella end to end: real player processes through `referee play` (the
built-ins, the templates and a seed-style student program run as is), both
seats, replays verified."""
from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import pytest

from conftest import (BOARDS, PYTHON_SDK, ROOT, assert_clean_and_verified, needs_gpp, new_player,
                      play_match, read_log, referee, student_copy)

SEED_PLAYER = ROOT / "tests" / "seed_players" / "tessella_seed.py"
# Player 1's only piece sits in the top corner under three enemies: no step, no capture.
STUCK = {(0, 4): "O1", (1, 3): "O2", (1, 4): "S2", (1, 5): "O2"}

play = partial(play_match, "tessella", seed=2)


def board_file(tmp_path: Path, tokens: dict) -> Path:
    lines = (BOARDS / "tessella" / "standard.txt").read_text().splitlines()
    grid = [line.split() for line in lines]
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            grid[r][c] = tokens.get((r, c), token[0] + "0")
    path = tmp_path / "board.txt"
    path.write_text("".join(" ".join(row) + "\n" for row in grid))
    return path


@pytest.mark.parametrize("seats", [("builtin:greedy", "builtin:random"),
                                   ("builtin:random", "builtin:greedy")])
def test_builtins_play_a_verified_match_from_both_seats(tmp_path, seats):
    out = tmp_path / "m"
    result = play(out, *seats)
    records = assert_clean_and_verified(out, result)
    greedy = seats.index("builtin:greedy") + 1
    assert result["winner"] == greedy and result["reason"] == f"player {greedy} captured 4 pieces"
    captures = [e for r in records for e in r["events"] if e["type"] == "capture"]
    assert sum(e["player"] == greedy for e in captures) == 4
    assert result["scores"][str(greedy)] == 4


@pytest.mark.parametrize("opponent", ["builtin:greedy", "builtin:random"])
def test_seed_style_program_runs_unchanged_from_both_seats(tmp_path, opponent):
    student = student_copy(tmp_path, SEED_PLAYER)
    for seat, seats in enumerate(((student, opponent), (opponent, student)), start=1):
        out = tmp_path / f"m{seat}"
        result = play(out, *seats, extra=("--set", "ply_cap=30"))
        records = assert_clean_and_verified(out, result)
        assert any(r["player"] == seat and r["decision"] for r in records)


def test_sdk_reads_snapshots_as_the_seed_did(tmp_path):
    out = tmp_path / "m"
    play(out, "builtin:greedy", "builtin:random", extra=("--set", "ply_cap=2"))
    sys.path.insert(0, str(PYTHON_SDK))
    try:
        from referee_sdk.tessella import parse_board
    finally:
        sys.path.remove(str(PYTHON_SDK))
    a, b, board = parse_board((out / "players" / "p2" / "step_logs" / "step_0.txt").read_text())
    assert a == [(5, 1), (5, 7), (6, 2), (6, 6), (7, 3), (7, 5), (8, 4)]
    assert b == [(0, 4), (1, 3), (1, 5), (2, 2), (2, 6), (3, 1), (3, 7)]
    assert board[0][0] == ("X", 0) and board[4][3] == ("S", 0) and board[8][4] == ("O", 1)


def test_python_template_plays_both_seats(tmp_path):
    me = new_player("tessella", tmp_path / "me")
    for seats in ((me, "builtin:greedy"), ("builtin:random", me)):
        out = tmp_path / f"m{seats.index(me)}"
        assert_clean_and_verified(out, play(out, *seats, extra=("--set", "ply_cap=20")))


@needs_gpp
def test_cpp_template_compiles_and_plays_both_seats(tmp_path):
    me = new_player("tessella", tmp_path / "me", "cpp")
    for seats in ((me, "builtin:random"), ("builtin:greedy", me)):
        out = tmp_path / f"m{seats.index(me)}"
        assert_clean_and_verified(out, play(out, *seats, extra=("--set", "ply_cap=20")))


def test_the_referee_passes_for_a_stuck_player(tmp_path):
    out = tmp_path / "m"
    result = play(out, "builtin:greedy", "builtin:greedy", board=board_file(tmp_path, STUCK),
                  extra=("--set", "ply_cap=6"))
    records = assert_clean_and_verified(out, result)
    assert records[0]["auto"] is True and records[0]["applied"] == "0 0 0 0"
    assert records[1]["player"] == 2 and not records[1].get("auto")


def test_an_unneeded_pass_is_illegal(tmp_path, make_player):
    passer = make_player("passer", "open('decision.txt', 'w').write('0 0 0 0')")
    out = tmp_path / "m"
    result = play(out, "builtin:random", passer)
    record = read_log(out)[1]
    assert record["verdict"] == "ILLEGAL" and "only when you cannot move" in record["message"]
    assert result["winner"] == 1


def test_validate_boards(tmp_path):
    for path in sorted((BOARDS / "tessella").glob("*.txt")):
        proc = referee("validate", "tessella", path)
        assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr
    proc = referee("validate", "tessella", board_file(tmp_path, {**STUCK, (4, 4): "S0"}))
    assert proc.returncode == 2
    assert "board.txt:5:13: cell 4 4 is an octagon" in proc.stderr
    proc = referee("validate", "tessella", board_file(tmp_path, STUCK))
    assert proc.returncode == 0 and "player 1 has 1 piece(s)" in proc.stdout + proc.stderr


def test_replay_renders_the_diamond(tmp_path):
    out = tmp_path / "m"
    play(out, "builtin:greedy", "builtin:random", extra=("--set", "ply_cap=3"))
    proc = referee("replay", out, "--step", "3")
    assert proc.returncode == 0
    assert "( )[ ]" in proc.stdout and "ply 3/3" in proc.stdout
