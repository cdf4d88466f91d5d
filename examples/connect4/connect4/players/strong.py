#!/usr/bin/env python3
"""Built-in Connect Four player ``strong``: the referee's iterative-deepening
alpha-beta (``referee.search``) over this package's own states, with an
evaluation that counts open windows of four: a window holding only one
player's pieces is worth more the fuller it is.

Options (argv words before ``<step> <player>``): ``--budget=S`` seconds,
``--nodes=N`` for a reproducible search (docs/strong-players.md)."""
import sys
from pathlib import Path

# The game's own package, however it was installed (a player starts with a
# clean environment), and the referee's student SDK.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from referee.resources import players_dir  # noqa: E402

sys.path.insert(0, str(players_dir() / "sdk" / "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.search import AlphaBeta, Budget, parse_options  # noqa: E402

from connect4 import GAME  # noqa: E402
from connect4.rules import DIRECTIONS, ConnectFourState  # noqa: E402

WORTH = {1: 1, 2: 8, 3: 60}


def evaluate(state: ConnectFourState, me: int) -> float:
    value = 0
    grid, n, rows, cols = state.grid, state.connect, state.rows, state.cols
    for r in range(rows):
        for c in range(cols):
            for dr, dc in DIRECTIONS:
                end_r, end_c = r + dr * (n - 1), c + dc * (n - 1)
                if not (0 <= end_r < rows and 0 <= end_c < cols):
                    continue
                cells = [grid[r + dr * k][c + dc * k] for k in range(n)]
                mine, theirs = cells.count(me), cells.count(3 - me)
                if mine and not theirs:
                    value += WORTH.get(mine, 0)
                elif theirs and not mine:
                    value -= WORTH.get(theirs, 0)
    return value


def centre_first(state: ConnectFourState) -> list[int]:
    middle = (state.cols - 1) / 2
    return sorted(state.legal_decisions(), key=lambda c: abs(c - middle))


def play_games(step: int, player: int) -> None:
    options = parse_options(sys.argv[1:])
    view = read_state()
    budget = Budget.for_step(options, view.get("limits"))
    state = GAME.state_from_json(view)
    save_decision(centre_first(state)[0])  # something on file from the first moment
    search = AlphaBeta(player, evaluate, budget, moves=centre_first,
                       key=lambda s: (s.grid, s.to_move))
    search.shuffle_root(player_rng(view))
    save_decision(search.search(state).decision)
    budget.report()


if __name__ == "__main__":
    run(play_games)
