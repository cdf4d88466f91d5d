"""Persistent players against spawned ones (issue: a per-step cost near a
bare spawn, and far below it for a kept-alive player).

Rows, all from the same run:
- a trivial SDK player kept alive: the referee's time per step (steps only),
  and of that the referee's own work (its files, log, verdict) next to the
  player's turn as the referee measured it;
- whole Cantris 10x5 matches with the built-in greedy player (a Python SDK
  player that imports the rules) on both seats, persistent against spawned:
  the ratio of the steps' total times."""
from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

from bench_core import Clock, print_table  # run as a script from this folder
from referee.core.match import MatchSpec, run_match

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
MATCHES = 6


def steps_time(root: Path, players: list[str], tag: str) -> tuple[float, int, float, list[float]]:
    """(steps' total wall time, steps, the players' turns as logged, the
    turns after each seat's first, which starts the process)."""
    total, steps, turns, later = 0.0, 0, 0.0, []
    clock = Clock()
    for seed in range(1, MATCHES + 1):
        result = run_match(MatchSpec("cantris", players, board=BOARD, seed=seed,
                                     out=root / f"{tag}-{seed}"), clock)
        total += clock.finished - clock.started
        steps += result.steps
        seen = set()
        for line in (result.out / "log.jsonl").read_text().splitlines():
            record = json.loads(line)
            turns += record["wall_ms"] / 1000
            if record["player"] in seen:
                later.append(record["wall_ms"])
            seen.add(record["player"])
    return total, steps, turns, later


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "trivial.py").write_text(TRIVIAL)
        trivial = f"persistent:{sys.executable} -S {root / 'trivial.py'}"
        t_total, t_steps, t_turns, t_later = steps_time(root, [trivial, trivial], "trivial")
        p_total, p_steps, _, _ = steps_time(root, ["persistent:builtin:greedy"] * 2, "kept")
        s_total, s_steps, _, _ = steps_time(root, ["builtin:greedy"] * 2, "spawned")
    rows = [
        ("persistent trivial SDK player: referee per step", f"{t_total / t_steps * 1000:.2f} ms", ""),
        ("  of which the player's turn (request to 'done')", f"{t_turns / t_steps * 1000:.2f} ms", ""),
        ("  of which the referee's own work", f"{(t_total - t_turns) / t_steps * 1000:.2f} ms", ""),
        ("  a turn once started (median, first turns left out)",
         f"{statistics.median(t_later):.2f} ms", ""),
        (f"greedy, spawned: {s_steps} steps of whole 10x5 matches", f"{s_total:.2f} s", "1.00"),
        (f"greedy, persistent: {p_steps} steps", f"{p_total:.2f} s", f"{p_total / s_total:.3f}"),
    ]
    print_table(rows)


if __name__ == "__main__":
    main()
