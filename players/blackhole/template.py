#!/usr/bin/env python3
"""A Black Hole Escape player to start from.  Run it against the referee with

    referee play blackhole --player "python3 player.py" --player builtin:greedy

Each turn the referee runs `python3 player.py <step> <player_id>` in this
player's private folder.  Read the board, decide, save the decision.

To keep the program alive between steps (no start-up cost per step, and your
variables survive), run it as --player "persistent:python3 player.py"; nothing
here changes (referee docs protocol, "Persistent players")."""
from referee_sdk import read_ckbd, read_state, run, save_decision
from referee_sdk.blackhole import DIRECTIONS, SIZE


def slide(board, r, c, dr, dc):
    """Where a ship leaving (r, c) stops: ships pass over the hole (3) and stop
    before the edge or the next ship."""
    while 0 <= r + dr < SIZE and 0 <= c + dc < SIZE and board[r + dr][c + dc] in (0, 3):
        r, c = r + dr, c + dc
    return r, c


def play_games(step):
    board = read_ckbd(step - 1)  # 5 rows of 5 ints: 0 empty, 1/2 ships, 3 the hole
    me = read_state()["you"]  # your player id; state.json also has saved ships, ply...
    # Your strategy here.  This one slides the first ship that can move.
    for r in range(SIZE):
        for c in range(SIZE):
            if board[r][c] != me:
                continue
            for dr, dc in DIRECTIONS.values():
                stop = slide(board, r, c, dr, dc)
                if stop != (r, c):
                    save_decision(r, c, *stop)
                    return
    save_decision("pass")  # no ship can move


if __name__ == "__main__":
    run(play_games)
