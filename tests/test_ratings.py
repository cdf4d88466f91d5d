"""The statistics module against worked examples: numbers computed by hand
(shown in the comments) and an independently written likelihood."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from referee.tournament.ratings import (SprtSpec, describe_elo, elo_from_score, elo_interval, fit_strengths,
                                        parse_sprt, pentanomial, plackett_luce, score_from_elo,
                                        sprt_decision, sprt_llr)


def test_elo_from_score_worked_values():
    # 3 of 4 points: -400 log10(1/0.75 - 1) = 400 log10(3) = 190.85
    assert elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-3)
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.25) == pytest.approx(-190.8485, abs=1e-3)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert score_from_elo(elo_from_score(0.64)) == pytest.approx(0.64)
    # 10 Elo: 1 / (1 + 10^(-10/400)) = 0.514387
    assert score_from_elo(10) == pytest.approx(0.514387, abs=1e-6)


def test_pentanomial_counts_pairs_by_points():
    assert pentanomial([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]


def test_pentanomial_interval_worked_example():
    # pairs LL, DD, WL, WW: per-game means 0, .5, .5, 1 -> mean .5, variance .125,
    # standard error sqrt(.125 / 4) = .176777, half width 1.959964 * that = .346476;
    # low score .153524 -> -400 log10(1/.153524 - 1) = -296.575
    est = elo_interval([1, 0, 2, 0, 1])
    assert est.samples == 4 and est.score == 0.5 and est.elo == 0.0
    assert est.low == pytest.approx(-296.575, abs=0.01)
    assert est.high == pytest.approx(296.575, abs=0.01)


def test_pairs_that_always_split_have_no_error_bar():
    est = elo_interval([0, 0, 10, 0, 0])
    assert (est.elo, est.low, est.high) == (0.0, 0.0, 0.0)


def test_trinomial_interval_is_wider_than_pentanomial_for_correlated_pairs():
    # 10 pairs, each a win and a loss (seat advantage): as single games the
    # score looks noisy, as pairs it is exactly even.
    trinomial = elo_interval([10, 0, 10])
    assert trinomial.high - trinomial.low > 100
    assert elo_interval([0, 0, 10, 0, 0]).high == 0.0


def test_sprt_llr_worked_example():
    # pairs 10/20/40/20/10: mean .5, variance of a pair's mean score
    # (10*.25 + 20*.0625 + 20*.0625 + 10*.25)/100 = .075;
    # s0 = .5, s1 = .5143872; LLR = 100 (s1-s0)(2*.5 - s0 - s1)/(2*.075) = -0.13799
    assert sprt_llr([10, 20, 40, 20, 10], SprtSpec(0, 10)) == pytest.approx(-0.13799, abs=1e-4)
    # a clear edge: mean .6125, variance .07171875;
    # LLR = 100 * .0143872 * (1.225 - 1.0143872) / .1434375 = 2.1125
    assert sprt_llr([5, 10, 40, 25, 20], SprtSpec(0, 10)) == pytest.approx(2.1125, abs=1e-3)


def test_sprt_bounds_and_decisions():
    spec = SprtSpec(0, 10, 0.05, 0.05)
    assert spec.lower == pytest.approx(math.log(0.05 / 0.95))  # -2.944
    assert spec.upper == pytest.approx(2.944, abs=1e-3)
    assert sprt_decision(3.0, spec) == "H1"
    assert sprt_decision(-3.0, spec) == "H0"
    assert sprt_decision(0.5, spec) is None
    # outcomes never seen count 0.001 times (fishtest's regularisation), so a
    # series of identical pairs still decides: seven split pairs mean "not stronger"
    assert sprt_decision(sprt_llr([0, 0, 7, 0, 0], spec), spec) == "H0"
    # one pair won twice: mean (1 + .001 (0 + .25 + .5 + .75)) / 1.004 = .997510,
    # variance .0018613; LLR = .0143872 (1.995020 - 1.0143872) / .0037227 = 3.790
    assert sprt_llr([0, 0, 0, 0, 1], spec) == pytest.approx(3.790, abs=2e-3)
    assert sprt_llr([0, 0, 0, 0, 0], spec) == 0.0


def test_parse_sprt():
    spec = parse_sprt("elo0=0,elo1=10,alpha=0.05,beta=0.1")
    assert (spec.elo0, spec.elo1, spec.alpha, spec.beta) == (0, 10, 0.05, 0.1)
    assert parse_sprt("elo1=5") == SprtSpec(0, 5, 0.05, 0.05)
    for bad in ("elo0=10,elo1=0", "elo2=3", "alpha=x", "alpha=0.7", "elo0"):
        with pytest.raises(ValueError):
            parse_sprt(bad)
    assert parse_sprt("elo0=-1000,elo1=1000") == SprtSpec(-1000, 1000, 0.05, 0.05)


@pytest.mark.parametrize("text,message", [
    # taken before: "stronger by about 1e+308 Elo", "inf Elo", a decision after one pair
    ("elo1=inf", "'elo1=inf': expected a finite number"),
    ("elo1=1e400", "'elo1=1e400': expected a finite number"),
    ("elo0=nan,elo1=10", "'elo0=nan': expected a finite number"),
    ("alpha=nan", "'alpha=nan': expected a finite number"),
    ("elo1=1e308", "'elo1=1e308': elo1 must be between -1000 and 1000"),
    ("elo0=-2000,elo1=2000", "'elo0=-2000': elo0 must be between -1000 and 1000"),
    # the last one silently won
    ("elo0=0,elo0=5", "elo0 is given twice; give each of elo0, elo1, alpha, beta once"),
    ("elo1=10, alpha=0.05,elo1=20", "elo1 is given twice"),
])
def test_parse_sprt_refuses_bounds_no_test_can_use_and_keys_given_twice(text, message):
    with pytest.raises(ValueError) as caught:
        parse_sprt(text)
    assert str(caught.value).startswith(message)


def log_posterior(theta, rankings):
    """Written independently of the module: Plackett-Luce with a tie as one
    shared choice, plus one virtual draw per entrant against strength 0."""
    total = 0.0
    for ranking in rankings:
        remaining = [p for g in ranking for p in g]
        for group in ranking:
            if len(remaining) > 1:
                denominator = math.log(sum(math.exp(theta[p]) for p in remaining))
                total += sum(theta[p] - denominator for p in group) / len(group)
            remaining = [p for p in remaining if p not in group]
    for t in theta:
        total += 0.5 * math.log(1 / (1 + math.exp(-t))) + 0.5 * math.log(1 / (1 + math.exp(t)))
    return total


@pytest.mark.parametrize("players,rankings", [
    (2, [[[0], [1]]] * 3 + [[[1], [0]]]),
    (3, [[[0], [1], [2]], [[1], [0, 2]], [[0], [2], [1]], [[2], [1], [0]]]),
    (4, [[[0], [1], [2], [3]], [[3], [0], [1], [2]], [[0, 1], [2, 3]], [[1], [0], [3], [2]],
         [[0], [1]], [[2], [3]]]),
])
def test_fit_maximises_the_independent_posterior(players, rankings):
    theta, covariance = fit_strengths(players, rankings)
    gradient = []
    for i in range(players):
        step = np.zeros(players)
        step[i] = 1e-6
        gradient.append((log_posterior(theta + step, rankings) - log_posterior(theta - step, rankings)) / 2e-6)
    assert np.abs(gradient).max() < 1e-5
    assert np.all(np.linalg.eigvalsh(covariance) > 0)


def test_bradley_terry_recovers_the_elo_of_a_large_sample():
    # 750 wins of 1000: 190.85 Elo apart; the prior's one virtual draw barely moves it
    ratings = plackett_luce(2, [[[0], [1]]] * 750 + [[[1], [0]]] * 250)
    assert ratings[0].rating - ratings[1].rating == pytest.approx(190.85, abs=1.0)
    assert ratings[0].rating == pytest.approx(-ratings[1].rating)
    assert ratings[0].low < ratings[0].rating < ratings[0].high


def test_perfect_record_has_a_finite_rating_and_a_wide_interval():
    few = plackett_luce(2, [[[0], [1]]] * 3)
    many = plackett_luce(2, [[[0], [1]]] * 3 + [[[0], [1]], [[1], [0]]] * 50)
    assert math.isfinite(few[0].rating) and few[0].rating > 0
    assert few[0].high - few[0].low > many[0].high - many[0].low


def test_two_player_draw_is_half_a_win_and_half_a_loss():
    draws = plackett_luce(2, [[[0, 1]]] * 4)
    split = plackett_luce(2, [[[0], [1]], [[1], [0]]] * 2)
    assert draws[0].rating == pytest.approx(0.0, abs=1e-9)
    # between equals, four draws inform exactly as much as two wins and two losses
    assert draws[0].high - draws[0].low == pytest.approx(split[0].high - split[0].low)
    assert draws[0].high - draws[0].low > 0


def test_stronger_player_in_tables_rates_higher():
    games = [[[0], [1], [2], [3]], [[0], [2], [1], [3]], [[1], [0], [3], [2]], [[0], [1], [3], [2]]] * 5
    ratings = [r.rating for r in plackett_luce(4, games)]
    assert ratings[0] > ratings[1] > ratings[2] > ratings[3]
    assert sum(ratings) == pytest.approx(0.0, abs=1e-6)


def test_standings_carry_ratings_in_every_rendering():
    from referee.tournament.journal import GameJob, GameRecord
    from referee.tournament.standings import compute_standings, csv_text, markdown_table, text_table

    def game(n: int, seats, winner):
        job = GameJob(f"g{n:02d}", "t", seats, 0, 0)
        ranking = [[winner], [3 - winner]]
        return GameRecord.from_result(job, {"winner": winner, "ranking": ranking, "scores": None,
                                            "reason": "", "verdicts": {}, "steps": 1}, "f", 0)

    records = [game(n, (0, 1) if n % 2 else (1, 0), 1 if n % 2 else 2) for n in range(8)]
    records += [game(8 + n, (1, 2), 1) for n in range(4)]
    rows = compute_standings(records, ["a", "b", "c"], [0, 1, 2])
    again = compute_standings(list(reversed(records)), ["a", "b", "c"], [0, 1, 2])
    assert [(r.rating, r.rating_low, r.rating_high) for r in rows] == \
        [(r.rating, r.rating_low, r.rating_high) for r in again]
    by_name = {r.name: r for r in rows}
    assert by_name["a"].rating > by_name["b"].rating > by_name["c"].rating
    assert all(r.rating_low < r.rating < r.rating_high for r in rows)
    header, first = csv_text(rows).splitlines()[:2]
    assert header.split(",")[9:12] == ["rating", "rating_low", "rating_high"]
    assert first.split(",")[9] == f"{by_name['a'].rating:.1f}"
    assert f"{by_name['a'].rating:+.0f} (" in text_table(rows)
    assert "rating (95%)" in markdown_table(rows)


def test_anchored_ratings_keep_the_anchors_and_place_the_rest_between_them():
    from referee.tournament.ratings import anchored_ratings

    # 3 of 4 against the 1000 anchor and 1 of 4 against the 1400 one: halfway, by symmetry
    games = [[[0], [1]]] * 3 + [[[1], [0]]] + [[[0], [2]]] + [[[2], [0]]] * 3
    player, low, high = anchored_ratings(3, games, {1: 1000.0, 2: 1400.0})
    assert player.rating == pytest.approx(1200.0, abs=0.01) and player.low < 1200 < player.high
    assert (low.rating, low.low, low.high) == (1000.0, 1000.0, 1000.0) and high.rating == 1400.0
    # a clean sweep is finite (the prior's virtual draw) and above the anchor, with an interval
    sweep = anchored_ratings(2, [[[0], [1]]] * 10, {1: 1000.0})[0]
    assert 1000 < sweep.low < sweep.rating < sweep.high < 3000
    # a draw-only record against one anchor is that anchor; moving the anchors moves it alike
    draws = [[[0, 1]]] * 6
    assert anchored_ratings(2, draws, {1: 1234.0})[0].rating == pytest.approx(1234.0, abs=0.01)
    shifted = anchored_ratings(3, games, {1: 1100.0, 2: 1500.0})[0]
    assert shifted.rating == pytest.approx(player.rating + 100, abs=0.01)


def test_an_even_series_is_elo_plus_zero_exactly():
    """Sums of counts of quarter points are exact: an even series scores 0.5,
    not 0.49999999999999994 shown as -0.0 (as numpy's summation order gave)."""
    for counts in ([1, 3, 2, 1, 2], [0, 1, 267, 1, 0], [3, 1, 3, 1, 3], [7, 2, 7]):
        est = elo_interval(counts)
        assert (est.score, est.elo) == (0.5, 0.0)
        assert describe_elo(est, False, False, "A").startswith("+0.0")


def test_a_series_does_not_import_numpy():
    """A pair's figures are plain Python: numpy's import (~0.25 s of CPU) is
    paid only where a whole field is fitted."""
    code = "import sys, referee.tournament.series, referee.tournament.ratings as r; " \
           "r.elo_interval([1, 2, 3, 2, 1]); r.sprt_llr([1, 2, 3, 2, 1], r.SprtSpec(0, 5)); " \
           "print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
