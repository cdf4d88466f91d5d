"""``referee new-game``: the package it writes plays a legal game at once,
passes the conformance kit and its own tests; bad names are refused."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
import yaml

from conftest import referee
from fake_dists import dist_from_pyproject

ROOT = Path(__file__).resolve().parents[1]


def test_a_new_game_plays_verifies_and_passes_its_tests(tmp_path):
    made = referee("new-game", "pebbles", "--players", "3", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "python -m pip install -e" in made.stdout
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


def test_the_printed_install_and_test_lines_work_as_typed_where_new_game_ran(tmp_path):
    """The lines new-game prints, typed in the folder where it ran, against a
    real editable install (whose import hook looks after sys.path): without
    the `test` extra there was no pytest, and `python -m pytest pebbles/tests`
    put this folder on sys.path, where the project folder pebbles/ passed for
    the package and `from pebbles import GAME` failed."""
    made = referee("new-game", "pebbles", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    typed = [shlex.split(line) for line in made.stdout.splitlines() if line.startswith("    ")]
    install = next(words for words in typed if words[:4] == ["python", "-m", "pip", "install"])
    test = next(words for words in typed if "pytest" in words)
    assert install[4:] == ["-e", "pebbles[test]"] and test[0] == "python"
    extras = tomllib.loads((tmp_path / "pebbles" / "pyproject.toml").read_text())["project"]
    assert any(dep.startswith("pytest") for dep in extras["optional-dependencies"]["test"])
    # A venv that sees this one's packages (the referee, pytest, setuptools)
    # through a .pth, so pip finds the requirements installed and needs no index.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "test-venv.pth").write_text(
        f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    pip = subprocess.run([sys.executable, "-m", "pip", "-q", "--python", python, *install[3:],
                          "--no-index", "--no-build-isolation"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr[-3000:]
    tests = subprocess.run([python, *test[1:], "-p", "no:cacheprovider"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=600)
    assert tests.returncode == 0, tests.stdout[-3000:]
    assert "12 passed" in tests.stdout


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
