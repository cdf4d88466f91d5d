#!/usr/bin/env python3
"""Built-in Tessella player: capture when it can, and among its moves (the
captures if any) pick one that leaves the fewest of its own pieces capturable
by the opponent's reply.  Ties are broken at random, seeded from state.json.
The rules come from the referee's own package, so the player never disagrees
with it."""
import random
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.games.tessella import GAME  # noqa: E402
from referee.games.tessella.rules import Decision, Move, TessellaState, is_capture  # noqa: E402


def captures(state: TessellaState) -> list[Move]:
    return [d for d in state.legal_decisions()
            if isinstance(d, Move) and is_capture(state.pieces, d)]


def exposed(state: TessellaState, decision: Decision) -> int:
    """How many of the mover's pieces the opponent could capture after ``decision``."""
    after, _ = state.apply(state.current_player(), decision)
    return len({move.dst for move in captures(after)})


def choose(state: TessellaState, rng: random.Random) -> Decision:
    candidates = captures(state) or state.legal_decisions()
    scored = [(exposed(state, d), d) for d in candidates]
    fewest = min(score for score, _ in scored)
    return rng.choice([d for score, d in scored if score == fewest])


def play_games(step: int, player: int) -> None:
    view = read_state()
    save_decision(choose(GAME.state_from_json(view), player_rng(view)))


if __name__ == "__main__":
    run(play_games)
