"""Tessella text formats: the seed's 9x9 cell-token grid (Board.txt, snapshots
and start files; a token is shape letter + role digit, e.g. ``O1``, ``S0``,
``X0``) and the decision file ``x1 y1 x2 y2``."""
from __future__ import annotations

import re

from referee.core.errors import InputError
from referee.core.game import DecisionError
from referee.core.numbers import NumberError, OutOfRange, parse_int, quote
from referee.core.textgrid import decision_words, several_lines, square_rows

from .rules import EMPTY, PASS, SIZE, Decision, Move, Pieces, shape

DECISION_HELP = ("'x1 y1 x2 y2' (from, to; row then column, 0-8), or '0 0 0 0' "
                 "(or 'pass') when you cannot move")
_TOKEN = re.compile(r"([OSX])([0-2])")
_SHAPE_NAMES = {"O": "an octagon", "S": "a square", "X": "off the board"}


def parse_pieces(text: str, source: str) -> Pieces:
    """A validated board; InputError names the line, column and problem."""
    grid = []
    for r, (line, words) in enumerate(square_rows(text, source, SIZE)):
        row = []
        for c, (column, word) in enumerate(words):
            match = _TOKEN.fullmatch(word)
            if not match:
                raise InputError(f"bad cell {quote(word)}: expected a shape O, S or X followed by "
                                 "0 (empty), 1 or 2 (a player's piece)", source, line, column)
            expected = shape((r, c))
            if match.group(1) != expected:
                raise InputError(f"cell {r} {c} is {_SHAPE_NAMES[expected]}: expected "
                                 f"{expected}..., found {word}", source, line, column)
            role = int(match.group(2))
            if expected == "X" and role != EMPTY:
                raise InputError(f"cell {r} {c} is off the board and cannot hold a piece",
                                 source, line, column)
            row.append(role)
        grid.append(tuple(row))
    return tuple(grid)


def pieces_text(pieces: Pieces) -> str:
    return "".join(" ".join(f"{shape((r, c))}{pieces[r][c]}" for c in range(SIZE)) + "\n"
                   for r in range(SIZE))


def parse_decision(text: str) -> Decision:
    words = decision_words(text)
    if [w.lower() for w in words] == ["pass"]:
        return PASS
    if len(words) != 4:
        raise several_lines(text, DECISION_HELP) or DecisionError(
            f"expected {DECISION_HELP}; got {quote(text.strip())}")
    values = []
    for word in words:
        try:
            values.append(parse_int(word, 0, SIZE - 1, "coordinate",
                                    f"is outside the 9x9 array (0-{SIZE - 1})"))
        except OutOfRange as exc:
            raise DecisionError(str(exc)) from None
        except NumberError as exc:
            raise DecisionError(f"expected {DECISION_HELP}; got {quote(text.strip())}: {exc}") from None
    x1, y1, x2, y2 = values
    if (x1, y1, x2, y2) == (0, 0, 0, 0):
        return PASS
    return Move((x1, y1), (x2, y2))
