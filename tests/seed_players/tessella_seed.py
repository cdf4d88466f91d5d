# A Tessella player written the way the course's seed students wrote theirs
# (Assignment 2): play_games(step) reads the board before its move with
# read_ckbd(step - 1) -> (playerA_positions, playerB_positions, board), with
# board[x][y] == (shape, role), and answers with save_decision(x1, y1, x2, y2).
# Only the import line differs from the seed's template; the tests run it
# unchanged through the referee.  It decides who it is from the step's parity,
# as the seed code did (player A moves on odd steps).
import sys

from referee_sdk import read_ckbd, save_decision

LINES = [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]


def inside(board, x, y):
    return 0 <= x < 9 and 0 <= y < 9 and board[x][y][0] != 'X'


def look(board, x, y, dx, dy):
    x, y = x + dx, y + dy
    while inside(board, x, y):
        if board[x][y][1] != 0:
            return (x, y, board[x][y][1])
        x, y = x + dx, y + dy
    return None


def all_moves(board, positions, me):
    captures, steps = [], []
    for (x, y) in positions:
        for (dx, dy) in LINES:
            ahead, behind = look(board, x, y, dx, dy), look(board, x, y, -dx, -dy)
            if ahead and behind and ahead[2] != me and behind[2] == me:
                captures.append((x, y, ahead[0], ahead[1]))
        reach = LINES if board[x][y][0] == 'O' else LINES[:4]
        for (dx, dy) in reach:
            if inside(board, x + dx, y + dy) and board[x + dx][y + dy][1] == 0:
                steps.append((x, y, x + dx, y + dy))
    return captures, steps


def play_games(step):
    playerA_positions, playerB_positions, board = read_ckbd(step - 1)
    if step % 2 == 1:
        me, mine = 1, playerA_positions
    else:
        me, mine = 2, playerB_positions
    captures, steps = all_moves(board, mine, me)
    if captures:
        x1, y1, x2, y2 = captures[0]
    elif steps:
        x1, y1, x2, y2 = steps[(step * 7) % len(steps)]
    else:
        x1, y1, x2, y2 = 0, 0, 0, 0
    save_decision(x1, y1, x2, y2)


if __name__ == '__main__':
    play_games(int(sys.argv[1]))
