"""What the built-in ``strong`` players share: their options, their budget and
an iterative-deepening alpha-beta search over the referee's own game states.

Why it lives in the package and not in players/: every ``strong.py`` imports
the referee's rules already (one rules implementation), so the search comes
from the same place and is tested once.  It knows no game: a player hands it
an evaluation and, where the full move list is too wide, the moves worth
searching.

Budgets.  A strong player stops on whichever comes first:
- a node budget (``--nodes=N``): the search then depends only on the state
  and the seed, never on the clock, so tests and replays are reproducible;
- a time budget: ``min(--budget (default 1 s), soft_time / 2)`` minus a safety
  margin and minus the time the process has already lived (Python start-up and
  imports count against the referee's clock).  A move found under a time budget
  depends on the machine's speed.
With a node budget the clock is still watched, at 90% of the soft limit, as an
emergency brake; if it fires, the player says so on stderr (the move then did
depend on the clock).
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence

from referee.core.game import GameState

DEFAULT_BUDGET = 1.0
SAFETY_MARGIN = 0.08
"""Seconds kept back for writing the decision, exiting and machine jitter."""
STARTUP_GUESS = 0.25
"""Process age assumed where /proc cannot tell it (macOS, Windows)."""
WIN = 1_000_000
OPTIONS = ("budget", "nodes")


class OutOfBudget(Exception):
    """Raised inside a search when the budget is spent; the search unwinds."""


@dataclass(frozen=True)
class StrongOptions:
    budget: float = DEFAULT_BUDGET
    nodes: int | None = None


def parse_options(argv: Sequence[str]) -> StrongOptions:
    """``--budget=S`` and ``--nodes=N`` from the command line.  Only words
    starting with ``--`` are options: ``<step> <player>`` follow them when the
    player is spawned per step, and are absent when it is persistent."""
    values: dict[str, Any] = {}
    for word in argv:
        if not word.startswith("--"):
            continue
        name, _, value = word[2:].partition("=")
        if name == "budget":
            values["budget"] = float(value)
        elif name == "nodes":
            values["nodes"] = int(value)
        else:
            raise SystemExit(f"strong player: unknown option {word!r} (known: --budget=S, --nodes=N)")
    return StrongOptions(**values)


def process_age() -> float:
    """Seconds since this process started (the referee's clock started a bit
    earlier, at the spawn: the safety margin covers that)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return STARTUP_GUESS


class Budget:
    """Counts search nodes and watches the clock; :meth:`tick` raises
    :class:`OutOfBudget` when either is spent."""

    def __init__(self, nodes: int | None, seconds: float | None, brake: float | None = None) -> None:
        now = time.monotonic()
        self.max_nodes = nodes
        self.deadline = None if seconds is None else now + max(0.0, seconds)
        self.brake = None if brake is None else now + max(0.0, brake)
        self.count = 0
        self.braked = False

    @classmethod
    def for_step(cls, options: StrongOptions, limits: Mapping[str, Any] | None) -> "Budget":
        """The budget for one step, from the options and state.json's limits."""
        soft = float((limits or {}).get("soft_time") or 10.0)
        # a persistent player's clock starts with the step, not with the process
        age = 0.0 if os.environ.get("REFEREE_PERSISTENT") == "1" else process_age()
        if options.nodes is not None:
            return cls(options.nodes, None, brake=0.9 * soft - SAFETY_MARGIN - age)
        return cls(None, min(options.budget, soft / 2) - SAFETY_MARGIN - age)

    def tick(self) -> None:
        self.count += 1
        if self.max_nodes is not None and self.count > self.max_nodes:
            raise OutOfBudget
        if self.count & 15 == 0:
            now = time.monotonic()
            if self.deadline is not None and now > self.deadline:
                raise OutOfBudget
            if self.brake is not None and now > self.brake:
                self.braked = True
                raise OutOfBudget

    def spent(self) -> bool:
        """True once the budget is used up (for searches that do not unwind)."""
        try:
            self.tick()
        except OutOfBudget:
            return True
        return False

    def report(self, out=None) -> None:
        if self.braked:
            print("strong player: the node budget did not fit in the time limit; "
                  "this move depends on the clock", file=out or sys.stderr)


Evaluate = Callable[[GameState, int], float]
MovesOf = Callable[[GameState], Iterable[Hashable]]
KeyOf = Callable[[GameState], Hashable]


def terminal_value(state: GameState, me: int, depth_left: int) -> float:
    """A win is worth more the sooner it comes, a loss less the later."""
    winner = state.outcome().winner
    if winner is None:
        return 0.0
    return WIN + depth_left if winner == me else -WIN - depth_left


@dataclass
class SearchResult:
    decision: Hashable
    value: float
    depth: int
    nodes: int


class AlphaBeta:
    """Iterative-deepening alpha-beta (paranoid for more than two players:
    every other player is assumed to play against ``me``), with the best move
    of the last iteration tried first at every node already seen.

    ``evaluate(state, me)`` scores a non-terminal leaf from ``me``'s side;
    ``moves(state)`` lists the decisions to search (default: all legal ones,
    in the rules' order, best-looking first if the caller sorted them);
    ``key(state)`` names a position for the move-ordering table."""

    def __init__(self, me: int, evaluate: Evaluate, budget: Budget,
                 moves: MovesOf | None = None, key: KeyOf | None = None,
                 terminal: Callable[[GameState, int, int], float] = terminal_value) -> None:
        self.me = me
        self.evaluate = evaluate
        self.budget = budget
        self.moves = moves or (lambda s: s.legal_decisions())
        self.key = key
        self.terminal = terminal
        self.best_at: dict[Hashable, Hashable] = {}
        self.horizon = False
        self.root_rng = None

    def shuffle_root(self, rng) -> None:
        """Break ties between equally good root moves with ``rng`` (seeded by
        the caller, so still reproducible) instead of the rules' order."""
        self.root_rng = rng

    def _ordered(self, state: GameState) -> list[Hashable]:
        moves = list(self.moves(state))
        if self.key is not None:
            first = self.best_at.get(self.key(state))
            if first is not None and first in moves:
                moves.remove(first)
                moves.insert(0, first)
        return moves

    def _value(self, state: GameState, depth: int, alpha: float, beta: float) -> float:
        if state.is_terminal():
            return self.terminal(state, self.me, depth)
        if depth == 0:
            self.horizon = True
            return self.evaluate(state, self.me)
        player = state.current_player()
        maximizing = player == self.me
        best_move, best = None, -float("inf") if maximizing else float("inf")
        for move in self._ordered(state):
            self.budget.tick()
            child, _ = state.apply(player, move)
            value = self._value(child, depth - 1, alpha, beta)
            if maximizing:
                if value > best:
                    best, best_move = value, move
                alpha = max(alpha, value)
            else:
                if value < best:
                    best, best_move = value, move
                beta = min(beta, value)
            if alpha >= beta:
                break
        if best_move is None:  # no move listed: let the evaluation speak
            return self.evaluate(state, self.me)
        if self.key is not None:
            self.best_at[self.key(state)] = best_move
        return best

    def search(self, root: GameState, max_depth: int = 64) -> SearchResult:
        """The best root move found before the budget ran out.  A deeper
        iteration cut short still counts where it had already proven a move
        better than the previous iteration's choice (searched first)."""
        moves = list(self.moves(root)) or list(root.legal_decisions())
        if self.root_rng is not None:
            self.root_rng.shuffle(moves)
        best = SearchResult(moves[0], -float("inf"), 0, 0)
        if len(moves) == 1:
            return best
        player = root.current_player()
        for depth in range(1, max_depth + 1):
            alpha, found, value_found = -float("inf"), None, -float("inf")
            self.horizon = False
            try:
                for move in moves:
                    self.budget.tick()
                    child, _ = root.apply(player, move)
                    value = self._value(child, depth - 1, alpha, float("inf"))
                    if found is None or value > value_found:
                        found, value_found = move, value
                        alpha = max(alpha, value)
            except OutOfBudget:
                if found is not None:  # it did at least as well as the last choice, searched first
                    best = SearchResult(found, value_found, depth, self.budget.count)
                break
            best = SearchResult(found, value_found, depth, self.budget.count)
            moves.remove(found)
            moves.insert(0, found)
            if abs(value_found) >= WIN or not self.horizon:
                break  # proven, or the whole game tree was searched: deeper cannot change it
        best.nodes = self.budget.count
        return best
