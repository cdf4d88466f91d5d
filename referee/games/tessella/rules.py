"""Tessella: geometry, positions, decisions, legal moves and apply.

Rules: shared/rules/tessella.md.  A state is a value (a frozen dataclass);
legal moves and the outcome are computed once on first use and cached.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Union

from referee.core.alternating import AlternatingState, other
from referee.core.game import Event

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


def _first_piece(pieces: Pieces, start: Cell, direction: Cell) -> Cell | None:
    """The first occupied cell beyond ``start`` along ``direction``, past only
    empty cells; None when the board's edge comes first."""
    for r, c in RAYS[start][direction]:
        if pieces[r][c] != EMPTY:
            return (r, c)
    return None


def _ray(start: Cell, direction: Cell) -> tuple[Cell, ...]:
    cells = []
    r, c = start[0] + direction[0], start[1] + direction[1]
    while on_board((r, c)):
        cells.append((r, c))
        r, c = r + direction[0], c + direction[1]
    return tuple(cells)


RAYS: dict[Cell, dict[Cell, tuple[Cell, ...]]] = {
    cell: {d: _ray(cell, d) for d in LINES} for cell in CELLS}
"""Per cell and line direction, the cells beyond it to the board's edge:
move generation is the inner loop of a search, so the geometry is computed once."""
RAY_PAIRS: dict[Cell, tuple[tuple[tuple[Cell, ...], tuple[Cell, ...]], ...]] = {
    cell: tuple((RAYS[cell][(dr, dc)], RAYS[cell][(-dr, -dc)]) for dr, dc in LINES) for cell in CELLS}
"""Per cell, (ahead, behind) rays for each line direction in LINES order."""
NEIGHBOURS: dict[Cell, tuple[Cell, ...]] = {
    cell: tuple((cell[0] + dr, cell[1] + dc) for dr, dc in STEPS[shape(cell)]
                if on_board((cell[0] + dr, cell[1] + dc)))
    for cell in CELLS}
"""The cells a piece on each cell may step to, in STEPS order."""


def captures_from(pieces: Pieces, src: Cell) -> list[Move]:
    """Every capture by the piece on ``src``: along each line, the first piece
    behind it is its own (the backer) and the first piece ahead an enemy."""
    owner = pieces[src[0]][src[1]]
    enemy = other(owner)
    moves = []
    for ahead, behind in RAY_PAIRS[src]:
        for r, c in ahead:
            found = pieces[r][c]
            if found != EMPTY:
                break
        else:
            continue
        if found != enemy:
            continue
        for br, bc in behind:
            backer = pieces[br][bc]
            if backer != EMPTY:
                if backer == owner:
                    moves.append(Move(src, (r, c)))
                break
    return moves


def steps_from(pieces: Pieces, src: Cell) -> list[Move]:
    """Steps to empty neighbours: all 8 from an octagon, the 4 orthogonal from a square."""
    return [Move(src, dst) for dst in NEIGHBOURS[src] if pieces[dst[0]][dst[1]] == EMPTY]


def pieces_of(pieces: Pieces, player: int) -> list[Cell]:
    return [cell for cell in CELLS if pieces[cell[0]][cell[1]] == player]


def moves_of(pieces: Pieces, player: int) -> list[Move]:
    """Every move of ``player``, pieces in row-major order, each piece's steps then captures."""
    moves: list[Move] = []
    for src in CELLS:
        if pieces[src[0]][src[1]] == player:
            moves += steps_from(pieces, src)
            moves += captures_from(pieces, src)
    return moves


def is_capture(pieces: Pieces, move: Move) -> bool:
    return pieces[move.dst[0]][move.dst[1]] != EMPTY


@dataclass(frozen=True, kw_only=True)
class TessellaState(AlternatingState):
    pieces: Pieces
    captures: tuple[int, int] = (0, 0)
    ply_cap: int = 300

    pass_decision = PASS
    pass_refused = "you may pass (0 0 0 0) only when you cannot move"
    win_score = WIN_CAPTURES
    win_reason = "player {player} captured {score} pieces"

    @property
    def tally(self) -> tuple[int, int]:
        return self.captures

    def moves_for(self, player: int) -> list[Move]:
        return moves_of(self.pieces, player)

    def board_key(self) -> str:
        return "".join(str(self.pieces[r][c]) for r, c in CELLS)

    def move_problem(self, move: Any) -> str | None:
        if not isinstance(move, Move):
            return f"not a Tessella decision: {move!r}"
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

    def after_move(self, player: int, move: Move) -> tuple["TessellaState", list[Event]]:
        captures, events = self.captures, []
        if is_capture(self.pieces, move):
            captures = self.point_for(player)
            events.append({"type": "capture", "player": player, "at": list(move.dst),
                           "captures": captures[player - 1]})
        rows = [list(row) for row in self.pieces]
        rows[move.src[0]][move.src[1]] = EMPTY
        rows[move.dst[0]][move.dst[1]] = player
        return replace(self, pieces=tuple(tuple(row) for row in rows), captures=captures), events

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
