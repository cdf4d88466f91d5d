"""Tsuro properties over random matches (hypothesis): every generated move is
accepted and nothing else is, states are never mutated, tiles are conserved,
markers never share a point, hands stay hidden, and the same seed and
decisions give the same states."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from referee.core.game import Setup
from referee.games.tsuro import GAME
from referee.games.tsuro import board as geo
from referee.games.tsuro.decisions import Place, Start
from referee.games.tsuro.rules import HAND, TsuroState

MAX_STEPS = 200


def check_invariants(s: TsuroState) -> None:
    placed = [cell[0] for cell in s.cells if cell is not None]
    everything = placed + list(s.pile) + [t for hand in s.hands for t in hand]
    assert sorted(everything) == list(range(35))          # every tile exactly once
    assert all(len(hand) <= HAND for hand in s.hands)
    assert s.dragon is None or (not s.pile and s.out[s.dragon - 1] is None)
    points = [geo.canonical(m) for m in s.active_markers().values()]
    assert len(points) == len(set(points))                 # no shared point unless out
    for m in s.active_markers().values():
        assert geo.on_board(*m[:2]) and geo.cell_at(s.cells, *m[:2]) is None
    for p in range(1, s.players + 1):
        if s.out[p - 1] is not None:
            assert s.hands[p - 1] == ()


def check_views(s: TsuroState) -> None:
    for viewer in range(1, s.players + 1):
        view = GAME.view_json(s, viewer)
        assert view["hand"] == list(s.hands[viewer - 1])
        assert "hands" not in view and "pile_tiles" not in view
        text = GAME.board_text(s, viewer)
        for line in text.splitlines():
            words = line.split()
            if words[:1] == ["hand"] and int(words[1]) != viewer:
                assert words[2] == "hidden"
        assert GAME.snapshot_text(s, viewer) == text


def random_decision_like(rng: random.Random, s: TsuroState):
    if s.step_kind() == "setup":
        return Start(rng.randrange(-2, 50))
    return Place(rng.randrange(-1, 4), rng.randrange(-1, 5), rng.randrange(-1, 7), rng.randrange(-1, 7))


def play(seed: int, players: int, variant: str, rng: random.Random, eject_rate: float):
    """A random match; returns the actions taken and every state."""
    s = GAME.initial_state(Setup(variant, players, seed))
    actions, states = [], [s]
    while not s.is_terminal():
        assert len(actions) < MAX_STEPS
        before = s.to_json()
        player = s.current_player()
        legal = s.legal_decisions()
        assert legal and all(s.illegal_reason(d) is None for d in legal)
        for _ in range(5):
            probe = random_decision_like(rng, s)
            assert (s.illegal_reason(probe) is None) == (probe in legal)
        if rng.random() < eject_rate:
            action = ("eject", player)
            s, _ = s.eject(player)
        else:
            action = ("apply", player, rng.choice(legal))
            s, _ = s.apply(player, action[2])
        assert states[-1].to_json() == before                 # apply/eject never mutate
        actions.append(action)
        states.append(s)
    return actions, states


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 8),
       variant=st.sampled_from(["seed", "classic"]), choices=st.integers(0, 2**32),
       eject_rate=st.sampled_from([0.0, 0.0, 0.05]))
def test_random_matches_keep_the_rules(seed, players, variant, choices, eject_rate):
    actions, states = play(seed, players, variant, random.Random(choices), eject_rate)
    for s in states:
        check_invariants(s)
    check_views(states[len(states) // 2])
    final = states[-1].outcome()
    assert sorted(p for group in final.ranking for p in group) == list(range(1, players + 1))
    # the same seed and decisions give the same states, step by step
    s = GAME.initial_state(Setup(variant, players, seed))
    for action, expected in zip(actions, states[1:]):
        s, _ = s.eject(action[1]) if action[0] == "eject" else s.apply(action[1], action[2])
        assert s.to_json() == expected.to_json()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 8))
def test_auto_decision_is_a_skip_exactly_when_nothing_can_be_placed(seed, players):
    rng = random.Random(seed)
    _, states = play(seed, players, "seed", rng, 0.0)
    for s in states[:-1]:
        auto = s.auto_decision()
        assert (auto is not None) == (s.legal_decisions() == [auto])
