"""Walking and removing a tree a player wrote: iterative, bounded, never
following a link, whatever the player left there.

A player's folder may hold anything: a directory 3000 levels deep, fifos,
sockets, symbolic-link loops, names with newlines or bytes that are not
UTF-8, directories with every permission removed.  ``shutil.rmtree`` recurses
(a deep tree raises ``RecursionError``, which is not an ``OSError``) and
``os.walk`` either follows links or needs a file descriptor per level; here

- :func:`remove_tree` flattens instead of recursing: it empties the top
  directory, moving each subdirectory's subdirectories up into it, so it
  holds two directory descriptors at a time however deep the tree is, and
  stops after a bounded number of operations, putting what is left aside
  under a ``.referee-trash-*`` name (never an exception for a player's file);
- :func:`tree_usage` adds up what a tree occupies on the disk, each inode once,
  going down and back up by ``..`` (checked against the inode it came from),
  and stops as soon as it has seen more than the budget.

No player process runs while either is at work (a step's processes are dead
or frozen when the referee looks)."""
from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | \
    getattr(os, "O_CLOEXEC", 0)
FD_BASED = os.open in os.supports_dir_fd and os.scandir in os.supports_fd
MAX_REMOVALS = 1_000_000
"""Entries one :func:`remove_tree` removes before it puts the rest aside."""
ENTRY_BYTES = 4096
"""What every entry counts at least in :func:`tree_usage` (one block): a
million empty files fill a disk's inode table, if not its blocks."""


@dataclass
class Usage:
    """What :func:`tree_usage` found."""

    bytes: int = 0
    entries: int = 0
    largest: tuple[str, int] = ("", 0)  # (path relative to the top, bytes) of the largest file
    over: bool = False  # stopped early: more than the budget
    complete: bool = True  # False: part of the tree could not be read

    @property
    def mib(self) -> float:
        return self.bytes / (1024 * 1024)


def cost(info: os.stat_result) -> int:
    """What one inode counts in :func:`tree_usage`."""
    blocks = getattr(info, "st_blocks", None)
    size = blocks * 512 if blocks is not None else info.st_size
    return max(size, ENTRY_BYTES)


def tree_usage(top: Path, budget: int | None = None, skip: tuple[str, ...] = ()) -> Usage:
    """The disk space under ``top`` (its allocated blocks, each inode once,
    every entry at least :data:`ENTRY_BYTES`), stopping once past ``budget``
    bytes; the subdirectories of ``top`` named in ``skip`` are not walked
    (the caller knows what they hold).  Unreadable parts are made readable
    (they are the player's) or skipped (``complete`` False)."""
    usage = Usage()
    seen: set[tuple[int, int]] = set()
    if not FD_BASED:
        return _usage_by_path(Path(top), budget, usage, seen)
    try:
        fd = os.open(top, DIR_FLAGS)
    except OSError:
        usage.complete = False
        return usage
    # Each level: (its inode, the names of the subdirectories still to visit).
    stack: list[tuple[tuple[int, int], list[str], str]] = []
    try:
        info = os.fstat(fd)
        top_dirs = [name for name in _scan(fd, "", usage, seen, budget) if name not in skip]
        stack.append(((info.st_dev, info.st_ino), top_dirs, ""))
        while stack and not usage.over:
            ident, todo, where = stack[-1]
            if todo:
                name = todo.pop()
                child = _open_child(fd, name)
                if child is None:
                    usage.complete = False
                    continue
                os.close(fd)
                fd = child
                info = os.fstat(fd)
                here = f"{where}{name}/"
                stack.append(((info.st_dev, info.st_ino), _scan(fd, here, usage, seen, budget), here))
                continue
            stack.pop()
            if not stack:
                break
            parent = os.open("..", DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            info = os.fstat(fd)
            if (info.st_dev, info.st_ino) != stack[-1][0]:  # moved while walked: stop, say so
                usage.complete = False
                break
    except OSError:
        usage.complete = False
    finally:
        os.close(fd)
    return usage


def _open_child(parent: int, name: str) -> int | None:
    """The real directory ``name`` under ``parent`` (made readable if the
    player took its permissions away), or None."""
    for _ in range(2):
        try:
            return os.open(name, DIR_FLAGS, dir_fd=parent)
        except PermissionError:
            with contextlib.suppress(OSError):
                os.chmod(name, 0o700, dir_fd=parent)
        except OSError:
            return None
    return None


def _scan(fd: int, where: str, usage: Usage, seen: set[tuple[int, int]], budget: int | None) -> list[str]:
    """Count the entries of the directory ``fd``; its subdirectories' names."""
    subdirs: list[str] = []
    info = os.fstat(fd)
    _count(info, where or ".", usage, seen, budget)
    with os.scandir(fd) as entries:
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                usage.complete = False
                continue
            if stat.S_ISDIR(info.st_mode):
                subdirs.append(entry.name)
            else:
                _count(info, where + entry.name, usage, seen, budget)
            if usage.over:
                break
    return subdirs


def _count(info: os.stat_result, name: str, usage: Usage, seen: set[tuple[int, int]],
           budget: int | None) -> None:
    usage.entries += 1
    ident = (info.st_dev, info.st_ino)
    if ident in seen:
        return
    seen.add(ident)
    used = cost(info)
    usage.bytes += used
    if used > usage.largest[1] and not stat.S_ISDIR(info.st_mode):
        usage.largest = (name, used)
    if budget is not None and usage.bytes > budget:
        usage.over = True


def _usage_by_path(top: Path, budget: int | None, usage: Usage, seen: set[tuple[int, int]]) -> Usage:
    """:func:`tree_usage` where directories cannot be opened as descriptors
    (Windows): the same walk by paths, iterative."""
    todo = [(top, "")]
    while todo and not usage.over:
        path, where = todo.pop()
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    info = entry.stat(follow_symlinks=False)
                    if stat.S_ISDIR(info.st_mode) and not entry.is_symlink():
                        todo.append((Path(entry.path), f"{where}{entry.name}/"))
                    _count(info, where + entry.name, usage, seen, budget)
        except OSError:
            usage.complete = False
    return usage


def remove_tree(path: Path) -> bool:
    """Remove ``path`` whatever it is (a file, a link, a fifo, a tree of any
    depth and permissions); True if it is gone, False if something could not
    be removed (then what is left was put aside as ``.referee-trash-*`` next
    to it, when it could be).  Never raises for what a player made."""
    path = Path(path)
    if not FD_BASED:
        return _remove_by_path(path)
    try:
        parent = os.open(path.parent, DIR_FLAGS & ~getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return not os.path.lexists(path)
    try:
        return remove_at(parent, path.name)
    finally:
        os.close(parent)


def remove_at(parent: int, name: str, limit: int = MAX_REMOVALS) -> bool:
    """:func:`remove_tree` for ``name`` in the directory ``parent`` (an fd)."""
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(info.st_mode):
            os.unlink(name, dir_fd=parent)
            return True
        if _empty_dir(parent, name, limit):
            os.rmdir(name, dir_fd=parent)
            return True
    except OSError:
        pass
    with contextlib.suppress(OSError):  # what could not be removed goes aside
        os.rename(name, f".referee-trash-{time.monotonic_ns()}", src_dir_fd=parent, dst_dir_fd=parent)
    return False


def _empty_dir(parent: int, name: str, limit: int) -> bool:
    """Empty the directory ``name``: files are unlinked, and each
    subdirectory's subdirectories are moved up into it (so depth never
    costs more than two descriptors) until nothing is left; False if the
    operation budget ran out or something resisted."""
    with contextlib.suppress(OSError):
        os.chmod(name, 0o700, dir_fd=parent)
    top = _open_child(parent, name)
    if top is None:
        return False
    done, moved = 0, 0
    try:
        while done < limit:
            with os.scandir(top) as entries:
                batch = [(e.name, e.is_dir(follow_symlinks=False)) for e in _first(entries, 4096)]
            if not batch:
                return True
            progress = False
            for child, is_dir in batch:
                done += 1
                try:
                    if not is_dir:
                        os.unlink(child, dir_fd=top)
                        progress = True
                        continue
                    with contextlib.suppress(OSError):
                        os.chmod(child, 0o700, dir_fd=top)
                    sub = _open_child(top, child)
                    if sub is None:
                        continue
                    try:
                        with os.scandir(sub) as inner:
                            listed = [(e.name, e.is_dir(follow_symlinks=False)) for e in _first(inner, 4096)]
                        for entry, entry_is_dir in listed:
                            done += 1
                            if entry_is_dir:
                                moved += 1
                                # moving a folder rewrites its "..": not root, that needs its write bit
                                with contextlib.suppress(OSError):
                                    os.chmod(entry, 0o700, dir_fd=sub)
                                os.rename(entry, f".referee-up-{moved}-{time.monotonic_ns()}",
                                          src_dir_fd=sub, dst_dir_fd=top)
                            else:
                                os.unlink(entry, dir_fd=sub)
                            progress = True
                    finally:
                        os.close(sub)
                    with contextlib.suppress(OSError):
                        os.rmdir(child, dir_fd=top)
                        progress = True
                except OSError as exc:
                    if exc.errno not in (errno.ENOENT, errno.ENOTEMPTY, errno.EEXIST):
                        return False
            if not progress:
                return False
        return False
    finally:
        os.close(top)


def _first(entries, count: int):
    for n, entry in enumerate(entries):
        if n >= count:
            break
        yield entry


def _remove_by_path(path: Path) -> bool:
    """:func:`remove_tree` by paths (Windows): the same flattening."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(info.st_mode) or os.path.islink(path):
            _chmod_writable(path)
            (os.rmdir if stat.S_ISDIR(info.st_mode) else os.unlink)(path)
            return True
        done, moved = 0, 0
        while done < MAX_REMOVALS:
            with os.scandir(path) as entries:
                batch = list(_first(entries, 4096))
            if not batch:
                os.rmdir(path)
                return True
            left = len(batch)
            for entry in batch:
                done += 1
                _chmod_writable(entry.path)
                if entry.is_dir(follow_symlinks=False) and not entry.is_symlink():
                    with os.scandir(entry.path) as inner:
                        listed = list(_first(inner, 4096))
                    for sub in listed:
                        done += 1
                        if sub.is_dir(follow_symlinks=False) and not sub.is_symlink():
                            moved += 1
                            _chmod_writable(sub.path)  # (see _empty_dir)
                            os.rename(sub.path, path / f".referee-up-{moved}-{time.monotonic_ns()}")
                        else:
                            _chmod_writable(sub.path)
                            os.unlink(sub.path)
                    with contextlib.suppress(OSError):
                        os.rmdir(entry.path)
                        left -= 1
                    if listed:
                        left -= 1
                elif entry.is_dir(follow_symlinks=False):
                    os.rmdir(entry.path)  # a directory junction
                    left -= 1
                else:
                    os.unlink(entry.path)
                    left -= 1
            if left == len(batch):
                break
    except OSError:
        pass
    with contextlib.suppress(OSError):
        os.rename(path, path.with_name(f".referee-trash-{time.monotonic_ns()}"))
    return False


def _chmod_writable(path: str | Path) -> None:
    with contextlib.suppress(OSError):
        os.chmod(path, stat.S_IWRITE | stat.S_IREAD | stat.S_IEXEC)
