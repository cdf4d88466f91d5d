"""Black Hole Escape: positions, decisions, legal moves and apply.

Rules: shared/rules/blackhole.md.  A state is a value (a frozen dataclass);
everything expensive that follows from it (legal moves, the outcome) is
computed once on first use and cached on the instance.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Union

from referee.core.game import Event, GameState, Outcome

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


def other(player: int) -> int:
    return 3 - player


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


def position_key(grid: Grid, to_move: int) -> str:
    """The identity of a position for the repetition rule: pieces and mover."""
    return "".join(str(v) for row in grid for v in row) + f":{to_move}"


@dataclass(frozen=True)
class BlackHoleState(GameState):
    grid: Grid
    to_move: int = 1
    saved: tuple[int, int] = (0, 0)
    ply: int = 0
    ply_cap: int = 200
    # Position keys since the last save, the current one last.  A save
    # removes a ship, so no earlier position can ever come back.
    seen: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.seen:
            object.__setattr__(self, "seen", (position_key(self.grid, self.to_move),))

    # ----- queries
    def current_player(self) -> int | None:
        return None if self.is_terminal() else self.to_move

    @cached_property
    def _moves(self) -> list[Move]:
        return moves_of(self.grid, self.to_move)

    def legal_decisions(self) -> list[Decision]:
        if self.is_terminal():
            return []
        return list(self._moves) or [PASS]

    def auto_decision(self) -> Decision | None:
        return PASS if not self.is_terminal() and not self._moves else None

    def illegal_reason(self, decision: Any) -> str | None:
        if self.is_terminal():
            return "the game is over"
        if isinstance(decision, Pass):
            return None if not self._moves else "you may pass only when no ship can move"
        if not isinstance(decision, Move):
            return f"not a Black Hole decision: {decision!r}"
        return self._move_problem(decision)

    def _move_problem(self, move: Move) -> str | None:
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

    # ----- apply
    def apply(self, player: int, decision: Any) -> tuple["BlackHoleState", list[Event]]:
        if player != self.current_player():
            raise ValueError(f"player {player} is not to move")
        problem = self.illegal_reason(decision)
        if problem:
            raise ValueError(f"illegal decision {decision}: {problem}")
        events: list[Event] = []
        grid, saved, seen = self.grid, self.saved, self.seen
        if isinstance(decision, Pass):
            events.append({"type": "pass", "player": player})
        else:
            rows = [list(row) for row in grid]
            rows[decision.src[0]][decision.src[1]] = EMPTY
            if decision.dst == HOLE:
                saved = tuple(n + (p == player) for p, n in enumerate(saved, start=1))
                seen = ()
                events.append({"type": "save", "player": player, "saved": saved[player - 1]})
            else:
                rows[decision.dst[0]][decision.dst[1]] = player
            grid = tuple(tuple(row) for row in rows)
        mover = other(player)
        state = replace(self, grid=grid, to_move=mover, saved=saved, ply=self.ply + 1,
                        seen=seen + (position_key(grid, mover),))
        if state.is_terminal():
            events.append({"type": "end", "reason": state.outcome().reason})
        return state, events

    # ----- end
    def is_terminal(self) -> bool:
        return self._end is not None

    @cached_property
    def _end(self) -> Outcome | None:
        scores = self.scores()
        for player in (1, 2):
            if self.saved[player - 1] >= WIN_SAVES:
                return Outcome(player, ((player,), (other(player),)), scores,
                               f"player {player} saved {WIN_SAVES} ships")
        if self.seen.count(self.seen[-1]) >= 3:
            reason = "threefold repetition"
        elif self.ply >= self.ply_cap:
            reason = f"ply cap ({self.ply_cap}) reached"
        elif not self._moves and not moves_of(self.grid, other(self.to_move)):
            reason = "neither player can move"
        else:
            return None
        return Outcome(None, ((1, 2),), scores, reason)

    def outcome(self) -> Outcome:
        if self._end is None:
            raise ValueError("the game is not over")
        return self._end

    def scores(self) -> dict[int, float]:
        return {1: self.saved[0], 2: self.saved[1]}

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
