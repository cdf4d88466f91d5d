"""The course engine's module API, as student Quoridor modules expect it.

A student module is a Python file (with helper modules beside it), or a
package folder as the course shipped them (``StudentPlayers/<team>/`` with an
``__init__.py``), that defines::

    init(logger, playerId, numWalls, playerHomes) -> playerData
    last_move(playerData, move) -> playerData        # after every move, own ones too
    move(playerData) -> PlayerMove                    # Parts 2-4
    player_invalidated(playerData, playerId) -> playerData   # Parts 3-4
    get_neighbors(playerData, r, c) -> [[r, c], ...]         # Part 1
    get_shortest_path(playerData, r1, c1, r2, c2) -> [(r, c), ...]  # Part 1

and imports ``from Model.interface import PlayerMove, BOARD_DIM``.  This
module is that ``Model.interface``, written from the course's published
interface file attribute for attribute (``PlayerMove`` with its slots,
``start``/``end``, ``getCopy`` and its printed form; ``StudentEngineModel``;
``BOARD_DIM``), and the engine modules students imported beside it
(``Engine.logger.Logger``, ``Engine.security.GameException``).  It also loads
student code so that its relative imports (``from .playerData import
PlayerData``) work.
"""
from __future__ import annotations

import importlib.util
import numbers
import sys
import traceback
import types
from pathlib import Path
from typing import Any

BOARD_DIM = 9
PACKAGE = "_referee_student"


class PlayerMove:
    """``PlayerMove(playerId, move, r1, c1, r2, c2)``: ``move`` is True for a
    pawn move from cell (r1, c1) to cell (r2, c2), False for a wall between
    the grid points (r1, c1) (top or left end) and (r2, c2).

    As in the course: the fields are plain slots set once (``start`` and
    ``end`` are the pairs as they were at construction), there is no
    equality beyond identity, and ``str``/``repr`` give the engine's log
    form ``Player 1 Move: [8,4] -> [7,4]``."""

    __slots__ = ("playerId", "move", "start", "end", "r1", "c1", "r2", "c2")

    def __init__(self, playerId: Any, move: Any, r1: Any, c1: Any, r2: Any, c2: Any) -> None:
        self.playerId = playerId
        self.move = move
        self.start = (r1, c1)
        self.end = (r2, c2)
        self.r1, self.c1, self.r2, self.c2 = r1, c1, r2, c2

    def getCopy(self) -> "PlayerMove":
        """A new PlayerMove with the same fields (the course's copy constructor)."""
        return PlayerMove(self.playerId, self.move, self.r1, self.c1, self.r2, self.c2)

    def __str__(self) -> str:
        return "Player %s %s: [%s,%s] -> [%s,%s]" % (
            self.playerId, "Move" if self.move else "Wall",
            self.start[0], self.start[1], self.end[0], self.end[1])

    def __repr__(self) -> str:
        return self.__str__()


class StudentEngineModel:
    """The course's wrapper handed to student *engines* (not players): the
    engine's callbacks, kept so that code importing it still loads."""

    __slots__ = ("makeMove", "getPlayerData", "setPlayerData", "getPlayerModule", "playerHomes")

    def __init__(self, makeMove: Any, getPlayerData: Any, setPlayerData: Any,
                 getPlayerModule: Any, playerHomes: Any) -> None:
        self.makeMove = makeMove
        self.getPlayerData = getPlayerData
        self.setPlayerData = setPlayerData
        self.getPlayerModule = getPlayerModule
        self.playerHomes = playerHomes


class Logger:
    """The engine's logger: ``logger.write(msg)`` and ``logger.error(msg)``
    (the engine printed errors as ``ERROR: msg``).  Lines go to the player's
    stderr file, without the engine's timestamps so that a match's files
    stay the same from run to run.  Course code also called it on the class
    (``Logger.write(Logger, msg)``), which works because nothing here needs
    an instance."""

    def write(self, message: Any) -> None:
        print(message, file=sys.stderr, flush=True)

    def error(self, message: Any) -> None:
        print(f"ERROR: {message}", file=sys.stderr, flush=True)


class GameException(Exception):
    """``Engine.security.GameException``: what the engine raised when a
    player broke the rules; some course code raises or catches it."""


def describe_move(move: Any) -> str:
    """What a module's ``move()`` returned, in the course's constructor form
    when it is a PlayerMove-like object (``PlayerMove(-1, False, -1, -1, -1,
    -1)``), else its repr: the form a decision file and a pre-move accept."""
    try:
        fields = [move.playerId, move.move, move.r1, move.c1, move.r2, move.c2]
    except Exception:  # not a PlayerMove (AttributeError), or a student property that raised
        return _value(move)
    return "PlayerMove(%s)" % ", ".join(
        _flag(v) if i == 1 else _value(v) for i, v in enumerate(fields))


def _flag(value: Any) -> str:
    """``move``: the course engine tested it for truth."""
    try:
        return str(bool(value))
    except Exception:  # a student object whose __bool__ raises
        return _value(value)


def _value(value: Any) -> str:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))  # numpy integers too
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def returned_decision(move: Any) -> str:
    """The decision file line for what a module's ``move()`` returned: the
    course's ``PlayerMove(...)`` form, which the referee reads (and names in
    its verdict as returned); anything else says so, and is MALFORMED."""
    from .codec import NOT_A_PLAYER_MOVE  # (the codec reads it back: one text for both)

    text = describe_move(move)
    return text if text.startswith("PlayerMove(") else NOT_A_PLAYER_MOVE.format(text)


def player_move(player: int, text: str) -> PlayerMove:
    """A logged decision (``M ...``/``W ...``) as the PlayerMove the engine would pass."""
    kind, *coordinates = text.split()
    return PlayerMove(player, kind == "M", *map(int, coordinates))


def _module(name: str, **attributes: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    return module


def install_interface() -> None:
    """Make the course's imports work: ``Model.interface`` (PlayerMove,
    BOARD_DIM, StudentEngineModel), ``Engine.logger`` (Logger) and
    ``Engine.security`` (GameException).  A copy of the course's own files
    shipped in a student folder is not used: this is the engine's."""
    interface = _module("Model.interface", BOARD_DIM=BOARD_DIM, PlayerMove=PlayerMove,
                        StudentEngineModel=StudentEngineModel)
    logger = _module("Engine.logger", Logger=Logger)
    security = _module("Engine.security", GameException=GameException)
    model = _module("Model", __path__=[], interface=interface)
    engine = _module("Engine", __path__=[], logger=logger, security=security)
    for module in (model, interface, engine, logger, security):
        sys.modules[module.__name__] = module


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


def module_folder(path: str | Path) -> Path:
    """The folder holding a student's code: the package folder itself, or
    the folder a module file is in (where its errors are looked for)."""
    path = Path(path).resolve()
    return path if path.is_dir() else path.parent


def find_module(path: str | Path) -> Path | None:
    """The file or package folder ``path`` names, or None: a ``.py`` file, or
    a folder with an ``__init__.py`` (the course's ``StudentPlayers/<team>``)."""
    path = Path(path)
    if path.is_file():
        return path.resolve()
    if path.is_dir() and (path / "__init__.py").is_file():
        return path.resolve()
    return None


def load_module(path: str | Path) -> types.ModuleType:
    """Import student code so that its relative imports (``from .helper import
    x``) and plain ones (``import helper``) both find the files beside it:
    a file as a module of a package made of its folder, a package folder as
    that package.  StudentCodeError (file and line) if importing it fails."""
    path = Path(path).resolve()
    install_interface()
    folder = module_folder(path)
    forget_module(folder)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    if path.is_dir():
        name, source = PACKAGE, path / "__init__.py"
        spec = importlib.util.spec_from_file_location(name, source, submodule_search_locations=[str(path)])
    else:
        package = types.ModuleType(PACKAGE)
        package.__path__ = [str(folder)]
        sys.modules[PACKAGE] = package
        name, source = f"{PACKAGE}.{path.stem}", path
        spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise StudentCodeError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise StudentCodeError(f"{describe_error(exc, folder)} (importing {source.name})") from exc
    return module


_LOADED_BEFORE: set[str] = set()
"""The modules there were before student code was first loaded: never forgotten."""


def forget_module(folder: str | Path) -> None:
    """Drop every module loaded from the student's code (its package and the
    helpers it imported, relatively or not), so that the next
    :func:`load_module` starts a new instance with fresh module globals, as
    each run of the course engine did.  Installed libraries it imported
    (numpy, also from a virtualenv inside its folder) stay loaded."""
    if not _LOADED_BEFORE:
        _LOADED_BEFORE.update(sys.modules)
    folder = Path(folder).resolve()
    for name, module in list(sys.modules.items()):
        if name in _LOADED_BEFORE:
            continue
        file = getattr(module, "__file__", None) or ""
        ours = name == PACKAGE or name.startswith(PACKAGE + ".")
        helper = file and Path(file).resolve().is_relative_to(folder) and \
            not any(part in ("site-packages", "dist-packages") for part in Path(file).parts)
        if ours or helper:
            del sys.modules[name]


def updated(previous: Any, returned: Any) -> Any:
    """The course API returns the updated playerData; a module that forgets
    the ``return`` keeps the object it mutated."""
    return previous if returned is None else returned
