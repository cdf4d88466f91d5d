"""Persistent players against spawned ones (issue: a per-step cost near a
bare spawn, and far below it for a kept-alive player).

Rows, all from the same run:
- a trivial SDK player kept alive: the referee's time per step, and of that
  the referee's own work (its files, log, verdict: the step's time less the
  player's turn as the referee measured it), medians over the steps of whole
  matches;
- whole Cantris 10x5 matches with the built-in greedy player (a Python SDK
  player that imports the rules) on both seats, persistent against spawned:
  the ratio of the steps' total times, and its floor: a kept-alive player
  still starts once per seat per match, as costly as one spawned step, so
  the ratio is at least 1 / (steps per seat).

The machine is shared and noisy: the matches of each kind are interleaved
(one of each, again and again), so that load falls on all alike."""
from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from bench_core import print_table, timed_match  # run as a script from this folder
from referee.core.match import MatchSpec

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "boards" / "cantris" / "10x5-1.txt"
SDK = ROOT / "players" / "sdk" / "python"
TRIVIAL = f"""
import sys
sys.path.insert(0, {str(SDK)!r})
from referee_sdk import run, save_decision

def play_games(step):
    board = [line.split() for line in open("Board.txt")]
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v != "0":
                save_decision(r, c)
                return

run(play_games)
"""
MATCHES = 10


def timed(root: Path, players: list[str], tag: str, seed: int,
          cpu: list | None = None) -> tuple[list[float], list[float]]:
    """(each step's time, each step's player turn as logged), in seconds."""
    return timed_match(MatchSpec("cantris", players, board=BOARD, seed=seed, out=root / f"{tag}-{seed}"),
                       cpu)


def main() -> None:
    trivial_steps: list[float] = []
    trivial_turns: list[float] = []
    trivial_cpu: list[tuple[float, float]] = []
    kept: list[float] = []
    spawned: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "trivial.py").write_text(TRIVIAL)
        trivial = f"persistent:{sys.executable} -S {root / 'trivial.py'}"
        for seed in range(1, MATCHES + 1):
            cpu: list[tuple[float, float]] = []
            took, turns = timed(root, [trivial, trivial], "trivial", seed, cpu)
            trivial_steps += took[2:]  # each seat's first turn starts its process
            trivial_turns += turns[2:]
            trivial_cpu += cpu[2:]
            kept += timed(root, ["persistent:builtin:greedy"] * 2, "kept", seed)[0]
            spawned += timed(root, ["builtin:greedy"] * 2, "spawned", seed)[0]
    median = statistics.median
    own = [t - r for t, r in zip(trivial_steps, trivial_turns)]
    rows = [
        (f"persistent trivial SDK player: referee per step (median of {len(own)})",
         f"{median(trivial_steps) * 1000:.2f} ms", ""),
        ("  of which the player's turn (request to 'done')", f"{median(trivial_turns) * 1000:.2f} ms", ""),
        ("  of which the referee's own work", f"{median(own) * 1000:.2f} ms", ""),
        ("  the same, mean", f"{statistics.mean(own) * 1000:.2f} ms", ""),
        ("  the referee's CPU per step: main thread / all threads",
         f"{median(c[0] for c in trivial_cpu) * 1000:.2f} / {median(c[1] for c in trivial_cpu) * 1000:.2f}", ""),
        (f"greedy, spawned: {len(spawned)} steps of whole 10x5 matches", f"{sum(spawned):.2f} s", "1.00"),
        (f"greedy, persistent: {len(kept)} steps", f"{sum(kept):.2f} s", f"{sum(kept) / sum(spawned):.3f}"),
        # A kept-alive player still starts once per seat per match, which costs
        # what one spawned step costs: the ratio cannot go below this.
        (f"  floor: one start per seat, {len(kept) / (2 * MATCHES):.1f} steps per seat", "",
         f"{2 * MATCHES / len(kept):.3f}"),
    ]
    print_table(rows)


if __name__ == "__main__":
    main()
