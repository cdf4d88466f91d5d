"""Settings and limits from flags, ``--set KEY=VALUE`` and YAML, checked and
typed before a match starts (a typo is an error, never silently ignored)."""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Mapping

import yaml

from . import numbers
from .errors import InputError
from .numbers import NumberError, shown_value
from .game import Game
from .runner import Limits

LIMIT_KEYS = {f.name: f.type for f in dataclasses.fields(Limits)}
ZERO_ALLOWED = ("increment", "first_step_extra", "grace")
INTEGER_LIMITS = ("open_files", "output_kb", "processes")
MAX_LIMIT = 1_000_000
"""The largest value any limit takes (seconds, MiB, KiB, files): a week and
a half, a terabyte; beyond it a value is a typo, and would overflow the
operating system's limits."""

MAX_GAMES = 100_000
"""The most games a series, a tournament's rounds or a grading config's
games per board may ask for: a day's play at a game a second.  Beyond it a
number is a typo (99999999999 rounds), and the schedule alone filled the
memory or ran for hours before the first game."""


def key_line(text: str, key: str) -> int | None:
    """The line a top-level key is on in YAML ``text`` (also spelled with
    dashes for underscores), for an error message."""
    spellings = (f"{key}:", f"{key.replace('_', '-')}:")
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(spellings):
            return number
    return None


class StrictYamlLoader(yaml.SafeLoader):
    """YAML as the referee reads it: a bare value is an int only if it is
    plain ASCII digits (at most 18, an optional ``-``) and a float only if it
    is digits with a decimal point.  YAML 1.1 would read ``0_0``, ``+1``,
    ``0x1F``, ``1:30`` (sexagesimal!) and ``.inf`` as numbers; here they stay
    text, and the setting they were meant for refuses them with the same
    message as on the command line."""


    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        """A key given twice in one mapping is an error at its second line:
        YAML keeps the last silently, so ``game: cantris`` then ``game:
        tsuro`` ran a Tsuro tournament (merges, ``<<:``, may override)."""
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node.start_mark.line + 1)
            except TypeError:  # an unhashable key: SafeLoader's own error says so
                continue
            if first != key_node.start_mark.line + 1:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    f"key {key!r} is given twice (first on line {first})", key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


StrictYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers
            if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_DIGITS = f"[0-9]{{1,{numbers.MAX_DIGITS}}}"
StrictYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(f"^-?{_DIGITS}$"), list("-0123456789"))
StrictYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(f"^-?{_DIGITS}\\.{_DIGITS}$"), list("-0123456789"))


def load_yaml(text: str) -> Any:
    """A YAML document read with :class:`StrictYamlLoader`."""
    return yaml.load(text, Loader=StrictYamlLoader)


def seed_value(value: Any, source: str | None = None, name: str = "seed") -> int | None:
    """A match seed (``--seed`` or a config file): a plain integer 0 or more."""
    if value is None:
        return None
    try:
        return _number(value, integral=True, signed=False)
    except NumberError as exc:
        raise InputError(f"{name}: expected an integer of 0 or more, got {shown_value(value)}"
                         + (f" ({exc.hint})" if exc.hint else ""), source) from None


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def env_names(value: Any, source: str | None = None, line: int | None = None) -> list[str]:
    """``pass_env``: the names of the referee's environment variables that
    players get too (a list; a name is letters, digits and ``_``)."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"pass_env: expected a list of variable names, got {shown_value(value)}", source, line)
    for name in value:
        if not ENV_NAME.fullmatch(name):
            raise InputError(f"pass_env: {shown_value(name)} is not an environment variable name", source, line)
    return list(dict.fromkeys(value))


def parse_assignment(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` from the command line."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise InputError(f"--set expects KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def coerce(key: str, value: Any, like: Any) -> Any:
    """``value`` converted to the type of the default ``like``.  Text goes
    through the same strict number reader as the files (no ``+1``, ``0_0``,
    ``1e999``, ``nan``, non-ASCII digits); YAML's own bools, floats and huge
    ints are held to the same rules."""
    if isinstance(like, bool):
        if isinstance(value, bool):
            return value
        text = value.strip().lower() if isinstance(value, str) else value
        if text in ("1", "true", "yes", "on", 1):
            return True
        if text in ("0", "false", "no", "off", 0):
            return False
        raise InputError(f"setting {key}: expected true or false, got {shown_value(value)}")
    if isinstance(like, (int, float)):
        kind = "an integer" if isinstance(like, int) else "a number"
        try:
            number = _number(value, integral=isinstance(like, int), signed=True)
            return number if isinstance(like, int) else float(number)
        except NumberError as exc:
            raise InputError(f"setting {key}: expected {kind}, got {shown_value(value)}"
                             + (f" ({exc.hint})" if exc.hint else "")) from None
    if isinstance(like, str) and not isinstance(value, str):
        shown = shown_value(value)
        if not isinstance(value, (int, float)) or shown.startswith("an integer of"):
            raise InputError(f"setting {key}: expected text, got {shown}")
        return str(value)
    return value


def _number(value: Any, integral: bool, signed: bool) -> int | float:
    """A number from the command line (text) or YAML (already typed)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise NumberError("not a number")
    if isinstance(value, str):
        text = value.strip()
        return numbers.integer(text, signed=signed) if integral else numbers.decimal(text, signed=signed)
    if isinstance(value, float):
        numbers.finite(value, "")
        if integral:
            raise NumberError("not an integer", "write a whole number")
    if abs(value) >= 10 ** numbers.MAX_DIGITS:
        raise NumberError("too large", f"at most {numbers.MAX_DIGITS} digits")
    if value < 0 and not signed:
        raise NumberError("negative")
    return value


def split(values: Mapping[str, Any], game: Game) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the game's settings with defaults filled in, limit overrides)."""
    game_settings = dict(game.settings)
    limits: dict[str, Any] = {}
    for key, value in values.items():
        if key in LIMIT_KEYS:
            limits[key] = value
        elif key in game.settings:
            game_settings[key] = coerce(key, value, game.settings[key])
        else:
            known = sorted([*game.settings, *LIMIT_KEYS])
            raise InputError(f"unknown setting {key!r} for {game.name}; known: {', '.join(known)}")
    return game_settings, limits


def resolve_limits(game: Game, overrides: Mapping[str, Any]) -> Limits:
    """Core defaults, then the game's, then the user's.  Setting only the soft
    time limit puts the hard one at twice it (the handout's 30 s / 60 s)."""
    values: dict[str, Any] = dataclasses.asdict(Limits())
    values.update(game.limits)
    for key, value in overrides.items():
        if value is None or (isinstance(value, str) and value.lower() in ("none", "off", "")):
            if key in ("soft_time", "hard_time", *ZERO_ALLOWED):
                raise InputError(f"limit {key} cannot be switched off")
            values[key] = None
            continue
        integral = key in INTEGER_LIMITS
        try:
            number = _number(value, integral=integral, signed=True)
        except NumberError as exc:
            raise InputError(f"limit {key}: expected {'an integer' if integral else 'a number'}, "
                             f"got {shown_value(value)}" + (f" ({exc.hint})" if exc.hint else "")) from None
        if number < 0 or (number == 0 and key not in ZERO_ALLOWED):
            raise InputError(f"limit {key}: must be positive, got {shown_value(value)}")
        if number > MAX_LIMIT:
            raise InputError(f"limit {key}: {number:g} is above the largest accepted, {MAX_LIMIT}")
        values[key] = int(number) if integral else float(number)
    if "soft_time" in overrides and "hard_time" not in overrides:
        values["hard_time"] = max(values["soft_time"] * 2, values["soft_time"] + 1)
    if values["hard_time"] < values["soft_time"]:
        raise InputError(f"hard_time {values['hard_time']:g} s is below soft_time {values['soft_time']:g} s")
    return Limits(**values)
