"""Tournament throughput: games per second for a round robin of built-in
random players at --jobs 1 and --jobs 2 (or the --jobs given), measured in the
same run because the machine is shared and noisy.  The speed-up column is the
figure: how well games in parallel worker processes scale.

    python tests/bench/bench_tournament.py [--game cantris] [--entrants 4] [--jobs 1 2]
"""
from __future__ import annotations

import argparse
import io
import os
import tempfile
import time
from pathlib import Path

import yaml

from referee.tournament.config import load_config
from referee.tournament.runner import Tournament


def run_once(folder: Path, game: str, entrants: int, jobs: int) -> tuple[int, float]:
    config = {"game": game, "format": "round_robin", "seed": 1, "out": f"out-{jobs}",
              "entrants": [{"name": f"random{i}", "command": "builtin:random"} for i in range(entrants)]}
    path = folder / f"bench-{jobs}.yaml"
    path.write_text(yaml.safe_dump(config))
    tournament = Tournament(load_config(path))
    start = time.perf_counter()
    summary = tournament.run(jobs, resume=False, log=io.StringIO())
    seconds = time.perf_counter() - start
    assert summary.plan.finished and summary.failure is None, summary.failure
    return summary.games, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="cantris")
    parser.add_argument("--entrants", type=int, default=4)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    print(f"{args.game}: round robin of {args.entrants} built-in random players, "
          f"{len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()} cores")
    print(f"{'jobs':>4}  {'games':>5}  {'seconds':>8}  {'games/s':>8}  {'speed-up':>8}")
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        for jobs in args.jobs:
            games, seconds = run_once(Path(tmp), args.game, args.entrants, jobs)
            rate = games / seconds
            base = base or rate
            print(f"{jobs:>4}  {games:>5}  {seconds:>8.2f}  {rate:>8.2f}  {rate / base:>7.2f}x", flush=True)


if __name__ == "__main__":
    main()
