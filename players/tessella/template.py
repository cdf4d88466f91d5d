#!/usr/bin/env python3
"""A Tessella player to start from.  Run it against the referee with

    referee play tessella --player "python3 player.py" --player builtin:greedy

Each turn the referee runs `python3 player.py <step> <player_id>` in this
player's private folder.  Read the board, decide, save the decision.

To keep the program alive between steps (no start-up cost per step, and your
variables survive), run it as --player "persistent:python3 player.py"; nothing
here changes (referee docs protocol, "Persistent players")."""
from referee_sdk import read_ckbd, read_state, run, save_decision

ORTHOGONAL = [(-1, 0), (1, 0), (0, -1), (0, 1)]
DIAGONAL = [(-1, -1), (-1, 1), (1, -1), (1, 1)]


def first_piece(board, x, y, dx, dy):
    """The first piece from (x, y) along (dx, dy), past empty cells only; None
    at the diamond's edge."""
    x, y = x + dx, y + dy
    while 0 <= x < 9 and 0 <= y < 9 and board[x][y][0] != "X":
        if board[x][y][1] != 0:
            return x, y
        x, y = x + dx, y + dy
    return None


def capture(board, x, y, me):
    """A cell the piece on (x, y) can capture: the first piece ahead on a line
    is an enemy and the first piece behind is one of yours (the backer)."""
    for dx, dy in ORTHOGONAL + DIAGONAL:
        ahead, behind = first_piece(board, x, y, dx, dy), first_piece(board, x, y, -dx, -dy)
        if ahead and behind and board[ahead[0]][ahead[1]][1] == 3 - me \
                and board[behind[0]][behind[1]][1] == me:
            return ahead
    return None


def play_games(step):
    # board[x][y] == (shape, role): shape "O" octagon, "S" square, "X" off the board;
    # role 0 empty, 1 player A (moves first), 2 player B.
    playerA_positions, playerB_positions, board = read_ckbd(step - 1)
    me = read_state()["you"]  # your player id; state.json also has captures, ply...
    mine = playerA_positions if me == 1 else playerB_positions
    # Your strategy here.  This one captures if it can, else steps the first piece that
    # can step: from an octagon to any of the 8 neighbours, from a square to the 4 orthogonal.
    for x, y in mine:
        target = capture(board, x, y, me)
        if target:
            save_decision(x, y, *target)
            return
    for x, y in mine:
        shape = board[x][y][0]
        for dx, dy in ORTHOGONAL + (DIAGONAL if shape == "O" else []):
            tx, ty = x + dx, y + dy
            if 0 <= tx < 9 and 0 <= ty < 9 and board[tx][ty] in (("O", 0), ("S", 0)):
                save_decision(x, y, tx, ty)
                return
    save_decision(0, 0, 0, 0)  # no piece can move: pass


if __name__ == "__main__":
    run(play_games)
