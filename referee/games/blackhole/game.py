"""Black Hole Escape as the referee core sees it: the Game description tying
the rules, the text codec and the drawing together."""
from __future__ import annotations

from typing import Any

from referee.core.errors import InputError
from referee.core.game import Game, GameState, Setup

from . import codec
from .render import render
from .rules import STANDARD_GRID, BlackHoleState, Decision, Grid, moves_of


class BlackHoleGame(Game):
    name = "blackhole"
    shared_views = True  # every seat sees the whole board
    title = "Black Hole Escape"
    settings = {"ply_cap": 200}
    decision_help = codec.DECISION_HELP

    def default_board_text(self, variant: str, players: int) -> str:
        return codec.grid_text(STANDARD_GRID)

    def parse_board(self, text: str, source: str, variant: str = "standard") -> Grid:
        return codec.parse_grid(text, source)

    def board_warnings(self, board: Grid) -> list[str]:
        warnings = []
        for player in (1, 2):
            ships = sum(row.count(player) for row in board)
            if ships < 2:
                warnings.append(f"player {player} has {ships} ship(s) and can never win")
            elif not moves_of(board, player):
                warnings.append(f"no ship of player {player} can move at the start")
        return warnings

    def initial_state(self, setup: Setup) -> BlackHoleState:
        ply_cap = setup.settings.get("ply_cap", self.settings["ply_cap"])
        if ply_cap < 1:
            raise InputError(f"setting ply_cap: must be at least 1, got {ply_cap}")
        grid = setup.board if setup.board is not None else STANDARD_GRID
        return BlackHoleState(grid=grid, ply_cap=ply_cap)

    def parse_decision(self, state: BlackHoleState, text: str) -> Decision:
        return codec.parse_decision(state.grid, text)

    def board_text(self, state: BlackHoleState, viewer: int | None) -> str:
        return codec.grid_text(state.grid)

    def render(self, state: BlackHoleState, viewer: int | None = None, color: bool = False) -> str:
        return render(state, color)

    def state_from_json(self, data: dict[str, Any]) -> GameState:
        return BlackHoleState.from_json(data)
