"""Standings from the game records, and their table/CSV/Markdown renderings.

Order: the bracket place first (elimination formats), then points, wins,
total in-game score, and finally the seed.  Entrants equal on everything but
the seed share a place.
"""
from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from referee.core.verdicts import Verdict

from .journal import GameRecord

FAULTS = tuple(v.value for v in Verdict if v is not Verdict.OK)
ALWAYS_SHOWN = ("TIMEOUT", "ILLEGAL", "CRASH")


@dataclass
class Standing:
    entrant: int
    name: str
    seed: int  # 1 = top seed
    place: int = 0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    score: float = 0.0
    verdicts: Counter = field(default_factory=Counter)


def compute_standings(records: Iterable[GameRecord], names: Sequence[str], seeded: Sequence[int],
                      placement: Mapping[int, int] | None = None) -> list[Standing]:
    rows = {e: Standing(e, names[e], i + 1) for i, e in enumerate(seeded)}
    for record in records:
        for entrant in record.seats:
            row = rows[entrant]
            row.games += 1
            result = record.result_of(entrant)
            row.wins += result == "win"
            row.draws += result == "draw"
            row.losses += result == "loss"
            row.points += record.points(entrant)
            row.score += record.score(entrant)
            row.verdicts.update(record.verdict_counts(entrant))

    def merit(row: Standing) -> tuple:
        return ((placement or {}).get(row.entrant, 0), -row.points, -row.wins, -row.score)

    ordered = sorted(rows.values(), key=lambda row: (merit(row), row.seed))
    for i, row in enumerate(ordered):
        same = i > 0 and merit(ordered[i - 1]) == merit(row)
        row.place = ordered[i - 1].place if same else i + 1
    return ordered


def _number(value: float) -> str:
    return f"{value:.4g}" if value != int(value) else str(int(value))


def fault_columns(rows: Sequence[Standing]) -> list[str]:
    """Verdict columns worth a terminal's width: the usual three and any other
    fault that happened."""
    return [v for v in FAULTS if v in ALWAYS_SHOWN or any(r.verdicts[v] for r in rows)]


def _grid(rows: Sequence[Standing], faults: Sequence[str]) -> list[list[str]]:
    header = ["place", "name", "seed", "games", "wins", "draws", "losses", "points", "score", *faults]
    body = [[str(r.place), r.name, str(r.seed), str(r.games), str(r.wins), str(r.draws),
             str(r.losses), _number(r.points), _number(r.score), *(str(r.verdicts[v]) for v in faults)]
            for r in rows]
    return [header, *body]


def text_table(rows: Sequence[Standing]) -> str:
    grid = _grid(rows, fault_columns(rows))
    widths = [max(len(line[c]) for line in grid) for c in range(len(grid[0]))]
    lines = []
    for line in grid:
        cells = [cell.ljust(w) if c == 1 else cell.rjust(w) for c, (cell, w) in enumerate(zip(line, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def csv_text(rows: Sequence[Standing]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(_grid(rows, FAULTS))
    return out.getvalue()


def markdown_table(rows: Sequence[Standing]) -> str:
    grid = _grid(rows, fault_columns(rows))
    lines = [_md_row(grid[0]), "|" + "|".join("---" if c == 1 else "--:" for c in range(len(grid[0]))) + "|"]
    lines += [_md_row(line) for line in grid[1:]]
    return "\n".join(lines) + "\n"


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
