"""Where a person plays a seat: ``human`` picks the browser where it is the
better choice and the terminal otherwise; ``human:terminal`` and
``human:web`` choose.

The browser is the better choice only when all of these hold: the ``web``
extra (Starlette, uvicorn) is importable, the referee's standard input is a
terminal (a script or a test that pipes moves into ``human`` keeps the
terminal, its output byte for byte as before the browser existed), and a
graphical session is there to open a browser in (Linux and the other
Unix-likes: ``DISPLAY`` or ``WAYLAND_DISPLAY`` set; macOS and Windows:
always).  Over SSH, in a container or in CI the terminal stays.

:func:`choose` is the rule (facts in, choice out: tested without a
terminal or a display); :func:`choose_here` feeds it this process's facts.
Every place that treats a person differently from a program (verify's
resignations, the tournament, series and grading refusals, ``rerun``) asks
:func:`is_human` rather than comparing with the word ``human``."""
from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from typing import Mapping

AUTO = "human"
TERMINAL = "human:terminal"
WEB = "human:web"
HUMAN_SPECS = (AUTO, TERMINAL, WEB)
"""Every spelling of a person's seat (``--player`` values, and the commands
match.yaml records for one: ``human`` for the terminal, ``human:web``)."""


def is_human(spec: object) -> bool:
    """True for ``human``, ``human:terminal`` and ``human:web``."""
    return isinstance(spec, str) and spec.strip() in HUMAN_SPECS


@dataclass(frozen=True)
class Choice:
    """Where the seat is played, and, for a ``human`` that was chosen for,
    the one line the console says about it (None: say nothing)."""

    web: bool
    why: str | None = None  # why the terminal, when the browser was not chosen
    automatic: bool = False  # ``human``: the referee chose
    stdin_tty: bool = True

    def browser_words(self, player: int) -> tuple[str, str]:
        """What the console says before and after a browser seat's URL."""
        if self.automatic:
            return (f"player {player} ({AUTO}) plays in the browser at",
                    f"  (--player {TERMINAL} plays here in the terminal)")
        return f"player {player} ({WEB}) plays in the browser at", ""

    def note(self, player: int) -> str | None:
        """The console line for a terminal seat chosen for ``human`` (the
        browser seat says where its page is when it serves it).  Nothing
        when the input is not a terminal: piped moves keep today's output."""
        if not self.automatic or self.web or not self.stdin_tty:
            return None
        return (f"player {player} ({AUTO}) plays here in the terminal: {self.why}; "
                f"--player {WEB} plays in the browser")


def graphical_session(platform: str, environ: Mapping[str, str]) -> bool:
    """A browser can be opened: always on macOS and Windows; elsewhere when
    an X or Wayland display is set (not over plain SSH, in CI, in a container)."""
    if platform == "darwin" or platform.startswith(("win", "cygwin", "msys")):
        return True
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def choose(spec: str, *, web_extra: bool, stdin_tty: bool, platform: str,
           environ: Mapping[str, str]) -> Choice:
    """Where ``spec`` (one of :data:`HUMAN_SPECS`) is played, given the facts."""
    spec = spec.strip()
    if spec == WEB:
        return Choice(web=True, stdin_tty=stdin_tty)
    if spec == TERMINAL:
        return Choice(web=False, stdin_tty=stdin_tty)
    if not stdin_tty:
        why = "the referee's input is not a terminal"
    elif not graphical_session(platform, environ):
        why = "no graphical session (DISPLAY and WAYLAND_DISPLAY are not set)"
    elif not web_extra:
        why = "the web extra is not installed (pip install 'referee[web]')"
    else:
        return Choice(web=True, automatic=True, stdin_tty=True)
    return Choice(web=False, why=why, automatic=True, stdin_tty=stdin_tty)


def web_extra_installed() -> bool:
    """Starlette and uvicorn can be imported (found, not imported: cheap)."""
    return all(importlib.util.find_spec(name) is not None for name in ("starlette", "uvicorn"))


def stdin_is_terminal() -> bool:
    """The referee's standard input is a terminal (a person typing)."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):  # closed or detached
        return False


def choose_here(spec: str) -> Choice:
    """:func:`choose` with this process's facts."""
    tty = stdin_is_terminal()
    return choose(spec, web_extra=web_extra_installed(), stdin_tty=tty,
                  platform=sys.platform, environ=os.environ)
