#!/usr/bin/env python3
"""Built-in Quoridor player ``strong``: iterative-deepening alpha-beta on a
shortest-path race (docs/strong-players.md).

The evaluation is the race: the leading rival's shortest-path distance minus
its own (pawns ignored), a walls-in-hand bonus, and half a step for whoever is
to move.  It searches every pawn move and the walls that cut a rival's current
shortest path (only those can lengthen it), plus the walls that cut its own
path to the rival's side when a rival still holds walls.  With more than two
players the search is paranoid: every rival is assumed to play against it.

Options (argv words before ``<step> <player>``): ``--budget=S`` seconds
(default 1, never more than half the soft limit), ``--nodes=N`` for a
reproducible search."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.games.quoridor import GAME  # noqa: E402
from referee.games.quoridor.geometry import bits_of  # noqa: E402
from referee.games.quoridor.rules import (  # noqa: E402
    WALL_DECISIONS, Move, QuoridorState, move_decision,
)
from referee.search import AlphaBeta, Budget, parse_options  # noqa: E402

STEP = 10          # one step of the race
WALL_IN_HAND = 7   # a wall in hand is worth most of a step: spend it only for more
TEMPO = STEP // 2  # the player to move is half a step ahead
FAR = 100          # a distance for "no path" (cannot happen in legal play)


def distance(state: QuoridorState, player: int) -> int:
    d = state.distance(player)
    return FAR if d is None else d


def evaluate(state: QuoridorState, me: int) -> float:
    rivals = [p for p in state.active() if p != me]
    mine = distance(state, me)
    if not rivals:
        return -STEP * mine
    # the rival closest to its goal, counted with its tempo, is the one to beat
    value = None
    for p in rivals:
        theirs = distance(state, p) * STEP - (TEMPO if state.turn == p else 0)
        if value is None or theirs < value:
            value = theirs
    value -= mine * STEP - (TEMPO if state.turn == me else 0)
    walls = state.walls_left
    value += WALL_IN_HAND * (walls[me - 1] - max(walls[p - 1] for p in rivals))
    return value


def pawn_moves(state: QuoridorState, player: int) -> list[Move]:
    """Pawn moves, the one that gets closest to the goal first."""
    here = state.pawns[player - 1]
    path = state.path(player)
    ahead = path[1] if path and len(path) > 1 else None
    moves = [move_decision(here, t) for t in state.pawn_targets(player)]
    moves.sort(key=lambda m: (m.r2 * 9 + m.c2) != ahead)
    return moves


def candidate_walls(state: QuoridorState, player: int) -> list:
    """Legal walls across a rival's shortest path (or across its own, to
    block the rival's walls in advance), the leading rival's first."""
    if state.walls_left[player - 1] <= 0:
        return []
    rivals = sorted((p for p in state.active() if p != player), key=lambda p: distance(state, p))
    wanted = 0
    for p in rivals:
        wanted |= state.path_cutters(p)  # found with the path, not walked again
    # only these walls are checked for legality, not all of them
    return [WALL_DECISIONS[slot] for slot in bits_of(state.legal_walls(wanted))]


def moves_of(state: QuoridorState) -> list:
    player = state.turn
    if player is None:
        return []
    moves = pawn_moves(state, player) + candidate_walls(state, player)
    return moves or state.legal_decisions()


def key_of(state: QuoridorState):
    return (state.pawns, state.walls, state.walls_left, state.turn)


def choose(state: QuoridorState, budget: Budget, rng=None):
    """The decision for the player to move (deterministic: ``rng`` is unused)."""
    me = state.turn
    legal = state.legal_decisions()
    if len(legal) == 1:
        return legal[0]
    if not [p for p in state.active() if p != me]:
        return pawn_moves(state, me)[0]  # alone on the board: run
    # No random tie-breaks: between equally valued moves the step along its
    # own shortest path (listed first) must win, or it dithers while a rival
    # who still holds walls looks able to undo any progress.
    return AlphaBeta(me, evaluate, budget, moves=moves_of, key=key_of).search(state).decision


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
