"""Quoridor course modules run as the course's engine ran them: its
``Model.interface`` attribute for attribute, one kept-alive module per game,
seeded chance that ``rerun`` reproduces, the Part 1 grader under both
contracts with honest per-layout failures, package folders, the course's
``PlayerMove(...)`` form in decisions and pre-moves.

The fixtures are modules written for these tests in the course's shape:
``course_team/`` (a package: every PlayerMove attribute, state kept in
``move()``, ``random``, a crash in ``last_move`` on purpose at the wall
W 1 0 1 2) and ``course_part1.py`` (trusts Part 1's playerId-1 promise)."""
from __future__ import annotations

import importlib
import json
import signal
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, assert_verifies, referee

from referee.core.runner import Limits, RunResult
from referee.core.verdicts import Verdict, process_fault
from referee.games.quoridor import course_api
from referee.games.quoridor.codec import parse_decision, parse_premoves
from referee.games.quoridor.module_adapter import seed_chance
from referee.games.quoridor.part1_check import COURSE, LAYOUTS, REFEREE, check, layouts

SEEDS = ROOT / "tests" / "seed_players"
TEAM = SEEDS / "course_team"
PART1 = SEEDS / "course_part1.py"
TRIGGER = "W 1 0 1 2"  # course_team's last_move raises on this wall


def play(out: Path, *players: str, extra=()) -> dict:
    proc = referee("play", "quoridor", *[a for p in players for a in ("--player", p)],
                   "--out", out, "--quiet", *extra)
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load((out / "result.yaml").read_text())


def log(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]


def verified(out: Path) -> list[dict]:
    assert_verifies(out)
    return log(out)


# ------------------------------------------------------- the course's interface
def test_player_move_has_the_course_attributes():
    move = course_api.PlayerMove(1, False, 7, 3, 7, 5)
    assert course_api.PlayerMove.__slots__ == ("playerId", "move", "start", "end", "r1", "c1", "r2", "c2")
    assert (move.playerId, move.move, move.r1, move.c1, move.r2, move.c2) == (1, False, 7, 3, 7, 5)
    assert move.start == (7, 3) and move.end == (7, 5)
    assert isinstance(move.start, tuple) and isinstance(move.end, tuple)
    with pytest.raises(AttributeError):
        move.colour = "red"  # slots: nothing else can be set
    assert not hasattr(move, "__dict__")
    move.r1 = 6  # plain slots: start was fixed at construction, as in the course
    assert move.start == (7, 3)


def test_player_move_prints_and_copies_as_the_course_did():
    move = course_api.PlayerMove(2, True, 0, 4, 1, 4)
    assert str(move) == "Player 2 Move: [0,4] -> [1,4]"
    assert repr(move) == str(move)
    assert str(course_api.PlayerMove(1, False, 7, 3, 7, 5)) == "Player 1 Wall: [7,3] -> [7,5]"
    copy = move.getCopy()
    assert copy is not move and isinstance(copy, course_api.PlayerMove)
    assert [getattr(copy, s) for s in copy.__slots__] == [getattr(move, s) for s in move.__slots__]
    # no equality beyond identity: a student subclass that adds one still works
    assert copy != move and len({copy, move}) == 2


def test_model_interface_and_engine_modules_are_importable():
    course_api.install_interface()
    interface = importlib.import_module("Model.interface")
    assert interface.BOARD_DIM == 9 and interface.PlayerMove is course_api.PlayerMove
    model = interface.StudentEngineModel(1, 2, 3, 4, ((8, 4),))
    assert interface.StudentEngineModel.__slots__ == (
        "makeMove", "getPlayerData", "setPlayerData", "getPlayerModule", "playerHomes")
    assert model.playerHomes == ((8, 4),) and model.getPlayerModule == 4
    assert importlib.import_module("Engine.logger").Logger is course_api.Logger
    assert issubclass(importlib.import_module("Engine.security").GameException, Exception)


def test_logger_writes_and_errors_to_stderr_also_called_on_the_class(capsys):
    course_api.Logger().write("hello")
    course_api.Logger().error("bad")
    course_api.Logger.write(course_api.Logger, "on the class")  # as course code did
    err = capsys.readouterr().err
    assert err == "hello\nERROR: bad\non the class\n"


def test_what_move_returned_is_named_in_the_course_form():
    assert course_api.returned_decision(course_api.PlayerMove(-1, False, -1, -1, -1, -1)) == \
        "PlayerMove(-1, False, -1, -1, -1, -1)"
    assert course_api.returned_decision(None) == "move() returned None, not a PlayerMove"
    numpy = pytest.importorskip("numpy")
    move = course_api.PlayerMove(numpy.int64(1), 1, numpy.int64(8), 4, 7, 4)
    assert course_api.returned_decision(move) == "PlayerMove(1, True, 8, 4, 7, 4)"


def test_chance_is_seeded_per_call_random_and_numpy():
    import random
    numpy = pytest.importorskip("numpy")
    seed_chance(7, "move", 3)
    first = (random.random(), numpy.random.rand())
    seed_chance(7, "move", 5)
    other = (random.random(), numpy.random.rand())
    seed_chance(7, "move", 3)
    assert (random.random(), numpy.random.rand()) == first != other


# ------------------------------------------------------------- course inputs
def test_course_player_move_form_reads_as_a_decision():
    assert str(parse_decision("PlayerMove(1,False,7,3,7,5)")) == "W 7 3 7 5"
    assert str(parse_decision("PlayerMove(2, True, 0, 4, 1, 4)\n")) == "M 0 4 1 4"
    from referee.core.game import DecisionError
    with pytest.raises(DecisionError, match="starter's placeholder"):
        parse_decision("PlayerMove(-1, False, -1, -1, -1, -1)")
    with pytest.raises(DecisionError, match="6 values"):
        parse_decision("PlayerMove(1, True, 8, 4)")
    with pytest.raises(DecisionError, match="True .*or False"):
        parse_decision("PlayerMove(1, Maybe, 8, 4, 7, 4)")
    with pytest.raises(DecisionError) as caught:  # what the adapter writes for anything else
        parse_decision(course_api.returned_decision([8, 4, 7, 4]) + "\n")
    assert str(caught.value) == WHAT_IT_RETURNED


def test_premoves_in_the_course_config_form(tmp_path):
    premoves = parse_premoves("PRE_MOVE PlayerMove(1,False,7,3,7,5)\n"
                              "PlayerMove(1,False,0,1,2,1); M 8 4 7 4  # ours\n", "f")
    assert [(str(p.decision), p.line, p.player) for p in premoves] == [
        ("W 7 3 7 5", 1, 1), ("W 0 1 2 1", 2, 1), ("M 8 4 7 4", 2, None)]
    out = tmp_path / "m"
    play(out, "builtin:greedy", extra=["--set", "premoves=PlayerMove(1,False,7,3,7,5); PlayerMove(1,False,7,5,7,7)",
                                       "--seed", "1"])
    assert verified(out)
    wrong = referee("play", "quoridor", "--player", "builtin:greedy", "--player", "builtin:random",
                    "--set", "premoves=PlayerMove(2,True,8,4,7,4)", "--out", tmp_path / "w")
    assert wrong.returncode == 2
    assert "names player 2, but it is player 1's turn" in wrong.stderr


def test_a_package_folder_is_a_module_player_and_a_folder_without_init_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    proc = referee("play", "quoridor", "--player", f"module:{tmp_path / 'empty'}",
                   "--player", "builtin:random", "--out", tmp_path / "m")
    assert proc.returncode == 2 and "has no __init__.py" in proc.stderr
    checked = referee("check", "quoridor-part1", tmp_path / "empty")
    assert checked.returncode == 2 and "without __init__.py" in checked.stderr


def test_the_starters_placeholder_move_is_named_in_the_verdict(tmp_path):
    module = tmp_path / "starter.py"
    module.write_text("from Model.interface import PlayerMove\n"
                      "def init(logger, playerId, numWalls, playerHomes):\n    return None\n"
                      "def last_move(playerData, move):\n    return playerData\n"
                      "def move(playerData):\n    return PlayerMove(-1, False, -1, -1, -1, -1)\n")
    out = tmp_path / "m"
    play(out, f"module:{module}", "builtin:random", extra=["--seed", "1"])
    first = verified(out)[0]
    assert first["verdict"] == "MALFORMED"
    assert "'PlayerMove(-1, False, -1, -1, -1, -1)': the starter's placeholder" in first["message"]


WHAT_IT_RETURNED = "expected a PlayerMove(playerId, move, r1, c1, r2, c2), from Model.interface"


@pytest.mark.parametrize("returned, quoted", [
    ("None", "'move() returned None, not a PlayerMove'"),
    ("'M 8 4 7 4'", "\"move() returned 'M 8 4 7 4', not a PlayerMove\""),
])
def test_a_move_that_returns_no_player_move_is_malformed_in_the_documented_words(tmp_path, returned, quoted):
    """The verdict went on with the decision parser's confusion: "unknown
    decision 'move()': expected M, W or PASS (or 1/0, True/False)"."""
    module = tmp_path / "noneret.py"
    module.write_text("def init(logger, playerId, numWalls, playerHomes):\n    return {}\n"
                      "def last_move(playerData, move):\n    return playerData\n"
                      f"def move(playerData):\n    return {returned}\n")
    out = tmp_path / "m"
    play(out, f"module:{module}", "builtin:random", extra=["--seed", "1"])
    first = verified(out)[0]
    assert first["message"] == f"step 1, player 1: MALFORMED: {quoted}: {WHAT_IT_RETURNED}"


def test_a_module_without_move_is_named_in_its_own_files_words(tmp_path):
    """It was "AttributeError: module 'nomove' has no attribute 'move' at
    module_adapter.py:130": the referee's file, as if the referee had failed."""
    module = tmp_path / "nomove.py"
    module.write_text("def init(logger, playerId, numWalls, playerHomes):\n    return {}\n"
                      "def last_move(playerData, move):\n    return playerData\n")
    team = tmp_path / "team"
    team.mkdir()
    (team / "__init__.py").write_text(module.read_text().replace("def last_move", "last_move = 3\ndef move"))
    for player, says in ((module, "nomove.py has no function move()"),
                         (team, "team/__init__.py has no function last_move()")):
        out = tmp_path / f"m-{player.stem}"
        result = play(out, f"module:{player}", "builtin:random", extra=["--seed", "1"])
        first = verified(out)[0]
        assert first["verdict"] == "CRASH" and result["winner"] == 2
        assert f"(stderr: {says})" in first["message"] and "module_adapter" not in first["message"], first


# ------------------------------------------------------- Part 1, both contracts# ------------------------------------------------------- Part 1, both contracts
def crashing_layouts(seed: int, contract) -> set[int]:
    return {i for i, walls in enumerate(layouts(seed, contract)) if TRIGGER in map(str, walls)}


@pytest.mark.parametrize("contract", [REFEREE, COURSE], ids=lambda c: c.name)
def test_part1_fails_every_case_of_a_layout_whose_set_up_crashed(contract):
    crashed = crashing_layouts(0, contract)
    assert 0 < len(crashed) < LAYOUTS  # the fixture's trigger shows up in some layouts only
    text, code = check(str(TEAM), 0, contract=contract)
    good = LAYOUTS - len(crashed)
    assert code == 1
    assert f"get_neighbors: {6 * good}/360 cases passed" in text
    assert f"get_shortest_path: {6 * good}/360 cases passed" in text
    assert f"init/last_move crashed on {len(crashed)} of 60 layouts" in text
    assert f"failing layouts: {len(crashed)} of 60" in text
    first = min(crashed)
    line = next(l for l in text.splitlines() if l.startswith(f"  layout {first}:"))
    assert "12/12 cases failed" in line
    assert "__init__.py, line 38: RuntimeError: last_move crashes on purpose" in line


def test_part1_course_contract_reports_every_move_as_player_1_with_20_walls():
    text, code = check(str(PART1), contract=COURSE)
    assert code == 0 and "score: 100.0% (720/720)" in text
    assert "one player, 20 walls, every PlayerMove with playerId 1" in text
    # Ours reports the second player's walls as player 2: those layouts cannot
    # be set up, and none of their cases passes.
    ours, code = check(str(PART1))
    setups = [walls for walls in layouts(0, REFEREE)]
    good = sum(len(walls) < 2 for walls in setups)
    assert code == 1 and f"get_neighbors: {6 * good}/360 cases passed" in ours
    assert "course_part1.py, line 16: ValueError: Part 1 reports every move as player 1" in ours


GLOBAL_BOARD = """\
from Model.interface import BOARD_DIM
CLOSED = set()  # the board in a module global, as many students kept it

def init(logger, playerId, numWalls, playerHomes):
    return None

def last_move(playerData, move):
    (r1, c1), (r2, c2) = move.start, move.end
    if r1 == r2:
        edges = [((r1 - 1, c), (r1, c)) for c in (c1, c1 + 1)]
    else:
        edges = [((r, c1 - 1), (r, c1)) for r in (r1, r1 + 1)]
    for a, b in edges:
        CLOSED.update({(a, b), (b, a)})
    return playerData

def get_neighbors(playerData, r, c):
    return [[nr, nc] for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= nr < BOARD_DIM and 0 <= nc < BOARD_DIM and ((r, c), (nr, nc)) not in CLOSED]

def get_shortest_path(playerData, r1, c1, r2, c2):
    seen, frontier = {(r1, c1): None}, [(r1, c1)]
    while frontier:
        following = []
        for here in frontier:
            if here == (r2, c2):
                path = []
                while here is not None:
                    path.append(list(here))
                    here = seen[here]
                return path[::-1]
            for square in map(tuple, get_neighbors(playerData, *here)):
                if square not in seen:
                    seen[square] = here
                    following.append(square)
        frontier = following
    return []
"""


@pytest.mark.parametrize("contract", [REFEREE, COURSE], ids=lambda c: c.name)
def test_part1_gives_each_layout_a_new_module_instance(tmp_path, contract):
    # Module globals are not carried from one layout to the next: each course
    # engine run loaded the module afresh.
    module = tmp_path / "globals_board.py"
    module.write_text(GLOBAL_BOARD)
    text, code = check(str(module), contract=contract)
    assert code == 0 and "score: 100.0% (720/720)" in text, text


def test_part1_on_a_course_config_asks_every_question_of_its_layout(tmp_path):
    config = tmp_path / "config.txt"
    config.write_text("PLAYER_MODULES team\nPART_ONE True\n# PRE_MOVE PlayerMove(1,False,0,1,2,1)\n"
                      "PRE_MOVE PlayerMove(1,False,7,3,7,5)\nPRE_MOVE PlayerMove(1,False,7,5,7,7)\n"
                      "PRE_MOVE PlayerMove(1,False,7,6,9,6)\n")
    proc = referee("check", "quoridor-part1", "--course", "--config", config, PART1)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "get_neighbors: 81/81 cases passed" in proc.stdout
    assert "get_shortest_path: 6561/6561 cases passed" in proc.stdout
    crashed = referee("check", "quoridor-part1", "--course", "--premoves",
                      "PlayerMove(1,False,7,3,7,5); W 1 0 1 2", TEAM)
    assert crashed.returncode == 1 and "get_neighbors: 0/81 cases passed" in crashed.stdout
    assert "init/last_move crashed on 1 of 1 layouts" in crashed.stdout
    config.write_text("PRE_MOVE PlayerMove(1,False,7,3,7,5)\nPRE_MOVE PlayerMove(1,False,7,4,7,6)\n")
    bad = referee("check", "quoridor-part1", "--course", "--config", config, PART1)
    assert bad.returncode == 2 and f"{config}:2:" in bad.stderr and "overlaps" in bad.stderr, bad.stderr


def test_part1_through_the_cli_with_a_package_folder():
    proc = referee("check", "quoridor-part1", "--course", TEAM)
    assert proc.returncode == 1
    assert "contract: the course's Part 1" in proc.stdout and "failing layouts:" in proc.stdout


# ------------------------------------------------------ played as the engine did
def player_moves(records: list[dict], player: int) -> list[str]:
    return [r["applied"] for r in records if r["player"] == player and r.get("applied")]


def test_a_module_keeps_what_move_changed_and_replays_the_same(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    play(first, f"module:{TEAM}", "builtin:greedy", extra=["--seed", "5"])
    play(second, f"persistent:module:{TEAM}", "builtin:greedy", extra=["--seed", "5"])
    one, two = verified(first), verified(second)
    assert {r["verdict"] for r in one} == {"OK"}
    mine = player_moves(one, 1)
    # the flag move() set after the first wall survived: exactly one wall, then a race
    assert sum(m.startswith("W") for m in mine) == 1 and len(mine) > 3
    assert [(r["player"], r["decision"]) for r in one] == [(r["player"], r["decision"]) for r in two]
    match = yaml.safe_load((first / "match.yaml").read_text())
    assert match["players"][0]["persistent"] is True
    stderr = (first / "players" / "p1" / "stderr.txt").read_text()
    assert "course_team: player 1 of 2, 10 walls, board 9x9" in stderr
    assert "Player 1 Move: [8,4] -> [7,4]" in stderr


def test_rerun_reproduces_a_kept_alive_modules_steps(tmp_path):
    out = tmp_path / "m"
    play(out, f"module:{TEAM}", "builtin:greedy", extra=["--seed", "6"])
    records = verified(out)
    mine = [r for r in records if r["player"] == 1]
    wall_step = next(r for r in mine if r["applied"].startswith("W"))
    for record in (wall_step, mine[-1]):  # the random wall, and a step after it (the flag)
        proc = referee("rerun", out, "--step", record["step"], "--scratch", tmp_path / f"rerun-{record['step']}")
        assert proc.returncode == 0, proc.stderr
        assert f"decision.txt: {record['decision'].strip()!r}" in proc.stdout
        assert "verdict: OK" in proc.stdout


def test_a_crash_in_last_move_is_charged_to_the_module_with_its_line(tmp_path):
    out = tmp_path / "m"
    result = play(out, f"module:{TEAM}", "builtin:greedy",
                  extra=["--seed", "1", "--set", "premoves=PlayerMove(1,True,8,4,7,4); PlayerMove(2,False,1,0,1,2)"])
    first = verified(out)[0]
    assert first["player"] == 1 and first["verdict"] == "CRASH"
    assert "__init__.py, line 38: RuntimeError: last_move crashes on purpose at Player 2 Wall: [1,0] -> [1,2]" \
        in first["message"]
    assert result["winner"] == 2


def test_a_package_that_cannot_be_imported_crashes_its_first_step_naming_the_line(tmp_path):
    team = tmp_path / "team"
    team.mkdir()
    (team / "__init__.py").write_text("from Model.interface import PlayerMove\nfrom .helper import nothing\n")
    (team / "helper.py").write_text("x = 1\n")
    out = tmp_path / "m"
    result = play(out, f"module:{team}", "builtin:random", extra=["--seed", "1"])
    first = verified(out)[0]
    assert first["verdict"] == "CRASH" and result["winner"] == 2
    # loaded before the match, but its failure is told as step 1's, with the line
    assert "__init__.py, line 2: ImportError: cannot import name 'nothing'" in first["message"]


@pytest.mark.parametrize("time_limit", ["0.5", "1"])
def test_a_module_past_its_limit_is_judged_alike_by_the_match_and_rerun(tmp_path, time_limit):
    # The CPU limit is the hard limit (1.5 s, 2 s).  With 2 s, a kept-alive
    # module charged its start-up's CPU at step 1 reached its CPU limit before
    # the wall limit (CPU_LIMIT), where rerun, which starts it inside the
    # step, reached the wall limit first (TIMEOUT).
    module = tmp_path / "spin.py"
    module.write_text("def init(logger, playerId, numWalls, playerHomes):\n    return None\n"
                      "def last_move(playerData, move):\n    return playerData\n"
                      "def move(playerData):\n    while True:\n        pass\n")
    out = tmp_path / "m"
    play(out, f"module:{module}", "builtin:random", extra=["--seed", "1", "--time-limit", time_limit])
    first = verified(out)[0]
    assert first["verdict"] == "TIMEOUT"
    proc = referee("rerun", out, "--step", "1", "--scratch", tmp_path / "rerun")
    assert "verdict: TIMEOUT" in proc.stdout, proc.stdout


def test_a_run_past_the_hard_wall_limit_is_a_timeout_whatever_signal_came_first():
    limits = Limits(soft_time=1, hard_time=2)
    spun = RunResult(signal=signal.SIGXCPU, wall_s=2.01, cpu_s=2.0)
    assert process_fault(spun, limits)[0] is Verdict.TIMEOUT
    threads = RunResult(signal=signal.SIGXCPU, wall_s=1.0, cpu_s=2.0)  # two threads burning
    assert process_fault(threads, limits)[0] is Verdict.CPU_LIMIT
    assert process_fault(RunResult(exit_code=0, wall_s=2.5), limits) is None  # finished: the clock judges
