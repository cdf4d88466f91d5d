"""The bare driver's file work: what the file protocol makes anyone who runs
a player do at each step, without the referee's own records.

A floor that skips this work is not the same work: under the referee, each
step's ``decision.txt`` is removed (so the player creates a new file every
step, an inode allocation that costs 0.1-2 ms of the player's CPU on ext4),
and the seat's ``Board.txt``, ``state.json`` and new ``step_logs/`` snapshots
are written before it runs.  The driver here does exactly that, per step:

- ``Board.txt`` and ``state.json`` rewritten in place through a file kept
  open (as the referee does from a seat's second step on: no new inode);
- the snapshots ``step_logs/step_<k>.txt`` the seat has not been given yet
  created (``k`` < the step: those of the other seat's steps too);
- ``decision.txt`` removed.

The texts are those the seat saw in a real match, rebuilt from its log by
``referee.rerun.seat_view`` (the same functions the match loop writes them
with) before any clock starts.  Left out, as the referee's records and not
the player's input: the match folder's log.jsonl and snapshots, match.yaml,
result.yaml and the seats' stdout/stderr captures."""
from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

from referee import replay
from referee.rerun import seat_view

DECISION = "decision.txt"


def protocol_steps(match: Path) -> list[tuple[int, dict[str, str]]]:
    """Each step of the match in folder ``match``: (the seat that moved, the
    files of its folder before the step: name relative to the folder ->
    text)."""
    played = replay.load(match)
    steps = []
    for step in range(1, len(played.records) + 1):
        view = seat_view(played, step)
        steps.append((view.player, dict(view.files)))
    return steps


def children_cpu() -> float:
    """CPU seconds of the processes this one has waited for, so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class SeatFolder:
    """One seat's folder, written at each step as the file protocol says."""

    def __init__(self, path: Path) -> None:
        self.path = path
        (path / "step_logs").mkdir(parents=True, exist_ok=True)
        self._open: dict[str, int] = {}
        self._given: set[str] = set()
        self.cpu = 0.0  # seconds of this thread's CPU spent in prepare

    def prepare(self, files: dict[str, str]) -> None:
        """Write this step's files, remove the old decision."""
        start = time.thread_time()
        for name, text in files.items():
            data = text.encode()
            if name.startswith("step_logs/"):
                if name not in self._given:
                    (self.path / name).write_bytes(data)
                    self._given.add(name)
                continue
            fd = self._open.get(name)
            if fd is None:
                fd = self._open[name] = os.open(self.path / name, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
            os.pwrite(fd, data, 0)
            os.ftruncate(fd, len(data))
        (self.path / DECISION).unlink(missing_ok=True)
        self.cpu += time.thread_time() - start

    def close(self) -> None:
        for fd in self._open.values():
            os.close(fd)
        self._open.clear()


def spawned_steps(root: Path, turns: list[tuple[int, dict[str, str]]], argv: list[str],
                  cpu: list[float]) -> list[float]:
    """Each step of ``turns`` (see :func:`protocol_steps`) played by spawning
    ``argv + [<step>, <seat>]`` in the seat's folder under ``root`` after
    writing its files: each step's wall seconds (files and spawn); each
    step's CPU seconds (the file work's and the player's; not the spawning
    itself, as for a bare spawn) are added to ``cpu``."""
    seats = {seat: SeatFolder(root / f"s{seat}") for seat in {seat for seat, _ in turns}}
    times = []
    try:
        for k, (seat, files) in enumerate(turns, start=1):
            folder = seats[seat]
            start, files_cpu, child = time.perf_counter(), folder.cpu, children_cpu()
            folder.prepare(files)
            subprocess.run([*argv, str(k), str(seat)], cwd=folder.path, stdin=subprocess.DEVNULL, check=True)
            times.append(time.perf_counter() - start)
            cpu.append(folder.cpu - files_cpu + children_cpu() - child)
    finally:
        for folder in seats.values():
            folder.close()
    return times
