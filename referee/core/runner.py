"""Run one player process for one step, under limits, and leave nothing behind.

This is the referee spawning a step itself: the path where seat hosts
(:mod:`referee.core.seats`) are off (not Linux, ``REFEREE_RUNNER=direct``), and
what ``referee rerun`` uses.  It also holds the types both paths share
(:class:`Limits`, :class:`RunResult`, :func:`rlimit_values`).

This module knows nothing about games, decisions or verdicts (cutechess keeps
its process handling just as separate): it starts a command, enforces the
limits, measures wall time, CPU time and peak memory, kills the player's whole
process tree, and reports plain facts in a :class:`RunResult`.

On Linux every limit applies: the wall clock (a hard kill), RLIMIT_CPU,
RLIMIT_AS, RLIMIT_FSIZE and RLIMIT_NOFILE, set in the child before exec.  The
player runs in its own session/process group, which is killed after the step;
because a process can leave its group (``setsid``), the referee also makes
itself a *child subreaper*, so orphans are re-parented to it and swept too.
Elsewhere (macOS, Windows) the wall clock and the tree kill still hold, and
:func:`unsupported_limits` names what could not be applied.
"""
from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

try:  # POSIX only; importing this module must work everywhere.
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

LINUX = sys.platform.startswith("linux")
POSIX = os.name == "posix"


@dataclass(frozen=True)
class Limits:
    """Per-step limits.  Times in seconds, sizes in MiB; None disables one."""

    soft_time: float = 10.0
    hard_time: float = 20.0
    cpu_time: float | None = None  # None: same as hard_time
    memory_mb: float | None = 1024
    file_size_mb: float | None = 64
    open_files: int | None = 256
    output_kb: int = 64  # stdout/stderr kept per step
    processes: int | None = 256  # a seat's processes at once (its seat host aside): cgroup pids
    disk_mb: float | None = 256  # a seat's whole folder (and its sandbox's /tmp, /dev/shm): DISK_LIMIT
    time_bank: float | None = None  # a match bank per seat (see clock.py); None: off
    increment: float = 0.0  # added to the bank after each step (Fischer)
    first_step_extra: float = 0.0  # added to the bank before a seat's first step
    grace: float = 0.05  # jitter margin past the bank: charged and logged, not a TIMEOUT

    @property
    def effective_cpu(self) -> float | None:
        return self.hard_time if self.cpu_time is None else self.cpu_time

    def to_json(self) -> dict[str, float | int | None]:
        return {"soft_time": self.soft_time, "hard_time": self.hard_time,
                "cpu_time": self.effective_cpu, "memory_mb": self.memory_mb,
                "file_size_mb": self.file_size_mb, "open_files": self.open_files,
                "output_kb": self.output_kb, "disk_mb": self.disk_mb, "processes": self.processes,
                "time_bank": self.time_bank,
                "increment": self.increment, "first_step_extra": self.first_step_extra,
                "grace": self.grace}


def unsupported_limits(limits: Limits) -> list[str]:
    """The configured limits this platform cannot enforce (where the
    portable runner runs the players, what it cannot: it samples CPU and
    memory, so only Windows lacks the file limits)."""
    if _portable():
        from .portable import unsupported_limits as portable_unsupported
        return portable_unsupported(limits)
    return []


def _portable() -> bool:
    """Whether run_process hands over to the psutil runner (portable.py)."""
    return os.environ.get("REFEREE_RUNNER") == "portable" or not LINUX


@dataclass
class RunResult:
    """What happened to one process run: facts only, no judgement."""

    exit_code: int | None = None  # None when killed by a signal or never started
    signal: int | None = None
    timed_out: bool = False  # killed at the hard wall limit
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_kb: int = 0
    start_error: str | None = None  # the command could not be started
    stdout_tail: str = ""  # the end of what this run wrote (both always filled)
    stderr_tail: str = ""
    orphans_killed: int = 0
    notes: list[str] = field(default_factory=list)
    started_s: float | None = None  # a persistent player started before the match: its start-up
    memory_exceeded: bool = False  # the seat's processes together went over memory_mb (cgroup, or measured)
    processes_exceeded: bool = False  # more than ``processes`` at once, measured without a cgroup: all killed

    @property
    def failed(self) -> bool:
        return self.start_error is not None or self.exit_code != 0


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where there is one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def rlimit_values(limits: Limits) -> dict[str, int]:
    """The rlimits a step's process gets, by name (cpu in whole seconds,
    sizes in bytes); the address-space limit only where it works (Linux)."""
    values: dict[str, int] = {}
    cpu = limits.effective_cpu
    if cpu:
        values["cpu"] = max(1, math.ceil(cpu))
    if limits.memory_mb and LINUX:
        values["as"] = int(limits.memory_mb * 1024 * 1024)
    if limits.file_size_mb:
        values["fsize"] = int(limits.file_size_mb * 1024 * 1024)
    if limits.open_files:
        values["nofile"] = int(limits.open_files)
    return values


def _rlimit_setter(limits: Limits):
    """The preexec function that applies the rlimits in the child."""
    if resource is None:
        return None
    which_of = {"cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE,
                "nofile": resource.RLIMIT_NOFILE}
    if hasattr(resource, "RLIMIT_AS"):
        which_of["as"] = resource.RLIMIT_AS
    pairs = [(which_of[name], value) for name, value in rlimit_values(limits).items()]

    die_with_parent = _pdeathsig()
    own_keyring = _own_session_keyring()

    def apply() -> None:  # runs between fork and exec: keep it minimal
        if die_with_parent is not None:
            die_with_parent()
        if own_keyring is not None:
            own_keyring()
        for which, value in pairs:
            _soft, hard = resource.getrlimit(which)
            if which == resource.RLIMIT_CPU:
                # SIGXCPU at the soft limit, SIGKILL a second later.
                top = value + 1
            else:
                top = value
            if hard != resource.RLIM_INFINITY:
                value, top = min(value, hard), min(top, hard)
            resource.setrlimit(which, (value, top))

    return apply


def _pdeathsig():
    """A function that makes the calling process get SIGKILL when its parent
    dies (Linux), so a killed referee or tournament worker never leaves a
    player running; None elsewhere.  Looked up before fork, called after."""
    if not LINUX:
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    PR_SET_PDEATHSIG = 1

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return arm


def _own_session_keyring():
    """A function that gives the calling process a new, empty session
    keyring (Linux; see ``seathost.own_session_keyring``: a player must not
    share the referee's keys, nor another seat's); None elsewhere.  Looked
    up before fork, called after."""
    if not LINUX:
        return None
    from .seathost import KEYCTL, SYSCALL, own_session_keyring

    return None if SYSCALL is None or KEYCTL is None else own_session_keyring


_subreaper = False


def _become_subreaper() -> None:
    """Adopt orphans of our players (Linux), so none can outlive its step."""
    global _subreaper
    if _subreaper or not LINUX:
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_CHILD_SUBREAPER = 36
        _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _subreaper = False


def _children() -> set[int]:
    """Our direct children (Linux), from /proc/self/task/*/children."""
    pids: set[int] = set()
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError):
                with open(f"/proc/self/task/{task}/children") as f:
                    pids.update(int(p) for p in f.read().split())
    return pids


def _kill_tree(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(pgid, signal.SIGKILL)


def _sweep_orphans(known: set[int]) -> int:
    """Kill every child we did not have before the step (re-parented orphans)
    and everything they spawn, until none is left, however long the chain
    (each round kills the parents of the next).  Returns how many."""
    killed = 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        strays = _children() - known
        if not strays:
            break
        for pid in strays:
            _kill_tree(pid)  # its own group, if it made one
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
            killed += 1
    return killed


def output_tail(path: Path, start: int, size: int = 4096) -> str:
    with contextlib.suppress(OSError):
        with open(path, "rb") as f:
            end = f.seek(0, os.SEEK_END)
            f.seek(max(start, end - size))
            return f.read().decode("utf-8", "replace")
    return ""


def cap_output(path: Path, start: int, keep_kb: int) -> None:
    """Keep at most ``keep_kb`` of what this step appended to ``path``."""
    with contextlib.suppress(OSError):
        size = path.stat().st_size
        limit = start + keep_kb * 1024
        if size > limit:
            with open(path, "r+b") as f:
                f.truncate(limit)
                f.seek(limit)
                f.write(f"\n[referee: {size - limit} more bytes of output dropped]\n".encode())


def _wait_posix(proc: subprocess.Popen, deadline: float) -> tuple[int, object | None, bool]:
    """Block until the child exits or the deadline passes, without polling
    (pidfd on Linux); kill its group at the deadline.  Returns (status,
    rusage, timed_out)."""
    pid = proc.pid
    timed_out = False
    pidfd = None
    if hasattr(os, "pidfd_open"):
        with contextlib.suppress(OSError):
            pidfd = os.pidfd_open(pid)
    try:
        while True:
            done, status, usage = _try_wait(pid)
            if done:
                return status, usage, timed_out
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                _kill_tree(pid)
                _, status, usage = os.wait4(pid, 0)
                return status, usage, timed_out
            if pidfd is not None:
                poller = select.poll()
                poller.register(pidfd, select.POLLIN)
                poller.poll(max(1, int(remaining * 1000) + 1))
            else:
                time.sleep(min(remaining, 0.002))
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _try_wait(pid: int) -> tuple[bool, int, object | None]:
    wpid, status, usage = os.wait4(pid, os.WNOHANG)
    return (wpid == pid), status, usage


def run_process(argv: Sequence[str], cwd: Path, env: Mapping[str, str], limits: Limits,
                stdout_path: Path, stderr_path: Path) -> RunResult:
    """Run ``argv`` once in ``cwd`` with ``limits``; see the module docstring."""
    if _portable():  # the psutil runner
        from .portable import run_process as run_portable
        return run_portable(argv, cwd, env, limits, stdout_path, stderr_path)
    result = RunResult()
    stdout_path.parent.mkdir(parents=True, exist_ok=True)
    out_start = stdout_path.stat().st_size if stdout_path.exists() else 0
    err_start = stderr_path.stat().st_size if stderr_path.exists() else 0
    known = _children() if LINUX else set()
    if LINUX:
        _become_subreaper()
    start = time.monotonic()
    with open(stdout_path, "ab") as out, open(stderr_path, "ab") as err:
        try:
            if POSIX:
                proc = subprocess.Popen(
                    list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                    stdout=out, stderr=err, close_fds=True, start_new_session=True,
                    preexec_fn=_rlimit_setter(limits))
            else:  # pragma: no cover - Windows
                proc = subprocess.Popen(
                    list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                    stdout=out, stderr=err,
                    creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0))
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            result.start_error = f"could not start {argv[0]!r}: {exc.strerror if isinstance(exc, OSError) and exc.strerror else exc}"
            result.wall_s = time.monotonic() - start
            return result
        if POSIX:
            try:
                status, usage, result.timed_out = _wait_posix(proc, start + limits.hard_time)
            except BaseException:  # Ctrl-C, a kill of the referee: take the player down too
                _kill_tree(proc.pid)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(proc.pid, 0)
                proc.returncode = -signal.SIGKILL
                raise
            proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again
            result.wall_s = time.monotonic() - start
            if usage is not None:
                result.cpu_s = usage.ru_utime + usage.ru_stime
                # ru_maxrss is KiB on Linux, bytes on macOS.
                result.peak_kb = usage.ru_maxrss // (1024 if sys.platform == "darwin" else 1)
            _kill_tree(proc.pid)  # anything left in the player's group
            if LINUX:
                result.orphans_killed = _sweep_orphans(known)
            code = proc.returncode
        else:  # pragma: no cover - Windows
            try:
                code = proc.wait(timeout=limits.hard_time)
            except subprocess.TimeoutExpired:
                result.timed_out = True
                subprocess.run(["taskkill", "/F", "/T", "/PID", str(proc.pid)],
                               capture_output=True, check=False)
                code = proc.wait()
            result.wall_s = time.monotonic() - start
    if code < 0:
        result.signal = -code
    else:
        result.exit_code = code
    for path, begin in ((stdout_path, out_start), (stderr_path, err_start)):
        cap_output(path, begin, limits.output_kb)
    result.stdout_tail = output_tail(stdout_path, out_start)
    result.stderr_tail = output_tail(stderr_path, err_start)
    return result
