"""Quoridor as the referee core sees it: the Game description tying the rules,
the text codec, the drawing and the module-player adapter together."""
from __future__ import annotations

import dataclasses
from typing import Any

from referee.core.errors import InputError
from referee.core.game import Game, Setup
from referee.core.interpreter import PYTHON
from referee.core.textgrid import read_board_file

from . import codec
from .render import render
from .rules import (
    DEFAULT_PLY_CAP, GOAL_NAME, Decision, QuoridorState, Wall, seats, unreachable_squares,
)

MODULE_PREFIX = "module:"


class QuoridorGame(Game):
    name = "quoridor"
    shared_views = True  # every seat sees the whole board
    title = "Quoridor"
    player_counts = (1, 2, 4)
    settings = {"ply_cap": DEFAULT_PLY_CAP, "premoves": "", "premoves_file": ""}
    file_settings = ("premoves_file",)
    decision_help = codec.DECISION_HELP

    def default_board_text(self, variant: str, players: int) -> str:
        return codec.board_text(QuoridorState.start(players))

    def parse_board(self, text: str, source: str, variant: str = "standard") -> QuoridorState:
        return codec.parse_board(text, source)

    def board_warnings(self, board: QuoridorState) -> list[str]:
        """Closed pockets, and seats without a pawn: a board is valid
        without one (the seat starts as ejected), but a pawn left out by
        mistake decides every game played on the board."""
        warnings = []
        missing = [p for p in seats(board.players) if board.pawn(p) is None]
        if board.players > 1 and missing:
            names = ", ".join(map(str, missing))
            seat = "that seat starts" if len(missing) == 1 else "those seats start"
            then = (f"player {board.winner}, the last active player, wins before any move"
                    if board.winner is not None else "its turns are skipped and it ranks last"
                    if len(missing) == 1 else "their turns are skipped and they rank last")
            warnings.append(f"no pawn of player{'s' if len(missing) > 1 else ''} {names} on the board: "
                            f"{seat} as ejected; {then}")
        closed = unreachable_squares(board)
        if closed:
            listed = " ".join(f"({r},{c})" for r, c in closed[:8]) + (" ..." if len(closed) > 8 else "")
            warnings.append(f"{len(closed)} square(s) no pawn can reach: {listed}")
        return warnings

    def initial_state(self, setup: Setup) -> QuoridorState:
        state = setup.board if setup.board is not None else QuoridorState.start(setup.players)
        if state.players != setup.players:
            raise InputError(f"the board is for {state.players} player(s) but {setup.players} were given")
        cap = int(setup.settings.get("ply_cap", DEFAULT_PLY_CAP))
        if cap <= state.ply:
            raise InputError(f"setting ply_cap: must be above the board's ply {state.ply}, got {cap}")
        state = dataclasses.replace(state, ply_cap=cap)
        for source, text in self._premove_texts(setup.settings):
            state = apply_premoves(state, text, source)
        return state

    @staticmethod
    def _premove_texts(settings) -> list[tuple[str, str]]:
        texts = []
        path = str(settings.get("premoves_file") or "")
        if path:  # read as a board file is: bounded, a bad byte named by its line and column
            texts.append((path, read_board_file(path, "pre-moves file")))
        if settings.get("premoves"):
            texts.append(("--set premoves", str(settings["premoves"])))
        return texts

    def parse_decision(self, state: QuoridorState, text: str) -> Decision:
        return codec.parse_decision(text)

    def board_text(self, state: QuoridorState, viewer: int | None) -> str:
        return codec.board_text(state)

    def view_json(self, state: QuoridorState, viewer: int | None) -> dict[str, Any]:
        """state.json's game part; "moves" is the full move history including
        pre-moves and ejections (the core's "history" has the steps only)."""
        data = state.to_json()
        data["player_count"] = data.pop("players")
        data["goals"] = {str(p): GOAL_NAME[p] for p in seats(state.players)}
        data["moves"] = [{"player": p, "decision": text} for p, text in state.moves]
        return data

    def render(self, state: QuoridorState, viewer: int | None = None, color: bool = False) -> str:
        return render(state, color, viewer)

    def state_from_json(self, data: dict[str, Any]) -> QuoridorState:
        """A position from ``to_json`` or state.json data (history not included)."""
        players = data.get("player_count", data.get("players"))
        pawns = {int(p): tuple(sq) for p, sq in data["pawns"].items() if sq is not None}
        return QuoridorState.arrange(
            players, pawns, [Wall.of(*w) for w in data["walls"]],
            {int(p): n for p, n in data["walls_left"].items()}, data["to_move"],
            data.get("ply", 0), data.get("ply_cap", DEFAULT_PLY_CAP))

    def player_command(self, spec: str, base_dir: str) -> list[str] | None:
        """``module:path/to/player.py`` or ``module:path/to/team`` (a package
        folder, as the course's StudentPlayers/<team>): a course-engine module
        run through the adapter."""
        if not spec.startswith(MODULE_PREFIX):
            return None
        from pathlib import Path

        from .course_api import find_module  # the course-module loader: only for module players

        given = Path(base_dir, spec[len(MODULE_PREFIX):])
        path = find_module(given)
        if path is None:
            if given.is_dir():
                raise InputError(f"module player folder has no __init__.py: {given.resolve()} "
                                 "(give the package folder, or the module file in it)")
            raise InputError(f"module player not found: {given.resolve()}")
        return [PYTHON, "-P", "-m", "referee.games.quoridor.module_adapter", str(path)]

    def player_persistent(self, spec: str) -> bool:
        """Module players are kept alive for the match, as the course engine
        kept one instance per game: what ``move()`` changes survives."""
        return spec.startswith(MODULE_PREFIX)


def apply_premoves(state: QuoridorState, text: str, source: str) -> QuoridorState:
    """The position after the pre-moves, each made by the player whose turn it is."""
    for decision, line, claimed, written in codec.parse_premoves(text, source):
        if state.is_terminal():
            raise InputError("pre-moves continue after the game ended", source, line)
        player = state.turn
        if claimed is not None and claimed != player:  # the course's PRE_MOVE names its player
            raise InputError(f"pre-move {written} names player {claimed}, but it is player {player}'s "
                             "turn (pre-moves are made in turn order)", source, line)
        reason = state.illegal_reason(decision)
        if reason:
            raise InputError(f"pre-move {decision} by player {player}: {reason}", source, line)
        state, _ = state.apply(player, decision)
    if state.is_terminal():
        raise InputError(f"the pre-moves end the game ({state.reason})", source)
    return state
