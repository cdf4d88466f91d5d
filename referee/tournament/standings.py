"""Standings from the game records, and their table/CSV/Markdown renderings.

Order: the bracket place first (elimination formats), then points, wins,
total in-game score, and finally the seed.  Entrants equal on everything but
the seed share a place.  Swiss orders by points (byes included), then
Buchholz, then rating.

Every row carries a rating with its 95% interval (Elo relative to the field's
average, see :mod:`.ratings`), fitted to every game's ranking; records are
taken in key order so the numbers do not depend on which game finished first.
"""
from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from referee.core.verdicts import Verdict
from referee.core.visible import visible

from .journal import GameRecord
from .ratings import plackett_luce

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
    rating: float | None = None       # Elo, 0 = the field's average
    rating_low: float | None = None   # 95% interval
    rating_high: float | None = None
    buchholz: float | None = None     # Swiss only: the sum of the opponents' points


def compute_standings(records: Iterable[GameRecord], names: Sequence[str], seeded: Sequence[int],
                      placement: Mapping[int, int] | None = None,
                      byes: Mapping[int, float] | None = None,
                      opponents: Mapping[int, Sequence[int]] | None = None,
                      rated: bool = True) -> list[Standing]:
    """``byes`` (Swiss) adds walk-over points; ``opponents`` (Swiss) switches
    the order to points, Buchholz, rating.  ``rated`` False leaves the
    ratings out (None): a two-player series reports its pair's Elo instead,
    and the fit's numpy import alone was ~0.25 s of CPU per series."""
    records = sorted(records, key=lambda r: r.key)
    rows = {e: Standing(e, names[e], i + 1) for i, e in enumerate(seeded)}
    if rated or opponents is not None:
        _rate(rows, records)
    for entrant, points in (byes or {}).items():
        rows[entrant].points += points
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
        if opponents is not None:
            return (-row.points, -(row.buchholz or 0.0), -(row.rating or 0.0))
        return ((placement or {}).get(row.entrant, 0), -row.points, -row.wins, -row.score)

    if opponents is not None:
        for entrant, met in opponents.items():
            rows[entrant].buchholz = sum(rows[o].points for o in met)

    ordered = sorted(rows.values(), key=lambda row: (merit(row), row.seed))
    for i, row in enumerate(ordered):
        same = i > 0 and merit(ordered[i - 1]) == merit(row)
        row.place = ordered[i - 1].place if same else i + 1
    return ordered


def _rate(rows: dict[int, Standing], records: Sequence[GameRecord]) -> None:
    """Ratings from every game's ranking (seats mapped to entrants), rounded
    to 0.1 Elo so that a resumed or distributed run prints the same bytes."""
    index = {e: i for i, e in enumerate(sorted(rows))}
    rankings = [[[index[r.seats[s - 1]] for s in group] for group in r.ranking]
                for r in records if r.ranking]
    for entrant, rating in zip(sorted(rows), plackett_luce(len(rows), rankings)):
        row = rows[entrant]
        row.rating, row.rating_low, row.rating_high = (
            round(rating.rating, 1) + 0.0, round(rating.low, 1) + 0.0, round(rating.high, 1) + 0.0)


def _elo(value: float | None) -> str:
    return "" if value is None else f"{value:+.0f}"


def _number(value: float) -> str:
    return f"{value:.4g}" if value != int(value) else str(int(value))


def fault_columns(rows: Sequence[Standing]) -> list[str]:
    """Verdict columns worth a terminal's width: the usual three and any other
    fault that happened."""
    return [v for v in FAULTS if v in ALWAYS_SHOWN or any(r.verdicts[v] for r in rows)]


def _grid(rows: Sequence[Standing], faults: Sequence[str], exact: bool = False,
          shown: Callable[[str], str] = str) -> list[list[str]]:
    """``exact`` (CSV): rating, low and high as numbers in three columns;
    otherwise one readable column, e.g. ``+35 (-5..+75)``.  ``shown``: how
    a name is written where it is shown (see :func:`text_table`)."""
    swiss = any(r.buchholz is not None for r in rows)
    header = ["place", "name", "seed", "games", "wins", "draws", "losses", "points", "score"]
    header += ["buchholz"] * swiss
    header += ["rating", "rating_low", "rating_high"] if exact else ["rating (95%)"]
    body = []
    for r in rows:
        line = [str(r.place), shown(r.name), str(r.seed), str(r.games), str(r.wins), str(r.draws),
                str(r.losses), _number(r.points), _number(r.score)]
        line += [_number(r.buchholz or 0.0)] * swiss
        if exact:
            line += ["" if v is None else f"{v:.1f}" for v in (r.rating, r.rating_low, r.rating_high)]
        else:
            line.append(f"{_elo(r.rating)} ({_elo(r.rating_low)}..{_elo(r.rating_high)})"
                        if r.rating is not None else "")
        body.append(line + [str(r.verdicts[v]) for v in faults])
    return [header + list(faults), *body]


def text_table(rows: Sequence[Standing]) -> str:
    """The standings for a terminal.  A name is the config's, and shown as
    ``play`` shows one (:func:`visible`): an escape sequence in it retitled
    the terminal or coloured the rest of the table, a bidi override reversed
    it, a line break split its row."""
    grid = _grid(rows, fault_columns(rows), shown=lambda name: visible(name, lines=False))
    widths = [max(len(line[c]) for line in grid) for c in range(len(grid[0]))]
    lines = []
    for line in grid:
        cells = [cell.ljust(w) if c == 1 else cell.rjust(w) for c, (cell, w) in enumerate(zip(line, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def csv_text(rows: Sequence[Standing]) -> str:
    return csv_rows(_grid(rows, FAULTS, exact=True))


def csv_rows(rows: Iterable[Sequence[object]]) -> str:
    """CSV text, names as they are (a script reads them back exactly).  A
    row with a carriage return in a field is quoted whole: ``csv.writer``
    with ``\\n`` line ends leaves such a field bare, and a reader (Python's
    own) took the ``\\r`` for the end of the row."""
    out = io.StringIO()
    plain = csv.writer(out, lineterminator="\n")
    quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for row in rows:
        (quoted if any("\r" in str(cell) for cell in row) else plain).writerow(row)
    return out.getvalue()


def markdown_table(rows: Sequence[Standing]) -> str:
    grid = _grid(rows, fault_columns(rows))
    lines = [md_row(grid[0]), "|" + "|".join("---" if c == 1 else "--:" for c in range(len(grid[0]))) + "|"]
    lines += [md_row(line) for line in grid[1:]]
    return "\n".join(lines) + "\n"


def md_row(cells: Sequence[str]) -> str:
    """A Markdown table row of plain-text cells (see :func:`md_text`)."""
    return "| " + " | ".join(md_text(c) for c in cells) + " |"


_MD_ESCAPED = re.compile(r"[\\`*~\[\]|]|(?<![^\W_])_|_(?![^\W_])")
"""Markdown's characters in a cell; ``_`` only where it could start or end
emphasis (not between letters or digits: ``NO_DECISION`` stays as it is)."""
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def md_text(text: str) -> str:
    """Plain text (an entrant's name, a result naming it) as Markdown that
    shows it as it is, on one line: control and bidirectional characters as
    :func:`visible` shows them (an escape sequence reached the terminal of
    whoever ran ``cat standings.md``, a line break split the row), ``& < >``
    as entities (a name ``<img src=x onerror=...>`` was HTML to a viewer that
    renders it), and Markdown's own characters escaped (a ``|`` split the
    row, ``[x](url)`` was a link, ``*`` emphasis)."""
    text = visible(text, lines=False)
    text = _MD_ESCAPED.sub(lambda m: "\\" + m.group(), text)
    return re.sub(r"[&<>]", lambda m: _HTML[m.group()], text)


def md_fence(text: str) -> str:
    """``text`` (already :func:`visible`) in a fenced code block whose fence
    no run of backticks in it can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}{'' if text.endswith(chr(10)) else chr(10)}{fence}\n"
