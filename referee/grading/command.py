"""The grading commands: ``check-bot``, ``grade`` and ``autograder``
(registered by referee/cli.py)."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from referee.core import files, outputs
from referee.core.errors import InputError
from referee.core.settings import parse_assignment

if TYPE_CHECKING:
    from .config import GradingConfig

MARKER = ".referee-grading"  # says a folder is check-bot's or grade's own, safe to replace


@click.command("check-bot")
@click.argument("game")
@click.option("--player", "player", required=True, metavar="CMD|DIR",
              help="Your program's command line, or the folder you will hand in.")
@click.option("--board", type=click.Path(path_type=Path), help="Board / start-position file.")
@click.option("--variant", help="Game variant.")
@click.option("--time-limit", metavar="SECONDS", help="Soft time limit per step (the grader's).")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE", help="A game setting or limit.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("step_logs/check-bot"),
              show_default=True, help="Where the check's match folders go (replaced each run).")
@click.option("--sandbox", type=click.Choice(["auto", "bwrap", "none"]), default="auto", show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
def check_bot_command(game: str, player: str, board: Path | None, variant: str | None,
                      time_limit: str | None, assignments: tuple[str, ...], out: Path, sandbox: str,
                      seed: int) -> None:
    """Check that a player is ready to hand in: it starts, answers the opening
    position legally in time, and plays whole games in both seats without a
    fault.  Exit 0 only if every check passes."""
    from referee.resources import resolve_board

    from referee.core import sandbox as sandbox_mod

    from .check_bot import check_bot
    from .submission import SubmissionError, build, stage

    from referee.core.limits_given import from_flags

    flags = [parse_assignment(a) for a in assignments]
    settings = dict(flags)
    if time_limit is not None or "soft_time" in settings:
        settings["soft_time"] = from_flags(flags, time_limit)
    out = Path(out)
    _claim(out, Path(player) if Path(player).is_dir() else None, "--out", "player folder")
    command, base = player, Path.cwd()
    if Path(player).is_dir():
        try:
            submission = stage(Path(player), out / "submission")
            build(submission, sandbox=sandbox_mod.resolve(sandbox))
        except SubmissionError as exc:
            click.echo(f"FAIL  the submission cannot run: {exc}")
            sys.exit(1)
        for note in submission.notes:
            click.echo(f"note: {note}")
        command, base = submission.command, submission.folder
    report = check_bot(game, command, base_dir=base, out=out,
                       board=resolve_board(game, board) if board else None, variant=variant,
                       settings=settings, sandbox=sandbox, seed=seed)
    click.echo(report.text(), nl=False)
    resolved = sandbox_mod.resolve(sandbox)
    if not resolved.on:  # what passes here may fail on the grader, which sandboxes it
        why = (resolved.warning or "--sandbox none").removeprefix("running players without a sandbox: ")
        click.echo(f"note: these checks ran without the sandbox graders use ({why}); a program that "
                   "reads or writes outside its own folder, or uses the network, passes here and fails there")
    sys.exit(0 if report.ok else 1)


def _claim(out: Path, source: Path | None = None, option: str = "", what: str = "") -> None:
    """Make ``out`` check-bot's folder: new, empty, or one it made before
    (then emptied); never anything else, nor one that holds ``source``
    (the folder to be checked or graded: emptying ``out`` deleted it)."""
    files.check_folder(out)
    from .submission import inside

    if source is not None and inside(source, out) and out.exists():
        raise InputError(f"{option} {out} is replaced on each run and the {what} {source} is inside it; "
                         f"choose another {option}")
    try:
        if out.exists() and any(out.iterdir()):
            if not (out / MARKER).exists():
                raise InputError(f"{out} exists and was not made by referee check-bot or grade; "
                                 "choose another folder")
            shutil.rmtree(out)
        outputs.output_folder(out, option or "--out")
        (out / MARKER).write_text("made by referee check-bot; replaced on each run\n", encoding="utf-8")
    except OSError as exc:  # (/proc/nope, a read-only disk: a traceback before any game)
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(out) else ""
        raise InputError(f"{option or '--out'} {out}: cannot use this folder: {exc.strerror or exc}{where}") \
            from None


@click.command("grade")
@click.argument("config_file", metavar="CONFIG.yaml", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--submission", metavar="PATH|CMD",
              help="One submission: a folder (made by new-player) or a command line.")
@click.option("--submissions", type=click.Path(path_type=Path, file_okay=False),
              help="A class: every subfolder is a submission (unchanged ones are not re-run).")
@click.option("--format", "fmt", type=click.Choice(["json", "gradescope", "prairielearn", "github", "autolab"]),
              default="json", show_default=True, help="The result file's format.")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the result file here (default: print it).")
@click.option("--results", type=click.Path(path_type=Path, file_okay=False),
              help="Folder for the games and per-submission results (default: step_logs/grading/NAME, "
                   "or DIR-grades next to --submissions).")
@click.option("--jobs", type=click.IntRange(min=1),
              help="Games played at once (default: cores); a class's submissions are graded that many "
                   "at once, a game at a time each.")
@click.option("--cluster", metavar="ADDRESS",
              help="Play the games on a Dask cluster, tcp://HOST:PORT (default jobs: its threads).")
def grade_command(config_file: Path, submission: str | None, submissions: Path | None, fmt: str,
                  out: Path | None, results: Path | None, jobs: int | None,
                  cluster: str | None = None) -> None:
    """Grade a submission (or a class) against the reference players in
    CONFIG.yaml (docs/grading.md).  Exit 0 once graded, whatever the grade."""
    from .classroom import grade_class, strays
    from .config import load

    if (submission is None) == (submissions is None):
        raise InputError("give either --submission PATH (one) or --submissions DIR (a class)")
    config = load(config_file)
    if submission is not None:
        _check_submission(submission)
        if out is not None:  # before the games: the grade is written only after them
            _apart_from(out, results)
            outputs.output_file(out, "--out")
    if submissions is not None:
        if not submissions.is_dir():
            raise InputError(f"--submissions {submissions}: no such folder")
        if out is not None:  # (it was ignored: a class's results are one file per submission)
            raise InputError(f"--out {out}: a class's grades go to --results (grades.csv and a result "
                             "file per submission); --out is for one --submission")
        results = results or submissions.resolve().with_name(submissions.resolve().name + "-grades")
        _apart(submissions, results)
        outputs.output_folder(results, "--results")
    play = None
    if cluster:
        from referee.tournament.cluster import DaskPlay

        play = DaskPlay(cluster)
        jobs = jobs or play.slots()
    try:
        if submissions is not None:
            assert results is not None
            rows = grade_class(config, submissions, results, fmt, jobs, say=click.echo, play=play)
            loose = {path.name for path in strays(submissions)} & {row.name for row in rows}
            besides = f" and {len(loose)} file(s) beside them, not graded" if loose else ""
            click.echo(f"{len(rows) - len(loose)} submissions{besides}; grades: {results / 'grades.csv'}")
            failed = [row.name for row in rows if row.status == "error"]
            if failed:  # exit 3, as a referee failure does: run the command again for these
                click.echo(f"referee: grading stopped for {len(failed)} submission(s) ({', '.join(failed)}); "
                           "run the command again to grade them", err=True)
                sys.exit(3)
            return
        _grade_one(config, submission, fmt, out, results, jobs, play)
    finally:
        if play is not None:
            play.close()


def _apart_from(out: Path, results: Path | None) -> None:
    """``--out`` is not the ``--results`` folder: the file was refused only
    after every game (a folder by then)."""
    if results is not None and os.path.abspath(out) == os.path.abspath(results):
        raise InputError(f"--out {out} is the --results folder; name a file for --out")


def _check_submission(submission: str) -> None:
    """``--submission`` that is neither a command line (see is_command) nor
    a folder: a path that is not there, or a file that is no program, was
    graded 0 as 'nothing was submitted' (exit 0), a typo's grade."""
    from .gauntlet import is_command
    from .submission import archive_hint

    if is_command(submission):
        return
    path = Path(submission)
    if not path.exists():
        raise InputError(f"--submission {submission}: no such folder (a command line has its arguments: "
                         "'python3 bot.py')")
    if not path.is_dir():
        archive = archive_hint(path)
        if archive:
            raise InputError(f"--submission {submission} {archive}")
        example = f" (e.g. 'python3 {submission}')" if submission.endswith(".py") else ""
        raise InputError(f"--submission {submission} is a file, not a program (not executable); give the "
                         f"folder it is in, or the command line that runs it{example}")


def _apart(submissions: Path, results: Path) -> None:
    """A class's results folder may be one of its subfolders (it is not
    graded), never the class's folder, a folder above it, or inside a
    submission: each submission's results folder is replaced, which
    deleted the students' folders, and a submission's copy took the others'
    results with it."""
    from .submission import inside

    if inside(submissions, results):
        raise InputError(f"--results {results} holds the submissions folder {submissions}, and each "
                         "submission's results in it are replaced; choose a folder outside it")
    if inside(results, submissions) and os.path.realpath(results.parent) != os.path.realpath(submissions):
        raise InputError(f"--results {results} is inside a submission of {submissions}; "
                         "choose a folder outside the submissions")


def _grade_one(config: "GradingConfig", submission: str, fmt: str, out: Path | None, results: Path | None,
               jobs: int | None, play: Any) -> None:
    from .formats import render
    from .gauntlet import grade, is_command

    name = "command" if is_command(submission) else (Path(submission).resolve().name or "submission")
    results = results or Path("step_logs") / "grading" / name
    _claim(results, None if is_command(submission) else Path(submission), "--results", "submission")
    result = grade(config, Path(submission) if not is_command(submission) else submission,  # type: ignore[arg-type]
                   results, jobs, play)
    text = render(result, fmt)
    if out is None:
        click.echo(text, nl=False)
        return
    for test in result.tests:
        click.echo(f"{test.score:>7g} / {test.max_score:<7g} {test.name}")
    _write_grade(out, text, results, fmt)
    click.echo(f"{result.score:>7g} / {result.max_score:<7g} total; {fmt} results: {out}; "
               f"games: {results}")


def _write_grade(out: Path, text: str, results: Path, fmt: str) -> None:
    """Write the result file; if that fails after all (--out was checked
    before the games, but its folder can go, or the disk fill, meanwhile),
    the grade goes to the results folder, or the console, and the error
    says where: the games it took minutes to play are never lost."""
    try:
        if not os.path.lexists(out.parent):  # (removed meanwhile: made again, as before the games)
            out.parent.mkdir(parents=True)
        files.write_text(out, text)
        return
    except OSError as exc:
        why = f"--out {out}: cannot write it: {exc.strerror or exc}"
    kept = results / ("results.json" if fmt == "json" else f"results.{fmt}.json")
    try:
        files.write_text(kept, text)
    except OSError:
        click.echo(text, nl=False)
        raise InputError(f"{why}; the grade is printed above") from None
    raise InputError(f"{why}; the grade is in {kept}")


@click.command("autograder")
@click.argument("platform", type=click.Choice(["gradescope", "prairielearn"]))
@click.argument("config_file", metavar="CONFIG.yaml", type=click.Path(path_type=Path, dir_okay=False))
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True,
              help="Gradescope: the zip to write; PrairieLearn: a new folder.")
@click.option("--wheel", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="The referee wheel to ship (default: built from this checkout).")
@click.option("--dependencies", type=click.Choice(["none", "download"]), default="none", show_default=True,
              help="download: ship the referee's dependencies as wheels too (graders without a network).")
def autograder_command(platform: str, config_file: Path, out: Path, wheel: Path | None,
                       dependencies: str) -> None:
    """Build the ready-to-upload autograder for PLATFORM from CONFIG.yaml
    (docs/grading.md)."""
    from .autograder import build

    for line in build(platform, config_file, out, wheel, dependencies):
        click.echo(line)
