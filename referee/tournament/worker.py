"""One tournament game in its own OS process: ``python -m referee.tournament.worker SPEC``
(or ``-``: SPEC comes as a line on stdin, to a worker started ahead of its game).

Why a process per game: the core's player runner adopts and kills every
orphan of its process after each step, so two games sharing a process could
kill each other's players; a process per game also keeps a crash of one game
away from the others.  SPEC is the game's MatchSpec as JSON; the match writes
its folder (result.yaml included) and the worker exits 0.

The parent keeps this process's stdin open; when it closes (the tournament
was killed, even with SIGKILL) the worker exits at once instead of finishing
a game nobody will record.
"""
from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

from referee.core.match import MatchSpec, run_match

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


def _spec_line() -> str:
    """The SPEC as one line on stdin (``-``): a worker started ahead of its
    game, its imports done while the game before it ran (see
    ``runner.WorkerPlay``), waits here for it.  End of input: no game."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            os._exit(0)
        data += chunk
    return data.split(b"\n", 1)[0].decode()


def main(argv: list[str]) -> int:
    text = _spec_line() if argv[0] == "-" else argv[0]
    _exit_when_orphaned()
    run_match(spec_from_json(text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
