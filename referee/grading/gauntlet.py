"""``referee grade``: one submission against the config's reference players.

Why a gauntlet and not a class tournament: a student's grade should not
depend on who else is in the class, so every submission plays the same fixed
opponents on the same boards, in every seat, and each opponent is a test
worth points.  The compliance check (check-bot) is graded first; a program
that cannot answer the opening position plays no games (it would only lose
them all slowly) and gets the points for what it did pass.

Each opponent's games are a paired series (referee/tournament/series.py):
the same worker per game, journal and match folders, so every game can be
replayed, and the same Elo estimate the series prints.
"""
from __future__ import annotations

import io
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core import files, sandbox as sandbox_mod
from referee.core.errors import InputError
from referee.core.match import RefereeError
from referee.core.runner import usable_cores
from referee.core.settings import load_yaml
from referee.tournament.journal import GameRecord, Journal
from referee.tournament.ratings import (Rating, anchored_ratings, describe_elo, elo_interval, pentanomial,
                                       same_games)
from referee.tournament.series import make_config, run_series

from .check_bot import CheckReport, Fault, check_bot, seat_faults, worst
from .config import GradingConfig, Opponent
from .submission import Submission, SubmissionError, build, stage

RESULT = {"win": "W", "draw": "D", "loss": "L"}
ATTEMPTS = 3
"""Tries of an opponent's games when the reference player ran out of wall
time in one: its TIMEOUT would hand the submission a win it did not earn
(a busy grader), so the series is played again (same seeds); after the
last try grading stops rather than give that grade."""


class GradingError(RefereeError):
    """The referee failed on a game (never the student's fault): grading
    stops rather than give a wrong grade."""


@dataclass
class TestResult:
    name: str
    score: float
    max_score: float
    output: str  # markdown
    visibility: str = "visible"
    kind: str = "opponent"  # or "compliance"
    fraction: float | None = None  # the score fraction against an opponent
    games: int = 0
    elo: float | None = None  # the estimate, or a bound when one side scored every point
    rankings: list[list[list[int]]] = field(default_factory=list, repr=False)
    """Each game's ranking, 0 the submission and 1 the opponent (for the rating)."""

    @property
    def passed(self) -> bool:
        return self.score >= self.max_score


@dataclass
class Grade:
    config: GradingConfig
    submission: str
    tests: list[TestResult] = field(default_factory=list)
    gradable: bool = True
    message: str = ""
    out: Path | None = None
    sandbox: str = "none"  # bwrap only if every game this grade played ran in it
    rating: Rating | None = None  # against the reference set (anchored Elo); None: no games
    sandbox_note: str = ""  # why there was none

    @property
    def sandbox_text(self) -> str:
        """One sentence for the result's summary: whether the players ran
        isolated (a TA reads it before trusting a hostile class's grades)."""
        if self.sandbox == "bwrap":
            return ("Players ran in the bubblewrap sandbox (their own folder only, read-only "
                    "system, no network).")
        return "Players ran WITHOUT a sandbox" + (f" ({self.sandbox_note})." if self.sandbox_note else ".")

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 2)

    @property
    def max_score(self) -> float:
        return round(sum(t.max_score for t in self.tests), 2)

    def leaderboard(self) -> list[dict[str, Any]]:
        """The rating against the reference set, then one column per
        opponent (the score fraction against it, %): ranked against fixed
        reference bots, never against classmates' results."""
        rating = [{"name": "Rating", "value": 0 if self.rating is None else round(self.rating.rating),
                   "order": "desc"}]  # 0: it played no game (it could not start), last on the board
        return rating + [{"name": f"vs {t.name}", "value": round(100 * (t.fraction or 0.0), 1), "order": "desc"}
                         for t in self.tests if t.kind == "opponent"]

    @property
    def rating_text(self) -> str:
        if self.rating is None:
            return ""
        return (f"Rating against the reference set: {self.rating.rating:.0f} "
                f"(95% interval {self.rating.low:.0f} to {self.rating.high:.0f}; anchors: "
                + ", ".join(f"{o.name} {o.rating:g}" for o in self.config.opponents) + ").")


def grade(config: GradingConfig, submission_path: Path, out: Path, jobs: int | None = None,
          play: Any = None) -> Grade:
    """Grade one submission folder (or, when ``submission_path`` is not a
    folder, a command line); everything it leaves goes under ``out``.
    ``play`` plays the games elsewhere (a DaskPlay for ``--cluster``)."""
    out = Path(out)
    files.check_folder(out, "results folder")
    out.mkdir(parents=True, exist_ok=True)
    result = Grade(config, str(submission_path), out=out)
    folders: list[Path] = []  # every match folder this grade played
    try:
        _gauntlet(config, submission_path, out, result, folders, jobs, play)
    finally:
        result.sandbox, result.sandbox_note = sandbox_used(config.sandbox, folders)
    return result


def sandbox_used(mode: str, folders: list[Path]) -> tuple[str, str]:
    """``("bwrap", "")`` when ``mode`` resolves to the sandbox here and every
    match folder's match.yaml (written by the referee, out of the players'
    reach) says it ran in it; else ``("none", why)``."""
    try:
        resolved = sandbox_mod.resolve(mode)
    except InputError as exc:
        return "none", exc.message
    if not resolved.on:
        return "none", (resolved.warning or "sandbox: none in the config").removeprefix(
            "running players without a sandbox: ")
    for folder in folders:
        try:
            kind = (load_yaml((folder / "match.yaml").read_text(encoding="utf-8")) or {}).get("sandbox")
        except (OSError, ValueError, AttributeError):
            kind = None
        if kind != "bwrap":
            return "none", f"the match in {folder.name} ran without it"
    return "bwrap", ""


def _gauntlet(config: GradingConfig, submission_path: Path, out: Path, result: Grade,
              folders: list[Path], jobs: int | None, play: Any) -> None:
    try:
        submission = _prepare(config, submission_path, out)
    except SubmissionError as exc:
        result.gradable = not _missing(submission_path)
        result.message = str(exc)
        _fail_all(result, config, f"The submission cannot run: {exc}")
        return
    notes = "".join(f"Note: {n}.\n\n" for n in submission.notes)
    report = check_bot(config.game, submission.command, base_dir=submission.folder,
                       out=out / "compliance", board=config.boards[0], variant=config.variant,
                       settings=config.settings, limits=config.limits, sandbox=config.sandbox,
                       seed=config.seed or 1)
    folders += report.folders
    result.tests.append(_compliance_test(config, report, notes))
    if not report.started:
        result.message = "the program did not answer the opening position: no games were played"
        for opponent in config.opponents:
            result.tests.append(TestResult(
                opponent.name, 0.0, opponent.points,
                "Not played: your program did not answer the opening position (see the compliance "
                "test). Run `referee check-bot` before you submit.", opponent.visibility))
        return
    for opponent in config.opponents:
        result.tests.append(_play(config, submission, opponent, out, jobs or usable_cores(), play, folders))
    result.rating = rate(config, result.tests[1:])


def rate(config: GradingConfig, tests: list[TestResult]) -> Rating | None:
    """The submission's Elo on the scale the config's anchors fix (each
    opponent's ``rating``), fitted to every game it played
    (ratings.anchored_ratings: the tournaments' model), rounded to 0.1 so
    that a regrade prints the same bytes; None without a game."""
    rankings = [[[0 if entrant == 0 else index for entrant in group] for group in ranking]
                for index, test in enumerate(tests, 1) for ranking in test.rankings]
    if not rankings:
        return None
    anchors = {index: opponent.rating for index, opponent in enumerate(config.opponents, 1)}
    found = anchored_ratings(len(config.opponents) + 1, rankings, anchors)[0]
    return Rating(round(found.rating, 1) + 0.0, round(found.low, 1) + 0.0, round(found.high, 1) + 0.0)


def _missing(path: Path) -> bool:
    """Nothing was handed in (PrairieLearn's ``gradable: false``)."""
    path = Path(path)
    try:
        return not path.is_dir() or not any(path.iterdir())
    except OSError:
        return True


def is_command(text: str) -> bool:
    """``--submission`` names a command line rather than a folder: one with
    its arguments, a built-in, or a program of one word (``./mybot``, a
    compiled bot: an executable file)."""
    path = Path(text)
    if path.is_dir():
        return False
    return (" " in text or text.startswith(("builtin:", "persistent:"))
            or (path.is_file() and os.access(path, os.X_OK)))


def _prepare(config: GradingConfig, path: Path, out: Path) -> Submission:
    if is_command(str(path)):
        return Submission(Path.cwd(), "command", str(path), None)
    path = Path(path)
    if _missing(path):
        raise SubmissionError(f"{path}: nothing was submitted" if path.exists()
                              else f"{path}: no such folder (nothing was submitted?)")
    submission = stage(path, out / "submission", config.submission)
    build(submission, sandbox=sandbox_mod.resolve(config.sandbox))  # (as the games run: in it, if on)
    return submission


def _fail_all(result: Grade, config: GradingConfig, why: str) -> None:
    result.tests.append(TestResult(config.compliance_name, 0.0, config.compliance_points,
                                   _block(why), config.compliance_visibility, kind="compliance"))
    for opponent in config.opponents:
        result.tests.append(TestResult(opponent.name, 0.0, opponent.points,
                                       "Not played: the submission cannot run (see the compliance test).",
                                       opponent.visibility))


def _block(text: str) -> str:
    """Text with a compiler's output kept as it is (a fenced block)."""
    head, _, rest = text.partition("\n")
    return head + (f"\n\n```\n{rest.strip()}\n```\n" if rest.strip() else "\n")


def _compliance_test(config: GradingConfig, report: CheckReport, notes: str) -> TestResult:
    passed = sum(bool(c.passed) for c in report.checks)
    points = round(config.compliance_points * passed / len(report.checks), 2)
    lines = [notes.rstrip()] if notes else []
    for check in report.checks:
        mark = {True: "PASS", False: "FAIL", None: "skip"}[check.passed]
        line = f"- **{mark}** {check.name}" + (f": {check.message}" if check.message else "")
        if check.fix and not check.passed:
            line += f"  \n  *Fix:* {check.fix}"
        lines.append(line)
    lines.append(f"\n{passed} of {len(report.checks)} checks passed.")
    return TestResult(config.compliance_name, points, config.compliance_points, "\n".join(lines) + "\n",
                      config.compliance_visibility, kind="compliance")


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "opponent"


def _play(config: GradingConfig, submission: Submission, opponent: Opponent, out: Path,
          jobs: int, play: Any = None, folders: list[Path] | None = None) -> TestResult:
    folder = out / "games" / slug(opponent.name)
    series = make_config(config.game, [submission.command, opponent.player], config.boards,
                         config.games_per_opponent, config.seed, folder, config.base_dir,
                         config.variant, config.policy, config.settings, config.limits,
                         names=["submission", opponent.name], sandbox=config.sandbox)
    replayed: list[str] = []
    for attempt in range(1, ATTEMPTS + 1):
        summary = run_series(series, max(1, jobs), play, log=io.StringIO())
        if summary.failure:
            raise GradingError(f"grading stopped: {summary.failure}")
        records = sorted(Journal(folder).load(), key=lambda r: r.key)
        starved = [r.key for r in records if r.verdicts.get(r.seat_of(1), {}).get("TIMEOUT")]
        if not starved:
            break
        if attempt == ATTEMPTS:
            raise GradingError(
                f"grading stopped: the reference player {opponent.name!r} ran out of time (TIMEOUT) in "
                f"game {starved[0]} in each of {ATTEMPTS} tries; a grade must not hang on the grader's "
                "load: raise hard_time, lower --jobs, or fix the reference player")
        replayed += starved
        shutil.rmtree(folder)  # the same seeds again: only the timing can differ
    if folders is not None:
        folders += [folder / r.folder for r in records]
    games = len(records)
    points = sum(r.points(0) for r in records)
    fraction = points / games if games else 0.0
    score = opponent.points_for(fraction)
    rotations: dict[str, list[GameRecord]] = {}
    for record in records:
        rotations.setdefault(record.table, []).append(record)
    pairs = list(rotations.values())
    estimate = elo_interval(pentanomial([sum(r.points(0) for r in pair) for pair in pairs])) \
        if len(series.entrants) == 2 and pairs else None
    lines = [f"**{_pct(fraction)}** of the points against {opponent.name} "
             f"({points:g} of {games}: win 1, draw 1/2, loss 0) -> **{score:g} / {opponent.points:g}** "
             f"(full at {_pct(opponent.full_at)} or more, none at {_pct(opponent.zero_at)} or less)", ""]
    if replayed:
        lines += [f"Played again: {opponent.name} ran out of time in game(s) {', '.join(sorted(set(replayed)))} "
                  "(a reference player's TIMEOUT is the grader's load, not the submission's merit).", ""]
    if estimate is not None:
        lines += ["Elo against " + opponent.name + ": "
                  + describe_elo(estimate, same_games(pairs), len(config.boards) == 1,
                                 "submission"), ""]
    lines += _record_table(config, records)
    faults = [f for r in records for f in _faults(folder, r)]
    if faults:
        lines += ["", "Worst faults:"]
        lines += [f"- {f.text()}" for f in worst(faults)]
    lines += ["", f"Replays: {folder.name}/games/ in the grader's results "
                  f"(`referee replay FOLDER`)."]
    elo = None if estimate is None else (estimate.elo if abs(estimate.elo) != float("inf") else None)
    rankings = [[[record.seats[seat - 1] for seat in group] for group in record.ranking]
                for record in records if record.ranking]
    return TestResult(opponent.name, score, opponent.points, "\n".join(lines) + "\n", opponent.visibility,
                      fraction=fraction, games=games, elo=elo, rankings=rankings)


def _faults(folder: Path, record: GameRecord) -> list[Fault]:
    seat = record.seat_of(0)
    faults = seat_faults(folder / record.folder, seat)
    for fault in faults:
        fault.message = f"game {record.key}: {fault.message}" if fault.message else fault.message
    return faults


def _record_table(config: GradingConfig, records: list[GameRecord]) -> list[str]:
    """W/D/L per board (rows) and seat (columns)."""
    seats = max((len(r.seats) for r in records), default=2)
    names = ["default" if b is None else b.name for b in config.boards]
    lines = ["| board | " + " | ".join(f"as player {s}" for s in range(1, seats + 1)) + " |",
             "|---" * (seats + 1) + "|"]
    for index, name in enumerate(names):
        cells = []
        for seat in range(1, seats + 1):
            marks = [RESULT[r.result_of(0)] for r in records if r.board == index and r.seat_of(0) == seat]
            cells.append(" ".join(marks) or "-")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%" if abs(100 * value - round(100 * value)) < 1e-9 else f"{100 * value:.1f}%"
