"""One tournament game in its own OS process: ``python -m referee.tournament.worker SPEC``
(or ``-``: the game comes on stdin, to a worker started ahead of its game).

Why a process per game: the core's player runner adopts and kills every
orphan of its process after each step, so two games sharing a process could
kill each other's players; a process per game also keeps a crash of one game
away from the others.  SPEC is the game's MatchSpec as JSON; the match writes
its folder (result.yaml included) and the worker exits 0.

With ``-`` the worker reads lines on stdin: the SPEC, then ``go``.  Between
the two it sets its game up (``run_match``'s ``go``: folders, seat hosts and
sandboxes, persistent players started and frozen; no board shown, no clock
running), so that a series does all that while the game before plays (see
``runner.WorkerPlay``).  End of input before the SPEC: no game, exit 0; before
``go``: the game is called off, its folder removed, exit 0.

The parent keeps this process's stdin open; when it closes (the tournament
was killed, even with SIGKILL) the worker exits at once instead of finishing
a game nobody will record.  A game that ends leaves with ``os._exit`` once
its files are written and closed: an interpreter's teardown is no use to
anyone there.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

from referee.core import warmseats
from referee.core.match import Cancelled, MatchSpec, Observer, Prepared, run_match
from referee.core.trees import remove_tree

PATH_FIELDS = ("board", "out", "base_dir")


def spec_to_json(spec: MatchSpec) -> str:
    data = asdict(spec)
    for key in PATH_FIELDS:
        data[key] = None if data[key] is None else str(data[key])
    return json.dumps(data)


def spec_from_json(text: str) -> MatchSpec:
    data: dict[str, Any] = json.loads(text)
    for key in PATH_FIELDS:
        data[key] = None if data[key] is None else Path(data[key])
    return MatchSpec(**data)


def _exit_when_orphaned() -> None:
    def watch() -> None:
        while os.read(0, 4096):  # the raw fd: a buffered stdin would block interpreter exit
            pass
        os._exit(3)

    threading.Thread(target=watch, daemon=True).start()


class _Lines:
    """Lines from stdin's raw fd (a buffered stdin would block interpreter
    exit); None at end of input."""

    def __init__(self) -> None:
        self.data = b""

    def next(self) -> str | None:
        while b"\n" not in self.data:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                return None
            self.data += chunk
        line, self.data = self.data.split(b"\n", 1)
        return line.decode()


class _Played(Observer):
    """Tells the fork server (if it forked this worker) once the game's last
    step is played: the next game may start while this one writes its
    result, closes its seats and lands their files (see
    ``runner.WorkerPlay``).  What is left of this one then yields the CPU to
    the game in play (a lower priority), whose first step would otherwise
    share it with this one's end."""

    def over(self, match: Prepared) -> None:
        warmseats.tell("played")
        with contextlib.suppress(OSError):
            os.nice(10)


def _done() -> None:
    """Leave without the interpreter's teardown: the match's files are
    written and closed, its seat hosts ended (``Match.run``)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def main(argv: list[str]) -> int:
    if argv[0] != "-":
        _exit_when_orphaned()
        run_match(spec_from_json(argv[0]))
        _done()
    lines = _Lines()
    text = lines.next()
    if text is None:
        _done()  # a worker started ahead that got no game
    spec = spec_from_json(text)

    went: list[bool] = []

    def go() -> bool:
        if lines.next() != "go":
            return False
        went.append(True)
        _exit_when_orphaned()
        return True

    try:
        run_match(spec, _Played(), go=go)
    except (Cancelled, KeyboardInterrupt):
        if went:  # interrupted in play: the folder shows how far it got
            raise
        # Called off, or interrupted (Ctrl-C reaches the whole process group)
        # while set up ahead: no step was played, nothing of it is kept.
        if spec.out is not None:
            remove_tree(spec.out)
    _done()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
