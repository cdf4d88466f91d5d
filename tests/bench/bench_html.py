"""Replay pages: size and time to write `replay --html` for long matches,
against the bare replay (recomputing every state from the log, what
`--verify` also pays) measured in the same run.

The matches are played first by the CLI with built-in random players (this
takes a minute: real processes per step); then each page is written
``--repeat`` times and the median is reported.

    python tests/bench/bench_html.py [--repeat 5] [--keep DIR]
"""
from __future__ import annotations

import argparse
import gzip
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.replay import frames, load
from referee.web import replay_page

MATCHES = {  # name: (game, players, extra options)
    "tsuro, 8 players": ("tsuro", ["builtin:random"] * 8, []),
    "quoridor, 2 players": ("quoridor", ["builtin:random"] * 2, []),
    "quoridor, 4 players": ("quoridor", ["builtin:random"] * 4,
                            ["--board", str(Path(__file__).resolve().parents[2] / "boards/quoridor/standard-4p.txt")]),
    "black hole, 2 players": ("blackhole", ["builtin:random"] * 2, []),
}


def play(folder: Path, game: str, players: list[str], extra: list[str]) -> None:
    exe = Path(sys.executable).with_name("referee")
    args = [str(exe), "play", game, *[a for p in players for a in ("--player", p)],
            "--seed", "1", "--out", str(folder), "--quiet", *extra]
    subprocess.run(args, check=True, capture_output=True)


def median_seconds(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="play the matches into this folder and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        print(f"{'match':<22} {'steps':>5} {'replay s':>9} {'page s':>8} {'ratio':>6} "
              f"{'ms/step':>7} {'HTML KiB':>9} {'gzip KiB':>9}")
        for name, (game, players, extra) in MATCHES.items():
            folder = root / game / str(len(players))
            if not (folder / "result.yaml").exists():
                play(folder, game, players, extra)
            replay = load(folder)
            steps = len(replay.records)
            bare = median_seconds(lambda: frames(replay), args.repeat)
            page = folder / "replay.html"
            full = median_seconds(lambda: replay_page.write(replay, page), args.repeat)
            size = page.stat().st_size
            packed = len(gzip.compress(page.read_bytes()))
            print(f"{name:<22} {steps:>5} {bare:>9.3f} {full:>8.3f} {full / bare:>5.1f}x "
                  f"{1000 * full / max(steps, 1):>7.2f} {size / 1024:>9.1f} {packed / 1024:>9.1f}", flush=True)


if __name__ == "__main__":
    main()
