"""Games done / total, elapsed time and ETA while a tournament runs: one
redrawn bar on a terminal, one plain line per game otherwise (logs, CI)."""
from __future__ import annotations

import time
from typing import TextIO


def clock(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    WIDTH = 30

    def __init__(self, stream: TextIO, already_done: int) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.base = already_done  # resumed games do not count toward the speed

    def line(self, done: int, total: int) -> str:
        elapsed = time.monotonic() - self.start
        played = done - self.base
        eta = "?" if played <= 0 else clock(elapsed / played * max(0, total - done))
        return f"{done}/{total} games  elapsed {clock(elapsed)}  ETA {eta}"

    def update(self, done: int, total: int, last: str) -> None:
        """A game finished."""
        if self.tty:
            self.tick(done, total)
        else:
            self.stream.write(f"{self.line(done, total)}  {last}\n")
            self.stream.flush()

    def tick(self, done: int, total: int) -> None:
        """Redraw the bar (the clock moves between games too); terminals only."""
        if self.tty:
            filled = self.WIDTH * done // max(total, 1)
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            self.stream.write(f"\r[{bar}] {self.line(done, total)}\x1b[K")
            self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
