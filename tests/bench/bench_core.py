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
in interleaved rounds (a few bare spawns, then a match in each mode, each
followed by a few bare spawns again), and every figure is a median over
steps: a burst of load then touches them all alike and moves no median much.
The paired row divides each match's median step by the median of the bare
spawns just before and after it, and takes the median of those ratios: load
that changes over seconds falls on both sides of each ratio.

The last rows give the same comparison in CPU time, which load moves far
less: the player's own CPU (its bare run's: the same program on the same
board) plus what is spent on the step's path besides: the spawning thread's
for a bare spawn; the referee's main thread's and the seat host's own (from
/proc/<pid>/schedstat) in a match.  The referee's worker thread (snapshots,
spare files) runs while the player does and is left out."""
from __future__ import annotations

import json
import os
import resource
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
for r in range(len(board)):  # the first non-empty cell in reading order
    row = board[r]
    for c in range(len(row)):
        if row[c] != "0":
            f = open("decision.txt", "w"); f.write("%d %d\\n" % (r, c)); f.close()
            raise SystemExit(0)
"""
def bare_spawn(workdir: Path, argv: list[str], runs: int,
               cpu: list[tuple[float, float]] | None = None) -> list[float]:
    """Each run's wall time; each run's CPU (the spawning thread's, the
    player's) is added to ``cpu``."""
    shutil.copyfile(BOARD, workdir / "Board.txt")
    times = []
    for i in range(runs):
        # as in a match, the player finds no decision file and creates it
        (workdir / "decision.txt").unlink(missing_ok=True)
        start, parent, child = time.perf_counter(), time.thread_time(), _children_cpu()
        subprocess.run([*argv, str(i + 1), "1"], cwd=workdir, stdin=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
        if cpu is not None:
            cpu.append((time.thread_time() - parent, _children_cpu() - child))
    return times


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _host_pids(match) -> list[int]:
    """The seat hosts' own pids (in the sandbox, a bwrap's descendant)."""
    found = []
    for agent in match.agents:
        proc = getattr(getattr(agent, "host", None), "proc", None)
        todo = [proc.pid] if proc is not None else []
        while todo:
            pid = todo.pop()
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    words = f.read().split(b"\0")
                if any(b"seathost" in w for w in words) and not words[0].endswith(b"bwrap"):
                    found.append(pid)
                    break
                for task in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{task}/children") as f:
                        todo += map(int, f.read().split())
            except OSError:
                pass
    return found


def _on_cpu(pids: list[int]) -> float:
    """Seconds these processes have run (schedstat: ns, their own threads,
    not their children)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total / 1e9


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
        self.hosts = _host_pids(match)
        self.hosts_cpu = _on_cpu(self.hosts)  # their steps' CPU: measured at finish

    def step(self, match, record, state) -> None:
        now, cpu = time.perf_counter(), (time.thread_time(), time.process_time())
        self.steps.append(now - self.mark)
        self.cpu.append((cpu[0] - self.cpu_mark[0], cpu[1] - self.cpu_mark[1]))
        self.mark, self.cpu_mark = now, cpu

    def finish(self, match, result) -> None:
        self.finished = time.perf_counter()
        self.hosts_cpu = _on_cpu(self.hosts) - self.hosts_cpu


def timed_match(spec: MatchSpec, cpu: list[tuple[float, float]] | None = None,
                hosts: list[float] | None = None) -> tuple[list[float], list[float]]:
    """(each step's time, each step's player run as logged), in seconds;
    each step's referee CPU (main thread, all threads) is added to ``cpu``,
    and the seat hosts' own CPU per step (the match's mean) to ``hosts``."""
    clock = Clock()
    result = run_match(spec, clock)
    assert all(v["OK"] == sum(v.values()) for v in result.verdicts.values()), result.verdicts
    runs = [json.loads(line)["wall_ms"] / 1000 for line in (result.out / "log.jsonl").read_text().splitlines()]
    if cpu is not None:
        cpu += clock.cpu
    if hosts is not None and clock.hosts:
        hosts.append(clock.hosts_cpu / len(clock.steps))
    return clock.steps, runs


MODES = {  # name: (sandbox, REFEREE_RUNNER)
    "bwrap sandbox, seat host": ("bwrap", "host"),
    "no sandbox, seat host": ("none", "host"),
    "no sandbox, spawned by the referee": ("none", "direct"),
}
ROUNDS = int(os.environ.get("ROUNDS", 12))
BARE_BETWEEN = 4  # bare spawns before the first match and after each


def main() -> None:
    modes = dict(MODES)
    if not resolve("auto").on:
        print("(bwrap sandbox: skipped, bwrap cannot start here)")
        del modes["bwrap sandbox, seat host"]
    bare: list[float] = []
    bare_cpu: list[tuple[float, float]] = []
    steps = {name: [] for name in modes}
    runs = {name: [] for name in modes}
    cpu = {name: [] for name in modes}
    hosts = {name: [] for name in modes}
    paired: dict[str, list[float]] = {name: [] for name in modes}  # each match / the bare spawns around it
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "player.py").write_text(PLAYER)
        (root / "bare").mkdir()
        argv = [sys.executable, "-S", str(root / "player.py")]
        command = " ".join(argv)
        median = statistics.median
        batches = [bare_spawn(root / "bare", argv, BARE_BETWEEN, bare_cpu)]
        for seed in range(1, ROUNDS + 1):
            for name, (sandbox, runner) in modes.items():
                os.environ["REFEREE_RUNNER"] = runner
                took, ran = timed_match(MatchSpec("cantris", [command, command], board=BOARD, seed=seed,
                                                  out=root / f"{sandbox}-{runner}-m{seed}", sandbox=sandbox),
                                        cpu[name], hosts[name])
                steps[name] += took
                runs[name] += ran
                batches.append(bare_spawn(root / "bare", argv, BARE_BETWEEN, bare_cpu))
                paired[name].append(median(took) / median(batches[-2] + batches[-1]))
        bare = [t for batch in batches for t in batch]
    base = median(bare) * 1000
    rows = [(f"bare spawn of the player (median of {len(bare)})", f"{base:.2f} ms", "1.00")]
    # The same in CPU time, which load moves far less than wall time: the
    # player's own (its bare run's, the same program on the same board) plus
    # what each side adds on the step's path, the spawning thread's here.
    player_cpu = median(c[1] for c in bare_cpu) * 1000
    bare_total = player_cpu + median(c[0] for c in bare_cpu) * 1000
    cpu_rows = []
    for name in modes:
        per_step = median(steps[name]) * 1000
        run = median(runs[name]) * 1000
        own = median(t - r for t, r in zip(steps[name], runs[name])) * 1000
        rows += [
            (f"{name}: referee per step (median of {len(steps[name])})", f"{per_step:.2f} ms",
             f"{per_step / base:.2f}"),
            (f"  paired: each match / the bare spawns just before and after it (median of {len(paired[name])})",
             "", f"{median(paired[name]):.2f}"),
            ("  of which the player run (request to reply)", f"{run:.2f} ms", f"{run / base:.2f}"),
            ("  of which the referee's own work", f"{own:.2f} ms", f"{own / base:.2f}"),
            ("  the referee's CPU per step: main thread / all threads",
             f"{median(c[0] for c in cpu[name]) * 1000:.2f} / {median(c[1] for c in cpu[name]) * 1000:.2f}", ""),
        ]
        if hosts[name]:
            rows.append(("  the seat host's own CPU per step", f"{median(hosts[name]) * 1000:.2f}", ""))
        path_cpu = player_cpu + median(c[0] for c in cpu[name]) * 1000 + \
            (median(hosts[name]) * 1000 if hosts[name] else 0.0)
        cpu_rows.append((f"{name}: player + referee main thread + seat host", f"{path_cpu:.2f} ms",
                         f"{path_cpu / bare_total:.2f}"))
    rows.append((f"CPU of a bare spawn: the player ({player_cpu:.2f} ms) + the spawning thread",
                 f"{bare_total:.2f} ms", "1.00"))
    print_table(rows + cpu_rows)


def print_table(rows: list[tuple[str, str, str]]) -> None:
    """(measure, time, ratio) rows as a plain table."""
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'time':>10}  {'ratio':>6}")
    for name, value, ratio in rows:
        print(f"{name:<{width}}  {value:>10}  {ratio:>6}")


if __name__ == "__main__":
    main()
