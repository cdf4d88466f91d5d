"""One run at a time in a tournament's results folder or a series folder.

Two runs in one folder (a ``--resume`` started while the tournament still
ran, two ``--resume`` at once) removed each other's game folders as
unfinished, failed both, and both wrote partial standings.  So a run holds
an exclusive lock on the folder's :data:`LOCK_FILE` from before it reads
the folder's state until its reports are written, and a second run is
refused in one line before it reads or changes anything.

Why a lock on an open file (``flock``; ``msvcrt.locking`` on Windows) and
not a file that says "running": the kernel drops the lock when the process
ends, however it ends (Ctrl-C, ``kill -9``, a power cut), so there is never
a stale lock to clear by hand.  The file itself stays: removed, a third run
could lock a new file of that name while the second still held the old one.
It holds the pid of the run that last took it, for the refusal's message.
"""
from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from referee.core.errors import InputError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = ".referee-lock"

_WINDOWS_BYTE = 1 << 20
"""The byte ``msvcrt.locking`` locks, past the pid: a region locked on
Windows cannot be read by another process, and the pid must be."""

_NO_LOCKS = {errno.ENOLCK, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}
"""What a filesystem without locks says (some network filesystems): the run
goes on unlocked there rather than not at all."""


class OutputLock:
    """The lock of the output folder ``out``; ``kind`` (``tournament``,
    ``series``) and ``folder`` (``results folder``, ``series folder``) are
    the words of its messages (a config class's ``KIND`` and ``FOLDER``)."""

    def __init__(self, out: Path, kind: str, folder: str) -> None:
        self.out = Path(out)
        self.kind = kind
        self.folder = folder
        self.fd: int | None = None
        self.made_folder = False  # made by take(): undo() removes it again
        self.made_file = False

    @property
    def held(self) -> bool:
        return self.fd is not None

    def take(self, make: bool = True) -> bool:
        """Lock the folder for this process until :meth:`release` (or its
        end); a no-op if held already.  ``make``: make the folder if there is
        none (else return False and lock nothing).  InputError, one line, if
        another run holds it or the folder cannot be written."""
        if self.fd is not None:
            return True
        out = self.out
        if not out.is_dir():
            if not make:
                return False
            try:
                out.mkdir(parents=True)
                self.made_folder = True
            except FileExistsError:
                pass  # made meanwhile (or a file: opening the lock file below says so)
            except OSError as exc:
                raise self._cannot(exc) from None
        path = out / LOCK_FILE
        try:
            self.made_file = not os.path.lexists(path)
            # Never through a link: without the sandbox a player can write
            # here, and its link would have the pid written over a file of the TA's.
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as exc:
            self.undo()
            raise self._cannot(exc) from None
        try:
            locked = _try_lock(fd)
        except OSError:
            os.close(fd)
            self.undo()
            raise
        if not locked:
            pid = _holder(fd)
            os.close(fd)
            self.made_file = self.made_folder = False  # the other run's
            shown = f" (pid {pid})" if pid else ""
            raise InputError(f"another referee is running this {self.kind} in {out}{shown}; "
                             "wait for it to end, or stop it")
        if not _still_there(fd, path):  # its file was removed (a refused start's undo) while we opened it:
            os.close(fd)                # a lock on it keeps no one out; take the file that is there now
            self.made_file = False
            return self.take(make)
        self.fd = fd
        with contextlib.suppress(OSError):  # the pid is only for the message above
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, f"{os.getpid()}\n".encode())
        return True

    def release(self) -> None:
        """Let the next run in (closing the file drops the lock)."""
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None

    def undo(self) -> None:
        """A start refused before anything was written: release, and remove
        the lock file and the folder if :meth:`take` made them, so that the
        refusal leaves nothing behind."""
        self.release()
        if self.made_file:
            with contextlib.suppress(OSError):
                (self.out / LOCK_FILE).unlink()
        if self.made_folder:
            with contextlib.suppress(OSError):
                self.out.rmdir()
        self.made_file = self.made_folder = False

    def _cannot(self, exc: OSError) -> InputError:
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(self.out) else ""
        return InputError(f"cannot write the {self.folder} {self.out}: {exc.strerror or exc}{where}")


def _still_there(fd: int, path: Path) -> bool:
    """Whether ``fd`` is the file at ``path`` now."""
    try:
        held, there = os.fstat(fd), os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino)


def _try_lock(fd: int) -> bool:
    """Lock ``fd`` exclusively without waiting: False if another holds it."""
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError as exc:
            if exc.errno in _NO_LOCKS:
                return True
            raise
        return True
    import msvcrt  # type: ignore[import-not-found]

    os.lseek(fd, _WINDOWS_BYTE, os.SEEK_SET)
    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
    except OSError:
        return False
    return True


def _holder(fd: int) -> int | None:
    """The pid the lock file names, if it names one."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and len(text) < 12 else None
