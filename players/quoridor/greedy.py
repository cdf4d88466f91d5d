#!/usr/bin/env python3
"""Built-in Quoridor player: races along a shortest path and walls the
leading opponent when that pays.

Each turn it takes the best wall, the one that lengthens the leading
opponent's shortest path most relative to its own, if that gain is positive
and the opponent is not behind in the race; otherwise it makes the pawn move
(step, jump or diagonal) that leaves it closest to its goal.  Ties go to the
first candidate in the rules' order, so it is deterministic."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import read_state, run, save_decision  # noqa: E402

from referee.games.quoridor import GAME  # noqa: E402
from referee.games.quoridor.geometry import square  # noqa: E402
from referee.games.quoridor.rules import GOAL, Move, Wall, shortest_path  # noqa: E402


def distance_from(state, player, r, c):
    path = shortest_path(square(r, c), GOAL[player], state.opens)
    return len(path) - 1 if path else 10**6


def best_wall(state, me, rival):
    """The wall with the largest positive gain (the rival's extra steps minus
    mine), or None."""
    mine, theirs = state.distance(me), state.distance(rival)
    best = (0, None)
    for decision in state.legal_decisions():
        if isinstance(decision, Wall):
            after, _ = state.apply(me, decision)
            gain = (after.distance(rival) - theirs) - (after.distance(me) - mine)
            if gain > best[0]:
                best = (gain, decision)
    return best[1]


def choose(state):
    me = state.turn
    rivals = [p for p in state.active() if p != me]
    if rivals and state.walls_left[me - 1] > 0:
        rival = min(rivals, key=state.distance)
        wall = best_wall(state, me, rival)
        if wall is not None and state.distance(rival) <= state.distance(me):
            return wall
    moves = [d for d in state.legal_decisions() if isinstance(d, Move)]
    if not moves:
        return state.legal_decisions()[0]
    return min(moves, key=lambda m: distance_from(state, me, m.r2, m.c2))


def play_games(step: int, player: int) -> None:
    save_decision(choose(GAME.state_from_json(read_state())))


if __name__ == "__main__":
    run(play_games)
