"""The games the referee ships.  Each subpackage exposes ``GAME``, an instance
of :class:`referee.core.game.Game`, and is declared in setup.cfg's
``referee.games`` entry points exactly like a game from another package
(docs/writing-a-game.md); :mod:`referee.core.registry` finds them all.

``available_games`` and ``get_game`` are the registry's, re-exported here for
code written before games could be plugins."""
from __future__ import annotations

from typing import Any

__all__ = ["available_games", "get_game"]


def __getattr__(name: str) -> Any:
    # Lazily: a built-in player that imports one game's rules (each step,
    # when spawned) must not pay for the registry's entry-point scan.
    if name in __all__:
        from referee.core import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
