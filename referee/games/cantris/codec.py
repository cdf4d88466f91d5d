"""Cantris file formats: Board.txt / snapshots (whitespace-separated integers,
one board row per line, row 0 at the top, loadable by ``numpy.loadtxt``) and
the decision ``r c``."""
from __future__ import annotations

from referee.core.errors import InputError
from referee.core.game import DecisionError
from referee.core.numbers import NumberError, integer, parse_int, quote
from referee.core.textgrid import decision_words, several_lines, word_rows

from .rules import Board, Removal

STANDARD_SIZES = {(6, 3), (8, 4), (10, 5)}
MIN_ROWS = MIN_COLS = 3
MAX_INDEX = 99
"""The largest row or column a decision may name: two digits, far above any
board; a larger number is malformed rather than merely off the board."""
def _tile(word: str, source: str, line: int, column: int) -> int:
    try:
        value = integer(word)
    except NumberError as exc:
        raise InputError(str(exc), source, line, column) from None
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
    for number, words in word_rows(text, source):
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


def parse_decision(text: str) -> Removal:
    """``r c``; whether the cell holds a tile is a question of legality."""
    words = decision_words(text)
    if len(words) != 2:
        raise several_lines(text, "'r c'") or DecisionError(
            f"expected two integers 'r c'; got {len(words)} word{'' if len(words) == 1 else 's'}: "
            f"{quote(text.strip())}")
    try:
        row, col = (parse_int(w, 0, MAX_INDEX, name) for w, name in zip(words, ("row", "column")))
    except NumberError as exc:
        raise DecisionError(f"expected two integers 'r c', got {quote(text.strip())}: {exc}") from None
    return Removal(row, col)
