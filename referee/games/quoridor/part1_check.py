"""``referee check quoridor-part1 FILE``: grade a module's Part 1 functions.

The module is driven as the course engine drives it in Part 1 mode: ``init``
for a two-player game as player 1, walls reported through ``last_move``, then
``get_neighbors(playerData, r, c)`` and ``get_shortest_path(playerData, r1, c1,
r2, c2)`` are asked about many squares on many generated wall layouts (random
legal walls, and pockets no pawn is in so that some squares are unreachable).

A neighbour list must be exactly the squares one step away that no wall
separates (pawns ignored).  A path must start and end on the asked squares,
take only such steps and be as short as possible; ``[]`` exactly when the
target cannot be reached.  Any path of the right length passes.

The student code runs in a child process with a time limit, so a module that
loops forever or kills the interpreter costs a failing grade, not a hung shell.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

from referee.core.rng import derived_rng

from .course_api import Logger, PlayerMove, StudentCodeError, describe_error, load_module, updated
from .geometry import SIZE, coords, square
from .codec import parse_decision
from .rules import START, WALLS_PER_PLAYER, QuoridorState, Wall, shortest_path, unreachable_squares
import click

LAYOUTS = 60
NEIGHBOR_QUERIES = 6
PATH_QUERIES = 6
TIME_LIMIT_S = 120.0

POCKETS = [  # walls closing a region no pawn stands in
    ["W 2 0 2 2", "W 0 2 2 2"],                           # rows 0-1, columns 0-1
    ["W 7 7 7 9", "W 7 7 9 7"],                           # rows 7-8, columns 7-8
    ["W 3 3 3 5", "W 5 3 5 5", "W 3 3 5 3", "W 3 5 5 5"],  # rows 3-4, columns 3-4
    ["W 1 7 1 9", "W 0 7 2 7"],                           # row 0, columns 7-8
]


def layouts(seed: int = 0) -> Iterator[list[Wall]]:
    """Wall layouts, each a legal sequence of wall placements by players 1
    and 2 in turn; every third one starts with a pocket."""
    for i in range(LAYOUTS):
        rng = derived_rng(seed, "quoridor-part1", i)
        state = QuoridorState.start(2)
        placed = [parse_decision(text) for text in POCKETS[(i // 3) % len(POCKETS)]] if i % 3 == 0 else []
        for wall in placed:
            state, _ = state.apply(state.turn, wall)
        for _ in range(rng.randint(0, 2 * WALLS_PER_PLAYER[2] - len(placed))):
            walls = [d for d in state.legal_decisions() if isinstance(d, Wall)]
            if not walls:
                break
            wall = rng.choice(walls)
            state, _ = state.apply(state.turn, wall)
            placed.append(wall)
        yield placed


def neighbors(state: QuoridorState, r: int, c: int) -> set[tuple[int, int]]:
    sq = square(r, c)
    found = set()
    for d, delta in enumerate((-SIZE, SIZE, -1, 1)):
        if state.opens[d] >> sq & 1:
            found.add(coords(sq + delta))
    return found


def _pairs(value: Any) -> list[tuple[int, int]] | None:
    """A returned list of coordinate pairs as tuples, or None if it is not one."""
    try:
        pairs = [tuple(int(x) for x in item) for item in value]
    except (TypeError, ValueError):
        return None
    return pairs if all(len(p) == 2 for p in pairs) else None


def path_problem(state: QuoridorState, start: tuple[int, int], end: tuple[int, int], got: Any) -> str | None:
    best = shortest_path(square(*start), 1 << square(*end), state.opens)
    path = _pairs(got)
    if path is None:
        return f"expected a list of (row, col) pairs, got {got!r}"
    if best is None:
        return None if not path else "expected [] (unreachable), got a path"
    if not path:
        return f"expected a path of {len(best)} squares, got []"
    if path[0] != start or path[-1] != end:
        return f"the path must run from {start} to {end} inclusive"
    for a, b in zip(path, path[1:]):
        if b not in neighbors(state, *a):
            return f"the step {a} -> {b} is not a move (off the board, not adjacent, or through a wall)"
    if len(path) != len(best):
        return f"the path has {len(path)} squares, a shortest one has {len(best)}"
    return None


def run_cases(path: str, seed: int = 0) -> Iterator[dict[str, Any]]:
    """Every case's result (runs the student module in this process)."""
    module = load_module(path)
    folder = str(Path(path).resolve().parent)
    homes = (START[1], START[2])
    for index, walls in enumerate(layouts(seed)):
        rng = derived_rng(seed, "quoridor-part1-queries", index)
        state = QuoridorState.arrange(2, dict(zip((1, 2), homes)), walls, {1: 10, 2: 10}, 1)
        setup = [f"W {w.r1} {w.c1} {w.r2} {w.c2}" for w in walls]
        try:
            data = module.init(Logger(), 1, WALLS_PER_PLAYER[2], homes)
            for k, w in enumerate(walls):
                data = updated(data, module.last_move(data, PlayerMove(1 + k % 2, False, w.r1, w.c1, w.r2, w.c2)))
        except Exception as exc:  # the student's code: report, do not crash
            yield {"layout": index, "walls": setup, "call": "init/last_move", "ok": False,
                   "problem": describe_error(exc, folder)}
            continue
        for r, c in [(rng.randrange(SIZE), rng.randrange(SIZE)) for _ in range(NEIGHBOR_QUERIES)]:
            call = f"get_neighbors(playerData, {r}, {c})"
            expected = neighbors(state, r, c)
            try:
                got = module.get_neighbors(data, r, c)
                pairs = _pairs(got)
                problem = None if pairs is not None and sorted(pairs) == sorted(expected) else \
                    f"expected {sorted(expected)} in any order, got {got!r}"
            except Exception as exc:
                problem = describe_error(exc, folder)
            yield {"layout": index, "walls": setup, "call": call, "ok": problem is None, "problem": problem,
                   "function": "get_neighbors"}
        pocket = unreachable_squares(state)
        for k in range(PATH_QUERIES):
            start = rng.choice(pocket) if k == 0 and pocket else (rng.randrange(SIZE), rng.randrange(SIZE))
            end = (rng.randrange(SIZE), rng.randrange(SIZE))
            call = f"get_shortest_path(playerData, {start[0]}, {start[1]}, {end[0]}, {end[1]})"
            try:
                problem = path_problem(state, start, end, module.get_shortest_path(data, *start, *end))
            except Exception as exc:
                problem = describe_error(exc, folder)
            yield {"layout": index, "walls": setup, "call": call, "ok": problem is None, "problem": problem,
                   "function": "get_shortest_path"}


def report(results: list[dict[str, Any]], finished: bool, note: str = "") -> tuple[str, int]:
    lines = []
    for function in ("get_neighbors", "get_shortest_path"):
        mine = [r for r in results if r.get("function") == function]
        passed = sum(r["ok"] for r in mine)
        lines.append(f"{function}: {passed}/{len(mine)} cases passed")
    total = sum(r["ok"] for r in results)
    expected_total = LAYOUTS * (NEIGHBOR_QUERIES + PATH_QUERIES)
    score = 100.0 * total / expected_total
    lines.append(f"score: {score:.1f}% ({total}/{expected_total})")
    failed = next((r for r in results if not r["ok"]), None)
    if note:
        lines.append(note)
    if failed:
        lines += [f"first failing case (layout {failed['layout']}):",
                  "  walls: " + ("; ".join(failed["walls"]) or "none"),
                  f"  call: {failed['call']}", f"  problem: {failed['problem']}"]
    ok = finished and failed is None and total == expected_total
    return "\n".join(lines), 0 if ok else 1


def check(path: str, seed: int = 0, time_limit: float = TIME_LIMIT_S) -> tuple[str, int]:
    """Grade ``path``; returns (the report, exit code: 0 all passed, 1 otherwise)."""
    command = [sys.executable, "-m", __name__, path, str(seed)]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=time_limit,
                              stdin=subprocess.DEVNULL)
        out, err, note = proc.stdout, proc.stderr, ""
        if proc.returncode != 0:
            note = f"the module stopped the check: {_last_line(err) or f'exit status {proc.returncode}'}"
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        note = f"the check timed out after {time_limit:g} s"
    results = [json.loads(line[len(RESULT):]) for line in out.splitlines() if line.startswith(RESULT)]
    return report(results, not note, note)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


RESULT = "@@case "


def _worker(argv: list[str]) -> None:
    """One JSON line per case on stdout; the module's own prints go to stderr."""
    results, sys.stdout = sys.stdout, sys.stderr
    try:
        for result in run_cases(argv[0], int(argv[1]) if len(argv) > 1 else 0):
            results.write(RESULT + json.dumps(result) + "\n")
            results.flush()
    except StudentCodeError as exc:  # one line, the last on stderr: check() reports it
        sys.exit(str(exc))


@click.command("quoridor-part1")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--seed", type=int, default=0, show_default=True, help="Which generated layouts.")
def part1_command(file: str, seed: int) -> None:
    """Grade a module's get_neighbors and get_shortest_path (Quoridor Part 1)."""
    text, code = check(file, seed)
    click.echo(text)
    sys.exit(code)


if __name__ == "__main__":
    _worker(sys.argv[1:])
