"""The referee's cost per step against the bare cost of spawning the player.

Baseline: the median wall time of spawning a trivial `python3 -S` Cantris
player directly (subprocess.run, same files in its folder), over >= 50 runs.
Measured: whole matches with that same player on both seats, run through the
real match loop (files written, process limits, verdicts, log, snapshots),
time from the first step to the result / steps, once per runner mode (the
bubblewrap sandbox through seat hosts, seat hosts without a sandbox, and the
referee spawning each step itself).  Starting the seat hosts, once per seat
per match, is not a per-step cost and is left out.  The ratio is the figure; the difference estimates the
referee's own work per step.  Both are measured in the same run, because the
machine is shared and noisy."""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.core.match import MatchSpec, Observer, run_match
from referee.core.sandbox import resolve

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "boards" / "cantris" / "10x5-1.txt"
PLAYER = """\
board = [line.split() for line in open("Board.txt")]
for r in range(len(board) - 1, -1, -1):
    row = board[r]
    for c in range(len(row)):
        if row[c] != "0":
            f = open("decision.txt", "w"); f.write("%d %d\\n" % (r, c)); f.close()
            raise SystemExit(0)
"""
RUNS = 60


def bare_spawn(workdir: Path, argv: list[str]) -> list[float]:
    shutil.copyfile(BOARD, workdir / "Board.txt")
    times = []
    for i in range(RUNS):
        start = time.perf_counter()
        subprocess.run([*argv, str(i + 1), "1"], cwd=workdir, stdin=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return times


class Clock(Observer):
    """Times the steps only: from the first step's start (seat hosts and
    sandboxes already up) to the result, which a match pays once."""

    def start(self, match, state) -> None:
        self.started = time.perf_counter()

    def finish(self, match, result) -> None:
        self.finished = time.perf_counter()


MODES = {  # name: (sandbox, REFEREE_RUNNER)
    "bwrap sandbox, seat host": ("bwrap", "host"),
    "no sandbox, seat host": ("none", "host"),
    "no sandbox, spawned by the referee": ("none", "direct"),
}


def referee_steps(root: Path, argv: list[str], sandbox: str) -> tuple[float, int, float]:
    """(total wall time, steps, time inside the player runs as the log
    records it: request to reply)."""
    total_time, total_steps, seed, in_player = 0.0, 0, 0, 0.0
    command = " ".join(argv)
    clock = Clock()
    while total_steps < RUNS:
        seed += 1
        result = run_match(MatchSpec("cantris", [command, command], board=BOARD, seed=seed,
                                     out=root / f"{sandbox}-{os.environ['REFEREE_RUNNER']}-m{seed}",
                                     sandbox=sandbox), clock)
        total_time += clock.finished - clock.started
        total_steps += result.steps
        assert all(v["OK"] == sum(v.values()) for v in result.verdicts.values()), result.verdicts
        in_player += sum(json.loads(line)["wall_ms"] / 1000
                         for line in (result.out / "log.jsonl").read_text().splitlines())
    return total_time, total_steps, in_player


def main() -> None:
    measured = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "player.py").write_text(PLAYER)
        (root / "bare").mkdir()
        argv = [sys.executable, "-S", str(root / "player.py")]
        bare = bare_spawn(root / "bare", argv)
        for name, (sandbox, runner) in MODES.items():
            if sandbox == "bwrap" and not resolve("auto").on:
                print(f"({name}: skipped, bwrap cannot start here)")
                continue
            os.environ["REFEREE_RUNNER"] = runner
            measured[name] = referee_steps(root, argv, sandbox)
        bare_again = bare_spawn(root / "bare", argv)  # the machine may have changed meanwhile
    base = statistics.median(bare + bare_again) * 1000
    rows = [("bare spawn of the player (median of %d)" % (2 * RUNS), f"{base:.2f} ms", "1.00")]
    for name, (total, steps, in_player) in measured.items():
        per_step = total / steps * 1000
        own = (total - in_player) / steps * 1000
        rows += [
            (f"{name}: referee per step ({steps} steps)", f"{per_step:.2f} ms", f"{per_step / base:.2f}"),
            ("  of which the player run (request to reply)", f"{in_player / steps * 1000:.2f} ms",
             f"{in_player / steps * 1000 / base:.2f}"),
            ("  of which the referee's own work", f"{own:.2f} ms", f"{own / base:.2f}"),
        ]
    print_table(rows)


def print_table(rows: list[tuple[str, str, str]]) -> None:
    """(measure, time, ratio) rows as a plain table."""
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'time':>10}  {'ratio':>6}")
    for name, value, ratio in rows:
        print(f"{name:<{width}}  {value:>10}  {ratio:>6}")


if __name__ == "__main__":
    main()
