"""Errors that reach the user as one line, never as a traceback."""
from __future__ import annotations


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
