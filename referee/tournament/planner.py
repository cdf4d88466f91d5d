"""From the games played so far to the games to play next.

A pure function of (format, board suite size, seed, records): no I/O, no
clock, no order of arrival.  The runner calls it after every game; a resumed
tournament calls it with the journal's records and gets the same decisions.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from .formats import Bracket, RoundRobin, Swiss
from .journal import GameJob, GameRecord
from .tables import Decision, decide


@dataclass(frozen=True)
class Plan:
    pending: list[GameJob]          # playable now, in bracket/schedule order
    decisions: dict[str, Decision]  # finished tables
    finished: bool
    expected_games: int             # played + pending + an estimate of what follows
    points: dict[str, dict[int, float]] = field(default_factory=dict)  # finished tables' points


class Planner:
    def __init__(self, fmt: RoundRobin | Bracket | Swiss, seeded: Sequence[int], suite_size: int,
                 seed: int, table_size: int) -> None:
        self.fmt = fmt
        self.seed_rank = {e: i for i, e in enumerate(seeded)}
        self.suite_size = suite_size
        self.seed = seed
        self.games_per_table = suite_size * table_size
        self._points: dict[tuple[str, int], dict[int, float]] = {}  # (table, games) -> points

    def _table_points(self, table: str, entrants: Sequence[int],
                      played: list[GameRecord]) -> dict[int, float]:
        """Each entrant's points at a decided table (its records no longer
        change, so they are summed once, in key order: the same sum in any
        arrival order)."""
        key = (table, len(played))
        if key not in self._points:
            ordered = sorted(played, key=lambda r: r.key)
            self._points[key] = {e: sum(r.points(e) for r in ordered) for e in entrants}
        return self._points[key]

    def plan(self, records: Mapping[str, GameRecord]) -> Plan:
        decisions: dict[str, Decision] = {}
        winners: dict[str, int | None] = {}
        points: dict[str, dict[int, float]] = {}
        by_table: dict[str, list[GameRecord]] = {}
        for record in records.values():
            by_table.setdefault(record.table, []).append(record)
        while True:  # until a pass decides nothing new
            pending: list[GameJob] = []
            tables = 0
            decided_now = False
            for table in self.fmt.ready(winners, points):
                jobs, decision = decide(table, records, self.suite_size, self.seed,
                                        self.fmt.needs_winner, self.seed_rank)
                if decision is None:
                    pending.extend(jobs)
                    tables += 1
                else:
                    decisions[table.id] = decision
                    winners[table.id] = decision.winner
                    points[table.id] = self._table_points(table.id, table.entrants, by_table[table.id])
                    decided_now = True
            if not decided_now:
                break
        unseen = max(0, self.fmt.expected_tables() - len(decisions) - tables)
        return Plan(pending, decisions, self.fmt.finished(winners, points),
                    len(records) + len(pending) + unseen * self.games_per_table, points)
