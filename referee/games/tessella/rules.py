"""Tessella: geometry, positions, decisions, legal moves and apply.

Rules: shared/rules/tessella.md.  A state is a value (a frozen dataclass);
legal moves and the outcome are computed once on first use and cached.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Union

from referee.core.game import Event, GameState, Outcome

SIZE = 9
CENTRE = 4
EMPTY = 0
WIN_CAPTURES = 4
ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
LINES = ORTHOGONAL + DIAGONAL

Cell = tuple[int, int]
Pieces = tuple[tuple[int, ...], ...]
"""A 9x9 grid of roles: 0 empty (or off the board), 1 or 2 a player's piece."""


def on_board(cell: Cell) -> bool:
    return abs(CENTRE - cell[0]) + abs(CENTRE - cell[1]) <= CENTRE


def shape(cell: Cell) -> str:
    """'O' octagon, 'S' square, 'X' off the board."""
    if not (0 <= cell[0] < SIZE and 0 <= cell[1] < SIZE and on_board(cell)):
        return "X"
    return "O" if (cell[0] + cell[1]) % 2 == 0 else "S"


CELLS: tuple[Cell, ...] = tuple((r, c) for r in range(SIZE) for c in range(SIZE)
                                if on_board((r, c)))
STEPS = {"O": LINES, "S": ORTHOGONAL}

START_CELLS = {
    1: ((5, 1), (6, 2), (7, 3), (8, 4), (7, 5), (6, 6), (5, 7)),
    2: ((3, 1), (2, 2), (1, 3), (0, 4), (1, 5), (2, 6), (3, 7)),
}
STANDARD_PIECES: Pieces = tuple(
    tuple(next((p for p, cells in START_CELLS.items() if (r, c) in cells), EMPTY)
          for c in range(SIZE))
    for r in range(SIZE))


@dataclass(frozen=True)
class Move:
    """A step or a capture from ``src`` to ``dst`` (told apart by the target)."""

    src: Cell
    dst: Cell

    def __str__(self) -> str:
        return f"{self.src[0]} {self.src[1]} {self.dst[0]} {self.dst[1]}"


@dataclass(frozen=True)
class Pass:
    """The only decision of a player who cannot move (the seed writes 0 0 0 0)."""

    def __str__(self) -> str:
        return "0 0 0 0"


PASS = Pass()
Decision = Union[Move, Pass]


def other(player: int) -> int:
    return 3 - player


def _first_piece(pieces: Pieces, start: Cell, direction: Cell) -> Cell | None:
    """The first occupied cell beyond ``start`` along ``direction``, past only
    empty cells; None when the board's edge comes first."""
    r, c = start[0] + direction[0], start[1] + direction[1]
    while on_board((r, c)):
        if pieces[r][c] != EMPTY:
            return (r, c)
        r, c = r + direction[0], c + direction[1]
    return None


def captures_from(pieces: Pieces, src: Cell) -> list[Move]:
    """Every capture by the piece on ``src``: along each line, the first piece
    behind it is its own (the backer) and the first piece ahead an enemy."""
    owner = pieces[src[0]][src[1]]
    moves = []
    for dr, dc in LINES:
        ahead = _first_piece(pieces, src, (dr, dc))
        if ahead is None or pieces[ahead[0]][ahead[1]] != other(owner):
            continue
        behind = _first_piece(pieces, src, (-dr, -dc))
        if behind is not None and pieces[behind[0]][behind[1]] == owner:
            moves.append(Move(src, ahead))
    return moves


def steps_from(pieces: Pieces, src: Cell) -> list[Move]:
    """Steps to empty neighbours: all 8 from an octagon, the 4 orthogonal from a square."""
    moves = []
    for dr, dc in STEPS[shape(src)]:
        dst = (src[0] + dr, src[1] + dc)
        if on_board(dst) and pieces[dst[0]][dst[1]] == EMPTY:
            moves.append(Move(src, dst))
    return moves


def pieces_of(pieces: Pieces, player: int) -> list[Cell]:
    return [cell for cell in CELLS if pieces[cell[0]][cell[1]] == player]


def moves_of(pieces: Pieces, player: int) -> list[Move]:
    """Every move of ``player``, pieces in row-major order, each piece's steps then captures."""
    return [move for src in pieces_of(pieces, player)
            for move in steps_from(pieces, src) + captures_from(pieces, src)]


def is_capture(pieces: Pieces, move: Move) -> bool:
    return pieces[move.dst[0]][move.dst[1]] != EMPTY


def position_key(pieces: Pieces, to_move: int) -> str:
    """The identity of a position for the repetition rule: pieces and mover."""
    return "".join(str(pieces[r][c]) for r, c in CELLS) + f":{to_move}"


@dataclass(frozen=True)
class TessellaState(GameState):
    pieces: Pieces
    to_move: int = 1
    captures: tuple[int, int] = (0, 0)
    ply: int = 0
    ply_cap: int = 300
    # Position keys since the last capture, the current one last.  A capture
    # removes a piece, so no earlier position can ever come back.
    seen: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.seen:
            object.__setattr__(self, "seen", (position_key(self.pieces, self.to_move),))

    # ----- queries
    def current_player(self) -> int | None:
        return None if self.is_terminal() else self.to_move

    @cached_property
    def _moves(self) -> list[Move]:
        return moves_of(self.pieces, self.to_move)

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
            return None if not self._moves else "you may pass (0 0 0 0) only when you cannot move"
        if not isinstance(decision, Move):
            return f"not a Tessella decision: {decision!r}"
        return self._move_problem(decision)

    def _move_problem(self, move: Move) -> str | None:
        for name, cell in (("from", move.src), ("to", move.dst)):
            if shape(cell) == "X":
                return f"{name} {cell[0]} {cell[1]} is off the board"
        (r1, c1), (r2, c2) = move.src, move.dst
        owner = self.pieces[r1][c1]
        if owner != self.to_move:
            what = "empty" if owner == EMPTY else f"player {owner}'s piece"
            return f"{r1} {c1} is {what}, not a piece of player {self.to_move}"
        target = self.pieces[r2][c2]
        if target == self.to_move:
            return f"{r2} {c2} holds your own piece"
        if target == EMPTY:
            if move in steps_from(self.pieces, move.src):
                return None
            reach = "8 neighbours" if shape(move.src) == "O" else "4 orthogonal neighbours"
            return f"a piece on {'an octagon' if shape(move.src) == 'O' else 'a square'}" \
                   f" steps to one of its {reach} only"
        if move in captures_from(self.pieces, move.src):
            return None
        return (f"cannot capture {r2} {c2}: it must be the first piece along a line from "
                f"{r1} {c1}, with your own piece first behind {r1} {c1} on that line")

    # ----- apply
    def apply(self, player: int, decision: Any) -> tuple["TessellaState", list[Event]]:
        if player != self.current_player():
            raise ValueError(f"player {player} is not to move")
        problem = self.illegal_reason(decision)
        if problem:
            raise ValueError(f"illegal decision {decision}: {problem}")
        events: list[Event] = []
        pieces, captures, seen = self.pieces, self.captures, self.seen
        if isinstance(decision, Pass):
            events.append({"type": "pass", "player": player})
        else:
            if is_capture(pieces, decision):
                captures = tuple(n + (p == player) for p, n in enumerate(captures, start=1))
                seen = ()
                events.append({"type": "capture", "player": player, "at": list(decision.dst),
                               "captures": captures[player - 1]})
            rows = [list(row) for row in pieces]
            rows[decision.src[0]][decision.src[1]] = EMPTY
            rows[decision.dst[0]][decision.dst[1]] = player
            pieces = tuple(tuple(row) for row in rows)
        mover = other(player)
        state = replace(self, pieces=pieces, to_move=mover, captures=captures,
                        ply=self.ply + 1, seen=seen + (position_key(pieces, mover),))
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
            if self.captures[player - 1] >= WIN_CAPTURES:
                return Outcome(player, ((player,), (other(player),)), scores,
                               f"player {player} captured {WIN_CAPTURES} pieces")
        if self.seen.count(self.seen[-1]) >= 3:
            reason = "threefold repetition"
        elif self.ply >= self.ply_cap:
            reason = f"ply cap ({self.ply_cap}) reached"
        elif not self._moves and not moves_of(self.pieces, other(self.to_move)):
            reason = "neither player can move"
        else:
            return None
        return Outcome(None, ((1, 2),), scores, reason)

    def outcome(self) -> Outcome:
        if self._end is None:
            raise ValueError("the game is not over")
        return self._end

    def scores(self) -> dict[int, float]:
        return {1: self.captures[0], 2: self.captures[1]}

    def to_json(self) -> dict[str, Any]:
        return {
            "pieces": {str(p): [list(cell) for cell in pieces_of(self.pieces, p)] for p in (1, 2)},
            "to_move": self.to_move,
            "captures": list(self.captures),
            "ply": self.ply,
            "ply_cap": self.ply_cap,
            "seen": list(self.seen),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TessellaState":
        rows = [[EMPTY] * SIZE for _ in range(SIZE)]
        for player, cells in data["pieces"].items():
            for r, c in cells:
                rows[r][c] = int(player)
        return cls(pieces=tuple(tuple(row) for row in rows), to_move=int(data["to_move"]),
                   captures=tuple(int(n) for n in data["captures"]), ply=int(data["ply"]),
                   ply_cap=int(data["ply_cap"]), seen=tuple(data["seen"]))
