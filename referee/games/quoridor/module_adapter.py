"""Run a course-engine Quoridor module for one step, as a referee player.

    python -m referee.games.quoridor.module_adapter /abs/path/player.py STEP PLAYER

The referee starts this (``--player module:path/to/player.py``) in the
player's folder like any player program.  Nothing survives between steps, so
the module's in-memory state is rebuilt every time exactly as the course engine
built it: ``init`` with the start squares, then ``last_move`` for every move
so far (pre-moves included) and ``player_invalidated`` for every ejection, in
order; then ``move`` decides and its PlayerMove becomes ``decision.txt``.
A module that raises crashes the step, like any crashing program.
"""
from __future__ import annotations

import json
import os
import sys
import traceback

from .course_api import (Logger, StudentCodeError, decision_text, describe_error, load_module,
                         player_move, updated)
from .rules import PASS, START, WALLS_PER_PLAYER, QuoridorState, seats
from .codec import parse_decision

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


def decide(module, view: dict, me: int):
    players = view["player_count"]
    homes = tuple(START[p] for p in seats(players))
    data = module.init(Logger(), me, WALLS_PER_PLAYER[players], homes)
    for entry in view["moves"]:
        player, text = entry["player"], entry["decision"]
        if text == EJECT:
            if hasattr(module, "player_invalidated"):
                data = updated(data, module.player_invalidated(data, player))
        elif text != str(PASS):  # the course engine has no pass to report
            data = updated(data, module.last_move(data, player_move(player, text)))
    return module.move(data)


def write_decision(text: str) -> None:
    with open("decision.txt.tmp", "w", encoding="utf-8") as f:
        f.write(text + "\n")
    os.replace("decision.txt.tmp", "decision.txt")


def main(argv: list[str]) -> None:
    if len(argv) < 1:
        sys.exit("usage: python -m referee.games.quoridor.module_adapter PLAYER.py [STEP PLAYER_ID]")
    with open("state.json", encoding="utf-8") as f:
        view = json.load(f)
    me = int(argv[2]) if len(argv) >= 3 else int(view["you"])
    check_standard_start(view)
    try:
        module = load_module(argv[0])
        move = decide(module, view, me)
    except StudentCodeError as exc:
        sys.exit(str(exc))
    except Exception as exc:  # the traceback, then one line naming the student's file and line
        traceback.print_exc()
        sys.exit(describe_error(exc, os.path.dirname(os.path.abspath(argv[0]))))
    write_decision(decision_text(move))


if __name__ == "__main__":
    main(sys.argv[1:])
