"""A real `referee` on a pseudo-terminal (the `pty` module): what a person at
a terminal runs, for tests of what the referee does when stdin is a tty."""
from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path


class Terminal:
    """`referee ARGS` with a pseudo-terminal as its stdin, stdout and stderr."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, exe: Path | None = None) -> None:
        exe = exe or Path(sys.executable).with_name("referee")
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([str(exe), *args], stdin=slave, stdout=slave, stderr=slave,
                                     env=env, cwd=cwd, close_fds=True, start_new_session=True)
        os.close(slave)
        self.text = ""

    def read_until(self, pattern: str, timeout: float = 120) -> re.Match:
        """Read until ``pattern`` shows (a generous deadline: events, not timing)."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.text)
            if found:
                return found
            left = deadline - time.monotonic()
            assert left > 0, f"never saw {pattern!r} in:\n{self.text}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # EIO: the referee closed the terminal (exited)
                    chunk = b""
                if not chunk:
                    assert re.search(pattern, self.text), f"exited before {pattern!r}:\n{self.text}"
                self.text += chunk.decode("utf-8", "replace").replace("\r\n", "\n")

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def finish(self) -> int:
        try:
            self.read_until(r"match folder: .*\n")
            return self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            os.close(self.master)
