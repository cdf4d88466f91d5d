#!/usr/bin/env python3
"""Built-in Connect Four player ``greedy``: win now if it can, else block the
opponent's win next move, else avoid a column that hands the opponent a win,
preferring columns near the centre (ties broken at random, seeded)."""
import sys
from pathlib import Path

# The game's own package, however it was installed (a player starts with a
# clean environment), and the referee's student SDK.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from referee.resources import players_dir  # noqa: E402

sys.path.insert(0, str(players_dir() / "sdk" / "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from connect4 import GAME  # noqa: E402
from connect4.rules import ConnectFourState  # noqa: E402


def wins(state: ConnectFourState, player: int, col: int) -> bool:
    """Would ``player`` connect by dropping in ``col`` now?"""
    as_player = ConnectFourState(state.grid, player, state.connect)
    return as_player.apply(player, col)[0].winner == player


def hands_over(state: ConnectFourState, me: int, col: int) -> bool:
    """Would dropping in ``col`` let the opponent win on the next move?"""
    after = state.apply(me, col)[0]
    return any(wins(after, 3 - me, reply) for reply in after.legal_decisions())


def choose(state: ConnectFourState, rng) -> int:
    me, you = state.to_move, 3 - state.to_move
    legal = state.legal_decisions()
    for col in legal:
        if wins(state, me, col):
            return col
    for col in legal:
        if wins(state, you, col):
            return col
    safe = [c for c in legal if not hands_over(state, me, c)]
    pool = safe or legal
    centre = (state.cols - 1) / 2
    best = min(abs(c - centre) for c in pool)
    return rng.choice([c for c in pool if abs(c - centre) == best])


def play_games(step: int, player: int) -> None:
    view = read_state()
    save_decision(choose(GAME.state_from_json(view), player_rng(view)))


if __name__ == "__main__":
    run(play_games)
