#!/usr/bin/env python3
"""Built-in Cantris player: the removal that scores the most points this step
(cascades included).  Ties go to the first such cell in reading order: top
row first, then left to right.  The rules come from the referee's own Cantris
package, so the player can never disagree with the referee about points."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import read_board, run, save_decision  # noqa: E402

from referee.games.cantris.rules import CantrisState  # noqa: E402


def best_removal(board: list[list[int]]):
    state = CantrisState(tuple(tuple(row) for row in board))
    best, best_points = None, -1
    for move in state.legal_decisions():  # reading order
        after, _ = state.apply(1, move)
        if after.points[0] > best_points:
            best, best_points = move, after.points[0]
    return best


def play_games(step: int) -> None:
    move = best_removal(read_board())
    save_decision(move.row, move.col)


if __name__ == "__main__":
    run(play_games)
