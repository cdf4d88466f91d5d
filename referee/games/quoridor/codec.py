"""Quoridor's text formats: decision files, and the board drawing used for
Board.txt, step snapshots and board (start-position) files alike.

The drawing, with grid line k running above row k and left of column k::

    players: 2
    to move: 1
    ply: 0
    walls left: 1=10 2=10
         0   1   2   3   4   5   6   7   8
       +---+---+---+---+---+---+---+---+---+
     0 | .   .   .   .   2   .   .   .   . |
       +   +   +   +   +   +   +   +   +   +
     1 | .   .   .   . | .   .   .   .   . |
       +   +   +   +   |   +   +   +   +   +
     2 | .   .   .   . | .   .   .   .   . |
       +   +---+---+   +   +   +   +   +   +
    ...

A wall covers two segments and its middle crossing shows ``-`` (horizontal)
or ``|`` (vertical), so adjacent walls stay distinguishable: above, ``W 1 4 3 4``
and ``W 3 1 3 3``.  The drawing is the only source of pawns and walls; the
header lines carry what a drawing cannot show.
"""
from __future__ import annotations

import re
from typing import Callable, NamedTuple

from referee.core.errors import InputError
from referee.core.game import DecisionError
from referee.core.numbers import NumberError, OutOfRange, parse_int, quote
from referee.core.textgrid import decision_text, file_lines, several_lines

from .geometry import SIZE, square
from .rules import (
    DEFAULT_PLY_CAP, PASS, WALLS_PER_PLAYER, Decision, Move, QuoridorState, Wall,
    arrangement_problem, seats,
)

DECISION_HELP = ("one line: M r1 c1 r2 c2 (pawn from square r1,c1 to r2,c2), "
                 "W r1 c1 r2 c2 (wall between grid points r1,c1 and r2,c2), or PASS; "
                 "1/0 and True/False may replace M/W; the course's PlayerMove(id, True/False, "
                 "r1, c1, r2, c2) is read too")

_MOVE_WORDS = {"M": Move, "1": Move, "TRUE": Move, "W": Wall.of, "0": Wall.of, "FALSE": Wall.of}


MAX_COORDINATE = 99
"""The largest number a decision may hold: two digits, so ``W 8 8 8 10`` is
still read (and judged off the board by the rules), ``W 8 8 8 5000...`` is
malformed."""
_FIELDS = ("r1", "c1", "r2", "c2")
_DECISION_WORDS = re.compile(r"[^ \t\r,]+")


_COURSE_FORM = re.compile(r"\s*(?:PRE_MOVE\s+)?PlayerMove\s*\((.*)\)\s*", re.IGNORECASE | re.DOTALL)
_COURSE_FIELDS = ("playerId", "move", "r1", "c1", "r2", "c2")
_COURSE_FLAGS = {"TRUE": True, "1": True, "FALSE": False, "0": False}


def parse_course_move(text: str) -> tuple[int, Decision] | None:
    """The course's form ``PlayerMove(1, False, 7, 3, 7, 5)`` (its config's
    ``PRE_MOVE`` lines, what a module's ``move()`` returns; an optional
    leading ``PRE_MOVE`` is allowed) as (the playerId it names, the
    decision); None if ``text`` is not in that form.  DecisionError naming
    the field for a PlayerMove that is not a move on the board."""
    found = _COURSE_FORM.fullmatch(decision_text(text))
    if found is None:
        return None
    values = [v.strip() for v in found.group(1).split(",")]
    if len(values) != len(_COURSE_FIELDS):
        raise DecisionError(f"a PlayerMove has 6 values (playerId, move, r1, c1, r2, c2), got {len(values)}")
    try:
        player = parse_int(values[0], -MAX_COORDINATE, MAX_COORDINATE, "playerId")
    except NumberError as exc:
        raise DecisionError(str(exc)) from None
    flag = _COURSE_FLAGS.get(values[1].upper())
    if flag is None:
        raise DecisionError(f"move must be True (a pawn move) or False (a wall), got {quote(values[1])}")
    if all(v == "-1" for v in values[2:]):
        raise DecisionError("the starter's placeholder, not a move: move() must return a PlayerMove "
                            "on the board")
    try:
        numbers = [parse_int(word, 0, MAX_COORDINATE, name) for word, name in zip(values[2:], _FIELDS)]
    except NumberError as exc:
        raise DecisionError(str(exc)) from None
    return player, (Move if flag else Wall.of)(*numbers)


NOT_A_PLAYER_MOVE = "move() returned {}, not a PlayerMove"
"""What the module adapter writes for a ``move()`` that returned anything
but a PlayerMove (course_api.returned_decision): the verdict quotes it."""
_NOT_A_PLAYER_MOVE = re.compile(r"[ \t]*move\(\) returned .*, not a PlayerMove[ \t]*\r?\n?", re.DOTALL)


def parse_decision(text: str) -> Decision:
    course = parse_course_move(text)
    if course is not None:  # its playerId is the mover's business: the referee knows who moved
        return course[1]
    if _NOT_A_PLAYER_MOVE.fullmatch(decision_text(text)):  # (not read as an unknown word 'move()')
        raise DecisionError("expected a PlayerMove(playerId, move, r1, c1, r2, c2), "
                            "from Model.interface")
    lines = [words for words in map(_DECISION_WORDS.findall, decision_text(text).split("\n")) if words]
    if not lines:
        raise DecisionError(f"empty decision; expected {DECISION_HELP}")
    if len(lines) > 1:
        raise several_lines(text, "'M r1 c1 r2 c2', 'W r1 c1 r2 c2' or 'PASS'") or DecisionError(
            f"expected one line, got {len(lines)}")
    words = lines[0]
    kind = words[0].upper()
    if kind == "PASS":
        if len(words) > 1:
            raise DecisionError(f"PASS takes nothing after it, got {quote(' '.join(words[1:]))}")
        return PASS
    make = _MOVE_WORDS.get(kind)
    if make is None:
        raise DecisionError(f"unknown decision {quote(words[0])}: "
                            "expected M, W or PASS (or 1/0, True/False)")
    numbers = words[1:]
    if len(numbers) != 4:
        raise DecisionError(f"{words[0]} needs 4 integers r1 c1 r2 c2, got {len(numbers)}")
    try:
        values = [parse_int(word, 0, MAX_COORDINATE, name) for word, name in zip(numbers, _FIELDS)]
    except NumberError as exc:
        raise DecisionError(str(exc)) from None
    return make(*values)


# ------------------------------------------------------------------ drawing
Paint = Callable[[str, str], str]
"""``paint(kind, text)``: how the renderer colours a piece of the drawing
(kinds: "pawn1".."pawn4", "wall"); the plain files use no paint."""


def _plain(kind: str, text: str) -> str:
    return text


MARGIN = 3


def header_lines(state: QuoridorState) -> list[str]:
    walls = " ".join(f"{p}={state.walls_left[p - 1]}" for p in seats(state.players))
    return [
        f"players: {state.players}",
        f"to move: {state.turn if state.turn is not None else '-'}",
        f"ply: {state.ply}",
        f"walls left: {walls}",
    ]


def drawing_lines(state: QuoridorState, paint: Paint = _plain) -> list[str]:
    """The grid with column labels above and below."""
    up, down, left, right = state.opens
    h_mid, v_mid = set(), set()
    for w in state.wall_list():
        (h_mid if w.r1 == w.r2 else v_mid).add(((w.r1 + w.r2) // 2, (w.c1 + w.c2) // 2))
    pawn_at = {sq: p for p, sq in enumerate(state.pawns, 1) if sq is not None}
    wall = lambda text: paint("wall", text)  # noqa: E731
    labels = (" " * MARGIN + "".join(f"  {c} " for c in range(SIZE))).rstrip()
    lines = [labels]
    for g in range(SIZE + 1):
        parts = []
        for k in range(SIZE + 1):
            if 0 < g < SIZE and 0 < k < SIZE and (g, k) in h_mid:
                parts.append(wall("-"))
            elif 0 < g < SIZE and 0 < k < SIZE and (g, k) in v_mid:
                parts.append(wall("|"))
            else:
                parts.append("+")
            if k < SIZE:
                closed = g in (0, SIZE) or not up >> square(g, k) & 1
                parts.append(wall("---") if closed and 0 < g < SIZE else "---" if closed else "   ")
        lines.append(" " * MARGIN + "".join(parts))
        if g == SIZE:
            break
        parts = [f"{g:>2} ", "|"]
        for c in range(SIZE):
            p = pawn_at.get(square(g, c))
            parts.append(f" {paint(f'pawn{p}', str(p))} " if p else " . ")
            if c == SIZE - 1:
                parts.append("|")
            else:
                parts.append(wall("|") if not right >> square(g, c) & 1 else " ")
        lines.append("".join(parts))
    lines.append(labels)
    return lines


LEGEND = [
    "# W r1 c1 r2 c2 names a wall by its grid endpoints: grid line k runs above row k",
    "# and left of column k; '-' or '|' on a crossing marks the middle of a wall.",
]


def board_text(state: QuoridorState) -> str:
    return "\n".join([*header_lines(state), *drawing_lines(state), *LEGEND]) + "\n"


# ------------------------------------------------------------------ parsing
_HEADER = re.compile(r"[ \t]*([A-Za-z]+(?: [A-Za-z]+)*)[ \t]*:(.*)")  # no backtracking
_LABELS = re.compile(r"[ \t]*" + r"[ \t]+".join(map(str, range(SIZE))) + r"[ \t]*")
HEADERS = ("players", "to move", "ply", "walls left")
MAX_PLY = 10**6
"""The largest ``ply`` a board file may claim (the ply cap must lie above it)."""
DRAWING_LINES = 2 * SIZE + 1


class _BoardReader:
    """Reads the headers and the drawing; every problem names the file, line
    and column.  Column labels may stand right above and right below the
    drawing; after the drawing only comments may follow."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.headers: dict[str, tuple[str, int]] = {}
        self.grid: list[tuple[int, str]] = []  # (line number, text)
        self.last_line: int | None = None
        labels = 0
        for number, line in file_lines(text, source):
            self.last_line = number
            stripped = line.strip(" \t")
            if not stripped or stripped.startswith("#"):
                continue
            if _LABELS.fullmatch(line):
                above = not self.grid and labels == 0
                below = len(self.grid) == DRAWING_LINES and labels <= 1
                if not (above or below):
                    self.fail("column labels belong right above or right below the drawing", number)
                labels += 1
                continue
            if len(self.grid) == DRAWING_LINES:
                self.fail("text after the drawing: only '#' comments and the column labels may "
                          "follow it", number, len(line) - len(line.lstrip(" \t")) + 1)
            header = _HEADER.fullmatch(line) if not self.grid else None
            if header:
                key = header.group(1).lower()
                if key not in HEADERS:
                    self.fail(f"unknown header {quote(key)}: the headers are {', '.join(HEADERS)}",
                              number)
                if key in self.headers:
                    self.fail(f"'{key}' given twice", number)
                self.headers[key] = (header.group(2).strip(" \t"), number)
            else:
                self.grid.append((number, line.rstrip(" \t")))

    def fail(self, message: str, line: int | None = None, column: int | None = None):
        raise InputError(message, self.source, line, column)

    # ---- headers
    def header_int(self, key: str, default: int | None, low: int, high: int) -> int | None:
        if key not in self.headers:
            return default
        value, line = self.headers[key]
        if key == "to move" and value == "-":
            self.fail("the game in this file is over (to move: -)", line)
        try:
            return parse_int(value, low, high, key)
        except OutOfRange as exc:
            self.fail(str(exc), line)
        except NumberError as exc:
            self.fail(f"'{key}': {exc}", line)

    def walls_left(self, players: int) -> dict[int, int]:
        left = {p: WALLS_PER_PLAYER[players] for p in seats(players)}
        if "walls left" not in self.headers:
            return left
        value, line = self.headers["walls left"]
        given = set()
        for item in re.findall(r"[^ \t]+", value):
            player, sep, count_text = item.partition("=")
            if not sep or player not in map(str, left):
                self.fail(f"'walls left' expects items like 1=10 for players 1..{players}, "
                          f"got {quote(item)}", line)
            if player in given:
                self.fail(f"'walls left' gives player {player} twice", line)
            given.add(player)
            try:
                count = parse_int(count_text, 0, WALLS_PER_PLAYER[players], "walls")
            except OutOfRange:
                self.fail(f"player {player} cannot have {count_text} walls left "
                          f"(at most {WALLS_PER_PLAYER[players]} with {players} players)", line)
            except NumberError as exc:
                self.fail(f"'walls left' for player {player}: {exc}", line)
            left[int(player)] = count
        return left

    # ---- drawing
    def drawing(self) -> tuple[dict[int, tuple[int, int]], list[Wall]]:
        rows = DRAWING_LINES
        if len(self.grid) != rows:
            self.fail(f"the drawing must have {rows} lines (10 grid lines, 9 rows of squares), "
                      f"found {len(self.grid)}", self.last_line)
        first_line, first = self.grid[0]
        margin = self.margin = first.find("+")
        if margin < 0:
            self.fail("the drawing's first line must be the top border '+---+---+...'", first_line)
        width = 4 * SIZE + 1
        h_seg, v_seg, h_mid, v_mid = set(), set(), {}, {}
        pawns: dict[int, tuple[int, int]] = {}
        for index, (number, line) in enumerate(self.grid):
            body = line[margin:].ljust(width)
            if len(body) > width:
                self.fail("text after the right border", number, self._column(width))
            if index % 2 == 0:
                g = index // 2
                for k in range(SIZE + 1):
                    char = body[4 * k]
                    interior = 0 < g < SIZE and 0 < k < SIZE
                    if char == "-" and interior:
                        h_mid[(g, k)] = (number, self._column(4 * k))
                    elif char == "|" and interior:
                        v_mid[(g, k)] = (number, self._column(4 * k))
                    elif char != "+":
                        self.fail(f"expected '+' at a crossing, got {char!r}", number, self._column(4 * k))
                    if k == SIZE:
                        break
                    segment = body[4 * k + 1:4 * k + 4]
                    if g in (0, SIZE) and segment != "---":
                        self.fail("the border must be '---' on every square", number, self._column(4 * k + 1))
                    if segment == "---" and 0 < g < SIZE:
                        h_seg.add((g, k))
                    elif segment not in ("---", "   "):
                        self.fail(f"expected '---' (wall) or spaces between crossings, got {segment!r}",
                                  number, self._column(4 * k + 1))
            else:
                r = index // 2
                for k in range(SIZE + 1):
                    char = body[4 * k]
                    if k in (0, SIZE) and char != "|":
                        self.fail("the side border must be '|'", number, self._column(4 * k))
                    if 0 < k < SIZE and char == "|":
                        v_seg.add((r, k))
                    elif char not in " |":
                        self.fail(f"expected '|' (wall) or a space between squares, got {char!r}",
                                  number, self._column(4 * k))
                    if k == SIZE:
                        break
                    cell = body[4 * k + 1:4 * k + 4]
                    if cell[0] != " " or cell[2] != " ":
                        self.fail(f"a square is drawn ' . ' or ' N ', got {cell!r}", number, self._column(4 * k + 1))
                    if cell[1] in "1234":
                        p = int(cell[1])
                        if p in pawns:
                            self.fail(f"pawn {p} appears twice", number, self._column(4 * k + 2))
                        pawns[p] = (r, k)
                    elif cell[1] != ".":
                        self.fail(f"a square holds '.' or a pawn 1-4, got {cell[1]!r}", number, self._column(4 * k + 2))
        walls = self._walls(h_seg, v_seg, h_mid, v_mid)
        return pawns, walls

    def _walls(self, h_seg, v_seg, h_mid, v_mid) -> list[Wall]:
        walls = []
        for (g, k), (line, column) in sorted(h_mid.items()):
            halves = [(g, k - 1), (g, k)]
            if not all(h in h_seg for h in halves):
                self.fail("a '-' wall middle needs '---' on both sides", line, column)
            h_seg.difference_update(halves)
            walls.append(Wall(g, k - 1, g, k + 1))
        for (g, k), (line, column) in sorted(v_mid.items()):
            halves = [(g - 1, k), (g, k)]
            if not all(v in v_seg for v in halves):
                self.fail("a '|' wall middle needs '|' above and below", line, column)
            v_seg.difference_update(halves)
            walls.append(Wall(g - 1, k, g + 1, k))
        for g, k in sorted(h_seg):
            line = self.grid[2 * g][0]
            self.fail("this wall segment belongs to no wall: a wall is two squares long with "
                      "'-' on its middle crossing (walls may not overlap)", line, self._column(4 * k + 1))
        for r, k in sorted(v_seg):
            line = self.grid[2 * r + 1][0]
            self.fail("this wall segment belongs to no wall: a wall is two squares long with "
                      "'|' on its middle crossing (walls may not overlap)", line, self._column(4 * k))
        return walls

    def _column(self, offset: int) -> int:
        return self.margin + offset + 1


def parse_board(text: str, source: str) -> QuoridorState:
    """A start position from a drawing; the result's ply cap is the default
    (the game replaces it with the match's setting)."""
    reader = _BoardReader(text, source)
    pawns, walls = reader.drawing()
    if not pawns:
        reader.fail("the drawing has no pawn", reader.grid[0][0])
    guess = 4 if max(pawns) > 2 else max(pawns)
    players = reader.header_int("players", guess, 0, 99)
    if players not in WALLS_PER_PLAYER:
        reader.fail(f"players must be 1, 2 or 4, got {players}", reader.headers["players"][1])
    stray = [p for p in pawns if p > players]
    if stray:
        reader.fail(f"pawn {stray[0]} on the board, but the game has {players} player(s)",
                    reader.headers["players"][1])
    left = reader.walls_left(players)
    turn = reader.header_int("to move", min(pawns), 1, 4)
    if turn not in pawns:
        line = reader.headers.get("to move", ("", None))[1]
        reader.fail(f"player {turn} is to move but has no pawn on the board", line)
    ply = reader.header_int("ply", 0, 0, MAX_PLY)
    state = QuoridorState.arrange(players, pawns, walls, left, turn, ply, DEFAULT_PLY_CAP)
    problem = arrangement_problem(state)
    if problem:
        reader.fail(problem)
    return state


class Premove(NamedTuple):
    decision: Decision
    line: int  # in its file, for error messages
    player: int | None  # the playerId a course-form pre-move names (None: ours names none)
    text: str


def parse_premoves(text: str, source: str) -> list[Premove]:
    """Pre-moves: decisions separated by ';' or newlines, '#' starts a comment;
    ours (``M 8 4 7 4``) or the course config's (``PRE_MOVE
    PlayerMove(1,False,7,3,7,5)``, the ``PRE_MOVE`` word optional)."""
    found = []
    for number, line in file_lines(text, source):
        for part in line.split("#", 1)[0].split(";"):
            if part.strip(" \t"):
                try:
                    course = parse_course_move(part)
                    decision = course[1] if course else parse_decision(part)
                except DecisionError as exc:
                    raise InputError(f"pre-move {quote(part.strip(' '))}: {exc}",
                                     source, number) from None
                found.append(Premove(decision, number, course[0] if course else None, part.strip(" \t")))
    return found

