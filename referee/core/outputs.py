"""The files and folders a command writes its results to, checked before
the command does its work.

Why: ``grade`` writes its result file after every game is played (minutes
for a class), and ``replay --html`` after reading a whole log; a path that
could not be written there (a missing folder, a file where a folder should
be, ``/proc``) lost all that work to a traceback at the very end.  So the
commands make their output paths ready first, and a path that cannot be
written is one line naming it and why, before anything runs.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .errors import InputError
from .files import _a_device  # the writer's own test: the check agrees with the write


def output_file(path: Path, option: str) -> Path:
    """Make ``path`` ready to be written at the end (its folder created if
    missing: what a user naming ``results/grade.json`` means), or refuse it
    in one line: a folder, below a file, a folder that cannot be made or
    written in.  A device the writer writes into rather than replaces
    (``/dev/null``, ``/dev/stdout``: files.write_bytes) is left as it is,
    and needs no folder to write in."""
    path = Path(path)
    shown = f"{option} {path}"
    try:
        found = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        found = None  # (below a file: said below, by name)
    except OSError as exc:
        raise InputError(f"{shown}: {exc.strerror or exc}") from None
    if found is not None:
        if stat.S_ISDIR(found.st_mode):
            raise InputError(f"{shown} is a folder; name a file")
        if _a_device(path):
            if not os.access(path, os.W_OK):
                raise InputError(f"{shown}: not writable")
            return path
    folder = path.parent
    _make_folder(folder, shown, False)
    try:  # the writer puts a temporary file beside the result: can one be made there?
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(f"{shown}: cannot write in the folder {folder}: {exc.strerror or exc}") from None
    return path


def output_folder(path: Path, option: str) -> Path:
    """Make the folder ``path`` (and the folders above it), or refuse it in
    one line naming it and why."""
    path = Path(path)
    _make_folder(path, f"{option} {path}", True)
    return path


def _make_folder(folder: Path, shown: str, given: bool) -> None:
    """``given``: ``folder`` is the one the user named (else a file's)."""
    for part in (folder, *folder.parents):
        if os.path.lexists(part):
            if not part.is_dir():
                what = "a file" if part.exists() else "a broken link"
                if given and part == folder:
                    raise InputError(f"{shown} is {what}, not a folder; name a folder")
                raise InputError(f"{shown}: {part} is {what}, not a folder")
            break
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{shown}: cannot create the folder {folder}: {exc.strerror or exc}") from None
