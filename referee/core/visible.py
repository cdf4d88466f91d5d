"""What a player wrote, made safe to show on a terminal or in a message.

A player's stderr, stdout, decision file and file names reach the TA's
terminal (play, replay, rerun, tournament progress).  Written raw, an escape
sequence could retitle the window, clear the screen, move the cursor up and
overwrite the verdict, or a ``\\r`` forge a ``result:`` line; bidirectional
overrides reorder what is read.  :func:`visible` turns every such character
into a visible escape (``\\x1b``, ``\\r``, ``\\u202e``), keeping newlines
(and tabs) where the text is meant to have lines.  One helper, used wherever
a player's bytes are shown."""
from __future__ import annotations

import re
import unicodedata

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
                     r"\ufeff\ud800-\udfff]")
_UNSAFE_LINE = re.compile(_UNSAFE.pattern[:-1] + r"\n\t]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r":
        return "\\r"
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, lines: bool = True) -> str:
    """``text`` with control characters, bidirectional marks and lone
    surrogates (undecodable bytes) shown as escapes; with ``lines`` False,
    newlines and tabs too (a text meant for one line)."""
    if not isinstance(text, str):
        text = str(text)
    pattern = _UNSAFE if lines else _UNSAFE_LINE
    text = pattern.sub(_escape, text)
    if any(unicodedata.category(c) == "Cf" for c in text if ord(c) > 0x7f):
        text = "".join(f"\\u{ord(c):04x}" if ord(c) > 0x7f and unicodedata.category(c) == "Cf" else c
                       for c in text)
    return text
