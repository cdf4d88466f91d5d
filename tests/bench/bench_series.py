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
  spawned, with the default sandbox and with ``--sandbox none``: the whole
  command's wall time over N (its own start-up included, spread over the
  games), as ratios against the floor of its kind; and what each game costs
  beyond what every series pays once (the CLI's and the fork server's
  start-up, the summary): the N-game series less a 2-game one (a pair), over N - 2;
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

GAMES = int(os.environ.get("GAMES", 10))
# Without "..": a sandbox lets a program's own installation in by its plain path.
PYTHON = os.path.normpath(sys.executable)


def children_cpu() -> float:
    """CPU seconds of the processes this one has waited for, so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def series(root: Path, player: str, sandbox: str, tag: str, games: int = GAMES
           ) -> tuple[float, float, list[Path]]:
    """(wall and CPU seconds of ``referee play --games N --jobs 1``, its game folders)."""
    out = root / tag
    argv = [PYTHON, "-m", "referee", "play", "cantris", "--board", str(BOARD),
            "--player", player, "--player", player, "--games", str(games), "--jobs", "1",
            "--seed", "1", "--sandbox", sandbox, "--out", str(out)]
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    took, cpu = time.perf_counter() - start, children_cpu() - cpu
    found = sorted(p.parent for p in (out / "games").glob("*/log.jsonl"))
    assert len(found) == games, found
    for game in found:  # a forfeit would be measured as a fast game
        assert all(json.loads(line)["verdict"] == "OK"
                   for line in (game / "log.jsonl").read_text().splitlines()), game
    return took, cpu, found


def walls(game: Path) -> list[float]:
    return [json.loads(line)["wall_ms"] for line in (game / "log.jsonl").read_text().splitlines()]


def main() -> None:
    sandboxes = ["auto", "none"] if resolve("auto").on else ["none"]
    if len(sandboxes) == 1:
        print("(default sandbox: skipped, bwrap cannot start here)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "trivial.py").write_text(TRIVIAL)
        (root / "player.py").write_text(PLAYER)
        (root / "bare").mkdir()
        kept = [PYTHON, "-S", str(root / "trivial.py")]
        spawned = [PYTHON, "-S", str(root / "player.py")]
        runs, ones = {}, {}
        for sandbox in sandboxes:
            for kind, player in (("persistent", "persistent:" + " ".join(kept)), ("spawned", " ".join(spawned))):
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
    for (kind, sandbox), (took, _, _) in runs.items():
        floor = floor_kept if kind == "persistent" else floor_spawned
        name = "default sandbox" if sandbox == "auto" else "--sandbox none"
        rows.append((f"play --games {GAMES} --jobs 1, {kind}, {name}: per game",
                     f"{took / GAMES * 1000:.1f} ms", f"{took / GAMES / floor:.2f}"))
    # What a game costs beyond what every series pays once (the CLI's and the
    # fork server's start-up, the summary): the N-game series less a 1-game one.
    for (kind, sandbox), (took, _, _) in runs.items():
        floor = floor_kept if kind == "persistent" else floor_spawned
        name = "default sandbox" if sandbox == "auto" else "--sandbox none"
        extra = (took - ones[kind, sandbox][0]) / (GAMES - 2)
        rows.append((f"  each game beyond a pair ({GAMES} games less 2), {kind}, {name}",
                     f"{extra * 1000:.1f} ms", f"{extra / floor:.2f}"))
    rows += [("CPU, floor, kept alive: per game", f"{cpu_kept * 1000:.1f} ms", "1.00"),
             (f"CPU, floor, spawned: {steps:.0f} steps x one bare spawn's CPU ({cpu_spawn * 1000:.1f} ms)",
              f"{steps * cpu_spawn * 1000:.1f} ms", "1.00")]
    for (kind, sandbox), (_, cpu, _) in runs.items():
        floor = cpu_kept if kind == "persistent" else steps * cpu_spawn
        name = "default sandbox" if sandbox == "auto" else "--sandbox none"
        rows.append((f"CPU, play --games {GAMES} --jobs 1, {kind}, {name}: per game",
                     f"{cpu / GAMES * 1000:.1f} ms", f"{cpu / GAMES / floor:.2f}"))
    for (kind, sandbox), (_, cpu, _) in runs.items():
        floor = cpu_kept if kind == "persistent" else steps * cpu_spawn
        name = "default sandbox" if sandbox == "auto" else "--sandbox none"
        extra = (cpu - ones[kind, sandbox][1]) / (GAMES - 2)
        rows.append((f"  CPU, each game beyond a pair, {kind}, {name}",
                     f"{extra * 1000:.1f} ms", f"{extra / floor:.2f}"))
    rows.append((f"persistent, {'default sandbox' if sandboxes[0] == 'auto' else '--sandbox none'}: "
                 "step 1 wall / median later step (median of games)", "", f"{statistics.median(first):.2f}"))
    print(f"(load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print_table(rows)


if __name__ == "__main__":
    main()
