"""The portable (psutil) runner's cost per run against the Linux runner and a
bare spawn of the same trivial player.

Baseline: ``subprocess.run`` of ``python3 -S -c pass``.  Measured: one
``run_process`` of the same command through each runner, with the default
limits (so the portable runner samples the tree, sweeps by its marker and
kills the tree after the run).  The three are interleaved run by run, in the
same process, because the machine is shared and noisy; medians are shown,
with the ratio to the bare spawn."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.core import portable, runner
from referee.core.runner import Limits

RUNS = 40


def main() -> None:
    argv = [sys.executable, "-S", "-c", "pass"]
    env = dict(os.environ)
    env.pop("REFEREE_RUNNER", None)
    times: dict[str, list[float]] = {"bare": [], "linux": [], "portable": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        out, err = work / "stdout.txt", work / "stderr.txt"
        for _ in range(RUNS):
            start = time.perf_counter()
            subprocess.run(argv, cwd=work, stdin=subprocess.DEVNULL, check=True)
            times["bare"].append(time.perf_counter() - start)
            if runner.LINUX:
                start = time.perf_counter()
                runner.run_process(argv, work, env, Limits(), out, err)
                times["linux"].append(time.perf_counter() - start)
            start = time.perf_counter()
            portable.run_process(argv, work, env, Limits(), out, err)
            times["portable"].append(time.perf_counter() - start)
    base = statistics.median(times["bare"]) * 1000
    print(f"{'one run of `python -S -c pass`':<44} {'median':>10} {'ratio':>7}")
    for name, label in (("bare", "bare spawn (subprocess.run)"),
                        ("linux", "runner.run_process, Linux path"),
                        ("portable", "portable.run_process (psutil)")):
        if times[name]:
            ms = statistics.median(times[name]) * 1000
            print(f"{label:<44} {ms:>7.2f} ms {ms / base:>7.2f}")
    print(f"({RUNS} runs each, interleaved; {len(list(__import__('psutil').pids()))} processes "
          "on the machine: the portable runner reads the process table)")


if __name__ == "__main__":
    main()
