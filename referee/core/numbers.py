"""Numbers read from text (board files, decision files, ``--set``, YAML).

Python's ``int()`` and ``float()`` are lenient in ways a file format must not
be: they take ``+1``, ``0_0``, Arabic-Indic or fullwidth digits, ``1e999``,
``nan``, ``inf`` and, past 4300 digits, raise an error of their own.  A number
a student's program writes must mean the same thing to the referee, to the
C++ SDK and to the course's ``numpy.loadtxt``, so every reader goes through
here: ASCII digits only, a leading ``-`` only where the value may be negative,
a bounded length (never quadratic work on a hostile 10 MB line), a bounded
magnitude, and a message that says what was expected.

The functions raise :class:`NumberError` (a ``ValueError``) with a message
that reads well after a file position; the caller wraps it into an
``InputError`` (files) or a ``DecisionError`` (decisions).
"""
from __future__ import annotations

import math
import re

MAX_DIGITS = 18
"""The longest digit string read at all (leading zeros included): far above
any value a game or a limit uses, far below where ``int()`` gets slow."""

MAX_SHOWN = 24
"""How much of a bad word an error message quotes."""

_INTEGER = re.compile(r"-?[0-9]+")
_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


class NumberError(ValueError):
    """A word is not an acceptable number; the message says why, and
    ``hint`` (when there is one) how to write it instead."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message + (f" ({hint})" if hint else ""))
        self.hint = hint


class OutOfRange(NumberError):
    """A well-formed number outside the range asked for (callers may judge
    it differently from gibberish: a coordinate off the board)."""


def quote(text: str, limit: int = MAX_SHOWN) -> str:
    """``repr`` of ``text``, shortened: one line whatever the text holds."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def shown_value(value: object) -> str:
    """A value for a one-line message (never the 5000 digits of a YAML int,
    nor the whole of a long text or list)."""
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** MAX_DIGITS:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else quote(text)


def _integer_hint(word: str, signed: bool) -> str | None:
    """How ``word``, which is not a plain ASCII integer, differs from one."""
    body = word[1:] if word[:1] in "+-" else word
    if not body or not all(ch.isdigit() or ch == "_" for ch in body):
        return None
    if word.startswith("+"):
        return "write it without '+'"
    if "_" in body:
        return "no '_' between digits"
    if not body.isascii():
        return "only the ASCII digits 0-9"
    if word.startswith("-") and not signed:
        return "it cannot be negative"
    return None


def integer(word: str, *, signed: bool = False) -> int:
    """``word`` as an int: ASCII digits, a leading ``-`` only if ``signed``,
    at most :data:`MAX_DIGITS` digits."""
    if len(word) > MAX_DIGITS + 1 or len(word.lstrip("-")) > MAX_DIGITS:
        if _INTEGER.fullmatch(word[:MAX_DIGITS + 2]):
            raise NumberError(f"{quote(word)} is too long for a number",
                              f"at most {MAX_DIGITS} digits")
        raise NumberError(f"{quote(word)} is not an integer",
                          _integer_hint(word[:MAX_SHOWN + 1], signed))
    if not _INTEGER.fullmatch(word) or (word.startswith("-") and not signed):
        raise NumberError(f"{quote(word)} is not an integer", _integer_hint(word, signed))
    return int(word)


def parse_int(word: str, low: int, high: int, what: str = "number",
              outside: str | None = None) -> int:
    """``word`` as an int in ``low..high``.

    A ``-`` is read even where ``low >= 0`` so that ``-1`` is reported as out
    of range (``row -1 is off the board``) rather than as gibberish; it is
    never accepted there (``-0`` included).  ``outside`` replaces the default
    ``is outside LOW..HIGH`` where a game has its own words for it."""
    value = integer(word, signed=True)
    if not low <= value <= high or (word.startswith("-") and low >= 0):
        shown = word if len(word) <= MAX_SHOWN else quote(word)
        raise OutOfRange(f"{what} {shown} {outside or f'is outside {low}..{high}'}")
    return value


def decimal(text: str, *, signed: bool = False) -> float:
    """A plain decimal (``12``, ``0.5``): no exponent, no ``nan``/``inf``,
    no ``+``, no ``_``, ASCII digits only, bounded length."""
    if len(text) > 2 * MAX_DIGITS + 2:
        raise NumberError(f"{quote(text)} is too long for a number",
                          f"at most {MAX_DIGITS} digits before and after the point")
    if _DECIMAL.fullmatch(text) and (signed or not text.startswith("-")):
        return float(text)
    raise NumberError(f"{quote(text)} is not a number", _decimal_hint(text, signed))


def _decimal_hint(text: str, signed: bool) -> str:
    lowered = text.lower().lstrip("+-.")
    if lowered in ("nan", "inf", "infinity"):
        return "a finite number is needed"
    if text.startswith("+"):
        return "write it without '+'"
    if "_" in text:
        return "no '_' between digits"
    if not text.isascii():
        return "only the ASCII digits 0-9"
    if "e" in lowered and _DECIMAL.fullmatch(lowered.split("e")[0] or "x"):
        return "no exponent: write the digits out"
    if text.startswith("-") and not signed:
        return "it cannot be negative"
    return "write digits, e.g. 30 or 2.5"


def finite(value: float, text: str) -> float:
    """``value`` unless it is nan or infinite (YAML's ``.inf``, ``.nan``)."""
    if not math.isfinite(value):
        raise NumberError(f"{quote(text)} is not a number", "a finite number is needed")
    return value
