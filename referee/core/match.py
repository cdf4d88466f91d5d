"""The match loop: write each player's view, run it, judge, apply, log.

It knows no game by name: everything game-specific comes through the
:class:`referee.core.game.Game` protocol, and everything process-specific
through an :class:`referee.core.players.Agent`.  Every input is checked in
:func:`prepare` before the first player runs, so bad input costs nothing.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import os
import re
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Mapping

from referee import __version__
from .registry import get_game

from . import cgroups, files, sandbox as sandbox_mod, seats, settings as settings_mod, trees, views
from .errors import InputError
from .game import Game, GameState, Outcome, Setup
from .clock import SeatClock
from .later import Later
from .log import MatchFolder, state_hash
from .players import Agent, ProcessAgent, Reply, close_agents, land_seats, make_agent, start_seats
from .sandbox import Sandbox
from .textgrid import MAX_DECISION_CHARS, read_board_file
from .seatfiles import DECISION, VIEWS, SeatFolder, Spares
from .rng import chance_seed, derived_rng, match_key
from .runner import Limits, RunResult, unsupported_limits
from .verdicts import Verdict, describe_exit, process_fault
from .visible import visible

POLICIES = ("forfeit", "eject", "random")
DECISION_LOGGED = MAX_DECISION_CHARS  # a decision is logged whole up to the longest a codec accepts
OUTPUT_TAIL = 400  # characters of a step's stdout/stderr kept in its log record
SPARES = 3  # files made ahead for a step's creations (see seatfiles.Spares)
DISK_FULL_FREE = 256 * 1024  # bytes free on the match's disk below which it counts as full
DISK_FULL_INODES = 64  # inodes free on the match's disk below which it counts as full
DISK_FULL_GROWTH = 1 << 20  # a seat whose folder grew this much in a step that filled the disk filled it
DISK_FULL_NAMES = 256  # or whose folder has this many more names (files, links, folders)


class RefereeError(Exception):
    """A bug in the referee or a game's code stopped a match (never a player's
    fault).  The match folder keeps everything up to the failing step."""


class Cancelled(Exception):
    """A match set up ahead of its turn (see :func:`run_match`'s ``go``) was
    called off before its first step: no step was played."""


class MatchFolderError(Exception):
    """The match folder could not be written (disk full, permissions): one
    line for the user, exit code 4; the log holds only whole lines."""


@dataclass
class MatchSpec:
    """Everything that defines a match (the ``referee play`` options)."""

    game: str
    players: list[str]
    board: Path | None = None
    variant: str | None = None
    seed: int | None = None
    out: Path | None = None
    policy: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    limits: Mapping[str, Any] = field(default_factory=dict)
    names: list[str] | None = None
    quiet: bool = True
    color: bool = False
    replace: bool = False
    base_dir: Path = field(default_factory=Path.cwd)
    sandbox: str = "auto"  # auto | bwrap | none
    hidden: list[str] = field(default_factory=list)  # more folders players must not see
    key: str | None = None  # the secret of its chances (see rng.match_key); None: from the seed, or random
    pass_env: list[str] = field(default_factory=list)  # the referee's variables players get too
    browser: bool = True  # human:web opens a browser (False: --no-browser, the URL is printed)


@dataclass
class MatchResult:
    outcome: Outcome
    verdicts: dict[int, dict[str, int]]
    steps: int
    out: Path


@dataclass
class Prepared:
    """A checked, fully resolved match, ready to run."""

    game: Game
    spec: MatchSpec
    variant: str
    board_text: str | None
    board_source: str
    setup: Setup
    limits: Limits
    policy: str
    seed: int
    out: Path
    agents: list[Agent]
    names: list[str]
    sandbox: Sandbox = sandbox_mod.NONE
    key: str = ""  # the match's secret: its chances come from it (match.yaml, out of the players' reach)

    @property
    def chance(self) -> int:
        return chance_seed(self.key)


def default_out(game: str, seed: int, root: Path, kind: str = "") -> Path:
    """``root/<game>[-<kind>]-<date>-<seed>``, with ``-2``, ``-3``... if taken."""
    stem = f"{game}{'-' + kind if kind else ''}-{_dt.date.today().isoformat()}-{seed}"
    out, n = root / stem, 1
    while out.exists():
        n += 1
        out = root / f"{stem}-{n}"
    return out


def prepare(spec: MatchSpec) -> Prepared:
    """Resolve and check every input; InputError (one line) on the first problem."""
    game = get_game(spec.game)
    n = len(spec.players)
    if n not in game.player_counts:
        counts = ", ".join(map(str, game.player_counts))
        raise InputError(f"{game.name} is played by {counts} players, got {n} --player option(s)")
    variant = spec.variant or game.variants[0]
    if variant not in game.variants:
        raise InputError(f"unknown variant {variant!r} for {game.name}; choose one of: {', '.join(game.variants)}")
    game_settings, limit_values = settings_mod.split(spec.settings, game)
    for key in game.file_settings:
        if game_settings.get(key):
            path = Path(spec.base_dir, str(game_settings[key]))
            if not path.is_file():
                raise InputError(f"setting {key}: no such file", str(path))
            game_settings[key] = str(path.resolve())
    limits = settings_mod.resolve_limits(game, {**limit_values, **dict(spec.limits)})
    policy = spec.policy or game.default_policy(n)
    if policy not in POLICIES:
        raise InputError(f"unknown fault policy {policy!r}; choose one of: {', '.join(POLICIES)}")
    if spec.board is not None:
        path = Path(spec.board)
        board_text = read_board_file(path)  # bounded; a bad byte named by line and column
        board_source = str(path)
    else:
        board_text = game.default_board_text(variant, n)
        board_source = "<default>"
    board = game.parse_board(board_text, board_source, variant) if board_text is not None else None
    key = spec.key or match_key(spec.seed)
    seed = spec.seed if spec.seed is not None else secrets.randbelow(2**31)
    setup = Setup(variant=variant, players=n, seed=chance_seed(key), board=board, settings=game_settings)
    game.initial_state(setup)  # settings a game rejects fail here, before any output
    names = list(spec.names) if spec.names else list(spec.players)
    if len(names) != n:
        raise InputError(f"{len(names)} names given for {n} players")
    agents = [make_agent(p, game, limits, spec.base_dir, spec.color, spec.browser) for p in spec.players]
    out = Path(spec.out) if spec.out else default_out(game.name, seed, spec.base_dir / "step_logs")
    files.check_folder(out)
    if out.exists() and any(out.iterdir()):
        if not spec.replace:
            raise InputError(f"output folder {out} exists and is not empty (use --replace to overwrite)")
        if not (out / "match.yaml").is_file():
            raise InputError(f"output folder {out} is not a match folder; --replace only replaces those")
        if not trees.remove_tree(out):
            raise InputError(f"output folder {out} could not be removed whole "
                             "(what was left is named .referee-trash-*)")
    sandbox = sandbox_mod.resolve(spec.sandbox) if any(
        isinstance(a, ProcessAgent) for a in agents) else sandbox_mod.NONE
    if sandbox.on and not seats.available():
        sandbox = sandbox_mod.Sandbox("none", None, "running players without a sandbox: "
                                      "the sandbox needs the seat host, which REFEREE_RUNNER turned off")
    return Prepared(game, spec, variant, board_text, board_source, setup, limits, policy,
                    seed, out, agents, names, sandbox, key)


class Observer:
    """Receives progress; the default prints nothing (``--quiet``)."""

    def start(self, match: Prepared, state: GameState) -> None: ...

    def step(self, match: Prepared, record: dict[str, Any], state: GameState) -> None: ...

    def deciding(self, match: Prepared, step: int, player: int, limits: Limits) -> None:
        """A player program's step is handed over (a person's is not): its
        :meth:`step` follows when it is judged."""

    def over(self, match: Prepared) -> None:
        """The last step is played and logged (the result is still to be written)."""

    def finish(self, match: Prepared, result: MatchResult) -> None: ...


def run_match(spec: MatchSpec, observer: Observer | None = None,
              go: Callable[[], bool] | None = None) -> MatchResult:
    """Play one match to the end and write its folder.  ``go``, if given, is
    asked once everything before the first step is done (folders, seat hosts
    and sandboxes, persistent players started and frozen) and before any
    player has seen the board or any clock runs: a series sets its next game
    up while the one before it plays.  False: :class:`Cancelled` is raised
    (the seats are closed; the folder is the caller's to remove)."""
    return Match(prepare(spec), observer or Observer()).run(go)


class Match:
    def __init__(self, prepared: Prepared, observer: Observer) -> None:
        self.p = prepared
        self.game = prepared.game
        self.observer = observer
        self.folder = MatchFolder(prepared.out)
        n = prepared.setup.players
        self.status = {pid: "active" for pid in range(1, n + 1)}
        self.verdicts = {pid: {v.value: 0 for v in Verdict} for pid in range(1, n + 1)}
        self.history = views.History()
        self.states: list[GameState] = []
        self._shared: dict[int, str] = {}  # (see _snapshot)
        self.clocks = {pid: SeatClock(prepared.limits) for pid in range(1, n + 1)}
        self.disk_used = {pid: 0 for pid in range(1, n + 1)}  # bytes, at each seat's last check
        self.disk_entries = {pid: 0 for pid in range(1, n + 1)}  # names in its folder, then
        self.spares = Spares(prepared.out / "players")
        # The seat folders by their real path: the sandbox shows a seat's
        # folder there, and its host, HOME and the player are told it (an
        # --out through a link or a `..` was "cannot enter the seat folder").
        self.seat_root = prepared.out.resolve()
        self.seats = {pid: SeatFolder(self.seat_root, pid, check_snapshots=not prepared.sandbox.on,
                                      spares=self.spares)
                      for pid in range(1, n + 1)}
        self.facts = views.MatchFacts(prepared.game, prepared.variant, prepared.chance,
                                      prepared.names, prepared.limits)
        self.later = Later(threaded=seats.available())

    # ----- setup
    def _match_yaml(self, initial: GameState) -> dict[str, Any]:
        p = self.p
        return {
            "game": self.game.name,
            "variant": p.variant,
            "board": {"source": p.board_source, "file": "board.txt" if p.board_text is not None else None,
                      "sha256": MatchFolder.text_hash(p.board_text) if p.board_text is not None else None},
            "players": [{"id": i, "name": name, "command": getattr(a, "argv", a.name),
                         **({"persistent": True} if getattr(a, "persistent", False) else {})}
                        for i, (name, a) in enumerate(zip(p.names, p.agents), start=1)],
            "seed": p.seed,
            "key": p.key,
            "policy": p.policy,
            "settings": dict(p.setup.settings),
            "limits": p.limits.to_json(),
            "limits_not_enforced": unsupported_limits(p.limits),
            "limits_enforced": cgroups.enforcement(p.sandbox.on, seats.available()),
            "sandbox": p.sandbox.kind,
            "initial_hash": state_hash(self.game, initial),
            "referee": __version__,
            "python": sys.version.split()[0],
            "platform": sys.platform,
        }

    def run(self, go: Callable[[], bool] | None = None) -> MatchResult:
        """Play the match; MatchFolderError (one line) if its folder cannot be
        written, RefereeError for a bug in game code, Cancelled if ``go``
        (see :func:`run_match`) says no.  Every seat host is closed, whatever
        happens."""
        try:
            return self._run(go)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise MatchFolderError(f"cannot write the match folder {self.p.out}: "
                                   f"{exc.strerror or exc}{where}") from None
        finally:
            try:
                close_agents(self.p.agents)
                self.later.close()
                for seat in self.seats.values():
                    seat.close()
                self.spares.close()
                self.folder.close()
            finally:
                land_seats(self.p.agents)  # warm seats' files into this folder, last

    def _run(self, go: Callable[[], bool] | None) -> MatchResult:
        p, game = self.p, self.game
        state = game.initial_state(p.setup)
        match_yaml = self._match_yaml(state)
        self.folder.create(match_yaml, p.board_text)
        copied = self.folder.keep_inputs({k: p.setup.settings[k] for k in game.file_settings
                                          if p.setup.settings.get(k)})
        if copied:
            match_yaml["settings"].update(copied)
            self.folder.write_match_yaml(match_yaml)
        self.states.append(state)
        self.folder.write_snapshot(0, self._snapshot(0, None))
        hidden = [p.out, *map(Path, p.spec.hidden), *self._match_roots()]
        first = state.current_player()
        self.later.submit(None, lambda: self.spares.make(SPARES))  # each seat's first views
        for pid, agent in enumerate(p.agents, start=1):
            home = self.folder.seat_dir(pid)  # the seat host binds it; the board goes in only after go
            warm = self._warm_seat(agent, pid, home)
            if first is not None and pid != first and not state.is_terminal():
                self.seats[pid].reserve_snapshot(1)  # see _after
            if isinstance(agent, ProcessAgent):
                agent.attach(self.seats[pid], p.sandbox, hidden if warm is None or warm.slot is None
                             else self._warm_hidden(), p.spec.pass_env, warm)
        # The worker thread started and its first jobs done while the seat
        # hosts start, not at step 1's hand-over: on a busy machine the
        # thread's start alone held the first player's reply for tens of ms.
        self.later.go()
        start_seats([(agent, self.clocks[pid].step_limits()) for pid, agent in enumerate(p.agents, start=1)
                     if isinstance(agent, ProcessAgent)])
        self.later.wait()
        if go is not None and not go():
            raise Cancelled(f"match {p.out} called off before its first step")
        for pid, seat in self.seats.items():  # the board, each seat's view of it (snapshot 0)
            seat.add_snapshots(lambda k, pid=pid: self._snapshot(k, pid), 1)
        for pid, agent in enumerate(p.agents, start=1):
            started = getattr(agent, "match_started", None)  # a browser seat serves its page now
            if started is not None:
                started(p.out, pid)
        for warning in self._warnings():
            print(f"referee: warning: {warning}", file=sys.stderr)
        self.observer.start(p, state)
        step = 0
        forfeit: tuple[int, Verdict | None] | None = None
        try:
            while not state.is_terminal() and forfeit is None:
                player = state.current_player()
                if player is None:
                    break
                step += 1
                state, record, forfeit = self._step(step, player, state)
                self.states.append(state)
                record["scores"] = views.scores_json(state)
                self.later.submit(None, lambda record=dict(record), state=state: self._log(record, state))
                self._after(step, player, state, forfeit is None)
                self.observer.step(p, record, state)
            self.later.wait()
            self.observer.over(p)
            outcome = forfeit_outcome(state, self.status, *forfeit) if forfeit else state.outcome()
        except OSError:
            raise
        except Exception as exc:  # a bug in game code: keep the log, say where, stop cleanly
            raise self._internal_error(step, exc) from exc
        result = MatchResult(outcome, self.verdicts, step, p.out)
        self.folder.write_result(self._result_yaml(result, state))
        self.observer.finish(p, result)
        return result

    def _log(self, record: dict[str, Any], state: GameState) -> None:
        """Log a step, with its state's hash: one of the writes a step leaves
        (see :mod:`referee.core.later`), done in order with the others.  A
        match that stops on an error still logs what was played (see
        :meth:`_internal_error`, :meth:`Later.close`)."""
        record["hash"] = state_hash(self.game, state)
        self.folder.append_log(record)

    def _match_roots(self) -> list[Path]:
        """The folders that hold a player's other matches, hidden as this
        one is: the default ``step_logs/`` (of the folder the referee runs
        from, and the one this match is in).  Run from a bot's own folder,
        its earlier matches are inside the program's folder, which the
        sandbox shows: their ``match.yaml`` (with a given seed, this match's
        key), logs and snapshots were the player's to read."""
        roots = {self.p.spec.base_dir / "step_logs"}
        if self.p.out.parent.name == "step_logs":
            roots.add(self.p.out.parent)
        return sorted(root for root in roots if root.is_dir())

    def _warm_hidden(self) -> list[Path]:
        """What a warm seat's sandbox hides: the series' folder (the games'
        folders are in it; a game's own would differ from game to game) and
        the folders of other matches (:meth:`_match_roots`)."""
        return [*map(Path, self.p.spec.hidden), *self._match_roots()]

    def _warm_seat(self, agent: Agent, pid: int, home: Path) -> "seats.WarmSeat | None":
        """A series' seat kept warm across its entrant's games (see
        :mod:`.warmseats`), where this game is one of a fork server's and
        its folder is inside the hidden series folder; then the seat's
        folder is the warm seat's slot (its files land in ``home`` at the
        end)."""
        p = self.p
        hidden = self._warm_hidden()
        if not isinstance(agent, ProcessAgent) or not any(
                p.out.resolve().is_relative_to(Path(folder).resolve()) for folder in p.spec.hidden):
            return None
        warm = agent.warm_seat(p.sandbox, hidden, p.spec.pass_env, self.clocks[pid].step_limits(),
                               self.seat_root.parent, home)  # its slots too by their real path
        if warm is not None and warm.slot is not None:
            self.seats[pid].close()
            self.seats[pid] = SeatFolder(self.seat_root, pid, check_snapshots=not p.sandbox.on,
                                         spares=self.spares, folder=warm.slot)
        return warm

    def _after(self, step: int, player: int, state: GameState, goes_on: bool) -> None:
        """What step ``step`` leaves to write, done while the next player runs
        (see :mod:`referee.core.later`): its snapshot in the match folder, and
        in every seat but the next player's (whose step writes it); the
        player's decision file removed.  The next player's own folder is
        written by its step, in line."""
        following = state.current_player() if goes_on and not state.is_terminal() else None
        self.later.submit(None, lambda: self.folder.write_snapshot(step, self._snapshot(step, None)))
        if following is not None:
            self.later.submit(None, lambda: self.spares.make(SPARES))
        for pid, seat in self.seats.items():
            if pid == following:
                continue
            view = (lambda k, pid=pid: self._snapshot(k, pid))
            self.later.submit(pid, lambda seat=seat, view=view: seat.add_snapshots(view, step + 1))
            if pid == player:
                self.later.submit(pid, seat.forget_decision)
            if following is not None:  # the next step's snapshot, created empty (see SeatFolder)
                self.later.submit(pid, lambda seat=seat: seat.reserve_snapshot(step + 1))

    def _internal_error(self, step: int, exc: Exception) -> "RefereeError":
        import traceback

        report = self.p.out / "referee-error.txt"
        files.write_text(report, "".join(traceback.format_exception(exc)))
        with contextlib.suppress(Exception):  # the steps played are logged before the result names the last
            self.later.wait()
        self.folder.write_result({"game": self.game.name, "winner": None, "ranking": [],
                                  "scores": None, "reason": f"referee error at step {step}: {exc!r}",
                                  "steps": step - 1, "verdicts": self.verdicts,
                                  "last_hash": self.folder.last_hash})
        return RefereeError(f"internal error at step {step} ({exc!r}); the log up to step "
                            f"{step - 1} is kept, details in {report}")

    def _warnings(self) -> list[str]:
        missing = unsupported_limits(self.p.limits)
        warnings = [f"limits not enforced on this platform: {', '.join(missing)}"] if missing else []
        if self.p.sandbox.warning:
            warnings.append(self.p.sandbox.warning)
        if not seats.available() and any(getattr(a, "persistent", False) and not getattr(a, "for_speed", False)
                                         for a in self.p.agents):
            warnings.append("persistent players are started afresh every step here "
                            "(they need a seat host: Linux, REFEREE_RUNNER unset)")
        return warnings

    # ----- one step
    def _step(self, step: int, player: int, state: GameState):
        p = self.p
        kind = state.step_kind()
        record: dict[str, Any] = {"step": step, "player": player, "kind": kind}
        auto = state.auto_decision()
        if auto is not None:
            self._count(player, Verdict.OK)
            record.update(decision=None, verdict=Verdict.OK.value, auto=True, wall_ms=0, cpu_ms=0, peak_kb=0)
            return self._apply(step, player, state, auto, record)
        seat, clock, agent = self.seats[player], self.clocks[player], p.agents[player - 1]
        step_limits = clock.step_limits()
        process = isinstance(agent, ProcessAgent)
        kept = process and agent.persistent
        if kept:
            self.later.stale()  # (see Later.until)
        self._write_player_files(seat, step, player, state, clock)
        repaired = seat.take_repairs()
        if repaired:
            record["repaired"] = repaired
        # What the one about to decide can reach: its own folder from its
        # sandbox, else (the same user, or a person at the keyboard) any.
        # Looked at again after it ran: a look made meanwhile (a write left
        # for later, see core.later) may have come before its change.
        reachable = (seat,) if p.sandbox.on and process else tuple(self.seats.values())
        for folder in reachable:
            folder.may_have_changed()
        if process:
            agent.limits = step_limits
            agent.meanwhile = self.later.until if kept else self.later.go  # the last step's writes, while it runs
            self.observer.deciding(p, step, player, step_limits)
        else:
            self.later.go()
        reply = agent.decide(seat.path, step, player, state)
        for folder in reachable:
            folder.may_have_changed()
        run = reply.run
        charge = clock.charge(run.wall_s)
        if charge is not None:
            run.timed_out = run.timed_out or charge.ran_out
            record["bank_ms"] = round(charge.left * 1000, 1)
            if charge.grace_used:
                record["grace_ms"] = round(charge.grace_used * 1000, 1)
        if reply.resigned:
            return self._resign(step, player, state, record, run)
        disk = self._disk_fault(player, seat, step_limits) if process else None
        if disk:
            verdict, message, decision = Verdict.DISK_LIMIT, disk, None
            agent.restart()  # a kept-alive player would keep its open files' space
        else:
            verdict, message, decision = self._judge(reply, state, step_limits)
        if charge is not None and verdict is Verdict.TIMEOUT and charge.ran_out:
            message = (f"its time bank ran out: {charge.allowed:.3f} s left, took "
                       f"{run.wall_s:.3f} s (grace {step_limits.grace:g} s)")
        if reply.text is not None and len(reply.text) > DECISION_LOGGED:
            record["decision_cut"] = True
        if reply.problem:
            record["file_problem"] = True
        record.update(decision=None if reply.text is None else reply.text[:DECISION_LOGGED],
                      wall_ms=round(run.wall_s * 1000, 1), cpu_ms=round(run.cpu_s * 1000, 1),
                      peak_kb=run.peak_kb, exit=run.exit_code if run.signal is None else -run.signal)
        if run.orphans_killed:
            record["orphans_killed"] = run.orphans_killed
        # What the runner saw that the verdict does not say (forks a control
        # group refused, a limit the portable runner sampled, a host that
        # stopped answering): a student reading a CRASH needs it.
        notes = [note for note in run.notes if note != "started"]
        if notes:
            record["notes"] = notes
        if run.started_s is not None:  # started before the match: not in wall_ms
            record["start_ms"] = round(run.started_s * 1000, 1)
        for key, tail in (("stdout", run.stdout_tail), ("stderr", run.stderr_tail)):
            if tail:
                record[key] = tail[-OUTPUT_TAIL:]
        self._count(player, verdict)
        record["verdict"] = verdict.value
        if message:
            record["message"] = f"step {step}, player {player}: {verdict.value}: {message}"
        if verdict.counts:
            return self._apply(step, player, state, decision, record)
        return self._fault(step, player, state, verdict, record)

    def _apply(self, step: int, player: int, state: GameState, decision: Hashable,
               record: dict[str, Any]):
        new_state, events = state.apply(player, decision)
        record.update(applied=str(decision), events=events)
        self.history.append({"step": step, "player": player, "decision": str(decision)})
        return new_state, record, None

    def _judge(self, reply: Reply, state: GameState,
               limits: Limits) -> tuple[Verdict, str | None, Hashable | None]:
        fault = process_fault(reply.run, limits)
        if fault:
            written = ("; it had written decision.txt, but a program must exit (a persistent one: "
                       "print done and flush its output, e.g. print('done', flush=True)) within the limit: "
                       "a killed program's decision does not count")
            return fault[0], fault[1] + (written if reply.text is not None else ""), None
        if reply.problem:
            return Verdict.MALFORMED, reply.problem, None
        if reply.text is None:
            if reply.run.failed:
                return (Verdict.CRASH, f"{describe_exit(reply.run)} without writing decision.txt"
                        + _tail(reply) + (_misnamed(reply) or _elsewhere(reply) or _path_hint(reply)
                                          or (_module_hint(reply) if self.p.sandbox.on else "")), None)
            return (Verdict.NO_DECISION, "the program exited without writing decision.txt"
                    + (_misnamed(reply) or _elsewhere(reply) or _printed(reply)), None)
        raw = reply.text.strip()
        try:
            decision = self.game.parse_decision(state, reply.text)
        except Exception as exc:  # DecisionError; a game bug must not kill the match either
            if not raw.lstrip("\ufeff"):  # what the codec says of nothing is less plain than this
                help_text = self.game.decision_help
                failed = f"; then the program failed: {describe_exit(reply.run)}{_tail(reply)}"
                return (Verdict.MALFORMED, "decision.txt is empty" + (f" (expected {help_text})" if help_text else "")
                        + (failed if reply.run.failed else ""), None)
            return Verdict.MALFORMED, f"{raw[:80]!r}: {exc}" + self._hint(str(exc)), None
        reason = state.illegal_reason(decision)
        if reason:
            return Verdict.ILLEGAL, f"{raw[:80]!r}: {reason}" + self._legal_hint(state), None
        if reply.run.wall_s > limits.soft_time and not reply.human:
            return Verdict.LATE, f"took {reply.run.wall_s:.2f} s, soft limit {limits.soft_time:g} s", decision
        return Verdict.OK, None, decision

    def _disk_fault(self, player: int, seat: SeatFolder, limits: Limits) -> str | None:
        """Why the seat's step is DISK_LIMIT, or None: its folder holds more
        than ``disk_mb``, or the disk is full and its folder grew by more
        than :data:`DISK_FULL_GROWTH` in this step.  Then the folder is
        emptied (see :meth:`SeatFolder.clear`), so that the match and the
        disk go on; what it held is named in the message."""
        budget = int(limits.disk_mb * 1024 * 1024) if limits.disk_mb else None
        if budget is None and _disk_full(seat.path) is None:  # no budget: only a full disk matters
            return None
        usage = seat.usage(budget)
        before, self.disk_used[player] = self.disk_used[player], usage.bytes
        names, self.disk_entries[player] = self.disk_entries[player], usage.entries
        largest = (f"; the largest file: {visible(usage.largest[0])} "
                   f"({usage.largest[1] / 2**20:.1f} MiB)") if usage.largest[1] >= 1 << 16 else ""
        if usage.over:
            why = (f"its folder holds more than its disk budget of {limits.disk_mb:g} MiB "
                   f"(disk_mb){largest}")
        else:
            # (the folder's growth first: a look at the disk is a statvfs a step)
            # (hard links take an inode each on some file systems, tmpfs's, but
            # no space once counted: their names count)
            grew = usage.bytes - before >= DISK_FULL_GROWTH or usage.entries - names >= DISK_FULL_NAMES
            free = _disk_full(seat.path) if grew else None
            if free is None:
                return None
            why = (f"the disk filled up during its step ({free}); its folder "
                   f"grew by {(usage.bytes - before) / 2**20:.1f} MiB"
                   + (f" ({usage.entries} files and folders)" if "inodes" in free else "") + largest)
        seat.clear()
        self.disk_used[player] = self.disk_entries[player] = 0
        return why + "; its folder was emptied"

    def _hint(self, message: str = "") -> str:
        """The decision format, unless the codec's message already says what
        was expected (then it would be said twice)."""
        help_text = self.game.decision_help
        if not help_text or help_text in message or "expected" in message.lower():
            return ""
        return f" (expected {help_text})"

    @staticmethod
    def _legal_hint(state: GameState) -> str:
        legal = list(state.legal_decisions())
        if 0 < len(legal) <= 8:
            return "; legal: " + ", ".join(map(str, legal))
        return f"; {len(legal)} legal moves"

    def _fault(self, step: int, player: int, state: GameState, verdict: Verdict,
               record: dict[str, Any]):
        policy = self.p.policy
        if policy == "random":
            legal = list(state.legal_decisions())
            if legal:
                record["fault"] = "random"
                choice = derived_rng(self.p.chance, "random-policy", step).choice(legal)
                return self._apply(step, player, state, choice, record)
        if policy in ("eject", "random"):
            try:
                new_state, events = state.eject(player)
            except NotImplementedError:
                pass
            else:
                self.status[player] = "ejected"
                record.update(fault="eject", applied=None, events=events)
                return new_state, record, None
        self.status[player] = "forfeited"
        record.update(fault="forfeit", applied=None, events=[{"type": "forfeit", "player": player}])
        return state, record, (player, verdict)

    def _resign(self, step: int, player: int, state: GameState, record: dict[str, Any],
                run: RunResult):
        """A human resigned (quit, Ctrl-C): the match ends, the others win.
        Logged as a forfeit marked ``resigned``, verdict RESIGNED (verify
        accepts it from a human seat only)."""
        self._count(player, Verdict.RESIGNED)
        self.status[player] = "resigned"
        record.update(decision=None, wall_ms=round(run.wall_s * 1000, 1), cpu_ms=0, peak_kb=0,
                      verdict=Verdict.RESIGNED.value, resigned=True,
                      message=f"step {step}, player {player} resigned", fault="forfeit",
                      applied=None, events=[{"type": "resign", "player": player}])
        return state, record, (player, None)

    def _count(self, player: int, verdict: Verdict) -> None:
        self.verdicts[player][verdict.value] += 1

    # ----- the player's private folder
    def _write_player_files(self, seat: SeatFolder, step: int, player: int, state: GameState,
                            clock: SeatClock) -> None:
        """The seat's view before its step, written as if its folder were
        hostile (see seatfiles): links replaced, never followed; old snapshots
        someone changed written again; any old decision removed."""
        facts = self.facts
        self.later.wait(player)
        board = (self._snapshot(step - 1, player) if self.game.shared_views and _board_is_snapshot(self.game)
                 else views.board_view(facts, state, player))
        seat.write_views(
            {"Board.txt": board,
             "state.json": views.state_view(facts, state, step, player, self.status, self.history,
                                            clock_view(clock))},
            snapshot_text=lambda k: self._snapshot(k, player), upto=step)

    def _snapshot(self, k: int, viewer: int | None) -> str:
        """Step ``k``'s snapshot as ``viewer`` sees it (None: the match
        folder's).  Where the game's views are shared (``Game.shared_views``)
        each state's text is made once for every seat and the match folder:
        the last few are kept (a step's writes may wait one more step, see
        core.later)."""
        if not self.game.shared_views:
            return views.snapshot_view(self.facts, self.states[k], viewer)
        text = self._shared.get(k)
        if text is None:
            text = self._shared[k] = self.game.snapshot_text(self.states[k], None)
            self._shared.pop(k - 4, None)
        return text

    def _result_yaml(self, result: MatchResult, state: GameState) -> dict[str, Any]:
        outcome = result.outcome.to_json()
        return {
            "game": self.game.name,
            "variant": self.p.variant,
            "winner": outcome["winner"],
            "ranking": outcome["ranking"],
            "scores": outcome["scores"],
            "reason": outcome["reason"],
            "steps": result.steps,
            "players": {pid: {"name": self.p.names[pid - 1], "status": s} for pid, s in self.status.items()},
            "verdicts": {pid: counts for pid, counts in self.verdicts.items()},
            "final_hash": state_hash(self.game, state),
            "last_hash": self.folder.last_hash,
        }


def _board_is_snapshot(game: Game) -> bool:
    """Whether ``Board.txt`` is the snapshot's text (the game keeps the
    default ``snapshot_text``)."""
    return getattr(type(game).snapshot_text, "__func__", type(game).snapshot_text) is Game.snapshot_text


def _disk_full(path: Path) -> str | None:
    """What ``path``'s disk has left if it counts as full, else None: under
    :data:`DISK_FULL_FREE` bytes, or under :data:`DISK_FULL_INODES` inodes
    (a player that makes thousands of empty files fills a disk whose bytes
    are mostly free, and the referee's next file could not be made: the
    match was voided)."""
    try:
        disk = os.statvfs(path)
    except OSError:
        return None
    free = disk.f_bavail * disk.f_frsize
    if free < DISK_FULL_FREE:
        return f"{free / 2**20:.1f} MiB free"
    if disk.f_files and disk.f_favail < DISK_FULL_INODES:  # (0 files: a file system without a count)
        return f"{disk.f_favail} inodes free"
    return None


_PY_FRAME = re.compile(r'^\s*File "([^"\n]+)", line (\d+)', re.MULTILINE)


_NODE_ERROR = re.compile(r"^(?:[A-Za-z]*Error|Uncaught \w+)\b.*")
_NODE_FRAME = re.compile(r"^\s+at .*?\(?(/[^():]+|[A-Za-z]:\\[^():]+):(\d+):\d+\)?$", re.MULTILINE)


def _tail(reply: Reply) -> str:
    stderr = reply.run.stderr_tail
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    if lines[-1].startswith("Node.js v"):  # Node ends a crash with its version: the error is above
        error = next((ln for ln in reversed(lines) if _NODE_ERROR.match(ln)), None)
        if error is not None:
            frame = next((m for m in _NODE_FRAME.finditer(stderr) if "node_modules" not in m.group(1)), None)
            where = ""
            if frame is not None:  # the first frame in a file of the player's (not node: or a package)
                name = re.split(r"[\\/]", frame.group(1))[-1][:60]
                where = f" at {visible(name, lines=False)}:{frame.group(2)}"
            return f" (stderr: {visible(error[:160], lines=False)}{where})"
    return f" (stderr: {visible(lines[-1][:160], lines=False)}{_py_where(stderr)})"


def _py_where(stderr: str) -> str:
    """Where a Python traceback points in the player's own code (the last
    frame outside the SDK and the standard library; a SyntaxError's file):
    the one-line message then names the file and line, as the tail does."""
    frames = [(path, line) for path, line in _PY_FRAME.findall(stderr)]
    own = [(path, line) for path, line in frames
           if "referee_sdk" not in path and "/lib/python" not in path and not path.startswith("<")]
    if not own:
        return ""
    path, line = own[-1]
    name = re.split(r"[\\/]", path)[-1][:60]
    return f" at {visible(name, lines=False)}:{line}"


# A path an error message says could not be opened: Python's (FileNotFoundError,
# PermissionError, OSError), Node's (ENOENT ..., open 'x') and Java's.
_FAILED_PATH = re.compile(r"(?:No such file or directory|Read-only file system|Permission denied)"
                          r"(?::|, open) '([^'\n]+)'|FileNotFoundException: (\S+) \(", re.IGNORECASE)
# A program that reads stdin (stdin is closed): Python's input(), Java's Scanner.
_READ_STDIN = re.compile(r"EOFError: EOF when reading a line|java\.util\.NoSuchElementException")


# A module the program could not import: Python's and Node's words for it.
_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^'\n]+)'|Error: Cannot find module '([^'\n]+)'")


def _module_hint(reply: Reply) -> str:
    """A sandboxed program that could not import a module: the sandbox shows
    its own folder, not the others it may import from (a sibling folder of
    shared code, an SDK kept elsewhere, packages installed with ``pip
    install --user``), and "it works without the referee" is then a puzzle."""
    found = _NO_MODULE.findall(reply.run.stderr_tail)
    if not found:
        return ""
    name = "".join(found[-1])
    return (f"; if {visible(name[:60])!r} is in a folder of yours, the sandbox does not show it: it shows "
            "the program's own folder and every folder named on its command line, not others (nor "
            "packages installed with pip install --user): keep the module beside the program, or name "
            "its folder on the command line (docs/protocol.md, \"The sandbox (Linux)\")")


def _path_hint(reply: Reply) -> str:
    """A program that failed on a path the referee can explain: a view file
    in the wrong case (board.txt), a view or the decision looked for or
    written anywhere but the folder the program runs in (its seat folder)."""
    if _READ_STDIN.search(reply.run.stderr_tail):
        return ("; the program read its standard input, which is closed: its input is the files in its "
                "folder (Board.txt, state.json), its output decision.txt")
    found = _FAILED_PATH.findall(reply.run.stderr_tail)
    if not found:
        return ""
    path = "".join(found[-1])
    name = re.split(r"[\\/]", path)[-1]
    folder = path[:-len(name)]
    proper = next((view for view in VIEWS if view.lower() == name.lower()), None)
    if proper is not None and name != proper:
        return f"; the file is {proper}: file names are case-sensitive"
    if name in (*VIEWS, DECISION) and folder not in ("", "./", ".\\"):
        return (f"; the program runs in its own seat folder (Board.txt, state.json and decision.txt "
                f"are there): open {name!r} by its name alone, not {visible(path[:80])!r}")
    if name in VIEWS:  # the referee wrote it where the program started: it went elsewhere
        return (f"; {name} is in the folder the program starts in (its seat folder): did it change "
                "folder (os.chdir, cd)?")
    beside = next((d for d in reply.program_dirs if not folder and os.path.isfile(os.path.join(d, name))), None)
    if beside is not None:  # a file of the player's own (weights, an opening book), sought in the seat folder
        return (f"; {visible(name[:60])} is beside the program, but the program runs in its seat folder: "
                f"open it by the program's folder (Python: os.path.join(os.path.dirname(__file__), "
                f"{visible(name[:60])!r}))")
    return ""


def _misnamed(reply: Reply) -> str:
    """A decision written under another name (see players.decision_lookalike): say which."""
    name = reply.misnamed
    if name is None:
        return ""
    shown = visible(name[:60], lines=False)
    if name.lower() == "decision.txt":
        return f"; the folder has {shown}: file names are case-sensitive, name it decision.txt"
    return f"; the folder has {shown}: the file must be named exactly decision.txt"


def _elsewhere(reply: Reply) -> str:
    """A decision written beside the program (see players.decision_elsewhere)."""
    if reply.elsewhere is None:
        return ""
    return (f"; it wrote {visible(reply.elsewhere[-120:], lines=False)} instead: the program starts in its "
            "own seat folder, write decision.txt there (by its name alone)")


def _printed(reply: Reply) -> str:
    """A program that printed its move instead of writing it: say so."""
    lines = [ln.strip() for ln in reply.run.stdout_tail.splitlines() if ln.strip()]
    if not lines:
        return ""
    return (f"; it printed {lines[-1][:60]!r} to stdout: write the decision to decision.txt "
            "(the SDK's save_decision) instead of printing it")


def forfeit_outcome(state: GameState, status: Mapping[int, str], loser: int,
                    verdict: Verdict | None) -> Outcome:
    """The result when ``loser`` forfeits (``verdict`` None: a human
    resigned): the seats still in the game share the win (the one left, if
    one), then the loser, then those already out (ejected, or out by the
    rules).  Shared with verify."""
    still = state.in_game()
    playing = set(status) if still is None else set(still)
    others = tuple(pid for pid in status if pid != loser and status[pid] == "active" and pid in playing)
    out = tuple(pid for pid in status if pid != loser and pid not in others)
    winner = others[0] if len(others) == 1 else None
    ranking = tuple(group for group in (others, (loser,), out) if group)
    why = "resigned" if verdict is None else f"forfeited ({verdict.value})"
    return Outcome(winner, ranking, state.scores(), f"player {loser} {why}")


def clock_view(clock: SeatClock) -> dict[str, Any] | None:
    """state.json's time fields: what this step may use from the bank."""
    allowed = clock.allowed()
    if allowed is None:
        return None
    return {"time_left": round(allowed, 3), "increment": clock.limits.increment}
