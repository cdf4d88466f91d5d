"""Connect Four's rules: states are values, ``apply`` returns a new one.

The grid is a tuple of rows, row 0 at the top, each cell 0 (empty), 1 or 2.
A decision is a column index; the piece falls to the lowest empty cell.  The
first player to line up ``connect`` pieces (row, column or diagonal) wins; a
full grid is a draw."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from referee.core.game import Event, GameState, Outcome

Grid = tuple[tuple[int, ...], ...]
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def landing_row(grid: Grid, col: int) -> int | None:
    """The row a piece dropped in ``col`` stops on, None if it is full."""
    for row in range(len(grid) - 1, -1, -1):
        if grid[row][col] == 0:
            return row
    return None


def line_through(grid: Grid, row: int, col: int, connect: int) -> tuple[tuple[int, int], ...]:
    """The longest run of the piece at (row, col) if it reaches ``connect``,
    else ()."""
    who = grid[row][col]
    rows, cols = len(grid), len(grid[0])
    for dr, dc in DIRECTIONS:
        cells = [(row, col)]
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < rows and 0 <= c < cols and grid[r][c] == who:
                cells.append((r, c))
                r, c = r + sign * dr, c + sign * dc
        if len(cells) >= connect:
            return tuple(sorted(cells))
    return ()


def first_line(grid: Grid, connect: int) -> tuple[int, tuple[tuple[int, int], ...]] | None:
    """(player, cells) of some line of ``connect`` on ``grid``, or None."""
    for r, row in enumerate(grid):
        for c, who in enumerate(row):
            if who:
                cells = line_through(grid, r, c, connect)
                if cells:
                    return who, cells
    return None


@dataclass(frozen=True)
class ConnectFourState(GameState):
    grid: Grid
    to_move: int = 1
    connect: int = 4
    winner: int | None = None
    line: tuple[tuple[int, int], ...] = ()

    @property
    def rows(self) -> int:
        return len(self.grid)

    @property
    def cols(self) -> int:
        return len(self.grid[0])

    def current_player(self) -> int | None:
        return None if self.is_terminal() else self.to_move

    @cached_property
    def _legal(self) -> tuple[int, ...]:
        if self.winner is not None:
            return ()
        return tuple(c for c in range(self.cols) if self.grid[0][c] == 0)

    def legal_decisions(self) -> list[int]:
        return list(self._legal)

    def illegal_reason(self, decision: Any) -> str | None:
        if not isinstance(decision, int) or isinstance(decision, bool):
            return "a decision is a column number"
        if not 0 <= decision < self.cols:
            return f"column {decision} is not on the board (columns 0..{self.cols - 1})"
        if self.grid[0][decision] != 0:
            return f"column {decision} is full"
        if self.is_terminal():
            return "the game is over"
        return None

    def apply(self, player: int, decision: int) -> tuple["ConnectFourState", list[Event]]:
        row = landing_row(self.grid, decision)
        if row is None or player != self.to_move:
            raise ValueError(f"player {player} cannot drop in column {decision} now")
        grid = tuple(tuple(player if (r, c) == (row, decision) else v for c, v in enumerate(line))
                     for r, line in enumerate(self.grid))
        events: list[Event] = [{"type": "drop", "player": player, "row": row, "col": decision}]
        line = line_through(grid, row, decision, self.connect)
        winner = player if line else None
        if line:
            events.append({"type": "line", "player": player, "cells": [list(c) for c in line]})
        return ConnectFourState(grid, 3 - player, self.connect, winner, line), events

    def is_terminal(self) -> bool:
        return self.winner is not None or not self._legal

    def outcome(self) -> Outcome:
        if self.winner is not None:
            return Outcome(self.winner, ((self.winner,), (3 - self.winner,)), None,
                           f"player {self.winner} connected {self.connect}")
        return Outcome(None, ((1, 2),), None, "the grid is full: a draw")

    def to_json(self) -> dict[str, Any]:
        return {"grid": [list(row) for row in self.grid], "to_move": self.to_move,
                "connect": self.connect, "winner": self.winner,
                "line": [list(cell) for cell in self.line]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ConnectFourState":
        return cls(tuple(tuple(int(v) for v in row) for row in data["grid"]), int(data["to_move"]),
                   int(data["connect"]), data.get("winner"),
                   tuple(tuple(cell) for cell in data.get("line") or ()))
