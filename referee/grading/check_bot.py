"""``referee check-bot GAME --player CMD``: the compliance check.

Students run it before they submit; ``referee grade`` runs it first.  It asks
what a grader needs before any game counts: the program starts and answers
the opening position with a legal decision within the limits, and plays
whole games against ``builtin:random`` in both seats without a fault (and,
when it says it is persistent, does so over the persistent protocol).  Each
failure says what happened (verdict, step, the referee's message) and what
to fix, and where the match folder is for ``referee replay``/``rerun``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from referee.core import preflight
from referee.core.errors import InputError
from referee.core.log import read_log
from referee.core import seats as seats_mod
from referee.core.match import Match, MatchSpec, Observer, prepare
from referee.core.humans import is_human
from referee.core.players import PERSISTENT, make_agent
from referee.core.runner import Limits
from referee.core.registry import get_game

OPPONENT = "builtin:random"
SEVERITY = ("CRASH", "TIMEOUT", "MEMORY_LIMIT", "CPU_LIMIT", "ILLEGAL", "MALFORMED", "NO_DECISION",
            "LATE")
"""Faults, worst first (the order a grade lists them in)."""

FIXES = {
    "CRASH": "it exited with an error: run it by hand in the match folder (referee rerun FOLDER "
             "--step K) and read its stderr",
    "TIMEOUT": "it ran past the hard time limit: look for an endless loop, or make the search stop "
               "earlier (state.json says the limits)",
    "CPU_LIMIT": "it used more CPU time than allowed: search less, or stop on a clock",
    "MEMORY_LIMIT": "it used more memory than allowed: keep smaller tables",
    "ILLEGAL": "it chose a move the rules forbid (the message says why, and lists the legal moves "
               "where there are few): check your move generation against the rules; referee rerun "
               "FOLDER --step K plays that step again",
    "MALFORMED": "decision.txt is not in the expected format (use the SDK's save_decision)",
    "NO_DECISION": "it exited without writing decision.txt (call save_decision before exiting)",
    "LATE": "it answered after the soft time limit: the move counted, but graders may not "
            "accept it; make it faster",
}


@dataclass
class Check:
    name: str
    passed: bool | None  # None: not run (an earlier check made it pointless)
    message: str = ""
    fix: str = ""


@dataclass
class CheckReport:
    checks: list[Check] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)  # the match folders, for replay
    warnings: list[str] = field(default_factory=list)  # the pre-flight's (play prints them too)

    @property
    def ok(self) -> bool:
        """Every check passed (one that could not run here, as the persistent
        protocol without a seat host, does not count against it)."""
        return self.started and all(c.passed is not False for c in self.checks)

    @property
    def started(self) -> bool:
        """The program answered the opening position (it can play at all)."""
        return bool(self.checks) and bool(self.checks[0].passed)

    def text(self) -> str:
        lines = [f"warning: {warning}" for warning in self.warnings]
        told: set[str] = set()
        for check in self.checks:
            mark = {True: "PASS", False: "FAIL", None: "skip"}[check.passed]
            lines.append(f"{mark}  {check.name}" + (f": {check.message}" if check.message else ""))
            if check.fix and not check.passed:  # (the same one again: a line each was a wall of text)
                lines.append(f"      fix: {'the same as above' if check.fix in told else check.fix}")
                told.add(check.fix)
        if self.folders:
            lines.append("match folders (referee replay FOLDER): " + ", ".join(map(str, self.folders)))
        passed = sum(bool(c.passed) for c in self.checks)
        lines.append(f"{passed}/{len(self.checks)} checks passed" +
                     (": ready to submit" if self.ok else ""))
        return "\n".join(lines) + "\n"


@dataclass
class Fault:
    """One faulty step of one seat, as the match log has it."""

    step: int
    verdict: str
    message: str

    def text(self) -> str:
        return self.message or f"step {self.step}: {self.verdict}"


def seat_steps(folder: Path, seat: int) -> list[dict[str, Any]]:
    """The log records of ``seat``'s own decisions (automatic steps left out)."""
    return [r for r in read_log(folder) if r.get("player") == seat and not r.get("auto")]


def seat_faults(folder: Path, seat: int) -> list[Fault]:
    return [Fault(int(r["step"]), str(r["verdict"]), str(r.get("message", "")))
            for r in seat_steps(folder, seat) if r["verdict"] != "OK"]


def worst(faults: Sequence[Fault], limit: int = 3) -> list[Fault]:
    """The worst faults, one per verdict, worst first."""
    seen: dict[str, Fault] = {}
    for fault in faults:
        seen.setdefault(fault.verdict, fault)
    order = {v: i for i, v in enumerate(SEVERITY)}
    return sorted(seen.values(), key=lambda f: (order.get(f.verdict, len(order)), f.step))[:limit]


def table_size(game_name: str) -> int:
    counts = get_game(game_name).player_counts
    return 2 if 2 in counts else min(counts)


def check_bot(game: str, command: str, *, base_dir: Path, out: Path, board: Path | None = None,
              variant: str | None = None, settings: Mapping[str, Any] | None = None,
              limits: Mapping[str, Any] | None = None, sandbox: str = "auto",
              seed: int = 1) -> CheckReport:
    """Run every check on ``command`` (a ``--player`` value); match folders
    go under ``out``.  Never raises for the program's faults, only for bad
    input from the caller (InputError)."""
    report = CheckReport()
    first = Check("starts and answers the opening position with a legal decision in time", None)
    report.checks.append(first)
    size = table_size(game)
    seats = [Check(f"plays a whole game as player {seat} against {OPPONENT}", None)
             for seat in (1, 2)[:size]]
    report.checks.extend(seats)
    persistent = command.strip().startswith(PERSISTENT)
    protocol = Check("speaks the persistent protocol", None) if persistent else None
    if protocol:
        report.checks.append(protocol)
    game_obj = get_game(game)
    try:
        if is_human(command):
            raise InputError(f"{command.strip()} is a person: check-bot checks a program")
        agent = make_agent(command, game_obj, Limits(), base_dir)
    except InputError as exc:
        first.passed, first.message = False, exc.message
        first.fix = "give the command that runs your program (e.g. \"python3 player.py\")"
        return report
    problem = preflight.command_problem(list(getattr(agent, "argv", [])), base_dir) \
        if getattr(agent, "argv", None) else None
    if problem:
        archive = _archive(game, command, base_dir)
        first.passed, first.message = False, archive[0] if archive else problem
        first.fix = archive[1] if archive else "the program must start before it can play"
        return report
    if getattr(agent, "argv", None):
        report.warnings = preflight.source_warnings(list(agent.argv), base_dir)
    restarts: list[bool] = []
    for index, check in enumerate(seats):
        seat = index + 1
        players = [OPPONENT] * size
        players[index] = command
        folder = Path(out) / f"as-player-{seat}"
        spec = MatchSpec(game=game, players=players, board=board, variant=variant, seed=seed,
                         out=folder, policy="forfeit", settings=dict(settings or {}),
                         limits=dict(limits or {}), names=_names(players, command), quiet=True,
                         replace=True, base_dir=base_dir, sandbox=sandbox)
        restarts.extend(_play(spec, index))
        report.folders.append(folder)
        steps = seat_steps(folder, seat)
        faults = [f for f in seat_faults(folder, seat) if f.verdict != "LATE"]
        late = sum(r["verdict"] == "LATE" for r in steps)
        if index == 0:
            _judge_first(first, steps, folder)
        if not steps:
            check.passed, check.message = False, "the game ended before its first turn"
        elif faults:
            fault = worst(faults, 1)[0]
            check.passed = False
            check.message = f"{fault.text()} ({len(faults)} faulty step(s) of {len(steps)}; " \
                            f"match folder {folder})"
            check.fix = FIXES.get(fault.verdict, "")
        else:
            check.passed, check.message = True, f"{len(steps)} decisions, all OK" if not late else \
                f"{len(steps)} decisions; {late} over the soft time limit (they counted; make it faster)"
    if protocol:
        _judge_protocol(protocol, seats, restarts)
    return report


def _archive(game: str, command: str, base_dir: Path) -> tuple[str, str] | None:
    """(message, fix) for a hand-in archive given as the program
    (``--player carol.zip``), in the words ``grade --submission carol.zip``
    uses: the pre-flight's advice, ``chmod +x carol.zip``, sent a student
    to make a zip executable.  None for anything else."""
    from .submission import archive_hint, unpacked

    word = command.strip()
    path = Path(word)
    if not word or " " in word or not (path if path.is_absolute() else Path(base_dir) / path).is_file():
        return None
    hint = archive_hint(path)
    if hint is None:
        return None
    return (f"{word} {hint.removesuffix(' and grade that')}",
            f"then check that folder: referee check-bot {game} --player {unpacked(path)}")


def _play(spec: MatchSpec, index: int) -> list[bool]:
    """Play the match; for each step of seat ``index + 1`` after its first,
    whether its program had to be started again (a persistent player that
    exits after each step instead of answering ``done``: the referee copes,
    starting it anew, but it is not speaking the protocol)."""
    prepared = prepare(spec)
    agent = prepared.agents[index]
    started: list[bool] = []
    decide = agent.decide

    def watched(*args: Any, **kwargs: Any):
        reply = decide(*args, **kwargs)
        started.append("started" in reply.run.notes)
        return reply

    agent.decide = watched  # type: ignore[method-assign]
    Match(prepared, Observer()).run()
    return started[1:]


def _judge_protocol(check: Check, seats: Sequence[Check], restarts: list[bool]) -> None:
    check.fix = "use the SDK's run(play_games), which speaks it: wait for 'step K' on stdin, " \
                "write decision.txt, print 'done' (referee docs protocol)"
    if not seats_mod.available():
        check.message = "not checked here: persistent players need the seat host (Linux)"
        return
    if not all(c.passed for c in seats):
        check.passed, check.message = False, "see the games above"
        return
    again = sum(restarts)
    check.passed = again == 0
    check.message = "kept alive between steps, every answer in time" if check.passed else \
        f"it had to be started again at {again} of {len(restarts)} later steps: it exits instead " \
        "of answering done and waiting for the next step"


def _judge_first(check: Check, steps: list[dict[str, Any]], folder: Path) -> None:
    if not steps:
        check.passed, check.message = False, "the game ended before the program's first turn"
        return
    record = steps[0]
    verdict = str(record["verdict"])
    if verdict in ("OK", "LATE"):  # LATE: over the soft limit, but the move counts
        check.passed, check.message = True, f"answered {record.get('decision', '').strip()!r} " \
                                            f"in {record.get('wall_ms', 0):g} ms"
        return
    check.passed = False
    check.message = str(record.get("message") or verdict) + f" (match folder {folder})"
    check.fix = FIXES.get(verdict, "")


def _names(players: Sequence[str], command: str) -> list[str]:
    return ["your program" if p == command else p.split(":", 1)[1] for p in players]
