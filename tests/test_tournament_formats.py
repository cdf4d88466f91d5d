"""Bracket and schedule logic (pure): who plays whom, byes, losses, placement."""
from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from referee.tournament.formats import BYE, Bracket, RoundRobin, seed_positions

WINNER_RULES = {
    "top seed": lambda table, rng: min(table.entrants),
    "bottom seed": lambda table, rng: max(table.entrants),
    "random": lambda table, rng: rng.choice(table.entrants),
}


def play_out(bracket: Bracket, rule, seed: int = 0):
    """Plays the bracket to the end; returns (decisions, tables played in order)."""
    rng = random.Random(seed)
    done: dict[str, int] = {}
    played = []
    while not bracket.finished(done):
        ready = bracket.ready(done)
        assert ready, "a bracket that is not finished must have a playable match"
        for table in ready:
            assert BYE not in table.entrants and len(set(table.entrants)) == 2
            done[table.id] = rule(table, rng)
            played.append(table)
    assert bracket.ready(done) == []
    return done, played


def test_seed_positions_put_top_seeds_apart():
    assert seed_positions(2) == [1, 2]
    assert seed_positions(4) == [1, 4, 2, 3]
    assert seed_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    for size in (2, 4, 8, 16, 32):
        order = seed_positions(size)
        assert sorted(order) == list(range(1, size + 1))
        assert all(a + b == size + 1 for a, b in zip(order[0::2], order[1::2]))


@pytest.mark.parametrize("n", range(2, 18))
@pytest.mark.parametrize("rule", WINNER_RULES)
def test_double_elimination_two_lives(n, rule):
    for trial in range(3 if rule == "random" else 1):
        bracket = Bracket(list(range(n)), double=True)
        done, played = play_out(bracket, WINNER_RULES[rule], seed=trial)
        champion = bracket.champion(done)
        losses = {e: len(m) for e, m in bracket.losses(done).items()}
        assert all(losses[e] == 2 for e in range(n) if e != champion)
        assert losses[champion] <= 1
        reset = any(t.id == "GF2" for t in played)
        # every played match costs one life; the reset is played iff the
        # losers' bracket champion won the first final
        assert len(played) == 2 * (n - 1) + reset == sum(losses.values())
        winners_champion = bracket.who(bracket.by_id["GF"].sides[0], done)
        assert reset == (done["GF"] != winners_champion)
        assert Counter(e for t in played for e in t.entrants).keys() == set(range(n))
        places = bracket.placement(done)
        assert places[champion] == 1
        final = [t for t in played if t.id.startswith("GF")][-1]
        runner_up = next(e for e in final.entrants if e != champion)
        assert places[runner_up] == 2
        assert sorted(places.values())[:2] == [1, 2]


@pytest.mark.parametrize("n", range(2, 18))
def test_double_elimination_top_seed_wins_without_reset(n):
    bracket = Bracket(list(range(n)), double=True)
    done, played = play_out(bracket, WINNER_RULES["top seed"])
    assert bracket.champion(done) == 0
    assert len(played) == bracket.expected_tables() == 2 * (n - 1)
    assert "GF2" not in {t.id for t in played}


def test_grand_final_reset_when_losers_champion_wins():
    # seed 1 wins everything except the first final, against the losers' champion
    bracket = Bracket([0, 1, 2, 3], double=True)

    def rule(table, rng):
        if table.id == "GF":
            return max(table.entrants, key=lambda e: e != 0)
        return min(table.entrants)

    done, played = play_out(bracket, rule)
    assert [t.id for t in played][-2:] == ["GF", "GF2"]
    assert bracket.champion(done) == 0
    assert len(played) == 2 * 3 + 1
    assert "Grand final reset" in bracket.bracket_text(done, list("abcd"))


@pytest.mark.parametrize("n", range(2, 18))
@pytest.mark.parametrize("rule", WINNER_RULES)
def test_single_elimination(n, rule):
    bracket = Bracket(list(range(n)), double=False)
    done, played = play_out(bracket, WINNER_RULES[rule], seed=n)
    champion = bracket.champion(done)
    losses = {e: len(m) for e, m in bracket.losses(done).items()}
    assert len(played) == n - 1 == bracket.expected_tables()
    assert all(losses[e] == 1 for e in range(n) if e != champion) and losses[champion] == 0
    places = bracket.placement(done)
    assert places[champion] == 1 and sorted(places.values()).count(1) == 1


@pytest.mark.parametrize("n", range(2, 18))
def test_byes_go_to_the_top_seeds(n):
    bracket = Bracket(list(range(n)), double=False)
    byes = bracket.size - n
    first_round = [t for t in bracket.ready({}) if t.id.startswith("R1-")]
    playing = {e for t in first_round for e in t.entrants}
    assert len(first_round) == (n - byes) // 2
    assert playing == set(range(byes, n))  # seeds 1..byes skip the first round


def test_seeded_order_is_respected():
    # entrants 7, 3, 5, 1: entrant 7 is the top seed and meets the fourth seed (1)
    bracket = Bracket([7, 3, 5, 1], double=False)
    assert {t.entrants for t in bracket.ready({})} == {(7, 1), (3, 5)}


def test_bracket_text_names_byes_and_champion():
    bracket = Bracket([0, 1, 2], double=True)
    done, _ = play_out(bracket, WINNER_RULES["top seed"])
    text = bracket.bracket_text(done, ["ann", "bob", "cy"], {"W1-2": "tie-break: seed"})
    assert "ann (1) vs bye" in text and "walk-over" in text
    assert "[tie-break: seed]" in text
    assert text.rstrip().endswith("Champion: ann (1)")


@pytest.mark.parametrize("n", range(2, 9))
def test_round_robin_every_pair_once(n):
    rr = RoundRobin(list(range(n)))
    pairs = [frozenset(t.entrants) for t in rr.ready({})]
    assert sorted(map(sorted, pairs)) == sorted(map(list, itertools.combinations(range(n), 2)))
    assert rr.expected_tables() == n * (n - 1) // 2
    done = {t.id: None for t in rr.ready({})}
    assert rr.finished(done) and rr.ready(done) == []


def test_round_robin_tables_of_four():
    rr = RoundRobin(list(range(6)), size=4)
    assert len(rr.ready({})) == 15  # C(6, 4)
    assert all(len(set(t.entrants)) == 4 for t in rr.ready({}))


def test_random_rounds_seat_each_entrant_at_most_once_per_round():
    rr = RoundRobin(list(range(10)), size=4, rounds=3, seed=5)
    tables = rr.ready({})
    assert len(tables) == 3 * 2  # two tables of four per round, two entrants sit out
    for r in (1, 2, 3):
        seated = [e for t in tables if t.id.startswith(f"r{r}t") for e in t.entrants]
        assert len(seated) == len(set(seated)) == 8
    again = RoundRobin(list(range(10)), size=4, rounds=3, seed=5).ready({})
    other = RoundRobin(list(range(10)), size=4, rounds=3, seed=6).ready({})
    assert again == tables and other != tables


def test_random_rounds_share_sitting_out_evenly():
    rr = RoundRobin(list(range(7)), size=3, rounds=7, seed=1)  # one entrant rests per round
    played = Counter(e for t in rr.ready({}) for e in t.entrants)
    assert sorted(played.values()) == [6] * 7
