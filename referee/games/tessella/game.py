"""Tessella as the referee core sees it: the Game description tying the rules,
the text codec and the drawing together."""
from __future__ import annotations

from typing import Any

from referee.core.errors import InputError
from referee.core.game import Game, GameState, Setup

from . import codec
from .render import render
from .rules import STANDARD_PIECES, WIN_CAPTURES, Decision, Pieces, TessellaState, pieces_of


class TessellaGame(Game):
    name = "tessella"
    shared_views = True  # every seat sees the whole board
    title = "Tessella"
    settings = {"ply_cap": 300}
    decision_help = codec.DECISION_HELP

    def default_board_text(self, variant: str, players: int) -> str:
        return codec.pieces_text(STANDARD_PIECES)

    def parse_board(self, text: str, source: str, variant: str = "standard") -> Pieces:
        return codec.parse_pieces(text, source)

    def board_warnings(self, board: Pieces) -> list[str]:
        warnings = []
        for player in (1, 2):
            count = len(pieces_of(board, player))
            if count < WIN_CAPTURES:
                warnings.append(f"player {player} has {count} piece(s), fewer than the "
                                f"{WIN_CAPTURES} captures that win: player {3 - player} "
                                "cannot win by capturing")
        return warnings

    def initial_state(self, setup: Setup) -> TessellaState:
        ply_cap = setup.settings.get("ply_cap", self.settings["ply_cap"])
        if ply_cap < 1:
            raise InputError(f"setting ply_cap: must be at least 1, got {ply_cap}")
        pieces = setup.board if setup.board is not None else STANDARD_PIECES
        return TessellaState(pieces=pieces, ply_cap=ply_cap)

    def parse_decision(self, state: TessellaState, text: str) -> Decision:
        return codec.parse_decision(text)

    def board_text(self, state: TessellaState, viewer: int | None) -> str:
        return codec.pieces_text(state.pieces)

    def render(self, state: TessellaState, viewer: int | None = None, color: bool = False) -> str:
        return render(state, color)

    def state_from_json(self, data: dict[str, Any]) -> GameState:
        return TessellaState.from_json(data)
