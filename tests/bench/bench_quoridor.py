"""Quoridor rules speed next to OpenSpiel's C++ quoridor, same positions, same run.

1. Legal-move generation: positions sampled from random two-player games
   played in both engines in lockstep; each engine lists every legal move of
   every position (our states are rebuilt without their caches, so nothing is
   reused), several rounds.  Figure: positions per second in the best round.
2. Random playouts: from each sampled position, a uniformly random game to
   the end (goal or ply cap) in each engine.  Figure: plies per second.
3. The built-in strong player (ours only): its search at a node budget on
   the first sampled positions.  Figure: search nodes per second, and a
   digest of its decisions: the same digest is the same play.  The player is
   the one next to the imported ``referee`` package, so with
   ``PYTHONPATH=<other checkout>`` the line measures that checkout's rules
   and player (a baseline in the same conditions).

The ratio ours/OpenSpiel is the figure that matters: both run here, now, on
the same machine.  Usage: .venv/bin/python tests/bench/bench_quoridor.py [POSITIONS]
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import random
import sys
import time
from pathlib import Path

import referee
from referee.games.quoridor.rules import QuoridorState
from referee.search import Budget

try:
    import pyspiel

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from test_quoridor_openspiel import ours  # the coordinate mapping, in one place
except ImportError:  # the comparison needs the test extra
    pyspiel = None

ROUNDS = 5
STRONG_POSITIONS, STRONG_NODES = 40, 3000


def kind_first_choice(rng: random.Random, legal: list):
    """Pawn move or wall evenly, then uniformly within the kind (as the
    built-in random player), so walls last into the middle game."""
    kinds: dict[type, list] = {}
    for decision in legal:
        kinds.setdefault(type(decision), []).append(decision)
    return rng.choice(kinds[rng.choice(sorted(kinds, key=lambda k: k.__name__))])


def sample_positions(count: int, seed: int) -> list[tuple[QuoridorState, object]]:
    """(our state, OpenSpiel state) pairs of the same positions."""
    rng = random.Random(seed)
    game = pyspiel.load_game("quoridor", {"players": 2}) if pyspiel else None
    found: list[tuple[QuoridorState, object]] = []
    while len(found) < count:
        state = QuoridorState.start(2)
        theirs = game.new_initial_state() if game else None
        stop = rng.randint(0, 80)
        for _ in range(stop):
            if state.is_terminal():
                break
            choice = kind_first_choice(rng, state.legal_decisions())
            if theirs is not None:
                actions = {ours(theirs.action_to_string(a), state): a for a in theirs.legal_actions()}
                theirs.apply_action(actions[choice])
            state, _ = state.apply(state.turn, choice)
        if not state.is_terminal():
            found.append((state, theirs))
    return found


def timed(fn) -> float:
    """CPU seconds of ``fn``: both engines run single-threaded in this process,
    and on a shared machine CPU time is the work done, wall time is not."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def legal_generation(positions) -> tuple[float, float | None]:
    """Positions per second, the best of ROUNDS rounds per engine: the two
    cores are shared, and a busy machine only ever slows a round down."""
    def run_ours():
        for state, _ in positions:
            dataclasses.replace(state).legal_decisions()

    def run_theirs():
        for _, theirs in positions:
            theirs.legal_actions()

    n = len(positions)
    mine = max(n / timed(run_ours) for _ in range(ROUNDS))
    return mine, (max(n / timed(run_theirs) for _ in range(ROUNDS)) if pyspiel else None)


def playouts(positions, seed: int) -> tuple[float, float | None]:
    plies = {"ours": 0, "theirs": 0}

    def run_ours():
        rng = random.Random(seed)
        for state, _ in positions:
            state = dataclasses.replace(state)
            while not state.is_terminal():
                state, _ = state.apply(state.turn, rng.choice(state.legal_decisions()))
                plies["ours"] += 1

    def run_theirs():
        rng = random.Random(seed)
        for _, theirs in positions:
            theirs = theirs.clone()
            while not theirs.is_terminal():
                theirs.apply_action(rng.choice(theirs.legal_actions()))
                plies["theirs"] += 1

    seconds = timed(run_ours)
    mine = plies["ours"] / seconds
    if not pyspiel:
        return mine, None
    seconds = timed(run_theirs)
    return mine, plies["theirs"] / seconds


def strong_search(positions) -> tuple[float, str]:
    """Nodes per CPU second of strong's search and a digest of its decisions."""
    path = Path(referee.__file__).resolve().parents[1] / "players" / "quoridor" / "strong.py"
    spec = importlib.util.spec_from_file_location("quoridor_strong", path)
    strong = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(strong)
    decisions, nodes = [], 0
    start = time.process_time()
    for state, _ in positions[:STRONG_POSITIONS]:
        budget = Budget(STRONG_NODES, None)
        decisions.append(str(strong.choose(dataclasses.replace(state), budget)))
        nodes += budget.count
    seconds = time.process_time() - start
    return nodes / seconds, hashlib.sha256("\n".join(decisions).encode()).hexdigest()[:12]


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 200
    positions = sample_positions(count, seed=1)
    rows = [("legal-move generation (positions/s)", *legal_generation(positions)),
            ("random playouts (plies/s)", *playouts(positions, seed=2))]
    print(f"Quoridor, 2 players, {count} positions from random games"
          + ("" if pyspiel else " (OpenSpiel not installed: pip install open-spiel)"))
    print(f"{'measure':<38}{'referee':>12}{'OpenSpiel':>12}{'ratio':>9}")
    for name, mine, theirs in rows:
        other = f"{theirs:>12,.0f}" if theirs else f"{'n/a':>12}"
        ratio = f"{mine / theirs:>9.2f}" if theirs else f"{'':>9}"
        print(f"{name:<38}{mine:>12,.0f}{other}{ratio}")
    rate, digest = strong_search(positions)
    print(f"strong player, {min(count, STRONG_POSITIONS)} positions x {STRONG_NODES} nodes: "
          f"{rate:,.0f} nodes/s, decisions {digest} ({Path(referee.__file__).resolve().parents[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
