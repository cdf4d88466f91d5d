"""Players die with the referee, on every OS (the portable runner's half of
issue 21; the Linux runner's seat hosts do this their own way).

Without the sandbox a player runs as the referee's user and may kill it.
Each of its processes must then die too, rather than go on as a daemon:

- **Linux:** the player's first process asks the kernel for SIGKILL when
  the referee dies (``PR_SET_PDEATHSIG``, set between fork and exec);
- **Linux and macOS:** a *watchdog*, one per referee process, started in a
  session of its own: it reads a pipe only the referee holds (close-on-exec:
  no player inherits it), and when the pipe closes (the referee exited or was
  killed) it kills every process whose environment carries this referee's
  :data:`OWNER` token, the way :mod:`referee.core.portable` finds a step's
  processes, until none is left;
- **Windows:** every player is put in one *job object* created with
  ``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE``: the referee holds the only handle,
  so when it dies, however it dies, Windows kills every process of the job
  (children join their parent's job).

A player that first kills the watchdog (same user) and then the referee is
not stopped on Linux and macOS: the sandbox is what holds there."""
from __future__ import annotations

import os
import secrets
import subprocess
import sys
import threading

from .interpreter import PYTHON

OWNER = "REFEREE_OWNER"
_lock = threading.Lock()
_token: str | None = None
_watchdog: subprocess.Popen | None = None
_job = None

WATCHDOG = r'''
import os, sys, time
import psutil
token = sys.argv[1]
sys.stdin.buffer.read()  # until the referee's end of the pipe closes
me = os.getpid()
for _ in range(50):
    found = []
    for proc in psutil.process_iter():
        if proc.pid == me:
            continue
        try:
            if proc.environ().get("REFEREE_OWNER") == token:
                found.append(proc)
        except (psutil.Error, OSError):
            continue
    if not found:
        break
    for proc in found:
        try:
            proc.suspend()
        except (psutil.Error, OSError):
            pass
    for proc in found:
        try:
            proc.kill()
        except (psutil.Error, OSError):
            pass
    time.sleep(0.05)
'''


def token() -> str:
    """This referee's token, put in every player's environment as :data:`OWNER`."""
    global _token
    with _lock:
        if _token is None:
            _token = secrets.token_hex(12)
        return _token


def environment(env: dict[str, str]) -> dict[str, str]:
    """``env`` with this referee's token, the watchdog started if need be."""
    mine = token()
    if os.name == "posix":
        _start_watchdog(mine)
    return {**env, OWNER: mine}


def _start_watchdog(mine: str) -> None:
    global _watchdog
    with _lock:
        if _watchdog is not None and _watchdog.poll() is None:
            return
        try:
            _watchdog = subprocess.Popen([PYTHON, "-c", WATCHDOG, mine],
                                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True,
                                         close_fds=True)
        except OSError:  # no watchdog: PR_SET_PDEATHSIG and the sweep after each step remain
            _watchdog = None


def _load_prctl():
    """libc's prctl, looked up in the referee (never between fork and exec)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()


def child_setup(referee: int) -> None:
    """Between fork and exec of a player (Linux): SIGKILL when the referee
    (pid ``referee``) dies; if it died already, now."""
    if _PRCTL is not None:
        _PRCTL(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
        if os.getppid() != referee:
            os._exit(137)


def adopt(proc: subprocess.Popen) -> None:
    """Windows: put ``proc`` in the referee's kill-on-close job."""
    if os.name != "nt":
        return
    job = _windows_job()
    if job is not None:
        import ctypes

        ctypes.windll.kernel32.AssignProcessToJobObject(job, int(proc._handle))  # type: ignore[attr-defined]


def _windows_job():  # pragma: no cover - Windows
    """The job object every player joins, made once: KILL_ON_JOB_CLOSE, and
    the referee holds its only handle (never inherited)."""
    global _job
    with _lock:
        if _job is not None:
            return _job or None
        import ctypes
        from ctypes import wintypes

        class BasicLimits(ctypes.Structure):
            _fields_ = [("PerProcessUserTimeLimit", ctypes.c_int64), ("PerJobUserTimeLimit", ctypes.c_int64),
                        ("LimitFlags", wintypes.DWORD), ("MinimumWorkingSetSize", ctypes.c_size_t),
                        ("MaximumWorkingSetSize", ctypes.c_size_t), ("ActiveProcessLimit", wintypes.DWORD),
                        ("Affinity", ctypes.c_size_t), ("PriorityClass", wintypes.DWORD),
                        ("SchedulingClass", wintypes.DWORD)]

        class IoCounters(ctypes.Structure):
            _fields_ = [(name, ctypes.c_uint64) for name in (
                "ReadOperationCount", "WriteOperationCount", "OtherOperationCount",
                "ReadTransferCount", "WriteTransferCount", "OtherTransferCount")]

        class ExtendedLimits(ctypes.Structure):
            _fields_ = [("BasicLimitInformation", BasicLimits), ("IoInfo", IoCounters),
                        ("ProcessMemoryLimit", ctypes.c_size_t), ("JobMemoryLimit", ctypes.c_size_t),
                        ("PeakProcessMemoryUsed", ctypes.c_size_t), ("PeakJobMemoryUsed", ctypes.c_size_t)]

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        kernel32.CreateJobObjectW.restype = wintypes.HANDLE
        handle = kernel32.CreateJobObjectW(None, None)
        if not handle:
            _job = 0
            return None
        info = ExtendedLimits()
        info.BasicLimitInformation.LimitFlags = 0x2000  # JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        ok = kernel32.SetInformationJobObject(handle, 9,  # JobObjectExtendedLimitInformation
                                              ctypes.byref(info), ctypes.sizeof(info))
        _job = handle if ok else 0
        return _job or None
