"""Why strong cannot reach 90% against greedy at Cantris: the second seat,
solved.  An analysis, not a benchmark (minutes per 8x4 board; `make bench`
does not run it).

For every board given (default: the 6x3 and 8x4 boards of the strength
bench) it plays greedy's first turn, as in every bench game where strong
moves second, and then answers two questions about the position left:

  perfect  the result for the second mover when both sides play perfectly:
           an exact alpha-beta over the whole game tree (a transposition
           table of bounds on the points still to come, so a position's
           value does not depend on the points already scored);
  vs greedy the best result any player can reach against greedy itself:
           greedy is deterministic (the most points now, ties in reading
           order), so this is a one-player search over the second mover's
           removals with greedy's replies filled in.  If this is a loss, no
           player, whatever it knows about greedy, wins that game.

Both searches use the referee's own rules (CantrisState) and greedy's own
code, so they cannot disagree with the bench about a single point.  The 10x5
boards are out of reach of these exhaustive searches in Python.

Usage: .venv/bin/python tests/bench/cantris_second_mover.py [BOARD ...]
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import Callable

from referee.core.game import Setup
from referee.games import cantris
from referee.games.cantris.rules import Board, CantrisState, Removal

ROOT = Path(__file__).resolve().parents[2]
BOARDS = ["6x3-1.txt", "6x3-2.txt", "6x3-3.txt", "8x4-1.txt", "8x4-2.txt", "8x4-handout.txt"]
INF = 10**9


def load_greedy() -> Callable[[Board], Removal]:
    """players/cantris/greedy.py's ``best_removal`` (a script, not a package)."""
    path = ROOT / "players" / "cantris" / "greedy.py"
    spec = importlib.util.spec_from_file_location("cantris_greedy", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.best_removal


def gain_of(state: CantrisState, move: Removal) -> tuple[int, CantrisState]:
    """Points the mover scores with ``move`` (cascades included), and the state after.

    States in these searches carry no points (they do not change what is
    legal); the points of a step are read off the child."""
    player = state.current_player()
    child, _ = state.apply(player, move)
    return child.points[player - 1] - state.points[player - 1], child


def fresh(state: CantrisState) -> CantrisState:
    """The same position with points zeroed, so positions transpose."""
    return CantrisState(state.board, (0, 0), state.step % (2 * state.per_turn), state.over)


class PerfectPlay:
    """Exact value of a position: the most the side to move can score from here
    on, minus what the other side scores, both playing perfectly (negamax on
    points still to come, alpha-beta, bounds kept per position)."""

    def __init__(self) -> None:
        self.table: dict[tuple[Board, int], tuple[int, int]] = {}
        """(board, removal of the turn) -> (lower, upper) bound: the value is the
        side to move's, so it does not matter which player that is."""
        self.nodes = 0

    def value(self, state: CantrisState, alpha: int, beta: int) -> int:
        self.nodes += 1
        key = (state.board, state.removal_index())
        low, high = self.table.get(key, (-INF, INF))
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        window = alpha, beta
        alpha, beta = max(alpha, low), min(beta, high)
        children = sorted((gain_of(state, m) for m in state.legal_decisions()), key=lambda x: -x[0])
        best = -INF
        for gain, child in children:
            if child.over:
                value = gain
            elif child.current_player() == state.current_player():
                value = gain + self.value(fresh(child), alpha - gain, beta - gain)
            else:
                value = gain - self.value(fresh(child), gain - beta, gain - alpha)
            best = max(best, value)
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        if best <= window[0]:
            self.table[key] = (low, min(high, best))
        elif best >= window[1]:
            self.table[key] = (max(low, best), high)
        else:
            self.table[key] = (best, best)
        return best

    def result(self, state: CantrisState, behind: int) -> str:
        """WIN, DRAW or LOSS for the side to move, ``behind`` points down: two
        null-window searches around the margin it needs."""
        if self.value(state, behind, behind + 1) > behind:
            return "WIN"
        return "DRAW" if self.value(state, behind - 1, behind) >= behind else "LOSS"


class AgainstGreedy:
    """The best margin (points still to come) the side to move can reach when
    the other side is greedy: a maximum over its own removals only."""

    def __init__(self, greedy: Callable[[Board], Removal]) -> None:
        self.greedy = greedy
        self.memo: dict[tuple[Board, int], int] = {}

    def greedy_turn(self, state: CantrisState) -> tuple[int, CantrisState]:
        """Greedy's whole turn (one removal, two on 10x5): its points and the state after."""
        me, scored = state.current_player(), 0
        while not state.over and state.current_player() == me:
            gain, state = gain_of(state, self.greedy(state.board))
            scored += gain
        return scored, state

    def value(self, state: CantrisState) -> int:
        key = (state.board, state.step)
        if key in self.memo:
            return self.memo[key]
        best = -INF
        for move in state.legal_decisions():
            gain, child = gain_of(state, move)
            if not child.over and child.current_player() == state.current_player():
                gain += self.value(fresh(child))
            elif not child.over:
                lost, after = self.greedy_turn(fresh(child))
                gain -= lost
                if not after.over:
                    gain += self.value(fresh(after))
            best = max(best, gain)
        self.memo[key] = best
        return best


def verdict(margin: int, behind: int) -> str:
    return "WIN" if margin > behind else ("DRAW" if margin == behind else "LOSS")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("boards", nargs="*", default=BOARDS, help="files in boards/cantris/")
    args = parser.parse_args(argv)
    greedy = load_greedy()
    print(f"{'board':<16}{'greedy 1st turn':>16}{'perfect play':>14}{'vs greedy: best margin':>24}"
          f"{'result':>8}{'seconds':>9}")
    for name in args.boards:
        path = ROOT / "boards" / "cantris" / name
        g = cantris.GAME
        board = g.parse_board(path.read_text(), str(path), g.variants[0])
        start = g.initial_state(Setup(g.variants[0], 2, 0, board, dict(g.settings)))
        started = time.perf_counter()
        solver = AgainstGreedy(greedy)
        scored, state = solver.greedy_turn(start)
        if state.over:
            print(f"{name:<16}{scored:>16}  greedy's first turn ends the game")
            continue
        perfect = PerfectPlay().result(fresh(state), scored)
        best = solver.value(fresh(state))
        print(f"{name:<16}{scored:>16}{perfect:>14}{best - scored:>+24}{verdict(best, scored):>8}"
              f"{time.perf_counter() - started:>9.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
