"""The PrairieLearn autograder package, end to end, as PrairieLearn runs it
(the Gradescope one: test_autograder_gradescope.py).

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
import subprocess

import jsonschema
import pytest

from conftest import referee
from grading_kit import BOTS, check_points, dependencies_only_venv, hand_in, make_course, schema

pytestmark = pytest.mark.slow  # six grades; `make check` leaves them out


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> dict:
    """The TA's folder, the wheel, and new-player's folder for the hand-ins."""
    return make_course(tmp_path_factory.mktemp("course"))


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
