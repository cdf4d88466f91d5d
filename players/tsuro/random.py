#!/usr/bin/env python3
"""Built-in Tsuro player: a random free start, then a random legal placement
that keeps its own marker on the board whenever one does.  Seeded from
state.json, so the same match replays the same way.  Placements are simulated
with the referee's own Tsuro rules."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.games.tsuro import board as geo  # noqa: E402
from referee.games.tsuro.codec import position_from_view  # noqa: E402


def play_games(step: int, player: int) -> None:
    state = read_state()
    rng = player_rng(state)
    cells, markers = position_from_view(state)
    if state["step_kind"] == "setup":
        save_decision("S", rng.choice(geo.free_starts(cells, markers.values())))
        return
    results = geo.outcomes(state["variant"], cells, markers, player, state["hand"])
    safe = [p for p, result in results if player not in result.eliminated]
    save_decision(rng.choice(safe or [p for p, _ in results]))


if __name__ == "__main__":
    run(play_games)
