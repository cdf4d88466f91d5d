"""Black Hole Escape: positions, decisions, legal moves and apply.

Rules: shared/rules/blackhole.md.  A state is a value (a frozen dataclass);
everything expensive that follows from it (legal moves, the outcome) is
computed once on first use and cached on the instance.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Union

from referee.core.alternating import AlternatingState
from referee.core.game import Event

SIZE = 5
EMPTY, HOLE_MARK = 0, 3
HOLE = (2, 2)
WIN_SAVES = 2
MAX_SHIPS = 4
DIRECTIONS: dict[str, tuple[int, int]] = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}

Cell = tuple[int, int]
Grid = tuple[tuple[int, ...], ...]

STANDARD_GRID: Grid = (
    (1, 0, 0, 0, 1),
    (0, 1, 0, 1, 0),
    (0, 0, 3, 0, 0),
    (0, 2, 0, 2, 0),
    (2, 0, 0, 0, 2),
)


@dataclass(frozen=True)
class Move:
    """Slide the ship on ``src`` until it stops on ``dst``."""

    src: Cell
    dst: Cell

    def __str__(self) -> str:
        return f"{self.src[0]} {self.src[1]} {self.dst[0]} {self.dst[1]}"


@dataclass(frozen=True)
class Pass:
    """The only decision of a player whose ships cannot move."""

    def __str__(self) -> str:
        return "pass"


PASS = Pass()
Decision = Union[Move, Pass]


def on_board(cell: Cell) -> bool:
    return 0 <= cell[0] < SIZE and 0 <= cell[1] < SIZE


def slide_end(grid: Grid, src: Cell, direction: tuple[int, int]) -> Cell:
    """Where a ship leaving ``src`` stops: before the edge or the next ship
    (the hole counts as empty).  Equal to ``src`` when it cannot move."""
    r, c = src
    dr, dc = direction
    while on_board((r + dr, c + dc)) and grid[r + dr][c + dc] in (EMPTY, HOLE_MARK):
        r, c = r + dr, c + dc
    return (r, c)


def ships_of(grid: Grid, player: int) -> list[Cell]:
    return [(r, c) for r in range(SIZE) for c in range(SIZE) if grid[r][c] == player]


def moves_of(grid: Grid, player: int) -> list[Move]:
    """Every sliding move of ``player``, ships in row-major order, then U D L R."""
    moves = []
    for src in ships_of(grid, player):
        for direction in DIRECTIONS.values():
            dst = slide_end(grid, src, direction)
            if dst != src:
                moves.append(Move(src, dst))
    return moves


@dataclass(frozen=True, kw_only=True)
class BlackHoleState(AlternatingState):
    grid: Grid
    saved: tuple[int, int] = (0, 0)
    ply_cap: int = 200

    pass_decision = PASS
    pass_refused = "you may pass only when no ship can move"
    win_score = WIN_SAVES
    win_reason = "player {player} saved {score} ships"

    @property
    def tally(self) -> tuple[int, int]:
        return self.saved

    def moves_for(self, player: int) -> list[Move]:
        return moves_of(self.grid, player)

    def board_key(self) -> str:
        return "".join(str(v) for row in self.grid for v in row)

    def move_problem(self, move: Any) -> str | None:
        if not isinstance(move, Move):
            return f"not a Black Hole decision: {move!r}"
        (r1, c1), (r2, c2) = move.src, move.dst
        owner = self.grid[r1][c1]
        if owner != self.to_move:
            what = "the black hole" if owner == HOLE_MARK else (
                "empty" if owner == EMPTY else f"player {owner}'s ship")
            return f"{r1} {c1} is {what}, not a ship of player {self.to_move}"
        if move.src == move.dst:
            return "a move must move the ship (zero-length move)"
        if r1 != r2 and c1 != c2:
            return "a ship slides along its row or column only"
        direction = ((r2 > r1) - (r2 < r1), (c2 > c1) - (c2 < c1))
        stop = slide_end(self.grid, move.src, direction)
        if stop == move.src:
            return "the ship is blocked in that direction (zero-length move)"
        if stop != move.dst:
            return f"the ship slides to {stop[0]} {stop[1]}, not {r2} {c2}"
        return None

    def after_move(self, player: int, move: Move) -> tuple["BlackHoleState", list[Event]]:
        rows = [list(row) for row in self.grid]
        rows[move.src[0]][move.src[1]] = EMPTY
        saved, events = self.saved, []
        if move.dst == HOLE:
            saved = self.point_for(player)
            events.append({"type": "save", "player": player, "saved": saved[player - 1]})
        else:
            rows[move.dst[0]][move.dst[1]] = player
        return replace(self, grid=tuple(tuple(row) for row in rows), saved=saved), events

    def to_json(self) -> dict[str, Any]:
        return {
            "board": [list(row) for row in self.grid],
            "to_move": self.to_move,
            "saved": list(self.saved),
            "ply": self.ply,
            "ply_cap": self.ply_cap,
            "seen": list(self.seen),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "BlackHoleState":
        return cls(grid=tuple(tuple(int(v) for v in row) for row in data["board"]),
                   to_move=int(data["to_move"]), saved=tuple(int(n) for n in data["saved"]),
                   ply=int(data["ply"]), ply_cap=int(data["ply_cap"]),
                   seen=tuple(data["seen"]))
