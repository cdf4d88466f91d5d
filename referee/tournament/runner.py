"""Running a tournament: ask the planner for playable games, play up to
``jobs`` of them at once, journal each one as it finishes, and write the
reports when it stops (finished, interrupted or failed).

Each game is played by a ``play`` function (by default a worker process per
game, see :mod:`.worker`); the runner only moves specs and results around.
"""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TextIO

import yaml

from referee import __version__
from referee.core import files
from referee.core.errors import InputError
from referee.core.log import MatchFolder, read_match_yaml, read_result_yaml
from referee.core.match import MatchSpec
from referee.core.textgrid import read_board_file
from referee.core.visible import visible

from .config import STATE_FILE, TournamentConfig, match_spec
from .formats import Bracket, RoundRobin, Swiss, make_format
from .journal import GameJob, GameRecord, Journal
from .planner import Plan, Planner
from .progress import Progress
from .report import result_text, write_reports
from .standings import Standing, compute_standings
from .worker import spec_to_json


Play = Callable[[GameJob, MatchSpec], dict[str, Any]]
"""Plays one game and returns its result.yaml data."""


class GameFailed(Exception):
    """The referee itself failed on a game (not a player fault: those are
    verdicts).  The tournament stops; --resume retries the game."""


class WorkerPlay:
    """Plays each game in a fresh ``python -m referee.tournament.worker``
    process, as isolated from the others as a process makes it.  Its Python
    start-up and imports (most of a fast game's cost outside its steps) are
    paid ahead: each game, as it starts, starts the worker of a game to come,
    which imports the referee while this one plays and then waits for its
    SPEC on stdin."""

    def __init__(self) -> None:
        self._live: set[subprocess.Popen] = set()
        self._spares: list[tuple[subprocess.Popen, Path]] = []  # (worker, its stderr file)
        self._lock = threading.Lock()
        self._stopped = False

    def _start(self, errors: Path) -> subprocess.Popen:
        with open(errors, "wb") as err:
            return subprocess.Popen([sys.executable, "-m", "referee.tournament.worker", "-"],
                                    stdin=subprocess.PIPE, stdout=err, stderr=subprocess.STDOUT)

    def _worker(self, folder: Path, errors: Path) -> subprocess.Popen:
        """A worker for the game whose output goes to ``errors``: a spare
        one started ahead if there is one still waiting, else a new one; and
        a spare started for the game after it."""
        with self._lock:
            proc = None
            while self._spares and proc is None:
                spare, spare_errors = self._spares.pop()
                if spare.poll() is None:
                    os.replace(spare_errors, errors)
                    proc = spare
                else:
                    spare.stdin.close()
                    spare_errors.unlink(missing_ok=True)
            if proc is None:
                proc = self._start(errors)
            self._live.add(proc)
            if not self._stopped:
                spare_errors = folder / f".worker-{time.monotonic_ns()}.stderr.txt"
                self._spares.append((self._start(spare_errors), spare_errors))
        return proc

    def __call__(self, job: GameJob, spec: MatchSpec) -> dict[str, Any]:
        out = Path(spec.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        errors = out.parent / f".{job.key}.stderr.txt"
        proc = self._worker(out.parent, errors)
        try:
            try:
                proc.stdin.write(spec_to_json(spec).encode() + b"\n")
                proc.stdin.flush()
            except OSError:
                pass  # it died: its exit code says so
            code = proc.wait()
        finally:
            with self._lock:
                self._live.discard(proc)
            with contextlib.suppress(OSError):
                proc.stdin.close()
        if code != 0:
            lines = errors.read_text(errors="replace").strip().splitlines() or ["no output"]
            raise GameFailed(f"game {job.key}: the referee failed (exit {code}): {lines[-1][:200]} "
                             f"(full output: {errors})")
        errors.unlink()
        return yaml.safe_load((out / "result.yaml").read_text(encoding="utf-8"))

    def close(self) -> None:
        """End the spare workers (told by the end of their input: no game)."""
        with self._lock:
            self._stopped = True
            spares, self._spares = self._spares, []
        for proc, errors in spares:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        for proc, errors in spares:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            errors.unlink(missing_ok=True)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            for proc in self._live:
                proc.kill()
            for proc, _ in self._spares:
                proc.kill()
        self.close()


@dataclass
class Summary:
    plan: Plan
    standings: list[Standing]
    bracket: str | None
    games: int
    failure: str | None = None
    interrupted: bool = False


def open_output(config: TournamentConfig, resume: bool) -> dict[str, GameRecord]:
    """Check the output folder against the config and load its journal."""
    out = config.out
    state_path = out / STATE_FILE
    fingerprint = json.loads(json.dumps(config.fingerprint()))
    if state_path.exists():
        saved = json.loads(state_path.read_text(encoding="utf-8")).get("config", {})
        if not resume:
            raise InputError(f"{out} already holds a tournament: add --resume to finish it, "
                             "or set another out: folder")
        changed = [key for key in fingerprint if saved.get(key) != fingerprint[key]]
        if changed:
            raise InputError(f"the config changed since this tournament started ({', '.join(changed)}); "
                             "restore it, or set another out: folder")
    else:
        out.mkdir(parents=True, exist_ok=True)
        state = {"referee": __version__, "config_file": str(config.path), "config": fingerprint,
                 "key": config.key}
        files.write_text(state_path, json.dumps(state, indent=1) + "\n")
    return {r.key: r for r in Journal(out).load()}


def doubt(config: TournamentConfig, job: GameJob, record: GameRecord) -> str | None:
    """Why ``record`` cannot be the result of ``job``, or None: its folder
    must be the job's, hold a result.yaml that gives the same record, a
    match.yaml with the job's game, seat names, seed and board, and pass
    ``replay --verify``."""
    if record.folder != f"games/{job.key}" or (record.table, record.seats, record.board, record.seed,
                                              record.extra) != (job.table, job.seats, job.board,
                                                                job.seed, job.extra):
        return "it is not the record of the game it names"
    from referee.verify import verify_folder  # replay and verify are the CLI's; only needed here

    folder = config.out / record.folder
    try:
        match, result = read_match_yaml(folder), read_result_yaml(folder)
        if result is None:
            return "its game folder has no result.yaml"
        if GameRecord.from_result(job, result, record.folder, record.seconds) != record:
            return "its game folder's result.yaml says otherwise"
        names = [p.get("name") if isinstance(p, dict) else None for p in match.get("players") or []]
        if (match.get("game"), names, match.get("seed")) != (
                config.game, [config.entrants[e].name for e in job.seats], job.seed):
            return "its game folder's match.yaml is for another game"
        board = config.boards[job.board]
        if board is not None:
            want = MatchFolder.text_hash(read_board_file(board))
            if (match.get("board") or {}).get("sha256") != want:
                return "its game folder was played on another board"
        report = verify_folder(folder)
    except (InputError, OSError, ValueError, TypeError, AttributeError) as exc:
        return f"its game folder cannot be read ({visible(str(exc), lines=False)[:200]})"
    if not report.ok:
        return f"its game folder does not verify ({visible(report.message, lines=False)[:200]})"
    return None


class Tournament:
    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.seeded = config.seeded()
        self.format: RoundRobin | Bracket | Swiss = make_format(
            config.format, self.seeded, config.table_size, config.rounds, config.seed,
            len(config.boards))
        self.planner = Planner(self.format, self.seeded, len(config.boards), config.seed,
                               config.table_size)

    def trusted(self, loaded: dict[str, GameRecord], log: TextIO,
                check: "Callable[[TournamentConfig, GameJob, GameRecord], str | None]" = doubt
                ) -> dict[str, GameRecord]:
        """The journal's records that hold up: a record counts only if the
        tournament would play exactly its game now (the planner, fed the
        records trusted so far, asks for it: same seats, board and seed) and
        its game folder says the same (see :func:`doubt`).  A forged or stale
        record counts for nothing: its game is played again."""
        trusted: dict[str, GameRecord] = {}
        left = dict(loaded)
        while left:
            added = False
            for job in self.planner.plan(trusted).pending:
                record = left.pop(job.key, None)
                if record is None:
                    continue
                why = check(self.config, job, record)
                if why:
                    print(f"referee: warning: journal record {visible(job.key)} is not counted: {why}; "
                          "the game is played again", file=log)
                    continue
                trusted[job.key] = record
                added = True
            if not added:
                break
        for key in left:
            print(f"referee: warning: journal record {visible(key)} is not counted: "
                  "this tournament has no such game to play", file=log)
        return trusted

    def record(self, job: GameJob, play: Play) -> GameRecord:
        config = self.config
        folder = f"games/{job.key}"
        spec = match_spec(config, job.seats, config.boards[job.board], job.seed, config.out / folder)
        start = time.monotonic()
        try:
            result = play(job, spec)
        except GameFailed:
            raise
        except Exception as exc:  # a referee bug in one game must not lose the others' records
            raise GameFailed(f"game {job.key}: {type(exc).__name__}: {exc}") from exc
        return GameRecord.from_result(job, result, folder, round(time.monotonic() - start, 3))

    def run(self, jobs: int, resume: bool, play: Play | None = None,
            log: TextIO = sys.stderr, check=doubt) -> Summary:
        """Play the tournament; ``check`` judges a resumed journal's records
        (:func:`doubt`; the planner's tests, whose fake games leave no
        folders, trust them all)."""
        records = self.trusted(open_output(self.config, resume), log, check)
        journal = Journal(self.config.out)
        play = play or WorkerPlay()
        progress = Progress(log, len(records))
        running: dict[Future, GameJob] = {}
        failure: str | None = None
        interrupted = False
        pool = ThreadPoolExecutor(max_workers=jobs)
        try:
            while True:
                plan = self.planner.plan(records)
                started = {job.key for job in running.values()}
                for job in plan.pending:
                    if failure is None and len(running) < jobs and job.key not in started:
                        running[pool.submit(self.record, job, play)] = job
                if not running:
                    break
                progress.tick(len(records), max(plan.expected_games, len(records)))
                finished, _ = wait(running, timeout=1.0, return_when=FIRST_COMPLETED)
                for future in finished:
                    job = running.pop(future)
                    try:
                        record = future.result()
                    except GameFailed as exc:
                        failure = failure or str(exc)
                        continue
                    journal.append(record)
                    records[job.key] = record
                    last = visible(f"{job.key}: {result_text(record, self.config.names)}", lines=False)
                    progress.update(len(records), max(plan.expected_games, len(records)), last)
        except KeyboardInterrupt:
            interrupted = True
            if hasattr(play, "stop"):  # WorkerPlay, DaskPlay: games in flight are lost anyway
                play.stop()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            if isinstance(play, WorkerPlay):  # its spare workers
                play.close()
            progress.close()
        return self.report(records, failure, interrupted)

    def report(self, records: dict[str, GameRecord], failure: str | None = None,
               interrupted: bool = False) -> Summary:
        plan = self.planner.plan(records)
        winners = {t: d.winner for t, d in plan.decisions.items()}
        placement = self.format.placement(winners) if plan.finished else None
        swiss = {}
        if isinstance(self.format, Swiss):
            swiss = {"byes": self.format.byes(winners, plan.points),
                     "opponents": self.format.opponents(winners, plan.points)}
        rows = compute_standings(records.values(), self.config.names, self.seeded, placement, **swiss)
        bracket = write_reports(self.config.out, self.config, self.format, plan,
                                list(records.values()), rows)
        return Summary(plan, rows, bracket, len(records), failure, interrupted)
