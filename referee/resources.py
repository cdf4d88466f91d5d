"""Where the files the referee ships live: built-in players, SDKs, templates,
boards and the docs.

The one resolver for them, so that every kind of install finds the same files:

- an installed wheel carries them as package data under
  ``referee/_bundled/{players,boards,docs}`` (copied there by setup.py's build
  step; they are not in git);
- a checkout or an editable install uses the top-level ``players/``,
  ``boards/`` and ``docs/`` folders beside the package, the source of truth;
- ``REFEREE_PLAYERS_DIR`` / ``REFEREE_BOARDS_DIR`` override both (tests, a
  course that keeps its own copies).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent
BUNDLE = PACKAGE / "_bundled"
CHECKOUT = PACKAGE.parent

_OVERRIDES = {"players": "REFEREE_PLAYERS_DIR", "boards": "REFEREE_BOARDS_DIR"}


def resource_dir(name: str) -> Path:
    """The folder ``name`` (players, boards or docs) of this install.

    The bundled copy wins over a folder beside the package: in site-packages,
    a stray ``players/`` of some other distribution must not be mistaken for
    ours.  When neither exists the checkout path is returned, so callers'
    messages name the place a developer would look."""
    override = _OVERRIDES.get(name)
    if override and os.environ.get(override):
        return Path(os.environ[override])
    for root in (BUNDLE, CHECKOUT):
        if (root / name).is_dir():
            return root / name
    return CHECKOUT / name


def players_dir() -> Path:
    """Built-in players (``<game>/<name>.py``), templates and ``sdk/``."""
    return resource_dir("players")


def boards_dir() -> Path:
    """Standard boards and start positions, ``<game>/<file>``."""
    return resource_dir("boards")


def docs_dir() -> Path:
    """The documentation, game rules included (``games/<game>.md``)."""
    return resource_dir("docs")


def resolve_board(game: str, board: Path | None, base: Path | None = None) -> Path | None:
    """``board`` itself when it names an existing file (relative to ``base``,
    a config's folder, when given); else a board the game ships that it
    names, so the README's ``boards/cantris/10x5-1.txt`` works from any
    folder of a wheel install, and so do ``10x5-1.txt`` and ``10x5-1``; a
    plugin game's boards (its ``boards/`` folder) the same way.  The config's
    folder is joined here, not by the caller: a name made absolute first
    was never looked for among the shipped boards.  An unknown name comes
    back unchanged (joined to ``base``), for the caller's "cannot read"."""
    if board is None:
        return None
    here = Path(base, board) if base is not None else board
    if here.exists():
        return here
    return shipped_board(game, board) or here


def shipped_board(game: str, board: Path, folders: bool = False) -> Path | None:
    """The shipped board file (with ``folders``, or board folder:
    ``boards/tsuro/`` as a suite) that the relative name ``board`` names,
    or None."""
    if board.is_absolute():
        return None
    from referee.core.registry import get_game

    g = get_game(game)
    shipped = g.files("boards")
    parts = board.parts
    candidates = []
    if len(parts) >= 2 and parts[0] == "boards" and parts[1] == g.name:
        candidates.append(shipped.joinpath(*parts[2:]))
    elif parts and parts[0] == "boards":
        candidates.append(boards_dir().joinpath(*parts[1:]))
    candidates.append(shipped / board)
    if board.name and not board.suffix:
        candidates.append(shipped / board.with_suffix(".txt"))
    for candidate in candidates:
        if candidate.is_file() or (folders and candidate.is_dir()):
            return candidate
    return None


def shipped_settings(game: str, settings: dict[str, Any], base: Path) -> dict[str, Any]:
    """``settings`` with each file setting (Quoridor's ``premoves_file``)
    that names no file under ``base`` but one the game ships beside its
    boards (``boards/quoridor/opening.premoves``, ``opening.premoves``)
    given as that file's path: found from any folder as ``--board`` finds a
    shipped board, so the rules page's example works outside a checkout.
    A file that exists wins; the match keeps a copy either way."""
    from referee.core.registry import get_game

    found = dict(settings)
    for key in get_game(game).file_settings:
        value = found.get(key)
        if isinstance(value, str) and value.strip() and not Path(base, value).exists():
            shipped = shipped_board(game, Path(value))
            if shipped is not None:
                found[key] = str(shipped)
    return found


def shipped_boards(game: str) -> list[str]:
    """The names of the boards shipped for ``game`` (``10x5-1``, ...)."""
    from referee.core.registry import get_game

    folder = get_game(game).files("boards")
    return sorted(p.stem for p in folder.glob("*.txt")) if folder.is_dir() else []


def existing_board(game: str, board: Path | None, base: Path | None = None) -> Path | None:
    """:func:`resolve_board`, or an InputError that lists the shipped boards
    when ``board`` is neither a file nor a shipped board's name."""
    found = resolve_board(game, board, base)
    if found is None or found.exists():
        return found
    from referee.core.errors import InputError

    names = shipped_boards(game)
    listed = f"shipped {game} boards: {', '.join(names)}" if names else f"no boards are shipped for {game}"
    raise InputError(f"no such file, nor a shipped board of that name ({listed})", str(found))
