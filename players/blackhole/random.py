#!/usr/bin/env python3
"""Built-in Black Hole Escape player: a uniformly random legal move, seeded
from state.json so the same match replays the same way."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sdk" / "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.games.blackhole import GAME  # noqa: E402


def play_games(step: int, player: int) -> None:
    view = read_state()
    state = GAME.state_from_json(view)
    save_decision(player_rng(view).choice(state.legal_decisions()))


if __name__ == "__main__":
    run(play_games)
