#!/usr/bin/env python3
"""A Cantris player to start from.  Run it against the referee with

    referee play cantris --player "python3 player.py" --player builtin:greedy

Each turn the referee runs `python3 player.py <step> <player_id>` in this
player's private folder.  Read the board, decide, save the decision.

To keep the program alive between steps (no start-up cost per step, and your
variables survive), run it as --player "persistent:python3 player.py"; nothing
here changes (referee docs protocol, "Persistent players")."""
from referee_sdk import read_ckbd, run, save_decision


def play_games(step):
    board = read_ckbd(step - 1)  # list of rows, row 0 at the top, 0 = empty cell
    # read_state() has the points, removal k of n this turn, limits, history...
    # Your strategy here.  This one takes the first tile from the bottom row up.
    for r in range(len(board) - 1, -1, -1):
        for c, value in enumerate(board[r]):
            if value:
                save_decision(r, c)
                return


if __name__ == "__main__":
    run(play_games)
