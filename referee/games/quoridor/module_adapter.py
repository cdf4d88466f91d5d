"""Run a course-engine Quoridor module as a referee player.

    python -m referee.games.quoridor.module_adapter /abs/path/player.py [STEP PLAYER]

The referee starts this (``--player module:path/to/player.py`` or
``module:path/to/team`` for a package folder) in the player's folder.  The
course engine kept one instance of the module for the whole game, so this
does too: started as a persistent player (``REFEREE_PERSISTENT=1``, the
default for module players wherever there is a seat host) it loads the module
once and answers every ``step <k>`` line on stdin, so whatever ``init``,
``last_move`` or ``move`` changed is still there at the next step.  Each step
it reports the moves made since its last one through ``last_move`` (its own
included, pre-moves first) and ejections through ``player_invalidated``, then
``move()`` decides and its PlayerMove is written to ``decision.txt`` in the
course's form, ``PlayerMove(1, True, 8, 4, 7, 4)``.

A fresh process (the first step, a restart after a fault, a spawn-per-step
run without a seat host) rebuilds the module's state the way the engine built
it: ``init``, then ``last_move``/``player_invalidated`` for every move so far.
``referee rerun`` of a step of a kept-alive module sets ``REFEREE_RERUN=persistent``;
the rebuild then also calls ``move()`` at each of the module's earlier steps
(discarding the answers), so state ``move()`` kept is rebuilt too.

Chance is reproducible: before every call into the module, ``random`` (and
``numpy.random``, once the module has imported numpy) is seeded from the
player's seed in ``state.json`` and that call's place in the game (init, the
i-th move reported, the move asked at step k), so a kept-alive module, a
rebuilt one and a rerun make the same draws.  The module's prints go to the
player's stderr file with its logger lines (stdout carries the ``done``
lines of the persistent protocol).  A module that raises crashes the step.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, NoReturn

from .codec import parse_decision
from .course_api import (Logger, StudentCodeError, describe_error, load_module,
                         module_folder, player_move, returned_decision, updated)
from .rules import PASS, START, WALLS_PER_PLAYER, QuoridorState, seats

EJECT = "EJECT"


def check_standard_start(view: dict) -> None:
    """The course API has no way to tell a module about walls or pawns a
    board file placed, so the game must have started from the standard
    position (pre-moves are fine: they reach the module as moves)."""
    state = QuoridorState.start(view["player_count"])
    for entry in view["moves"]:
        if entry["decision"] == EJECT:
            state, _ = state.eject(entry["player"])
        else:
            state, _ = state.apply(entry["player"], parse_decision(entry["decision"]))
    rebuilt = state.to_json()
    if any(rebuilt[key] != view[key] for key in ("pawns", "walls", "walls_left")):
        sys.exit("module players need the standard start position: use pre-moves "
                 "(--set premoves=...) instead of a board file")


def seed_chance(player_seed: Any, *call: Any) -> None:
    """Seed ``random`` and, if the module has imported it, ``numpy.random``
    for one call into the module: the same call of the same game always gets
    the same draws, whichever process makes it."""
    key = ":".join(map(str, (player_seed, *call)))
    random.seed(key)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        try:  # numpy 2 loads numpy.random on first use: this may be it
            numpy.random.seed(int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big"))
        except Exception:  # a numpy the module broke: its own affair
            pass


def own_steps(view: dict, me: int) -> dict[int, int]:
    """{index in ``moves``: step} of the moves this seat's ``move()`` made
    (the moves after the pre-moves are the history's steps, in order;
    passes the referee made for it are not)."""
    moves, history = view["moves"], view.get("history") or []
    played = [i for i, entry in enumerate(moves) if entry["decision"] != EJECT]
    first = len(played) - len(history)
    return {index: entry["step"] for index, entry in zip(played[first:], history)
            if entry["player"] == me and entry["decision"] != str(PASS)}


REQUIRED = ("init", "last_move", "move")
"""The functions a module player must define (player_invalidated is optional)."""


def check_functions(module: Any, path: str) -> None:
    """A module without one of :data:`REQUIRED` is named in the student's
    words (``nomove.py has no function move()``): the AttributeError it
    raised was told at the adapter's line, as if the referee had failed."""
    for name in REQUIRED:
        if not callable(getattr(module, name, None)):
            where = Path(path)
            shown = f"{where.name}/__init__.py" if where.is_dir() else where.name
            raise StudentCodeError(f"{shown} has no function {name}()")


class Session:
    """One instance of the module for one game, as the engine kept it."""

    def __init__(self, module: Any, me: int, replay_moves: bool = False) -> None:
        self.module = module
        self.me = me
        self.data: Any = None
        self.started = False
        self.fed = 0  # how many of state.json's moves the module has been told
        self.replay_moves = replay_moves  # rebuild move()'s own state too (rerun)

    def call(self, seed: Any, call: tuple, function: Callable, *args: Any) -> Any:
        seed_chance(seed, *call)
        return function(*args)

    def step(self, view: dict, step: int) -> str:
        """Bring the module up to date with ``view`` and ask for its move."""
        seed, moves = view["seed"], view["moves"]
        fresh = not self.started
        if fresh:
            check_standard_start(view)
            players = view["player_count"]
            homes = tuple(START[p] for p in seats(players))
            self.data = self.call(seed, ("init",), self.module.init, Logger(), self.me,
                                  WALLS_PER_PLAYER[players], homes)
            self.started = True
        earlier = own_steps(view, self.me) if fresh and self.replay_moves else {}
        for index in range(self.fed, len(moves)):
            player, text = moves[index]["player"], moves[index]["decision"]
            if index in earlier:  # what the kept-alive module did at that step
                self.call(seed, ("move", earlier[index]), self.module.move, self.data)
            if text == EJECT:
                if hasattr(self.module, "player_invalidated"):
                    self.data = updated(self.data, self.call(
                        seed, ("player_invalidated", index), self.module.player_invalidated, self.data, player))
            elif text != str(PASS):  # the course engine has no pass to report
                self.data = updated(self.data, self.call(
                    seed, ("last_move", index), self.module.last_move, self.data, player_move(player, text)))
        self.fed = len(moves)
        return returned_decision(self.call(seed, ("move", step), self.module.move, self.data))


def write_decision(text: str) -> None:
    with open("decision.txt.tmp", "w", encoding="utf-8") as f:
        f.write(text + "\n")
    os.replace("decision.txt.tmp", "decision.txt")


def read_view() -> dict:
    with open("state.json", encoding="utf-8") as f:
        return json.load(f)


def student_failure(exc: BaseException, path: str) -> NoReturn:
    """The traceback, then one line naming the student's file and line: the
    step's CRASH message."""
    if isinstance(exc, StudentCodeError):
        sys.exit(str(exc))
    traceback.print_exc()
    sys.exit(describe_error(exc, module_folder(path)))


def serve(path: str, session_of: Callable[[], Session]) -> None:
    """The persistent protocol: ``step <k>`` on stdin, ``done`` on stdout.
    The module's own prints are sent to stderr, so that nothing it prints
    can be taken for (or glued to) a ``done``."""
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    try:
        session, failure = session_of(), None
    except Exception as exc:  # told at the first step, so that its message is that step's
        session, failure = None, exc
    for line in sys.stdin:
        words = line.split()
        if len(words) != 2 or words[0] != "step":
            continue
        try:
            if failure is not None:
                raise failure
            text = session.step(read_view(), int(words[1]))
        except Exception as exc:
            student_failure(exc, path)
        write_decision(text)
        sys.stdout.flush()
        sys.stderr.flush()
        channel.write("done\n")
        channel.flush()


def loaded(path: str) -> Any:
    """The student's module, checked for the functions a game calls."""
    module = load_module(path)
    check_functions(module, path)
    return module


def main(argv: list[str]) -> None:
    if len(argv) < 1:
        sys.exit("usage: python -m referee.games.quoridor.module_adapter PLAYER.py|FOLDER [STEP PLAYER_ID]")
    path = argv[0]
    replay_moves = os.environ.get("REFEREE_RERUN") == "persistent"
    if os.environ.get("REFEREE_PERSISTENT") == "1":
        me = int(os.environ["REFEREE_PLAYER"])
        serve(path, lambda: Session(loaded(path), me))
        return
    os.dup2(2, 1)  # prints join the logger's lines, as in the kept-alive mode
    view = read_view()
    me = int(argv[2]) if len(argv) >= 3 else int(view["you"])
    step = int(argv[1]) if len(argv) >= 2 else int(view["step"])
    try:
        text = Session(loaded(path), me, replay_moves).step(view, step)
    except Exception as exc:
        student_failure(exc, path)
    write_decision(text)


if __name__ == "__main__":
    main(sys.argv[1:])
