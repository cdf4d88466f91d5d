"""`make bench-ab BASE=<rev>`: this checkout against another revision, in one run.

The series rows of `make bench` move ~10% from run to run on a shared VM, as
much as most changes to a step's path; a change is shown by comparing it with
its base on the same machine at the same time.  This checks ``BASE`` out in a
temporary worktree and plays the same series with each, alternately (ABBA
rounds), with this checkout's interpreter: ``python -m referee`` run from a
checkout imports that checkout's package, its fork server and seat hosts too.

Each round plays, for each side, a ``--games AB_GAMES --jobs 1`` Cantris 10x5
series and a 2-game one of two trivial SDK programs (the first non-empty cell
in reading order, as ``bench_series``), kept alive (``persistent:``) or
spawned; a game costs the long series less the short one over ``AB_GAMES - 2``
(wall time, and CPU of everything the command waited for).  The table gives
each side's median over the rounds, this checkout's over the base's, and in
how many rounds this checkout's game was the quicker.  The programs and a
copy of this checkout's SDK are in a temporary folder of their own, which
both sides' sandboxes show (with the base's checkout and the series' output
in that folder too, the first version read 0.91-0.95 against itself), on a
RAM disk where ``tests/ram_disk.py`` finds one, as ``bench_series``'s.

Environment: AB_ROUNDS (6), AB_GAMES (30), AB_SANDBOXES (``auto,none``),
AB_KINDS (``persistent``; ``persistent,spawned`` for both), AB_DISK (a folder
on the disk to play on, instead of the RAM disk: e.g. ``/tmp`` on ext4).  Fewer rounds or
games than the defaults measure mostly the machine's noise: compare this
checkout with itself (``BASE=HEAD``) to see how much."""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_core import PLAYER, print_table  # run as a script from this folder
from bench_persistent import TRIVIAL

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the RAM disk's checks
from ram_disk import ram_disk  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "boards" / "cantris" / "10x5-1.txt"
SDK = ROOT / "players" / "sdk" / "python"
PYTHON = os.path.normpath(sys.executable)


def series(checkout: Path, player: str, sandbox: str, games: int, out: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``referee play --games N`` run from ``checkout``."""
    shutil.rmtree(out, ignore_errors=True)
    argv = [PYTHON, "-m", "referee", "play", "cantris", "--board", str(BOARD), "--player", player,
            "--player", player, "--games", str(games), "--jobs", "1", "--seed", "1",
            "--sandbox", sandbox, "--out", str(out)]
    start, before = time.perf_counter(), os.times()
    subprocess.run(argv, cwd=checkout, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = os.times()
    cpu = (after.children_user + after.children_system) - (before.children_user + before.children_system)
    return time.perf_counter() - start, cpu


def per_game(checkout: Path, player: str, sandbox: str, games: int, out: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of each game of a long series: the long one less the 2-game one."""
    long_wall, long_cpu = series(checkout, player, sandbox, games, out)
    short_wall, short_cpu = series(checkout, player, sandbox, 2, out)
    return (long_wall - short_wall) / (games - 2), (long_cpu - short_cpu) / (games - 2)


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: make bench-ab BASE=<revision>  (python tests/bench/ab.py REVISION)", file=sys.stderr)
        return 2
    base_rev = sys.argv[1]
    try:
        rounds, games = int(os.environ.get("AB_ROUNDS", 6)), int(os.environ.get("AB_GAMES", 30))
    except ValueError:
        rounds = games = 0
    sandboxes = os.environ.get("AB_SANDBOXES", "auto,none").split(",")
    kinds = os.environ.get("AB_KINDS", "persistent").split(",")
    if games < 3 or rounds < 1:
        print("ab: AB_GAMES must be a whole number of at least 3, AB_ROUNDS one of at least 1", file=sys.stderr)
        return 2
    if not set(kinds) <= {"persistent", "spawned"} or not set(sandboxes) <= {"auto", "bwrap", "none"}:
        print("ab: AB_KINDS takes persistent and spawned, AB_SANDBOXES auto, bwrap and none (comma-separated)",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="referee-ab-", dir=os.environ.get("AB_DISK") or ram_disk()) as tmp:
        root = Path(tmp)
        base = root / "base"
        made = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), base_rev],
                              capture_output=True, text=True)
        if made.returncode != 0:
            print(f"ab: cannot check {base_rev!r} out: {made.stderr.strip()}", file=sys.stderr)
            return 2
        try:
            programs = root / "programs"  # a folder of their own (see the module doc)
            shutil.copytree(SDK / "referee_sdk", programs / "referee_sdk")
            (programs / "trivial.py").write_text(TRIVIAL.replace(repr(str(SDK)), repr(str(programs))))
            (programs / "player.py").write_text(PLAYER)
            players = {"persistent": f"persistent:{PYTHON} -S {programs / 'trivial.py'}",
                       "spawned": f"{PYTHON} -S {programs / 'player.py'}"}
            sides = {"base": base, "this": ROOT}
            runs: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
            try:
                for side in (base, ROOT):  # both with their bytecode written, as `make bytecode` does
                    subprocess.run([PYTHON, "-m", "compileall", "-q", str(side / "referee")], check=True,
                                   stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
                for n in range(rounds):
                    order = ("base", "this") if n % 2 == 0 else ("this", "base")
                    for kind in kinds:
                        for sandbox in sandboxes:
                            for side in order:
                                runs.setdefault((kind, sandbox, side), []).append(
                                    per_game(sides[side], players[kind], sandbox, games, root / "out"))
            except subprocess.CalledProcessError as exc:
                print(f"ab: a command failed (exit {exc.returncode}): {' '.join(map(str, exc.cmd))}",
                      file=sys.stderr)
                return 1
            rows = []
            for kind in kinds:
                for sandbox in sandboxes:
                    old, new = runs[kind, sandbox, "base"], runs[kind, sandbox, "this"]
                    for index, measure in ((0, "wall"), (1, "CPU")):
                        was = statistics.median(r[index] for r in old)
                        now = statistics.median(r[index] for r in new)
                        quicker = sum(b[index] < a[index] for a, b in zip(old, new))
                        rows.append((f"{kind}, --sandbox {sandbox}, {measure} a game: base {was * 1000:.1f} ms, "
                                     f"this {now * 1000:.1f} ms (this quicker in {quicker} of {rounds} rounds)",
                                     f"{now * 1000:.1f} ms", f"{now / was:.2f}"))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                           capture_output=True)
    print(f"(this checkout against {base_rev}, {rounds} ABBA rounds of a {games}-game series less a 2-game one; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
