"""Cluster throughput: games per second for the same round robin played
locally with --jobs 2 and on a loopback Dask cluster of two single-threaded
workers (started with the standard ``dask scheduler`` / ``dask worker``
commands), measured in the same run because the machine is shared and noisy.
Goal: cluster >= 0.85 of local.

From the measured per-game times it then estimates the wall time of a
300-student Swiss tournament on 20 machines of 8 cores, and measures the
coordinator's own cost per finished game at that size (planning, which is
serial).

    python tests/bench/bench_cluster.py [--game cantris] [--entrants 4] [--repeat 1]
"""
from __future__ import annotations

import argparse
import io
import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from referee.tournament.config import load_config
from referee.tournament.formats import swiss_default_rounds
from referee.tournament.journal import GameRecord
from referee.tournament.runner import Tournament


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_cluster(folder: Path, workers: int) -> tuple[str, list[subprocess.Popen]]:
    from distributed import Client

    dask = str(Path(sys.executable).with_name("dask"))
    port = free_port()
    common = {"cwd": folder, "start_new_session": True, "stdout": subprocess.DEVNULL,
              "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], **common)]
    address = f"tcp://127.0.0.1:{port}"
    for n in range(workers):
        procs.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                                       "--no-dashboard", "--local-directory", str(folder / f"w{n}")],
                                      **common))
    with Client(address, timeout=30) as client:
        client.wait_for_workers(workers, timeout=60)
    return address, procs


def stop_cluster(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def run_once(folder: Path, name: str, game: str, entrants: int, jobs: int, play=None):
    config = {"game": game, "format": "round_robin", "seed": 1, "out": f"out-{name}",
              "entrants": [{"name": f"random{i}", "command": "builtin:random"} for i in range(entrants)]}
    path = folder / f"bench-{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    tournament = Tournament(load_config(path))
    start = time.perf_counter()
    summary = tournament.run(jobs, resume=False, play=play, log=io.StringIO())
    seconds = time.perf_counter() - start
    assert summary.plan.finished and summary.failure is None, summary.failure
    journal = [json.loads(line) for line in (folder / f"out-{name}" / "journal.jsonl").read_text().splitlines()]
    per_game = sum(r["seconds"] for r in journal) / len(journal)  # wall of one game, as the runner saw it
    return summary.games, seconds, per_game, (folder / f"out-{name}" / "standings.csv").read_bytes()


def noop() -> None:
    return None


def dispatch_overhead(address: str, game_folder: Path) -> tuple[float, float, int]:
    """(seconds for an empty task's round trip, seconds to pack and unpack a
    real game folder, its packed size in bytes): what a cluster adds to a game."""
    from distributed import Client

    from referee.tournament.cluster import pack, unpack

    with Client(address, timeout=30) as client:
        client.submit(noop, pure=False).result()
        start = time.perf_counter()
        for _ in range(20):
            client.submit(noop, pure=False).result()
        trip = (time.perf_counter() - start) / 20
    start = time.perf_counter()
    for n in range(5):
        blob = pack(game_folder)
        unpack(blob, game_folder.parent / f".unpacked-{n}")
    return trip, (time.perf_counter() - start) / 5, len(blob)


def coordinator_cost(entrants: int = 300, boards: int = 1) -> tuple[float, int]:
    """Seconds the coordinator spends planning after one finished game, in
    the middle of a Swiss tournament of ``entrants`` (fake records)."""
    from referee.tournament.formats import Swiss
    from referee.tournament.planner import Planner
    from referee.tournament.journal import GameJob

    seeded = list(range(entrants))
    swiss = Swiss(seeded, None, boards)
    planner = Planner(swiss, seeded, boards, 1, 2)
    records: dict[str, GameRecord] = {}
    for _ in range(swiss.rounds // 2):
        for job in planner.plan(records).pending:
            a, b = job.seats
            winner = 1 if (a + b + job.board) % 3 else 2
            records[job.key] = GameRecord.from_result(
                GameJob(job.key, job.table, job.seats, job.board, job.seed),
                {"winner": winner, "ranking": [[winner], [3 - winner]], "scores": None, "reason": "",
                 "verdicts": {}, "steps": 1}, job.key, 0.0)
    start = time.perf_counter()
    for _ in range(5):
        planner.plan(records)
    return (time.perf_counter() - start) / 5, len(records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="cantris")
    parser.add_argument("--entrants", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=1)
    args, _ = parser.parse_known_args()
    try:
        from referee.tournament.cluster import DaskPlay
    except ImportError:
        print("distributed is not installed (pip install 'referee[cluster]'): skipped")
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{args.game}: round robin of {args.entrants} built-in random players, {cores} cores; "
          f"local --jobs 2 vs a loopback Dask cluster of 2 workers x 1 thread")
    print(f"{'run':<8} {'games':>5}  {'seconds':>8}  {'games/s':>8}  {'s/game':>7}  {'ratio':>6}")
    local_rates, cluster_rates, local_game, cluster_game = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        address, procs = start_cluster(folder, 2)
        try:
            for r in range(args.repeat):
                games, seconds, per_game, local_csv = run_once(folder, f"local{r}", args.game, args.entrants, 2)
                local_rates.append(games / seconds)
                local_game.append(per_game)
                print(f"{'local':<8} {games:>5}  {seconds:>8.2f}  {games / seconds:>8.2f}  {per_game:>7.2f}  "
                      f"{1.0:>5.2f}x", flush=True)
                play = DaskPlay(address)
                try:
                    games, seconds, per_game, cluster_csv = run_once(folder, f"cluster{r}", args.game,
                                                                     args.entrants, 2, play)
                finally:
                    play.close()
                cluster_rates.append(games / seconds)
                cluster_game.append(per_game)
                print(f"{'cluster':<8} {games:>5}  {seconds:>8.2f}  {games / seconds:>8.2f}  {per_game:>7.2f}  "
                      f"{cluster_rates[-1] / local_rates[-1]:>5.2f}x", flush=True)
                assert cluster_csv == local_csv, "cluster standings differ from the local run"
            some_game = next((folder / "out-cluster0" / "games").iterdir())
            trip, packing, size = dispatch_overhead(address, some_game)
        finally:
            stop_cluster(procs)
    local_s, cluster_s = min(local_game), min(cluster_game)
    overhead = trip + packing
    ratio = max(cluster_rates) / max(local_rates)
    print(f"\ncluster / local games/s: {ratio:.2f} (goal >= 0.85); standings byte-identical")
    print(f"per game: local {local_s:.2f} s, on the cluster {cluster_s:.2f} s; the cluster adds "
          f"{trip * 1000:.1f} ms task round trip + {packing * 1000:.1f} ms to pack and unpack the "
          f"folder ({size / 1024:.0f} KiB)")

    plan_s, planned = coordinator_cost()
    students, machines, slots_each, boards = 300, 20, 8, 3
    rounds = swiss_default_rounds(students)
    games_per_round = (students // 2) * 2 * boards
    slots = machines * slots_each
    waves = math.ceil(games_per_round / slots)
    print(f"coordinator: {plan_s * 1000:.1f} ms planning per finished game at {students} entrants "
          f"({planned} games recorded)")
    print(f"\nestimate: {students}-student Swiss, {rounds} rounds (ceil(log2 N) + 2), {boards} boards "
          f"x 2 seats = {games_per_round} games a round, {machines} machines x {slots_each} cores = {slots} slots:")
    for label, game_s in ((f"measured {args.game} random game", local_s + overhead),
                          ("student bots, 30 s a game", 30.0 + overhead)):
        wall = rounds * waves * game_s
        coordinator = rounds * games_per_round * plan_s
        total = max(wall, coordinator)
        print(f"  {label:<34} {rounds} rounds x {waves} waves x {game_s:.2f} s = {total / 60:6.1f} min "
              f"(coordinator busy {coordinator / 60:.1f} min of it)")


if __name__ == "__main__":
    main()
