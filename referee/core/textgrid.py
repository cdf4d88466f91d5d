"""Board files written as whitespace-separated words, one board row a line.

Blank lines and ``#`` comments are skipped (as ``numpy.loadtxt`` does), and
every word keeps its line and column, so a game's parser can raise an
:class:`~referee.core.errors.InputError` pointing at the exact spot.
"""
from __future__ import annotations

import re

from .errors import InputError

Words = list[tuple[int, str]]
"""The words of one line, each with its 1-based column."""


def word_rows(text: str) -> list[tuple[int, Words]]:
    """Every line that has words, as (1-based line number, its words)."""
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0]
        words = [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", body)]
        if words:
            rows.append((number, words))
    return rows


def square_rows(text: str, source: str, size: int) -> list[tuple[int, Words]]:
    """The ``size`` rows of ``size`` words of a square board; InputError names
    where the shape is wrong."""
    rows = word_rows(text)
    if len(rows) != size:
        line = rows[size][0] if len(rows) > size else (rows[-1][0] if rows else None)
        raise InputError(f"expected {size} rows of {size} cells, found {len(rows)} rows",
                         source, line)
    for r, (line, words) in enumerate(rows):
        if len(words) != size:
            column = words[size][0] if len(words) > size else words[-1][0]
            raise InputError(f"row {r} has {len(words)} cells, expected {size}",
                             source, line, column)
    return rows
