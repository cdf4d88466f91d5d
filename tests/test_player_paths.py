"""How a player's command line names its files: relative to where the
referee was started, with ``..`` in it, through a venv's ``bin/python``
link.  Each must run the same in the sandbox as without it: the sandbox
shows only the folders the command names, so a ``..`` that walks through a
folder it does not show was "No such file or directory", and a venv's
python resolved to its base interpreter lost the venv's packages."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import BOARDS, read_log, referee
from test_rogues import MODES

BOT = """\
import sys
{imports}
board = [line.split() for line in open("Board.txt")]
cell = next((r, c) for r in range(len(board) - 1, -1, -1) for c, v in enumerate(board[r]) if v != "0")
open("decision.txt", "w").write(f"{{cell[0]}} {{cell[1]}}\\n")
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A venv (no pip: made in a moment) with a module only it has."""
    root = tmp_path_factory.mktemp("paths")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    purelib = sysconfig.get_path("purelib", vars={"base": str(root / "venv"), "platbase": str(root / "venv")})
    (Path(purelib) / "only_in_this_venv.py").write_text("MARK = 1\n")
    (root / "deep" / "er").mkdir(parents=True)
    bot = root / "bot"
    bot.mkdir()
    (bot / "plain.py").write_text(BOT.format(imports=""))
    (bot / "needs_venv.py").write_text(BOT.format(imports="import only_in_this_venv"))
    return root


def _play(root: Path, tmp_path: Path, spec: str, mode: str) -> list[dict]:
    out = tmp_path / "m"
    proc = referee("play", "cantris", "--player", spec, "--player", "builtin:random",
                   "--board", BOARDS / "cantris" / "6x3-1.txt", "--seed", "3", "--out", out,
                   "--quiet", "--sandbox", mode, cwd=root)
    assert proc.returncode == 0, proc.stderr
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert mine and {r["verdict"] for r in mine} <= {"OK", "LATE"}, mine[0].get("message")
    return mine


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_a_command_with_dot_dot_runs_in_both_modes(venv, tmp_path, mode, absolute):
    prefix = f"{venv}/" if absolute else ""
    _play(venv, tmp_path, f"{prefix}deep/er/../../venv/bin/python -S {prefix}deep/../bot/plain.py", mode)


@pytest.mark.parametrize("mode", MODES)
def test_a_venvs_python_keeps_the_venvs_packages(venv, tmp_path, mode):
    _play(venv, tmp_path, "venv/bin/python bot/needs_venv.py", mode)


# ----- the referee's own Python, started by a path through `..`


def test_own_python_resolves_the_folder_and_keeps_the_name(tmp_path):
    from referee.core.interpreter import own_python

    real = tmp_path / "real" / "bin"
    real.mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (real / "python").symlink_to(sys.executable)  # a venv's python: a link, found by its own name
    typed = str(tmp_path / "elsewhere" / ".." / "link" / "bin" / "python")
    (tmp_path / "elsewhere").mkdir()
    assert own_python(typed) == str(real / "python")


def test_a_referee_started_through_dotdot_plays_sandboxed_seats_and_series(tmp_path):
    # `../.venv/bin/python -m referee` (sys.executable with `..` in it): every
    # sandboxed seat failed to start (bwrap: execvp .../here/../...: the folder
    # typed through is not in the sandbox).  A real process: sys.executable is
    # what is tested.
    here = tmp_path / "here"
    here.mkdir()
    python = Path(*[".."] * len(here.parts[1:])) / Path(sys.executable).relative_to("/")
    assert ".." in python.parts and (here / python).exists()
    board = BOARDS / "cantris" / "6x3-1.txt"
    for out, more in (("one", ()), ("series", ("--games", "2", "--jobs", "1"))):
        done = subprocess.run([str(python), "-m", "referee", "play", "cantris", "--player", "builtin:greedy",
                               "--player", "builtin:random", "--board", str(board), "--seed", "1",
                               "--out", str(tmp_path / out), "--quiet", *more],
                              cwd=here, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stdout + done.stderr
    records = read_log(tmp_path / "one")
    assert records and {r["verdict"] for r in records} == {"OK"}, [r.get("message") for r in records]
    games = sorted((tmp_path / "series").glob("**/log.jsonl"))
    assert len(games) == 2
    for log in games:
        assert {r["verdict"] for r in read_log(log.parent)} == {"OK"}, log


# ----- the match folder named through a link or `..`


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("how", ["link", "dotdot"])
@pytest.mark.parametrize("games", [1, 4])
def test_a_match_or_series_folder_through_a_link_or_dotdot_plays_in_both_modes(tmp_path, mode, how, games):
    # --out through a symbolic link (a home folder that is a link) or a `..`
    # after a folder: the sandbox shows a seat folder at its real path, and
    # the seat host was told the typed one, so every step was CRASH "cannot
    # enter the seat folder" and the match a silent double forfeit.  In a
    # series the seats are warm seats' slots in the series folder: the same.
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "other").mkdir()
    out = tmp_path / ("link/m" if how == "link" else "other/../m")
    series = ("--games", str(games), "--jobs", "1") if games > 1 else ()
    proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                   "--board", BOARDS / "cantris" / "6x3-1.txt", "--seed", "3", *series, "--out", out,
                   "--quiet", "--sandbox", mode)
    assert proc.returncode == 0, proc.stderr
    folders = [log.parent for log in out.glob("games/*/log.jsonl")] if series else [out]
    assert len(folders) == games
    for folder in folders:
        records = read_log(folder)
        assert records and {r["verdict"] for r in records} == {"OK"}, [r.get("message") for r in records]


SHADOWED = """\
import sys
sys.path.insert(0, {sdk!r})
from referee_sdk import player_rng, read_board, read_state, run, save_decision


def play_games(step, player):
    board = read_board()
    assert read_state()["you"] == player
    if player_rng().random() >= 0:
        import json  # the program's own import finds the file beside it, as Python has it
        assert json.MINE
    save_decision(*player_rng().choice([(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v]))


run(play_games)
"""


@pytest.mark.parametrize("persistent", [False, True], ids=["spawned", "persistent"])
def test_a_program_named_like_a_standard_module_plays(tmp_path, persistent):
    # Python puts the program's folder first on sys.path: a player called
    # random.py (as this project's own examples are: `python3
    # players/cantris/random.py` crashed on an interpreter that had not
    # imported random at its start, as Debian's and a venv's) imported itself
    # for the SDK's `import random`, and crashed with "module 'random' has no
    # attribute 'Random'".  Files beside it named json.py, inspect.py and
    # dataclasses.py (which the SDK's game modules import) are not the SDK's.
    from conftest import PYTHON_SDK

    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "random.py").write_text(SHADOWED.format(sdk=str(PYTHON_SDK)))
    for name in ("inspect", "dataclasses"):
        (folder / f"{name}.py").write_text(f"raise RuntimeError('the {name}.py beside the program')\n")
    (folder / "json.py").write_text("MINE = True\nloads = dumps = None\n")
    spec = ("persistent:" if persistent else "") + f"{sys.executable} {folder / 'random.py'}"
    out = tmp_path / "m"
    proc = referee("play", "cantris", "--player", spec, "--player", "builtin:random",
                   "--board", BOARDS / "cantris" / "6x3-1.txt", "--seed", "3", "--out", out,
                   "--quiet", "--sandbox", "none", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert mine and {r["verdict"] for r in mine} == {"OK"}, mine[0].get("stderr") or mine[0].get("message")
    # A game's own module (read_board's parser) imports the standard library too.
    probe = (f"import sys; sys.path.insert(0, {str(PYTHON_SDK)!r}); import referee_sdk; "
             "print(referee_sdk._game_module().__name__)")
    (folder / "probe.py").write_text(probe)
    done = subprocess.run([sys.executable, str(folder / "probe.py")], capture_output=True, text=True,
                          env={**os.environ, "REFEREE_GAME": "quoridor"}, timeout=60)
    assert done.stdout.strip() == "referee_sdk.quoridor", done.stderr
