"""The games the referee ships.  Each subpackage exposes ``GAME``, an instance
of :class:`referee.core.game.Game`, and is declared in setup.cfg's
``referee.games`` entry points exactly like a game from another package
(docs/writing-a-game.md); :mod:`referee.core.registry` finds them all.

``available_games`` and ``get_game`` are the registry's, re-exported here for
code written before games could be plugins."""
from __future__ import annotations

from referee.core.registry import available_games, get_game

__all__ = ["available_games", "get_game"]
