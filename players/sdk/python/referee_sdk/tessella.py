"""Tessella boards for the student SDK (standard library only).

``read_board()`` and ``read_ckbd(step)`` return what the course's own
``read_ckbd`` did: ``(playerA_positions, playerB_positions, board)``.
``board[x][y] == (shape, role)`` for the 9x9 array (x = row from the top,
y = column): shape ``"O"`` octagon, ``"S"`` square, ``"X"`` off the board;
role 0 empty, 1 player A's piece (player 1, moves first), 2 player B's.
The position lists hold ``(x, y)`` tuples in reading order.  A decision is
``save_decision(x1, y1, x2, y2)``, or ``save_decision(0, 0, 0, 0)`` to pass
when you cannot move.
"""
from __future__ import annotations

SIZE = 9


def parse_board(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]],
                                    list[list[tuple[str, int]]]]:
    board = [[(token[0], int(token[1:])) for token in line.split()]
             for line in text.splitlines() if line.strip()]
    if len(board) != SIZE or any(len(row) != SIZE for row in board):
        raise ValueError(f"a Tessella board is {SIZE} rows of {SIZE} cells")
    positions = {1: [], 2: []}
    for x, row in enumerate(board):
        for y, (_, role) in enumerate(row):
            if role in positions:
                positions[role].append((x, y))
    return positions[1], positions[2], board
