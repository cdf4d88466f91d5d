"""A game from another package (examples/connect4, found through a
distribution's entry points, without pip) goes through everything a built-in
game does: play (a human too), validate, replay (terminal and --html through
its own scene), --verify, rerun, new-player, a series and a tournament."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import launcher
from fake_dists import dist_from_pyproject

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "connect4"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Run ``referee`` with connect4 installed (as far as metadata can tell)."""
    paths = dist_from_pyproject(tmp_path_factory.mktemp("site"), EXAMPLE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, paths))}
    work = tmp_path_factory.mktemp("work")

    def referee(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
        return launcher.run(args, cwd=work, env=env, timeout=300, input=input)

    referee.work = work
    return referee


def ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


def test_a_plugin_match_plays_replays_verifies_and_reruns(run):
    out = ok(run("play", "connect4", "--player", "builtin:greedy", "--player", "builtin:random",
                 "--seed", 1, "--out", "m1", "--quiet"))
    assert "player 1 (builtin:greedy) wins" in out
    match = run.work / "m1"
    result = yaml.safe_load((match / "result.yaml").read_text())
    assert result["winner"] == 1
    assert "verified" in ok(run("replay", "m1", "--verify"))
    shown = ok(run("replay", "m1", "--step", "1", "--no-color"))
    assert "0 1 2 3 4 5 6" in shown and "drop" in shown
    ok(run("replay", "m1", "--html", "m1.html"))
    page = (run.work / "m1.html").read_text()
    assert "Connect Four board" in page  # the plugin's draw.js, inlined
    assert '"drawing":"svg"' in page and '"last":[' in page  # frames from its scene.py
    again = ok(run("rerun", "m1", "--step", "3"))
    assert "verdict: OK" in again
    # without --scratch the rebuilt folder is a new temporary one, kept for the
    # student to look into (and removed here: a suite run leaves nothing in /tmp)
    seat = Path(again.split(", rebuilt in ", 1)[1].splitlines()[0])
    assert (seat / "decision.txt").is_file() and seat.parts[-2:] == ("players", "p1")
    shutil.rmtree(seat.parents[1])


def test_plugin_boards_validate_by_name_and_bad_ones_say_where(run, tmp_path):
    assert ok(run("validate", "connect4", "opening")).strip().endswith("opening.txt: ok")
    bad = tmp_path / "floating.txt"
    bad.write_text(". . . .\n. 1 . .\n. . . .\n. . 2 .\n", encoding="utf-8")
    proc = run("validate", "connect4", bad)
    assert proc.returncode == 2
    assert f"{bad}:2:3: the piece in row 1, column 1 floats over an empty cell" in proc.stderr


def test_a_human_plays_a_plugin_game(run):
    proc = run("play", "connect4", "--player", "human", "--player", "builtin:random", "--seed", 4,
               "--out", "h1", "--no-color", input="9\nx\n0\nresign\n")
    assert proc.returncode == 0, proc.stderr
    assert "column 9 is not on the board" in proc.stdout
    assert "expected a column number" in proc.stdout
    assert "player 1 resigned" in proc.stdout


def test_new_player_series_and_tournament_for_a_plugin_game(run):
    lines = ok(run("new-player", "connect4", "mine"))
    assert "rules.md" in (run.work / "mine" / "README.md").read_text()
    assert "wrote" in lines
    out = ok(run("play", "connect4", "--player", "python3 mine/player.py", "--player",
                 "builtin:random", "--seed", 2, "--games", 2, "--out", "s1", "--jobs", 1))
    assert "series folder: s1" in out
    (run.work / "t.yaml").write_text(yaml.safe_dump({
        "game": "connect4", "format": "round_robin", "seed": 5, "out": "t-results",
        "boards": [str(EXAMPLE / "connect4" / "boards" / "small.txt")],
        "entrants": [{"name": "greedy", "command": "builtin:greedy"},
                     {"name": "mine", "command": "python3 mine/player.py"}]}))
    ok(run("tournament", "t.yaml"))
    standings = (run.work / "t-results" / "standings.csv").read_text()
    assert "greedy" in standings and "mine" in standings


def test_the_example_passes_its_own_tests_and_the_kit(run, tmp_path):
    paths = dist_from_pyproject(tmp_path / "site", EXAMPLE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, paths))}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(EXAMPLE / "tests")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "18 passed" in proc.stdout  # nine kit checks and the rules' nine cases


def test_a_plugin_game_is_graded(run):
    if not (run.work / "mine").is_dir():
        ok(run("new-player", "connect4", "mine"))
    assert "ready to submit" in ok(run("check-bot", "connect4", "--player", "python3 mine/player.py"))
    (run.work / "grading.yaml").write_text(yaml.safe_dump({
        "game": "connect4", "boards": ["default"], "games_per_board": 1,
        "compliance": {"points": 10},
        "opponents": [{"player": "builtin:random", "points": 30, "full_at": 0.9, "zero_at": 0.5}]}))
    out = ok(run("grade", "grading.yaml", "--submission", "mine"))
    assert '"results_folder"' in out


def test_a_plugin_strong_player_searches_with_the_referees_alpha_beta(run):
    out = ok(run("play", "connect4", "--player", "builtin:strong?nodes=3000", "--player",
                 "builtin:greedy", "--seed", 3, "--out", "strong", "--quiet"))
    assert "player 1 (builtin:strong?nodes=3000) wins" in out
