"""The seat host: a small process that runs one seat's player, step after step.

The referee starts one per seat per match and talks to it over its stdin and
stdout, one JSON line per message.  It exists for three reasons (DESIGN.md,
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

Request:  {"argv": [...], "env": {...}, "cwd": "...", "hard": s, "rlimits":
           {"cpu": s, "as": bytes, "fsize": bytes, "nofile": n},
           "stdout": path, "stderr": path, "output_kb": n}
Reply:    {"exit", "signal", "timed_out", "wall", "cpu", "peak_kb",
           "start_error", "killed", "stdout_tail", "stderr_tail"}
{"ping": 1} is answered {"pong": true} (the referee waits for it, so the
host's start-up is never charged to a player).  End of input: kill everything
and exit.
"""
from __future__ import annotations

import json
import os
import resource
import select
import signal
import sys
import time

TAIL = 4096
RLIMITS = {"cpu": resource.RLIMIT_CPU, "as": resource.RLIMIT_AS,
           "fsize": resource.RLIMIT_FSIZE, "nofile": resource.RLIMIT_NOFILE}


def _prctl():
    """libc's prctl, or None (loaded once, before any fork)."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, ImportError):
        return None


PRCTL = _prctl()
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def _children() -> list[int]:
    pids: list[int] = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children") as f:
                pids.extend(int(p) for p in f.read().split())
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


def sweep(pid1: bool, pgid: int | None) -> int:
    """Kill every process the step left; returns how many were reaped.

    As pid 1 of a pid namespace one ``kill(-1)`` reaches all of them.
    Otherwise kill the player's group, then every child (orphans are
    re-parented to us, the subreaper) until none is left: a chain of any depth
    ends, because each round kills the parents of the next."""
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
    """Append to ``path`` without following a link planted in its place."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(path, flags, 0o644)
    except OSError:
        try:  # a link, a fifo, a directory: put a file back
            if os.path.isdir(path) and not os.path.islink(path):
                os.rename(path, path + f".moved-{time.monotonic_ns()}")
            else:
                os.unlink(path)
        except OSError:
            pass
        try:
            return os.open(path, flags | os.O_NONBLOCK, 0o644)
        except OSError:
            return os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)


def _size(fd: int) -> int:
    try:
        return os.fstat(fd).st_size
    except OSError:
        return 0


def _cap_and_tail(fd: int, start: int, keep_kb: int) -> str:
    """Keep at most ``keep_kb`` of what this step wrote; return its tail."""
    try:
        size = os.fstat(fd).st_size
        limit = start + keep_kb * 1024
        if size > limit:
            os.ftruncate(fd, limit)
            os.write(fd, f"\n[referee: {size - limit} more bytes of output dropped]\n".encode())
            size = os.fstat(fd).st_size
        begin = max(start, size - TAIL)
        data = os.pread(fd, size - begin, begin)
        return data.decode("utf-8", "replace")
    except OSError:
        return ""


def _child(req: dict, out: int, err: int, report: int) -> None:
    """In the forked child: become the player (never returns)."""
    try:
        os.setsid()
        if PRCTL is not None:
            PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        for name, value in (req.get("rlimits") or {}).items():
            which = RLIMITS[name]
            value = int(value)
            top = value + 1 if name == "cpu" else value  # SIGXCPU first, SIGKILL a second later
            _, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value, top = min(value, hard), min(top, hard)
            resource.setrlimit(which, (value, top))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
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


def run(req: dict, pid1: bool, control: int) -> dict:
    reply: dict = {"exit": None, "signal": None, "timed_out": False, "wall": 0.0, "cpu": 0.0,
                   "peak_kb": 0, "start_error": None, "killed": 0,
                   "stdout_tail": "", "stderr_tail": ""}
    out, err = _open_output(req["stdout"]), _open_output(req["stderr"])
    out_start, err_start = _size(out), _size(err)
    report_r, report_w = os.pipe2(os.O_CLOEXEC)
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(report_r)
        _child(req, out, err, report_w)
    os.close(report_w)
    failure = os.read(report_r, 600)  # EOF at exec: the pipe is close-on-exec
    os.close(report_r)
    status = usage = None
    if failure:
        _, status, usage = os.wait4(pid, 0)
        reply["start_error"] = f"could not start {req['argv'][0]!r}: {failure.decode('utf-8', 'replace')}"
    else:
        status, usage, reply["timed_out"] = _wait(pid, start + float(req["hard"]), control, pid1)
    reply["wall"] = time.monotonic() - start
    if usage is not None:
        reply["cpu"] = usage.ru_utime + usage.ru_stime
        reply["peak_kb"] = usage.ru_maxrss
    if not failure and status is not None:
        code = os.waitstatus_to_exitcode(status)
        if code < 0:
            reply["signal"] = -code
        else:
            reply["exit"] = code
    reply["killed"] = sweep(pid1, pid)
    if not pid1:  # a player that stopped the referee (SIGSTOP) does not leave it stopped
        try:
            os.kill(os.getppid(), signal.SIGCONT)
        except OSError:
            pass
    keep = int(req.get("output_kb", 64))
    reply["stdout_tail"] = _cap_and_tail(out, out_start, keep)
    reply["stderr_tail"] = _cap_and_tail(err, err_start, keep)
    os.close(out)
    os.close(err)
    return reply


def _wait(pid: int, deadline: float, control: int, pid1: bool):
    """Wait for ``pid`` until the deadline, without polling; kill at the
    deadline.  End of input on ``control`` (the referee died) kills too."""
    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(control, select.POLLHUP)
    try:
        while True:
            wpid, status, usage = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                return status, usage, False
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            events = poller.poll(max(1, int(remaining * 1000) + 1))
            if any(fd == control for fd, _ in events):
                sweep(pid1, pid)
                os._exit(0)
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
    return status, usage, True


def main() -> None:
    pid1 = "--pid1" in sys.argv[1:]
    if not pid1 and PRCTL is not None:
        PRCTL(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    # Outside a sandbox the referee's death must take the step down with us.
    signal.signal(signal.SIGTERM, lambda *_: (sweep(pid1, None), os._exit(0)))
    if not pid1 and PRCTL is not None:
        PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() == 1:  # the referee is already gone
            os._exit(0)
    control = sys.stdin.fileno()
    answer = sys.stdout
    for line in sys.stdin:
        try:
            req = json.loads(line)
            reply = {"pong": True} if req.get("ping") else run(req, pid1, control)
        except Exception as exc:  # noqa: BLE001 - a bad request must not kill the host
            sweep(pid1, None)
            reply = {"host_error": repr(exc)}
        answer.write(json.dumps(reply) + "\n")
        answer.flush()
    sweep(pid1, None)


if __name__ == "__main__":
    main()
