#!/usr/bin/env python3
"""Built-in Cantris player ``strong``: iterative-deepening alpha-beta
(docs/strong-players.md).

The evaluation is the score: its points minus the opponent's.  A finished
game is a win or a loss whatever the margin, so the search ends the game
(empties a column) when it is ahead and avoids it when behind.  On 10x5 a
turn is two removals by the same player: the search follows whose step it
is, so it plans both removals of a turn together.  Removals are searched
best-scoring first.

Options (argv words before ``<step> <player>``): ``--budget=S`` seconds
(default 1, never more than half the soft limit), ``--nodes=N`` for a
reproducible search."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.games.cantris.rules import CantrisState, removals_per_turn  # noqa: E402
from referee.search import WIN, AlphaBeta, Budget, parse_options  # noqa: E402


def evaluate(state: CantrisState, me: int) -> float:
    return state.points[me - 1] - state.points[2 - me]


def terminal(state: CantrisState, me: int, depth_left: int) -> float:
    """Win or loss first, the margin second (it breaks ties between wins)."""
    margin = evaluate(state, me)
    if margin == 0:
        return 0.0
    return (WIN if margin > 0 else -WIN) + margin + (depth_left if margin > 0 else -depth_left)


def ordered(state: CantrisState) -> list:
    """Removals scoring most first: the tile's value is a cheap guess."""
    board = state.board
    return sorted(state.legal_decisions(), key=lambda m: -board[m.row][m.col])


def key_of(state: CantrisState):
    return (state.board, state.points, state.step)


def choose(state: CantrisState, budget: Budget, rng=None):
    """The removal for the player to move; ``rng`` (seeded from state.json)
    breaks ties between equally good removals, so games vary but replay."""
    legal = state.legal_decisions()
    if len(legal) == 1:
        return legal[0]
    search = AlphaBeta(state.current_player(), evaluate, budget, moves=ordered, key=key_of,
                       terminal=terminal)
    if rng is not None:
        search.shuffle_root(rng)
    return search.search(state).decision


def state_from_view(view: dict) -> CantrisState:
    """The position from state.json; the rules' step counter only decides
    whose removal it is and which of the turn's removals, so it is rebuilt
    from those two facts."""
    board = tuple(tuple(row) for row in view["board"])
    points = view["points"]
    step = (int(view["you"]) - 1) * removals_per_turn(board) + int(view.get("removal", 1)) - 1
    return CantrisState(board, (int(points["1"]), int(points["2"])), step)


def play_games(step: int, player: int) -> None:
    options = parse_options(sys.argv[1:])
    view = read_state()
    budget = Budget.for_step(options, view.get("limits"))
    state = state_from_view(view)
    if state.current_player() != player:
        raise SystemExit(f"strong: state.json says step {step} is not player {player}'s")
    removal = state.legal_decisions()[0]
    save_decision(removal.row, removal.col)  # something on file from the first moment
    removal = choose(state, budget, player_rng(view))
    save_decision(removal.row, removal.col)
    budget.report()


if __name__ == "__main__":
    run(play_games)
