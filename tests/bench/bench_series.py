"""Series of fast bots (``referee play --games N``) against the bare cost of
the same programs playing the same boards (issue: a runner's own cost per
game of a few milliseconds, as chess engine testers get from fastchess).

Rows, all from the same run (Cantris 10x5, two trivial programs that play
the first non-empty cell, seats swapped in pairs), the series and the floors
on the same disk (a RAM disk where ``tests/ram_disk.py`` finds a usable one,
the default temp dir otherwise; the header says which):
- the floor for kept-alive players: each game of the persistent series
  replayed by a bare driver, the same two SDK programs started afresh and fed
  the same boards (``bench_persistent.bare_match``: no referee, no sandbox),
  per game, with the file work the protocol makes a step do
  (``bare_driver``: Board.txt, state.json and the new step_logs/ snapshots
  written, the old decision.txt removed, so the player creates a new one);
  its CPU is the players' and the driver's in that file work (the rest of
  the driver's, starting the players and the pipes, is shown, not counted:
  the floor stays what the players alone cost, plus the protocol's files);
- the floor for spawned players: the game's steps times one bare spawn of
  the same program with that same file work (the median over the steps of
  a few of those games replayed), per game;
- the floors are measured a part at a time between the series, so that
  load that comes and goes falls on both;
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
- a reference beside the persistent rows: each game played by one process
  with nothing between it and its players (``lean_engine``: the rules, the
  views, the freeze and the log of every step, and none of the referee's
  safety: no seat host, sandbox, folder checks, sweep or limits), counted
  as the floor is (from the players' start) and its steps alone (what a
  series that starts its players ahead would pay a game with it).  The
  distance from it to the series rows is the cost of the referee's design
  (a worker and a seat host a seat, each step through both) and its
  safety; the distance from it to the floor is the step's own work;
- step 1 against the later steps: each persistent game's first step wall
  over the median of its later ones (as logged), the median over games; and
  the same of the floor's games (the bare driver's turns), whose players
  play step 1 just after their start-up: a player's own first turn runs
  code its later turns find warm, so this ratio is above 1 with no referee.
  Both rows also give step 1's excess in time (step 1 less the median later
  step): the ratio of a ~0.1 ms turn moves a lot with a few tens of us.

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
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bare_driver import children_cpu, protocol_steps, spawned_steps  # run as a script from this folder
from bench_core import BOARD, PLAYER, print_table
from bench_persistent import TRIVIAL, bare_match
from lean_engine import lean_match
from referee.core.sandbox import resolve

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the RAM disk's checks
from ram_disk import ram_disk  # noqa: E402

GAMES = int(os.environ.get("GAMES", 20))  # more: a steadier per-game figure, a longer run
# Without "..": a sandbox lets a program's own installation in by its plain path.
PYTHON = os.path.normpath(sys.executable)


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


class Floors:
    """The floors, measured a part at a time between the series (the same
    load falls on both): each game of the first persistent series replayed
    by the bare driver with the players kept alive, and some of them with a
    player spawned at each step (``bare_driver``: the protocol's files
    written, the old decision removed, at every step)."""

    def __init__(self, root: Path, kept: list[str], spawned: list[str], parts: int) -> None:
        self.root, self.kept_argv, self.spawned_argv, self.parts = root, kept, spawned, parts
        self.todo: list[Path] = []
        self.spawn_todo: list[Path] = []
        self.kept: list[tuple[float, float, float, float]] = []  # a game's (wall, players' CPU, the
        # driver's CPU in the file work, in all its work)
        self.lean: list[tuple[float, float]] = []  # a game played by lean_engine: (wall, its steps')
        self.first: list[tuple[float, float]] = []  # each kept-alive game's step 1 (s) and its median later step
        self.spawns: list[float] = []  # wall of each spawned step
        self.spawn_cpu: list[float] = []
        self.steps: list[int] = []
        self._turns: dict[Path, list] = {}

    def games(self, games: list[Path]) -> None:
        self.todo, self.spawn_todo = list(games), list(games[:SPAWNED_GAMES])
        self._turns = {game: protocol_steps(game) for game in games}  # before any clock
        self.steps = [len(turns) for turns in self._turns.values()]

    def part(self, last: bool = False) -> None:
        """Replay the next share of the games (all that is left if ``last``)."""
        count = len(self.todo) if last else -(-len(self.todo) // max(self.parts, 1))
        for game in self.todo[:count]:
            tag = f"b{len(self.kept)}-"
            driver: list[tuple[float, float]] = []
            turns: list[float] = []
            players = children_cpu()
            wall = bare_match(self.root, game, self.kept_argv, tag, driver, turns)
            self.kept.append((wall, children_cpu() - players, *driver[0]))
            self.first.append((turns[0], statistics.median(turns[1:])))
            self.lean.append(lean_match(self.root, BOARD, 1, self.kept_argv, f"l{len(self.lean)}-"))
        del self.todo[:count]
        count = len(self.spawn_todo) if last else min(1, len(self.spawn_todo))
        for game in self.spawn_todo[:count]:
            folder = self.root / f"sp{len(self.spawns)}"
            folder.mkdir()
            self.spawns += spawned_steps(folder, self._turns[game], self.spawned_argv, self.spawn_cpu)
        del self.spawn_todo[:count]
        self.parts -= 1


SPAWNED_GAMES = 6
"""Games replayed with a player spawned at each step (~46 spawns each)."""


def main() -> None:
    sandboxes = ["none", "none-fresh"]
    if resolve("auto").on:
        sandboxes = ["auto", "fresh", *sandboxes]
    else:
        print("(default sandbox: skipped, bwrap cannot start here)")
    disk = ram_disk()
    with tempfile.TemporaryDirectory(dir=disk) as tmp:
        root = Path(tmp)
        (root / "trivial.py").write_text(TRIVIAL)
        (root / "player.py").write_text(PLAYER)
        kept = [PYTHON, "-S", str(root / "trivial.py")]
        spawned = [PYTHON, "-S", str(root / "player.py")]
        floors = Floors(root, kept, spawned, parts=2 * len(sandboxes))
        runs, ones = {}, {}
        for kind, player in (("persistent", "persistent:" + " ".join(kept)), ("spawned", " ".join(spawned))):
            for sandbox in sandboxes:  # a kind's variants one after the other: the same machine load
                runs[kind, sandbox] = series(root, player, sandbox, f"{kind}-{sandbox}")
                ones[kind, sandbox] = series(root, player, sandbox, f"{kind}-{sandbox}-2", games=2)
                if not floors.steps:
                    floors.games(runs[kind, sandbox][2])
                floors.part()
        floors.part(last=True)
        games = runs["persistent", sandboxes[0]][2]
        floor_kept = statistics.mean(g[0] for g in floors.kept)
        players_kept = statistics.mean(g[1] for g in floors.kept)
        files_kept = statistics.mean(g[2] for g in floors.kept)
        driver_kept = statistics.mean(g[3] for g in floors.kept)
        cpu_kept = players_kept + files_kept
        steps = statistics.mean(floors.steps)
        spawn, cpu_spawn = statistics.median(floors.spawns), statistics.mean(floors.spawn_cpu)
        floor_spawned = steps * spawn
        first = [(w[0] / 1000, statistics.median(w[1:]) / 1000) for w in map(walls, games)]
    rows = [
        (f"floor, kept alive: bare driver, the same programs, files and boards (mean of {len(floors.kept)} games)",
         f"{floor_kept * 1000:.1f} ms", "1.00"),
        (f"floor, spawned: {steps:.0f} steps x one bare spawn with the step's files "
         f"({spawn * 1000:.1f} ms, median of {len(floors.spawns)})", f"{floor_spawned * 1000:.1f} ms", "1.00"),
    ]
    floors_of = {"persistent": (floor_kept, cpu_kept), "spawned": (floor_spawned, steps * cpu_spawn)}
    rows += series_rows(runs, ones, floors_of, 0, "")
    lean, lean_steps = (statistics.mean(g[i] for g in floors.lean) for i in (0, 1))
    rows.append((f"  reference, counted as the floor: each game played by one process, no seat host "
                 f"(lean_engine: the rules, views, freeze and log; its steps alone {lean_steps * 1000:.1f} ms)",
                 f"{lean * 1000:.1f} ms", f"{lean / floor_kept:.2f}"))
    rows += [(f"CPU, floor, kept alive: per game, the players' {players_kept * 1000:.1f} and the file work's "
              f"{files_kept * 1000:.1f} (not counted: the rest of the driver's, {(driver_kept - files_kept) * 1000:.1f})",
              f"{cpu_kept * 1000:.1f} ms", "1.00"),
             (f"CPU, floor, spawned: {steps:.0f} steps x one bare spawn's CPU, the player's and the file work's "
              f"({cpu_spawn * 1000:.1f} ms, mean)", f"{steps * cpu_spawn * 1000:.1f} ms", "1.00")]
    rows += series_rows(runs, ones, floors_of, 1, "CPU, ")
    for name, pairs in ((f"persistent, {VARIANTS[sandboxes[0]]}: step 1 wall / median later step "
                         "(median of games; time: step 1 less that median)", first),
                        ("  the same of the floor: the bare driver's step 1 turn / its median later turn, "
                         "the players started just before", floors.first)):
        rows.append((name, f"{statistics.median(one - later for one, later in pairs) * 1000:.2f} ms",
                     f"{statistics.median(one / later for one, later in pairs):.2f}"))
    where = f"{disk} (RAM disk)" if disk else f"{tempfile.gettempdir()} (default temp dir, no usable RAM disk)"
    print(f"(load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"series and floors on {where})")
    print_table(rows)


if __name__ == "__main__":
    main()
