#!/usr/bin/env python3
"""A Connect Four player to start from.  Run it against the referee with

    referee play connect4 --player "python3 player.py" --player builtin:greedy

Each turn the referee runs `python3 player.py <step> <player_id>` in this
player's private folder.  Read the board, decide, save the decision: one
column number, 0 at the left."""
from referee_sdk import read_ckbd, run, save_decision


def play_games(step):
    board = read_ckbd(step - 1)  # rows top first; '.' empty, 1 and 2 pieces
    # Your strategy here.  This one drops in the first column that is not full.
    for col, top in enumerate(board[0]):
        if top == ".":
            save_decision(col)
            return


if __name__ == "__main__":
    run(play_games)
