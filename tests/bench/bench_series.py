"""Series of fast bots (``referee play --games N``) against the bare cost of
the same programs playing the same boards (issue: a runner's own cost per
game of a few milliseconds, as chess engine testers get from fastchess).

Rows, all from the same run (Cantris 10x5, two trivial programs that play
the first non-empty cell, seats swapped in pairs):
- the floor for kept-alive players: each game of the persistent series
  replayed by a bare driver, the same two SDK programs started afresh and fed
  the same boards (``bench_persistent.bare_match``: no referee, no folders,
  no sandbox), per game;
- the floor for spawned players: the game's steps times one bare spawn of
  the same program (``bench_core.bare_spawn``), per game;
- ``referee play --games N --jobs 1`` with those players, persistent and
  spawned, with the default sandbox, with the default sandbox and fresh
  seats (``REFEREE_WARM_SEATS=off``: a sandbox and seat host made for every
  seat of every game, as before warm seats; the baseline they are measured
  against, in the same run), with ``--sandbox none`` and with it and fresh
  seats, and the same with 2 games.  The rows that count are **each game of a long series**: the
  N-game series less the 2-game one, over N - 2, as ratios against the floor
  of its kind.  That is what every game of a series of hundreds costs (the
  issue's case); what a series pays once (the CLI's and the fork server's
  start-up, the summary) is left out of it and shown on its own row, **once
  per series**: the 2-game series less two games.  The whole command over N
  is shown too (with N = 10 the once-per-series cost alone was ~0.7 times
  the floor per game, and it shrinks as 1/N);
- step 1 against the later steps: each persistent game's first step wall
  over the median of its later ones (as logged), the median over games.

Each row is given twice: in wall time, and in CPU time (user + system, of
the command and every process it waited for: workers, seat hosts, sandboxes,
players), against the floor's own CPU.  The machine is shared and noisy: the
series run one after the other, so compare ratios from one run, not figures
across runs; on a loaded machine the wall time of a series follows its CPU
(work started ahead of a game still takes cores from the game that plays),
and the CPU ratios move far less with the load."""
from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_core import BOARD, PLAYER, bare_spawn, print_table  # run as a script from this folder
from bench_persistent import TRIVIAL, bare_match
from referee.core.sandbox import resolve

GAMES = int(os.environ.get("GAMES", 20))  # more: a steadier per-game figure, a longer run
# Without "..": a sandbox lets a program's own installation in by its plain path.
PYTHON = os.path.normpath(sys.executable)


def children_cpu() -> float:
    """CPU seconds of the processes this one has waited for, so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


VARIANTS = {"auto": "default sandbox", "fresh": "default sandbox, fresh seats", "none": "--sandbox none",
            "none-fresh": "--sandbox none, fresh seats"}
"""The series' variants: ``fresh`` ones with ``REFEREE_WARM_SEATS=off``."""


def series(root: Path, player: str, sandbox: str, tag: str, games: int = GAMES
           ) -> tuple[float, float, list[Path]]:
    """(wall and CPU seconds of ``referee play --games N --jobs 1``, its game folders)."""
    out = root / tag
    argv = [PYTHON, "-m", "referee", "play", "cantris", "--board", str(BOARD),
            "--player", player, "--player", player, "--games", str(games), "--jobs", "1",
            "--seed", "1", "--sandbox", {"fresh": "auto", "none-fresh": "none"}.get(sandbox, sandbox),
            "--out", str(out)]
    env = dict(os.environ, REFEREE_WARM_SEATS="off") if "fresh" in sandbox else None
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    took, cpu = time.perf_counter() - start, children_cpu() - cpu
    found = sorted(p.parent for p in (out / "games").glob("*/log.jsonl"))
    assert len(found) == games, found
    for game in found:  # a forfeit would be measured as a fast game
        assert all(json.loads(line)["verdict"] == "OK"
                   for line in (game / "log.jsonl").read_text().splitlines()), game
    return took, cpu, found


def walls(game: Path) -> list[float]:
    return [json.loads(line)["wall_ms"] for line in (game / "log.jsonl").read_text().splitlines()]


def series_rows(runs: dict, ones: dict, floors: dict, index: int, prefix: str
                ) -> list[tuple[str, str, str]]:
    """The series rows of one measure (``index`` 0: wall time, 1: CPU): each
    game of a long series (the N-game series less the 2-game one, over
    N - 2) against its floor; once per series (the 2-game series less two
    such games: start-up and close); the whole N-game command over N."""
    each, once, whole = [], [], []
    for (kind, sandbox), run in runs.items():
        floor = floors[kind][index]
        name = f"{kind}, {VARIANTS[sandbox]}"
        pair = ones[kind, sandbox][index]
        game = (run[index] - pair) / (GAMES - 2)
        each.append((f"{prefix}each game of a long series, {name}", f"{game * 1000:.1f} ms",
                     f"{game / floor:.2f}"))
        once.append((f"  {prefix}once per series (start-up, close), {name}",
                     f"{(pair - 2 * game) * 1000:.1f} ms", ""))
        whole.append((f"  {prefix}play --games {GAMES} --jobs 1 over {GAMES} (once per series spread), {name}",
                      f"{run[index] / GAMES * 1000:.1f} ms", f"{run[index] / GAMES / floor:.2f}"))
    return each + once + whole


def main() -> None:
    sandboxes = ["none", "none-fresh"]
    if resolve("auto").on:
        sandboxes = ["auto", "fresh", *sandboxes]
    else:
        print("(default sandbox: skipped, bwrap cannot start here)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "trivial.py").write_text(TRIVIAL)
        (root / "player.py").write_text(PLAYER)
        (root / "bare").mkdir()
        kept = [PYTHON, "-S", str(root / "trivial.py")]
        spawned = [PYTHON, "-S", str(root / "player.py")]
        runs, ones = {}, {}
        for kind, player in (("persistent", "persistent:" + " ".join(kept)), ("spawned", " ".join(spawned))):
            for sandbox in sandboxes:  # a kind's variants one after the other: the same machine load
                runs[kind, sandbox] = series(root, player, sandbox, f"{kind}-{sandbox}")
                ones[kind, sandbox] = series(root, player, sandbox, f"{kind}-{sandbox}-2", games=2)
        games = runs["persistent", sandboxes[0]][2]
        cpu = children_cpu()
        floor_kept = statistics.mean(bare_match(root, game, kept, f"b{i}-") for i, game in enumerate(games))
        cpu_kept = (children_cpu() - cpu) / len(games)
        steps = statistics.mean(len(walls(game)) for game in games)
        cpu = children_cpu()
        spawns = bare_spawn(root / "bare", spawned, 60)
        cpu_spawn = (children_cpu() - cpu) / len(spawns)
        spawn = statistics.median(spawns)
        floor_spawned = steps * spawn
        first = [w[0] / statistics.median(w[1:]) for w in map(walls, games)]
    rows = [
        (f"floor, kept alive: bare driver, the same programs and boards (mean of {len(games)} games)",
         f"{floor_kept * 1000:.1f} ms", "1.00"),
        (f"floor, spawned: {steps:.0f} steps x one bare spawn ({spawn * 1000:.1f} ms)",
         f"{floor_spawned * 1000:.1f} ms", "1.00"),
    ]
    floors = {"persistent": (floor_kept, cpu_kept), "spawned": (floor_spawned, steps * cpu_spawn)}
    rows += series_rows(runs, ones, floors, 0, "")
    rows += [("CPU, floor, kept alive: per game", f"{cpu_kept * 1000:.1f} ms", "1.00"),
             (f"CPU, floor, spawned: {steps:.0f} steps x one bare spawn's CPU ({cpu_spawn * 1000:.1f} ms)",
              f"{steps * cpu_spawn * 1000:.1f} ms", "1.00")]
    rows += series_rows(runs, ones, floors, 1, "CPU, ")
    rows.append((f"persistent, {VARIANTS[sandboxes[0]]}: "
                 "step 1 wall / median later step (median of games)", "", f"{statistics.median(first):.2f}"))
    print(f"(load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print_table(rows)


if __name__ == "__main__":
    main()
