"""``referee new-game``: the package it writes plays a legal game at once,
passes the conformance kit and its own tests; bad names are refused."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import referee
from fake_dists import dist_from_pyproject

ROOT = Path(__file__).resolve().parents[1]


def test_a_new_game_plays_verifies_and_passes_its_tests(tmp_path):
    made = referee("new-game", "pebbles", "--players", "3", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "python -m pip install -e pebbles" in made.stdout
    project = tmp_path / "pebbles"
    assert {p.name for p in (project / "pebbles" / "players").iterdir()} >= {
        "random.py", "greedy.py", "template.py"}
    paths = dist_from_pyproject(tmp_path / "site", project)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, paths))}

    def run(*args, cwd=tmp_path):
        return subprocess.run([sys.executable, "-m", *map(str, args)], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=600)

    # In the sandbox (where available): it shows the built-in players their
    # game's package, which lives outside the referee's environment.
    play = run("referee", "play", "pebbles", "--player", "builtin:random", "--player",
               "builtin:greedy", "--player", "builtin:greedy", "--seed", 1, "--out", "m",
               "--quiet")
    assert play.returncode == 0, play.stderr
    result = yaml.safe_load((tmp_path / "m" / "result.yaml").read_text())
    assert result["steps"] == 12  # every number of the default board taken
    assert all(counts["OK"] == 4 for counts in result["verdicts"].values())
    assert sum(result["scores"].values()) == 3 + 1 + 4 + 1 + 5 + 9 + 2 + 6 + 5 + 3 + 5 + 8
    assert "verified 12 steps" in run("referee", "replay", "m", "--verify").stdout
    tests = run("pytest", "-q", "-p", "no:cacheprovider", "tests", cwd=project)
    assert tests.returncode == 0, tests.stdout[-3000:]
    assert "12 passed" in tests.stdout  # nine kit checks and three rules tests


@pytest.mark.parametrize("name, words", [
    ("Pebbles", "use lowercase letters"),
    ("2048", "use lowercase letters"),
    ("class", "use lowercase letters"),
    ("random", "a Python module it would shadow"),
    ("cantris", "already installed (package referee"),
])
def test_bad_names_are_refused_in_one_line(tmp_path, name, words):
    proc = referee("new-game", name, cwd=tmp_path)
    assert proc.returncode == 2
    assert words in proc.stderr and proc.stderr.count("\n") == 1
    assert not any(tmp_path.iterdir())


def test_a_folder_in_use_is_refused(tmp_path):
    (tmp_path / "pebbles").mkdir()
    (tmp_path / "pebbles" / "notes.txt").write_text("mine")
    proc = referee("new-game", "pebbles", cwd=tmp_path)
    assert proc.returncode == 2 and "exists and is not empty" in proc.stderr
    assert [p.name for p in (tmp_path / "pebbles").iterdir()] == ["notes.txt"]
