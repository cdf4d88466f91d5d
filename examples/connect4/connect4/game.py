"""Connect Four as a referee game: settings, the board and decision files,
what each player sees.  The rules themselves are in rules.py."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.core.errors import InputError
from referee.core.game import DecisionError, Game, Setup
from referee.core.textgrid import decision_words, word_rows

from .rules import ConnectFourState, Grid, first_line

HOME = Path(__file__).resolve().parent
CELL = {".": 0, "1": 1, "2": 2}
SYMBOL = {0: ".", 1: "1", 2: "2"}
LIMITS = (2, 16)
"""The fewest and most rows (and columns) a board may have."""


def parse_grid(text: str, source: str) -> Grid:
    """Rows top to bottom of ``.``, ``1`` and ``2``; pieces rest on pieces
    (no cell under a piece is empty) and player 1 moved first."""
    rows = word_rows(text, source)
    if not LIMITS[0] <= len(rows) <= LIMITS[1]:
        raise InputError(f"a board has {LIMITS[0]} to {LIMITS[1]} rows, found {len(rows)}",
                         source, rows[-1][0] if rows else None)
    width = len(rows[0][1])
    grid = []
    for r, (line, words) in enumerate(rows):
        if len(words) != width:
            raise InputError(f"row {r} has {len(words)} cells, the first row has {width}",
                             source, line, words[min(width, len(words) - 1)][0])
        for column, word in words:
            if word not in CELL:
                raise InputError(f"cell {word!r} is not '.', '1' or '2'", source, line, column)
        grid.append(tuple(CELL[w] for _, w in words))
    if not LIMITS[0] <= width <= LIMITS[1]:
        raise InputError(f"a board has {LIMITS[0]} to {LIMITS[1]} columns, found {width}", source,
                         rows[0][0])
    for r in range(len(grid) - 1):
        for c in range(width):
            if grid[r][c] and not grid[r + 1][c]:
                line, words = rows[r]
                raise InputError(f"the piece in row {r}, column {c} floats over an empty cell",
                                 source, line, words[c][0])
    ones = sum(row.count(1) for row in grid)
    twos = sum(row.count(2) for row in grid)
    if ones - twos not in (0, 1):
        raise InputError(f"player 1 has {ones} pieces and player 2 {twos}: player 1 moves first, "
                         "so they have as many or one more", source)
    return tuple(grid)


class ConnectFour(Game):
    name = "connect4"
    title = "Connect Four"
    settings = {"connect": 4}
    decision_help = "one column number, 0 at the left (e.g. 3)"
    home = HOME

    def default_board_text(self, variant: str, players: int) -> str:
        return (HOME / "boards" / "standard.txt").read_text(encoding="utf-8")

    def parse_board(self, text: str, source: str, variant: str) -> Grid:
        return parse_grid(text, source)

    def board_warnings(self, board: Grid) -> list[str]:
        found = first_line(board, 4)
        if found:
            return [f"player {found[0]} already has four in a row: the game is over at once"]
        return []

    def initial_state(self, setup: Setup) -> ConnectFourState:
        grid = setup.board if setup.board is not None else parse_grid(
            self.default_board_text(setup.variant, setup.players), "<default board>")
        connect = int(setup.settings.get("connect", 4))
        ones = sum(row.count(1) for row in grid)
        twos = sum(row.count(2) for row in grid)
        found = first_line(grid, connect)
        return ConnectFourState(grid, 1 if ones == twos else 2, connect,
                                found[0] if found else None, found[1] if found else ())

    def parse_decision(self, state: ConnectFourState, text: str) -> int:
        words = decision_words(text)
        if len(words) != 1:
            raise DecisionError(f"expected one column number, got {len(words)} words")
        word = words[0]
        if not (word.isascii() and word.lstrip("-").isdigit() and len(word) <= 4):
            raise DecisionError(f"expected a column number, got {word[:20]!r}")
        return int(word)

    def board_text(self, state: ConnectFourState, viewer: int | None) -> str:
        return "".join(" ".join(SYMBOL[v] for v in row) + "\n" for row in state.grid)

    def render(self, state: ConnectFourState, viewer: int | None = None, color: bool = False) -> str:
        paint = {1: "\x1b[31m1\x1b[0m", 2: "\x1b[33m2\x1b[0m"} if color else {}
        lines = [" ".join(str(c % 10) for c in range(state.cols))]
        for row in state.grid:
            lines.append(" ".join(paint.get(v, SYMBOL[v]) for v in row))
        return "\n".join(lines) + "\n"

    def state_from_json(self, data: dict[str, Any]) -> ConnectFourState:
        return ConnectFourState.from_json(data)
