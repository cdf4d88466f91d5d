"""Board and decision files as text: the one place that decides what a file's lines and
words are, so every game reads Windows and Unix files alike and every error
points at the line and column an editor shows.

- A UTF-8 byte-order mark at the very start (Notepad writes one) is dropped;
  it belongs to line 1, so line numbers are the editor's.
- Lines end with LF or CR LF; nothing else splits a line (``str.splitlines``
  also splits on form feeds and Unicode separators, which would make line
  numbers disagree with the editor's).
- Control characters (NUL, a lone CR, a BOM elsewhere...) are refused where
  they stand, comments included: they are never what the author meant.
- Words are separated by ASCII spaces and tabs only.
- A file over :data:`MAX_FILE_CHARS` is refused before any parsing: board
  files are a few hundred bytes, and no parser then does work in proportion
  to a hostile file.

Blank lines and ``#`` comments are skipped (as ``numpy.loadtxt`` does).
"""
from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING

from .errors import InputError
from .game import DecisionError
from .numbers import quote

if TYPE_CHECKING:  # a built-in player imports this module, and never needs pathlib
    from pathlib import Path

BOM = "\ufeff"
MAX_DECISION_CHARS = 1024
"""The longest decision text parsed: every game's decision fits in a line."""
MAX_FILE_CHARS = 64 * 1024
"""The largest board (or pre-moves) file read: the same cap as a decision
file, a hundred times the largest board."""

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\ufeff]")
_WORD = re.compile(r"[^ \t]+")
_DECISION_WORD = re.compile(r"[^ \t\r\n]+")
_CHAR_NAMES = {"\x00": "NUL character", "\r": "carriage return not followed by a line feed",
               BOM: "byte-order mark (U+FEFF; only allowed at the very start of the file)"}

Words = list[tuple[int, str]]
"""The words of one line, each with its 1-based column."""


def strip_bom(text: str) -> str:
    """``text`` without the byte-order mark an editor may have put first."""
    return text[1:] if text.startswith(BOM) else text


def file_lines(text: str, source: str | None) -> list[tuple[int, str]]:
    """Every line as (1-based line number, text without its line ending);
    InputError for an oversized file or a control character."""
    if len(text) > MAX_FILE_CHARS:
        raise InputError(f"the file has {len(text)} characters; the referee reads files of at "
                         f"most {MAX_FILE_CHARS}", source)
    lines = strip_bom(text).split("\n")
    if lines[-1] == "":
        lines.pop()
    numbered = []
    for number, line in enumerate(lines, start=1):
        if line.endswith("\r"):
            line = line[:-1]
        bad = _CONTROL.search(line)
        if bad:
            char = bad.group()
            name = _CHAR_NAMES.get(char, f"control character U+{ord(char):04X}")
            raise InputError(f"unexpected {name}", source, number, bad.start() + 1)
        numbered.append((number, line))
    return numbered


def words(line: str) -> Words:
    """The words of one line before any ``#`` comment, with their columns."""
    body = line.split("#", 1)[0]
    return [(m.start() + 1, m.group()) for m in _WORD.finditer(body)]


def decision_text(text: str) -> str:
    """A decision file's text without a leading BOM; DecisionError if it is
    longer than any decision could be (refused before any splitting)."""
    if len(text) > MAX_DECISION_CHARS:
        raise DecisionError(f"the decision has {len(text)} characters; a decision has at most "
                            f"{MAX_DECISION_CHARS}")
    return strip_bom(text)


def decision_words(text: str) -> list[str]:
    """The words of a decision file, split on ASCII spaces, tabs and line
    ends only (anything else stays in a word and makes it malformed, as it
    would for the C++ SDK's reader)."""
    return _DECISION_WORD.findall(decision_text(text))


def several_lines(text: str, expected: str) -> DecisionError | None:
    """The error for a malformed decision whose words are on more than one
    line (a note after the move, two moves), else None: a count of words
    ("got 7 words") hides that the file holds more than the decision.
    ``expected`` is what the one line should be."""
    lines = [line for line in decision_text(text).split("\n") if _DECISION_WORD.search(line)]
    if len(lines) < 2:
        return None
    return DecisionError(f"expected one line {expected}; got {len(lines)} lines: {quote(text.strip())}")


def word_rows(text: str, source: str | None) -> list[tuple[int, Words]]:
    """Every line that has words, as (1-based line number, its words)."""
    rows = []
    for number, line in file_lines(text, source):
        found = words(line)
        if found:
            rows.append((number, found))
    return rows


def square_rows(text: str, source: str, size: int) -> list[tuple[int, Words]]:
    """The ``size`` rows of ``size`` words of a square board; InputError names
    where the shape is wrong."""
    rows = word_rows(text, source)
    if len(rows) != size:
        line = rows[size][0] if len(rows) > size else (rows[-1][0] if rows else None)
        raise InputError(f"expected {size} rows of {size} cells, found {len(rows)} rows",
                         source, line)
    for r, (line, found) in enumerate(rows):
        if len(found) != size:
            column = found[size][0] if len(found) > size else found[-1][0]
            raise InputError(f"row {r} has {len(found)} cells, expected {size}",
                             source, line, column)
    return rows


def decode(data: bytes, source: str) -> str:
    """A board file's bytes as text; InputError naming the line and column
    of the first byte that is not UTF-8."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError("the file is UTF-16 (Notepad's 'Unicode'); save it as UTF-8", source, 1, 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[line_start:exc.start].decode("utf-8", "replace")) + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8",
                         source, data.count(b"\n", 0, exc.start) + 1, column) from None


def read_board_file(path: Path | str, kind: str = "board file") -> str:
    """A board file's text (or another input file's, a ``kind`` such as a
    pre-moves file, held to the same rules).  At most four bytes per
    character are read (the most UTF-8 needs), so a 10 MB file is refused
    without reading it all.  It must be a regular file: a fifo is opened
    without blocking and refused, so that ``--board`` on one is an error and
    never a hang."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            special = "a directory" if stat.S_ISDIR(mode) else "a fifo" if stat.S_ISFIFO(mode) else \
                "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file"
            raise InputError(f"not a regular file ({special}); give the path of a {kind}", str(path))
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(4 * MAX_FILE_CHARS + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    finally:
        os.close(fd)
    if len(data) > 4 * MAX_FILE_CHARS:  # UTF-8 has at most 4 bytes a character: too many of them
        raise InputError(f"the file has more than {MAX_FILE_CHARS} characters; the referee reads files "
                         f"of at most {MAX_FILE_CHARS}", str(path))
    return decode(data, str(path))
