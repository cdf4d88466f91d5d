"""Which games are installed: the ``referee.games`` entry-point group.

A game is any installed distribution that declares, in its packaging
metadata, ``NAME = "package.module:GAME"`` in the group ``referee.games``
(``GAME`` an instance of :class:`referee.core.game.Game`).  The five games the
referee ships are declared the same way in its own setup.cfg, so a course's
game installed with ``pip install`` is found exactly as they are, and the core
never imports ``referee.games`` (a test reads the core's imports to keep it so).

Why entry points and not a folder to scan: a game can then be a separate
package, versioned and installed on its own, the way PettingZoo and
pytest plugins are found, without forking the referee.

Games are loaded lazily, one at a time: a plugin that fails to import costs
only its own name.  Problems are one line naming the package:

- two distributions declaring one name make that name unusable (neither is
  silently preferred); every other game still works;
- a plugin whose import fails, or whose target is not a ``Game`` with that
  ``name``, is reported when that game is asked for.

Source checkouts.  Entry points live in the installed metadata, which is
written by ``pip install``; a checkout whose metadata is older than its
setup.cfg (an editable install made before a game was added), or a checkout
run without any install, would otherwise miss games.  So when the referee runs
from a checkout (a setup.cfg for ``name = referee`` beside the package), the
referee's own declarations are read from that setup.cfg, the source the
metadata is generated from.  Installed plugins always come from metadata.
"""
from __future__ import annotations

import configparser
import importlib
import importlib.metadata as metadata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from .errors import InputError

if TYPE_CHECKING:
    from .game import Game

GROUP = "referee.games"
SCENES = "referee.scenes"
"""The group of a game's HTML replay scene: ``NAME = "package.module"``, a
module with ``scene(prev, record, state) -> dict`` and ``SCRIPT`` (the path of
the JavaScript that draws it); see referee/web/scenes/__init__.py."""
SELF = "referee"
CHECKOUT_SETUP = Path(__file__).resolve().parents[2] / "setup.cfg"


@dataclass(frozen=True)
class Entry:
    """One declaration: game ``name`` is ``target`` (``module:ATTR``), from
    distribution ``package`` at ``version``."""

    name: str
    target: str
    package: str
    version: str

    @property
    def module(self) -> str:
        return self.target.partition(":")[0].strip()

    def origin(self) -> str:
        return f"package {self.package} {self.version} ({self.target})".replace("  ", " ")


def _checkout_entries(path: Path = CHECKOUT_SETUP, group: str = GROUP) -> list[Entry] | None:
    """The referee's own declarations from the checkout's setup.cfg, or None
    when not running from a checkout of the referee."""
    if not path.is_file():
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return None
    if parser.get("metadata", "name", fallback="").strip() != SELF:
        return None
    block = parser.get("options.entry_points", group, fallback="")
    version = "(checkout)"
    out = []
    for line in block.splitlines():
        name, eq, target = line.partition("=")
        if eq and name.strip():
            out.append(Entry(name.strip(), target.strip(), SELF, version))
    return out


def _installed_entries(group: str = GROUP) -> list[Entry]:
    out = []
    for ep in metadata.entry_points(group=group):
        dist = getattr(ep, "dist", None)
        package = dist.metadata["Name"] if dist is not None else "?"
        version = dist.version if dist is not None else ""
        out.append(Entry(ep.name, ep.value, package or "?", version or ""))
    return out


@lru_cache(maxsize=None)
def entries(group: str = GROUP) -> dict[str, tuple[Entry, ...]]:
    """Every declared game name and the declarations of it (usually one)."""
    found = _installed_entries(group)
    checkout = _checkout_entries(CHECKOUT_SETUP, group)
    if checkout is not None:
        found = [e for e in found if _normal(e.package) != SELF] + checkout
    by_name: dict[str, list[Entry]] = {}
    for entry in found:
        same = by_name.setdefault(entry.name, [])
        if not any(_normal(e.package) == _normal(entry.package) for e in same):
            same.append(entry)
    return {name: tuple(group) for name, group in sorted(by_name.items())}


def _normal(package: str) -> str:
    return package.lower().replace("_", "-").replace(".", "-")


def clash(group: tuple[Entry, ...], what: str = "game") -> str:
    """The line for a name two packages declare (``what``: game, or scene of game)."""
    name = group[0].name
    who = " and ".join(e.origin() for e in group)
    return f"{what} {name!r} is declared by {len(group)} packages: {who}; uninstall one of them"


def problems() -> list[str]:
    """Lines about declarations that cannot be used, found without importing
    any game (clashing names).  Import problems show when a game is loaded."""
    return [clash(group) for group in entries().values() if len(group) > 1]


def available_games() -> list[str]:
    """The names of the usable declared games, sorted (nothing is imported)."""
    return [name for name, group in entries().items() if len(group) == 1]


def canonical_name(name: str) -> str:
    """The declared game name ``name`` stands for: itself when declared, else
    the one declared name it equals but for case (``Cantris``, ``QUORIDOR``),
    else ``name`` (unknown).  Every lookup by name goes through here, and
    callers go on with ``Game.name``, so folders, match.yaml and logs get
    the declared spelling."""
    declared = entries()
    if name in declared:
        return name
    same = [known for known in declared if known.casefold() == name.casefold()]
    return same[0] if len(same) == 1 else name


def entry(name: str) -> Entry:
    """The one declaration of ``name`` (in any case); an InputError saying why not."""
    group = entries().get(canonical_name(name))
    if not group:
        choices = ", ".join(available_games()) or "none installed"
        raise InputError(f"unknown game {name!r}; choose one of: {choices}")
    if len(group) > 1:
        raise InputError(clash(group))
    return group[0]


@lru_cache(maxsize=None)
def get_game(name: str) -> "Game":
    """The game called ``name`` (in any case), loaded from its declaration."""
    from .game import Game

    found = entry(name)
    name = found.name
    module_name, _, attr = found.target.partition(":")
    try:
        module = importlib.import_module(module_name.strip())
        game = module
        for part in attr.strip().split(".") if attr.strip() else ():
            game = getattr(game, part)
    except (Exception, SystemExit) as exc:  # a plugin's own bug must not take the others down
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise InputError(f"game {name!r} from {found.origin()} failed to load: "
                         f"{type(exc).__name__}{': ' + first if first else ''}") from None
    if not isinstance(game, Game):
        raise InputError(f"game {name!r} from {found.origin()} is not a referee.core.game.Game "
                         f"instance (got {type(game).__name__})")
    if game.name != name:
        raise InputError(f"game {name!r} from {found.origin()} calls itself {game.name!r}; "
                         "the entry-point name and Game.name must agree")
    return game


def scene_target(name: str) -> str | None:
    """The module of game ``name``'s replay scene, or None when no package
    declares one (the replay page then shows the terminal drawing)."""
    group = entries(SCENES).get(canonical_name(name))
    if not group:
        return None
    if len(group) > 1:
        raise InputError(clash(group, "the replay scene of game"))
    return group[0].module


def game_module(name: str) -> ModuleType:
    """The module a game's declaration points into (where optional extras
    such as ``CHECKS`` live)."""
    get_game(name)
    return importlib.import_module(entry(name).module)


def refresh() -> None:
    """Forget what was found (after installing or removing a plugin at run time)."""
    entries.cache_clear()
    get_game.cache_clear()
    importlib.invalidate_caches()
