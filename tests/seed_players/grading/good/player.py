"""Greedy: the removal that scores the most points this step (the built-in
greedy player's strategy, handed in as a student would)."""
from referee_sdk import read_board, run, save_decision

from referee.games.cantris.rules import CantrisState


def play_games(step):
    state = CantrisState(tuple(tuple(row) for row in read_board()))
    best, best_points = None, -1
    for move in state.legal_decisions():
        after, _ = state.apply(1, move)
        if after.points[0] > best_points:
            best, best_points = move, after.points[0]
    save_decision(best.row, best.col)


if __name__ == "__main__":
    run(play_games)
