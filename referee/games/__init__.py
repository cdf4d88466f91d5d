"""Game packages.  Each subpackage exposes ``GAME``, an instance of
:class:`referee.core.game.Game`; they are found by looking, so adding a game
means adding a package and nothing else."""
from __future__ import annotations

import importlib
import pkgutil

from referee.core.errors import InputError
from referee.core.game import Game


def available_games() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)


def get_game(name: str) -> Game:
    """The game called ``name``; an InputError listing the choices otherwise."""
    names = available_games()
    if name not in names:
        raise InputError(f"unknown game {name!r}; choose one of: {', '.join(names)}")
    module = importlib.import_module(f"{__name__}.{name}")
    return module.GAME
