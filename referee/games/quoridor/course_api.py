"""The course engine's module API, as student Quoridor modules expect it.

A student module is a Python file (with helper modules beside it) that
defines::

    init(logger, playerId, numWalls, playerHomes) -> playerData
    last_move(playerData, move) -> playerData        # after every move, own ones too
    move(playerData) -> PlayerMove                    # Parts 2-4
    player_invalidated(playerData, playerId) -> playerData   # Parts 3-4
    get_neighbors(playerData, r, c) -> [[r, c], ...]         # Part 1
    get_shortest_path(playerData, r1, c1, r2, c2) -> [(r, c), ...]  # Part 1

and imports ``from Model.interface import PlayerMove, BOARD_DIM``.  This
module provides that ``Model.interface`` and loads student files so that their
relative imports (``from .playerData import PlayerData``) work.
"""
from __future__ import annotations

import importlib.util
import sys
import traceback
import types
from pathlib import Path
from typing import Any

BOARD_DIM = 9
PACKAGE = "_referee_student"


class PlayerMove:
    """``PlayerMove(playerId, move, r1, c1, r2, c2)``: ``move`` is True for a
    pawn move from (r1, c1) to (r2, c2), False for a wall between the grid
    points (r1, c1) and (r2, c2)."""

    __slots__ = ("playerId", "move", "r1", "c1", "r2", "c2")

    def __init__(self, playerId: int, move: bool, r1: int, c1: int, r2: int, c2: int) -> None:
        self.playerId, self.move = playerId, move
        self.r1, self.c1, self.r2, self.c2 = r1, c1, r2, c2

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlayerMove) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple:
        return (self.playerId, bool(self.move), self.r1, self.c1, self.r2, self.c2)

    def __repr__(self) -> str:
        return f"PlayerMove({self.playerId}, {bool(self.move)}, {self.r1}, {self.c1}, {self.r2}, {self.c2})"


def decision_text(move: Any) -> str:
    """The decision file line for what a module's ``move()`` returned; for
    anything that is not a move its repr, which the referee rejects as malformed."""
    try:
        kind = "M" if move.move else "W"
        return f"{kind} {int(move.r1)} {int(move.c1)} {int(move.r2)} {int(move.c2)}"
    except (AttributeError, TypeError, ValueError):
        return f"{move!r}"


def player_move(player: int, text: str) -> PlayerMove:
    """A logged decision (``M ...``/``W ...``) as the PlayerMove the engine would pass."""
    kind, *numbers = text.split()
    return PlayerMove(player, kind == "M", *map(int, numbers))


class Logger:
    """The engine's logger: messages go to the player's stderr file."""

    def write(self, message: Any) -> None:
        print(message, file=sys.stderr)

    def error(self, message: Any) -> None:
        print(f"error: {message}", file=sys.stderr)


def install_interface() -> None:
    """Make ``from Model.interface import PlayerMove, BOARD_DIM`` work."""
    package = types.ModuleType("Model")
    package.__path__ = []
    interface = types.ModuleType("Model.interface")
    interface.PlayerMove = PlayerMove
    interface.BOARD_DIM = BOARD_DIM
    package.interface = interface
    sys.modules.setdefault("Model", package)
    sys.modules.setdefault("Model.interface", interface)


class StudentCodeError(Exception):
    """The student's module failed; the message names its file and line."""


def describe_error(exc: BaseException, folder: str | Path) -> str:
    """``player.py, line 12: IndexError: list index out of range``: where in
    the student's own files it went wrong (the innermost frame in its
    folder), in the student's names rather than the loader's package."""
    folder = Path(folder).resolve()
    where = None
    if isinstance(exc, SyntaxError) and exc.filename:
        where = (exc.filename, exc.lineno)
    else:
        for frame in traceback.extract_tb(exc.__traceback__):
            try:
                inside = Path(frame.filename).resolve().is_relative_to(folder)
            except (OSError, ValueError):
                inside = False
            if inside:
                where = (frame.filename, frame.lineno)
    text = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)
    message = f"{type(exc).__name__}: {text}".replace(f"{PACKAGE}.", "")
    if where is None:
        return message
    return f"{Path(where[0]).name}, line {where[1]}: {message}"


def load_module(path: str | Path) -> types.ModuleType:
    """Import a student file as a module of a package made of its folder, so
    its relative imports (``from .helper import x``) and plain ones (``import
    helper``) both find the files beside it.  StudentCodeError (file and line)
    if importing it fails."""
    path = Path(path).resolve()
    install_interface()
    folder = str(path.parent)
    package = types.ModuleType(PACKAGE)
    package.__path__ = [folder]
    sys.modules[PACKAGE] = package
    sys.path.insert(0, folder)
    name = f"{PACKAGE}.{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise StudentCodeError(f"{describe_error(exc, folder)} (importing {path.name})") from exc
    return module


def updated(previous: Any, returned: Any) -> Any:
    """The course API returns the updated playerData; a module that forgets
    the ``return`` keeps the object it mutated."""
    return previous if returned is None else returned
