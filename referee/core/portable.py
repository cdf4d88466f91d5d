"""The portable runner: one player process for one step on any OS, built on
psutil, with the same contract as :func:`referee.core.runner.run_process`.

It is what runs on Windows, and on any OS when ``REFEREE_RUNNER=portable``
is set (CI runs a subset of the end-to-end suite that way on Linux, so this
code is exercised where the developers are).  The Linux runner relies on
kernel features (rlimits before exec, a child subreaper, pidfd); here only
what psutil offers on Linux, macOS and Windows alike is used:

- wall clock: the hard limit kills the whole tree (``timed_out``);
- CPU time and memory: measured by *sampling* the process tree every
  :data:`SAMPLE_S` seconds: CPU summed over every process seen (the limit is
  the whole tree's, as a busy child counts), memory as the largest resident
  set of one process (per process, like RLIMIT_AS on Linux; a sum would count
  the pages forked children share once per child).  Over ``cpu_time`` or
  ``memory_mb`` the tree is killed: CPU_LIMIT / MEMORY_LIMIT.  A spike
  shorter than a sample can be missed, and memory is resident memory, not the
  address space RLIMIT_AS limits; on POSIX the exit status's rusage refines
  both figures;
- file size and open files: rlimits on POSIX (macOS, Linux), nothing on
  Windows (see :func:`unsupported_limits`);
- nothing survives the step: after every run, and at every limit, the tree is
  suspended and killed.  The tree is everything found three ways, because
  each alone can be escaped: (1) every process seen as a descendant while
  sampling, including ones re-parented since; (2) every process whose
  environment carries this run's :data:`MARKER` (a process that daemonizes
  keeps its environment unless it clears it on purpose); (3) on POSIX, the
  player's own session and process group.  A process that clears its
  environment *and* leaves the tree before the first sample is not found:
  that is what the Linux runner's subreaper (and the sandbox) are for.

On Linux the portable runner also makes the referee a child subreaper, only
so that the orphans it kills become its own children and are reaped at once
(an init that reaps slowly would leave them as zombies); finding and killing
them is the portable code above.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Mapping, Sequence

import psutil

from . import lifeline
from .runner import Limits, RunResult, cap_output, output_tail

try:  # POSIX only
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

POSIX = os.name == "posix"
MARKER = "REFEREE_RUN_ID"
SAMPLE_S = 0.02  # seconds between two looks at the process tree
SWEEP_ROUNDS = 50  # a fork loop is out-run within this many kill rounds


def unsupported_limits(limits: Limits) -> list[str]:
    """The configured limits this runner cannot enforce on this OS."""
    if POSIX:
        return []
    wanted = {"file_size_mb": limits.file_size_mb, "open_files": limits.open_files}
    return [name for name, value in wanted.items() if value]


def run_process(argv: Sequence[str], cwd: Path, env: Mapping[str, str], limits: Limits,
                stdout_path: Path, stderr_path: Path) -> RunResult:
    """Run ``argv`` once in ``cwd`` with ``limits``; see the module docstring."""
    result = RunResult()
    stdout_path.parent.mkdir(parents=True, exist_ok=True)
    starts = {path: (path.stat().st_size if path.exists() else 0)
              for path in (stdout_path, stderr_path)}
    run_id = secrets.token_hex(12)
    # Before the player starts: a player that leaves a helper and ends before
    # this process runs again (a busy machine) left it to init otherwise.
    _adopt_orphans()
    pids_before = set(psutil.pids())
    start = time.monotonic()
    with open(stdout_path, "ab") as out, open(stderr_path, "ab") as err:
        try:
            proc = subprocess.Popen(list(argv), cwd=cwd, env=lifeline.environment({**env, MARKER: run_id}),
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    close_fds=True, **_spawn_options(limits))
            lifeline.adopt(proc)
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            result.start_error = f"could not start {argv[0]!r}: {reason}"
            result.wall_s = time.monotonic() - start
            return result
        watch = _Watch(proc, run_id, pids_before)
        try:
            _supervise(watch, limits, start, result)
        finally:  # also on Ctrl-C or a kill of the referee: take the player down too
            result.orphans_killed = watch.kill_all()
            watch.reap()
    result.cpu_s = max(watch.cpu_s, watch.rusage_cpu_s)
    result.peak_kb = max(watch.peak_kb, watch.rusage_peak_kb)
    code = proc.returncode
    if POSIX and code is not None and code < 0:
        result.signal = -code
    else:
        result.exit_code = code
    for path, begin in starts.items():
        cap_output(path, begin, limits.output_kb)
    result.stdout_tail = output_tail(stdout_path, starts[stdout_path])
    result.stderr_tail = output_tail(stderr_path, starts[stderr_path])
    return result


def _supervise(watch: "_Watch", limits: Limits, start: float, result: RunResult) -> None:
    """Sample until the player exits or a limit is hit (the caller then kills
    the tree); sets the wall time and which limit stopped it."""
    deadline = start + limits.hard_time
    cpu_limit = limits.effective_cpu
    memory_kb = limits.memory_mb * 1024 if limits.memory_mb else None
    while True:
        # Wait first: a player that is done within one sample costs no sampling
        # (its rusage still gives CPU and peak memory on POSIX).
        if watch.exited.wait(max(0.0, min(SAMPLE_S, deadline - time.monotonic()))):
            break
        watch.sample()
        now = time.monotonic()
        if now >= deadline:
            result.timed_out = True
            break
        if cpu_limit and watch.cpu_s >= cpu_limit:
            result.notes.append(f"killed at the CPU limit ({watch.cpu_s:.2f} s, sampled)")
            break
        if memory_kb and watch.rss_kb >= memory_kb:
            result.notes.append(f"killed at the memory limit ({watch.rss_kb // 1024} MiB resident "
                                "in one process, sampled)")
            break
    result.wall_s = time.monotonic() - start
    if result.wall_s >= limits.hard_time:  # past the hard limit is a timeout, whatever happened
        result.timed_out = True


def _spawn_options(limits: Limits) -> dict:
    """A session of its own (POSIX) or a process group (Windows), and on
    POSIX the rlimits that need no sampling: file size, open files."""
    if not POSIX:  # pragma: no cover - Windows
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    pairs = []
    if resource is not None and limits.file_size_mb:
        pairs.append((resource.RLIMIT_FSIZE, int(limits.file_size_mb * 1024 * 1024)))
    if resource is not None and limits.open_files:
        pairs.append((resource.RLIMIT_NOFILE, int(limits.open_files)))

    referee = os.getpid()

    def apply() -> None:  # between fork and exec: keep it minimal
        lifeline.child_setup(referee)
        for which, value in pairs:
            _soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value))

    return {"start_new_session": True, "preexec_fn": apply}


class _Watch:
    """One run's process tree: what was seen in it, what it used, and how
    to kill all of it."""

    def __init__(self, proc: subprocess.Popen, run_id: str, pids_before: set[int]) -> None:
        self.proc = proc
        self.run_id = run_id
        self.pids_before = pids_before
        self.seen: dict[int, psutil.Process] = {}
        self.cpu_by_pid: dict[tuple[int, float], float] = {}  # (pid, create time) -> last CPU
        self.cpu_s = 0.0
        self.rss_kb = 0
        self.peak_kb = 0
        self.rusage_cpu_s = 0.0
        self.rusage_peak_kb = 0
        self.exited = threading.Event()
        with contextlib.suppress(psutil.Error):
            root = psutil.Process(proc.pid)
            self.seen[proc.pid] = root
        self._waiter = threading.Thread(target=self._wait, daemon=True)
        self._waiter.start()

    def _wait(self) -> None:
        """Block until the player itself exits (no polling), keeping its
        rusage on POSIX; Popen is told the status so it never waits again."""
        try:
            if POSIX:
                _pid, status, usage = os.wait4(self.proc.pid, 0)
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                self.rusage_cpu_s = usage.ru_utime + usage.ru_stime
                # ru_maxrss is KiB on Linux, bytes on macOS.
                self.rusage_peak_kb = usage.ru_maxrss // (1024 if sys.platform == "darwin" else 1)
            else:  # pragma: no cover - Windows
                self.proc.wait()
        except ChildProcessError:  # reaped elsewhere: the status is lost, not the step
            self.proc.returncode = self.proc.returncode if self.proc.returncode is not None else -9
        finally:
            self.exited.set()

    def reap(self) -> None:
        self._waiter.join()

    def descendants(self) -> list[psutil.Process]:
        """Live processes under the player or under anything seen before
        (orphans are re-parented away from the player's tree)."""
        roots = [p for p in self.seen.values() if _alive(p)]
        if not roots:  # the usual end of a step: no need to read the process table
            return []
        found: dict[int, psutil.Process] = {p.pid: p for p in roots}
        parents = _children_by_parent()
        queue = [p.pid for p in roots]
        while queue:
            for child_pid in parents.get(queue.pop(), ()):
                if child_pid not in found and child_pid != os.getpid():
                    with contextlib.suppress(psutil.Error):
                        found[child_pid] = psutil.Process(child_pid)
                        queue.append(child_pid)
        return list(found.values())

    def sample(self) -> None:
        """Add what the tree is using now to the measures."""
        rss = 0
        for proc in self.descendants():
            self.seen.setdefault(proc.pid, proc)
            try:
                with proc.oneshot():
                    times = proc.cpu_times()
                    key = (proc.pid, proc.create_time())
                    rss = max(rss, proc.memory_info().rss)
            except psutil.Error:
                continue
            self.cpu_by_pid[key] = times.user + times.system
        self.cpu_s = sum(self.cpu_by_pid.values())
        self.rss_kb = rss // 1024
        self.peak_kb = max(self.peak_kb, self.rss_kb)

    def marked(self) -> list[psutil.Process]:
        """Processes started since this run whose environment carries its
        marker.  Only pids that were not there before the run are read (the
        process table's pid list is cheap, reading every process is not); a
        pid reused within one step would be missed."""
        found = []
        for pid in set(psutil.pids()) - self.pids_before:
            with contextlib.suppress(psutil.Error, OSError):
                proc = psutil.Process(pid)
                if proc.environ().get(MARKER) == self.run_id:
                    found.append(proc)
        return found

    def kill_all(self) -> int:
        """Suspend and kill every process of the run until none is left;
        returns how many other than the player itself were killed."""
        killed: set[tuple[int, float]] = set()
        for _ in range(SWEEP_ROUNDS):
            targets = {p.pid: p for p in self.descendants() + self.marked() if _alive(p)}
            if not targets:
                break
            for proc in targets.values():  # stop them first, so none forks while others die
                with contextlib.suppress(psutil.Error):
                    proc.suspend()
            for proc in targets.values():
                with contextlib.suppress(psutil.Error):
                    killed.add((proc.pid, proc.create_time()))
                    proc.kill()
            # psutil would reap the player itself (os.waitpid) under the waiter thread's
            # feet and lose its status: the waiter is waited for instead.
            others = [p for p in targets.values() if p.pid != self.proc.pid]
            _reap_adopted(others)
            psutil.wait_procs(others, timeout=1)
            if self.proc.pid in targets:
                self.exited.wait(1)
        if POSIX:  # the last resort: whatever is left in the player's session and group
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass  # an empty group, as it should be
            else:
                _reap_group(self.proc.pid, exclude=self.proc.pid)
        return len({pid for pid, _ in killed} - {self.proc.pid})


_adopting: int | None = None  # the process that became a subreaper (a fork is not one)


def _adopt_orphans() -> None:
    """Linux: become a child subreaper (see the module docstring); elsewhere
    nothing, the system reaps orphans."""
    global _adopting
    if _adopting == os.getpid() or not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        PR_SET_CHILD_SUBREAPER = 36
        if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
            _adopting = os.getpid()


def _reap_adopted(procs: list[psutil.Process]) -> None:
    """Wait for the killed processes that are our own children (adopted
    orphans), so none is left a zombie; psutil waits for the others."""
    if not POSIX:  # pragma: no cover - Windows has no zombies
        return
    me = os.getpid()
    for proc in procs:
        with contextlib.suppress(psutil.Error, ChildProcessError, OSError):
            if proc.ppid() == me:
                os.waitpid(proc.pid, 0)


def _reap_group(pgid: int, exclude: int) -> None:
    """Wait for our own children (adopted orphans) left in group ``pgid``."""
    with contextlib.suppress(psutil.Error):
        for child in psutil.Process().children():
            with contextlib.suppress(OSError, ChildProcessError):
                if child.pid != exclude and os.getpgid(child.pid) == pgid:
                    os.waitpid(child.pid, 0)


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _children_by_parent() -> dict[int, list[int]]:
    """Every process's children, from one look at the process table.
    psutil's own map (what ``Process.children`` uses) when it has one: one
    read of the table instead of one per process."""
    ppid_map = getattr(psutil, "_ppid_map", None)
    pairs: dict[int, int] = {}
    if ppid_map is not None:
        with contextlib.suppress(Exception):
            pairs = dict(ppid_map())
    if not pairs:
        for proc in psutil.process_iter(["ppid"]):
            pairs[proc.pid] = proc.info["ppid"] or 0
    children: dict[int, list[int]] = {}
    for pid, ppid in pairs.items():
        children.setdefault(ppid, []).append(pid)
    return children
