"""Tsuro decisions: small values whose ``str`` is the decision-file text."""
from __future__ import annotations

from dataclasses import dataclass

from referee.core.game import DecisionError
from referee.core.numbers import NumberError, parse_int, quote
from referee.core.textgrid import decision_words, several_lines

HELP = "setup step: 'S p' (start position 0..47); play step: 'T i rot r c' (hand index, rotation, cell)"


@dataclass(frozen=True)
class Start:
    """Setup: put the marker on perimeter start position 0..47."""

    position: int

    def __str__(self) -> str:
        return f"S {self.position}"


@dataclass(frozen=True)
class Place:
    """Play: the hand's tile ``index``, turned ``rotation`` quarter turns
    clockwise, on cell (row, col)."""

    index: int
    rotation: int
    row: int
    col: int

    def __str__(self) -> str:
        return f"T {self.index} {self.rotation} {self.row} {self.col}"


@dataclass(frozen=True)
class Skip:
    """Taken by the referee for a player that cannot place a tile."""

    def __str__(self) -> str:
        return "SKIP"


Decision = Start | Place | Skip

_ARITY = {"S": 1, "T": 4}
_FIELDS = {"S": ("start position",), "T": ("hand index", "rotation", "row", "column")}
MAX_NUMBER = 99
"""The largest number a decision may hold: two digits, above every range the
rules check (a larger one is malformed rather than illegal)."""


def parse_decision(text: str) -> Decision:
    words = decision_words(text)
    if not words:
        raise DecisionError("empty decision; " + HELP)
    head, args = words[0].upper(), words[1:]
    if head == "SKIP" and not args:
        return Skip()
    if head not in _ARITY:
        raise DecisionError(f"unknown decision {quote(words[0])}; " + HELP)
    if len(args) != _ARITY[head]:
        form = "'S p'" if head == "S" else "'T i rot r c'"
        raise several_lines(text, form) or DecisionError(
            f"{form} takes {_ARITY[head]} integer(s), got {len(args)}: {quote(text.strip())}")
    try:
        numbers = [parse_int(a, 0, MAX_NUMBER, what) for a, what in zip(args, _FIELDS[head])]
    except NumberError as exc:
        raise DecisionError(f"expected integers after {head!r}, got {quote(text.strip())}: "
                            f"{exc}") from None
    return Start(*numbers) if head == "S" else Place(*numbers)
