"""The Gradescope autograder package, end to end, as Gradescope runs it
(the PrairieLearn one: test_autograder_prairielearn.py).

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
import zipfile

import jsonschema
import pytest

from conftest import referee
from grading_kit import BOTS, check_points, dependencies_only_venv, hand_in, make_course, schema

pytestmark = pytest.mark.slow  # six grades; `make check` leaves them out


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> dict:
    """The TA's folder, the wheel, and new-player's folder for the hand-ins."""
    return make_course(tmp_path_factory.mktemp("course"))


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
