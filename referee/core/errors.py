"""Errors that reach the user as one line, never as a traceback."""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # a built-in player imports this module: no pathlib at its start
    from pathlib import Path


class InputError(Exception):
    """Bad input from a file or the command line.

    Rendered as ``file:line:col: message`` (the parts that are known), so an
    editor or a TA can jump straight to the problem.
    """

    def __init__(self, message: str, source: str | None = None,
                 line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = ""
        if self.source:
            where = str(self.source)
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        return where + self.message


def not_utf8(path: Path | str, exc: UnicodeDecodeError, first_line: int = 1) -> InputError:
    """The one-line error for a byte that is not UTF-8 (in the text ``exc``
    was decoding: a file after its BOM, or its line ``first_line``), at its
    line and column: an editor's encoding, a crash mid-write or a forger put
    it there."""
    data = bytes(exc.object)
    before = data[:exc.start]
    line = first_line + before.count(b"\n")
    column = exc.start - (before.rfind(b"\n") + 1) + 1
    return InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x}); save it as UTF-8", str(path), line, column)
