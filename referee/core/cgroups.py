"""Whole-seat limits with the kernel's accounting: one control group per seat.

RLIMITs hold per process; a player that forks six children of 300 MiB each,
or a fork bomb, or helpers that compute while the player waits, escape them.
A seat's control group holds its seat host (and its sandbox) and so every
process of the seat, however started (DESIGN.md, "Seat isolation"):

- ``memory``: all its processes together (and what they keep in the
  sandbox's ``/tmp`` and ``/dev/shm``, which is memory) under ``memory_mb``
  plus :data:`HOST_MARGIN_MB` for the host itself; no swap.  The kernel
  kills inside the group past it, and the step is a ``MEMORY_LIMIT``;
- ``pids``: at most ``processes`` processes at once (a fork then fails);
- CPU: the group's usage over the step is the step's ``cpu_ms``, every
  descendant included (a ``CPU_LIMIT`` past the limit).

cgroup v1 (a controller per hierarchy) and v2 (one unified hierarchy) are
both used, as root or wherever the referee may create groups under its own
(a v2 subtree delegated to the user).  Where it cannot, :func:`available`
says so and the measured fallbacks hold: the seat host reaps every
descendant and counts their CPU, and measures the seat's processes a few
times a second, their memory together and their count, killing them all
past a limit (``seathost.over_seat_limits``); ``match.yaml`` says which
(``limits_enforced``).

The group is joined between fork and exec of the seat host (the sandbox's
bwrap), so that nothing of the seat ever runs outside it."""
from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

SAMPLE_S = 0.2
"""How often a seat host measures its seat where no group holds it (sent
in each request: the host imports nothing of ours)."""
HOST_MARGIN_MB = 48
"""Memory of the seat host (a small Python) and its sandbox, on top of the
player's ``memory_mb`` in the seat's group."""
HOST_PROCESSES = {True: 2, False: 1}
"""Processes of a seat that are not the player's: the host, and bwrap when
sandboxed."""
V1_CONTROLLERS = ("memory", "pids", "cpuacct")
SHELL = "/bin/sh"
# $1 files, then the command: each file gets "0" (the writing process), then exec.
JOIN_SCRIPT = ('n=$1; shift; while [ "$n" -gt 0 ]; do echo 0 > "$1" || exit 125; shift; '
               'n=$((n - 1)); done; exec "$@"')
ROOT = Path("/sys/fs/cgroup")
_names = itertools.count(1)


def _own_groups(text: str | None = None) -> dict[str, str]:
    """This process's group per v1 controller, and ``""`` for v2's (from
    ``/proc/self/cgroup``, or ``text`` in its format)."""
    groups: dict[str, str] = {}
    with contextlib.suppress(OSError, ValueError):
        for line in (Path("/proc/self/cgroup").read_text() if text is None else text).splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(","):
                groups[controller] = path
    return groups


def _cgroup2_root(mountinfo: str | None = None) -> Path | None:
    """Where the unified (v2) hierarchy is mounted with controllers in it
    (from ``/proc/self/mountinfo``, or ``mountinfo`` in its format)."""
    with contextlib.suppress(OSError):
        text = Path("/proc/self/mountinfo").read_text() if mountinfo is None else mountinfo
        for line in text.splitlines():
            fields = line.split(" - ", 1)
            if len(fields) == 2 and fields[1].startswith("cgroup2 "):
                mount = Path(line.split()[4])
                if (mount / "cgroup.controllers").read_text().split():
                    return mount
    return None


@dataclass(frozen=True)
class Hierarchy:
    """Where this referee makes its seats' groups: v1, a folder per
    controller; v2, one folder."""

    version: int
    parents: dict[str, Path]  # controller (v2: "unified"): the folder to make groups in


def hierarchy() -> Hierarchy | None:
    """The hierarchy seats' groups go in, or None where none can be made
    (found once per process and ``REFEREE_CGROUPS``: a fork server's
    workers take the environment of their series)."""
    return _hierarchy(os.environ.get("REFEREE_CGROUPS", "auto") == "off")


@functools.lru_cache(maxsize=2)
def _hierarchy(off: bool) -> Hierarchy | None:
    if off:
        return None
    return find_hierarchy(_own_groups(), ROOT, _cgroup2_root())


def warm() -> None:
    """For a fork server, before it forks a series' workers: find the
    hierarchy and sweep stale groups (:func:`_sweep_stale`) once, where that
    moves no process (v1), so that every worker has both from its fork (they
    were ~1.2 ms of CPU a game).  Under v2 a worker may have to move itself
    into a group of its own (:func:`_delegate`): each still does that."""
    if os.environ.get("REFEREE_CGROUPS", "auto") == "off" or \
            find_hierarchy(_own_groups(), ROOT, None) is None:
        return
    where = hierarchy()
    if where is not None:
        _sweep_stale(where)


def find_hierarchy(own: dict[str, str], v1_root: Path, v2_root: Path | None) -> Hierarchy | None:
    """The hierarchy for a process in groups ``own`` (see :func:`_own_groups`),
    with v1 controllers mounted under ``v1_root`` and the unified one at
    ``v2_root``: v1 if every controller we need is there and writable, else
    v2 where memory and pids can be handed to our children."""
    parents = {}
    for controller in V1_CONTROLLERS:
        mount = v1_root / controller
        if controller in own and (mount / "cgroup.procs").exists():
            parent = mount / own[controller].lstrip("/")
            if os.access(parent, os.W_OK):
                parents[controller] = parent
    if len(parents) == len(V1_CONTROLLERS):
        return Hierarchy(1, parents)
    if v2_root is not None and "" in own:
        parent = v2_root / own[""].lstrip("/")
        delegated = _delegate(parent)
        if delegated is not None:
            return Hierarchy(2, {"unified": delegated})
    return None


def _delegate(parent: Path) -> Path | None:
    """A v2 folder under ``parent`` whose children get the memory and pids
    controllers: ``parent`` itself if it may enable them, else a
    ``referee-<pid>`` folder made beside this process, which moves into a
    leaf of its own (v2 lets only groups without processes hand out
    controllers)."""
    wanted = {"memory", "pids"}
    try:
        if not wanted <= set((parent / "cgroup.controllers").read_text().split()):
            return None
        if wanted <= set((parent / "cgroup.subtree_control").read_text().split()):
            return parent if os.access(parent, os.W_OK) else None
        try:
            (parent / "cgroup.subtree_control").write_text("+memory +pids")
            return parent
        except OSError:
            pass
        base = parent / f"referee-{os.getpid()}"
        base.mkdir(exist_ok=True)
        leaf = base / "referee"
        leaf.mkdir(exist_ok=True)
        (leaf / "cgroup.procs").write_text(str(os.getpid()))
        (base / "cgroup.subtree_control").write_text("+memory +pids")
        return base
    except OSError:
        return None


def available() -> bool:
    return hierarchy() is not None


def enforcement(sandboxed: bool, hosted: bool = True) -> dict[str, str]:
    """How each whole-seat limit is enforced here, for ``match.yaml``
    (``hosted``: the players run through seat hosts, which use the groups)."""
    where = hierarchy() if hosted else None
    if not hosted:
        return {"cpu_time": "RLIMIT_CPU per process (or sampled: see limits_not_enforced)",
                "memory_mb": "RLIMIT_AS per process (or sampled: see limits_not_enforced)",
                "processes": "not enforced (no seat host)"}
    if where is None:
        reaped = "the seat host reaps every descendant" + (" (pid 1 of the sandbox)" if sandboxed else
                                                           " (a subreaper)")
        sampled = f"measured by the seat host every {SAMPLE_S:g} s and at the step's end (no control group here)"
        return {"cpu_time": f"RLIMIT_CPU per process; every descendant's CPU counted ({reaped})",
                "memory_mb": f"RLIMIT_AS per process; the seat's processes together {sampled}",
                "processes": f"the seat's processes {sampled}"}
    name = f"cgroup v{where.version}"
    return {"cpu_time": f"RLIMIT_CPU per process; {name} CPU usage of the seat's processes together",
            "memory_mb": f"RLIMIT_AS per process; {name} memory of the seat's processes together",
            "processes": f"{name} pids of the seat's processes together"}


@dataclass
class Reading:
    """A seat group's counters at one moment."""

    cpu_s: float = 0.0
    oom_kills: int = 0
    forks_refused: int = 0


class SeatGroup:
    """One seat's control group(s) for the life of its seat host."""

    def __init__(self, where: Hierarchy, folders: dict[str, Path]) -> None:
        self.where = where
        self.folders = folders
        self._joins: list[int] = []
        self._counters: tuple[str, str, str] | None = None  # the files read reads (made at its first)
        self._open_counters: dict[str, int] = {}  # those files, kept open (see _counter)
        self._count: str | None = None  # the file count reads

    @classmethod
    def create(cls, memory_mb: float | None, processes: int | None,
               sandboxed: bool, where: Hierarchy | None = None,
               owner: int | None = None) -> "SeatGroup | None":
        """A new group with these limits (None: unlimited), or None where
        groups cannot be made (in ``where``: by default :func:`hierarchy`).
        ``owner``: the process whose end makes it stale (by default this
        one; a warm seat's is the fork server that keeps it)."""
        where = where or hierarchy()
        if where is None:
            return None
        _sweep_stale(where)
        name = f"{PREFIX}{owner}-{os.getpid()}-{next(_names)}" if owner else f"{PREFIX}{os.getpid()}-{next(_names)}"
        folders = {controller: parent / name for controller, parent in where.parents.items()}
        try:
            for folder in folders.values():
                cls._make_folder(folder)
            group = cls(where, folders)
            group._limit(memory_mb, processes and processes + HOST_PROCESSES[sandboxed])
            group._joins = [os.open(folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
                            for folder in folders.values()]
            return group
        except OSError:
            for folder in folders.values():
                with contextlib.suppress(OSError):
                    cls._remove_folder(folder)
            return None

    # The kernel fills a new group's folder with its files and removes them
    # with it; tests on a plain folder tree (cgroup v2 cannot run where v1
    # does) stand in for it here.
    @staticmethod
    def _make_folder(folder: Path) -> None:
        folder.mkdir()

    @staticmethod
    def _remove_folder(folder: Path) -> None:
        folder.rmdir()

    def _file(self, controller: str, v1: str, v2: str) -> Path:
        if self.where.version == 1:
            return self.folders[controller] / v1
        return self.folders["unified"] / v2

    def _limit(self, memory_mb: float | None, pids: int | None) -> None:
        if memory_mb:
            size = str(int((memory_mb + HOST_MARGIN_MB) * 1024 * 1024))
            self._file("memory", "memory.limit_in_bytes", "memory.max").write_text(size)
            swap = self._file("memory", "memory.memsw.limit_in_bytes", "memory.swap.max")
            with contextlib.suppress(OSError):  # no swap accounting: nothing to close
                swap.write_text(size if self.where.version == 1 else "0")
        if pids:
            self._file("pids", "pids.max", "pids.max").write_text(str(pids))

    def join(self) -> None:
        """Put the calling process in the group: called between fork and exec
        (``preexec_fn``), so it only writes to files opened beforehand."""
        for fd in self._joins:
            os.write(fd, b"0")

    def joining(self, argv: list[str]) -> list[str] | None:
        """``argv`` started inside this group: a shell that writes itself into
        the group (``0``, the writer) and then becomes ``argv`` (exec, the
        same process), so nothing of the seat runs outside it; None without
        a shell here (then :meth:`join` in ``preexec_fn``).  A start through
        ``preexec_fn`` forks the whole referee (its Python cannot vfork a
        child that runs Python): ~4 ms of CPU a seat host, where the
        shell's start costs ~0.6 ms.  A join that fails ends the shell (exit
        125, the reason on its stderr) before ``argv`` starts."""
        if not os.path.exists(SHELL):
            return None
        files = [str(folder / "cgroup.procs") for folder in self.folders.values()]
        return [SHELL, "-c", JOIN_SCRIPT, "join", str(len(files)), *files, *argv]

    def read(self) -> Reading:
        """The group's counters now.  A step reads them twice, on its
        critical path: three plain reads of paths made once (Path.read_text
        and its text layer made a reading ~0.3 ms, a fifth of the referee's
        own CPU per step)."""
        if self._counters is None:
            self._counters = tuple(str(path) for path in (
                self._file("cpuacct", "cpuacct.usage", "") if self.where.version == 1 else
                self._file("unified", "", "cpu.stat"),
                self._file("memory", "memory.oom_control", "memory.events"),
                self._file("pids", "pids.events", "pids.events")))
        cpu, memory, pids = self._counters
        reading = Reading()
        with contextlib.suppress(OSError, ValueError):
            if self.where.version == 1:
                reading.cpu_s = int(self._counter(cpu)) / 1e9
            else:
                reading.cpu_s = _pairs(self._counter(cpu)).get("usage_usec", 0) / 1e6
        with contextlib.suppress(OSError, ValueError):
            reading.oom_kills = _pairs(self._counter(memory)).get("oom_kill", 0)
        with contextlib.suppress(OSError, ValueError):
            reading.forks_refused = _pairs(self._counter(pids)).get("max", 0)
        return reading

    def _counter(self, path: str) -> str:
        """A counter file's text, read again from its start through the file
        kept open since its first reading (an open and a close were ~5 us of
        each ~6, three files a step); opened anew if that read fails."""
        fd = self._open_counters.get(path)
        if fd is not None:
            try:
                return os.pread(fd, 1 << 12, 0).decode("ascii", "replace")
            except OSError:
                del self._open_counters[path]
                os.close(fd)
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            text = os.read(fd, 1 << 12).decode("ascii", "replace")
        except BaseException:
            os.close(fd)
            raise
        self._open_counters[path] = fd
        return text

    def count(self) -> int | None:
        """How many processes the group holds now (zombies not yet reaped
        too: the pids controller's count), or None if it cannot say."""
        if self._count is None:
            self._count = str(self._file("pids", "pids.current", "pids.current"))
        try:
            return int(self._counter(self._count))
        except (OSError, ValueError):
            return None

    def release(self) -> None:
        """Close the files this object keeps open (the group itself stays:
        :meth:`remove` ends it)."""
        for fd in [*self._joins, *self._open_counters.values()]:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._joins, self._open_counters = [], {}

    def pids(self) -> list[int]:
        with contextlib.suppress(OSError, ValueError):
            folder = next(iter(self.folders.values()))
            # (never 0 or our own: a kill of those would be the referee's group)
            return [int(p) for p in (folder / "cgroup.procs").read_text().split()
                    if int(p) > 0 and int(p) != os.getpid()]
        return []

    def kill_all(self) -> None:
        """Kill every process of the seat (a host that died or stalls
        leaves none behind), until none is left."""
        kill_file = self._file("unified", "", "cgroup.kill") if self.where.version == 2 else None
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            pids = self.pids()
            if not pids:
                return
            if kill_file is not None and kill_file.exists():
                with contextlib.suppress(OSError):
                    kill_file.write_text("1")
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left and remove the group."""
        self.release()
        self.kill_all()
        for folder in self.folders.values():
            for _ in range(50):
                try:
                    self._remove_folder(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:  # its last processes are still being torn down
                    time.sleep(0.01)


PREFIX = "referee-seat-"


_SWEPT: list[bool] = []


def _sweep_stale(where: Hierarchy) -> None:
    """Once per referee: empty and remove the seats' groups of referees that
    are gone (killed before they could): what a player left running there
    is killed now, not kept for ever."""
    if _SWEPT:
        return
    _SWEPT.append(True)
    for controller, parent in where.parents.items():
        with contextlib.suppress(OSError):
            for folder in parent.iterdir():
                owner = folder.name[len(PREFIX):].split("-")[0]
                if not folder.name.startswith(PREFIX) or not owner.isdigit() or _alive(int(owner)):
                    continue
                group = SeatGroup(where, {controller: folder})
                group.kill_all()
                with contextlib.suppress(OSError):
                    folder.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's: alive
    return True


def _pairs(text: str) -> dict[str, int]:
    """``name value`` lines (memory.events, pids.events, cpu.stat)."""
    pairs = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            pairs[parts[0]] = int(parts[1])
    return pairs
