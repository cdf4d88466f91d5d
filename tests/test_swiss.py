"""Swiss format: pairing rules as pure logic, then whole tournaments through
the runner with a fake match function (fast, deterministic)."""
from __future__ import annotations


import pytest

from referee.core.errors import InputError
from referee.tournament.config import load_config
from referee.tournament.formats import Swiss, swiss_default_rounds
from referee.tournament.runner import Tournament

from test_tournament_runner import FakePlay, run, write_config


def play_out(swiss: Swiss, result) -> tuple[dict, dict]:
    """Play every round with ``result(a, b) -> (points a, points b)``."""
    done: dict = {}
    points: dict = {}
    while not swiss.finished(done, points):
        tables = swiss.ready(done, points)
        assert tables, "unfinished but nothing to play"
        for t in tables:
            a, b = t.entrants
            done[t.id] = None
            pa, pb = result(a, b)
            points[t.id] = {a: pa, b: pb}
    return done, points


def stronger_wins(a: int, b: int) -> tuple[float, float]:
    return (2.0, 0.0) if a < b else (0.0, 2.0)


def test_default_rounds():
    assert [swiss_default_rounds(n) for n in (2, 4, 5, 8, 9, 300)] == [1, 3, 5, 5, 6, 11]


@pytest.mark.parametrize("entrants", [4, 7, 10, 15])
def test_no_repeated_pairing_and_everyone_plays_each_round(entrants):
    swiss = Swiss(list(range(entrants)))
    done, points = play_out(swiss, stronger_wins)
    rounds = swiss.played(done, points)[0]
    assert len(rounds) == swiss.rounds == swiss_default_rounds(entrants)
    pairs = [frozenset(t.entrants) for r in rounds for t in r.tables]
    assert len(pairs) == len(set(pairs))
    for rnd in rounds:
        seated = [e for t in rnd.tables for e in t.entrants] + ([rnd.bye] if rnd.bye is not None else [])
        assert sorted(seated) == list(range(entrants))
        assert (rnd.bye is not None) == (entrants % 2 == 1)


def test_round_one_is_top_half_against_bottom_half():
    swiss = Swiss([3, 1, 0, 2, 5, 4])  # seed order
    assert [t.entrants for t in swiss.ready({}, {})] == [(3, 2), (1, 5), (0, 4)]


def test_byes_go_to_the_lowest_ranked_without_one():
    swiss = Swiss(list(range(5)), rounds=5)
    done, points = play_out(swiss, stronger_wins)
    byes = [r.bye for r in swiss.played(done, points)[0]]
    assert byes[0] == 4  # lowest seed, no points yet
    assert sorted(byes) == [0, 1, 2, 3, 4]  # never twice while someone has not had one
    assert swiss.byes(done, points) == {e: 2.0 for e in range(5)}


def test_later_rounds_pair_equal_scores():
    swiss = Swiss(list(range(8)))
    done, points = play_out(swiss, stronger_wins)
    second = swiss.played(done, points)[0][1]
    # after round 1 (0-4, 1-5, 2-6, 3-7) the winners 0..3 meet each other
    assert {frozenset(t.entrants) for t in second.tables} == \
        {frozenset((0, 1)), frozenset((2, 3)), frozenset((4, 5)), frozenset((6, 7))}


def test_pairing_backs_up_instead_of_repeating():
    swiss = Swiss([0, 1, 2, 3], rounds=3)
    done, points = play_out(swiss, lambda a, b: (1.0, 1.0))  # all drawn: order stays 0, 1, 2, 3
    pairs = [{frozenset(t.entrants) for t in r.tables} for r in swiss.played(done, points)[0]]
    assert pairs[0] == {frozenset((0, 2)), frozenset((1, 3))}
    assert pairs[1] == {frozenset((0, 1)), frozenset((2, 3))}
    assert pairs[2] == {frozenset((0, 3)), frozenset((1, 2))}  # 0-2 is taken: 0 backs up to 3


def test_swiss_tournament_standings_buchholz_and_resume(tmp_path):
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    whole.mkdir(), broken.mkdir()
    reference, play = run(write_config(whole, 9, "swiss"))
    assert reference.plan.finished and reference.failure is None
    rounds = swiss_default_rounds(9)
    assert reference.games == rounds * 4 * 2  # four pairings a round, both seats of one board
    assert len(play.calls) == len(set(play.calls))
    rows = reference.standings
    assert all(r.buchholz is not None and r.rating is not None for r in rows)
    keys = [(-r.points, -r.buchholz, -r.rating) for r in rows]
    assert keys == sorted(keys)
    # a bye is a won pairing: points = game points + 2 per bye
    game_points = {r.name: r.wins + 0.5 * r.draws for r in rows}
    assert sum(r.points - game_points[r.name] for r in rows) == pytest.approx(2.0 * rounds)
    out = whole / "out"
    assert "buchholz" in (out / "standings.csv").read_text().splitlines()[0]
    assert "Round 1:" in (out / "rounds.txt").read_text()
    assert "## Rounds" in (out / "standings.md").read_text()

    config = write_config(broken, 9, "swiss")
    first, crashed = run(config, jobs=2, play=FakePlay(fail_after=11))
    assert first.failure and not first.plan.finished
    second, resumed = run(config, jobs=3, resume=True)
    assert not set(resumed.calls) & set(crashed.calls)
    for name in ("standings.csv", "rounds.txt", "games.csv"):
        assert (broken / "out" / name).read_text() == (out / name).read_text()


def test_config_checks_swiss_rounds(tmp_path):
    path = write_config(tmp_path, 4, "swiss", rounds=4)
    with pytest.raises(InputError, match=r"rounds: 4 entrants have at most 3 Swiss rounds"):
        load_config(path)
    config = load_config(write_config(tmp_path, 4, "swiss", rounds=2))
    assert Tournament(config).format.rounds == 2
