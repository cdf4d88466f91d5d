"""The games of one table and, when the format needs one, its winner.

A table plays every board of the suite once per seat rotation: a pairing
plays each board from both seats, a table of four plays each board four
times, every entrant taking every seat once.  All games on one board share a
seed, so a shuffled pile (Tsuro) is the same for every seat and every table.

Tie-break for a pairing that must have a winner (elimination):
1. more points in the pairing's games (win 1, draw 1/2);
2. a higher total in-game score over those games;
3. an extra pair of games (first board, both seats, a new seed), compared the
   same way (points, then score);
4. the better seed.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Mapping, Sequence

from referee.core.rng import derived_rng

from .formats import Table
from .journal import GameJob, GameRecord


@functools.lru_cache(maxsize=None)
def game_seed(tournament_seed: int, board: int, extra: bool = False) -> int:
    return derived_rng(tournament_seed, "extra" if extra else "board", board).randrange(2 ** 31)


def _rotations(table: Table) -> list[tuple[int, ...]]:
    e = table.entrants
    return [e[r:] + e[:r] for r in range(len(e))]


@functools.lru_cache(maxsize=None)  # the planner asks again after every game
def regular_jobs(table: Table, suite_size: int, seed: int) -> tuple[GameJob, ...]:
    return tuple(GameJob(f"{table.id}-b{b + 1}-s{r + 1}", table.id, seats, b, game_seed(seed, b))
            for b in range(suite_size) for r, seats in enumerate(_rotations(table)))


@functools.lru_cache(maxsize=None)
def extra_jobs(table: Table, seed: int) -> tuple[GameJob, ...]:
    return tuple(GameJob(f"{table.id}-x-s{r + 1}", table.id, seats, 0, game_seed(seed, 0, True), True)
            for r, seats in enumerate(_rotations(table)))


@dataclass(frozen=True)
class Decision:
    winner: int | None  # None: the format needs no winner (round robin)
    how: str            # "points", "score", "extra games", "seed" or "" (no winner needed)


def _leader(entrants: Sequence[int], records: Sequence[GameRecord]) -> tuple[int | None, str]:
    """The single best entrant by points, then by score; None if still tied."""
    for how, value in (("points", GameRecord.points), ("score", GameRecord.score)):
        totals = {e: sum(value(r, e) for r in records) for e in entrants}
        best = max(totals.values())
        leaders = [e for e, v in totals.items() if v == best]
        if len(leaders) == 1:
            return leaders[0], how
    return None, ""


def decide(table: Table, done: Mapping[str, GameRecord], suite_size: int, seed: int,
           needs_winner: bool, seed_rank: Mapping[int, int]) -> tuple[list[GameJob], Decision | None]:
    """(the games still to play, the decision once they are all played).

    ``seed_rank`` maps an entrant to its seed (0 = top seed)."""
    jobs = regular_jobs(table, suite_size, seed)
    missing = [j for j in jobs if j.key not in done]
    if missing:
        return missing, None
    if not needs_winner:
        return [], Decision(None, "")
    winner, how = _leader(table.entrants, [done[j.key] for j in jobs])
    if winner is not None:
        return [], Decision(winner, how)
    extra = extra_jobs(table, seed)
    missing = [j for j in extra if j.key not in done]
    if missing:
        return missing, None
    winner, _ = _leader(table.entrants, [done[j.key] for j in extra])
    if winner is not None:
        return [], Decision(winner, "extra games")
    return [], Decision(min(table.entrants, key=lambda e: seed_rank[e]), "seed")
