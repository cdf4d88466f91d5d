"""The autograder packages, end to end, as the platforms run them.

`referee autograder gradescope|prairielearn` builds the upload; the test lays
out the platform's documented folders in a scratch root (Gradescope:
/autograder/{source,submission,results}; PrairieLearn: /grade/{serverFilesCourse,
student,results}), runs the package's own scripts there as the platform does
(as root, sandbox "auto" as configured), and checks the results file against
the platform's schema for six submissions: a good bot, one that crashes at
step 3, one that plays an illegal move, one that never answers, one with a
syntax error and a hostile one that forges the results file.

One wheel for the module.  Installing it must not download anything, so the
venv the scripts install into is made beforehand with the test venv's
dependencies visible (a .pth file), the referee itself left out: the scripts'
own pip install puts the wheel's referee there."""
from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from conftest import BOARDS, referee
from referee.grading.autograder import build_wheel
from referee.grading.formats import schema_path

SEEDS = Path(__file__).parent / "seed_players" / "grading"
BOTS = ("good", "crash_at_3", "illegal", "slow", "syntax_error", "hostile")

CONFIG = """\
game: cantris
boards: [boards/6x3-1.txt]
games_per_board: 1
limits: {time_limit: 2, hard_time: 3}
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


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> dict:
    """The TA's folder, the wheel, and a venv that sees the dependencies."""
    base = tmp_path_factory.mktemp("course")
    folder = base / "course"
    (folder / "boards").mkdir(parents=True)
    (folder / "staff").mkdir()
    shutil.copyfile(BOARDS / "cantris" / "6x3-1.txt", folder / "boards" / "6x3-1.txt")
    (folder / "staff" / "first_tile.py").write_text(STAFF_BOT)
    (folder / "hand-ins").mkdir()  # a class's folder beside the config is not shipped
    (folder / "hand-ins" / "secret.txt").write_text("a student's work")
    (folder / "grading.yaml").write_text(CONFIG)
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


def test_gradescope_package_runs_as_gradescope_runs_it(course, tmp_path):
    package = tmp_path / "autograder.zip"
    proc = referee("autograder", "gradescope", course["config"], "-o", package, "--wheel", course["wheel"])
    assert proc.returncode == 0, proc.stderr
    names = zipfile.ZipFile(package).namelist()
    assert {"setup.sh", "run_autograder", "course/grading.yaml", "course/boards/6x3-1.txt",
            "course/staff/first_tile.py"} <= set(names)
    assert not any("hand-ins" in n for n in names) and any(n.startswith("wheels/referee-") for n in names)

    root = tmp_path / "autograder"  # Gradescope's /autograder
    for sub in ("source", "submission", "results"):
        (root / sub).mkdir(parents=True)
    with zipfile.ZipFile(package) as archive:
        for info in archive.infolist():  # unzip keeping the modes, as Gradescope does
            archive.extract(info, root / "source")
            os.chmod(root / "source" / info.filename, info.external_attr >> 16)
    dependencies_only_venv(root / "referee-venv")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(AUTOGRADER_ROOT=str(root), REFEREE_SKIP_APT="1", PIP_NO_INDEX="1")
    setup = subprocess.run(["bash", "./setup.sh"], cwd=root / "source", env=env, capture_output=True,
                           text=True, timeout=300)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert (root / "referee-venv" / "bin" / "referee").exists()
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")

    scores, outputs = {}, {}
    for name in BOTS:
        shutil.rmtree(root / "results")
        (root / "results").mkdir()
        hand_in(course, name, root / "submission")
        run = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, f"{name}: {run.stdout}{run.stderr}"
        data = json.loads((root / "results" / "results.json").read_text())
        jsonschema.validate(data, schema("gradescope"))
        assert [t["name"] for t in data["tests"]] == ["Compliance (referee check-bot)", "staff bot"]
        assert data["tests"][1]["visibility"] == "after_due_date"
        scores[name] = data["score"]
        outputs[name] = json.dumps(data, indent=1)
    check_points(scores, outputs)
    assert "forged" not in outputs["hostile"]


def test_prairielearn_package_runs_as_prairielearn_runs_it(course, tmp_path):
    out = tmp_path / "pl"
    proc = referee("autograder", "prairielearn", course["config"], "-o", out, "--wheel", course["wheel"])
    assert proc.returncode == 0, proc.stderr
    snippet = json.loads((out / "info.json.snippet").read_text())
    options = snippet["externalGradingOptions"]
    assert snippet["gradingMethod"] == "External" and options["serverFilesCourse"] == ["referee_grader/"]
    grader = out / "serverFilesCourse" / "referee_grader"
    assert options["entrypoint"] == "/grade/serverFilesCourse/referee_grader/run.sh"
    assert (grader / "course" / "staff" / "first_tile.py").exists()

    root = tmp_path / "grade"  # PrairieLearn's /grade
    shutil.copytree(out / "serverFilesCourse", root / "serverFilesCourse", symlinks=True)
    venv = tmp_path / "referee-venv"
    dependencies_only_venv(venv)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(GRADE_ROOT=str(root), REFEREE_VENV=str(venv))

    scores, outputs = {}, {}
    for name in BOTS:
        shutil.rmtree(root / "results", ignore_errors=True)
        hand_in(course, name, root / "student")
        run = subprocess.run([str(grader / "run.sh")], cwd=root, env=env, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, f"{name}: {run.stdout}{run.stderr}"
        path = root / "results" / "results.json"
        assert path.stat().st_size < 1_000_000
        data = json.loads(path.read_text())
        jsonschema.validate(data, schema("prairielearn"))
        assert data["gradable"] is True, data
        scores[name] = round(40 * data["score"], 2)
        outputs[name] = json.dumps(data, indent=1)
    check_points(scores, outputs)
    assert "forged" not in outputs["hostile"]

    shutil.rmtree(root / "results")
    shutil.rmtree(root / "student")
    (root / "student").mkdir()  # nothing handed in: not gradable, not an attempt
    run = subprocess.run([str(grader / "run.sh")], cwd=root, env=env, capture_output=True, text=True,
                         timeout=300)
    data = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(data, schema("prairielearn"))
    assert run.returncode == 0 and data["gradable"] is False
