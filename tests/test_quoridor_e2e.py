"""Quoridor end to end: real player processes through `referee play` (2 and 4
players, practice mode, a course-engine module, a crash under the eject
policy, pre-moves, the templates), replays verified; the Part 1 grader."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import BOARDS, ROOT, assert_verifies, referee

from referee.games.quoridor.part1_check import check

SEEDS = ROOT / "tests" / "seed_players"
MODULE = SEEDS / "quoridor_module" / "player.py"
CRASH = f"{sys.executable} {SEEDS / 'quoridor_crash.py'}"
SDK = ROOT / "players" / "sdk" / "python" / "referee_sdk"


def play(out: Path, *players: str, extra=()) -> dict:
    args = ["play", "quoridor", *[a for p in players for a in ("--player", p)], "--seed", "5",
            "--out", out, "--quiet", *extra]
    proc = referee(*args)
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load((out / "result.yaml").read_text())


def log(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]


def verified(out: Path) -> list[dict]:
    assert_verifies(out)
    return log(out)


def test_greedy_beats_random_from_both_seats(tmp_path):
    for seats in (("builtin:greedy", "builtin:random"), ("builtin:random", "builtin:greedy")):
        out = tmp_path / seats[0].split(":")[1]
        result = play(out, *seats)
        records = verified(out)
        assert {r["verdict"] for r in records} == {"OK"}
        greedy = seats.index("builtin:greedy") + 1
        assert result["winner"] == greedy
        assert result["reason"] == f"player {greedy} reached {'row 0' if greedy == 1 else 'row 8'}"


def test_state_json_and_board_txt_carry_the_position(tmp_path):
    out = tmp_path / "m"
    play(out, "builtin:greedy", "builtin:greedy", extra=["--set", "ply_cap=6"])
    records = verified(out)
    assert len(records) == 6
    state = json.loads((out / "players" / "p2" / "state.json").read_text())
    assert state["game"] == "quoridor" and state["you"] == 2 and state["player_count"] == 2
    assert set(state) >= {"pawns", "walls", "walls_left", "active", "moves", "history"}
    assert [m["decision"] for m in state["moves"]] == [r["applied"] for r in records[:5]]
    board = (out / "players" / "p2" / "Board.txt").read_text()
    assert "walls left: 1=" in board and "+---+---+" in board
    result = yaml.safe_load((out / "result.yaml").read_text())
    assert result["winner"] is None and "ply cap 6" in result["reason"]


def test_four_players_move_in_turn_order(tmp_path):
    out = tmp_path / "m"
    result = play(out, "builtin:greedy", "builtin:random", "builtin:greedy", "builtin:random",
                  extra=["--set", "ply_cap=12"])
    records = verified(out)
    assert [r["player"] for r in records] == [1, 2, 3, 4] * 3
    assert result["winner"] is None and result["ranking"] == [[1, 2, 3, 4]]


def test_a_crashing_player_is_ejected_and_the_game_goes_on(tmp_path):
    out = tmp_path / "m"
    result = play(out, "builtin:greedy", "builtin:random", CRASH, f"module:{MODULE}")
    records = verified(out)
    crash = next(r for r in records if r["player"] == 3)
    assert crash["verdict"] == "CRASH" and crash["fault"] == "eject"
    assert crash["events"] == [{"type": "eject", "player": 3}]
    assert all(r["player"] != 3 for r in records[records.index(crash) + 1:])
    assert records.index(crash) < len(records) - 1  # the game went on
    assert result["verdicts"][3]["CRASH"] == 1
    assert result["ranking"][-1] == [3]
    state = json.loads((out / "players" / "p4" / "state.json").read_text())
    assert {"player": 3, "decision": "EJECT"} in state["moves"] and 3 not in state["active"]


def test_last_active_player_wins_when_the_others_crash(tmp_path):
    out = tmp_path / "m"
    result = play(out, CRASH, "builtin:random", CRASH, CRASH)
    verified(out)
    assert result["winner"] == 2 and result["reason"] == "player 2 is the last active player"


def test_a_seat_without_a_pawn_on_the_board_loses_before_any_move(tmp_path):
    """Player 2's pawn left out of the standard board: player 1 played
    alone to the ply cap (324 steps) and the game was a draw."""
    board = tmp_path / "q.txt"
    lines = (BOARDS / "quoridor" / "standard-2p.txt").read_text().splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if line.startswith(" 0 |"))
    assert lines[row].count(" 2 ") == 1
    lines[row] = lines[row].replace(" 2 ", " . ")
    board.write_text("".join(lines))
    checked = referee("validate", "quoridor", board)
    assert checked.returncode == 0 and "warning: no pawn of player 2 on the board" in checked.stdout
    out = tmp_path / "m"
    result = play(out, "builtin:random", "builtin:random", extra=["--board", board])
    assert verified(out) == []
    assert result["winner"] == 1 and result["ranking"] == [[1], [2]] and result["steps"] == 0
    assert result["reason"] == "player 1 is the last active player (no pawn of player 2 on the board)"


def test_a_module_player_plays_through_the_adapter(tmp_path):
    out = tmp_path / "m"
    result = play(out, f"module:{MODULE}", "builtin:random",
                  extra=["--set", "premoves=M 8 4 7 4; W 5 3 5 5"])
    records = verified(out)
    assert {r["verdict"] for r in records} == {"OK"}
    assert result["winner"] == 1  # it races; the random player wastes turns on walls
    # the pre-moves took one turn each; the module knows it already moved
    assert records[0]["player"] == 1 and records[0]["applied"] == "M 7 4 6 4"
    stderr = (out / "players" / "p1" / "stderr.txt").read_text()
    assert "init player 1 with 10 walls" in stderr


def test_module_players_refuse_a_board_file(tmp_path):
    board = tmp_path / "b.txt"
    board.write_text((BOARDS / "quoridor" / "pocket.txt").read_text())
    out = tmp_path / "m"
    result = play(out, f"module:{MODULE}", "builtin:random", extra=["--board", board])
    records = log(out)
    assert records[0]["verdict"] == "CRASH"
    assert "standard start position" in records[0]["message"]
    assert result["winner"] == 2


def test_practice_mode_ends_on_reaching_the_goal(tmp_path):
    out = tmp_path / "m"
    result = play(out, "builtin:greedy")
    records = verified(out)
    assert result["winner"] == 1 and len(records) == 8 and {r["player"] for r in records} == {1}


def test_unknown_module_file_is_a_usage_error(tmp_path):
    proc = referee("play", "quoridor", "--player", "module:nope.py", "--player", "builtin:random",
                   "--out", tmp_path / "m")
    assert proc.returncode == 2 and "module player not found" in proc.stderr


def test_bad_premove_is_a_usage_error(tmp_path):
    proc = referee("play", "quoridor", "--player", "builtin:random", "--player", "builtin:random",
                   "--set", "premoves=M 8 4 6 4", "--out", tmp_path / "m")
    assert proc.returncode == 2 and "pre-move M 8 4 6 4 by player 1" in proc.stderr


@pytest.mark.parametrize("name", sorted(p.name for p in (BOARDS / "quoridor").glob("*.txt")))
def test_sample_boards_validate(name):
    proc = referee("validate", "quoridor", BOARDS / "quoridor" / name)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_python_template_plays_legal_moves(tmp_path):
    folder = tmp_path / "student"
    shutil.copytree(SDK, folder / "referee_sdk", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(ROOT / "players" / "quoridor" / "template.py", folder / "player.py")
    out = tmp_path / "m"
    result = play(out, f"{sys.executable} {folder / 'player.py'}", "builtin:random")
    records = verified(out)
    assert {r["verdict"] for r in records} == {"OK"}
    assert result["steps"] == len(records)


def test_cpp_template_plays_legal_moves(tmp_path):
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("no C++ compiler")
    exe = tmp_path / "player"
    subprocess.run([compiler, "-std=c++14", "-O2", "-I", str(ROOT / "players" / "sdk" / "cpp"), "-o", str(exe),
                    str(ROOT / "players" / "quoridor" / "template.cpp")], check=True)
    out = tmp_path / "m"
    play(out, "builtin:random", str(exe), extra=["--set", "ply_cap=40"])
    records = verified(out)
    assert {r["verdict"] for r in records if r["player"] == 2} == {"OK"}


# ----------------------------------------------------------------- Part 1 grader
def test_part1_check_gives_a_correct_module_full_marks():
    text, code = check(str(MODULE))
    assert code == 0
    assert "score: 100.0% (720/720)" in text and "first failing case" not in text


def test_part1_check_reports_the_first_failing_case():
    text, code = check(str(SEEDS / "quoridor_part1_buggy.py"))
    assert code == 1
    assert "first failing case" in text and "problem:" in text
    score = float(text.split("score: ")[1].split("%")[0])
    assert 0 < score < 100


def test_part1_check_survives_a_module_that_hangs(tmp_path):
    module = tmp_path / "hang.py"
    module.write_text("def init(*a):\n    while True:\n        pass\n")
    text, code = check(str(module), time_limit=3)
    assert code == 1 and "timed out after 3 s" in text and "score: 0.0%" in text


def test_part1_check_through_the_cli():
    proc = referee("check", "quoridor-part1", SEEDS / "quoridor_part1_buggy.py")
    assert proc.returncode == 1 and "first failing case" in proc.stdout
    listed = referee("check", "--help")
    assert "quoridor-part1" in listed.stdout
    missing = referee("check", "quoridor-part1", "nope.py")
    assert missing.returncode == 2 and "nope.py" in missing.stderr
