"""The built-in ``strong`` players: never an illegal move, within their node
budget, reproducible on a node budget, options checked, and they beat
``random`` in real matches (real player processes through `referee play`).
How strong they are is measured by tests/bench/bench_strength.py, not here."""
from __future__ import annotations

import importlib.util
import random

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import BOARDS, ROOT, assert_clean_and_verified, play_match
from referee.core.errors import InputError
from referee.core.game import Setup
from referee.core.players import make_agent
from referee.core.runner import Limits
from referee.games import blackhole, cantris, quoridor, tessella, tsuro
from referee.search import Budget, StrongOptions, parse_options

GAMES = {"cantris": cantris.GAME, "tessella": tessella.GAME, "blackhole": blackhole.GAME,
         "quoridor": quoridor.GAME, "tsuro": tsuro.GAME}
STARTS = [  # (game, board file, players)
    ("cantris", "8x4-1.txt", 2), ("cantris", "10x5-1.txt", 2), ("cantris", "6x3-2.txt", 2),
    ("tessella", "standard.txt", 2), ("tessella", "close-quarters.txt", 2),
    ("blackhole", "standard.txt", 2), ("blackhole", "lanes.txt", 2),
    ("quoridor", "standard-2p.txt", 2), ("quoridor", "standard-4p.txt", 4),
    ("quoridor", "pocket.txt", 2), ("tsuro", "empty.txt", 2), ("tsuro", "center.txt", 5),
]
NODES = 150


def strong(game: str):
    """players/<game>/strong.py as a module, to call its search in-process."""
    path = ROOT / "players" / game / "strong.py"
    spec = importlib.util.spec_from_file_location(f"strong_{game}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PLAYERS = {game: strong(game) for game in GAMES}


def position(game: str, board: str, players: int, seed: int, plies: int):
    """A position up to ``plies`` random decisions into a game from a board
    file, stopping short of the end (there is nothing to choose there)."""
    g = GAMES[game]
    path = BOARDS / game / board
    state = g.initial_state(Setup(g.variants[0], players, seed,
                                  g.parse_board(path.read_text(), str(path), g.variants[0]),
                                  dict(g.settings)))
    rng = random.Random(seed)
    for _ in range(plies):
        after, _ = state.apply(state.current_player(), rng.choice(list(state.legal_decisions())))
        if after.is_terminal():
            break
        state = after
    return state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=st.sampled_from(STARTS), seed=st.integers(0, 10**6), plies=st.integers(0, 120))
def test_strong_never_plays_an_illegal_move_and_keeps_to_its_node_budget(start, seed, plies):
    game, board, players = start
    state = position(game, board, players, seed, plies)
    budget = Budget(NODES, None)
    decision = PLAYERS[game].choose(state, budget, random.Random(seed))
    assert state.illegal_reason(decision) is None, f"{game}: {decision} in {state.to_json()}"
    # tick() stops the search on the first node over the budget
    assert budget.count <= NODES + 1


@pytest.mark.parametrize("game,board,players", [s for s in STARTS if s[0] != "tsuro"] + [
    ("tsuro", "empty.txt", 4)])
def test_a_node_budget_makes_the_choice_reproducible(game, board, players):
    state = position(game, board, players, seed=11, plies=7)
    choices = {str(PLAYERS[game].choose(state, Budget(400, None), random.Random(3))) for _ in range(3)}
    assert len(choices) == 1


def test_tsuro_strong_decides_from_its_own_view_only():
    """Two states that differ only in what the mover cannot see (the rivals'
    hands, the pile's order) get the same decision."""
    from dataclasses import replace
    state = position("tsuro", "empty.txt", 3, seed=4, plies=3)
    assert state.step_kind() == "play"
    me = state.current
    a, b = [p for p in (1, 2, 3) if p != me]
    hands = list(state.hands)
    hands[a - 1], hands[b - 1] = hands[b - 1], hands[a - 1]
    other = replace(state, pile=tuple(reversed(state.pile)), hands=tuple(hands))
    mover = PLAYERS["tsuro"]
    assert str(mover.choose(state, Budget(300, None), random.Random(1))) == \
        str(mover.choose(other, Budget(300, None), random.Random(1)))


def test_quoridor_strong_takes_a_won_race_and_blocks_a_lost_one():
    """One step from its goal, it steps there; facing a rival one step from
    its goal while itself five away, it walls the rival."""
    state = quoridor.rules.QuoridorState.arrange(2, {1: (1, 4), 2: (3, 4)}, [], {1: 10, 2: 10}, 1)
    decision = PLAYERS["quoridor"].choose(state, Budget(500, None))
    assert str(decision) == "M 1 4 0 4"
    # player 2 is 5 steps from row 8, player 1 (to move next) is 1 step from row 0:
    # only a wall in front of player 1 saves player 2
    state = quoridor.rules.QuoridorState.arrange(2, {1: (1, 4), 2: (3, 4)}, [], {1: 10, 2: 10}, 2)
    decision = PLAYERS["quoridor"].choose(state, Budget(2000, None))
    assert isinstance(decision, quoridor.rules.Wall)
    after, _ = state.apply(2, decision)
    assert after.distance(1) > 1


def test_blackhole_strong_saves_a_ship_when_it_can():
    # the ship on 2 4 slides left and stops on the hole, against the ship on 2 1
    grid = ((1, 0, 0, 0, 0), (0, 0, 0, 0, 0), (0, 2, 3, 0, 1), (0, 0, 0, 0, 0), (2, 0, 0, 0, 2))
    state = blackhole.rules.BlackHoleState(grid=grid, saved=(1, 0))
    decision = PLAYERS["blackhole"].choose(state, Budget(300, None))
    assert decision.dst == blackhole.rules.HOLE


def test_options_become_argv_words_and_unknown_ones_are_input_errors(tmp_path):
    agent = make_agent("builtin:strong?budget=0.2&nodes=500", cantris.GAME, Limits(), tmp_path)
    assert agent.argv[-2:] == ["--budget=0.2", "--nodes=500"]
    assert parse_options([*agent.argv[-2:], "3", "1"]) == StrongOptions(budget=0.2, nodes=500)
    assert parse_options(["3", "1"]) == StrongOptions(budget=1.0, nodes=None)
    assert parse_options(["--budget=0.2", "--nodes=500"]) == StrongOptions(budget=0.2, nodes=500)  # persistent
    for spec, words in [("builtin:strong?depth=3", "unknown option 'depth'"),
                        ("builtin:strong?budget=fast", "positive number"),
                        ("builtin:strong?nodes=-5", "positive integer"),
                        ("builtin:greedy?budget=1", "unknown option 'budget'")]:
        with pytest.raises(InputError, match=words):
            make_agent(spec, cantris.GAME, Limits(), tmp_path)


def test_a_tournament_entrant_can_be_a_budgeted_strong_player(tmp_path):
    from referee.tournament.config import load_config
    config = tmp_path / "class.yaml"
    config.write_text(yaml.safe_dump({
        "game": "blackhole", "format": "round_robin",
        "entrants": [{"name": "strong", "command": "builtin:strong?nodes=200"},
                     {"name": "greedy", "command": "builtin:greedy"}]}))
    loaded = load_config(config)
    assert [e.command for e in loaded.entrants] == ["builtin:strong?nodes=200", "builtin:greedy"]
    config.write_text(config.read_text().replace("nodes=200", "nodse=200"))
    with pytest.raises(InputError, match="nodse"):
        load_config(config)


@pytest.mark.parametrize("game,seats,board,seed", [
    ("cantris", ("builtin:strong?nodes=3000", "builtin:random"), "8x4-1.txt", 1),
    ("blackhole", ("builtin:random", "builtin:strong?nodes=1500"), "standard.txt", 2),
    ("tessella", ("builtin:strong?nodes=300", "builtin:random"), "close-quarters.txt", 3),
    ("quoridor", ("builtin:random", "builtin:strong?nodes=800"), "standard-2p.txt", 4),
    ("tsuro", ("builtin:random", "builtin:strong?nodes=500", "builtin:random"), "empty.txt", 5),
])
def test_strong_beats_random_in_a_real_match(tmp_path, game, seats, board, seed):
    out = tmp_path / "m"
    result = play_match(game, out, *seats, board=BOARDS / game / board, seed=seed)
    assert_clean_and_verified(out, result)
    hero = next(i for i, s in enumerate(seats, 1) if "strong" in s)
    assert result["winner"] == hero, result


def test_on_its_time_budget_strong_is_never_late(tmp_path):
    """The default budget (1 s, at most half the soft limit, start-up
    included) keeps every step inside the soft limit: all verdicts OK.  (A
    4 s limit leaves a busy machine's start-up room; the budget is 1 s.)"""
    out = tmp_path / "m"
    result = play_match("tessella", out, "builtin:strong", "builtin:random", seed=6,
                        extra=("--time-limit", "4", "--set", "ply_cap=12"))
    records = assert_clean_and_verified(out, result)
    assert [r["verdict"] for r in records if r["player"] == 1] == ["OK"] * 6
