"""Shared by the grading tests (test_grading*.py, test_autograder_*.py):
the seed submissions, a small grading config, handing in as new-player
makes a folder, schema validation, and the autograder's course folder."""
from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import BOARDS, referee
from referee.grading.autograder import build_wheel
from referee.grading.formats import schema_path

SEEDS = Path(__file__).parent / "seed_players" / "grading"
BOARD = BOARDS / "cantris" / "6x3-1.txt"

CONFIG = f"""\
game: cantris
boards: [{BOARD}]
games_per_board: 1
limits: {{time_limit: 2, hard_time: 3}}
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


def python3_first() -> str:
    """PATH with the test venv's Python as ``python3``: submissions run
    ``python3 player.py`` (their manifest), as run_autograder makes it the
    package's."""
    return f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"


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


BOTS = ("good", "crash_at_3", "illegal", "slow", "syntax_error", "hostile")

AUTOGRADER_CONFIG = """\
game: cantris
boards: [boards/6x3-1.txt]
games_per_board: 1
limits: {time_limit: 2, hard_time: 3, cpu_time: 1}   # the slow bot burns 1 s of CPU, not 3
compliance: {points: 10}
opponents:
  - player: python3 staff/first_tile.py
    name: staff bot
    points: 30
    full_at: 0.5
    zero_at: 0.0
    visibility: after_due_date
"""

STAFF_BOT = """\
# A staff player without the SDK: the first tile from the bottom row up.
rows = [line.split() for line in open("Board.txt") if line.strip()]
for r in range(len(rows) - 1, -1, -1):
    for c, value in enumerate(rows[r]):
        if value != "0":
            open("decision.txt", "w").write(f"{r} {c}\\n")
            raise SystemExit
"""


def make_course(base: Path) -> dict:
    """The TA's folder in ``base``, the wheel, and new-player's folder for
    the hand-ins."""
    folder = base / "course"
    (folder / "boards").mkdir(parents=True)
    (folder / "staff").mkdir()
    shutil.copyfile(BOARDS / "cantris" / "6x3-1.txt", folder / "boards" / "6x3-1.txt")
    (folder / "staff" / "first_tile.py").write_text(STAFF_BOT)
    (folder / "hand-ins").mkdir()  # a class's folder beside the config is not shipped
    (folder / "hand-ins" / "secret.txt").write_text("a student's work")
    (folder / "grading.yaml").write_text(AUTOGRADER_CONFIG)
    wheel = build_wheel(base / "dist")
    template = base / "template"  # new-player's folder, for every hand-in
    assert referee("new-player", "cantris", template).returncode == 0
    (template / "README.md").unlink()
    return {"base": base, "config": folder / "grading.yaml", "wheel": wheel, "template": template}


def dependencies_only_venv(venv: Path) -> None:
    """A venv whose .pth shows the test venv's packages except the referee."""
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    deps = venv.parent / "deps"
    deps.mkdir()
    for entry in Path(site.getsitepackages()[0]).iterdir():
        if not entry.name.lower().startswith(("referee", "__editable__", "_referee")):
            (deps / entry.name).symlink_to(entry)
    target = next(venv.glob("lib/python3*/site-packages"))
    (target / "test-deps.pth").write_text(f"{deps}\n")


def hand_in(course: dict, name: str, folder: Path) -> None:
    """Put a submission where the platform puts it: new-player's files,
    the seed's player.py over the template."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(course["template"], folder)
    shutil.copyfile(SEEDS / name / "player.py", folder / "player.py")


def schema(fmt: str) -> dict:
    return json.loads(schema_path(fmt).read_text())


def check_points(scores: dict[str, float], outputs: dict[str, str]) -> None:
    """The order the config gives: compliance first (10, a third per
    check), then the games; a program that never answers plays none."""
    assert scores["good"] >= 10, outputs["good"]
    assert scores["crash_at_3"] == pytest.approx(10 / 3, abs=0.01), outputs["crash_at_3"]
    assert scores["illegal"] == pytest.approx(10 / 3, abs=0.01), outputs["illegal"]
    assert scores["slow"] == scores["syntax_error"] == 0, outputs["slow"]
    assert scores["good"] > scores["crash_at_3"] > scores["slow"]
    assert 0 < scores["hostile"] <= 40, outputs["hostile"]
