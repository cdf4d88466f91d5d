"""A seat's private folder, written and read as if its player were hostile.

Every operation works through directory file descriptors opened without
following links, so a link a player planted (``Board.txt -> ../../log.jsonl``,
``step_logs -> ../../step_logs``) is replaced, never written through; views are
written by atomic rename, so a directory or fifo in a view's place is removed
rather than blocking or crashing the referee; the decision is read only from a
regular file, without blocking.  What had to be repaired is reported, so the
log can say so.  This holds with or without the sandbox (DESIGN.md)."""
from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
KINDS = {stat.S_IFDIR: "directory", stat.S_IFIFO: "fifo", stat.S_IFSOCK: "socket",
         stat.S_IFCHR: "device", stat.S_IFBLK: "device", stat.S_IFLNK: "symbolic link"}


def kind_of(mode: int) -> str:
    return KINDS.get(stat.S_IFMT(mode), "special file")


def _remove(parent: int, name: str) -> None:
    """Remove whatever ``name`` is (file, link, fifo, directory tree)."""
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(name, dir_fd=parent)
        return
    with contextlib.suppress(OSError):
        os.chmod(name, 0o700, dir_fd=parent)
    shutil.rmtree(name, ignore_errors=True, dir_fd=parent)
    with contextlib.suppress(FileNotFoundError):  # what rmtree could not remove goes aside
        os.rename(name, f".referee-trash-{time.monotonic_ns()}", src_dir_fd=parent, dst_dir_fd=parent)


def open_dir(parent: int, name: str, repairs: list[str], label: str) -> int:
    """Open (creating or repairing) the real directory ``name`` under ``parent``."""
    for _attempt in range(3):
        try:
            return os.open(name, DIR_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            pass
        except PermissionError:  # mode 000 on a real directory (a link gives ELOOP first)
            os.chmod(name, 0o755, dir_fd=parent)
            repairs.append(f"{label} had its permissions removed")
            continue
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            info = os.stat(name, dir_fd=parent, follow_symlinks=False)
            repairs.append(f"{label} was a {kind_of(info.st_mode)}")
            _remove(parent, name)
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o755, dir_fd=parent)
    return os.open(name, DIR_FLAGS, dir_fd=parent)


def write_at(parent: int, name: str, data: bytes, repairs: list[str], label: str) -> tuple[int, int, int]:
    """Atomically replace ``name`` with ``data``; returns (inode, size, mtime_ns)."""
    tmp = f".{name}.referee-tmp"
    _remove(parent, tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                 dir_fd=parent)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        info = os.fstat(fd)
    except BaseException:  # disk full: leave no temporary file behind
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=parent)
        raise
    os.close(fd)
    try:
        os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
    except OSError:  # a directory sits where the file belongs
        before = os.stat(name, dir_fd=parent, follow_symlinks=False)
        repairs.append(f"{label} was a {kind_of(before.st_mode)}")
        _remove(parent, name)
        os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
    return info.st_ino, info.st_size, info.st_mtime_ns


@dataclass
class SeatFolder:
    """``players/p<id>/`` of a match folder, for one seat."""

    match_root: Path
    player: int
    check_snapshots: bool = True  # False where the sandbox mounts step_logs read-only
    repairs: list[str] = field(default_factory=list)
    _written: dict[int, tuple[int, int, int]] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return self.match_root / "players" / f"p{self.player}"

    def _open(self) -> tuple[int, int]:
        """(seat fd, step_logs fd), repairing the way there."""
        root = os.open(self.match_root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            players = open_dir(root, "players", self.repairs, "players/")
        finally:
            os.close(root)
        try:
            seat = open_dir(players, f"p{self.player}", self.repairs, f"players/p{self.player}/")
        finally:
            os.close(players)
        try:
            logs = open_dir(seat, "step_logs", self.repairs, "step_logs/")
        except BaseException:
            os.close(seat)
            raise
        return seat, logs

    def create(self) -> None:
        seat, logs = self._open()
        os.close(seat)
        os.close(logs)

    def take_repairs(self) -> list[str]:
        done, self.repairs = self.repairs, []
        return done

    def write_views(self, files: dict[str, str], snapshots: dict[int, str] | None = None,
                    snapshot_text=None, upto: int = 0) -> None:
        """Write the view files, remove any old decision, and bring
        ``step_logs/`` up to ``step_<upto - 1>.txt``: new snapshots come from
        ``snapshot_text(k)``, and an old one someone changed is written again."""
        seat, logs = self._open()
        try:
            for name, text in files.items():
                write_at(seat, name, text.encode("utf-8"), self.repairs, name)
            _remove(seat, DECISION)
            if snapshot_text is not None:
                self._sync_snapshots(logs, snapshot_text, upto)
        finally:
            os.close(seat)
            os.close(logs)

    def _sync_snapshots(self, logs: int, snapshot_text, upto: int) -> None:
        for k in range(upto):
            name = f"step_{k}.txt"
            known = self._written.get(k)
            if known is not None:
                if not self.check_snapshots:
                    continue
                try:
                    info = os.stat(name, dir_fd=logs, follow_symlinks=False)
                    if (info.st_ino, info.st_size, info.st_mtime_ns) == known and stat.S_ISREG(info.st_mode):
                        continue
                except FileNotFoundError:
                    pass
                self.repairs.append(f"step_logs/{name} was changed")
            self._written[k] = write_at(logs, name, snapshot_text(k).encode("utf-8"),
                                        self.repairs, f"step_logs/{name}")

    def read_decision(self, cap: int) -> tuple[bytes | None, str | None]:
        """(the decision file's bytes, up to ``cap + 1``; or None if there is
        none) and why it cannot be used at all (a link, fifo, directory...)."""
        seat, logs = self._open()
        os.close(logs)
        try:
            try:
                fd = os.open(DECISION, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
                             | os.O_NOCTTY, dir_fd=seat)
            except FileNotFoundError:
                return None, None
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    return b"", f"{DECISION} is a symbolic link; write a regular file"
                return b"", f"{DECISION} cannot be read: {exc.strerror or exc}"
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode):
                    return b"", f"{DECISION} is a {kind_of(info.st_mode)}, not a regular file"
                if info.st_nlink != 1:
                    return b"", f"{DECISION} is a hard link to another file"
                chunks, size = [], 0
                while size <= cap:
                    chunk = os.read(fd, cap + 1 - size)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                return b"".join(chunks), None
            finally:
                os.close(fd)
        finally:
            os.close(seat)


DECISION = "decision.txt"
