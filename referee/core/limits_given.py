"""Limits as configs and flags give them: ``time_limit`` is another name for
the limit ``soft_time``, and a config may give any limit twice
(``settings:`` and ``limits:``).

A soft time limit can be given more than once in one place: a config's
``time_limit:`` and ``limits: {soft_time: ...}``, ``play``'s ``--time-limit``
and ``--set soft_time=...``.  Every reader asks :func:`soft_time` for the one
value, so that all of them (play's flags and ``--config``, check-bot's flags,
tournament and grading configs) follow one rule in the same words: the same
value given twice is that value; two different values are one line naming
both, at the file and line of the later one.  (Each reader used to pick one
of its own: a tournament config refused both, a grading config let
``time_limit`` win and ``play`` let ``soft_time`` win, silently.)
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from .errors import InputError
from .numbers import NumberError, decimal, shown_value

ALIAS = "time_limit"


def shown(how: str, value: Any) -> str:
    """How a value was given, as its user wrote it: ``limits.soft_time: 5``,
    ``--time-limit 5``, ``--set soft_time=5``."""
    text = value if isinstance(value, str) and (how.startswith("-") or how.endswith("=")) else shown_value(value)
    if how.endswith("="):
        return f"{how}{text}"
    return f"{how} {text}" if how.startswith("-") else f"{how}: {text}"


def _same(a: Any, b: Any) -> bool:
    """Two spellings of one number of seconds (``2``, ``2.0``, ``"2"``) are
    the same; anything that is no number is compared as given (its own
    check refuses it later)."""
    def number(value: Any) -> float | None:
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return decimal(value.strip(), signed=True)
            except NumberError:
                return None
        return None

    x, y = number(a), number(b)
    return x == y if x is not None and y is not None else (type(a) is type(b) and a == b)


def soft_time(given: Sequence[tuple[str, Any]], source: str | None = None,
              line: Callable[[str], int | None] = lambda how: None) -> Any:
    """The soft time limit among ``given``, (how it was given, value) pairs
    in the order they are read (only those present): None when there is
    none, the value when every one gives the same.  Two different values are
    an InputError naming both, located at ``source`` and the ``line`` of the
    second (``line`` maps a ``how`` to its line in ``source``)."""
    return one_limit("soft_time", given, source, line)


def one_limit(key: str, given: Sequence[tuple[str, Any]], source: str | None = None,
              line: Callable[[str], int | None] = lambda how: None) -> Any:
    """:func:`soft_time`'s rule for any limit ``key`` a config may give in
    two places (``settings:`` and ``limits:``): one value, or one line."""
    if not given:
        return None
    what = (f"two soft time limits ({ALIAS} is another name for soft_time)" if key == "soft_time"
            else f"two values of the limit {key}")
    first_how, first = given[0]
    for how, value in given[1:]:
        if not _same(first, value):
            lines = [n for n in (line(first_how), line(how)) if n is not None]
            raise InputError(f"{shown(first_how, first)} and {shown(how, value)} are {what}: give one of them",
                             source, max(lines) if lines else None)  # (at the one given later in the file)
    return first


def from_flags(assignments: Sequence[tuple[str, str]], time_limit: str | None) -> str | None:
    """The soft time limit a command's flags give (``--set soft_time=S``,
    parsed, and ``--time-limit S``), by :func:`soft_time`'s rule."""
    given = [("--set soft_time=", value) for key, value in assignments if key == "soft_time"]
    return soft_time(given + ([("--time-limit", time_limit)] if time_limit is not None else []))
