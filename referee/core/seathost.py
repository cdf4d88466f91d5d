"""The seat host: a small process that runs one seat's player, step after step.

The referee starts one per seat per match and talks to it over its stdin and
stdout, one line per message: a dict in ``marshal`` form, written as hex (see
``encode``).  It exists for three reasons (DESIGN.md,
"Seat host and sandbox"):

- a small process forks fast, the big referee does not;
- inside a bubblewrap sandbox it is pid 1 of its own pid namespace, so after
  every step ``kill(-1, SIGKILL)`` ends *every* process the step left, however
  deep or detached (and the kernel kills them all if the host dies);
- without a sandbox it is a child subreaper, so escaped processes are
  re-parented to it and swept until none is left.

It runs as ``python -S -I seathost.py [--pid1]`` and imports only the standard
library, so it starts quickly and needs nothing from the referee's package.
Limits other than the wall clock are rlimits set in the child before exec;
the wall clock is enforced here (a hard kill) *and* by the referee, whose clock
is the one that counts.

Request:  {"argv": [...], "env": {...} or "env_changes": {name: value or null},
           "cwd": "...", "hard": s, "rlimits":
           {"cpu": s, "as": bytes, "fsize": bytes, "nofile": n},
           "stdout": path, "stderr": path, "output_kb": n,
           "seat": {"memory_kb": n, "processes": n, "every": s} (only without a control group),
           "grouped": true (a control group holds the seat)}
Reply:    {"exit", "signal", "timed_out", "wall", "cpu", "peak_kb",
           "start_error", "killed", "stdout_tail", "stderr_tail",
           "over": null, "memory" or "processes"}
{"ping": 1} is answered {"pong": true} (the referee waits for it, so the
host's start-up is never charged to a player).  A request with
"persistent": true and "step": k runs one step of the kept-alive player
(run_persistent); one with "prestart": true starts it before the match
(prestart); {"reset": 1} makes a warm host as a fresh one between two
games (reset).  With "lend": true, a reply that leaves the kept-alive
player frozen may offer its next steps to the worker ("lend", see
``lend``); the worker hands them back with a "sync" of what it changed
("resume": true for a step it began), and asks {"sweep_borrowed": 1} when
one of its steps left more processes than the player.  End of input: kill
everything and exit.
"""
from __future__ import annotations

import _signal as signal  # signal.py's enums cost ~3 ms of every host's start
import errno
import marshal
import os
import resource
import select
import stat
import sys
import time

TAIL = 4096
RLIMITS = {"cpu": resource.RLIMIT_CPU, "as": resource.RLIMIT_AS,
           "fsize": resource.RLIMIT_FSIZE, "nofile": resource.RLIMIT_NOFILE}


def _libc(name: str):
    """libc's function ``name`` (int arguments, an int result), or None;
    loaded once, before any fork.

    Through ``_ctypes``, the C module under ctypes, as ``ctypes.CDLL(None,
    use_errno=True)`` makes it (the same C call): importing the ctypes
    package itself (its type classes, struct, byte order) was ~4 ms of CPU
    at every host's start, two hosts a game.  The package is the fallback
    should that module's shape differ."""
    try:
        import _ctypes

        class Int(_ctypes._SimpleCData):
            _type_ = "i"

        class Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
            _restype_ = Int

        return Function(_ctypes.dlsym(_ctypes.dlopen(None, _ctypes.RTLD_LOCAL), name))
    except Exception:  # noqa: BLE001 - any shape of _ctypes we do not know
        pass
    try:
        import ctypes

        return getattr(ctypes.CDLL(None, use_errno=True), name)
    except (OSError, AttributeError, ImportError):
        return None


PRCTL = _libc("prctl")
SYSCALL = _libc("syscall")
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def encode(message: dict) -> str:
    """One line of the channel to the referee (``seats._reply`` reads it).
    Marshal is built in: json, with the re and enum it imports, was ~5 ms of
    each host's start-up.  Both ends run the same Python, so its format
    matches; hex keeps a newline out of the line."""
    return marshal.dumps(message).hex() + "\n"


def decode(line: str) -> dict:
    """A request line from the referee (``seats.message`` writes it)."""
    return marshal.loads(bytes.fromhex(line))


def _proc(path: str) -> bytes:
    """A /proc file's bytes (OSError if it is gone): a plain read, about half
    the cost of a text-mode open, on a persistent step's path.

    The file stays open (up to PROC_KEPT of them, until :func:`_let_go`)
    and is read again from its start (pread): a persistent step reads its
    player's stat, status and syscall files ~10 times, and an open and a
    close were ~4 us of each ~6.  A kept file of a process that ended fails
    (ESRCH), and the path is opened again: a pid taken by another process
    is that process's, as on a fresh open.  The host may live under its
    player's open-file limit (as few as HOST_FILES): a file is kept only
    while FREE_FILES descriptors below the limit stay free for the host's
    other files, and the kept ones are let go of should an open find no
    descriptor left."""
    fd = _KEPT_FILES.get(path)
    if fd is not None:
        try:
            return os.pread(fd, 1 << 16, 0)
        except OSError:
            del _KEPT_FILES[path]
            os.close(fd)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno not in (errno.EMFILE, errno.ENFILE) or not _KEPT_FILES:
            raise
        _let_go()
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = os.read(fd, 1 << 16)
    except BaseException:
        os.close(fd)
        raise
    if len(_KEPT_FILES) < PROC_KEPT and fd < resource.getrlimit(resource.RLIMIT_NOFILE)[0] - FREE_FILES:
        _KEPT_FILES[path] = fd
    else:
        os.close(fd)
    return data


_KEPT_FILES: dict[str, int] = {}  # path: an open /proc file (see _proc)
PROC_KEPT = 8  # a player's stat, status and a thread's syscall file, for a few processes
FREE_FILES = 12  # descriptors under the host's limit that a kept file leaves free


def _let_go() -> None:
    """Close the /proc files :func:`_proc` kept (its processes ended, or are
    to be forgotten)."""
    _close_all(_KEPT_FILES)


def _close_all(fds: dict) -> None:
    """Close the descriptors that are ``fds``' values, and empty it."""
    for fd in fds.values():
        try:
            os.close(fd)
        except OSError:
            pass
    fds.clear()


def _stat_fields(stat_path: str) -> list[bytes]:
    """The fields of a /proc stat file after the command name (which may hold
    spaces and parentheses): [0] is the state, [11:15] utime, stime, cutime,
    cstime."""
    return _proc(stat_path).rsplit(b")", 1)[1].split()


def _state(stat_path: str) -> bytes:
    """The state letter (R, S, D, Z, ...) in a /proc stat file (OSError or
    IndexError if it is gone)."""
    return _stat_fields(stat_path)[0]


def _children() -> list[int]:
    pids: list[int] = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    for task in tasks:
        try:
            pids.extend(int(p) for p in _proc(f"/proc/self/task/{task}/children").split())
        except OSError:
            pass
    return pids


def _reap_all() -> int:
    """Reap every child that has exited; how many."""
    n = 0
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return n
        if pid == 0:
            return n
        n += 1


PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def _seat_pids(pid1: bool) -> list[int]:
    """Every process of the seat but this host: as pid 1, all of its pid
    namespace; otherwise all its descendants (an orphan, in a session of its
    own or not, is re-parented to this host, a subreaper)."""
    if pid1:
        return [int(p) for p in os.listdir("/proc") if p.isdigit() and p != "1"]
    return _descendants(os.getpid())


def _rss_kb(pid: int) -> int:
    try:
        return int(_proc(f"/proc/{pid}/statm").split()[1]) * PAGE_KB
    except (OSError, IndexError, ValueError):
        return 0  # gone


def _pss_kb(pid: int) -> int:
    """Its proportional share of the memory it maps (a page shared by n
    processes counts 1/n), or its RSS where the kernel has no rollup."""
    try:
        data = _proc(f"/proc/{pid}/smaps_rollup")
    except OSError:
        return _rss_kb(pid)
    at = data.find(b"\nPss:")
    return int(data[at + 5:].split(None, 1)[0]) if at >= 0 else _rss_kb(pid)


def over_seat_limits(seat: dict | None, pid1: bool) -> str | None:
    """Which whole-seat limit the seat's processes are over right now
    (``"processes"`` or ``"memory"``), or None: the measured fallback where
    no control group holds them (``seat`` comes from the request).

    Processes are counted as the kernel's pids controller counts them
    (zombies too).  Memory is summed as resident sizes first: an upper bound,
    cheap (statm); only when that bound is over the limit is it summed again
    as proportional sizes (smaps_rollup, ~1 ms a process), so that a parent's
    pages its forked children share are counted once, not once per child."""
    if not seat:
        return None
    pids = _seat_pids(pid1)
    if seat.get("processes") and len(pids) > seat["processes"]:
        return "processes"
    limit = seat.get("memory_kb")
    if limit and sum(map(_rss_kb, pids)) > limit:
        total = 0
        for pid in pids:
            total += _pss_kb(pid)
            if total > limit:
                return "memory"
    return None


class Sampler:
    """When a step measures its seat (``seat`` given: no control group):
    every ``seat["every"]`` seconds."""

    def __init__(self, seat: dict | None, pid1: bool) -> None:
        self.seat, self.pid1 = seat, pid1
        self.next = time.monotonic() + seat["every"] if seat else float("inf")

    def due(self) -> str | None:
        """Measure if it is time: the limit the seat is over, or None."""
        if time.monotonic() < self.next:
            return None
        self.next = time.monotonic() + self.seat["every"]
        return over_seat_limits(self.seat, self.pid1)

    def wake(self, deadline: float) -> float:
        """When to wake at the latest: ``deadline``, or the next measure."""
        return min(deadline, self.next)


def sweep(pid1: bool, pgid: int | None) -> int:
    """Kill every process the step left; returns how many were reaped.

    As pid 1 of a pid namespace one ``kill(-1)`` reaches all of them.
    Otherwise kill the player's group, then every child (orphans are
    re-parented to us, the subreaper) until none is left: a chain of any depth
    ends, because each round kills the parents of the next."""
    _let_go()
    killed = 0
    if pgid is not None:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline:
        if pid1:
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
        else:
            try:  # no child at all: nothing of the step is left (the usual case, no /proc walk)
                os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return killed
            for child in _children():
                for kill in (os.killpg, os.kill):
                    try:
                        kill(child, signal.SIGKILL)
                    except OSError:
                        pass
        try:
            os.waitpid(-1, 0)  # block for one, then take the rest
            killed += 1 + _reap_all()
        except ChildProcessError:
            return killed
    return killed


def _open_output(path: str) -> int:
    """Append to ``path`` without following a link planted in its place,
    nor writing into a fifo: the player may replace its output file with
    one and not read it, and a write that blocks there hangs the host, or
    the referee's worker where it plays the step (see direct.py)."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    for _ in range(2):
        try:
            fd = os.open(path, flags, 0o644)
        except OSError:
            pass
        else:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                return fd
            os.close(fd)
        try:  # a link, a fifo, a directory: put a file back
            if os.path.isdir(path) and not os.path.islink(path):
                os.rename(path, path + f".moved-{time.monotonic_ns()}")
            else:
                os.unlink(path)
        except OSError:
            pass
    return os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)


class Outputs:
    """A seat's output files, kept open between steps: the host's (OUTPUTS),
    and those of the worker that drives a borrowed player's steps
    (``referee/core/direct.py``)."""

    def __init__(self) -> None:
        self.fds: dict[str, int] = {}  # path: fd
        self.ends: dict[int, int] = {}  # fd: its size when the last step's output was capped

    def open(self, req: dict) -> tuple[int, int, int, int]:
        """(stdout fd, stderr fd, their sizes as the step starts), for appending."""
        (out, out_start), (err, err_start) = self.one(req["stdout"]), self.one(req["stderr"])
        return out, err, out_start, err_start

    def one(self, path: str) -> tuple[int, int]:
        """(an fd appending to the output file ``path``, its size now): the fd
        of an earlier step if the path still names that same regular file (a
        stat, where an open that may create costs up to ~0.1 ms on a step's
        path), else opened afresh by :func:`_open_output`."""
        fd = self.fds.get(path)
        if fd is not None:
            try:
                now, held = os.stat(path, follow_symlinks=False), os.fstat(fd)
                if os.path.samestat(now, held) and stat.S_ISREG(now.st_mode):
                    # What a persistent player wrote since its last step's end
                    # counts against this step's cap: output is never free.
                    return fd, min(held.st_size, self.ends.get(fd, held.st_size))
            except OSError:
                pass
            del self.fds[path]
            self.ends.pop(fd, None)
            os.close(fd)
        if len(self.fds) >= 4:  # a seat has two; never let a stream of paths pile up fds
            self.close()
        fd = self.fds[path] = _open_output(path)
        return fd, _size(fd)

    def finish(self, reply: dict, out: int, err: int, out_start: int, err_start: int, keep_kb: int) -> None:
        """Cap what the step wrote to each file, put their tails in ``reply``."""
        reply["stdout_tail"], self.ends[out] = _cap_and_tail(out, out_start, keep_kb)
        reply["stderr_tail"], self.ends[err] = _cap_and_tail(err, err_start, keep_kb)

    def close(self) -> None:
        _close_all(self.fds)
        self.ends.clear()


OUTPUTS = Outputs()


def _size(fd: int) -> int:
    try:
        return os.fstat(fd).st_size
    except OSError:
        return 0


def _cap_and_tail(fd: int, start: int, keep_kb: int) -> tuple[str, int]:
    """Keep at most ``keep_kb`` of what this step wrote: (its tail, the
    file's size after it)."""
    size = 0
    try:
        size = os.fstat(fd).st_size
        limit = start + keep_kb * 1024
        if size > limit:
            os.ftruncate(fd, limit)
            os.write(fd, f"\n[referee: {size - limit} more bytes of output dropped]\n".encode())
            size = os.fstat(fd).st_size
        begin = max(start, size - TAIL)
        if begin >= size:
            return "", size  # nothing printed this step
        data = os.pread(fd, size - begin, begin)
        return data.decode("utf-8", "replace"), size
    except OSError:
        return "", size


def _child(req: dict, out: int, err: int, report: int, stdin: int | None = None) -> None:
    """In the forked child: become the player (never returns)."""
    try:
        os.setsid()
        if PRCTL is not None:
            PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        for name, value in (req.get("rlimits") or {}).items():
            if name == "cpu" and stdin is not None:
                continue  # a persistent player's CPU is budgeted per step (prlimit)
            which = RLIMITS[name]
            value = int(value)
            top = value + 1 if name == "cpu" else value  # SIGXCPU first, SIGKILL a second later
            _, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value, top = min(value, hard), min(top, hard)
            resource.setrlimit(which, (value, top))
        os.dup2(os.open(os.devnull, os.O_RDONLY) if stdin is None else stdin, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        try:
            os.chdir(req["cwd"])
        except OSError as exc:
            raise RuntimeError(f"cannot enter the seat folder {req['cwd']}: {exc.strerror}") from None
        os.execvpe(req["argv"][0], req["argv"], req["env"])
    except BaseException as exc:  # noqa: BLE001 - report anything, then die
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        try:
            os.write(report, reason.encode("utf-8", "replace")[:500])
        finally:
            os._exit(127)


def _forked(req: dict, out: int, err: int, stdin: int | None = None) -> tuple[int | None, str | None]:
    """Start the player by fork, setting its rlimits in the child:
    (pid, None), or (None, why it could not start).  ``stdin``: a kept-alive
    player's request pipe (see :func:`_child`)."""
    report_r, report_w = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:
        os.close(report_r)
        _child(req, out, err, report_w, stdin)
    os.close(report_w)
    failure = os.read(report_r, 600)  # EOF at exec: the pipe is close-on-exec
    os.close(report_r)
    if not failure:
        return pid, None
    os.waitpid(pid, 0)
    return None, f"could not start {req['argv'][0]!r}: {failure.decode('utf-8', 'replace')}"


# The host's own files (its pipes, the output files, a pidfd, Python's own)
# fit below this many; and its address space below its size plus this margin.
HOST_FILES = 24
HOST_MEMORY_MARGIN = 64 << 20


def _inherit_limits(rlimits: dict) -> bool:
    """Take the step's memory, file-size and open-file limits on the host
    itself, soft and hard, so that a player started by posix_spawn inherits
    them; False where the host could not live under them (then the player is
    forked and sets them itself).  Lowered hard limits cannot be raised again:
    the referee starts a new host if a seat's limits change (seats.py)."""
    wanted = {name: int(rlimits[name]) for name in ("as", "fsize", "nofile") if name in rlimits}
    if wanted == _INHERITED.get("limits"):
        return True
    try:
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return False
    if int(rlimits.get("nofile", HOST_FILES)) < HOST_FILES or \
            int(rlimits.get("as", size + HOST_MEMORY_MARGIN)) < size + HOST_MEMORY_MARGIN:
        return False
    for name in ("as", "fsize", "nofile"):
        if name not in rlimits:
            continue
        which, value = RLIMITS[name], int(rlimits[name])
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        if (soft, hard) != (value, value):
            try:
                resource.setrlimit(which, (value, value))
            except (OSError, ValueError):
                return False
    _INHERITED["limits"] = wanted
    return True


_INHERITED: dict = {}  # the limits this host last took on (see _inherit_limits)


def _program(argv0: str, env: dict) -> str:
    """``argv0`` found on the step's PATH, as exec would (posix_spawn takes a
    path; posix_spawnp would search the host's PATH, not the step's)."""
    if os.sep in argv0:
        return argv0
    for folder in os.get_exec_path(env):
        path = os.path.join(folder, argv0)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return argv0  # not found: posix_spawn says so


def _spawned(req: dict, out: int, err: int, stdin: int | None = None) -> tuple[int | None, str | None]:
    """Start the player by posix_spawn (a vfork: about 2 ms cheaper than a
    fork of this Python process, which is most of a step's overhead); the
    limits come from the host (:func:`_inherit_limits`), CPU is set on the
    child at once (RLIMIT_CPU counts the CPU it used before, too).  Unlike a
    fork, no death signal can be set for it: without a sandbox the referee
    is told its pid (``{"started": pid}``) to kill it if the host dies.
    ``stdin``: a kept-alive player's request pipe (its CPU is budgeted per
    step instead, see :meth:`Persistent.budget`)."""
    try:
        os.chdir(req["cwd"])
    except OSError as exc:
        return None, f"could not start {req['argv'][0]!r}: cannot enter the seat folder {req['cwd']}: {exc.strerror}"
    argv, env = req["argv"], req["env"]
    try:
        pid = os.posix_spawn(_program(argv[0], env), argv, env, setsid=True,
                             setsigdef=(signal.SIGPIPE,),
                             file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)
                                           if stdin is None else (os.POSIX_SPAWN_DUP2, stdin, 0),
                                           (os.POSIX_SPAWN_DUP2, out, 1),
                                           (os.POSIX_SPAWN_DUP2, err, 2)])
    except OSError as exc:
        return None, f"could not start {argv[0]!r}: {exc.strerror or exc}"
    cpu = (req.get("rlimits") or {}).get("cpu")
    if cpu and stdin is None:
        try:
            resource.prlimit(pid, resource.RLIMIT_CPU, (int(cpu), int(cpu) + 1))
        except (OSError, ValueError):
            pass  # it has already ended
    return pid, None


def _blank_reply(**more) -> dict:
    return {"exit": None, "signal": None, "timed_out": False, "wall": 0.0, "cpu": 0.0,
            "peak_kb": 0, "start_error": None, "killed": 0, "stdout_tail": "", "stderr_tail": "",
            "over": None, **more}


def _exit_status(reply: dict, status: int) -> None:
    """``exit`` or ``signal`` of the reply, from a wait status."""
    code = os.waitstatus_to_exitcode(status)
    reply["exit"], reply["signal"] = (code, None) if code >= 0 else (None, -code)


def _children_cpu() -> float:
    """CPU seconds of every process this host has reaped so far, with all
    they had reaped: the player, and every descendant of it, as the host is
    pid 1 of the sandbox (or a subreaper) and reaps the orphans."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(req: dict, pid1: bool, control: int, answer=None) -> dict:
    reply = _blank_reply()
    out, err, out_start, err_start = OUTPUTS.open(req)
    start = time.monotonic()
    before = _children_cpu()
    if _inherit_limits(req.get("rlimits") or {}):
        pid, failure = _spawned(req, out, err)
        if pid is not None and not pid1 and not req.get("grouped") and answer is not None:
            # Its pid, for the referee to kill it should this host die first.
            # Not where a control group holds the seat: the referee then
            # kills the whole group (and is not woken mid-step for it).
            answer.write(encode({"started": pid}))
            answer.flush()
    else:
        pid, failure = _forked(req, out, err)
    status = usage = None
    seat = req.get("seat")
    if failure:
        reply["start_error"] = failure
    else:
        status, usage, reply["timed_out"], reply["over"] = _wait(pid, start + float(req["hard"]), control,
                                                                 pid1, seat)
        # What it leaves running counts too (six children holding memory, a
        # fork bomb of sleepers), whether or not it decided first.
        reply["over"] = reply["over"] or over_seat_limits(seat, pid1)
    reply["wall"] = time.monotonic() - start
    if usage is not None:
        reply["cpu"] = usage.ru_utime + usage.ru_stime
        reply["peak_kb"] = usage.ru_maxrss
    if not failure and status is not None:
        _exit_status(reply, status)
    reply["killed"] = sweep(pid1, pid)
    # Every descendant's CPU is the seat's: helpers it forked, killed or not.
    reply["cpu"] = max(reply["cpu"], _children_cpu() - before)
    return _finish(reply, out, err, out_start, err_start, req, start)


def _watch(pid: int, control: int, *more: int) -> tuple[int, select.poll]:
    """(a pidfd for ``pid``, a poller on it, the referee's channel and ``more``)."""
    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    for fd in more:
        poller.register(fd, select.POLLIN)
    poller.register(control, select.POLLHUP)
    return pidfd, poller


def _until(poller: select.poll, deadline: float, control: int, pid1: bool, pid: int) -> bool:
    """Sleep until something is ready (True) or the deadline passes (False).
    End of input on ``control`` means the referee died: kill all and exit."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return False
    events = poller.poll(max(1, int(remaining * 1000) + 1))
    if any(fd == control for fd, _ in events):
        sweep(pid1, pid)
        os._exit(0)
    return True


def _wait(pid: int, deadline: float, control: int, pid1: bool, seat: dict | None = None):
    """Wait for ``pid`` until the deadline, without polling; kill at the
    deadline.  End of input on ``control`` (the referee died) kills too.
    With ``seat`` (no control group), measure the seat every ``seat["every"]`` s and
    kill when it is over a limit.  (status, usage, timed out, over)."""
    pidfd, poller = _watch(pid, control)
    over = None
    sample = Sampler(seat, pid1)
    try:
        while True:
            wpid, status, usage = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                return status, usage, False, None
            over = sample.due()
            if over:
                break
            if not _until(poller, sample.wake(deadline), control, pid1, pid) and time.monotonic() >= deadline:
                break
    finally:
        os.close(pidfd)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    _, status, usage = os.wait4(pid, 0)
    return status, usage, over is None, over


class Persistent:
    """A player kept alive between steps (``persistent:CMD``): started once,
    sent ``step <k>`` on its stdin for each step, done when it prints a line
    ``done``.  Other lines on its stdout are its output, kept like a spawned
    player's.  CPU used between steps counts against the next one; a player
    that dies, hangs or is killed is started again at its next step.

    The player is not always one process: a wrapper (``./run.sh`` that runs
    ``python3 bot.py``, ``npx``, ``uv run``) waits while its child reads the
    requests.  So the player is the started process and those of its
    descendants that read the request pipe as their stdin when it first
    waits for a request (``members``, fixed then): they are kept and frozen
    together; everything else it starts dies with its step."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.members: tuple[int, ...] = ()  # the player's processes, once fixed (see class doc)
        self.pipe: tuple[int, int] | None = None  # (st_dev, st_ino) of its request pipe
        self.to_player = self.from_player = -1
        self.cpu_mark = 0.0
        self.pending = b""
        self.midline = False  # what it printed last was a flood cut before its line's end
        self.death = None  # (status, rusage) of a player that died between steps
        self.fresh = False  # started, and not yet asked for a step
        self.settled = True  # frozen while reading its stdin (nothing half-printed)
        self.over: str | None = None  # the whole-seat limit its start-up went over (measured)
        self.parent = True  # its player's parent (False: borrowed by the referee's worker, see direct.py)
        self.closed = False  # its output (our end of its stdout pipe) reached its end
        self.quiet_at = 0.0  # when its last freeze found it waiting for a request (or gave up waiting)

    def alive(self) -> bool:
        if self.pid is None or self.death is not None:
            return False
        try:
            wpid, status, usage = os.wait4(self.pid, os.WNOHANG)
        except ChildProcessError:
            wpid, status, usage = self.pid, 0, None
        if wpid == 0:
            return True
        self.death = (status, usage)
        return False

    def forget(self) -> None:
        for fd in (self.to_player, self.from_player):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.pid, self.to_player, self.from_player, self.cpu_mark, self.pending = None, -1, -1, 0.0, b""
        self.death, self.fresh, self.settled, self.over, self.midline = None, False, True, None, False
        self.members, self.pipe, self.closed = (), None, False
        _let_go()

    def start(self, req: dict, out: int, err: int, pid1: bool) -> str | None:
        """Start the player (its stdin a pipe from us, its stdout one to
        us).  By posix_spawn where its sandbox (pid 1 of it: the kernel ends
        the namespace with us) or its control group (the referee kills it
        whole) ends it should this host die, as a spawned step's player is
        (a vfork: a fork of this Python process and its work before exec
        were ~1.5 ms of CPU a start, two a game of a series); else by fork,
        with a death signal tied to this host."""
        down_r, down_w = os.pipe2(os.O_CLOEXEC)
        up_r, up_w = os.pipe2(os.O_CLOEXEC)
        if (pid1 or req.get("grouped")) and _inherit_limits(req.get("rlimits") or {}):
            pid, failure = _spawned(req, up_w, err, stdin=down_r)
        else:
            pid, failure = _forked(req, up_w, err, stdin=down_r)
        os.close(down_r)
        os.close(up_w)
        if pid is None:
            os.close(down_w)
            os.close(up_r)
            return failure
        os.set_blocking(up_r, False)
        self.pid, self.to_player, self.from_player = pid, down_w, up_r
        self.cpu_mark, self.pending, self.fresh, self.closed, self.midline = 0.0, b"", True, False, False
        stat = os.fstat(down_w)
        self.members, self.pipe = (), (stat.st_dev, stat.st_ino)
        return None

    def tree(self) -> list[int]:
        """The player's processes: its members once fixed, else the started
        process and all its descendants (a wrapper's child still starting)."""
        if self.members:
            return list(self.members)
        return [self.pid, *_descendants(self.pid)] if self.pid is not None else []

    def fix_members(self) -> None:
        """Fix which processes are the player (see the class doc), the first
        time it waits for a request."""
        if self.members or self.pid is None:
            return
        kept = [self.pid]
        for pid in _descendants(self.pid):
            try:
                stat = os.stat(f"/proc/{pid}/fd/0")
            except OSError:
                continue
            if (stat.st_dev, stat.st_ino) == self.pipe and not _zombie(pid):
                kept.append(pid)
        self.members = tuple(kept)

    def budget(self, req: dict) -> float:
        """Let it use the step's CPU budget (returned; 0: none) on top of
        what it has used so far: RLIMIT_CPU counts its whole life.  Only the
        soft limit moves (SIGXCPU): raising a hard one takes a privilege the
        host lacks, so a player that ignores SIGXCPU is killed by
        run_persistent instead."""
        budget = float((req.get("rlimits") or {}).get("cpu", 0) or 0)
        if budget:
            for pid in self.tree():  # each process's RLIMIT_CPU counts its own life
                soft = max(1, int(_own_cpu(pid) + budget + 0.999))
                try:
                    _, hard = resource.prlimit(pid, resource.RLIMIT_CPU)
                    if hard != resource.RLIM_INFINITY:
                        soft = min(soft, hard)
                    resource.prlimit(pid, resource.RLIMIT_CPU, (soft, hard))
                except (OSError, ValueError):
                    pass
        return budget

    def idle(self) -> bool:
        """Whether every thread of it sleeps (state S: blocked on its stdin,
        a lock, a timer), in every one of its processes."""
        try:
            for pid in self.tree():
                for task in os.listdir(f"/proc/{pid}/task"):
                    if _state(f"/proc/{pid}/task/{task}/stat") != b"S":
                        return False
        except (OSError, IndexError):
            return False
        return True

    def cpu(self) -> float:
        """CPU seconds the live player used so far: each of its processes'
        own (all threads, ended ones too) and that of the children they
        reaped (a helper it runs each step is charged to it)."""
        if self.pid is None:
            return self.cpu_mark
        return sum(_own_cpu(pid) + _reaped_cpu(pid) for pid in self.tree())

    def peak_kb(self) -> int:
        """Its processes' peak resident memory, added up."""
        total = 0
        for pid in self.tree():
            try:
                data = _proc(f"/proc/{pid}/status")
                at = data.find(b"\nVmHWM:")
                if at >= 0:
                    total += int(data[at + 7:].split(None, 1)[0])
            except (OSError, ValueError, IndexError):
                pass
        return total

    def drain(self, out: int) -> bool:
        """Move whatever the player printed to its output file; True once a
        line ``done`` came (what follows it stays for the next step).  Linear
        in what came, however it is cut into lines (a flood of short lines
        must not cost the host its deadline), and at most DRAIN_BYTES a call."""
        chunks = [self.pending]
        got = 0
        while got < DRAIN_BYTES:
            try:
                chunk = os.read(self.from_player, 1 << 16)
            except OSError:  # BlockingIOError: nothing more for now
                break
            if not chunk:
                self.closed = True  # (every writer closed it: no ``done`` can come)
                break
            chunks.append(chunk)
            got += len(chunk)
        data = b"".join(chunks) if len(chunks) > 1 else self.pending
        skip = 0
        if self.midline:  # the rest of a line cut short below is never ``done``, however it is read
            skip = data.find(b"\n") + 1
            if skip:
                self.midline = False
            else:
                skip = len(data)
        done, upto, rest = _done_line(data, skip)
        if upto:
            try:
                os.write(out, data[:upto])
            except OSError:
                pass
        self.pending = data[rest:]
        if len(self.pending) > 65536:  # a flood without newlines is output too
            try:
                os.write(out, self.pending)
            except OSError:
                pass
            self.midline = self.midline or not self.pending.endswith(b"\n")
            self.pending = b""
        return done

    def reading(self) -> bool | None:
        """Whether a thread of it is blocked reading its stdin, waiting for
        the next request (None: this kernel or architecture does not say)."""
        if READ_SYSCALL is None:
            return None
        try:
            pids = self.tree()
            # Each process's main thread first: the one that reads, as a
            # rule (the listing of its threads was a third of the look).
            if any(_reads_stdin(f"/proc/{pid}/task/{pid}/syscall") for pid in pids):
                return True
            for pid in pids:
                for task in os.listdir(f"/proc/{pid}/task"):
                    if task != str(pid) and _reads_stdin(f"/proc/{pid}/task/{task}/syscall"):
                        return True
        except (OSError, ValueError):
            return None
        return False

    def settle(self, until: float) -> bool:
        """Wait (at most until ``until``) for it to wait for its next
        request: blocked reading its stdin, or every thread asleep and no CPU
        used between two looks (a player that waits in poll or epoll).

        A player reads its stdin again microseconds after it prints
        ``done``; the host often looks first.  So it looks again soon, for
        up to SETTLE_SPIN_S, before it sleeps 0.5 ms between looks: three
        looks with the CPU yielded between them, then naps of 20 us.  A
        player whose ``done`` woke the host on its own CPU waits there until
        the host sleeps (yielding is not enough to let it run), so the naps
        found it reading at the 95th percentile in ~0.17 ms where the
        yielding looks alone ran out and slept (~0.8 ms).  Over a series'
        steps the mean wait went from ~85 to ~50 us."""
        spin_until = min(until, time.monotonic() + SETTLE_SPIN_S)
        looks = 0
        while True:
            found = self.reading()
            if found:
                return True
            if found is None or time.monotonic() >= spin_until or _zombie(self.pid):
                break
            looks += 1
            if looks <= 3:
                os.sched_yield()
            else:
                time.sleep(0.00002)
        last = -1.0
        while True:
            if self.reading():
                return True
            used = self.cpu()
            if used == last and self.idle():
                return True
            if time.monotonic() >= until or _zombie(self.pid):  # (not reaped: the step's wait4 does that)
                return False
            last = used
            time.sleep(0.0005)

    def freeze(self, meanwhile=None) -> None:
        """Stop it until its next step (SIGSTOP): nothing of a seat runs
        between its steps, so it cannot compute, print or fork meanwhile.
        It is stopped once it waits for its next request, if it gets there
        within SETTLE_S: stopped half-way, what it prints after ``done`` (a
        second ``done``) would come out after it is woken and be taken for
        the next step's answer; then thaw lets it get there first.
        ``meanwhile`` is called once the stop is sent, before its wait:
        readings that need no stopped player overlap the stop's latency."""
        self.settled = self.settle(time.monotonic() + SETTLE_S)
        self.quiet_at = time.monotonic()  # its step's time ends here: what follows is the referee's
        self.fix_members()
        # SIGSTOP takes effect before the next time the process runs; wait
        # until it shows stopped, so that the sweep after it races nothing.
        # A stop is told to the parent (SIGCHLD): for the started process,
        # a child of this host, the wait after a few quick looks is for that
        # signal (blocked meanwhile, so that it waits to be taken), not a
        # sleep of a fixed length: a stop that takes long is seen at once.
        if self.parent:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
        try:
            for pid in self.members:
                try:
                    os.kill(pid, signal.SIGSTOP)
                except OSError:
                    pass
            if meanwhile is not None:
                meanwhile()
            for pid in self.members:
                _stopped(pid, pid == self.pid and self.parent)
        finally:
            if self.parent:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})

    def refreeze(self) -> bool:
        """Stop it again if something woke it since its freeze (a SIGCONT
        from a process of its step, swept since, or gone): nothing of a seat
        runs between its steps.  True if it had to."""
        woken = False
        for pid in self.members:
            try:
                state = _state(f"/proc/{pid}/stat")
                if state in (b"T", b"t", b"Z", b"X"):
                    continue
                os.kill(pid, signal.SIGSTOP)
            except (OSError, IndexError):
                continue
            if state == b"D":  # in the kernel (disk I/O): it stops on its way out, not woken
                continue
            woken = True
            _stopped(pid, False)
        return woken

    def sweep_frozen(self, sweep, rounds: int = 8) -> int | None:
        """Sweep the seat around the frozen player (``sweep()``: how many it
        killed, None if it could not), and again each time a process of the
        step had woken the player since its freeze (a SIGCONT): stopped
        again, until nothing of the seat runs (at most ``rounds`` sweeps).
        How many were killed in all; what they used is this step's, not a
        credit for the next (the CPU mark is read again)."""
        killed = 0
        for _ in range(rounds):
            got = sweep()
            if got is None:
                return None
            killed += got
            if not self.refreeze():  # (a process stuck in the kernel shows stopped only once out)
                break
        if killed:
            self.cpu_mark = self.cpu()
        return killed

    def lendable(self) -> bool:
        """Whether the referee's worker may drive its next steps itself
        (see :func:`lend`): one process, frozen while it waited for a
        request, nothing printed after its ``done``."""
        return (self.pid is not None and self.death is None and self.settled and not self.pending
                and not self.midline and self.members == (self.pid,))

    def take_back(self, sync: dict) -> None:
        """What the worker's steps (see :func:`lend`) changed: the CPU mark
        at its last step's end, whether it froze the player while it waited
        for a request, what the player printed after its ``done``, whether it
        played a step (lent at its start, a player the host takes back later
        was taken for one started again at that step)."""
        if sync.get("answered"):
            self.fresh = False
        self.cpu_mark = float(sync.get("cpu_mark", self.cpu_mark))
        self.settled = bool(sync.get("settled", True))
        self.pending = bytes(sync.get("pending", b""))
        self.midline = bool(sync.get("midline", False))

    def thaw(self, deadline: float) -> None:
        """Wake it for a step; if it was stopped before it waited for its
        next request, first let it get there (at most until ``deadline``),
        so that what it prints meanwhile belongs to the step before."""
        for pid in self.members or (self.pid,):
            try:
                os.kill(pid, signal.SIGCONT)
            except (OSError, TypeError):
                pass
        if not self.settled:
            self.settle(deadline)
        self.settled = True


def _reads_stdin(syscall_file: str) -> bool:
    """Whether the thread of this ``/proc/<pid>/task/<tid>/syscall`` waits
    in read(2) on its fd 0."""
    fields = _proc(syscall_file).split()
    return len(fields) > 1 and fields[0] == READ_SYSCALL and int(fields[1], 16) == 0


def _exited(pid: int) -> bool:
    """Whether the child ``pid`` has ended, left a zombie to reap (WNOWAIT)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return False


def _stopped(pid: int, child: bool) -> None:
    """Wait (at most ~0.1 s) until ``pid`` shows stopped (or gone): a few
    looks with the CPU yielded between them (most stops are seen there),
    then, for a child of this host, until a SIGCHLD (the caller blocks it)
    or 0.5 ms, else looks 0.1 ms apart.  Over a series' steps, waiting for
    the signal rather than looking again and again took the mean wait from
    ~120 to ~90 us, and its 90th percentile from ~0.28 to ~0.19 ms."""
    deadline = time.monotonic() + 0.1
    for look in range(1000):
        try:
            if _state(f"/proc/{pid}/stat") in (b"T", b"t", b"Z", b"X"):
                return
        except (OSError, IndexError):
            return
        if look < STOP_LOOKS:
            os.sched_yield()
        elif time.monotonic() >= deadline:
            return
        elif child:
            signal.sigtimedwait({signal.SIGCHLD}, 0.0005)
        else:
            time.sleep(0.0001)


DRAIN_BYTES = 1 << 20
SETTLE_S = 0.005  # how long freeze waits for a player to read its stdin again
SETTLE_SPIN_S = 0.0002  # how long it looks without sleeping between looks
STOP_LOOKS = 3  # quick looks for a stop, before waiting for it (see _stopped)
# /proc/<pid>/syscall's number for read(2): a thread in read(0, ...) waits for a request.
READ_SYSCALL = {"x86_64": b"0", "amd64": b"0", "aarch64": b"63", "arm64": b"63"}.get(os.uname().machine)


def _done_line(data: bytes, at: int = 0) -> tuple[bool, int, int]:
    """In what a persistent player printed: (whether a line ``done`` is
    there; how much before it is output; where what follows it starts).
    Without one, the output is every whole line.  Lines start at ``at``
    (what comes before it is output, whatever it holds)."""
    while True:
        found = data.find(b"done", at)
        if found < 0:
            break
        start = data.rfind(b"\n", 0, found) + 1
        end = data.find(b"\n", found)
        if end < 0:  # an unfinished line: it may still become ``done``
            return False, max(start, at), max(start, at)
        if data[start:end].strip() == b"done" and start >= at:
            return True, start, end + 1
        at = end + 1
    last = max(data.rfind(b"\n") + 1, at)
    return False, last, last


def _process_cpu_clock(pid: int) -> int:
    """The clock id of ``pid``'s CPU time, all threads (what glibc's
    clock_getcpuclockid gives: Linux's MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED))."""
    return ((~pid) << 3) | 2


def _own_cpu(pid: int) -> float:
    """CPU seconds ``pid`` used so far, all its threads, ended ones too: its
    process CPU clock (one call, in ns).  Else, from /proc: its threads'
    schedstat (live threads only) or clock ticks."""
    try:
        return time.clock_gettime(_process_cpu_clock(pid))
    except (OSError, OverflowError):
        pass
    try:
        total = 0
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        return total / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        fields = _stat_fields(f"/proc/{pid}/stat")
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        return 0.0


def _reaped_cpu(pid: int) -> float:
    """CPU seconds of the children ``pid`` has reaped (/proc's cutime and cstime)."""
    try:
        fields = _stat_fields(f"/proc/{pid}/stat")
        return (int(fields[13]) + int(fields[14])) / CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        return 0.0


PERSISTENT = Persistent()


CPU_POLL_S = 0.1  # how often a step with a CPU budget looks at a persistent player's CPU


def run_persistent(req: dict, pid1: bool, control: int) -> dict:
    before, mark = _children_cpu(), PERSISTENT.cpu_mark
    reply = _persistent_step(req, pid1, control)
    # The CPU of the processes it started and the host reaped is its too;
    # once the player itself is reaped, that count holds its whole life.
    reaped = _children_cpu() - before
    if reply["exit"] == 0 and PERSISTENT.pid is not None:
        reply["cpu"] += reaped
    else:
        reply["cpu"] = max(reply["cpu"], reaped - mark)
    return reply


def _persistent_step(req: dict, pid1: bool, control: int) -> dict:
    reply = _blank_reply(restarted=False)
    player = PERSISTENT
    out, err, out_start, err_start = OUTPUTS.open(req)
    # (A step the worker began and hands back: its time so far counts.)
    start = time.monotonic() - float(req.get("elapsed", 0))
    sync = req.get("sync")
    if sync is not None:  # the worker drove the steps since the last one here (see lend)
        player.take_back(sync)
        out_start, err_start = sync.get("starts", (out_start, err_start))
        if req.get("resume") and player.pid is not None:
            # The worker wrote this step's request and woke the player, then
            # something left the ordinary: finish the step here as any other.
            return _finish(_awaited(req, reply, player, pid1, control, out, start), out, err,
                           out_start, err_start, req, start)
    if player.pid is not None and not player.alive():
        # It died between steps (e.g. CPU spent after its last ``done``): that
        # death is this step's result, as Botzone charges it; it starts again
        # at the next step.  (Or its start-up went over a whole-seat limit.)
        reply["over"] = player.over
        _ended(reply, player, *player.death)
        reply["killed"] = sweep(pid1, None)
        return _finish(reply, out, err, out_start, err_start, req, start)
    if player.pid is None:
        problem = player.start(req, out, err, pid1)
        if problem:
            reply["start_error"] = problem
            return _finish(reply, out, err, out_start, err_start, req, start)
    reply["restarted"], player.fresh = player.fresh, False
    deadline = start + float(req["hard"])
    # A player frozen while it waited for a request gets it before it is
    # woken: one wake-up, not two (woken, it would block on its empty stdin
    # at once, and be woken again by the request).  One frozen half-way is
    # first let finish what it was printing (thaw), which is output.
    settled = player.settled
    if not settled:
        player.thaw(deadline)
    player.drain(out)  # whatever came after an earlier ``done`` is output, not an answer
    budget = player.budget(req)
    pid = player.pid
    try:
        os.write(player.to_player, f"step {req['step']}\n".encode())
    except OSError:
        pass  # it is dying: the wait below sees it
    if settled:
        player.thaw(deadline)
    return _finish(_awaited(req, reply, player, pid1, control, out, start, budget), out, err,
                   out_start, err_start, req, start)


def _awaited(req: dict, reply: dict, player: Persistent, pid1: bool, control: int, out: int,
             start: float, budget: float | None = None) -> dict:
    """The rest of a persistent step, once its request is sent and the
    player woken: wait for its ``done``, its end or the deadline; freeze it
    or end it; sweep the seat."""
    deadline = start + float(req["hard"])
    if budget is None:
        budget = float((req.get("rlimits") or {}).get("cpu", 0) or 0)
    pid = player.pid
    pidfd, poller = _watch(pid, control, player.from_player)
    status = usage = None
    seat = req.get("seat")
    sample = Sampler(seat, pid1)
    watched = True
    try:
        while True:
            if player.drain(out):
                break
            if player.closed and watched:
                # Its output ended (it closed its stdout, and no helper holds
                # it): the pipe is ready for ever, and waited on it was a busy
                # loop, the host's CPU charged to the player (its group's).
                poller.unregister(player.from_player)
                watched = False
            if _exited(pid) and player.drain(out):
                # It printed ``done`` and ended between the look at its output
                # and this one: the ``done`` is its answer, and its end the
                # next step's (as a lent step and the other orders have it);
                # not reaped here, so that its pid stays its own meanwhile.
                break
            wpid, wstatus, wusage = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                status, usage = wstatus, wusage
                break
            if budget and _over_budget(player, budget, start):
                break  # it outlived its SIGXCPU: killed below
            reply["over"] = sample.due()
            if reply["over"]:
                break
            # With a CPU budget, wake now and then to look at its CPU: a
            # player that ignores SIGXCPU would otherwise burn to the wall
            # limit; without a control group, to measure the seat.
            wake = min(deadline, time.monotonic() + CPU_POLL_S) if budget else deadline
            if not _until(poller, sample.wake(wake), control, pid1, pid) and time.monotonic() >= deadline:
                reply["timed_out"] = True
                break
    finally:
        os.close(pidfd)
    if status is None and not reply["timed_out"] and not reply["over"]:
        reply["over"] = over_seat_limits(seat, pid1)  # it answered: what it leaves counts too
    reply["wall"] = time.monotonic() - start
    now = player.cpu() if status is None and not reply["timed_out"] else 0.0
    if status is None and not reply["timed_out"] and budget and now - player.cpu_mark > budget:
        # Over its budget (its SIGXCPU is the whole second after it, at best: see _over_budget).
        os.kill(pid, signal.SIGKILL)
        _, status, usage = os.wait4(pid, 0)
    if status is None and not reply["timed_out"] and not reply["over"]:  # it answered
        reply["cpu"], player.cpu_mark = max(0.0, now - player.cpu_mark), now
        reply["peak_kb"] = player.peak_kb()
        reply["exit"] = 0
        player.freeze()  # first, so that it starts nothing while the rest is swept
        # Its time: up to its ``done`` and its way back to its stdin (at most
        # SETTLE_S: what it computes after its ``done`` is its own), not the
        # stop and the sweep (see seats.SeatHost.run).
        reply["wall"] = max(reply["wall"], player.quiet_at - start)
        reply["killed"] = player.sweep_frozen(lambda: sweep_except(pid1, player.members))
        lend(req, reply, player)
    else:
        if status is None:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
        _ended(reply, player, status, usage)
        reply["killed"] = sweep(pid1, None)
    return reply


def lend(req: dict, reply: dict, player: Persistent) -> None:
    """Offer the frozen player's next steps to the worker (if it asked):
    ``reply["lend"]`` names the player's pid here and this host's ends of
    its pipes, which the worker opens through /proc (see
    ``referee/core/direct.py``).  Until its next request this host does
    nothing; the player stays its child (a death shows as a zombie), and the
    sweeps, starts, limits and the reset stay here."""
    if req.get("lend") and player.lendable():
        reply["lend"] = {"pid": player.pid, "to": player.to_player, "from": player.from_player}


def sweep_borrowed(pid1: bool) -> dict:
    """A step the worker drove left more processes in the seat than the
    frozen player: kill them (the player's stay)."""
    player = PERSISTENT
    return {"killed": sweep_except(pid1, player.members) if player.members else sweep(pid1, None),
            "lent": True}


def _over_budget(player: Persistent, budget: float, start: float) -> bool:
    """Whether the player used more than its CPU budget in this step.  Its
    RLIMIT_CPU counts its whole life in whole seconds, so the SIGXCPU that
    :meth:`Persistent.budget` sets comes at the first whole second past its
    life's CPU and the budget: up to a second late (a kept-alive module was
    let use 1.9 s of a 1 s limit); this look, every CPU_POLL_S, is the
    limit, the signal a backstop.  Its CPU is read (a /proc read a process)
    only once the step has lasted long enough for that on every core: a
    quick step's wake-ups cost none."""
    if (time.monotonic() - start) * CPUS <= budget:
        return False
    return player.cpu() - player.cpu_mark > budget


CPUS = os.cpu_count() or 64  # no process uses more CPU seconds a second (unknown: many, never late)


IDLE_POLL_MS = 2  # idle: no CPU used over this long, and every thread asleep
IDLE_PAUSE_MAX_MS = 16  # the longest pause between two such looks at a starting player
START_UPS: list[float] = []  # how long this host's last (up to 3) prestarts took to find the player idle
FIRST_LOOK = 0.75  # the first look at a starting player: this fraction of the quickest of START_UPS
IDLE_WAIT_MAX_S = 1.0  # and never later than this


def prestart(req: dict, pid1: bool, control: int) -> dict:
    """Start the persistent player before the match's first step and wait
    until it is idle (its start-up done, waiting for ``step``), at most
    ``req["hard"]`` seconds.  Neither its wall time nor its CPU until then
    is charged (its CPU limit holds meanwhile); a death is its first step's
    result (run_persistent).  Reply:
    ``{"start_error", "ready", "wall"}``."""
    player = PERSISTENT
    start = time.monotonic()
    starts = None
    if player.pid is None:
        out, err, out_start, err_start = OUTPUTS.open(req)
        # What it prints while it starts is its first step's output: capped
        # with it, and the tail of a start-up that crashed (an import that
        # failed) is that step's message, as a spawned player's would be.
        OUTPUTS.ends[out], OUTPUTS.ends[err] = out_start, err_start
        starts = (out_start, err_start)
        problem = player.start(req, out, err, pid1)
        if problem:
            return {"start_error": problem, "ready": False, "wall": time.monotonic() - start}
        player.budget(req)
    if not player.alive():
        return {"start_error": None, "ready": False, "wall": time.monotonic() - start}
    deadline = start + float(req["hard"])
    pidfd, poller = _watch(player.pid, control)
    # Each look is two readings IDLE_POLL_MS apart; after a look that finds
    # it busy, a pause before the next, doubling up to IDLE_PAUSE_MAX_MS.
    # Looking every IDLE_POLL_MS throughout (its /proc read, a wake-up) cost
    # a Python player's host ~6 ms of CPU over its ~40 ms start-up, two a
    # game of a series; it can only find it idle up to one pause later.
    last: float | None = None
    ready, pause = False, IDLE_POLL_MS
    sample = Sampler(req.get("seat"), pid1)
    # A warm host starts the same program game after game: the looks begin
    # at a fraction of its quickest start-up so far (see START_UPS), not at
    # once (the looks of a Python player's ~70 ms start were ~20 readings,
    # ~2.5 ms of the host's CPU, two a game).  The wait still ends at once if
    # the player dies (its pidfd) or the referee writes.
    if START_UPS and not sample.seat:
        first = min(start + min(min(START_UPS) * FIRST_LOOK, IDLE_WAIT_MAX_S), deadline)
        wait = int((first - time.monotonic()) * 1000)
        if wait > 0 and any(fd == control for fd, _ in poller.poll(wait)):
            sweep(pid1, None)
            os._exit(0)
    try:
        while player.alive():
            used = player.cpu()
            if used == last and player.idle():
                ready = True
                break
            if last is None:
                last, wait = used, IDLE_POLL_MS  # the look's first reading
            else:
                last, wait = None, pause  # busy: look again after a pause
                pause = min(2 * pause, IDLE_PAUSE_MAX_MS)
            player.over = sample.due()
            if player.over:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            if any(fd == control for fd, _ in poller.poll(min(wait, int(remaining * 1000) + 1))):
                sweep(pid1, None)
                os._exit(0)
    finally:
        os.close(pidfd)
    if player.alive() and not player.over:
        player.over = over_seat_limits(req.get("seat"), pid1)  # what its start-up left counts too
    if player.over and player.alive():
        # Its start-up went over a whole-seat limit: killed, and its first
        # step's result says so (run_persistent), as a death between steps.
        os.kill(player.pid, signal.SIGKILL)
        while player.alive():
            time.sleep(0.001)
        sweep(pid1, None)
    if ready:
        START_UPS.append(time.monotonic() - start)
        del START_UPS[:-3]
    if player.alive():
        player.freeze()  # until its first step, as between steps
        # Its start-up is not charged, CPU as wall: its first step is judged
        # as any later one (a start-up that uses more CPU than wall time, as a
        # JVM's threads do, would otherwise reach the CPU limit at a first
        # step that did nothing, and a spawned ``rerun`` of that step would
        # judge it otherwise).  What runs past the cap is its first step's.
        sweep_except(pid1, player.members)
        player.cpu_mark = player.cpu()
    reply = {"start_error": None, "ready": ready, "wall": time.monotonic() - start}
    if starts is not None:
        reply["starts"] = starts  # (where a lent first step's output begins: see direct.borrow)
    lend(req, reply, player)
    return reply


def _ended(reply: dict, player: Persistent, status: int, usage) -> None:
    """Report how the persistent player ended, and forget it."""
    _exit_status(reply, status)
    if usage is not None:
        reply["cpu"] = max(0.0, usage.ru_utime + usage.ru_stime - player.cpu_mark)
        reply["peak_kb"] = usage.ru_maxrss
    player.forget()


def _finish(reply: dict, out: int, err: int, out_start: int, err_start: int, req: dict,
            start: float) -> dict:
    reply["wall"] = reply["wall"] or time.monotonic() - start
    OUTPUTS.finish(reply, out, err, out_start, err_start, int(req.get("output_kb", 64)))
    return reply  # out and err stay open for the next step (_output)


def _zombie(pid: int) -> bool:
    try:
        return _state(f"/proc/{pid}/stat") == b"Z"
    except (OSError, IndexError):
        return True  # gone


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                kids = [int(p) for p in _proc(f"/proc/{parent}/task/{task}/children").split()]
            except OSError:
                continue
            found.extend(kids)
            todo.extend(kids)
    return found


def sweep_except(pid1: bool, keep: tuple[int, ...]) -> int:
    """Kill everything the step left but the persistent player's processes;
    how many: those killed (a child of the frozen player stays its zombie,
    not ours to reap) or reaped, whichever is more."""
    killed, signalled = 0, set()
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline:
        if pid1:
            victims = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != 1]
        else:
            victims = _children() + (_descendants(keep[0]) if keep else [])
        others = [p for p in victims if p not in keep and p != os.getpid()]
        if not others and not killed:
            # Nothing but the player, not even a zombie (the listing shows
            # those too): nothing to kill or reap, the common case of a step.
            return 0
        victims = [p for p in others if not _zombie(p)]
        if not victims:
            break
        for victim in victims:
            try:
                os.kill(victim, signal.SIGKILL)
                signalled.add(victim)
            except OSError:
                pass
        time.sleep(0.001)
        killed += _reap_others(keep)
    return max(killed + _reap_others(keep), len(signalled))


def _reap_others(keep: tuple[int, ...]) -> int:
    n = 0
    for child in _children():
        if child in keep:
            continue
        try:
            pid, _ = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            continue
        n += pid != 0
    return n


def _environment(env: dict, req: dict) -> dict:
    """The step's environment: ``env`` as the request sends it whole, or the
    last one with ``env_changes`` applied (a value null unsets a variable),
    stored back into ``req["env"]``.  The referee sends the whole one once per
    host: its ~50 variables are most of a request."""
    if "env" in req:
        env = dict(req["env"])
    for name, value in (req.get("env_changes") or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    req["env"] = env
    return env


PRIVATE = ("/tmp", "/dev/shm")  # the sandbox's own writable folders besides the seat (tmpfs)
IPC_LISTS = ("/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg")
MQUEUE = "/dev/mqueue"  # a warm sandbox's POSIX message queues (bwrap --mqueue), listed here
KEYCTL = {"x86_64": 250, "aarch64": 219, "i686": 288, "armv7l": 311}.get(os.uname().machine)
"""keyctl(2)'s system call number here (libc has no wrapper; libkeyutils has)."""
KEYCTL_GET_KEYRING_ID, KEYCTL_JOIN_SESSION_KEYRING = 0, 1
KEYCTL_SETPERM, KEYCTL_CLEAR, KEYCTL_LINK, KEYCTL_READ = 5, 7, 8, 11
KEYCTL_GET_PERSISTENT = 22
KEY_SPEC_PROCESS_KEYRING, KEY_SPEC_SESSION_KEYRING = -2, -3
KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -4, -5
KEY_RIGHTS = 0x1F3F0000  # a new user keyring's rights: its owner has all of them


def reset(pid1: bool) -> dict:
    """Make a warm host (kept for its entrant's next game of a series, see
    ``referee.core.warmseats``) as a fresh one is: every process but this
    host killed, the kept-alive player forgotten, the output files let go,
    the private ``/tmp`` and ``/dev/shm`` as they were when it started
    (what was added removed, modes restored).  Then check that nothing is
    left: no other process, no System V IPC object, no POSIX message queue,
    ``/tmp`` and ``/dev/shm`` as they were.  ``{"reset": true}``, or
    ``{"reset": false, "why": ...}`` and the referee ends this host
    instead of keeping it.  As pid 1 of a sandbox its namespaces hold
    everything a player could leave (the seat folder is the referee's to
    empty); without one (a seat a control group holds), what it can
    clean is its descendants: ``/tmp`` is the machine's, as for any game
    without a sandbox."""
    sweep(pid1, None)
    PERSISTENT.forget()
    OUTPUTS.close()
    os.chdir("/")
    problems = []
    # Without a sandbox: its descendants are all its player could leave it
    # (its user keyrings are the machine user's, the referee's too: not
    # touched; its session keyring is its own: a new one).
    if not pid1:
        own_session_keyring()
        if _descendants(os.getpid()):
            problems.append("a process is left")
        return {"reset": not problems, "why": "; ".join(problems)}
    for folder, was in _PRIVATE_TREES.items():
        _restore(folder, "", was)
        if _tree(folder) != was:
            problems.append(f"{folder} is not as it was")
    if [p for p in os.listdir("/proc") if p.isdigit() and p != "1"]:
        problems.append("a process is left")
    for listing in IPC_LISTS:
        try:
            if len(_proc(listing).splitlines()) > 1:
                problems.append(f"{listing} is not empty")
        except OSError:
            pass
    try:
        if os.listdir(MQUEUE):
            problems.append("a message queue is left")
    except OSError:
        pass
    problems += _clear_keys()
    own_session_keyring()  # (the last game's, whatever a player put in it, is let go of)
    return {"reset": not problems, "why": "; ".join(problems)}


def _keyctl(*args: int) -> int:
    return SYSCALL(KEYCTL, *args) if SYSCALL is not None and KEYCTL is not None else -1


def own_session_keyring() -> bool:
    """Join a new, empty session keyring (anonymous), which the players
    this process starts inherit.  A process inherits its parent's session
    keyring across fork, exec and every namespace bwrap makes: without this,
    both seats shared the referee's (a login's, a service's: where a TA's
    tokens may be), each could read the keys there, and one seat could leave
    keys for the other to read in the same match, or for the next match.
    The user-session keyring is linked into it, as a login's is (pam_keyinit):
    so this host still possesses its user keyrings, and can take back the
    rights a player takes from their owner (see :func:`_clear_keys`).
    True if it could (not where the kernel has no keyrings)."""
    if _keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0) <= 0:
        return False
    _keyctl(KEYCTL_LINK, KEY_SPEC_USER_SESSION_KEYRING, KEY_SPEC_SESSION_KEYRING)
    return True


def _clear_keys() -> list[str]:
    """Keys a player adds (add_key(2)) to its user, user-session or
    persistent keyring outlive it: the kernel keeps those keyrings per user
    and user namespace, so the next game's player, the same user in the
    same warm sandbox, would find them.  Each is emptied (its rights given
    back to its owner first: a player may have taken them away), the
    user-session keyring keeps its link to the user keyring as a fresh one
    has it, and what is left is checked: anything else is a problem, and
    the host is not kept."""
    user = _keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 1)
    session = _keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_SESSION_KEYRING, 1)
    if user <= 0 or session <= 0:
        return ["the keyrings cannot be reached"]
    keyrings = [user, session]
    persistent = _keyctl(KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_PROCESS_KEYRING)
    if persistent > 0:  # where the kernel has them
        keyrings.append(persistent)
    for keyring in keyrings:
        _keyctl(KEYCTL_SETPERM, keyring, KEY_RIGHTS)
        _keyctl(KEYCTL_CLEAR, keyring)
    _keyctl(KEYCTL_LINK, user, session)
    linked = {keyring: _keyctl(KEYCTL_READ, keyring, 0, 0) for keyring in keyrings}
    # KEYCTL_READ without a buffer gives the size of the keyring's list of
    # key ids (4 bytes each): the user-session keyring holds the user one.
    if linked != {user: 0, session: 4, **({persistent: 0} if persistent > 0 else {})}:
        return ["a key is left"]
    return []


_PRIVATE_TREES: dict = {}  # folder of PRIVATE: its tree as this host found it (see _tree)
_REFEREE: list = [0]  # the referee process that last pinged this host (0: its parent)


def _tree(folder: str) -> dict:
    """What ``folder`` holds: {relative path: (kind, mode, owner, xattrs)},
    the folder itself as ""; what another mount holds is not walked (the
    folders bwrap made in ``/tmp`` to mount the seat folder on)."""
    found: dict = {}
    try:
        top = os.lstat(folder)
    except OSError:
        return found

    def look(rel: str, info) -> None:
        path = folder + rel
        try:
            xattrs = tuple(sorted(os.listxattr(path, follow_symlinks=False)))
        except OSError:
            xattrs = ()
        found[rel] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode), info.st_uid, xattrs)
        if stat.S_ISDIR(info.st_mode) and info.st_dev == top.st_dev:
            try:
                names = os.listdir(path)
            except OSError:
                return
            for name in names:
                try:
                    look(f"{rel}/{name}", os.lstat(f"{path}/{name}"))
                except OSError:
                    pass

    look("", top)
    return found


def _restore(folder: str, rel: str, was: dict) -> None:
    """Put ``folder + rel`` back as ``was`` had it: what was not there is
    removed (this host's user owns what its player made: a folder made
    unreadable is opened first), the modes of what was are restored; other
    mounts are left alone.  Errors are left for the check after."""
    path = folder + rel
    try:
        info = os.lstat(path)
        if rel in was and was[rel][0] == stat.S_IFMT(info.st_mode):
            if stat.S_IMODE(info.st_mode) != was[rel][1] and not stat.S_ISLNK(info.st_mode):
                os.chmod(path, was[rel][1])
        elif stat.S_ISDIR(info.st_mode):
            os.chmod(path, 0o700)
        else:
            os.unlink(path)
            return
        if not stat.S_ISDIR(info.st_mode) or info.st_dev != os.lstat(folder).st_dev:
            return
        for name in os.listdir(path):
            _restore(folder, f"{rel}/{name}", was)
        if rel not in was:
            os.rmdir(path)
    except OSError:
        pass


def _wake_referee() -> None:
    """SIGCONT to the referee: a warm host wakes both the worker it serves
    and its parent (the fork server, once the worker that started it is gone)."""
    for pid in {_REFEREE[0] or os.getppid(), os.getppid()}:
        try:
            os.kill(pid, signal.SIGCONT)
        except OSError:
            pass


WATCH_S = 0.02  # while its player is lent without a sandbox: how often the host wakes the referee


def _requests(fd: int, lent: list, pid1: bool):
    """The referee's request lines (as text), read from ``fd``.  While the
    player is lent to the worker (``lent[0]``) without a sandbox, the player
    can reach the referee (the same user) and stop it in a step the worker
    plays, where no reply of ours follows to wake it: the wait for the next
    request then wakes it every WATCH_S."""
    pending = b""
    while True:
        at = pending.find(b"\n")
        if at >= 0:
            line, pending = pending[:at], pending[at + 1:]
            yield line.decode("ascii", "replace")
            continue
        if lent[0] and not pid1:
            while not select.select([fd], [], [], WATCH_S)[0]:
                _wake_referee()
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        pending += chunk


def main() -> None:
    pid1 = "--pid1" in sys.argv[1:]
    if pid1 and os.getpid() != 1:
        # Its sweeps are kill(-1): outside its own pid namespace (a host run
        # by hand) that would be every process the user may signal.
        os.write(2, b"seathost: --pid1 outside a pid namespace of its own: refused\n")
        os._exit(2)
    if PRCTL is not None:
        # Not dumpable: its /proc/<pid>/fd are then closed to the player (same
        # user), who could otherwise write forged replies into our stdout, or
        # requests into our stdin, through them.  A player's exec resets it.
        PRCTL(PR_SET_DUMPABLE, 0, 0, 0, 0)
    if not pid1 and PRCTL is not None:
        PRCTL(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    own_session_keyring()  # its players' keys are theirs alone, as their folder is
    # Outside a sandbox the referee's death must take the step down with us.  (As
    # pid 1 no handler is installed: the kernel ends the namespace with us, and a
    # player cannot signal a pid 1 that handles nothing.)
    if not pid1:
        signal.signal(signal.SIGTERM, lambda *_: (sweep(pid1, None), os._exit(0)))
    # A warm host (--warm, kept for its entrant's next game) outlives the
    # worker that started it: it ends when its input does (every holder of
    # it gone, the fork server last), not with its parent.
    warm = "--warm" in sys.argv[1:]
    if not pid1 and PRCTL is not None and not warm:
        PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() == 1:  # the referee is already gone
            os._exit(0)
    if pid1:  # what reset puts back
        for folder in PRIVATE:
            _PRIVATE_TREES[folder] = _tree(folder)
    control = sys.stdin.fileno()
    answer = sys.stdout
    env: dict = {}
    lent = [False]
    for line in _requests(control, lent, pid1):
        try:
            req = decode(line)
            env = _environment(env, req)
            if req.get("ping"):
                _REFEREE[:] = [int(req.get("referee") or 0)]
                reply = {"pong": True}
            elif req.get("persistent"):
                reply = run_persistent(req, pid1, control)
            elif req.get("prestart"):
                reply = prestart(req, pid1, control)
            elif req.get("reset"):
                reply = reset(pid1)
            elif req.get("sweep_borrowed"):
                reply = sweep_borrowed(pid1)
            else:
                reply = run(req, pid1, control, answer)
        except Exception as exc:  # noqa: BLE001 - a bad request must not kill the host
            sweep(pid1, None)
            reply = {"host_error": repr(exc)}
        lent[0] = "lend" in reply or "lent" in reply
        answer.write(encode(reply))
        answer.flush()
        if not pid1:
            # A player that stopped the referee (SIGSTOP) does not leave it
            # stopped.  Sent after the reply: sent before, it woke the waiting
            # referee for nothing just as the reply came.
            _wake_referee()
    sweep(pid1, None)
    os._exit(0)  # everything is flushed: the interpreter's tear-down only delays the referee


if __name__ == "__main__":
    main()
