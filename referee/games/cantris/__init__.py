"""Cantris (Candy Crush + Tetris), as in the course handout "AI Spring 2022
Term Project #1"; rules in shared/rules/cantris.md."""
from __future__ import annotations

from typing import Any

from referee.core.game import Game, Setup

from . import codec
from .render import render
from .rules import Board, CantrisState, Removal, removals_per_turn, runs

# The 8x4 default board.  It reproduces the handout's worked example: removing
# (2,1), a 3, scores 3; column 1 drops and row 2 becomes 1 1 1 2, cleared for
# 1+1+1: 6 points for the step.
DEFAULT_BOARD = """\
2 4 3 1
4 1 2 3
1 3 1 2
3 2 4 1
2 4 3 4
4 1 2 3
1 3 4 2
3 2 1 4
"""


class Cantris(Game):
    name = "cantris"
    shared_views = True  # every seat sees the whole board
    title = "Cantris"
    player_counts = (2,)
    limits = {"soft_time": 30.0, "hard_time": 60.0}
    decision_help = "one line 'r c': the row (0 = top) and column of a non-empty cell"

    def default_board_text(self, variant: str, players: int) -> str:
        return DEFAULT_BOARD

    def parse_board(self, text: str, source: str, variant: str) -> Board:
        return codec.parse_board(text, source)

    def board_warnings(self, board: Board) -> list[str]:
        warnings = []
        rows, cols = len(board), len(board[0])
        if (rows, cols) not in codec.STANDARD_SIZES:
            warnings.append(f"{rows}x{cols} is not a standard size (6x3, 8x4, 10x5)")
        else:
            high = max(max(row) for row in board)
            if high > cols:
                warnings.append(f"tile number {high} is above the standard 1..{cols} for {rows}x{cols}")
        found = runs(board)
        if found:
            rows_hit = sorted({r for r, _ in found})
            warnings.append(f"row(s) {', '.join(map(str, rows_hit))} already hold a run of 3+: "
                            "the first cascade clears it and credits the player who moves first")
        return warnings

    def initial_state(self, setup: Setup) -> CantrisState:
        board = setup.board if setup.board is not None else codec.parse_board(DEFAULT_BOARD, "<default>")
        return CantrisState(board)

    def parse_decision(self, state: CantrisState, text: str) -> Removal:
        return codec.parse_decision(text)

    def board_text(self, state: CantrisState, viewer: int | None) -> str:
        return codec.board_text(state.board)

    def view_json(self, state: CantrisState, viewer: int | None) -> dict[str, Any]:
        return {
            "board": [list(row) for row in state.board],
            "rows": len(state.board),
            "cols": len(state.board[0]),
            "points": {"1": state.points[0], "2": state.points[1]},
            "removal": state.removal_index(),
            "removals_per_turn": removals_per_turn(state.board),
        }

    def render(self, state: CantrisState, viewer: int | None = None, color: bool = False) -> str:
        return render(state.board, state.points, color)


GAME = Cantris()
