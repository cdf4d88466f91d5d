from referee_sdk import read_board, run, save_decision


def play_games(step):
    if step >= 3:
        save_decision(99, 99)  # off the board: ILLEGAL
        return
    board = read_board()
    for r in range(len(board) - 1, -1, -1):
        for c, value in enumerate(board[r]):
            if value:
                save_decision(r, c)
                return


if __name__ == "__main__":
    run(play_games)
