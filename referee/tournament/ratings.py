"""The statistics of measuring bots: Elo from a score, its 95% interval over
paired games (pentanomial), the sequential probability ratio test (SPRT) and
maximum-likelihood ratings for a whole field (Bradley-Terry for two-player
games, Plackett-Luce for rankings of more).

Why these: they are what chess-engine testers (fishtest, cutechess, fastchess)
use to answer "is the new version better?" without trusting one lucky game,
and what rating systems use to put a field on one scale.  A pair's figures
(at most five counts) are plain Python; a field's fit is numpy, imported only
then: its import was a quarter of a second of CPU in every ``play --games``.

Conventions: a score is the mean points per game in [0, 1] (win 1, draw 1/2,
loss 0); Elo is the logistic scale, ``score = 1 / (1 + 10 ** (-elo / 400))``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import numpy as np

Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution
ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of log-strength


def elo_from_score(score: float) -> float:
    """The logistic Elo difference that predicts ``score``; +/-inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # no "-0.0" in reports


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


# ----- a paired series -------------------------------------------------------

PAIR_OUTCOMES = (0.0, 0.5, 1.0, 1.5, 2.0)
"""A pair's points for one side: LL, LD, DD or WL, WD, WW."""


@dataclass(frozen=True)
class EloEstimate:
    """The Elo difference of A over B with its 95% interval; ``score`` is A's
    mean points per game."""

    score: float
    elo: float
    low: float
    high: float
    samples: int  # pairs (pentanomial) or games (trinomial)


def pentanomial(pair_points: Sequence[float]) -> list[int]:
    """Counts of pairs scoring 0, 1/2, 1, 3/2, 2 points for one side."""
    counts = [0] * 5
    for p in pair_points:
        counts[int(round(p * 2))] += 1
    return counts


def _mean_var(values: Sequence[float], counts: Sequence[float]) -> tuple[float, float, int]:
    total = math.fsum(counts)
    n = int(round(total))
    if total <= 0.0:
        return 0.5, 0.0, 0
    # Sums exactly rounded, divided once: whole counts of quarter points sum
    # exactly, so a series that came out even scores exactly 0.5 (Elo +0.0).
    mean = math.fsum(c * v for c, v in zip(counts, values)) / total
    var = math.fsum(c * (v - mean) ** 2 for c, v in zip(counts, values)) / total
    return mean, var, n


def _sample_values(counts: Sequence[int]) -> list[float]:
    """Each sample's mean points per game: five pentanomial counts are pairs
    scoring 0, 1/2, 1, 3/2, 2 points (per game: 0 .. 1 in quarters); three
    trinomial counts are single games lost, drawn, won."""
    if len(counts) == 5:
        return [0.0, 0.25, 0.5, 0.75, 1.0]
    if len(counts) == 3:
        return [0.0, 0.5, 1.0]
    raise ValueError(f"expected 5 pentanomial or 3 trinomial counts, got {len(counts)}")


def elo_interval(counts: Sequence[int]) -> EloEstimate:
    """Elo and 95% interval from outcome counts: five pentanomial counts (pairs
    scoring 0..2) or three trinomial counts (loss, draw, win).  Why pairs: the two games of a pair (same board,
    seats swapped) are correlated, and treating them as independent games
    overstates the error bar.  Normal approximation on the mean score, then
    mapped through the logistic curve, as fishtest reports it."""
    mean, var, n = _mean_var(_sample_values(counts), [float(c) for c in counts])
    if n == 0:
        return EloEstimate(0.5, 0.0, -math.inf, math.inf, 0)
    half = Z95 * math.sqrt(var / n)
    return EloEstimate(mean, elo_from_score(mean), elo_from_score(mean - half),
                       elo_from_score(mean + half), n)


def sweep_bound(pairs: int) -> float:
    """The Elo one side is at least worth, with 95% confidence, after it
    scored every point of ``pairs`` pairs (no finite estimate exists then).
    Counted over pairs, as the interval is: if a pair is a clean sweep with
    probability q, seeing ``pairs`` sweeps has probability q ** pairs, which
    is 5% at q = 0.05 ** (1 / pairs); a side sweeping with probability q
    scores at least q per game (every other pair lost, at worst)."""
    if pairs < 1:
        return -math.inf
    return elo_from_score(0.05 ** (1.0 / pairs))


def same_games(pairs: Sequence[Sequence["object"]]) -> bool:
    """Whether every pair replayed the same games: each seat order ended
    alike (steps, ranking, scores) on the same board in every pair, which is
    what two deterministic players on one board do whatever the seeds."""
    if len(pairs) < 2:
        return False
    first = pair_shape(pairs[0])
    return all(pair_shape(p) == first for p in pairs[1:])


def pair_shape(pair: Sequence["object"]) -> tuple:
    """What :func:`same_games` compares of a pair's games."""
    return tuple(sorted((tuple(r.seats), r.board, r.steps, tuple(map(tuple, r.ranking)),
                         tuple(sorted((r.scores or {}).items()))) for r in pair))


def describe_elo(est: EloEstimate, identical: bool, one_board: bool, side: str) -> str:
    """The Elo line's text, honest where the normal interval is not: a
    series that replayed one game is said to be one game (and where to get
    more), a zero-variance series has no interval, and a clean sweep gets a
    lower bound instead of an infinity."""
    more = "add boards (--boards)" if one_board else "add boards or randomness"
    if identical:
        return (f"not measurable: all {est.samples} pairs were the same game (deterministic players"
                f"{' on one board' if one_board else ''}); {more} to measure a difference")
    if not math.isfinite(est.elo):
        bound = sweep_bound(est.samples)
        if bound <= 0:
            won = "scored every point" if est.elo > 0 else "lost every point"
            return (f"no estimate: {side} {won} over {est.samples} pair(s), too few for a 95% bound "
                    f"(5 clean pairs give one)")
        if est.elo > 0:
            return (f"at least {bound:+.1f} (95% lower bound: {side} scored every point over "
                    f"{est.samples} pairs; more pairs raise it)")
        return (f"at most {-bound:+.1f} (95% upper bound: {side} lost every point over "
                f"{est.samples} pairs; more pairs lower it)")
    if est.samples < 2:
        return f"{est.elo:+.1f}, one pair only: no interval (play more games)"
    if est.low == est.high:
        return (f"{est.elo:+.1f}, no interval: every pair scored alike ({est.samples} pairs); "
                f"{more} to measure the spread")
    return f"{est.elo:+.1f}  95% interval [{_signed(est.low)}, {_signed(est.high)}]"


def _signed(value: float) -> str:
    return f"{value:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


@dataclass(frozen=True)
class SprtSpec:
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        """Accept H0 (elo0) at or below this log-likelihood ratio."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 (elo1) at or above this log-likelihood ratio."""
        return math.log((1.0 - self.beta) / self.alpha)

    def text(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"


SPRT_MAX_ELO = 1000.0
"""The largest ``|elo0|`` and ``|elo1|`` taken.  1000 Elo is a score of
99.7%; past that the bounds say nothing a test could tell apart, and
``elo1=1e308`` printed "stronger by about 1e+308 Elo", ``-2000/2000``
decided after one pair."""


def parse_sprt(text: str) -> SprtSpec:
    """``elo0=0,elo1=10,alpha=0.05,beta=0.05`` (any subset; the rest
    default).  ValueError, in words, for a key given twice (the last one
    silently won), a value that is no finite number, a bound past
    :data:`SPRT_MAX_ELO`, or error rates outside (0, 0.5)."""
    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in ("elo0", "elo1", "alpha", "beta"):
            raise ValueError(f"{part!r}: expected elo0=, elo1=, alpha= or beta=")
        if key in values:
            raise ValueError(f"{key} is given twice; give each of elo0, elo1, alpha, beta once")
        try:
            values[key] = float(value)
        except ValueError:
            raise ValueError(f"{part!r}: {value.strip()!r} is not a number") from None
        if not math.isfinite(values[key]):
            raise ValueError(f"{part!r}: expected a finite number")
        if key.startswith("elo") and abs(values[key]) > SPRT_MAX_ELO:
            raise ValueError(f"{part!r}: {key} must be between {-SPRT_MAX_ELO:g} and {SPRT_MAX_ELO:g}")
    spec = SprtSpec(**values)
    if not spec.elo0 < spec.elo1:
        raise ValueError(f"elo0 ({spec.elo0:g}) must be below elo1 ({spec.elo1:g})")
    if not (0 < spec.alpha < 0.5 and 0 < spec.beta < 0.5):
        raise ValueError("alpha and beta must be between 0 and 0.5")
    return spec


def sprt_llr(counts: Sequence[int], spec: SprtSpec) -> float:
    """The log-likelihood ratio of H1 (elo1) against H0 (elo0), by the
    generalised SPRT's normal approximation on the logistic Elo scale (the
    "logistic" model of fishtest and fastchess):
    ``LLR = n (s1 - s0) (2 s - s0 - s1) / (2 var)`` with ``s`` the sample mean
    score per game, ``var`` the sample variance of one sample's mean score and
    ``n`` the samples (pairs).

    As fishtest does, an outcome never seen counts 0.001 times (it
    "regularizes" the frequencies), so that a series where every pair ended
    alike (all won, all split) still has a variance and can decide."""
    n = int(sum(counts))
    if n == 0:
        return 0.0
    regular = [float(c) if c else 1e-3 for c in counts]
    mean, var, _ = _mean_var(_sample_values(counts), regular)
    s0, s1 = score_from_elo(spec.elo0), score_from_elo(spec.elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def sprt_decision(llr: float, spec: SprtSpec) -> str | None:
    """"H1" (elo1 accepted), "H0" (elo0 accepted), or None (keep playing)."""
    if llr >= spec.upper:
        return "H1"
    if llr <= spec.lower:
        return "H0"
    return None


# ----- a whole field: Bradley-Terry / Plackett-Luce --------------------------

@dataclass(frozen=True)
class Rating:
    """An entrant's strength in Elo relative to the field's average (0), with
    its 95% interval."""

    rating: float
    low: float
    high: float


def plackett_luce(players: int, rankings: Sequence[Sequence[Sequence[int]]],
                  iterations: int = 100) -> list[Rating]:
    """Maximum-likelihood ratings from finished games, each a ranking: groups
    of player indices, best group first (``[[3], [0, 2], [1]]``: 3 won, 0 and 2
    tied, 1 last).  A two-player game is the Bradley-Terry model (a draw is
    half a win and half a loss); bigger tables are the Plackett-Luce model
    (the winner chosen from all, the second from the rest, ...), a tie at one
    place counting as one choice shared equally among the tied.

    Why a prior: an entrant that won (or lost) every game has no finite
    maximum-likelihood rating, so every entrant also plays one virtual draw
    against an average entrant (as BayesElo's prior does): it pulls extreme
    records in a little and nothing else.  Intervals are +/-1.96 standard
    errors from the inverse of the observed information (Newton's method's own
    Hessian), for each rating relative to the field's mean.
    """
    if players == 0:
        return []
    import numpy as np

    theta, covariance = fit_strengths(players, rankings, iterations)
    centre = np.eye(players) - 1.0 / players              # rating minus the field's mean
    centred = centre @ theta
    variance = np.einsum("ij,jk,ik->i", centre, covariance, centre)
    spread = Z95 * np.sqrt(np.maximum(variance, 0.0))
    return [Rating(float(ELO_PER_NAT * c), float(ELO_PER_NAT * (c - s)), float(ELO_PER_NAT * (c + s)))
            for c, s in zip(centred, spread)]


def anchored_ratings(players: int, rankings: Sequence[Sequence[Sequence[int]]],
                     anchors: dict[int, float], iterations: int = 100) -> list[Rating]:
    """Ratings on a fixed scale: the players in ``anchors`` keep the Elo
    given them (reference bots with known strengths), the others are fitted
    to the games by the same model as :func:`plackett_luce`, their prior's
    virtual draw played against the anchors' mean.  Intervals are the
    fitted players' own (an anchor's is zero wide)."""
    import numpy as np

    fixed = {i: elo / ELO_PER_NAT for i, elo in anchors.items()}
    theta, covariance = fit_strengths(players, rankings, iterations, fixed)
    spread = Z95 * np.sqrt(np.maximum(np.diag(covariance), 0.0))
    return [Rating(float(ELO_PER_NAT * t), float(ELO_PER_NAT * (t - s)), float(ELO_PER_NAT * (t + s)))
            for t, s in zip(theta, spread)]


def fit_strengths(players: int, rankings: Sequence[Sequence[Sequence[int]]],
                  iterations: int = 100, fixed: dict[int, float] | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The maximum a posteriori log-strengths (natural scale, the virtual
    average entrant at 0) and their covariance matrix.  ``fixed`` holds
    players whose log-strength is given (anchors): only the others are
    fitted, the virtual entrant of their prior is the anchors' mean, and
    the anchors' rows and columns of the covariance are zero."""
    import numpy as np

    stages_r: list[list[int]] = []   # who was still in the running at each choice
    stages_w: list[list[int]] = []   # who was chosen (shared weight if tied)
    for ranking in rankings:
        remaining = [p for group in ranking for p in group]
        for group in ranking:
            if len(remaining) > 1:  # a tie of all the rest still says they are equal
                stages_r.append(list(remaining))
                stages_w.append(list(group))
            remaining = [p for p in remaining if p not in group]
    members = np.zeros((len(stages_r), players))
    chosen = np.zeros((len(stages_r), players))
    for row, (among, group) in enumerate(zip(stages_r, stages_w)):
        members[row, among] = 1.0
        chosen[row, group] = 1.0 / len(group)
    won = chosen.sum(axis=0)

    fixed = fixed or {}
    centre = float(np.mean(list(fixed.values()))) if fixed else 0.0
    free = np.array([p for p in range(players) if p not in fixed], dtype=int)
    theta = np.full(players, centre)
    for p, value in fixed.items():
        theta[p] = value
    hessian = -np.eye(players)
    for _ in range(iterations):
        weights = members * np.exp(theta - theta.max())
        probs = weights / np.maximum(weights.sum(axis=1, keepdims=True), 1e-300)
        prior = 1.0 / (1.0 + np.exp(centre - theta))         # P(beat the average entrant)
        gradient = won - probs.sum(axis=0) + (0.5 - prior)
        hessian = probs.T @ probs - np.diag(probs.sum(axis=0) + prior * (1.0 - prior))
        if free.size == 0:
            break
        step = np.linalg.solve(hessian[np.ix_(free, free)], -gradient[free])
        step = np.clip(step, -2.0, 2.0)  # strictly concave: Newton converges; clip early overshoot
        theta[free] = theta[free] + step
        if np.abs(step).max() < 1e-10:
            break
    covariance = np.zeros((players, players))
    if free.size:
        covariance[np.ix_(free, free)] = np.linalg.inv(-hessian[np.ix_(free, free)])
    return theta, covariance
