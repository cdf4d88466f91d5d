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
import threading

MODIFY, ATTRIB, OPEN, MOVED_FROM, MOVED_TO, CREATE, DELETE = 0x2, 0x4, 0x20, 0x40, 0x80, 0x100, 0x200
DELETE_SELF, MOVE_SELF, OVERFLOW, IGNORED = 0x400, 0x800, 0x4000, 0x8000
DONT_FOLLOW, ONLYDIR = 0x2000000, 0x1000000
CHANGES = MODIFY | ATTRIB | MOVED_FROM | MOVED_TO | CREATE | DELETE | DELETE_SELF | MOVE_SELF
"""Everything that can change what a folder holds, or a file's bytes, size,
links and times (IN_CLOSE_WRITE follows a MODIFY: not needed).  Not quite
everything: a write through a shared mapping (mmap) raises no event at all;
its file had to be opened for writing first, and an OPEN is an event."""
_NONBLOCK, _CLOEXEC = getattr(os, "O_NONBLOCK", 0), getattr(os, "O_CLOEXEC", 0)
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
                libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
            except (OSError, AttributeError, ImportError):
                libc = None
        _FOUND.append(libc)
    return _FOUND[0]


def warm() -> None:
    """Look libc up now (a fork server does, once for all its workers)."""
    _libc()


class _Instance:
    """The process's one inotify instance, shared by every :class:`Watch`
    (a user has 128 of them in all by default, and an editor or a file
    manager needs its own while a tournament of eight-seat games plays), and
    which watch each event is for."""

    def __init__(self, fd: int) -> None:
        self.fd, self.pid = fd, os.getpid()
        self.lock = threading.Lock()
        self.routes: dict[int, "Watch"] = {}
        self.left = _budget()  # watches this process may still add

    def read(self) -> None:
        """Hand every queued event to its watch (the caller holds the lock);
        an overflow, or a queue that cannot be read, to all of them."""
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                self._lost()
                return
            at = 0
            while at + _HEADER.size <= len(data):
                wd, mask, _, size = _HEADER.unpack_from(data, at)
                name = data[at + _HEADER.size:at + _HEADER.size + size].split(b"\0", 1)[0]
                at += _HEADER.size + size
                if mask & OVERFLOW:
                    self._lost()
                elif wd in self.routes:
                    self.routes[wd].queued.append((wd, mask, os.fsdecode(name)))

    def _lost(self) -> None:
        for watch in set(self.routes.values()):
            watch.queued.append((-1, OVERFLOW, ""))


_SHARED: list[_Instance] = []
_MAKING = threading.Lock()


def _budget() -> int:
    """Watches one process may hold: a quarter of the user's (each of a
    match's snapshots has one; ``max_user_watches`` was 8192 on kernels
    before 5.11, shared with the user's editor and file manager).  Past it,
    a seat's snapshots are all checked, as without a watch."""
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", "rb") as f:
            return int(f.read()) // 4
    except (OSError, ValueError):
        return 2048


def _instance() -> _Instance | None:
    """The process's instance, made at the first watch (anew in a forked
    child: the parent's events are not its own)."""
    with _MAKING:
        if _SHARED and _SHARED[0].pid == os.getpid():
            return _SHARED[0]
        libc = _libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(_NONBLOCK | _CLOEXEC)
        if fd < 0:
            return None
        if _SHARED:
            with contextlib.suppress(OSError):
                os.close(_SHARED[0].fd)  # (the parent's, inherited by a fork)
            _SHARED.clear()
        _SHARED.append(_Instance(fd))
        return _SHARED[0]


class Watch:
    """Watches of one user (a seat's folder) on the shared instance: what
    it watches and the events for it not yet taken."""

    def __init__(self, instance: _Instance) -> None:
        self.instance: _Instance | None = instance
        self.wds: set[int] = set()
        self.queued: list[tuple[int, int, str]] = []

    @classmethod
    def open(cls) -> "Watch | None":
        instance = _instance()
        return cls(instance) if instance is not None else None

    def add(self, path: str, mask: int) -> int | None:
        """A watch on ``path`` (its descriptor), or None if the kernel said no
        (no such file, no watches left)."""
        instance = self.instance
        if instance is None or instance.pid != os.getpid():
            return None
        with instance.lock:
            if instance.left <= 0:
                return None
            wd = _libc().inotify_add_watch(instance.fd, os.fsencode(path), mask)
            if wd < 0:
                return None
            if instance.routes.get(wd, self) is not self:  # (the same file as another's: never ours)
                return None
            if wd not in self.wds:
                instance.left -= 1
            instance.routes[wd] = self
            self.wds.add(wd)
        return wd

    def events(self) -> list[tuple[int, int, str]]:
        """The events for these watches since the last call: (watch, mask,
        name; "" for the watched thing itself); (-1, OVERFLOW, "") where
        events were lost."""
        instance = self.instance
        if instance is None:
            return []
        if instance.pid != os.getpid():  # (carried across a fork: its queue is the parent's)
            return [(-1, OVERFLOW, "")]
        with instance.lock:
            instance.read()
            found, self.queued = self.queued, []
        return found

    def close(self) -> None:
        """Remove these watches (the instance stays, for the others)."""
        instance, self.instance = self.instance, None
        if instance is None:
            return
        with instance.lock:
            for wd in self.wds:
                if instance.routes.get(wd) is self:
                    del instance.routes[wd]
                    if instance.pid == os.getpid():
                        _libc().inotify_rm_watch(instance.fd, wd)
                        instance.left += 1
        self.wds.clear()
