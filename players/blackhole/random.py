#!/usr/bin/env python3
"""Built-in Black Hole Escape player: a uniformly random legal move, seeded
from state.json so the same match replays the same way."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.games.blackhole import GAME  # noqa: E402


def play_games(step: int, player: int) -> None:
    view = read_state()
    state = GAME.state_from_json(view)
    save_decision(player_rng(view).choice(state.legal_decisions()))


if __name__ == "__main__":
    run(play_games)
