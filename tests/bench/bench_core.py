"""The referee's cost per step against the bare cost of spawning the player.

Baseline: spawning a trivial `python3 -S` Cantris player directly
(subprocess.run, same files in its folder, no old decision file: as in a
match, it creates one).  Measured: whole matches with that
same player on both seats, run through the real match loop (files written,
process limits, verdicts, log, snapshots), once per runner mode (the
bubblewrap sandbox through seat hosts, seat hosts without a sandbox, and the
referee spawning each step itself).  A step is timed from the end of the one
before to its own end (the first from the match's start: seat hosts and
sandboxes are up, a cost paid once per seat per match); the referee's own
work in a step is that time less the player's run as the log records it
(request to reply).

The machine is shared and noisy, so the baseline and the modes are measured
in interleaved rounds (a few bare spawns, then a match in each mode, again
and again), and every figure is a median over steps: a burst of load then
touches them all alike and moves no median much."""
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
def bare_spawn(workdir: Path, argv: list[str], runs: int) -> list[float]:
    shutil.copyfile(BOARD, workdir / "Board.txt")
    times = []
    for i in range(runs):
        # as in a match, the player finds no decision file and creates it
        (workdir / "decision.txt").unlink(missing_ok=True)
        start = time.perf_counter()
        subprocess.run([*argv, str(i + 1), "1"], cwd=workdir, stdin=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return times


class Clock(Observer):
    """Times each step from the end of the one before (the first from the
    match's start: seat hosts and sandboxes already up) to its own end, in
    wall time and in the referee's CPU time (its main thread, the step's
    critical path; and all its threads), which load on the machine hardly
    moves."""

    def start(self, match, state) -> None:
        self.started = self.mark = time.perf_counter()
        self.cpu_mark = (time.thread_time(), time.process_time())
        self.steps: list[float] = []
        self.cpu: list[tuple[float, float]] = []

    def step(self, match, record, state) -> None:
        now, cpu = time.perf_counter(), (time.thread_time(), time.process_time())
        self.steps.append(now - self.mark)
        self.cpu.append((cpu[0] - self.cpu_mark[0], cpu[1] - self.cpu_mark[1]))
        self.mark, self.cpu_mark = now, cpu

    def finish(self, match, result) -> None:
        self.finished = time.perf_counter()


def timed_match(spec: MatchSpec, cpu: list[tuple[float, float]] | None = None
                ) -> tuple[list[float], list[float]]:
    """(each step's time, each step's player run as logged), in seconds;
    each step's referee CPU (main thread, all threads) is added to ``cpu``."""
    clock = Clock()
    result = run_match(spec, clock)
    assert all(v["OK"] == sum(v.values()) for v in result.verdicts.values()), result.verdicts
    runs = [json.loads(line)["wall_ms"] / 1000 for line in (result.out / "log.jsonl").read_text().splitlines()]
    if cpu is not None:
        cpu += clock.cpu
    return clock.steps, runs


MODES = {  # name: (sandbox, REFEREE_RUNNER)
    "bwrap sandbox, seat host": ("bwrap", "host"),
    "no sandbox, seat host": ("none", "host"),
    "no sandbox, spawned by the referee": ("none", "direct"),
}
ROUNDS = int(os.environ.get("ROUNDS", 12))
BARE_PER_ROUND = 10


def main() -> None:
    modes = dict(MODES)
    if not resolve("auto").on:
        print("(bwrap sandbox: skipped, bwrap cannot start here)")
        del modes["bwrap sandbox, seat host"]
    bare: list[float] = []
    steps = {name: [] for name in modes}
    runs = {name: [] for name in modes}
    cpu = {name: [] for name in modes}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "player.py").write_text(PLAYER)
        (root / "bare").mkdir()
        argv = [sys.executable, "-S", str(root / "player.py")]
        command = " ".join(argv)
        for seed in range(1, ROUNDS + 1):
            bare += bare_spawn(root / "bare", argv, BARE_PER_ROUND)
            for name, (sandbox, runner) in modes.items():
                os.environ["REFEREE_RUNNER"] = runner
                took, ran = timed_match(MatchSpec("cantris", [command, command], board=BOARD, seed=seed,
                                                  out=root / f"{sandbox}-{runner}-m{seed}", sandbox=sandbox),
                                        cpu[name])
                steps[name] += took
                runs[name] += ran
    median = statistics.median
    base = median(bare) * 1000
    rows = [(f"bare spawn of the player (median of {len(bare)})", f"{base:.2f} ms", "1.00")]
    for name in modes:
        per_step = median(steps[name]) * 1000
        run = median(runs[name]) * 1000
        own = median(t - r for t, r in zip(steps[name], runs[name])) * 1000
        rows += [
            (f"{name}: referee per step (median of {len(steps[name])})", f"{per_step:.2f} ms",
             f"{per_step / base:.2f}"),
            ("  of which the player run (request to reply)", f"{run:.2f} ms", f"{run / base:.2f}"),
            ("  of which the referee's own work", f"{own:.2f} ms", f"{own / base:.2f}"),
            ("  the referee's CPU per step: main thread / all threads",
             f"{median(c[0] for c in cpu[name]) * 1000:.2f} / {median(c[1] for c in cpu[name]) * 1000:.2f}", ""),
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
