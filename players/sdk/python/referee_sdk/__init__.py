"""The student SDK for referee player programs (Python, standard library only).

Copy this folder next to your program (``referee new-player`` does it for you)
and write::

    from referee_sdk import read_board, read_ckbd, read_state, save_decision, run

    def play_games(step):
        board = read_ckbd(step - 1)     # the position before your move
        ...
        save_decision(r, c)

    if __name__ == "__main__":
        run(play_games)

Every turn the referee runs your program as ``<program> <step> <player_id>``
in your private folder, which holds ``Board.txt`` (the current board),
``state.json`` (everything machine-readable) and ``step_logs/step_<k>.txt``
(the board after each earlier step; ``step_0.txt`` is the start).  Your program
writes ``decision.txt`` and exits.  The same names as the course templates are
used, so existing code needs at most its import line changed.

Game-specific parsing lives in ``referee_sdk/<game>.py``; without one, boards
come back as lists of whitespace-separated tokens (ints where possible).
"""
from __future__ import annotations

import importlib
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for readers and checkers: a player spawned each step need not import it
    from typing import Any, Callable

DECISION_FILE = "decision.txt"
BOARD_FILE = "Board.txt"
STATE_FILE = "state.json"
SNAPSHOT_DIR = "step_logs"


_STANDARD: dict[str, Any] = {}


def _standard(name: str) -> Any:
    """The standard library's module ``name``, for this module's own use.

    Python puts the program's own folder first on ``sys.path``, so a player
    file named like a standard module (``random.py``, ``json.py``; this
    project's example players are called ``random.py``) was imported in its
    place by ``player_rng`` or ``read_state``, and the player crashed far from
    the cause (``module 'random' has no attribute 'Random'``).  The program's
    own module of that name, if it imported one, stays its own."""
    module = _STANDARD.get(name)
    if module is not None:
        return module
    module = sys.modules.get(name)
    if module is not None and not _programs_own(module):
        _STANDARD[name] = module
        return module
    own = sys.modules.pop(name, None)
    try:
        with _standard_first():
            module = importlib.import_module(name)
    finally:
        folder = _program_folder()
        if own is not None:
            sys.modules[name] = own
        elif folder is not None and (os.path.isfile(os.path.join(folder, f"{name}.py"))
                                     or os.path.isdir(os.path.join(folder, name))):
            sys.modules.pop(name, None)  # (the program's own import of it finds its file, as Python has it)
    _STANDARD[name] = module
    return module


class _standard_first:
    """While this module imports: the program's own folder last on
    ``sys.path`` (see :func:`_standard`)."""

    def __enter__(self) -> None:
        self.saved = sys.path[:]
        folder = _program_folder()
        if folder is not None:
            own = [entry for entry in self.saved if _same_folder(entry, folder)]
            sys.path[:] = [entry for entry in self.saved if entry not in own] + own

    def __exit__(self, *exc: object) -> None:
        sys.path[:] = self.saved


def _program_folder() -> str | None:
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    return os.path.dirname(os.path.realpath(path)) if isinstance(path, str) else None


def _same_folder(entry: object, folder: str) -> bool:
    return isinstance(entry, str) and os.path.realpath(entry or ".") == folder


def _programs_own(module: Any) -> bool:
    path = getattr(module, "__file__", None)
    folder = _program_folder()
    return isinstance(path, str) and folder is not None and os.path.dirname(os.path.realpath(path)) == folder


def game_name() -> str:
    """The game being played (from ``REFEREE_GAME``, else state.json)."""
    name = os.environ.get("REFEREE_GAME")
    if not name:
        name = read_state().get("game", "")
    return name


def _game_module():
    name = game_name()
    if not name:
        return None
    try:
        with _standard_first():  # (what it imports: dataclasses, ...)
            return importlib.import_module(f"{__name__}.{name}")
    except ImportError:
        return None


def _token(word: str) -> Any:
    try:
        return int(word)
    except ValueError:
        return word


def parse_tokens(text: str) -> list[list[Any]]:
    """Whitespace-separated tokens, one list per non-empty line."""
    return [[_token(w) for w in line.split()] for line in text.splitlines() if line.strip()]


def _parse(kind: str, text: str) -> Any:
    module = _game_module()
    parser = getattr(module, kind, None) if module else None
    return parser(text) if parser else parse_tokens(text)


RUN_BY_HAND = ("The referee writes Board.txt, state.json and step_logs/ into the player's "
               "folder before each step; to run one step of a match again by hand, use:\n"
               "  referee rerun MATCH_DIR --step K [--player \"python3 player.py\"]")


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        if os.path.dirname(path) == SNAPSHOT_DIR and os.path.exists(BOARD_FILE):
            # In a step: a snapshot not played yet (read_ckbd(step) for read_ckbd(step - 1)).
            raise SystemExit(f"{path}: no such file: {SNAPSHOT_DIR}/ has the boards of the steps "
                             "played so far; at step s, the board before your move is "
                             "read_ckbd(s - 1)") from None
        # Run by hand (`python3 player.py 1 1`) in a folder the referee never wrote.
        raise SystemExit(f"{path}: no such file in {os.getcwd()}.\n{RUN_BY_HAND}") from None


def read_state() -> dict[str, Any]:
    """``state.json``: game, step, you, players, scores, limits, history and
    the game's own fields."""
    json = _standard("json")  # here: json brings re, ~7 ms of a spawned player's every step
    return json.loads(_read(STATE_FILE))


def read_board() -> Any:
    """The current board from ``Board.txt``, parsed for this game."""
    return _parse("parse_board", _read(BOARD_FILE))


def read_ckbd(step: int) -> Any:
    """The board after step ``step`` (0 = the start), parsed for this game.

    A player called for step ``s`` reads ``read_ckbd(s - 1)``."""
    return _parse("parse_board", _read(os.path.join(SNAPSHOT_DIR, f"step_{int(step)}.txt")))


def player_rng(state: dict[str, Any] | None = None) -> random.Random:
    """A random generator for this player and step, seeded from state.json:
    the same match (same seed, same moves) replays exactly the same way."""
    random = _standard("random")  # here: a player spawned each step should not pay for it unless it asks
    view = read_state() if state is None else state
    return random.Random(f"{view['seed']}:{view['step']}:{view['you']}")


def save_decision(*parts: Any) -> None:
    """Write the decision file: the parts separated by spaces on one line
    (``save_decision(2, 1)`` writes ``2 1``).  Written atomically, so the
    referee never reads half a decision."""
    text = " ".join(str(p) for p in parts).strip() + "\n"
    tmp = DECISION_FILE + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, DECISION_FILE)


def usage() -> str:
    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "player"
    return f"usage: {prog} STEP PLAYER_ID (the referee passes these; see README)"


def my_step_and_id(argv: list[str] | None = None) -> tuple[int, int]:
    """``(step, player_id)`` from the command line (or the environment).

    Run by hand without them, the program says how it is meant to be run
    (and exits 2) instead of failing with a KeyError."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) >= 2:
        words = args[-2], args[-1]
    else:
        words = os.environ.get("REFEREE_STEP", ""), os.environ.get("REFEREE_PLAYER", "")
    try:
        return int(words[0]), int(words[1])
    except ValueError:
        print(usage(), file=sys.stderr)
        raise SystemExit(2) from None


def _parameters(function: Callable[..., Any]) -> int:
    """How many arguments ``function`` takes: a plain function says so
    itself; anything else asks inspect (costly to import at every step)."""
    code = getattr(function, "__code__", None)
    if code is not None and not hasattr(function, "__self__") and not code.co_flags & 0x0C:
        return code.co_argcount + code.co_kwonlyargcount
    try:
        return len(_standard("inspect").signature(function).parameters)
    except (TypeError, ValueError):
        return 0


def _warm_up() -> None:
    """Import now what this module would import at the first call that needs
    it, for the calls the program names: json for ``read_state``, json and
    random for ``player_rng``, the game's module for ``read_board`` and
    ``read_ckbd`` (the module itself named: all three).  A persistent
    player's start-up is not charged and its step 1 is: these imports there
    cost ~20 ms, 8x a later step.  What the program never names is not
    imported (json alone is ~15 ms of CPU, paid by every game of a series);
    a call made some other way imports at its first use, as before."""
    wants = {id(read_state): ("json",), id(player_rng): ("json", "random"),
             id(read_board): ("game",), id(read_ckbd): ("game",),
             id(sys.modules[__name__]): ("json", "random", "game")}
    needed: set[str] = set()
    for namespace in _own_namespaces():
        for value in list(namespace.values()):
            needed.update(wants.get(id(value), ()))
    for name in ("json", "random"):
        if name in needed:
            _standard(name)
    if "game" in needed and os.environ.get("REFEREE_GAME"):  # not game_name(): no state.json before step 1
        _game_module()


def _own_namespaces() -> list[dict[str, Any]]:
    """The globals of the program's own modules: ``__main__`` and those in
    its folder (not the libraries it imports, which may be thousands), this
    one excepted."""
    main = sys.modules.get("__main__")
    script = getattr(main, "__file__", None)
    home = os.path.join(os.path.dirname(os.path.abspath(script)) if isinstance(script, str) else os.getcwd(), "")
    found = []
    for name, module in list(sys.modules.items()):
        if name == __name__ or name.startswith(__name__ + "."):
            continue
        try:
            where = getattr(module, "__file__", None)
            if module is main or (isinstance(where, str) and os.path.abspath(where).startswith(home)):
                found.append(vars(module))
        except Exception:  # noqa: BLE001 - anything can sit in sys.modules
            continue
    return found


def run(play_games: Callable[..., Any]) -> None:
    """Call ``play_games(step)`` (or ``play_games(step, player_id)`` if it
    takes two arguments) with the values the referee passed.

    Spawned once per step (the default), that is one call.  Started as a
    persistent player (``--player persistent:CMD``; the referee sets
    ``REFEREE_PERSISTENT=1``), it stays alive: each ``step <k>`` line on stdin
    is one call, answered by printing ``done``, so your program keeps its
    memory (and its imports) between steps.  Nothing else changes."""
    takes_player = _parameters(play_games) >= 2

    def one(step: int, player: int) -> None:
        if takes_player:
            play_games(step, player)
        else:
            play_games(step)

    if os.environ.get("REFEREE_PERSISTENT") == "1":
        player = int(os.environ["REFEREE_PLAYER"])
        _warm_up()
        for line in sys.stdin:
            words = line.split()
            if len(words) == 2 and words[0] == "step":
                os.environ["REFEREE_STEP"] = words[1]
                one(int(words[1]), player)
                sys.stdout.write("done\n")
                sys.stdout.flush()
        return
    one(*my_step_and_id())
