"""A grade as each autograding platform reads it.

Each format follows its platform's own document (the JSON Schemas in
``schemas/`` were written from them, and the tests validate against them):

- ``gradescope``: Gradescope's autograder ``results.json`` (``score``,
  ``tests[]`` with ``name``, ``score``, ``max_score``, ``status``,
  ``output``, ``visibility``; ``leaderboard[]``).
- ``prairielearn``: PrairieLearn's external-grader ``results.json``
  (``gradable``, ``score`` from 0 to 1, ``tests[]`` with ``points`` and
  ``max_points``), kept under its 1 MB cap.
- ``github``: the runner result GitHub Classroom's grading reporter reads
  (``version``, ``status``, ``max_score``, ``tests[]`` with ``score``).
- ``autolab``: the autoresult line (``{"scores": {...}, "scoreboard": [...]}``)
  Autolab reads from the last line of the autograder's output.
- ``json``: the referee's own record, the others' source.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from referee import __version__

from .gauntlet import Grade, TestResult

FORMATS = ("json", "gradescope", "prairielearn", "github", "autolab")
PRAIRIELEARN_CAP = 1_000_000  # bytes PrairieLearn accepts in results.json
OUTPUT_CAP = 60_000  # characters of one test's output kept in any format
HIDDEN_TEXT = "Details are hidden until the course staff release them."


def schema_path(fmt: str) -> Path:
    return Path(__file__).with_name("schemas") / f"{fmt}.schema.json"


def _status(test: TestResult) -> str:
    return "passed" if test.passed else "failed"


def _cut(text: str, cap: int = OUTPUT_CAP) -> str:
    return text if len(text) <= cap else text[:cap] + "\n\n(output cut)\n"


def summary(grade: Grade) -> str:
    """The text above the tests."""
    head = f"{grade.score:g} / {grade.max_score:g} points ({grade.config.game})."
    head += f" {grade.message[0].upper()}{grade.message[1:]}." if grade.message else ""
    head += f" {grade.rating_text}" if grade.rating_text else ""
    return f"{head} {grade.sandbox_text}"


def to_json(grade: Grade) -> dict[str, Any]:
    return {
        "referee": __version__, "game": grade.config.game, "submission": grade.submission,
        "gradable": grade.gradable, "message": grade.message, "score": grade.score,
        "max_score": grade.max_score,
        "tests": [{"name": t.name, "kind": t.kind, "score": t.score, "max_score": t.max_score,
                   "status": _status(t), "visibility": t.visibility, "fraction": t.fraction,
                   "games": t.games, "elo": t.elo, "output": _cut(t.output)} for t in grade.tests],
        "leaderboard": grade.leaderboard(),
        "rating": None if grade.rating is None else {
            "value": grade.rating.rating, "low": grade.rating.low, "high": grade.rating.high,
            "anchors": {o.name: o.rating for o in grade.config.opponents}},
        "sandbox": {"kind": grade.sandbox, "note": grade.sandbox_note},
        "results_folder": None if grade.out is None else str(grade.out),
    }


def to_gradescope(grade: Grade) -> dict[str, Any]:
    data: dict[str, Any] = {
        "score": grade.score, "output": summary(grade), "output_format": "md",
        "test_output_format": "md", "visibility": "visible", "stdout_visibility": "hidden",
        "tests": [{"name": t.name, "score": t.score, "max_score": t.max_score, "status": _status(t),
                   "output": _cut(t.output), "output_format": "md", "visibility": t.visibility}
                  for t in grade.tests],
    }
    if grade.config.leaderboard:
        data["leaderboard"] = grade.leaderboard()
    return data


def to_prairielearn(grade: Grade) -> dict[str, Any]:
    """PrairieLearn shows every test to the student: a test the config
    hides keeps its name and points, its details are withheld."""
    total = grade.max_score
    data: dict[str, Any] = {"gradable": grade.gradable, "message": summary(grade)}
    if grade.gradable:
        data["score"] = round(min(1.0, max(0.0, grade.score / total)), 6) if total > 0 else 0.0
    data["tests"] = [{"name": t.name, "points": t.score, "max_points": t.max_score,
                      "message": "passed" if t.passed else f"{t.score:g} of {t.max_score:g} points",
                      "output": _cut(t.output if t.visibility == "visible" else HIDDEN_TEXT)}
                     for t in grade.tests]
    return _under_cap(data)


def _under_cap(data: dict[str, Any]) -> dict[str, Any]:
    """Cut outputs until the file fits PrairieLearn's 1 MB."""
    cap = OUTPUT_CAP
    while len(json.dumps(data).encode("utf-8")) > PRAIRIELEARN_CAP and cap > 200:
        cap //= 2
        for test in data.get("tests", []):
            test["output"] = _cut(test["output"], cap)
    return data


def to_github(grade: Grade) -> dict[str, Any]:
    tests = [{"name": t.name, "status": "pass" if t.passed else "fail",
              "message": _cut(t.output, 4000), "score": t.score} for t in grade.tests]
    status = "error" if not grade.gradable else ("pass" if all(t.passed for t in grade.tests) else "fail")
    return {"version": 1, "status": status, "max_score": grade.max_score, "tests": tests}


def to_autolab(grade: Grade) -> dict[str, Any]:
    """Autolab's problem names are the test names (name the assessment's
    problems alike); the scoreboard is the total, then the leaderboard's
    columns (the rating, when the submission played, and each opponent's
    score fraction in percent)."""
    return {"scores": {t.name: t.score for t in grade.tests},
            "scoreboard": [grade.score, *[entry["value"] for entry in grade.leaderboard()]]}


RENDER: dict[str, Callable[[Grade], dict[str, Any]]] = {
    "json": to_json, "gradescope": to_gradescope, "prairielearn": to_prairielearn,
    "github": to_github, "autolab": to_autolab}


def render(grade: Grade, fmt: str) -> str:
    data = RENDER[fmt](grade)
    if fmt == "autolab":  # one line: Autolab reads the last line of the output
        return json.dumps(data, separators=(",", ":")) + "\n"
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
