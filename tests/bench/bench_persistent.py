"""Persistent players against spawned ones (issue: a per-step cost near a
bare spawn, and far below it for a kept-alive player).

Rows, all from the same run:
- baseline: the bare exchange with the same trivial SDK player kept alive,
  without the referee: two copies take turns, as the two seats of a match
  do; this script writes ``step <k>`` on one's stdin and reads ``done`` (its
  Board.txt is in place, its old decision removed first);
- a trivial SDK player kept alive: the referee's time per step, what it costs
  over the bare exchange (the referee's whole share: its files, log, verdict
  and its seat host's round trip), and of that the referee's own work (the
  step's time less the player's turn as the referee measured it), medians
  over the steps of whole matches;
- whole Cantris 10x5 matches with the built-in greedy player (a Python SDK
  player that imports the rules) on both seats, persistent against spawned:
  the ratio of the whole matches' wall times (run_match, from the call to
  its return), and how that splits: before the first step (folders, seat
  hosts, and the persistent players started, all seats at once), the steps,
  and after.  A kept-alive player still starts once per match, as costly as
  one spawned step, and so does its seat host;
- the floor under that ratio: the same match's turns played by the same two
  greedy programs kept alive without any referee (started together, each
  waited for until it blocks on its stdin, then sent ``step <k>`` in turn,
  with the files it saw in the match written and its old decision removed,
  as the protocol does: ``bare_driver``), over the spawned matches.  Only a
  referee that costs nothing (no seat host, no sandbox, no files of its own)
  would reach it.

The machine is shared and noisy: the matches of each kind are interleaved
(one of each, again and again), so that load falls on all alike."""
from __future__ import annotations

import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

from bare_driver import SeatFolder, protocol_steps  # run as a script from this folder
from bench_core import Clock, print_table, timed_match
from referee.core.match import MatchSpec, run_match
from referee.core.seathost import _state

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "boards" / "cantris" / "10x5-1.txt"
SDK = ROOT / "players" / "sdk" / "python"
TRIVIAL = f"""
import sys
sys.path.insert(0, {str(SDK)!r})
from referee_sdk import run, save_decision

def play_games(step):
    board = [line.split() for line in open("Board.txt")]
    for r in range(len(board)):  # the first non-empty cell in reading order
        for c, v in enumerate(board[r]):
            if v != "0":
                save_decision(r, c)
                return

run(play_games)
"""
MATCHES = 10


@contextlib.contextmanager
def kept_alive(root: Path, argv: list[str], tag: str) -> Iterator[dict[int, tuple[Path, subprocess.Popen]]]:
    """Two copies of the SDK program ``argv`` started at once, kept alive as
    a match's two seats (each in its folder ``<tag><seat>``), without the
    referee: {seat: (folder, process)}; their stdin closed and they waited
    for at the end."""
    env = dict(os.environ, REFEREE_PERSISTENT="1", REFEREE_GAME="cantris")
    seats = {}
    try:
        for seat in (1, 2):
            folder = root / f"{tag}{seat}"
            folder.mkdir(exist_ok=True)
            seats[seat] = folder, subprocess.Popen(argv, cwd=folder, env=dict(env, REFEREE_PLAYER=str(seat)),
                                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        yield seats
    finally:
        for _, player in seats.values():
            assert player.stdin is not None
            player.stdin.close()
            player.wait()


def turn(player: subprocess.Popen, k: int) -> None:
    """Send ``step <k>``; return at its ``done``."""
    assert player.stdin is not None and player.stdout is not None
    player.stdin.write(f"step {k}\n".encode())
    assert player.stdout.readline() == b"done\n"


def bare_exchange(root: Path, argv: list[str], steps: int) -> list[float]:
    """Each ``step`` / ``done`` round trip with two copies of the player kept
    alive and taking turns, as in a match, without the referee (each in its
    own folder, with its Board.txt, its old decision removed first)."""
    times = []
    with kept_alive(root, argv, "p") as seats:
        for folder, _ in seats.values():
            shutil.copyfile(BOARD, folder / "Board.txt")
        for k in range(steps + 2):  # the first two start the programs: not counted
            folder, player = seats[k % 2 + 1]
            (folder / "decision.txt").unlink(missing_ok=True)
            start = time.perf_counter()
            turn(player, k + 1)
            if k >= 2:
                times.append(time.perf_counter() - start)
    return times


def blocked(pid: int) -> bool:
    """Whether ``pid`` sleeps on a pipe read (its stdin: the kept-alive
    player waiting for ``step``)."""
    try:
        return _state(f"/proc/{pid}/stat") == b"S" and b"pipe" in Path(f"/proc/{pid}/wchan").read_bytes()
    except (OSError, IndexError):
        return False


GREEDY = [sys.executable, "-P", str(ROOT / "players" / "cantris" / "greedy.py")]


def bare_match(root: Path, match: Path, argv: list[str] = GREEDY, tag: str = "bare",
               cpu: list[tuple[float, float]] | None = None, turns_s: list[float] | None = None) -> float:
    """Wall seconds of the turns of the match in folder ``match`` replayed by
    two copies of the program ``argv`` (its greedy programs by default) kept
    alive, without the referee: both started at once and waited for until
    blocked on stdin, then at each step the files the protocol gives the seat
    written and its old decision removed (``bare_driver``), ``step <k>``
    sent to its player, ``done`` awaited.  The driver's CPU seconds in that
    file work are added to ``cpu``, as (file work, all its work: also the
    players' start and the pipes).  Each turn's wall seconds (``step`` sent
    to ``done`` read) are appended to ``turns_s``."""
    turns = protocol_steps(match)
    start, own = time.perf_counter(), time.thread_time()
    with kept_alive(root, argv, tag) as seats:
        folders = {seat: SeatFolder(folder) for seat, (folder, _) in seats.items()}
        try:
            while not all(blocked(player.pid) for _, player in seats.values()):
                time.sleep(0.0002)
            for k, (seat, files) in enumerate(turns, start=1):
                folders[seat].prepare(files)
                began = time.perf_counter()
                turn(seats[seat][1], k)
                if turns_s is not None:
                    turns_s.append(time.perf_counter() - began)
        finally:
            for folder in folders.values():
                folder.close()
        took, own = time.perf_counter() - start, time.thread_time() - own
    if cpu is not None:
        cpu.append((sum(folder.cpu for folder in folders.values()), own))
    return took


def timed(root: Path, players: list[str], tag: str, seed: int,
          cpu: list | None = None) -> tuple[list[float], list[float]]:
    """(each step's time, each step's player turn as logged), in seconds."""
    return timed_match(MatchSpec("cantris", players, board=BOARD, seed=seed, out=root / f"{tag}-{seed}"),
                       cpu)


def whole(root: Path, players: list[str], tag: str, seed: int) -> tuple[float, float, float]:
    """(the match's wall time, before its first step, its steps), in seconds."""
    clock = Clock()
    start = time.perf_counter()
    run_match(MatchSpec("cantris", players, board=BOARD, seed=seed, out=root / f"{tag}-{seed}"), clock)
    return time.perf_counter() - start, clock.started - start, sum(clock.steps)


def main() -> None:
    bare: list[float] = []
    trivial_steps: list[float] = []
    trivial_turns: list[float] = []
    trivial_cpu: list[tuple[float, float]] = []
    kept: list[tuple[float, float, float]] = []
    spawned: list[tuple[float, float, float]] = []
    floor: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "trivial.py").write_text(TRIVIAL)
        trivial = f"persistent:{sys.executable} -S {root / 'trivial.py'}"
        for seed in range(1, MATCHES + 1):
            bare += bare_exchange(root, [sys.executable, "-S", str(root / "trivial.py")], 8)
            cpu: list[tuple[float, float]] = []
            took, turns = timed(root, [trivial, trivial], "trivial", seed, cpu)
            trivial_steps += took[2:]  # each seat's first turn starts its process
            trivial_turns += turns[2:]
            trivial_cpu += cpu[2:]
            kept.append(whole(root, ["persistent:builtin:greedy"] * 2, "kept", seed))
            spawned.append(whole(root, ["builtin:greedy"] * 2, "spawned", seed))
            floor.append(bare_match(root, root / f"kept-{seed}"))
    median = statistics.median
    own = [t - r for t, r in zip(trivial_steps, trivial_turns)]
    rows = [
        (f"bare exchange with two trivial SDK players kept alive (median of {len(bare)})",
         f"{median(bare) * 1000:.2f} ms", ""),
        (f"persistent trivial SDK player: referee per step (median of {len(own)})",
         f"{median(trivial_steps) * 1000:.2f} ms", ""),
        ("  over the bare exchange: the referee's share (medians' difference)",
         f"{(median(trivial_steps) - median(bare)) * 1000:.2f} ms", ""),
        ("  of which the player's turn (request to 'done')", f"{median(trivial_turns) * 1000:.2f} ms", ""),
        ("  of which the referee's own work", f"{median(own) * 1000:.2f} ms", ""),
        ("  the same, mean", f"{statistics.mean(own) * 1000:.2f} ms", ""),
        ("  the referee's CPU per step: main thread / all threads",
         f"{median(c[0] for c in trivial_cpu) * 1000:.2f} / {median(c[1] for c in trivial_cpu) * 1000:.2f}", ""),
    ]
    total = [sum(m[0] for m in matches) for matches in (spawned, kept)]
    steps = [sum(m[2] for m in matches) for matches in (spawned, kept)]
    rows += [
        (f"greedy, spawned: {MATCHES} whole 10x5 matches (wall)", f"{total[0]:.3f} s", "1.00"),
        ("greedy, persistent: the same matches", f"{total[1]:.3f} s", f"{total[1] / total[0]:.3f}"),
        ("  before the first step, per match: spawned / persistent (hosts and players started)",
         f"{median(m[1] for m in spawned) * 1000:.1f} / {median(m[1] for m in kept) * 1000:.1f} ms", ""),
        ("  the steps alone, persistent / spawned", f"{steps[1]:.3f} / {steps[0]:.3f} s",
         f"{steps[1] / steps[0]:.3f}"),
        ("floor: the same turns by the two greedy programs kept alive, no referee",
         f"{sum(floor):.3f} s", f"{sum(floor) / total[0]:.3f}"),
        ("  the persistent matches over that floor, per match",
         f"{(total[1] - sum(floor)) / MATCHES * 1000:.1f} ms", ""),
    ]
    print_table(rows)


if __name__ == "__main__":
    main()
