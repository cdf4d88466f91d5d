"""The referee as a teacher: what a student reads after a fault, after a
typo, and when running a template by hand says what went wrong, where, and
what to do next.  End-to-end through the real `referee` command."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import yaml

from conftest import ROOT, cantris_cpp_bot, needs_gpp, new_player, read_log, referee
from referee.cli import PLAY_KEYS
from referee.games.quoridor.part1_check import check
from referee.games.tsuro.decisions import Place, Start
from referee.games.tsuro.render import render
from referee.games.tsuro.rules import TsuroState
from referee.replay import jump
from referee.tournament.journal import GameRecord
from referee.tournament.report import result_text

USAGE = "STEP PLAYER_ID (the referee passes these; see README)"


def play(tmp_path: Path, game: str, *players: str, extra=()) -> subprocess.CompletedProcess:
    return referee("play", game, *[a for p in players for a in ("--player", p)], "--seed", 1,
                   "--out", tmp_path / "m", "--no-color", *extra, cwd=tmp_path)


def test_a_crash_shows_the_traceback_tail_and_the_full_stderr_path(tmp_path, make_player):
    crasher = make_player("crasher", """
        def decide():
            return [][1]
        decide()
    """)
    proc = play(tmp_path, "cantris", crasher, "builtin:random")
    assert proc.returncode == 0, proc.stderr
    assert re.search(r'\| +File ".*crasher\.py", line 3, in decide', proc.stdout)
    assert "| IndexError: list index out of range" in proc.stdout
    path = tmp_path / "m" / "players" / "p1" / "stderr.txt"
    assert f"full output: {path}" in proc.stdout and "IndexError" in path.read_text()


def test_show_output_prints_each_steps_output_once(tmp_path, make_player):
    talker = make_player("talker", """
        import sys
        print("thinking about step", sys.argv[-2])
        print("a warning", file=sys.stderr)
        open("decision.txt", "w").write("1 0\\n" if sys.argv[-2] == "1" else "nonsense\\n")
    """)
    proc = play(tmp_path, "cantris", talker, "builtin:random", extra=("--show-output",))
    assert proc.returncode == 0, proc.stderr
    assert "  | thinking about step 1" in proc.stdout and "  | thinking about step 3" in proc.stdout
    assert proc.stdout.count("  | a warning") == 2  # steps 1 and 3, not again from the file's start
    assert "[player 2 stdout]" not in proc.stdout  # the built-in prints nothing


def test_random_policy_shows_the_players_own_move_and_the_substitute_below(tmp_path, make_player):
    wrong = make_player("wrong", "open('decision.txt', 'w').write('hello\\n')\n")
    proc = play(tmp_path, "cantris", wrong, "builtin:random", extra=("--policy", "random"))
    assert proc.returncode == 0, proc.stderr
    record = read_log(tmp_path / "m")[0]
    lines = proc.stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("step   1 "))
    assert "  hello  MALFORMED" in lines[at]
    assert lines[at + 2] == f"    -> played instead (random policy): {record['applied']}"


def test_malformed_says_the_expected_format_once(tmp_path, make_player):
    wrong = make_player("wrong", "open('decision.txt', 'w').write('hello\\n')\n")
    proc = play(tmp_path, "cantris", wrong, "builtin:random")
    message = read_log(tmp_path / "m")[0]["message"]
    assert message.count("expected") == 1 and "'hello'" in message
    proc = play(tmp_path, "tsuro", wrong, "builtin:random", extra=("--replace",))
    assert proc.returncode == 0, proc.stderr
    message = read_log(tmp_path / "m")[0]["message"]
    assert message.startswith("step 1, player 1: MALFORMED: 'hello': unknown decision")
    assert message.count("setup step: 'S p'") == 1, message


def test_the_result_line_says_1_step(tmp_path, make_player):
    crasher = make_player("crasher", "raise SystemExit(3)\n")
    proc = play(tmp_path, "cantris", crasher, "builtin:random", extra=("--quiet",))
    assert "forfeited (CRASH) after 1 step\n" in proc.stdout


def test_tsuros_first_placement_speaks_of_the_start_position():
    state = TsuroState.initial("seed", 2, 1)
    assert "0-11 along the top (left to right)" in render(state, 1)  # the setup step says where
    state, _ = state.apply(1, Start(0))
    state, _ = state.apply(2, Start(30))
    assert "start positions" not in render(state, 1)
    reason = state.illegal_reason(Place(0, 0, 4, 4))
    assert "start position 0" in reason and "(0, 0), (0, 1)" in reason and "-1" not in reason


def test_replay_jump_out_of_range_says_so(tmp_path):
    assert jump("j 99", 3, 10) == (3, "step 99 is out of range: this match has steps 0..10")
    assert jump("j 4", 3, 10) == (4, None) and jump("7", 3, 10) == (7, None)
    assert jump("x", 3, 10)[1].startswith("unknown command 'x'")
    assert referee("play", "cantris", "--player", "builtin:random", "--player", "builtin:random",
                   "--seed", 1, "--out", tmp_path / "m", "--quiet").returncode == 0
    proc = referee("replay", tmp_path / "m", "--step", 99)
    assert proc.returncode == 2 and "step 99 is out of range" in proc.stderr


def test_an_unknown_game_is_named_before_anything_else():
    for args in (("play", "chess"), ("play", "chess", "--player", "x")):
        proc = referee(*args)
        assert proc.returncode == 2
        assert proc.stderr.startswith("referee: error: unknown game 'chess'; choose one of: ")


def record(winner, scores, reason, seats=(0, 1)) -> GameRecord:
    return GameRecord(key="g1", table="t1", seats=seats, board=0, seed=1, extra=False,
                      winner=winner, ranking=((winner,), (3 - winner,)) if winner else ((1, 2),),
                      scores=scores, reason=reason, verdicts={}, steps=9, folder="games/g1")


def test_tournament_results_put_the_winners_score_first_and_name_a_forfeit():
    names = ["alice", "bob"]
    assert result_text(record(2, {1: 3, 2: 12}, "all tiles gone"), names) == "bob wins 12:3"
    assert result_text(record(1, {1: 12, 2: 3}, "all tiles gone"), names) == "alice wins 12:3"
    assert result_text(record(None, {1: 5, 2: 5}, "draw"), names) == "draw 5:5"
    assert result_text(record(2, None, "player 1 forfeited (CRASH)"), names) == \
        "bob wins: alice forfeited (CRASH)"
    assert result_text(record(1, {1: 0, 2: 4}, "player 2 resigned", seats=(1, 0)), names) == \
        "bob wins 0:4: alice resigned"


def test_the_config_may_give_the_game_and_every_key_is_documented(tmp_path):
    from referee.cli import play

    docs = (ROOT / "docs" / "config.md").read_text()
    for key in PLAY_KEYS:
        assert f"| `{key}` |" in docs, key
    # every option of play has a key (but --config itself, and --resume, a one-off)
    options = {p.name for p in play.params if isinstance(p, click.Option)} - {"config", "resume"}
    renamed = {"players": "players", "assignments": "set", "board_sets": "boards"}
    assert {renamed.get(o, o) for o in options} <= set(PLAY_KEYS), options - set(PLAY_KEYS)
    (tmp_path / "match.yaml").write_text(
        "game: quoridor\nplayers: [builtin:random, builtin:greedy]\nseed: 4\n"
        "set: [ply_cap=30]\ntime-limit: 5\nout: m\nquiet: true\n")
    proc = referee("play", "--config", "match.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    match = yaml.safe_load((tmp_path / "m" / "match.yaml").read_text())
    assert match["game"] == "quoridor" and match["settings"]["ply_cap"] == 30
    assert match["limits"]["soft_time"] == 5
    (tmp_path / "bad.yaml").write_text("game: quoridor\nplyers: [a]\n")
    proc = referee("play", "--config", "bad.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "bad.yaml:2: unknown key 'plyers'; known keys: " in proc.stderr
    assert "players" in proc.stderr and "show_output" in proc.stderr
    proc = referee("play", "--player", "x", cwd=tmp_path)
    assert proc.returncode == 2 and "no game" in proc.stderr


def test_a_python_template_run_by_hand_prints_its_usage(tmp_path):
    new_player("tsuro", tmp_path / "bot")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    proc = subprocess.run([sys.executable, "player.py"], cwd=tmp_path / "bot", env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr == f"usage: player.py {USAGE}\n"


@needs_gpp
def test_a_cpp_template_run_by_hand_prints_its_usage(tmp_path_factory):
    bot = cantris_cpp_bot(tmp_path_factory)  # new-player's C++ template, built as its README says
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    proc = subprocess.run([bot / "player"], cwd=bot, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr == f"usage: player {USAGE}\n"


def write_module(folder: Path, body: str, helper: str = "def neighbours(r, c):\n    return []\n") -> Path:
    folder.mkdir()
    (folder / "helper.py").write_text(helper)
    (folder / "student.py").write_text(body)
    return folder / "student.py"


PART1 = """from .helper import neighbours
def init(logger, playerId, numWalls, playerHomes):
    return {}
def last_move(data, move):
    return data
def get_neighbors(data, r, c):
    return neighbours(r, c)
def get_shortest_path(data, r1, c1, r2, c2):
    return []
"""


def test_part1_grader_names_the_students_file_and_line(tmp_path):
    # A relative import of a helper beside the module works; its failure is
    # reported in the helper's own file and line.
    path = write_module(tmp_path / "a", PART1, "def neighbours(r, c):\n    return {}[r]\n")
    text, code = check(str(path))
    assert code == 1 and "problem: helper.py, line 2: KeyError: " in text
    path = write_module(tmp_path / "b", "import os\nfrom .missing import thing\n")
    text, code = check(str(path))
    assert code == 1
    assert "student.py, line 2: ModuleNotFoundError: No module named 'missing' (importing student.py)" in text
    path = write_module(tmp_path / "c", "def f(:\n    pass\n")
    text, _ = check(str(path))
    assert "student.py, line 1: SyntaxError: " in text


def test_make_run_ends_with_the_next_commands_to_try():
    make = shutil.which("make")
    run_target = (ROOT / "Makefile").read_text().split("\nrun:")[1].split("\n\n")[0]
    for command in ("activate", "referee replay step_logs/demo", "referee new-player"):
        assert command in run_target
    assert make is None or "Next, try:" in subprocess.run(
        [make, "-n", "-s", "run"], cwd=ROOT, capture_output=True, text=True).stdout
