"""Atomic file writes: a reader (a player, a resumed tournament, a TA's
editor) never sees half a file, and a killed referee never leaves one."""
from __future__ import annotations

import contextlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError


def check_folder(path: Path, what: str = "output folder") -> None:
    """Refuse, in one line, a folder to write into that is a file, or lies
    below one (a typo, the config file itself): creating it later was a
    FileExistsError or NotADirectoryError traceback, after any work before it."""
    path = Path(path)
    for part in (path, *path.parents):
        if os.path.lexists(part):
            if not part.is_dir():
                where = "is a file" if part == path else f"is below {part}, which is a file"
                raise InputError(f"{what} {path} {where}, not a folder; name a folder")
            return


def write_plain(path: Path, text: str) -> None:
    """A plain write, for files nobody reads while they are written (a
    player's inputs are written before it starts; a new snapshot is only
    read once its step is logged)."""
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` atomically; on any error (disk full) the temporary
    file is removed and the old file, if any, is left as it was.  A device
    (``--out /dev/null``, ``--html /dev/stdout``) is written, not replaced
    (see :func:`_a_device`)."""
    if _a_device(path):
        with open(path, "wb") as device:
            device.write(data)
        return
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _a_device(path: Path) -> bool:
    """Whether ``path`` is a character device, or anything under ``/dev``
    or ``/proc`` (``/dev/stdout``, a link to a pipe, or to the file the
    shell redirected it to): to be written, not replaced.  As root a rename
    onto ``/dev/null`` made it a regular file for every program on the
    machine, and one onto ``/dev/stdout`` replaced the link.  Elsewhere a
    link is replaced, never followed (one a player planted in a match
    folder, without the sandbox, leads nowhere), and a FIFO too (a planted
    one would block the referee); no player can make a device."""
    where = os.path.abspath(path)
    if where.startswith(("/dev/", "/proc/")) and not where.startswith("/dev/shm/"):  # (a RAM disk's files are files)
        return os.path.lexists(path)
    try:
        return stat.S_ISCHR(os.lstat(path).st_mode)
    except OSError:
        return False


def write_text(path: Path, text: str) -> None:
    """:func:`write_bytes` of ``text`` in UTF-8, its newlines as they are."""
    write_bytes(path, text.encode("utf-8"))


def replace_at(folder: int, name: str, data: bytes) -> None:
    """:func:`write_text` of a file in a folder held open (``folder``, a
    directory fd): ``name`` replaced atomically through ``.name.tmp``, which
    is made anew (whatever is there, a link too, is removed first, never
    followed).  No path is walked from the root, and no text layer: a
    match's step snapshot cost half as much this way on a RAM disk."""
    tmp = f".{name}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        try:
            fd = os.open(tmp, flags, 0o644, dir_fd=folder)
        except FileExistsError:  # left by a killed referee, or planted
            os.unlink(tmp, dir_fd=folder)
            fd = os.open(tmp, flags, 0o644, dir_fd=folder)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=folder)
        raise


_LIBYAML_DUMPER = getattr(yaml, "CSafeDumper", None)
_PLAIN_KEY = re.compile(r"[\x20-\x7e]{1,100}\Z")
_PLAIN_VALUE = re.compile(r"[\x20-\x7e]*\Z")
_PLAIN_ATOMS = (int, float, bool, type(None))


def yaml_text(data: Any) -> str:
    """``yaml.safe_dump(data)`` (keys in their order, unicode as is), byte for
    byte, with or without libyaml.  match.yaml's bytes start the log's hash
    chain, so a machine without libyaml must write the same file.  libyaml's
    emitter does not always write what PyYAML's does (it folds long
    double-quoted strings elsewhere, prints characters past U+FFFF that
    PyYAML escapes, lays out empty and long keys otherwise, ends a lone
    scalar otherwise), so it writes only the documents of
    :func:`plain_document` (tests/test_yaml_bytes.py holds the two emitters
    equal there); it writes a match's YAML about seven times faster than the
    pure Python emitter (~5 ms of CPU a game)."""
    dumper = _LIBYAML_DUMPER if _LIBYAML_DUMPER is not None and plain_document(data) else yaml.SafeDumper
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True)


def plain_document(data: Any) -> bool:
    """Whether ``data`` is a mapping made only of mappings, lists, numbers,
    booleans, None and printable ASCII strings, its keys numbers or 1-100
    such characters: where both emitters write the same bytes."""
    return type(data) is dict and _plain(data, False)


def _plain(data: Any, key: bool) -> bool:
    kind = type(data)
    if key and kind is not str:
        return kind is int
    if kind is str:
        return (_PLAIN_KEY if key else _PLAIN_VALUE).match(data) is not None
    if kind is dict:
        return all(_plain(k, True) and _plain(v, False) for k, v in data.items())
    if kind is list:
        return all(_plain(item, False) for item in data)
    return kind in _PLAIN_ATOMS


def write_yaml(path: Path, data: Any) -> None:
    write_text(path, yaml_text(data))


def canonical_json(data: Any) -> str:
    """The one serialisation used for hashing: key order and spacing fixed."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))
