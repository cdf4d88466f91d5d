"""Black Hole Escape text formats: the 5x5 matrix (Board.txt, snapshots and
start files) and the decision file."""
from __future__ import annotations

from referee.core.errors import InputError
from referee.core.game import DecisionError
from referee.core.numbers import NumberError, OutOfRange, parse_int, quote
from referee.core.textgrid import decision_words, several_lines, square_rows

from .rules import (DIRECTIONS, HOLE, HOLE_MARK, MAX_SHIPS, PASS, SIZE, Cell, Decision, Grid,
                    Move, slide_end)

DECISION_HELP = ("'r1 c1 r2 c2' (from, to: where the slide stops), 'r c D' (D one of U D L R) "
                 "or 'pass' when no ship can move; rows and columns 0-4")


def parse_grid(text: str, source: str) -> Grid:
    """A validated start position or snapshot; InputError names where it is wrong."""
    grid = []
    counts = {1: 0, 2: 0}
    for r, (line, words) in enumerate(square_rows(text, source, SIZE)):
        row = []
        for c, (column, word) in enumerate(words):
            if word not in ("0", "1", "2", "3"):
                raise InputError(f"bad cell {quote(word)}: expected 0 (empty), 1 or 2 (ships) "
                                 "or 3 (the black hole)", source, line, column)
            value = int(word)
            if value == HOLE_MARK and (r, c) != HOLE:
                raise InputError(f"the black hole (3) must be at the centre {HOLE[0]} {HOLE[1]},"
                                 f" not at {r} {c}", source, line, column)
            if (r, c) == HOLE and value != HOLE_MARK:
                raise InputError(f"the centre {r} {c} must hold the black hole (3), "
                                 f"found {word}", source, line, column)
            if value in counts:
                counts[value] += 1
                if counts[value] > MAX_SHIPS:
                    raise InputError(f"player {value} has more than {MAX_SHIPS} ships",
                                     source, line, column)
            row.append(value)
        grid.append(tuple(row))
    return tuple(grid)


def grid_text(grid: Grid) -> str:
    return "".join(" ".join(str(v) for v in row) + "\n" for row in grid)


def _malformed(text: str, why: str = "") -> DecisionError:
    return DecisionError(f"expected {DECISION_HELP}; got {quote(text.strip())}"
                         + (f": {why}" if why else ""))


def _cell(words: list[str], text: str) -> Cell:
    values = []
    for name, word in zip(("row", "column"), words):
        try:
            values.append(parse_int(word, 0, SIZE - 1, name, f"is off the board (0-{SIZE - 1})"))
        except OutOfRange as exc:
            raise DecisionError(str(exc)) from None
        except NumberError as exc:
            raise _malformed(text, str(exc)) from None
    return (values[0], values[1])


def parse_decision(grid: Grid, text: str) -> Decision:
    words = decision_words(text)
    if [w.lower() for w in words] == ["pass"]:
        return PASS
    if len(words) == 4:
        return Move(_cell(words[:2], text), _cell(words[2:], text))
    if len(words) == 3 and words[2].upper() in DIRECTIONS:
        src = _cell(words[:2], text)
        return Move(src, slide_end(grid, src, DIRECTIONS[words[2].upper()]))
    raise several_lines(text, DECISION_HELP) or _malformed(text)
