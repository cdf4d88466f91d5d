#!/usr/bin/env python3
"""Built-in Connect Four player ``random``: a random column that is not full,
seeded from state.json so a match replays the same way."""
import sys
from pathlib import Path

# The game's own package, however it was installed (a player starts with a
# clean environment), and the referee's student SDK.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from referee.resources import players_dir  # noqa: E402

sys.path.insert(0, str(players_dir() / "sdk" / "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from connect4 import GAME  # noqa: E402


def play_games(step: int, player: int) -> None:
    view = read_state()
    state = GAME.state_from_json(view)
    save_decision(player_rng(view).choice(state.legal_decisions()))


if __name__ == "__main__":
    run(play_games)
