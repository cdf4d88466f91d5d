#!/usr/bin/env python3
"""Built-in Quoridor player: random but not hopeless.  It first picks the
kind of move (pawn or wall, evenly, when both are possible), then a uniformly
random legal move of that kind; seeded from state.json so a match replays the
same way."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.games.quoridor import GAME  # noqa: E402


def play_games(step: int, player: int) -> None:
    view = read_state()
    state = GAME.state_from_json(view)
    rng = player_rng(view)
    kinds: dict[str, list] = {}
    for decision in state.legal_decisions():
        kinds.setdefault(type(decision).__name__, []).append(decision)
    choices = kinds[rng.choice(sorted(kinds))]
    save_decision(rng.choice(choices))


if __name__ == "__main__":
    run(play_games)
