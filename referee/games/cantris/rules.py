"""Cantris rules: remove a tile, gravity, horizontal cascades, game over on an
empty column.  Pure functions over immutable boards (tuples of row tuples,
row 0 at the top, 0 = empty)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from referee.core.game import Event, GameState, Outcome

Board = tuple[tuple[int, ...], ...]

MIN_RUN = 3


@dataclass(frozen=True, order=True)
class Removal:
    """A decision: remove the tile at (row, col), 0-based, row 0 at the top."""

    row: int
    col: int

    def __str__(self) -> str:
        return f"{self.row} {self.col}"

    @classmethod
    def parse(cls, text: str) -> "Removal":
        """The decision file's text (the codec reads it; kept here for callers)."""
        from .codec import parse_decision

        return parse_decision(text)


def removals_per_turn(board: Board) -> int:
    """10x5 boards give each turn two removals; the smaller sizes one."""
    return 2 if (len(board), len(board[0])) == (10, 5) else 1


def _columns(board: Board) -> list[list[int]]:
    return [[row[c] for row in board] for c in range(len(board[0]))]


def _from_columns(columns: list[list[int]], rows: int) -> Board:
    return tuple(tuple(col[r] for col in columns) for r in range(rows))


def _settle(column: list[int]) -> list[int]:
    """Gravity: the column's tiles drop to the bottom, keeping their order."""
    tiles = [v for v in column if v]
    return [0] * (len(column) - len(tiles)) + tiles


def has_empty_column(board: Board) -> bool:
    return any(not any(row[c] for row in board) for c in range(len(board[0])))


def remove_tile(board: Board, row: int, col: int) -> Board:
    columns = _columns(board)
    column = columns[col]
    column[row] = 0
    columns[col] = _settle(column)
    return _from_columns(columns, len(board))


def runs(board: Board) -> list[tuple[int, int]]:
    """Every cell in a horizontal run of MIN_RUN or more equal tiles."""
    marked: list[tuple[int, int]] = []
    for r, row in enumerate(board):
        start = 0
        for c in range(1, len(row) + 1):
            if c == len(row) or row[c] != row[start]:
                if row[start] and c - start >= MIN_RUN:
                    marked.extend((r, k) for k in range(start, c))
                start = c
    return marked


def clear(board: Board, cells: list[tuple[int, int]]) -> Board:
    rows = [list(row) for row in board]
    for r, c in cells:
        rows[r][c] = 0
    columns = [_settle(col) for col in _columns(tuple(map(tuple, rows)))]
    return _from_columns(columns, len(board))


@dataclass(frozen=True)
class CantrisState(GameState):
    board: Board
    points: tuple[int, int] = (0, 0)
    step: int = 0
    over: bool = False

    # --- whose step
    @property
    def per_turn(self) -> int:
        return removals_per_turn(self.board)

    def current_player(self) -> int | None:
        if self.over:
            return None
        return 1 + (self.step // self.per_turn) % 2

    def removal_index(self) -> int:
        """1-based index of this removal within the turn (k of per_turn)."""
        return self.step % self.per_turn + 1

    # --- moves
    def legal_decisions(self) -> list[Removal]:
        if self.over:
            return []
        return [Removal(r, c) for r, row in enumerate(self.board) for c, v in enumerate(row) if v]

    def illegal_reason(self, decision: Any) -> str | None:
        if self.over:
            return "the game is over"
        rows, cols = len(self.board), len(self.board[0])
        if not isinstance(decision, Removal):
            return "not a Cantris removal"
        if not (0 <= decision.row < rows and 0 <= decision.col < cols):
            edge = decision.row == rows or decision.col == cols  # a 1-based count's last row or column
            return (f"cell ({decision.row}, {decision.col}) is off the {rows}x{cols} board (rows 0..{rows - 1}, "
                    f"columns 0..{cols - 1}{': they count from 0' if edge else ''})")
        if not self.board[decision.row][decision.col]:
            return f"cell ({decision.row}, {decision.col}) is empty"
        return None

    def apply(self, player: int, decision: Removal) -> tuple["CantrisState", list[Event]]:
        reason = self.illegal_reason(decision)
        if reason:
            raise ValueError(reason)
        value = self.board[decision.row][decision.col]
        board = remove_tile(self.board, decision.row, decision.col)
        gained = value
        events: list[Event] = [{"type": "remove", "cell": [decision.row, decision.col],
                                "value": value, "points": value}]
        over = has_empty_column(board)
        cascade = 0
        while not over:
            marked = runs(board)
            if not marked:
                break
            cascade += 1
            pass_points = sum(board[r][c] for r, c in marked)
            gained += pass_points
            board = clear(board, marked)
            events.append({"type": "cascade", "pass": cascade, "cells": [list(x) for x in marked],
                           "points": pass_points})
            over = has_empty_column(board)
        points = list(self.points)
        points[player - 1] += gained
        if over:
            events.append({"type": "game_over", "reason": "a column is empty"})
        return CantrisState(board, (points[0], points[1]), self.step + 1, over), events

    # --- end
    def is_terminal(self) -> bool:
        return self.over

    def scores(self) -> Mapping[int, float]:
        return {1: self.points[0], 2: self.points[1]}

    def outcome(self) -> Outcome:
        a, b = self.points
        if a == b:
            return Outcome(None, ((1, 2),), self.scores(), f"a column is empty; draw at {a} points each")
        winner, loser = (1, 2) if a > b else (2, 1)
        return Outcome(winner, ((winner,), (loser,)), self.scores(),
                       f"a column is empty; {max(a, b)} points to {min(a, b)}")

    def to_json(self) -> dict[str, Any]:
        return {"board": [list(row) for row in self.board], "points": list(self.points),
                "step": self.step, "over": self.over}
