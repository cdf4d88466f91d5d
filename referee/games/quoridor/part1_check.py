"""``referee check quoridor-part1 FILE``: grade a module's Part 1 functions.

The module is set up through ``init`` and ``last_move`` (one wall at a time),
then ``get_neighbors(playerData, r, c)`` and ``get_shortest_path(playerData,
r1, c1, r2, c2)`` are asked about many squares on many generated wall layouts
(random legal walls, and pockets no pawn is in so that some squares are
unreachable).  Two contracts: ours (player 1 of a two-player game, 10 walls
each, walls reported as players 1 and 2 in turn) and, with ``--course``, the
course's Part 1 (one player alone with 20 walls, every PlayerMove with
playerId 1, as its PRE_MOVE list was).

A layout whose set-up crashed fails every one of its cases, each with the
line of the student's file the exception came from: a report can never show
a function passing while its layouts could not even be built.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from referee.core.errors import InputError
from referee.core.interpreter import PYTHON
from referee.core.rng import derived_rng

from .course_api import (Logger, PlayerMove, StudentCodeError, describe_error, find_module, load_module,
                         module_folder, updated)
from .game import apply_premoves
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


@dataclass(frozen=True)
class Contract:
    """How the module is set up before it is asked: how many players the
    game has (the module is player 1), the ``numWalls`` it is told, and so
    which playerId reports each wall."""

    name: str
    players: int
    about: str

    @property
    def walls(self) -> int:
        return WALLS_PER_PLAYER[self.players]


REFEREE = Contract("referee", 2, "player 1 of a two-player game, 10 walls each, "
                                 "walls reported as players 1 and 2 in turn")
COURSE = Contract("course", 1, "the course's Part 1: one player, 20 walls, every PlayerMove with playerId 1")
CONTRACTS = {c.name: c for c in (REFEREE, COURSE)}


def layouts(seed: int = 0, contract: Contract = REFEREE) -> Iterator[list[Wall]]:
    """Wall layouts, each a legal sequence of wall placements by the
    contract's players in turn; every third one starts with a pocket."""
    for i in range(LAYOUTS):
        rng = derived_rng(seed, "quoridor-part1", i)
        state = QuoridorState.start(contract.players)
        placed = [parse_decision(text) for text in POCKETS[(i // 3) % len(POCKETS)]] if i % 3 == 0 else []
        for wall in placed:
            state, _ = state.apply(state.turn, wall)
        for _ in range(rng.randint(0, contract.players * contract.walls - len(placed))):
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


def _queries(rng, state: QuoridorState) -> tuple[list[tuple[int, int]], list[tuple[tuple[int, int], tuple[int, int]]]]:
    """A layout's neighbour squares and path pairs (the first path starts in
    a pocket when there is one)."""
    squares = [(rng.randrange(SIZE), rng.randrange(SIZE)) for _ in range(NEIGHBOR_QUERIES)]
    pocket = unreachable_squares(state)
    pairs = []
    for k in range(PATH_QUERIES):
        start = rng.choice(pocket) if k == 0 and pocket else (rng.randrange(SIZE), rng.randrange(SIZE))
        pairs.append((start, (rng.randrange(SIZE), rng.randrange(SIZE))))
    return squares, pairs


def given_layout(text: str, source: str, contract: Contract) -> list[Wall]:
    """The walls of pre-moves (ours or the course's ``PlayerMove(...)``),
    played from the start under ``contract``: the course graded Part 1 on
    its config's PRE_MOVE list.  InputError (source and line) for an illegal
    one, a pawn move, or none at all."""
    state = apply_premoves(QuoridorState.start(contract.players), text, source)
    walls = [parse_decision(decision) for _, decision in state.moves]
    if not walls:
        raise InputError("no pre-moves given for the layout", source)
    if not all(isinstance(w, Wall) for w in walls):
        raise InputError("a Part 1 layout is walls only (its pawn moves would not change any answer)", source)
    return walls


def every_query() -> tuple[list[tuple[int, int]], list[tuple[tuple[int, int], tuple[int, int]]]]:
    """Every square's neighbours and a path between every pair of squares
    (81 and 6561 questions), as the course asked them of its layout."""
    squares = [(r, c) for r in range(SIZE) for c in range(SIZE)]
    return squares, [(a, b) for a in squares for b in squares]


def plan(seed: int, contract: Contract, given: list[Wall] | None = None):
    """Each layout's walls, neighbour squares and path pairs: the generated
    layouts with a few random questions each, or one given layout with
    every question."""
    if given is not None:
        yield given, *every_query()
        return
    for index, walls in enumerate(layouts(seed, contract)):
        rng = derived_rng(seed, "quoridor-part1-queries", index)
        yield walls, *_queries(rng, _answers(walls, contract))


def _answers(walls: list[Wall], contract: Contract) -> QuoridorState:
    """The position the right answers are read from (pawns play no part)."""
    seats_ = range(1, contract.players + 1)
    return QuoridorState.arrange(contract.players, {p: START[p] for p in seats_}, walls,
                                 {p: 0 for p in seats_}, 1)


def run_cases(path: str, seed: int = 0, contract: Contract = REFEREE,
              given: list[Wall] | None = None) -> Iterator[dict[str, Any]]:
    """Every case's result (runs the student module in this process).  Each
    layout gets a new instance of the module, as each run of the course
    engine did: module globals a module keeps its board in start afresh."""
    folder = str(module_folder(path))
    homes = tuple(START[p] for p in range(1, contract.players + 1))
    for index, (walls, squares, pairs) in enumerate(plan(seed, contract, given)):
        module = load_module(path)
        state = _answers(walls, contract)
        setup = [f"W {w.r1} {w.c1} {w.r2} {w.c2}" for w in walls]
        calls = [("get_neighbors", f"get_neighbors(playerData, {r}, {c})") for r, c in squares]
        calls += [("get_shortest_path", f"get_shortest_path(playerData, {a[0]}, {a[1]}, {b[0]}, {b[1]})")
                  for a, b in pairs]
        try:
            data = module.init(Logger(), 1, contract.walls, homes)
            for k, w in enumerate(walls):
                mover = 1 + k % contract.players
                data = updated(data, module.last_move(data, PlayerMove(mover, False, w.r1, w.c1, w.r2, w.c2)))
        except Exception as exc:  # the student's code: every case of the layout fails, saying why
            problem = f"setting up the layout crashed (init/last_move): {describe_error(exc, folder)}"
            for function, call in calls:
                yield {"layout": index, "walls": setup, "call": call, "ok": False, "problem": problem,
                       "function": function, "setup_failed": True}
            continue
        for (r, c), (function, call) in zip(squares, calls):
            expected = neighbors(state, r, c)
            try:
                got = module.get_neighbors(data, r, c)
                pairs_got = _pairs(got)
                problem = None if pairs_got is not None and sorted(pairs_got) == sorted(expected) else \
                    f"expected {sorted(expected)} in any order, got {got!r}"
            except Exception as exc:
                problem = describe_error(exc, folder)
            yield {"layout": index, "walls": setup, "call": call, "ok": problem is None, "problem": problem,
                   "function": function}
        for (start, end), (function, call) in zip(pairs, calls[len(squares):]):
            try:
                problem = path_problem(state, start, end, module.get_shortest_path(data, *start, *end))
            except Exception as exc:
                problem = describe_error(exc, folder)
            yield {"layout": index, "walls": setup, "call": call, "ok": problem is None, "problem": problem,
                   "function": function}


SHOWN_LAYOUTS = 10


def case_counts(given: bool) -> tuple[int, dict[str, int]]:
    """(layouts, cases per function) of a check: the generated layouts' or
    the given layout's (every question)."""
    if given:
        return 1, {"get_neighbors": SIZE * SIZE, "get_shortest_path": SIZE ** 4}
    return LAYOUTS, {"get_neighbors": LAYOUTS * NEIGHBOR_QUERIES, "get_shortest_path": LAYOUTS * PATH_QUERIES}


def report(results: list[dict[str, Any]], finished: bool, note: str = "",
           contract: Contract = REFEREE, given: bool = False) -> tuple[str, int]:
    """The grade: cases passed per function out of all the cases there are
    (a case never run, because the check stopped, is not passed), the
    layouts that failed and why, and the first failing case in full."""
    count, cases = case_counts(given)
    lines = [f"contract: {contract.about}"]
    if given:
        lines.append("layout: the given pre-moves, every square's neighbours and every pair's path")
    for function, expected in cases.items():
        passed = sum(r["ok"] for r in results if r.get("function") == function)
        lines.append(f"{function}: {passed}/{expected} cases passed")
    crashed = sorted({r["layout"] for r in results if r.get("setup_failed")})
    if crashed:
        lines.append(f"init/last_move crashed on {len(crashed)} of {count} layouts "
                     "(their cases are failed)")
    total = sum(r["ok"] for r in results)
    expected_total = sum(cases.values())
    lines.append(f"score: {100.0 * total / expected_total:.1f}% ({total}/{expected_total})")
    if note:
        lines.append(note)
    lines += _failing_layouts(results, count)
    failed = next((r for r in results if not r["ok"]), None)
    if failed:
        lines += [f"first failing case (layout {failed['layout']}):",
                  "  walls: " + ("; ".join(failed["walls"]) or "none"),
                  f"  call: {failed['call']}", f"  problem: {failed['problem']}"]
    ok = finished and failed is None and total == expected_total
    return "\n".join(lines), 0 if ok else 1


def _failing_layouts(results: list[dict[str, Any]], count: int) -> list[str]:
    """One line per layout with a failure: how many of its cases failed and
    the first problem (a set-up crash names its file and line)."""
    by_layout: dict[int, list[dict[str, Any]]] = {}
    for r in results:
        by_layout.setdefault(r["layout"], []).append(r)
    failing = [(i, cases) for i, cases in sorted(by_layout.items()) if not all(c["ok"] for c in cases)]
    if not failing:
        return []
    lines = [f"failing layouts: {len(failing)} of {count}"]
    for i, cases in failing[:SHOWN_LAYOUTS]:
        bad = [c for c in cases if not c["ok"]]
        lines.append(f"  layout {i}: {len(bad)}/{len(cases)} cases failed; {bad[0]['problem']}")
    if len(failing) > SHOWN_LAYOUTS:
        lines.append(f"  ... and {len(failing) - SHOWN_LAYOUTS} more layouts")
    return lines


def check(path: str, seed: int = 0, time_limit: float = TIME_LIMIT_S,
          contract: Contract = REFEREE, given: list[Wall] | None = None) -> tuple[str, int]:
    """Grade ``path`` (a module file or package folder) on the generated
    layouts, or on the ``given`` one; returns (the report, exit code: 0 all
    passed, 1 otherwise)."""
    command = [PYTHON, "-P", "-m", __name__, path, str(seed), contract.name]
    if given is not None:
        command.append(";".join(str(w) for w in given))
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
    return report(results, not note, note, contract, given is not None)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


RESULT = "@@case "


def config_premoves(path: str) -> str:
    """A course config file's ``PRE_MOVE`` lines (others blanked, so line
    numbers stay the file's)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the config: {getattr(exc, 'strerror', None) or exc}", path) from None
    return "\n".join(line if line.split()[:1] == ["PRE_MOVE"] else "" for line in text.splitlines())


def _worker(argv: list[str]) -> None:
    """One JSON line per case on stdout; the module's own prints go to stderr."""
    results, sys.stdout = sys.stdout, sys.stderr
    try:
        contract = CONTRACTS[argv[2]] if len(argv) > 2 else REFEREE
        given = [parse_decision(text) for text in argv[3].split(";")] if len(argv) > 3 else None
        for result in run_cases(argv[0], int(argv[1]) if len(argv) > 1 else 0, contract, given):
            results.write(RESULT + json.dumps(result) + "\n")
            results.flush()
    except StudentCodeError as exc:  # one line, the last on stderr: check() reports it
        sys.exit(str(exc))


@click.command("quoridor-part1")
@click.argument("file", type=click.Path(exists=True))
@click.option("--seed", type=int, default=0, show_default=True, help="Which generated layouts.")
@click.option("--course", is_flag=True,
              help="The course's Part 1 contract: one player, 20 walls, every PlayerMove with playerId 1.")
@click.option("--premoves", metavar="TEXT",
              help="Grade on this one layout instead (walls as pre-moves, ';' between them; ours or "
                   "PlayerMove(1,False,7,3,7,5)), asking every square's neighbours and every pair's path.")
@click.option("--config", "config", type=click.Path(exists=True, dir_okay=False),
              help="The same from a course config file: its PRE_MOVE lines.")
def part1_command(file: str, seed: int, course: bool, premoves: str | None, config: str | None) -> None:
    """Grade a module's get_neighbors and get_shortest_path (Quoridor Part 1).

    FILE is the module file or its package folder (with __init__.py)."""
    if find_module(file) is None:
        raise click.BadParameter(f"{file!r} is a folder without __init__.py", param_hint="FILE")
    contract = COURSE if course else REFEREE
    given = None
    try:
        if config is not None:
            given = given_layout(config_premoves(config), config, contract)
        elif premoves is not None:
            given = given_layout(premoves, "--premoves", contract)
    except InputError as exc:
        raise click.UsageError(str(exc)) from None
    text, code = check(file, seed, contract=contract, given=given)
    click.echo(text)
    sys.exit(code)


if __name__ == "__main__":
    _worker(sys.argv[1:])
