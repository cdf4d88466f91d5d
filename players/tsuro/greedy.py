#!/usr/bin/env python3
"""Built-in Tsuro player.  Setup: the free start farthest round the edge from
the markers already placed.  Play: the placement that keeps its own marker on
the board, then moves it the farthest (tiles crossed this turn), then
eliminates the most other players; ties go to the first in (hand index,
rotation, cell) order.  Placements are simulated with the referee's rules."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import read_state, run, save_decision  # noqa: E402

from referee.games.tsuro import board as geo  # noqa: E402
from referee.games.tsuro.codec import position_from_view  # noqa: E402


def best_start(cells, markers) -> int:
    placed = [s for s in map(geo.start_position, markers.values()) if s is not None]

    def room(s: int) -> int:
        return min((min((s - t) % geo.PERIMETER, (t - s) % geo.PERIMETER) for t in placed),
                   default=0)

    return max(geo.free_starts(cells, markers.values()), key=room)


def play_games(step: int, player: int) -> None:
    state = read_state()
    cells, markers = position_from_view(state)
    if state["step_kind"] == "setup":
        save_decision("S", best_start(cells, markers))
        return
    results = geo.outcomes(state["variant"], cells, markers, player, state["hand"])

    def value(option):
        _, result = option
        return (player not in result.eliminated, len(result.trails.get(player, ())),
                len(set(result.eliminated) - {player}))

    save_decision(max(results, key=value)[0])


if __name__ == "__main__":
    run(play_games)
