"""Every result format against its platform's schema, and the points the
config gives: two submissions graded once for the module (a module-scoped
fixture keeps these tests together on one xdist worker)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from grading_kit import submission, validate, write_config
from referee.grading import config as grading_config
from referee.grading.formats import FORMATS, render
from referee.grading.gauntlet import grade


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The good bot and the crashing one, graded once for the module."""
    tmp_path = tmp_path_factory.mktemp("graded")
    config = grading_config.load(write_config(tmp_path))
    return {name: grade(config, submission(tmp_path, name, sdk=name != "good"), tmp_path / name)
            for name in ("good", "crash_at_3")}


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_validates_against_its_platforms_schema(graded, fmt):
    for result in graded.values():
        data = validate(fmt, render(result, fmt))
        if fmt == "gradescope":
            assert data["score"] == sum(t["score"] for t in data["tests"])
            assert [t["visibility"] for t in data["tests"]] == ["visible", "visible", "after_due_date"]
        if fmt == "prairielearn":
            assert data["gradable"] is True and 0 <= data["score"] <= 1
            assert data["tests"][2]["output"].startswith("Details are hidden")
        if fmt == "autolab":
            assert set(data["scores"]) == {"Compliance (referee check-bot)", "random", "staff greedy"}
        if fmt == "github":
            assert data["max_score"] == 70


@pytest.mark.slow
def test_points_follow_the_config(graded):
    good, crash = graded["good"], graded["crash_at_3"]
    assert good.tests[0].score == 10 and good.score > crash.score
    assert crash.tests[0].score == pytest.approx(10 / 3, abs=0.01)  # it answered its first turn
    assert [t.score for t in crash.tests[1:]] == [0, 0]  # it forfeits every game
    output = crash.tests[1].output
    assert "| 6x3-1.txt | L | L |" in output and "crashing on purpose" in output
    assert "CRASH" in output and "Replays:" in output
    assert "Note: no referee_sdk/ folder was handed in" in good.tests[0].output


@pytest.mark.slow
def test_the_rating_against_the_reference_set_is_in_every_leaderboard(graded):
    """Anchored Elo (both reference bots at the default 1500): the crashing
    bot lost every game, the good one did better; the leaderboards and the
    summary carry it."""
    good, crash = graded["good"], graded["crash_at_3"]
    assert crash.rating.rating < 1500 < crash.rating.high and crash.rating.rating < good.rating.rating
    data = validate("json", render(good, "json"))
    assert data["rating"]["value"] == good.rating.rating
    assert data["rating"]["anchors"] == {"random": 1500, "staff greedy": 1500}
    summary = validate("gradescope", render(good, "gradescope"))["output"]
    assert f"Rating against the reference set: {good.rating.rating:.0f} (95% interval" in summary
    good.config = replace(good.config, leaderboard=True)
    board = validate("gradescope", render(good, "gradescope"))["leaderboard"]
    assert board[0] == {"name": "Rating", "value": round(good.rating.rating), "order": "desc"}
    assert [entry["name"] for entry in board[1:]] == ["vs random", "vs staff greedy"]
    assert validate("autolab", render(crash, "autolab"))["scoreboard"][:2] == [crash.score,
                                                                               round(crash.rating.rating)]
