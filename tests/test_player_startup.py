"""What a player's start-up imports.  A built-in is started once per match
(per game of a series or tournament), and a student's SDK player once per
step: every module either pulls in is paid that often.  The rules a player
needs are cheap to load; the referee's command line, the course graders and
the machinery for module players are not, and must stay out of a player's
start-up (Quoridor's Part 1 grader once brought click, subprocess, uuid and
platform into every built-in Quoridor player: 121 modules instead of 72)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core import registry
from referee.core.players import builtin_names, game_package_option

ROOT = Path(__file__).resolve().parents[1]
SDK = ROOT / "players" / "sdk" / "python"
NEVER_IN_A_PLAYER = {"click", "yaml", "numpy", "jinja2", "subprocess", "importlib.util", "uuid", "platform",
                     "threading", "socket", "asyncio", "tempfile", "shutil", "referee.cli", "referee.core.match"}
NEVER_IN_A_BUILT_IN = NEVER_IN_A_PLAYER | {"pathlib"}
"""pathlib (with fnmatch, urllib.parse, ipaddress, ntpath) was ~10 ms of each
built-in's ~80-100 ms start, ~1,100 built-in starts in one `make test`."""


def imported(argv: list[str]) -> set[str]:
    """The modules a Python command imports (``-X importtime`` names each)."""
    run = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    names = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", run.stderr, re.M))
    assert names, run.stderr
    return names


@pytest.mark.parametrize("game", ["cantris", "tessella", "quoridor", "blackhole", "tsuro"])
def test_a_built_in_player_starts_without_the_referees_machinery(game):
    loaded = registry.get_game(game)
    # What Python's own start-up imports is not the player's doing (site
    # with setuptools' editable-install finder brings pathlib, for one).
    python_alone = imported(["-P", "-B", "-c", "pass"])
    for name in builtin_names(loaded):
        script = loaded.files("players") / f"{name}.py"
        # As the referee starts it (players.make_agent), run by hand: it
        # imports everything, says how it is meant to be run and exits.
        modules = imported(["-P", "-B", *game_package_option(loaded), str(script)]) - python_alone
        assert "referee_sdk" in modules, sorted(modules)  # it got as far as its imports
        assert not modules & NEVER_IN_A_BUILT_IN, f"{game}/{name}: {sorted(modules & NEVER_IN_A_BUILT_IN)}"


def test_the_student_sdk_imports_only_what_a_step_needs():
    modules = imported(["-c", f"import sys; sys.path.insert(0, {str(SDK)!r}); import referee_sdk"])
    assert "referee_sdk" in modules
    # json brings re (with enum and the regex compiler): ~15 ms of the ~35 ms
    # start of a player that never reads state.json; read_state imports it.
    assert not modules & ({"typing", "inspect", "random", "dataclasses", "json", "re"} | NEVER_IN_A_PLAYER), \
        modules


def test_the_quoridor_part1_grader_is_still_mounted_under_referee_check():
    import referee.games.quoridor as quoridor

    assert [c.name for c in quoridor.CHECKS] == ["quoridor-part1"]
    with pytest.raises(AttributeError):
        quoridor.NOT_A_NAME  # noqa: B018
