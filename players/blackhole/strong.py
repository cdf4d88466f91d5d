#!/usr/bin/env python3
"""Built-in Black Hole Escape player ``strong``: iterative-deepening
alpha-beta (docs/strong-players.md).

The evaluation counts saved ships first (two win), then threats: slides that
would stop on the hole next turn, its own minus the opponent's, and a little
mobility.  A threat the opponent cannot parry is a save a move later, which
the search sees directly; the threat count steers it when the horizon is
short.  A repeated position (threefold) is a draw, which the rules' states
already know.

Options (argv words before ``<step> <player>``): ``--budget=S`` seconds
(default 1, never more than half the soft limit), ``--nodes=N`` for a
reproducible search."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.core.alternating import other  # noqa: E402
from referee.games.blackhole import GAME  # noqa: E402
from referee.games.blackhole.rules import HOLE, BlackHoleState, moves_of  # noqa: E402
from referee.search import AlphaBeta, Budget, parse_options  # noqa: E402

SAVE = 1000
THREAT = 60
MOBILITY = 2


def evaluate(state: BlackHoleState, me: int) -> float:
    you = other(me)
    # the side to move's moves are already cached on the state: generate only the other side's
    to_move = [m for m in state.legal_decisions() if hasattr(m, "dst")]
    waiting = moves_of(state.grid, other(state.to_move))
    mine, theirs = (to_move, waiting) if state.to_move == me else (waiting, to_move)
    threats = sum(m.dst == HOLE for m in mine) - sum(m.dst == HOLE for m in theirs)
    # the side to move can cash one threat at once
    value = SAVE * (state.saved[me - 1] - state.saved[you - 1]) + THREAT * threats
    value += MOBILITY * (len(mine) - len(theirs))
    return value


def ordered(state: BlackHoleState) -> list:
    """Saves first, then the rest in the rules' order."""
    moves = state.legal_decisions()
    return sorted(moves, key=lambda m: getattr(m, "dst", None) != HOLE)


def key_of(state: BlackHoleState):
    return (state.grid, state.to_move)


def choose(state: BlackHoleState, budget: Budget, rng=None):
    """The decision for the player to move; ``rng`` (seeded from state.json)
    breaks ties between equally good moves, so games vary but replay."""
    legal = state.legal_decisions()
    if len(legal) == 1:
        return legal[0]
    search = AlphaBeta(state.to_move, evaluate, budget, moves=ordered, key=key_of)
    if rng is not None:
        search.shuffle_root(rng)
    return search.search(state).decision


def play_games(step: int, player: int) -> None:
    options = parse_options(sys.argv[1:])
    view = read_state()
    budget = Budget.for_step(options, view.get("limits"))
    state = GAME.state_from_json(view)
    save_decision(state.legal_decisions()[0])  # something on file from the first moment
    save_decision(choose(state, budget, player_rng(view)))
    budget.report()


if __name__ == "__main__":
    run(play_games)
