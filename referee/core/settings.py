"""Settings and limits from flags, ``--set KEY=VALUE`` and YAML, checked and
typed before a match starts (a typo is an error, never silently ignored)."""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from .errors import InputError
from .game import Game
from .runner import Limits

LIMIT_KEYS = {f.name: f.type for f in dataclasses.fields(Limits)}
ZERO_ALLOWED = ("increment", "first_step_extra", "grace")


def parse_assignment(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` from the command line."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise InputError(f"--set expects KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def coerce(key: str, value: Any, like: Any) -> Any:
    """``value`` converted to the type of the default ``like``."""
    if isinstance(like, bool):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise InputError(f"setting {key}: expected true or false, got {value!r}")
    for kind in (int, float):
        if isinstance(like, kind):
            try:
                number = kind(value) if kind is float or not isinstance(value, float) else value
                if kind is int and isinstance(number, float):
                    raise ValueError
                return number
            except (TypeError, ValueError):
                raise InputError(f"setting {key}: expected {'an integer' if kind is int else 'a number'}, "
                                 f"got {value!r}") from None
    if isinstance(like, str) or like is None:
        return value if like is None else str(value)
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
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise InputError(f"limit {key}: expected a number, got {value!r}") from None
        if number < 0 or (number == 0 and key not in ZERO_ALLOWED):
            raise InputError(f"limit {key}: must be positive, got {value!r}")
        values[key] = int(number) if key in ("open_files", "output_kb") else number
    if "soft_time" in overrides and "hard_time" not in overrides:
        values["hard_time"] = max(values["soft_time"] * 2, values["soft_time"] + 1)
    if values["hard_time"] < values["soft_time"]:
        raise InputError(f"hard_time {values['hard_time']:g} s is below soft_time {values['soft_time']:g} s")
    return Limits(**values)
