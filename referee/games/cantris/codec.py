"""Cantris file formats: Board.txt / snapshots (whitespace-separated integers,
one board row per line, row 0 at the top, loadable by ``numpy.loadtxt``)."""
from __future__ import annotations

from referee.core.errors import InputError
from referee.core.textgrid import word_rows

from .rules import Board

STANDARD_SIZES = {(6, 3), (8, 4), (10, 5)}
MIN_ROWS = MIN_COLS = 3


def _tile(word: str, source: str, line: int, column: int) -> int:
    try:
        value = int(word)
    except ValueError:
        raise InputError(f"{word!r} is not an integer", source, line, column) from None
    if value == 0:
        raise InputError("empty cell (0): a board file must be full", source, line, column)
    if not 1 <= value <= 9:
        raise InputError(f"tile number {value} is outside 1..9", source, line, column)
    return value


def parse_board(text: str, source: str) -> Board:
    """A board, or an InputError naming the line and column of the problem.

    Blank lines and ``#`` comments are skipped, as ``numpy.loadtxt`` does."""
    rows: list[tuple[int, ...]] = []
    width_line = 0
    for number, words in word_rows(text):
        row = tuple(_tile(word, source, number, column) for column, word in words)
        if not rows:
            width_line = number
        elif len(row) != len(rows[0]):
            raise InputError(f"row has {len(row)} numbers but line {width_line} has {len(rows[0])}",
                             source, number)
        rows.append(row)
    if not rows:
        raise InputError("the board file is empty", source)
    if len(rows) < MIN_ROWS or len(rows[0]) < MIN_COLS:
        raise InputError(f"board is {len(rows)}x{len(rows[0])}; it needs at least "
                         f"{MIN_ROWS} rows and {MIN_COLS} columns", source)
    return tuple(rows)


def board_text(board: Board) -> str:
    return "".join(" ".join(str(v) for v in row) + "\n" for row in board)
