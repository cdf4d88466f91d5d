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
from typing import Any, Callable, Collection, Iterable, TextIO

import yaml

from referee import __version__
from referee.core import files, warmseats
from referee.core.trees import remove_tree
from referee.core.errors import InputError
from referee.core.interpreter import PYTHON
from referee.core.log import MatchFolder, read_match_yaml, read_result_yaml
from referee.core.match import MatchSpec
from referee.core.textgrid import read_board_file
from referee.core.visible import visible

from .config import STATE_FILE, TournamentConfig, match_spec
from . import forkserver
from .forkserver import ForkServer
from .formats import Bracket, RoundRobin, Swiss, make_format
from .journal import GameJob, GameRecord, Journal
from .lock import OutputLock
from .planner import Plan, Planner
from .progress import Progress
from .report import result_text, write_reports
from .standings import Standing, compute_standings
from .worker import spec_to_json


Play = Callable[[GameJob, MatchSpec], dict[str, Any]]
"""Plays one game and returns its result.yaml data."""

# libyaml's parser where PyYAML has it: ~0.7 ms a result.yaml where PyYAML's
# own takes ~4.8, once a game in the runner.  The data is the same (the
# constructor and the resolver that type the scalars are the same Python
# classes), and the files are the referee's own writing (files.yaml_text).
_RESULT_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_result(text: str) -> Any:
    """A result.yaml's data, as ``yaml.safe_load`` reads it."""
    return yaml.load(text, Loader=_RESULT_LOADER)


class GameFailed(Exception):
    """The referee itself failed on a game (not a player fault: those are
    verdicts).  The tournament stops; --resume retries the game."""


class Spawner:
    """Workers as processes of their own: ``python -m
    referee.tournament.worker -``, each paying Python's start-up and the
    referee's imports (where there is no fork server: see
    :mod:`.forkserver`, whose interface this is)."""

    def __init__(self) -> None:
        self._procs: dict[int, subprocess.Popen] = {}
        self._lock = threading.Lock()
        self._next = 0

    def start(self, spec_line: str, errors: Path) -> int:
        with open(errors, "wb") as err:
            proc = subprocess.Popen([PYTHON, "-P", "-m", "referee.tournament.worker", "-"],
                                    stdin=subprocess.PIPE, stdout=err, stderr=subprocess.STDOUT)
        with self._lock:
            self._next += 1
            self._procs[self._next] = proc
        self._send(proc, spec_line)
        return self._next

    @staticmethod
    def _send(proc: subprocess.Popen, line: str) -> None:
        try:
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()
        except (OSError, ValueError):
            pass  # it died: its exit code says so

    def go(self, ident: int) -> None:
        self._send(self._procs[ident], "go")

    def off(self, ident: int) -> None:
        with contextlib.suppress(OSError):
            self._procs[ident].stdin.close()

    def kill(self, ident: int) -> None:
        self._procs[ident].kill()

    def wait(self, ident: int, timeout: float | None = None) -> int | None:
        proc = self._procs[ident]
        try:
            code = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        with self._lock:
            self._procs.pop(ident, None)
        with contextlib.suppress(OSError):
            proc.stdin.close()
        return code

    def why_gone(self) -> str:
        return "no output"

    def close(self) -> None:
        pass


class WorkerPlay:
    """Plays each game in a fresh worker process (:mod:`.worker`), as
    isolated from the others as a process makes it (its own folder, seat
    hosts and players).  Workers are forked from one fork server that has
    imported the referee once (:mod:`.forkserver`; else each is a ``python
    -m referee.tournament.worker`` of its own).  What a game costs before
    its first step is paid while the game before it plays: the runner names
    the games that come next (:meth:`ahead`), and their workers are started
    then; each builds its game's folders, starts its seat hosts, sandboxes
    and persistent players (frozen, shown no board), and waits for ``go``,
    which :meth:`__call__` sends when the game's turn comes.

    A game's turn comes as soon as the game before it has played its last
    step, if it is the only one in play: what that one has left to do (write
    its result, reset or close its seat hosts, land its seats' files, exit:
    ~20-40 ms of wall time a game here) overlaps the next game's first
    steps instead of standing between the two, and the fork server tells the
    next game to go itself (:meth:`_chain`), without a round trip through
    this process.  The game before is still recorded only once its worker
    has exited, its folder whole."""

    STAGED = 2  # games set up ahead at most

    def __init__(self) -> None:
        self._launcher: ForkServer | Spawner | None = None
        self._live: set[int] = set()
        self._staged: dict[str, tuple[str, int, Path]] = {}  # key: (SPEC, worker, stderr file)
        self._went: dict[str, tuple[str, int, Path]] = {}  # staged games to go early (_chain)
        self._lock = threading.Lock()
        self._stopped = False
        self._interrupted = False  # stop(): Ctrl-C; a game that fails after it is no failure to show
        self._games: Path | None = None  # where the games' folders are

    def _start(self, spec_line: str, errors: Path) -> int:
        self._games = errors.parent
        if self._launcher is None:
            self._launcher = (ForkServer(errors.parent / ".forkserver.stderr.txt")
                              if forkserver.available() else Spawner())
        return self._launcher.start(spec_line, errors)

    @staticmethod
    def _errors_file(job: GameJob, spec: MatchSpec) -> Path:
        """Where the game's worker writes its output: hidden beside its folder."""
        return Path(spec.out).parent / f".{job.key}.stderr.txt"

    @classmethod
    def _errors(cls, job: GameJob, spec: MatchSpec) -> Path:
        errors = cls._errors_file(job, spec)
        errors.parent.mkdir(parents=True, exist_ok=True)
        return errors

    def ahead(self, job: GameJob, spec: MatchSpec, playing: Collection[str] = ()) -> bool:
        """Set ``job`` up now: it is a game to start soon (the planner says it
        is playable; a game set up and never played is called off at
        :meth:`close`, its folder removed).  False: no more now (enough games
        are set up), ask again later.

        ``playing``: the keys of the games the runner has handed to this
        player already.  A game told to go early (:meth:`_chain`) counts
        among those set up ahead until the runner hands it over, and not
        after, whether or not its thread has called yet: counted until that
        call, the next game was set up or not depending on which thread came
        first, and when not, the game after had none set up to go once it
        had played (~1 game in 5 of a series waited for the one before to
        exit, ~8 ms, and for its own set-up)."""
        text = spec_to_json(spec)
        with self._lock:
            if job.key in self._staged or job.key in self._went:  # (to go early: see _chain)
                return True
            went = sum(key not in playing for key in self._went)  # (a game to go early is still ahead)
            if self._stopped or len(self._staged) + went >= self.STAGED:
                return False
            errors = self._errors(job, spec)
            self._staged[job.key] = (text, self._start(text, errors), errors)
            return True

    def _worker(self, job: GameJob, spec: MatchSpec, errors: Path) -> int:
        """The game's worker, told to go: the one set up ahead for it, else a
        new one (given its SPEC and ``go`` at once)."""
        text = spec_to_json(spec)
        with self._lock:
            went = self._went.pop(job.key, None)
            if went is not None and went[0] == text:  # playing already (see _chain), or now
                assert self._launcher is not None
                self._launcher.go(went[1])  # (the game before may have ended without playing out)
                return went[1]
            if went is not None:  # not this game after all (never so: a game's SPEC follows from its key)
                self._abandon([went])
            staged = self._staged.pop(job.key, None)
            if staged is not None and staged[0] != text:  # not this game after all
                self._call_off([staged])
                staged = None
            ident = staged[1] if staged is not None else self._start(text, errors)
            assert self._launcher is not None
            self._launcher.go(ident)
            self._live.add(ident)
        return ident

    def _chain(self, ident: int) -> None:
        """If game ``ident`` is the only one in play, have the first game set
        up ahead (the runner's next, in the planner's order) go once it has
        played its last step: the fork server tells it to (``after``), as
        soon as its worker says so.  Were the runner to ask for another game
        first, both would play at once for a while; the one told to go is
        recorded when the runner asks for it (:meth:`_worker`)."""
        after = getattr(self._launcher, "after", None)  # a fork server's worker says when it has played
        with self._lock:
            if after is None or self._stopped or self._live != {ident} or not self._staged:
                return
            key = next(iter(self._staged))
            entry = self._staged.pop(key)
            after(ident, entry[1])
            self._live.add(entry[1])
            self._went[key] = entry

    def __call__(self, job: GameJob, spec: MatchSpec) -> dict[str, Any]:
        out = Path(spec.out)
        errors = self._errors(job, spec)
        ident = self._worker(job, spec, errors)
        assert self._launcher is not None
        try:
            self._chain(ident)
            code = self._launcher.wait(ident)
        finally:
            with self._lock:
                self._live.discard(ident)
        if code != 0:
            if self._interrupted:  # killed, or its own KeyboardInterrupt: the runner says it was interrupted
                errors.unlink(missing_ok=True)
                raise GameFailed(f"game {job.key}: interrupted")
            lines = errors.read_text(errors="replace").strip().splitlines() if errors.exists() else []
            if code is None:
                lines.append(f"its fork server ended: {self._launcher.why_gone()}")
            raise GameFailed(f"game {job.key}: the referee failed (exit {code}): "
                             f"{(lines or ['no output'])[-1][:200]} (full output: {errors})")
        errors.unlink()
        return load_result((out / "result.yaml").read_text(encoding="utf-8"))

    def _call_off(self, staged: list[tuple[str, int, Path]]) -> None:
        """End workers whose games were set up and not played: told by the
        end of their input, each closes its seats and removes its folder."""
        launcher = self._launcher
        if launcher is None:
            return
        for _, ident, _ in staged:
            launcher.off(ident)
        for _, ident, errors in staged:
            if launcher.wait(ident, timeout=30) is None:
                launcher.kill(ident)
                launcher.wait(ident, timeout=30)
            errors.unlink(missing_ok=True)

    def _abandon(self, went: list[tuple[str, int, Path]]) -> None:
        """End games told to go early that the runner did not ask for (it
        stopped): killed, their folders removed, as a game called off
        before its turn leaves none."""
        launcher = self._launcher
        if launcher is None:
            return
        for text, ident, errors in went:
            launcher.kill(ident)
            launcher.wait(ident, timeout=30)
            self._live.discard(ident)
            remove_tree(Path(json.loads(text)["out"]))
            errors.unlink(missing_ok=True)

    def close(self) -> None:
        """Call off the games set up ahead and not played; end the fork server."""
        with self._lock:
            self._stopped = True
            staged, self._staged = list(self._staged.values()), {}
            went, self._went = list(self._went.values()), {}
        self._abandon(went)
        self._call_off(staged)
        if self._launcher is not None:
            self._launcher.close()
        if self._games is not None:  # the warm seats' slots (each kept one is removed as its host ends)
            remove_tree(self._games / warmseats.SLOTS)

    def forget(self, job: GameJob, spec: MatchSpec) -> None:
        """Remove the output file of a game in play when the tournament was
        interrupted (its worker's KeyboardInterrupt traceback, or nothing):
        whatever its worker's thread saw first, the Ctrl-C or the worker's
        death by it, the game is lost, not a failure to look into."""
        self._errors_file(job, spec).unlink(missing_ok=True)

    def stop(self) -> None:
        """Ctrl-C: kill the games in play (see :meth:`forget`), then :meth:`close`."""
        with self._lock:
            self._stopped = True
            self._interrupted = True
            if self._launcher is not None:
                for ident in self._live:
                    self._launcher.kill(ident)
        self.close()


@dataclass
class Summary:
    plan: Plan
    standings: list[Standing]
    bracket: str | None
    games: int
    failure: str | None = None
    interrupted: bool = False


def open_output(config: TournamentConfig, resume: bool, log: TextIO | None = None,
                lock: OutputLock | None = None) -> dict[str, GameRecord]:
    """Lock the output folder (``lock``: see :mod:`.lock`; another run in it
    is refused before anything is read), check it against the config and
    load its journal (its lines that are no records named on ``log``).  A
    new folder is made, and its state written, here, before any game is set
    up: one that cannot be (a typo, a read-only disk) is one line that names
    it, not a traceback, and a start refused here leaves nothing behind."""
    out = config.out
    lock = lock or OutputLock(out, config.KIND, config.FOLDER)
    lock.take()
    try:
        _check_output(config, resume)
    except BaseException:  # (whatever it was: a start refused leaves nothing behind)
        lock.undo()
        raise

    def warn(message: str) -> None:
        if log is not None:
            print(f"referee: warning: {message}", file=log)

    return {r.key: r for r in Journal(out).load(warn)}


def _check_output(config: TournamentConfig, resume: bool) -> None:
    """The folder's state against the config, or a new folder's state written."""
    out = config.out
    state_path = out / STATE_FILE
    fingerprint = json.loads(json.dumps(config.fingerprint()))
    if state_path.exists():
        if not resume:
            raise InputError(f"{out} already holds a {config.KIND}: add --resume to finish it, "
                             f"or {config.ELSEWHERE}")
        state = _saved_state(state_path, config)
        saved = state["config"]
        changed = [key for key in fingerprint if saved.get(key) != fingerprint[key]]
        if changed:
            raise InputError(config.changed_text(changed))
        _check_programs(config, state.get("programs"))
    else:
        _start_output(config, {"referee": __version__, "config_file": str(config.path),
                               "config": fingerprint, "key": config.key, "programs": config.programs()})


def _check_programs(config: TournamentConfig, saved: Any) -> None:
    """Refuse a resume if an entrant's program file changed since the start
    (its content; see :meth:`TournamentConfig.programs`), as for any other
    change that decides the games: its games so far were played by the old
    version.  A state without the record (written by an older referee) has
    nothing to compare."""
    if not isinstance(saved, dict):
        return
    now = config.programs()
    for entrant in config.entrants:
        before = saved.get(entrant.name)
        after = now.get(entrant.name, {})
        if not isinstance(before, dict):
            continue
        for path in sorted(set(before) | set(after)):
            if before.get(path) != after.get(path):
                raise InputError(config.changed_program_text(entrant.name, path))


def _saved_state(state_path: Path, config: TournamentConfig) -> dict[str, Any]:
    """The output folder's state file: what the run was started with (its
    ``config`` object, checked to be one); a one-line error if it cannot say
    (edited, or cut short by a full disk)."""
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(state_path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x})", str(state_path)) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg}); this {config.KIND} cannot be resumed: {config.ELSEWHERE}",
                         str(state_path), exc.lineno, exc.colno) from None
    except (ValueError, RecursionError) as exc:  # an integer past Python's digit limit; deep nesting
        raise InputError(f"not JSON that can be read ({visible(str(exc), lines=False)[:100]}); this "
                         f"{config.KIND} cannot be resumed: {config.ELSEWHERE}", str(state_path)) from None
    saved = state.get("config") if isinstance(state, dict) else None
    if not isinstance(saved, dict):
        raise InputError(f"not the state of a {config.KIND} (no 'config' object); it cannot be "
                         f"resumed: {config.ELSEWHERE}", str(state_path))
    return state


def _start_output(config: TournamentConfig, state: dict[str, Any]) -> None:
    """Write a new output folder's state file (the folder is made by its
    lock, and removed again by :meth:`OutputLock.undo` if this fails), or say
    in one line why not."""
    out = config.out
    try:
        files.write_text(out / STATE_FILE, json.dumps(state, indent=1) + "\n")
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(out) else ""
        raise InputError(f"cannot write the {config.FOLDER} {out}: {exc.strerror or exc}{where}") from None


def clear_unfinished(out: Path, records: Iterable[GameRecord]) -> None:
    """Remove the game folders no trusted record holds: what an interrupted
    run left, each to be played again from scratch.  A game's own
    ``--replace`` refuses a folder without match.yaml, and an interrupted
    run can leave one: a worker set up ahead that Ctrl-C reached while it
    removed its called-off folder, then killed by the runner half-way."""
    kept = {record.folder for record in records}
    with contextlib.suppress(OSError):
        for entry in sorted((out / "games").iterdir()):
            if not entry.name.startswith(".") and f"games/{entry.name}" not in kept:
                remove_tree(entry)


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

    def spec(self, job: GameJob) -> MatchSpec:
        config = self.config
        return match_spec(config, job.seats, config.boards[job.board], job.seed,
                          config.out / f"games/{job.key}")

    def record(self, job: GameJob, play: Play) -> GameRecord:
        folder = f"games/{job.key}"
        spec = self.spec(job)
        start = time.monotonic()
        try:
            result = play(job, spec)
        except GameFailed:
            raise
        except Exception as exc:  # a referee bug in one game must not lose the others' records
            raise GameFailed(f"game {job.key}: {type(exc).__name__}: {exc}") from exc
        return GameRecord.from_result(job, result, folder, round(time.monotonic() - start, 3))

    def run(self, jobs: int, resume: bool, play: Play | None = None,
            log: TextIO = sys.stderr, check=doubt, lock: OutputLock | None = None) -> Summary:
        """Play the tournament; ``check`` judges a resumed journal's records
        (:func:`doubt`; the planner's tests, whose fake games leave no
        folders, trust them all).  The output folder is locked for the whole
        run, reports included (``lock``: one the caller holds already, and
        releases itself)."""
        own = lock is None
        lock = lock or OutputLock(self.config.out, self.config.KIND, self.config.FOLDER)
        try:
            return self._run(jobs, resume, play, log, check, lock)
        finally:
            if own:
                lock.release()

    def _run(self, jobs: int, resume: bool, play: Play | None, log: TextIO, check,
             lock: OutputLock) -> Summary:
        records = self.trusted(open_output(self.config, resume, log, lock), log, check)
        if resume:
            clear_unfinished(self.config.out, records.values())
        journal = Journal(self.config.out)
        play = play or WorkerPlay()
        progress = Progress(log, len(records))
        running: dict[Future, GameJob] = {}
        unjournaled: list[GameRecord] = []  # finished, counted, not yet on disk
        failure: str | None = None
        failed: str | None = None  # the key of the game ``failure`` is about (its output file is named)
        handed: dict[str, GameJob] = {}  # the games handed to ``play`` and not recorded (yet)
        interrupted = False
        pool = ThreadPoolExecutor(max_workers=jobs)
        try:
            while True:
                plan = self.planner.plan(records)
                started = {job.key for job in running.values()}
                for job in plan.pending:
                    if failure is None and len(running) < jobs and job.key not in started:
                        handed[job.key] = job  # (first: a Ctrl-C in submit must not hide it)
                        running[pool.submit(self.record, job, play)] = job
                        started.add(job.key)
                # Journaled once the next games are on their way: its fsync
                # (~4-12 ms here) no longer stands between one game and the
                # next.  A kill before it loses those games, as any in play.
                self._journal(journal, unjournaled)
                if not running:
                    break
                if failure is None and hasattr(play, "ahead"):  # set up while these play
                    for coming in (job for job in plan.pending if job.key not in started):
                        if not play.ahead(coming, self.spec(coming), started):
                            break
                progress.tick(len(records), max(plan.expected_games, len(records)))
                finished, _ = wait(running, timeout=1.0, return_when=FIRST_COMPLETED)
                for future in finished:
                    job = running.pop(future)
                    try:
                        record = future.result()
                    except GameFailed as exc:
                        if failure is None:
                            failed = job.key
                            failure = str(exc)
                        continue
                    unjournaled.append(record)
                    records[job.key] = record
                    handed.pop(job.key, None)
                    last = visible(f"{job.key}: {result_text(record, self.config.names)}", lines=False)
                    progress.update(len(records), max(plan.expected_games, len(records)), last)
        except KeyboardInterrupt:
            interrupted = True
            if hasattr(play, "stop"):  # WorkerPlay, DaskPlay: games in flight are lost anyway
                play.stop()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            if isinstance(play, WorkerPlay):  # the games it set up ahead and did not play
                play.close()
                if interrupted:  # the games in play, lost: their workers' output is no news
                    for job in handed.values():  # whatever their threads saw first
                        if job.key != failed:
                            play.forget(job, self.spec(job))
            progress.close()
            self._journal(journal, unjournaled)
        return self.report(records, failure, interrupted)

    @staticmethod
    def _journal(journal: Journal, records: list[GameRecord]) -> None:
        """Append finished games' records to the journal, in the order they
        finished (each fsync'd).  Each is taken off the list first: a Ctrl-C
        in its fsync must not have it written twice (once more at the end)."""
        while records:
            journal.append(records.pop(0))

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
