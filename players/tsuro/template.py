#!/usr/bin/env python3
"""A Tsuro player to start from.  Run it against the referee with

    referee play tsuro --player "python3 player.py" --player builtin:greedy

Each turn the referee runs `python3 player.py <step> <player_id>` in this
player's private folder.  Read the board, decide, save the decision:
`S p` (setup: a start position 0..47) or `T i rot r c` (play: your hand's
tile i, turned rot quarter turns clockwise, on cell (r, c)).

To keep the program alive between steps (no start-up cost per step, and your
variables survive), run it as --player "persistent:python3 player.py"; nothing
here changes (referee docs protocol, "Persistent players")."""
from referee_sdk import read_board, read_state, run, save_decision
from referee_sdk.tsuro import SIZE, across, exit_port


def stays_on_board(cells, tiles, facing, tile, rotation, cell):
    """Would a marker facing `facing` (row, col, port) survive `tile` placed on
    `cell`?  It follows the paths until it faces an empty cell or leaves the
    board.  (Other markers are ignored: a collision can still eliminate it.)"""
    row, col, port = facing
    while 0 <= row < SIZE and 0 <= col < SIZE:
        if (row, col) == cell:
            placed = (tile, rotation)
        elif cells[row][col] is not None:
            placed = cells[row][col]
        else:
            return True
        row, col, port = across(row, col, exit_port(tiles[placed[0]], placed[1], port))
    return False


def play_games(step):
    state = read_state()   # you, hand, markers, tiles, legal (every legal decision), ...
    if state["step_kind"] == "setup":
        save_decision(state["legal"][0])   # the first free start position
        return
    board = read_board()   # cells[r][c]: None or (tile, rotation); markers, pile, dragon...
    me = state["you"]
    facing = state["markers"][str(me)]["facing"]   # the point my marker will enter next
    # Your strategy here.  This one takes the first legal placement that keeps
    # its marker on the board, else the first legal placement.
    for decision in state["legal"]:
        _, i, rotation, r, c = decision.split()
        tile = state["hand"][int(i)]
        if stays_on_board(board["cells"], state["tiles"], facing, tile, int(rotation), (int(r), int(c))):
            save_decision(decision)
            return
    save_decision(state["legal"][0])


if __name__ == "__main__":
    run(play_games)
