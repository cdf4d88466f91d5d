#!/usr/bin/env python3
"""A Quoridor player to start from.  Run it against the referee with

    referee play quoridor --player "python3 player.py" --player builtin:greedy

Each turn the referee runs `python3 player.py <step> <player_id>` in this
player's private folder.  Read the board, decide, save the decision:
"M r1 c1 r2 c2" moves your pawn, "W r1 c1 r2 c2" places a wall between two
grid points (grid line k runs above row k and left of column k).

To keep the program alive between steps (no start-up cost per step, and your
variables survive), run it as --player "persistent:python3 player.py"; nothing
here changes (referee docs protocol, "Persistent players")."""
from referee_sdk import read_ckbd, read_state, run, save_decision

SIZE = 9
STEPS = [(-1, 0), (1, 0), (0, -1), (0, 1)]  # up, down, left, right
GOAL = {1: ("row", 0), 2: ("row", 8), 3: ("col", 8), 4: ("col", 0)}


def on_board(r, c):
    return 0 <= r < SIZE and 0 <= c < SIZE


def blocked(walls, r, c, dr, dc):
    """Whether a wall separates (r, c) from (r + dr, c + dc)."""
    if dr:
        line = max(r, r + dr)  # the grid row between the two squares
        return any(r1 == r2 == line and c1 in (c - 1, c) for r1, c1, r2, c2 in walls)
    line = max(c, c + dc)  # the grid column between the two squares
    return any(c1 == c2 == line and r1 in (r - 1, r) for r1, c1, r2, c2 in walls)


def can_step(board, r, c, dr, dc):
    return on_board(r + dr, c + dc) and not blocked(board.walls, r, c, dr, dc)


def pawn_moves(board, me):
    """Every square your pawn may reach: steps, jumps over a pawn, diagonals."""
    taken = {sq for p, sq in board.pawns.items() if p != me}
    r, c = board.pawns[me]
    moves = []
    for dr, dc in STEPS:
        if not can_step(board, r, c, dr, dc):
            continue
        near = (r + dr, c + dc)
        if near not in taken:
            moves.append(near)
        elif can_step(board, *near, dr, dc) and (near[0] + dr, near[1] + dc) not in taken:
            moves.append((near[0] + dr, near[1] + dc))  # straight jump
        else:
            for sr, sc in STEPS:
                if (sr, sc) in ((dr, dc), (-dr, -dc)):
                    continue
                side = (near[0] + sr, near[1] + sc)
                if can_step(board, *near, sr, sc) and side not in taken:
                    moves.append(side)  # diagonal around the pawn
    return moves


def progress(me, square):
    """Higher is closer to your goal line."""
    kind, line = GOAL[me]
    value = square[0] if kind == "row" else square[1]
    return -abs(value - line)


def play_games(step):
    board = read_ckbd(step - 1)  # .pawns {id: (r, c)}, .walls [(r1, c1, r2, c2)], .walls_left
    me = read_state()["you"]  # your player id; state.json also has the move history
    # Your strategy here.  This one takes the pawn move that gets closest to its goal line.
    moves = pawn_moves(board, me)
    if not moves:
        save_decision("PASS")  # legal only if you cannot place a wall either
        return
    r, c = board.pawns[me]
    best = max(moves, key=lambda square: progress(me, square))
    save_decision("M", r, c, *best)


if __name__ == "__main__":
    run(play_games)
