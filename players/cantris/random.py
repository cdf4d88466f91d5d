#!/usr/bin/env python3
"""Built-in Cantris player: a random non-empty cell (seeded from state.json,
so the same match replays the same way)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_board, run, save_decision  # noqa: E402


def play_games(step: int, player: int) -> None:
    board = read_board()
    cells = [(r, c) for r, row in enumerate(board) for c, value in enumerate(row) if value]
    save_decision(*player_rng().choice(cells))


if __name__ == "__main__":
    run(play_games)
