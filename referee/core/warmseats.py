"""Warm seats: an entrant's seat host (and sandbox) kept for its next games of a series.

A fresh bubblewrap sandbox and seat host per seat and game cost ~50 ms of CPU
(bwrap's ~50 mounts, the host's Python start-up), two a game: as much as a
fast game's two players.  So a series played by a fork server's workers
(:mod:`referee.tournament.forkserver`) keeps them: a game's worker hands each
seat host back to the fork server when its game ends, and a later game of the
same entrant (the same program, limits and environment: the same *key*)
takes it instead of starting one.

Each game still gets a fresh player process and a fresh seat folder, and
nothing a game's player left reaches the next game:

- the sandbox binds a *slot* folder (``games/.seats/<n>/players/seat``) as the
  seat folder; the referee writes the seat's files there, and when the game
  ends moves every file the slot holds into the game's own
  ``players/p<id>/`` (a rename, same file system: the game folder ends as
  it would have), so the next game's seat folder is empty;
- before that, the host (pid 1 of the sandbox's pid namespace) kills every
  other process, empties the private ``/tmp`` and ``/dev/shm`` and the
  seat's keyrings, and checks that no process, System V IPC object, POSIX
  message queue or key is left (``seathost.reset``); the referee checks the slot (the same folders, its
  modes, no extended attribute, nothing left in it);
- the player's cwd, umask, rlimits and environment are its own process's:
  the next player is a new process started as any is; a kept host's own
  limits are those of its key;
- anything unusual (a host that died or does not answer, a reset that
  found something, a slot that was tampered with, a control group that
  holds more than the host) ends that host: the entrant's next game starts
  a fresh one.

Without a sandbox a host is kept only where a control group holds its seat
(see ``players.ProcessAgent.warm_seat``): it has no slot, it runs each game's
player in that game's own seat folder, and its reset kills all it started.

The fork server (its :class:`Keeper`) holds the kept hosts' pipes and
pidfds; a worker asks for one by key (:func:`take`) and gives it back
(:func:`give`) over a unix socket, the file descriptors passed along.  The
server is a subreaper, so that a host whose worker is gone is its child
(reaped, its CPU counted); when the server ends it closes their pipes and
each host ends its sandbox."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .cgroups import _alive

SLOTS = ".seats"
"""The folder, beside a series' game folders, that holds its warm seats' slots."""
SEAT = "seat"
"""A slot's seat folder: ``<slot>/players/seat``."""
MAX_KEPT = 8
"""Seat hosts the fork server keeps at most (each a small Python and a
bwrap, ~12 MB): a two-player series at ``--jobs 1`` needs six (each
entrant's in the game that plays and the two set up ahead); in a
tournament of many entrants the longest unused are ended first."""
MESSAGE = 1 << 16

_channel: list[socket.socket] = []  # the worker's end of its socket to the fork server
_keeper: list[int] = []  # the fork server's pid


def connect(fd: int) -> None:
    """In a worker: the fork server's socket is ``fd`` (warm seats are on)."""
    _channel[:] = [socket.socket(fileno=fd)]
    _keeper[:] = [os.getppid()]


def keeper_pid() -> int | None:
    """The fork server's pid (a kept seat's control group is its)."""
    return _keeper[0] if _keeper else None


def enabled() -> bool:
    """Whether this worker keeps its seats warm: it has a fork server to
    keep them, and ``REFEREE_WARM_SEATS`` is not ``off`` (every game then
    starts its own, as a single match does)."""
    return bool(_channel) and os.environ.get("REFEREE_WARM_SEATS", "") != "off"


@dataclass
class Lease:
    """A warm host as it is handed over: its pid, the write end of its input,
    the read end of its output, a pidfd, its slot and what its control
    group's folders are (or none)."""

    pid: int
    stdin: int
    stdout: int
    pidfd: int
    slot: str  # "" without a sandbox (no slot: the host works in each game's seat folder)
    groups: dict[str, str] | None = None
    version: int = 0
    log: str = ""  # the host's log (its stderr), over all its games

    def meta(self) -> dict:
        return {"pid": self.pid, "slot": self.slot, "groups": self.groups, "version": self.version,
                "log": self.log}


def key_of(parts: object) -> str:
    """The key of a host: the hash of what makes it (its sandbox's command
    line without the slot, its environment, its limits)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def take(key: str) -> Lease | None:
    """A kept host of this key, now this worker's; None if there is none."""
    if not _channel:
        return None
    sock = _channel[0]
    try:
        sock.sendall(b"take " + key.encode())
        data, fds, _, _ = socket.recv_fds(sock, MESSAGE, 3)
    except OSError:
        return None
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        return None
    meta = json.loads(data)
    return Lease(meta["pid"], fds[0], fds[1], fds[2], meta["slot"], meta.get("groups"), meta.get("version", 0),
                 meta.get("log", ""))


def give(key: str, lease: Lease) -> bool:
    """Hand a reset host to the fork server for a later game of its key
    (its descriptors here are closed)."""
    if not _channel:
        return False
    try:
        socket.send_fds(_channel[0], [b"keep " + json.dumps({"key": key, **lease.meta()}).encode()],
                        [lease.stdin, lease.stdout, lease.pidfd])
        return True
    except OSError:
        return False
    finally:
        for fd in (lease.stdin, lease.stdout, lease.pidfd):
            with contextlib.suppress(OSError):
                os.close(fd)


def new_slot(games: Path) -> Path:
    """A new slot's seat folder under ``games/.seats`` (with its step_logs/)."""
    base = games / SLOTS
    base.mkdir(exist_ok=True)
    while True:
        slot = base / f"{os.getpid()}-{time.monotonic_ns()}"
        try:
            slot.mkdir()
            break
        except FileExistsError:
            continue
    seat = slot / "players" / SEAT
    (seat / "step_logs").mkdir(parents=True)
    return seat


def new_log(games: Path) -> Path:
    """Where a new warm host without a slot (no sandbox) logs, under
    ``games/.seats``: not in its first game's folder, which is done when the
    host still works for later games."""
    base = games / SLOTS
    base.mkdir(exist_ok=True)
    return base / f"host-{os.getpid()}-{time.monotonic_ns()}.log"


def slot_state(seat: Path) -> tuple | None:
    """What the referee checks of a slot between games (the seat folder and
    its step_logs/ the same folders, as made, no extended attribute); None
    if it cannot be read."""
    try:
        found = []
        for path in (seat, seat / "step_logs"):
            info = os.stat(path, follow_symlinks=False)
            found.append((info.st_dev, info.st_ino, info.st_mode, info.st_uid,
                          tuple(os.listxattr(path, follow_symlinks=False))))
        return tuple(found)
    except OSError:
        return None


def land(seat: Path, home: Path) -> bool:
    """Move everything the slot's seat folder holds into the game's own seat
    folder ``home`` (and its step_logs/ into ``home``'s): the game folder
    ends as if its seat had been there.  True if the slot is left empty."""
    ok = True
    for source, target in ((seat / "step_logs", home / "step_logs"), (seat, home)):
        try:
            target.mkdir(parents=True, exist_ok=True)
            names = os.listdir(source)
        except OSError:
            ok = False
            continue
        for name in names:
            if source == seat and name == "step_logs":
                continue
            try:
                os.rename(source / name, target / name)
            except OSError:
                ok = False
    with contextlib.suppress(OSError):
        ok = ok and os.listdir(seat) == ["step_logs"] and not os.listdir(seat / "step_logs")
    return ok


def tell(note: str) -> None:
    """A note for the fork server on this worker's socket (``played``: the
    game's last step is played and logged, see ``forkserver``); nothing
    without one."""
    if _channel:
        with contextlib.suppress(OSError):
            _channel[0].sendall(note.encode())


def remove_slot(seat: Path) -> None:
    """Remove a slot that is not kept (its host ended)."""
    from .trees import remove_tree

    remove_tree(seat.parent.parent)


# ----- the fork server's end ---------------------------------------------------------

@dataclass
class _Kept:
    key: str
    lease: Lease


class Keeper:
    """The kept hosts, in the fork server: given back by workers, taken by
    later ones; a kept host that dies is dropped."""

    def __init__(self, subreaper: bool = True) -> None:
        self.pool: dict[str, list[_Kept]] = {}
        self.watched: dict[int, _Kept] = {}  # pidfd: a kept host
        self.reaping: set[int] = set()  # hosts' pids to reap once they are our children and end
        self.groups: dict[int, dict[str, str]] = {}  # pid: its group's folders, removed once it ends
        if subreaper:  # the hosts of workers that are gone become our children
            # (Not runner._become_subreaper: it remembers that it did, and the
            # workers forked from here, which are not subreapers, would believe it.)
            with contextlib.suppress(Exception):
                import ctypes

                ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER

    @staticmethod
    def channel() -> tuple[socket.socket, socket.socket]:
        """(the server's end, the worker's end) of a new worker's socket."""
        return socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)

    def handle(self, sock: socket.socket, note: Callable[[str], None] | None = None) -> bool:
        """One message from a worker; False once it is gone.  A message that
        is no seat's (see :func:`tell`) goes to ``note``."""
        try:
            data, fds, _, _ = socket.recv_fds(sock, MESSAGE, 3)
        except OSError:
            return False
        if not data:
            return False
        verb, _, rest = data.partition(b" ")
        if verb == b"take":
            self._take(sock, rest.decode())
        elif verb == b"keep" and len(fds) == 3:
            meta = json.loads(rest)
            lease = Lease(meta["pid"], fds[0], fds[1], fds[2], meta["slot"], meta.get("groups"),
                          meta.get("version", 0), meta.get("log", ""))
            kept = _Kept(meta["key"], lease)
            self.pool.setdefault(kept.key, []).append(kept)
            self.watched[lease.pidfd] = kept
            self.reaping.add(lease.pid)
            if lease.groups:
                self.groups[lease.pid] = lease.groups
            while len(self.watched) > MAX_KEPT:  # the one given back longest ago
                self.drop(next(iter(self.watched)))
        elif not fds and note is not None:
            note(data.decode(errors="replace"))
        else:
            for fd in fds:
                os.close(fd)
        return True

    def _take(self, sock: socket.socket, key: str) -> None:
        kept = None
        while self.pool.get(key):
            candidate = self.pool[key].pop()
            if select.select([candidate.lease.pidfd], [], [], 0)[0]:  # it ended meanwhile
                self.drop(candidate.lease.pidfd)
                continue
            kept = candidate
            break
        if kept is None:
            with contextlib.suppress(OSError):
                sock.sendall(b"none")
            return
        lease = kept.lease
        del self.watched[lease.pidfd]
        try:
            socket.send_fds(sock, [json.dumps(lease.meta()).encode()], [lease.stdin, lease.stdout, lease.pidfd])
        except OSError:
            pass
        for fd in (lease.stdin, lease.stdout, lease.pidfd):
            with contextlib.suppress(OSError):
                os.close(fd)

    def fds(self) -> list[int]:
        """The kept hosts' pidfds (readable once a host ends)."""
        return list(self.watched)

    def drop(self, pidfd: int) -> None:
        """A kept host ended (or is ended): let it go, remove its slot."""
        kept = self.watched.pop(pidfd, None)
        if kept is None:
            return
        with contextlib.suppress(ValueError):
            self.pool.get(kept.key, []).remove(kept)
        for fd in (kept.lease.stdin, kept.lease.stdout, kept.lease.pidfd):
            with contextlib.suppress(OSError):
                os.close(fd)
        if kept.lease.slot:
            remove_slot(Path(kept.lease.slot))

    def reap(self, block: float = 0.0, workers: set[int] = frozenset()) -> None:
        """Reap the hosts that ended and are our children (a subreaper's: their
        workers are gone), and remove their groups; with ``block``, wait that
        long for all of them.  ``workers``: pids never to reap here (a host's
        pid, once reaped elsewhere, may be a new worker's)."""
        deadline = time.monotonic() + block
        while self.reaping:
            for pid in list(self.reaping):
                if pid in workers:
                    self.reaping.discard(pid)
                    continue
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done = pid if not _alive(pid) else 0
                if done:
                    self.reaping.discard(pid)
                    self._remove_group(pid)
            if not self.reaping or time.monotonic() >= deadline:
                return
            time.sleep(0.005)

    def _remove_group(self, pid: int) -> None:
        folders = self.groups.pop(pid, None)
        if not folders:
            return
        from . import cgroups

        where = cgroups.hierarchy()
        if where is not None:
            cgroups.SeatGroup(where, {name: Path(folder) for name, folder in folders.items()}).remove()

    def close(self) -> None:
        """End every kept host (the end of its input ends it and its sandbox)."""
        for pidfd in list(self.watched):
            self.drop(pidfd)
        self.reap(block=10.0)
        for pid in list(self.groups):
            self._remove_group(pid)

