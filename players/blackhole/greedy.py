#!/usr/bin/env python3
"""Built-in Black Hole Escape player: save a ship when a slide stops on the
hole; otherwise a move after which the opponent cannot save one (any move if
none is safe), preferring one that threatens a save next turn.  Ties are
broken at random, seeded from state.json.  The rules come from the referee's
own package, so the player never disagrees with it."""
import random
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.games.blackhole import GAME  # noqa: E402
from referee.games.blackhole.rules import HOLE, BlackHoleState, Decision, moves_of  # noqa: E402


def saves(decision: Decision) -> bool:
    return getattr(decision, "dst", None) == HOLE


def choose(state: BlackHoleState, rng: random.Random) -> Decision:
    legal = state.legal_decisions()
    saving = [d for d in legal if saves(d)]
    if saving:
        return saving[0]
    player = state.current_player()
    safe, threats = [], []
    for decision in legal:
        after, _ = state.apply(player, decision)
        if not any(saves(reply) for reply in after.legal_decisions()):
            safe.append(decision)
            if any(saves(move) for move in moves_of(after.grid, player)):
                threats.append(decision)
    return rng.choice(threats or safe or legal)


def play_games(step: int, player: int) -> None:
    view = read_state()
    save_decision(choose(GAME.state_from_json(view), player_rng(view)))


if __name__ == "__main__":
    run(play_games)
