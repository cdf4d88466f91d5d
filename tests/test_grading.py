"""Grading: check-bot, the gauntlet's points, every result format against its
platform's schema, whole-class runs, and honest statistics.

Submissions are real folders (tests/seed_players/grading/) played by real
processes on a small Cantris board, one game per seat, so the module stays
quick; the autograder packages are tested end to end in test_autograder.py."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import BOARDS, needs_gpp, referee
from referee.core.errors import InputError
from referee.grading import config as grading_config
from referee.grading.classroom import folder_hash
from referee.grading.formats import FORMATS, render, schema_path
from referee.grading.gauntlet import grade
from referee.grading.submission import MANIFEST
from referee.tournament.ratings import EloEstimate, describe_elo, elo_interval, sweep_bound

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


@pytest.fixture(autouse=True)
def python3_is_this_python(monkeypatch):
    """Submissions run ``python3 player.py`` (their manifest): here that is
    the test venv's Python, as run_autograder makes it the package's."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


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


# ----- the config ----------------------------------------------------------------

@pytest.mark.parametrize("change, message", [
    (("games_per_board: 1", "games_per_board: 1\nrounds: 3"), ":4: rounds: unknown key"),
    (("full_at: 0.75", "full_at: 0.2"), "opponents[0].full_at: must be above zero_at (0.25)"),
    (("full_at: 0.75", "full_at: 1.5"), "opponents[0].full_at: expected a score fraction"),
    (("visibility: after_due_date", "visibility: later"), "opponents[1].visibility: 'later' is not one of"),
    (("builtin:greedy", "builtin:grumpy"), "opponents[1].player: no built-in player 'grumpy'"),
    (("builtin:greedy", "python3 staff/bot.py"), "opponents[1].player: python3 cannot find staff/bot.py"),
    (("points: 10", "points: -1"), "compliance.points: expected a number of points"),
    (("time_limit: 2", "time_limit: fast"), "limits"),
])
def test_a_bad_config_is_one_line_naming_the_place(tmp_path, change, message):
    path = write_config(tmp_path, CONFIG.replace(*change, 1))
    with pytest.raises(InputError) as caught:
        grading_config.load(path)
    assert message in str(caught.value) and str(path) in str(caught.value)
    proc = referee("grade", path, "--submission", tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and message in proc.stderr


def test_partial_credit_is_linear_between_zero_at_and_full_at(tmp_path):
    opponent = grading_config.load(write_config(tmp_path)).opponents[0]  # full 0.75, zero 0.25
    assert [opponent.points_for(f) for f in (0.0, 0.25, 0.5, 0.6, 0.75, 1.0)] == [0, 0, 15, 21, 30, 30]


# ----- check-bot -------------------------------------------------------------------

def test_check_bot_passes_a_good_folder_even_without_its_sdk_copy(tmp_path):
    folder = submission(tmp_path, "good", sdk=False)
    proc = referee("check-bot", "cantris", "--player", folder, "--board", BOARD,
                   "--out", tmp_path / "check", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASS") == 3 and "ready to submit" in proc.stdout
    assert "bundled SDK" in proc.stdout
    assert not (folder / "referee_sdk").exists()  # the student's folder is never changed
    again = referee("check-bot", "cantris", "--player", "missing.py", "--out", tmp_path / "check",
                    cwd=tmp_path)  # its own folder is replaced; nobody else's
    assert again.returncode == 1 and "command 'missing.py' not found" in again.stdout
    assert not (tmp_path / "check" / "as-player-1").exists()
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "thesis.tex").write_text("precious")
    refused = referee("check-bot", "cantris", "--player", "builtin:greedy", "--out", notes)
    assert refused.returncode == 2 and (notes / "thesis.tex").read_text() == "precious"


@pytest.mark.parametrize("name, failed, says", [
    ("crash_at_3", 2, "crashing on purpose at step 3"),
    ("illegal", 2, "(99, 99) is off the 6x3 board"),
    ("syntax_error", 3, "SyntaxError"),
])
def test_check_bot_names_each_failure_and_what_to_fix(tmp_path, name, failed, says):
    proc = referee("check-bot", "cantris", "--player", submission(tmp_path, name), "--board", BOARD,
                   "--out", tmp_path / "check", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.count("FAIL") == failed and proc.stdout.count("fix:") == failed
    assert says in proc.stdout


# ----- one submission: points and every format ---------------------------------------

@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The good bot and the crashing one, graded once for the module."""
    tmp_path = tmp_path_factory.mktemp("graded")
    old = os.environ["PATH"]
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{old}"
    try:
        config = grading_config.load(write_config(tmp_path))
        return {name: grade(config, submission(tmp_path, name, sdk=name != "good"), tmp_path / name)
                for name in ("good", "crash_at_3")}
    finally:
        os.environ["PATH"] = old


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


def test_points_follow_the_config(graded):
    good, crash = graded["good"], graded["crash_at_3"]
    assert good.tests[0].score == 10 and good.score > crash.score
    assert crash.tests[0].score == pytest.approx(10 / 3, abs=0.01)  # it answered its first turn
    assert [t.score for t in crash.tests[1:]] == [0, 0]  # it forfeits every game
    output = crash.tests[1].output
    assert "| 6x3-1.txt | L | L |" in output and "crashing on purpose" in output
    assert "CRASH" in output and "Replays:" in output
    assert "Note: no referee_sdk/ folder was handed in" in good.tests[0].output


def test_a_missing_or_unrunnable_submission_is_graded_not_a_traceback(tmp_path):
    config = grading_config.load(write_config(tmp_path))
    missing = grade(config, tmp_path / "nothing-here", tmp_path / "r1")
    assert not missing.gradable and missing.score == 0
    assert validate("prairielearn", render(missing, "prairielearn"))["gradable"] is False
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("my bot is in another castle")
    result = grade(config, stray, tmp_path / "r2")
    assert result.gradable and result.score == 0 and "no player.py or player.cpp" in result.tests[0].output
    (stray / MANIFEST).write_text("language: cobol\n")
    result = grade(config, stray, tmp_path / "r3")
    assert "language: 'cobol' is not one of" in result.tests[0].output


@needs_gpp
def test_a_cpp_build_failure_is_a_graded_explained_failure(tmp_path):
    folder = tmp_path / "cpp"
    assert referee("new-player", "cantris", folder, "--lang", "cpp").returncode == 0
    assert "build: g++" in (folder / MANIFEST).read_text()
    (folder / "player.cpp").write_text("int main( { return 0; }\n")
    proc = referee("grade", write_config(tmp_path), "--submission", folder, "--format", "gradescope",
                   "--out", tmp_path / "results.json", "--results", tmp_path / "r", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = validate("gradescope", (tmp_path / "results.json").read_text())
    assert data["score"] == 0 and "the build failed" in data["tests"][0]["output"]
    assert "error" in data["tests"][0]["output"]  # the compiler's own words
    assert not (folder / "player").exists()  # built in the copy, never in the hand-in


# ----- a class ---------------------------------------------------------------------------

def test_a_class_gets_a_csv_and_only_changed_submissions_play_again(tmp_path):
    config = write_config(tmp_path)
    submission(tmp_path, "syntax_error")
    folder = tmp_path / "hand-in"
    (folder / "empty-handed").mkdir()
    (folder / "empty-handed" / "notes.txt").write_text("no program")
    proc = referee("grade", config, "--submissions", folder, "--format", "prairielearn", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    results = tmp_path / "hand-in-grades"
    rows = (results / "grades.csv").read_text().splitlines()
    assert rows[0] == "submission,score,max_score,Compliance (referee check-bot),random,staff greedy," \
                      "status,message"
    assert rows[1].startswith("empty-handed,0,70,0,0,0,graded,no player.py or player.cpp")
    assert rows[2].startswith("syntax_error,0,70,0,0,0,graded,the program did not answer")
    validate("prairielearn", (results / "syntax_error" / "results.prairielearn.json").read_text())
    again = referee("grade", config, "--submissions", folder, "--format", "prairielearn", cwd=tmp_path)
    assert again.stdout.count("unchanged") == 2
    with open(folder / "syntax_error" / "player.py", "a") as handle:
        handle.write("# changed\n")
    third = referee("grade", config, "--submissions", folder, "--format", "prairielearn", cwd=tmp_path)
    assert third.stdout.count("unchanged") == 1 and "syntax_error: 0 / 70" in third.stdout
    assert "unchanged" in (results / "grades.csv").read_text()


def test_the_folder_hash_is_content_not_place_or_time(tmp_path):
    a = submission(tmp_path, "slow")
    b = tmp_path / "elsewhere"
    shutil.copytree(a, b)
    assert folder_hash(a) == folder_hash(b)
    (b / "player.py").write_text((b / "player.py").read_text() + "\n")
    assert folder_hash(a) != folder_hash(b)


# ----- honest statistics --------------------------------------------------------------

def test_a_clean_sweep_gives_a_lower_bound_not_infinity():
    sweep = elo_interval([0, 0, 0, 0, 20])
    text = describe_elo(sweep, False, False, "A")
    assert "inf" not in text and text.startswith(f"at least {sweep_bound(20):+.1f}")
    assert 250 < sweep_bound(20) < 350 and sweep_bound(5) > 0 > sweep_bound(4)
    assert "too few for a 95% bound" in describe_elo(elo_interval([0, 0, 0, 0, 2]), False, False, "A")
    assert describe_elo(elo_interval([3, 0, 0, 0, 0]), False, True, "A").startswith("no estimate")
    assert describe_elo(elo_interval([0, 0, 9, 0, 0]), False, True, "A") \
        .endswith("every pair scored alike (9 pairs); add boards (--boards) to measure the spread")
    assert "95% interval" in describe_elo(elo_interval([1, 2, 3, 2, 1]), False, False, "A")
    same = EloEstimate(0.5, 0.0, 0.0, 0.0, 4)
    assert "all 4 pairs were the same game" in describe_elo(same, True, True, "A")


def test_a_series_of_deterministic_players_on_one_board_says_so(tmp_path):
    proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:greedy",
                   "--board", BOARD, "--games", "4", "--out", tmp_path / "s", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "all 2 pairs were the same game (deterministic players on one board); add boards " \
           "(--boards)" in proc.stdout
    assert "[+0.0, +0.0]" not in proc.stdout
