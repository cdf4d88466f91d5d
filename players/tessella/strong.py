#!/usr/bin/env python3
"""Built-in Tessella player ``strong``: iterative-deepening alpha-beta
(docs/strong-players.md).

The evaluation counts captures first (four win), then the captures each side
could make next (its own minus the opponent's), then material and mobility.
Captures are searched first at every node, the cheapest way to make
alpha-beta cut.  A repeated position (threefold) is a draw, which the rules'
states already know.

Options (argv words before ``<step> <player>``): ``--budget=S`` seconds
(default 1, never more than half the soft limit), ``--nodes=N`` for a
reproducible search."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.core.alternating import other  # noqa: E402
from referee.games.tessella import GAME  # noqa: E402
from referee.games.tessella.rules import EMPTY, TessellaState, moves_of  # noqa: E402
from referee.search import AlphaBeta, Budget, parse_options  # noqa: E402

CAPTURE = 1000
THREAT = 40
MOBILITY = 1


def evaluate(state: TessellaState, me: int) -> float:
    you = other(me)
    pieces = state.pieces
    # the side to move's moves are already cached on the state (the rules
    # needed them to know the game goes on): generate only the other side's
    to_move = [m for m in state.legal_decisions() if hasattr(m, "dst")]
    waiting = moves_of(pieces, other(state.to_move))
    mine, theirs = (to_move, waiting) if state.to_move == me else (waiting, to_move)
    my_threats = len({m.dst for m in mine if pieces[m.dst[0]][m.dst[1]] != EMPTY})
    their_threats = len({m.dst for m in theirs if pieces[m.dst[0]][m.dst[1]] != EMPTY})
    value = CAPTURE * (state.captures[me - 1] - state.captures[you - 1])
    # the side to move cashes a threat first: its threats count double
    if state.to_move == me:
        value += THREAT * (2 * my_threats - their_threats)
    else:
        value += THREAT * (my_threats - 2 * their_threats)
    return value + MOBILITY * (len(mine) - len(theirs))


def ordered(state: TessellaState) -> list:
    """Captures first, then steps, each in the rules' order."""
    pieces = state.pieces
    moves = state.legal_decisions()
    return sorted(moves, key=lambda m: not hasattr(m, "dst") or pieces[m.dst[0]][m.dst[1]] == EMPTY)


def key_of(state: TessellaState):
    return (state.pieces, state.to_move)


def choose(state: TessellaState, budget: Budget, rng=None):
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
