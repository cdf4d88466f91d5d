"""A rogue: forges the autograder's results file, and leaves a daemon in a
new session that keeps forging it, while it plays legal moves."""
import json
import os
import time

from referee_sdk import read_board, run, save_decision

FORGED = {"score": 1000, "gradable": True, "tests": [], "output": "forged"}


def forge():
    for root in (os.environ.get("AUTOGRADER_ROOT", "/autograder") + "/results",
                 os.environ.get("GRADE_ROOT", "/grade") + "/results"):
        try:
            with open(os.path.join(root, "results.json"), "w") as f:
                json.dump(FORGED, f)
        except OSError:
            pass


def play_games(step):
    forge()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for _ in range(300):
                forge()
                time.sleep(0.1)
        os._exit(0)
    board = read_board()
    for r in range(len(board) - 1, -1, -1):
        for c, value in enumerate(board[r]):
            if value:
                save_decision(r, c)
                return


if __name__ == "__main__":
    run(play_games)
