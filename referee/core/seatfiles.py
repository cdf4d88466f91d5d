"""A seat's private folder, written and read as if its player were hostile.

Every operation works through directory file descriptors opened without
following links, so a link a player planted (``Board.txt -> ../../log.jsonl``,
``step_logs -> ../../step_logs``) is replaced, never written through; a
directory or fifo in a view's place is removed by atomic rename rather than
blocking or crashing the referee; the decision is read only from a regular
file, without blocking.  What had to be repaired is reported, so the log can
say so.  This holds with or without the sandbox (DESIGN.md).

It is also on every step's critical path, and creating a file costs ten times
rewriting one (ext4; far more in a match, see :class:`Spares`); so the
directory fds are held for the match (checked by one stat per level at each
use), a view that is still a regular, singly linked file is rewritten in
place (nothing of its seat runs while it is written), a snapshot is filled
into a file made ahead (:meth:`SeatFolder.reserve_snapshot`, :class:`Spares`)
or created directly.  Anything else sitting in their place takes the slow,
atomic way and is reported."""
from __future__ import annotations

import collections
import contextlib
import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import inotify, trees

HELD = trees.FD_BASED and all(
    hasattr(os, flag) for flag in ("O_DIRECTORY", "O_NOFOLLOW", "O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC"))
"""Whether folders can be held open and files reached through them (POSIX);
on Windows a seat's folder is written by path (:class:`PathSeatFolder`)."""
DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
# An existing file opened to be written in place: never through a link, never
# blocking on a fifo (ENXIO when nobody reads it).
REWRITE_FLAGS = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | \
    getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
KINDS = {stat.S_IFDIR: "directory", stat.S_IFIFO: "fifo", stat.S_IFSOCK: "socket",
         stat.S_IFCHR: "device", stat.S_IFBLK: "device", stat.S_IFLNK: "symbolic link"}


def _stamp(info: os.stat_result) -> tuple[int, int, int]:
    """What says a file is still the one written: (inode, size, mtime_ns)."""
    return info.st_ino, info.st_size, info.st_mtime_ns


def _as_stamped(info: os.stat_result, known: tuple[int, int, int]) -> bool:
    return _stamp(info) == known and stat.S_ISREG(info.st_mode)


def kind_of(mode: int) -> str:
    return KINDS.get(stat.S_IFMT(mode), "special file")


def _remove(parent: int, name: str) -> None:
    """Remove whatever ``name`` is (file, link, fifo, directory tree of any
    depth): see :func:`referee.core.trees.remove_at`."""
    trees.remove_at(parent, name)


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
    info = _new_file(parent, tmp, data)
    try:
        os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
    except OSError:  # a directory sits where the file belongs
        before = os.stat(name, dir_fd=parent, follow_symlinks=False)
        repairs.append(f"{label} was a {kind_of(before.st_mode)}")
        _remove(parent, name)
        os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
    return _stamp(info)


def _new_file(parent: int, name: str, data: bytes) -> os.stat_result:
    """Create ``name`` (FileExistsError if anything is there) holding
    ``data``; on an error (disk full) no half-written file is left behind."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                 dir_fd=parent)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        info = os.fstat(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=parent)
        raise
    os.close(fd)
    return info


def _overwrite(fd: int, data: bytes, size: int) -> None:
    """Make the file ``fd`` (now ``size`` bytes) hold ``data``, in place."""
    view, at = memoryview(data), 0
    while at < len(data):
        at += os.pwrite(fd, view[at:], at)
    if len(data) < size:
        os.ftruncate(fd, len(data))


def rewrite_at(parent: int, name: str, data: bytes, repairs: list[str], label: str,
               create: Callable[..., tuple[int, int, int]] | None = None) -> tuple[int, int, int]:
    """Rewrite ``name`` in place if it is a regular file with one link (a
    link, fifo, directory or hard link is never written through), else
    replace it as :func:`write_at` does; a missing file is made by ``create``
    (:func:`create_at` by default); returns (inode, size, mtime_ns)."""
    try:
        fd = os.open(name, REWRITE_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        return (create or create_at)(parent, name, data, repairs, label)
    except OSError as exc:
        fd = -1
        if exc.errno == errno.ELOOP:
            repairs.append(f"{label} was a symbolic link")
        elif exc.errno == errno.ENXIO:  # a fifo nobody reads, a socket
            kind = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
            repairs.append(f"{label} was a {kind_of(kind)}")
        # a directory (EISDIR) is reported by write_at; a file made read-only is just replaced
    if fd >= 0:
        try:
            info = os.fstat(fd)
            if stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
                _overwrite(fd, data, info.st_size)
                info = os.fstat(fd)
                return _stamp(info)
            kind = "hard link to another file" if stat.S_ISREG(info.st_mode) else kind_of(info.st_mode)
            repairs.append(f"{label} was a {kind}")
        finally:
            os.close(fd)
    return write_at(parent, name, data, repairs, label)


def create_at(parent: int, name: str, data: bytes, repairs: list[str],
              label: str) -> tuple[int, int, int]:
    """Create the new file ``name`` with ``data`` (what sits there already is
    replaced as :func:`write_at` does); returns (inode, size, mtime_ns)."""
    try:
        info = _new_file(parent, name, data)
    except FileExistsError:
        return write_at(parent, name, data, repairs, label)
    return _stamp(info)


class Spares:
    """Empty files made ahead of time in the match's ``players/`` folder, for
    the file a step must create on its critical path (a seat's own last
    snapshot when it moves twice in a row, its first views).  Creating a file
    there cost ~330 us in the kernel (ext4 allocating an inode whose tables
    had gone cold), renaming one in ~45 us; so spares are created on the
    worker thread and a step fills one in place and renames it where the file
    belongs.  They sit outside every seat folder (the sandbox does not show
    ``players/``), and one that was tampered with is simply not used."""

    def __init__(self, players: Path) -> None:
        self.players = Path(players)
        self._fd: int | None = None
        self._stock: collections.deque[str] = collections.deque()
        self._made = 0

    def _dir(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.players, DIR_FLAGS)
        return self._fd

    def make(self, stock: int) -> None:
        """Bring the stock up to ``stock`` spares (on the worker thread)."""
        while len(self._stock) < stock:
            self._made += 1
            name = f".spare-{self._made}"
            with contextlib.suppress(FileExistsError):
                os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 0o644, dir_fd=self._dir()))
                self._stock.append(name)

    def create_at(self, parent: int, name: str, data: bytes, repairs: list[str],
                  label: str) -> tuple[int, int, int]:
        """:func:`create_at`, from a spare when there is one."""
        try:
            spare = self._stock.popleft()
        except IndexError:
            return create_at(parent, name, data, repairs, label)
        try:
            os.stat(name, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            pass
        else:  # something is there already: the slow way, which reports it
            self._stock.appendleft(spare)
            return create_at(parent, name, data, repairs, label)
        try:
            fd = os.open(spare, REWRITE_FLAGS, dir_fd=self._dir())
        except OSError:
            return create_at(parent, name, data, repairs, label)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1 or info.st_size:
                return create_at(parent, name, data, repairs, label)
            _overwrite(fd, data, 0)
            info = os.fstat(fd)
            os.rename(spare, name, src_dir_fd=self._dir(), dst_dir_fd=parent)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(spare, dir_fd=self._dir())
            raise
        finally:
            os.close(fd)
        return _stamp(info)

    def close(self) -> None:
        """Remove the spares left over (the match is over)."""
        if self._fd is None:
            return
        while self._stock:
            with contextlib.suppress(OSError):
                os.unlink(self._stock.popleft(), dir_fd=self._fd)
        os.close(self._fd)
        self._fd = None


@dataclass
class SeatFolder:
    """``players/p<id>/`` of a match folder, for one seat."""

    match_root: Path
    player: int
    check_snapshots: bool = True  # False where the sandbox mounts step_logs read-only
    spares: Spares | None = None  # files made ahead of time, for creations on the critical path
    # The seat folder where it is not the match's players/p<id>/: a warm
    # seat's slot (referee.core.warmseats), <slot>/players/seat.
    folder: Path | None = None
    repairs: list[str] = field(default_factory=list)
    _written: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    _reserved: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # created empty, to fill: stamps
    _held: tuple[int, int, int, int] | None = None  # (match root, players, seat, step_logs) fds
    _checked: bool = False  # _held checked since a player last ran (see may_have_changed)
    _idents: list[tuple[int, int]] = field(default_factory=list)
    _views: dict[str, tuple[int, tuple[int, int]]] = field(default_factory=dict)  # name: (fd, _ident)
    # Without a sandbox (check_snapshots): what changed in step_logs/ since
    # it was last checked, from a watch (see _sync_snapshots, usage).
    _watch: inotify.Watch | None = None
    _watched: tuple[int, int] | None = None  # the step_logs/ it watches
    _dir_wd: int | None = None
    _file_wds: dict[int, int] = field(default_factory=dict)  # watch: snapshot number
    _suspect: set[int] = field(default_factory=set)  # snapshots touched since last seen as written
    # Snapshots someone may hold open since last seen as written: one opened
    # for writing can be written through a shared mapping, which no event
    # reports (see _sync_snapshots).
    _opened: set[int] = field(default_factory=set)
    _strays: bool = False  # step_logs/ may hold more than our snapshots
    _trusted: bool = False  # every change since the last check of all is in the watch's events
    _costs: dict[int, int] = field(default_factory=dict)  # snapshot number: its disk cost, as written
    _cost_total: int = 0
    _complete_below: int = 0  # every snapshot below this number is written (or reserved)

    @property
    def path(self) -> Path:
        return self.folder if self.folder is not None else self.match_root / "players" / f"p{self.player}"

    @property
    def _name(self) -> str:
        return self.folder.name if self.folder is not None else f"p{self.player}"

    def _dirs(self) -> tuple[int, int]:
        """(seat fd, step_logs fd), held until :meth:`close`.  At the first
        use since a player may have run (:meth:`may_have_changed`) one stat
        per level checks that the way there is still the same real, usable
        directories; if not, it is opened afresh, repairing.  (Checked at
        every use, a step made ~10 of those stats: its views, the decision
        removed, the snapshots added and the one reserved, where nothing
        could have changed the folders in between.)"""
        if self._still_held():
            assert self._held is not None
            return self._held[2], self._held[3]
        self.close()
        fds: list[int] = []
        try:
            fds.append(os.open(self.path.parent.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
            fds.append(open_dir(fds[-1], "players", self.repairs, "players/"))
            fds.append(open_dir(fds[-1], self._name, self.repairs, f"players/p{self.player}/"))
            fds.append(open_dir(fds[-1], "step_logs", self.repairs, "step_logs/"))
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        self._held = (fds[0], fds[1], fds[2], fds[3])
        self._idents = [_ident(os.fstat(fd)) for fd in fds[1:]]
        self._checked = True
        return fds[2], fds[3]

    def _still_held(self) -> bool:
        """Whether the held directories are still the way to the seat (see
        :meth:`_dirs`), looked at only if a player may have run since."""
        if self._held is None:
            return False
        if not self._checked:
            self._checked = self._unchanged()
        return self._checked

    def may_have_changed(self) -> None:
        """A player is about to run that can reach this folder (its own; any
        without a sandbox): the next use of the held directories checks
        them again.  Only the referee touches a seat's folder while none
        runs (a spawned player's processes are swept after its step, a
        kept-alive one is frozen)."""
        self._checked = False

    def _unchanged(self) -> bool:
        assert self._held is not None
        root, players, seat, _ = self._held
        for (parent, name), ident in zip(((root, "players"), (players, self._name),
                                          (seat, "step_logs")), self._idents):
            try:
                info = os.stat(name, dir_fd=parent, follow_symlinks=False)
            except OSError:
                return False
            if _ident(info) != ident or not stat.S_ISDIR(info.st_mode) or info.st_mode & 0o700 != 0o700:
                return False
        return True

    def _create(self, parent: int, name: str, data: bytes, repairs: list[str],
                label: str) -> tuple[int, int, int]:
        spares = self.spares
        return (spares.create_at if spares else create_at)(parent, name, data, repairs, label)

    def close(self) -> None:
        """Let go of the held directories and view files (the match calls
        this at its end)."""
        held, self._held = self._held, None
        self._checked = False
        views, self._views = self._views, {}
        for fd in [*(held or ()), *(fd for fd, _ in views.values())]:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._unwatch()

    # ----- what changed in step_logs/ (without a sandbox)
    def _watching(self, logs: int) -> bool:
        """Whether step_logs/ (the held ``logs``) is watched: a watch is made
        at first use, and again for another directory there (see _dirs).  A
        new watch knows nothing of what came before it: the next check is of
        every snapshot (``_trusted`` False)."""
        if not self.check_snapshots or not self._idents:
            return False
        ident = self._idents[-1]
        if self._watched != ident:
            self._unwatch()
            self._watched = ident
            self._strays = True  # (what was there before the watch: usage() walks it once to see)
            self._watch = inotify.Watch.open()
            if self._watch is not None:
                self._dir_wd = self._watch.add(f"/proc/self/fd/{logs}", inotify.CHANGES | inotify.ONLYDIR)
        return self._dir_wd is not None

    def _unwatch(self) -> None:
        if self._watch is not None:
            self._watch.close()
        self._watch, self._watched, self._dir_wd = None, None, None
        self._file_wds.clear()
        self._suspect.clear()
        self._trusted = False

    def _watch_file(self, logs: int, k: int) -> bool:
        """Watch the snapshot ``k`` just written (a change made through a
        hard link elsewhere is reported to the file's watch only), and note
        its disk cost, for usage(); whether it is watched."""
        name = f"step_{k}.txt"
        try:
            cost = trees.cost(os.stat(name, dir_fd=logs, follow_symlinks=False))
        except OSError:
            cost = trees.ENTRY_BYTES
        self._cost_total += cost - self._costs.get(k, 0)
        self._costs[k] = cost
        if self._watch is None or self._dir_wd is None:
            return False
        wd = self._watch.add(f"/proc/self/fd/{logs}/{name}", inotify.MODIFY | inotify.ATTRIB | inotify.OPEN
                             | inotify.DELETE_SELF | inotify.MOVE_SELF | inotify.DONT_FOLLOW)
        if wd is None:
            self._trusted = False  # (no watches left): every snapshot is checked, as before
            return False
        self._file_wds[wd] = k
        return True

    def _gather(self, logs: int, own: bool = False) -> None:
        """Take the watch's events: snapshots touched (``_suspect``) or
        opened (``_opened``; not where the opens are ``own``), other names
        that are there (``_strays``), or a lost track (``_trusted``; who
        opened what meanwhile is not known either)."""
        if self._watch is None:
            return
        names = set()
        for wd, mask, name in self._watch.events():
            if wd == self._dir_wd and name and not mask & inotify.OVERFLOW:
                names.add(name)
            elif wd == self._dir_wd or wd not in self._file_wds:
                if wd == self._dir_wd or mask & inotify.OVERFLOW:
                    self._trusted = False  # step_logs/ itself moved or removed, or events lost
                if mask & inotify.OVERFLOW:
                    self._opened.update(self._written)
                    self._opened.update(self._reserved)
            elif mask & inotify.OPEN:
                if not own:
                    self._opened.add(self._file_wds[wd])
            else:
                self._suspect.add(self._file_wds[wd])
                if mask & inotify.IGNORED:  # its file is gone: no watch on that number now
                    del self._file_wds[wd]
        for name in names:
            k = _snapshot_number(name)
            if k is not None and (k in self._written or k in self._reserved):
                self._suspect.add(k)
                continue
            try:
                os.stat(name, dir_fd=logs, follow_symlinks=False)
            except FileNotFoundError:
                continue  # came and went (a temporary file of ours, or the player's)
            except OSError:
                pass
            self._strays = True

    def _settle(self, logs: int, own: bool = False) -> None:
        """After our own writes: the snapshots their events name are checked
        at once, and forgotten if they are as written (only a change by
        someone else stays suspect, for the seat's next check).  ``own``: no
        one else ran meanwhile (the seat's own check), so the opens were ours."""
        if self._watch is None:
            return
        self._gather(logs, own)
        for k in list(self._suspect):
            if self._as_written(logs, k):
                self._suspect.discard(k)

    def _as_written(self, logs: int, k: int) -> bool:
        known = self._written.get(k) or self._reserved.get(k)
        if known is None:
            return False
        try:
            info = os.stat(f"step_{k}.txt", dir_fd=logs, follow_symlinks=False)
        except OSError:
            return False
        return _as_stamped(info, known)

    def usage(self, budget: int | None) -> trees.Usage:
        """What the seat folder occupies on the disk (stopping past
        ``budget``).  Where the sandbox mounts ``step_logs/`` read-only it
        holds only the referee's snapshots, and is not walked (a walk of
        it cost O(steps) at every step).  Without a sandbox it is not walked
        either while its watch says that it holds only our snapshots, as we
        wrote them: their costs are added up as they were written."""
        if not self.check_snapshots:
            return trees.tree_usage(self.path, budget, ("step_logs",))
        if self._watch is not None and self._still_held():
            logs = self._held[3]
            self._gather(logs)
            if self._trusted and not self._suspect and not self._strays:
                usage = trees.tree_usage(self.path, budget, ("step_logs",))
                try:
                    usage.bytes += trees.cost(os.fstat(logs)) + self._cost_total
                except OSError:
                    usage.complete = False
                usage.entries += 1 + len(self._costs)
                if usage.complete and not usage.over and (budget is None or usage.bytes <= budget):
                    return usage
        usage = trees.tree_usage(self.path, budget)
        if self._strays and self._held is not None:  # all that is there is ours again?
            with contextlib.suppress(OSError):
                self._strays = not all(_snapshot_number(name) in self._costs
                                       for name in os.listdir(self._held[3]))
        return usage

    def clear(self, keep: tuple[str, ...] = ("stdout.txt", "stderr.txt"), keep_bytes: int = 1 << 20) -> None:
        """Empty the folder of a seat that went over its disk budget: all
        but ``keep`` (the host's output files, cut to ``keep_bytes``) is
        removed; the next step writes its views and snapshots afresh."""
        self.close()
        self._written.clear()
        self._reserved.clear()
        self._costs.clear()
        self._opened.clear()
        self._cost_total, self._complete_below, self._strays = 0, 0, False
        try:
            seat = os.open(self.path, DIR_FLAGS)
        except OSError:
            return
        try:
            with os.scandir(seat) as entries:
                names = [entry.name for entry in entries]
            for name in names:
                if name not in keep:
                    _remove(seat, name)
                    continue
                with contextlib.suppress(OSError):
                    fd = os.open(name, REWRITE_FLAGS, dir_fd=seat)
                    try:
                        if stat.S_ISREG(os.fstat(fd).st_mode) and os.fstat(fd).st_size > keep_bytes:
                            os.ftruncate(fd, keep_bytes)
                    finally:
                        os.close(fd)
        finally:
            os.close(seat)

    def take_repairs(self) -> list[str]:
        done, self.repairs = self.repairs, []
        return done

    def write_views(self, files: dict[str, str], snapshot_text=None, upto: int = 0) -> None:
        """Write the view files, remove any old decision, and bring
        ``step_logs/`` up to ``step_<upto - 1>.txt``: new snapshots come from
        ``snapshot_text(k)``, and an old one someone changed is written again."""
        seat, logs = self._dirs()
        for name, text in files.items():
            self._write_view(seat, name, text.encode("utf-8"))
        _remove(seat, DECISION)
        if snapshot_text is not None:
            self._sync_snapshots(logs, snapshot_text, upto, self.check_snapshots)

    def _write_view(self, seat: int, name: str, data: bytes) -> None:
        """Rewrite a view through the fd kept from the seat's last step if the
        name still leads to that same regular, singly linked file (one stat,
        where opening and checking it again took four system calls); else as
        :func:`rewrite_at` does, then keep the file's fd for the next step."""
        held = self._views.pop(name, None)
        if held is not None:
            fd, ident = held
            try:
                info = os.stat(name, dir_fd=seat, follow_symlinks=False)
                same = stat.S_ISREG(info.st_mode) and info.st_nlink == 1 and _ident(info) == ident
            except OSError:
                same = False
            if same:
                try:
                    _overwrite(fd, data, info.st_size)
                except BaseException:
                    os.close(fd)
                    raise
                self._views[name] = held
                return
            os.close(fd)
        rewrite_at(seat, name, data, self.repairs, name, self._create)
        try:
            fd = os.open(name, REWRITE_FLAGS, dir_fd=seat)
        except OSError:
            return
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
            self._views[name] = (fd, _ident(info))
        else:
            os.close(fd)

    def add_snapshots(self, snapshot_text, upto: int) -> None:
        """Write the snapshots up to ``step_<upto - 1>.txt`` that are missing,
        without checking the old ones (the seat's own step does that)."""
        logs = self._dirs()[1]
        self._sync_snapshots(logs, snapshot_text, upto, False)

    def reserve_snapshot(self, k: int) -> None:
        """Create ``step_<k>.txt`` empty ahead of time, while another seat
        plays step ``k``; the step after it fills it in place.  A file's
        creation costs ~10 times its rewrite (ext4), and this one would
        otherwise sit on the next step's critical path.  The seat does not run
        meanwhile (its snapshots up to ``k - 1`` are all it may look at)."""
        if k in self._written or k in self._reserved:
            return
        logs = self._dirs()[1]
        try:
            fd = os.open(f"step_{k}.txt", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o644, dir_fd=logs)
        except OSError:
            return  # something is there: the step replaces it
        self._reserved[k] = _stamp(os.fstat(fd))
        os.close(fd)
        if self.check_snapshots:
            if self._watching(logs):
                self._watch_file(logs, k)
                self._settle(logs)

    def forget_decision(self) -> None:
        """Remove the decision file once it is read (the next step would)."""
        _remove(self._dirs()[0], DECISION)

    def _sync_snapshots(self, logs: int, snapshot_text, upto: int, check: bool) -> None:
        """Write the snapshots below ``upto`` that are missing; with ``check``,
        write again those someone changed: every one, or, where step_logs/ is
        watched and the watch has not lost track, those its events name (see
        :mod:`.inotify`: checking every one cost O(steps) a step).  A write
        through a shared mapping raises no event (and on tmpfs changes no
        time): one someone opened since is read back too, and written again
        (as a new file) if it differs or someone may still hold it open for
        writing.  With ``check``, nothing of another seat runs meanwhile
        (the seat's step is next)."""
        watched = self.check_snapshots and self._watching(logs)
        if check:
            if watched:
                self._gather(logs)
            if watched and self._trusted:
                olds = sorted(k for k in self._suspect | self._opened if k < upto and k in self._written)
            else:
                olds = [k for k in range(upto) if k in self._written]
                self._trusted = watched  # (a watch that fails from here says so)
                seen = set(self._file_wds.values())
                for k in olds:  # (a new watch has none on what came before it)
                    if k not in seen and self._watch_file(logs, k):
                        self._opened.add(k)  # (nor knows who opened it before)
            for k in olds:
                self._suspect.discard(k)
                name = f"step_{k}.txt"
                known = self._written[k]
                why = "was changed"
                try:
                    info = os.stat(name, dir_fd=logs, follow_symlinks=False)
                    if _as_stamped(info, known):
                        if not watched or k not in self._opened:
                            continue
                        why = _unlike(logs, name, snapshot_text(k).encode("utf-8"))
                        if why is None:
                            self._opened.discard(k)
                            continue
                except FileNotFoundError:
                    pass
                self._opened.discard(k)
                self.repairs.append(f"step_logs/{name} {why}")
                self._written[k] = write_at(logs, name, snapshot_text(k).encode("utf-8"),
                                            self.repairs, f"step_logs/{name}")
                if self.check_snapshots:
                    self._watch_file(logs, k)
        for k in range(self._complete_below, upto):
            if k in self._written:
                continue
            name = f"step_{k}.txt"
            if self._reserved.pop(k, None) is not None:
                self._written[k] = rewrite_at(logs, name, snapshot_text(k).encode("utf-8"),
                                              self.repairs, f"step_logs/{name}")
            else:
                self._written[k] = self._create(logs, name, snapshot_text(k).encode("utf-8"),
                                                self.repairs, f"step_logs/{name}")
                if self.spares is not None:
                    self._opened.add(k)  # (a spare: who opened it before it was ours to watch?)
            if self.check_snapshots:
                self._watch_file(logs, k)
        self._complete_below = max(self._complete_below, upto)
        if watched:
            self._settle(logs, own=check)

    def names(self, since: float = 0.0) -> list[str]:
        """The names in the seat folder the player ran in (as held; see
        :meth:`read_decision`) of the entries changed since ``since`` (a
        ``time.time()``), for a hint when it wrote no decision file; empty
        where it cannot be listed."""
        try:
            folder = self._held[2] if self._held else self._dirs()[0]
            found = []
            for name in os.listdir(folder):
                try:
                    if os.stat(name, dir_fd=folder, follow_symlinks=False).st_mtime >= since:
                        found.append(name)
                except OSError:
                    continue
            return found
        except OSError:
            return []

    def read_decision(self, cap: int) -> tuple[bytes | None, str | None]:
        """(the decision file's bytes, up to ``cap + 1``; or None if there is
        none) and why it cannot be used at all (a link, fifo, directory...)."""
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
        try:
            # The folder the player ran in, as held: if it moved its folder
            # away meanwhile, its decision went there.  Only a folder it made
            # unreadable needs the check (and repair) of _dirs first.
            try:
                fd = os.open(DECISION, flags, dir_fd=self._held[2] if self._held else self._dirs()[0])
            except PermissionError:
                folder = self._dirs()[0]
                try:
                    fd = os.open(DECISION, flags, dir_fd=folder)
                except PermissionError:
                    fd = _open_unreadable(DECISION, flags, folder)
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
                if size == info.st_size:  # all it held when looked at: no read of its end needed
                    break
            return b"".join(chunks), None
        finally:
            os.close(fd)


def _open_unreadable(name: str, flags: int, folder: int) -> int:
    """Open a regular file of ours that its mode bits forbid us to read (a
    player whose umask was 0777 wrote it with mode 000): made readable by its
    owner first, through an ``O_PATH`` descriptor, so no link is followed.
    Root reads such a file anyway; an ordinary user's referee must judge the
    same decision the same way.  PermissionError if it is not ours, or this
    system has no ``O_PATH``."""
    if not hasattr(os, "O_PATH"):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)
    handle = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1 or info.st_uid != os.geteuid():
            # (a hard link could name one of the referee's own files: its mode stays)
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)
        link = f"/proc/self/fd/{handle}"  # the file itself, whatever its name now points at
        os.chmod(link, stat.S_IMODE(info.st_mode) | stat.S_IRUSR)
        return os.open(link, flags & ~os.O_NOFOLLOW)
    finally:
        os.close(handle)


def _unlike(parent: int, name: str, data: bytes) -> str | None:
    """Why the snapshot ``name``, which someone opened, must be written
    again, or None: it must hold ``data``, and no one may hold it open for
    writing (to write through a mapping later), which a read lease (fcntl
    F_SETLEASE, its owner's or root's) tells: it is refused then.  The
    lease is held while it is read; one broken meanwhile signals SIGURG,
    ignored by default, not SIGIO, which would end the referee."""
    import fcntl  # (POSIX only, as this whole check is: see _watching)
    import signal

    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC,
                     dir_fd=parent)
    except OSError:
        return "was changed"
    try:
        try:
            fcntl.fcntl(fd, getattr(fcntl, "F_SETSIG", 10), signal.SIGURG)
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
        except OSError as exc:
            if exc.errno == errno.EAGAIN:
                return "was held open for writing"
            # (no leases on this file system, NFS say: its bytes alone tell)
        return None if os.pread(fd, len(data) + 1, 0) == data else "was changed"
    except OSError:
        return "was changed"
    finally:
        os.close(fd)


def _ident(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


DECISION = "decision.txt"
VIEWS = ("Board.txt", "state.json")  # what the referee writes there before each step (Match._write_player_files)


class PathSpares(Spares):
    """Spares where a folder cannot be held (Windows): none are made."""

    def make(self, stock: int) -> None:
        pass

    def close(self) -> None:
        pass


class PathSeatFolder(SeatFolder):
    """:class:`SeatFolder` where a folder cannot be held open and files
    reached through it (Windows: no ``dir_fd``, ``O_NOFOLLOW`` or
    ``O_DIRECTORY``): the same files, by their paths.  What is in a file's or
    folder's place is looked at first (``lstat``): a link, a folder or a
    hard link where a file belongs is removed, and said so; every file is
    replaced whole (``os.replace``), never written through.  There is no
    sandbox there, and a link needs privileges to make."""

    def close(self) -> None:
        pass

    def usage(self, budget: int | None) -> trees.Usage:
        return trees.tree_usage(self.path, budget)

    def _folders(self) -> Path:
        """The seat folder and its step_logs/, real folders."""
        for folder, label in ((self.path, f"players/{self._name}/"), (self.path / "step_logs", "step_logs/")):
            try:
                info: os.stat_result | None = os.lstat(folder)
            except FileNotFoundError:
                info = None
            if info is not None and not stat.S_ISDIR(info.st_mode):
                self.repairs.append(f"{label} was a {kind_of(info.st_mode)}")
                trees.remove_tree(folder)
                info = None
            if info is None:
                folder.mkdir(parents=True, exist_ok=True)
        return self.path / "step_logs"

    def _replace(self, path: Path, data: bytes, label: str) -> tuple[int, int, int]:
        try:
            info: os.stat_result | None = os.lstat(path)
        except FileNotFoundError:
            info = None
        if info is not None and (not stat.S_ISREG(info.st_mode) or info.st_nlink != 1):
            self.repairs.append(f"{label} was a " + (kind_of(info.st_mode) if not stat.S_ISREG(info.st_mode)
                                                      else "hard link to another file"))
            trees.remove_tree(path)
        from .files import write_bytes

        write_bytes(path, data)
        info = os.lstat(path)
        return _stamp(info)

    def write_views(self, files: dict[str, str], snapshot_text=None, upto: int = 0) -> None:
        logs = self._folders()
        for name, text in files.items():
            self._replace(self.path / name, text.encode("utf-8"), name)
        self.forget_decision()
        if snapshot_text is not None:
            self._snapshots(logs, snapshot_text, upto, self.check_snapshots)

    def add_snapshots(self, snapshot_text, upto: int) -> None:
        self._snapshots(self._folders(), snapshot_text, upto, False)

    def reserve_snapshot(self, k: int) -> None:
        pass  # (made ahead to save a creation on ext4's critical path; here it is made when due)

    def forget_decision(self) -> None:
        decision = self.path / DECISION
        if os.path.lexists(decision):
            trees.remove_tree(decision)

    def _snapshots(self, logs: Path, snapshot_text, upto: int, check: bool) -> None:
        for k in range(upto):
            name = f"step_{k}.txt"
            known = self._written.get(k)
            if known is not None:
                if not check:
                    continue
                try:
                    info = os.lstat(logs / name)
                    if _as_stamped(info, known):
                        continue
                except FileNotFoundError:
                    pass
                self.repairs.append(f"step_logs/{name} was changed")
            self._written[k] = self._replace(logs / name, snapshot_text(k).encode("utf-8"), f"step_logs/{name}")

    def names(self, since: float = 0.0) -> list[str]:
        try:
            with os.scandir(self.path) as entries:
                return [entry.name for entry in entries if entry.stat(follow_symlinks=False).st_mtime >= since]
        except OSError:
            return []

    def read_decision(self, cap: int) -> tuple[bytes | None, str | None]:
        path = self.path / DECISION
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return b"", f"{DECISION} cannot be read: {exc.strerror or exc}"
        if stat.S_ISLNK(info.st_mode):
            return b"", f"{DECISION} is a symbolic link; write a regular file"
        if not stat.S_ISREG(info.st_mode):
            return b"", f"{DECISION} is a {kind_of(info.st_mode)}, not a regular file"
        if info.st_nlink != 1:
            return b"", f"{DECISION} is a hard link to another file"
        try:
            with open(path, "rb") as f:
                return f.read(cap + 1), None
        except OSError as exc:
            return b"", f"{DECISION} cannot be read: {exc.strerror or exc}"

    def clear(self, keep: tuple[str, ...] = ("stdout.txt", "stderr.txt"), keep_bytes: int = 1 << 20) -> None:
        self._written.clear()
        self._reserved.clear()
        try:
            with os.scandir(self.path) as entries:
                found = [(entry.name, entry.path) for entry in entries]
        except OSError:
            return
        for name, path in found:
            if name not in keep:
                trees.remove_tree(Path(path))
                continue
            with contextlib.suppress(OSError):
                if os.lstat(path).st_size > keep_bytes and stat.S_ISREG(os.lstat(path).st_mode):
                    os.truncate(path, keep_bytes)


if not HELD:  # (Windows) every seat folder and its spares by path
    SeatFolder = PathSeatFolder  # type: ignore[misc]  # noqa: F811
    Spares = PathSpares  # type: ignore[misc]  # noqa: F811


def _snapshot_number(name: str) -> int | None:
    """k for ``step_<k>.txt`` written as the referee writes it, else None."""
    if name.startswith("step_") and name.endswith(".txt"):
        digits = name[5:-4]
        if digits.isdigit() and str(int(digits)) == digits:
            return int(digits)
    return None
