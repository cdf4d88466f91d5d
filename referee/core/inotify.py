"""Linux's inotify, through ctypes: what changed in a folder since the last
look, without looking at every file in it.

Without a sandbox a player can change any seat's files (it runs as the same
user), so a seat's old snapshots were checked one by one before each of its
steps, and its ``step_logs/`` walked for its disk use after each: O(steps) a
step, a third of the referee's CPU a step by step 300 of a Quoridor game.  A
watch says which files were touched instead (see ``SeatFolder``).  The
kernel queues an event as the change is made, so what a look does not report
did not happen before it; a queue that overflowed says so.

A watch on a folder reports what is done through its names; one on a file
reports what is done to the file by any name (a hard link made elsewhere and
written through is seen only there).  None of this exists elsewhere
(:meth:`Watch.open` gives None), nor where the user's inotify instances or
watches are used up: the callers then check everything, as before."""
from __future__ import annotations

import contextlib
import os
import struct
import sys

MODIFY, ATTRIB, MOVED_FROM, MOVED_TO, CREATE, DELETE = 0x2, 0x4, 0x40, 0x80, 0x100, 0x200
DELETE_SELF, MOVE_SELF, OVERFLOW, IGNORED = 0x400, 0x800, 0x4000, 0x8000
DONT_FOLLOW, ONLYDIR = 0x2000000, 0x1000000
CHANGES = MODIFY | ATTRIB | MOVED_FROM | MOVED_TO | CREATE | DELETE | DELETE_SELF | MOVE_SELF
"""Everything that can change what a folder holds, or a file's bytes, size,
links and times (IN_CLOSE_WRITE follows a MODIFY: not needed)."""
_NONBLOCK, _CLOEXEC = os.O_NONBLOCK, getattr(os, "O_CLOEXEC", 0)
_HEADER = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name)


_FOUND: list = []  # [libc or None], once looked up


def _libc():
    """libc's inotify calls (ctypes is imported at the first watch, not with
    the referee: a command that plays no match does not pay for it)."""
    if not _FOUND:
        libc = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                libc = ctypes.CDLL(None, use_errno=True)
                libc.inotify_init1.argtypes = [ctypes.c_int]
                libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            except (OSError, AttributeError, ImportError):
                libc = None
        _FOUND.append(libc)
    return _FOUND[0]


def warm() -> None:
    """Look libc up now (a fork server does, once for all its workers)."""
    _libc()


class Watch:
    """One inotify instance: its watches and the events not yet read."""

    def __init__(self, fd: int) -> None:
        self.fd: int | None = fd

    @classmethod
    def open(cls) -> "Watch | None":
        libc = _libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(_NONBLOCK | _CLOEXEC)
        return cls(fd) if fd >= 0 else None

    def add(self, path: str, mask: int) -> int | None:
        """A watch on ``path`` (its descriptor), or None if the kernel said no
        (no such file, no watches left)."""
        if self.fd is None:
            return None
        wd = _libc().inotify_add_watch(self.fd, os.fsencode(path), mask)
        return wd if wd >= 0 else None

    def events(self) -> list[tuple[int, int, str]]:
        """The events queued since the last call: (watch, mask, name; "" for
        the watched thing itself).  An unreadable queue reads as an overflow."""
        found: list[tuple[int, int, str]] = []
        while self.fd is not None:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                found.append((-1, OVERFLOW, ""))
                break
            at = 0
            while at + _HEADER.size <= len(data):
                wd, mask, _, size = _HEADER.unpack_from(data, at)
                name = data[at + _HEADER.size:at + _HEADER.size + size].split(b"\0", 1)[0]
                found.append((wd, mask, os.fsdecode(name)))
                at += _HEADER.size + size
        return found

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None
