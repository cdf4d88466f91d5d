"""The referee's cost per step against the bare cost of spawning the player.

Baseline: the median wall time of spawning a trivial `python3 -S` Cantris
player directly (subprocess.run, same files in its folder), over >= 50 runs.
Measured: whole matches with that same player on both seats, run through the
real match loop (files written, process limits, verdicts, log, snapshots),
total wall time / steps.  The ratio is the figure; the difference estimates the
referee's own work per step.  Both are measured in the same run, because the
machine is shared and noisy."""
from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.core.match import MatchSpec, run_match

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


def referee_steps(root: Path, argv: list[str]) -> tuple[float, int, float]:
    """(total wall time, steps, time inside the player runs as the log
    records it: spawn to reap)."""
    total_time, total_steps, seed, in_player = 0.0, 0, 0, 0.0
    command = " ".join(argv)
    while total_steps < RUNS:
        seed += 1
        start = time.perf_counter()
        result = run_match(MatchSpec("cantris", [command, command], board=BOARD, seed=seed,
                                     out=root / f"m{seed}"))
        total_time += time.perf_counter() - start
        total_steps += result.steps
        assert all(v["OK"] == sum(v.values()) for v in result.verdicts.values()), result.verdicts
        in_player += sum(json.loads(line)["wall_ms"] / 1000
                         for line in (result.out / "log.jsonl").read_text().splitlines())
    return total_time, total_steps, in_player


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "player.py").write_text(PLAYER)
        (root / "bare").mkdir()
        argv = [sys.executable, "-S", str(root / "player.py")]
        bare = bare_spawn(root / "bare", argv)
        total, steps, in_player = referee_steps(root, argv)
        bare_again = bare_spawn(root / "bare", argv)  # the machine may have changed meanwhile
    base = statistics.median(bare + bare_again) * 1000
    per_step = total / steps * 1000
    own = (total - in_player) / steps * 1000
    rows = [
        ("bare spawn of the player (median of %d)" % (2 * RUNS), f"{base:.2f} ms", "1.00"),
        (f"referee, per step ({steps} steps, whole matches)", f"{per_step:.2f} ms", f"{per_step / base:.2f}"),
        ("  of which the player run (spawn to reap)", f"{(total - own * steps / 1000) / steps * 1000:.2f} ms",
         f"{in_player / steps * 1000 / base:.2f}"),
        ("  of which the referee's own work", f"{own:.2f} ms", f"{own / base:.2f}"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'time':>10}  {'ratio':>6}")
    for name, value, ratio in rows:
        print(f"{name:<{width}}  {value:>10}  {ratio:>6}")


if __name__ == "__main__":
    main()
