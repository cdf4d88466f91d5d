"""Run ``referee ARGS`` for a test without paying the referee's start-up.

Why: the suite runs ~620 ``referee`` commands, and each began with Python's
start-up, ``import referee.cli`` and loading the games: ~0.25 s of CPU
before the command did anything, about a sixth of the suite's CPU on a
2-core machine.  Most tests check what a command does, not how it starts.

How: each test process (xdist worker) starts, at its first command, one
warm process (``python tests/launcher.py``, this file) that imports the
CLI, the modules its commands import lazily, and every game, and then
forks a fresh child per command.  The child takes the request's arguments,
whole environment, working folder and stdin/stdout/stderr (file descriptors
passed over a unix socket), gets the signal state a new Python has, and runs
``referee.cli:main`` as the console script does (``sys.exit(main())``), so
the interpreter's normal exit (atexit, flushing, an uncaught exception's
traceback and exit status 1, KeyboardInterrupt's death by SIGINT) is the
real one.  :func:`run` returns what ``subprocess.run([referee, *args],
capture_output=True)`` returns: the same returncode, stdout and stderr
(text decoded and newlines translated the same way), ``input=`` on stdin
(else the test's own stdin), and ``TimeoutExpired`` after killing the
command's process group (the child leads its own group).

What stays the real command (``subprocess`` with the console script or
``python -m referee``): tests of the process itself (the wheel, nonroot,
autograder packages, ``--version`` and the entry point, SIGINT, anything
that signals the referee or looks at its pid or children), a few ordinary
end-to-end cases.  Python reads some variables only when it starts
(``PYTHON*``, the locale's): a command whose environment sets them otherwise
than the test process's goes to a warm process started with them (from the
second such command on; the first is a real process).

Equivalence: the warm process never starts a thread (forking a threaded
process is unsafe; checked), and what the referee caches while it is warmed
is only the registry (entry points; the sys.path it reads is the console
script's, apart from sys.path[0], which the child sets); tests/test_launcher.py
checks both, and that launched and real commands agree.  One difference is
left: every child shares the warm process's string-hash seed.

``REFEREE_TEST_LAUNCHER=0`` turns it off for the whole run (every command is
a real process again); if the warm process cannot start, commands fall back
to real processes too."""
from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

REFEREE = Path(sys.executable).with_name("referee")
"""The console script a launched command stands for."""
STARTUP_ENV = ("LANG", "LC_ALL", "LC_CTYPE")
"""Besides PYTHON*, the variables Python reads only when it starts (stdio's encoding)."""
WARM_MODULES = ("referee.cli", "referee.core.match", "referee.core.seats", "referee.core.sandbox",
                "referee.core.runner", "referee.replay", "referee.verify", "referee.rerun")
"""Imported once by the warm process; the lazy commands and the games are added."""
MAX_REQUEST = 1 << 20


def enabled() -> bool:
    return os.environ.get("REFEREE_TEST_LAUNCHER", "1") != "0"


def _startup_var(name: str) -> bool:
    return name.startswith("PYTHON") or name in STARTUP_ENV


def _startup_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if _startup_var(k)}


# ----- the client (in the test process) ---------------------------------------------

class _Server:
    """The warm process and the socket to it."""

    def __init__(self, env: dict[str, str]) -> None:
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.startup_env = _startup_env(env)
        self.proc = subprocess.Popen([sys.executable, __file__, str(theirs.fileno())], pass_fds=[theirs.fileno()],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, env=env, cwd="/")
        theirs.close()
        self.sock = mine
        self.lock = threading.Lock()
        ready = self.proc.stderr.readline()  # b"ready\n" once warm, or its error
        if ready != b"ready\n":
            rest = self.proc.stderr.read()
            self.close()
            raise RuntimeError(f"the warm referee did not start: {(ready + rest).decode(errors='replace')[-500:]}")
        self.proc.stderr.close()

    def close(self) -> None:
        """End the warm process (it kills what it still runs) and reap it."""
        self.sock.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_servers: dict[tuple, _Server] = {}  # by start-up environment (_startup_env)
_asked: set[tuple] = set()
_failed: set[tuple] = set()
_start_lock = threading.Lock()
MAX_SERVERS = 4
cpu_seconds = 0.0
"""CPU (user + system) of every launched command and its waited-for children,
as the warm process reaped them: a measurement plugin adds this, since it
reaches the test process's own children-times only when the warm process ends."""


def _get_server(env: dict[str, str] | None = None) -> _Server | None:
    """The warm process for commands started with ``env`` (the test
    process's own by default).  Variables Python reads only at its start
    (PYTHONPATH: other games installed) need a warm process of their own:
    one is started at the second command asking for them (a module's
    fixture), the first runs as a real process (a test's one-off)."""
    env = dict(os.environ if env is None else env)
    key = tuple(sorted(_startup_env(env).items()))
    with _start_lock:
        if key not in _servers and key not in _failed:
            if key != tuple(sorted(_startup_env(dict(os.environ)).items())) and key not in _asked:
                _asked.add(key)
                return None
            if len(_servers) >= MAX_SERVERS:
                _servers.pop(next(iter(_servers))).close()
            # The request's start-up variables, and otherwise the test
            # process's own environment, never the request's other variables:
            # the warm process outlives the command, and a test may look for
            # processes that carry what it gave its command (test_rogues'
            # token).  A child takes its command's whole environment anyway.
            warm_env = {k: v for k, v in os.environ.items() if not _startup_var(k)}
            warm_env.update(_startup_env(env))
            try:
                _servers[key] = _Server(warm_env)
                if len(_servers) == 1:
                    atexit.register(stop)
            except (OSError, RuntimeError) as exc:
                _failed.add(key)
                print(f"tests/launcher.py: real processes from now on: {exc}", file=sys.stderr)
        return _servers.get(key)


def stop() -> None:
    """End this process's warm referee, if any, and reap it (conftest calls
    it at the session's end, so that its CPU counts in the test run's own)."""
    while _servers:
        _servers.popitem()[1].close()


def _real(argv: list[str], cwd, env, input, timeout, text) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env=env, input=input, timeout=timeout, text=text,
                          capture_output=True)


def run(args, *, cwd: str | os.PathLike | None = None, env: dict[str, str] | None = None,
        input: str | bytes | None = None, timeout: float | None = None,
        text: bool = True) -> subprocess.CompletedProcess:
    """``subprocess.run([referee, *args], capture_output=True, ...)``, from the
    warm process when it can (see the module's docstring)."""
    argv = [str(REFEREE), *map(str, args)]
    env = dict(os.environ if env is None else env)
    server = _get_server(env) if enabled() and hasattr(os, "pidfd_open") else None
    if server is None or (cwd is not None and not os.path.isdir(cwd)):
        return _real(argv, cwd, env, input, timeout, text)
    encoding = subprocess._text_encoding() if text else None  # as Popen(text=True) picks it
    data = input.encode(encoding) if text and input is not None else input
    order = json.dumps({"argv": argv, "env": env, "cwd": os.path.abspath(cwd or os.getcwd())}).encode()
    if len(order) > MAX_REQUEST:
        return _real(argv, cwd, env, input, timeout, text)

    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    status_r, status_w = os.pipe()
    if data is not None:
        in_r, in_w = os.pipe()
    else:  # the test process's own stdin, as a subprocess inherits it
        try:
            in_r = os.dup(0)
        except OSError:
            in_r = os.open(os.devnull, os.O_RDONLY)
        in_w = None
    try:
        with server.lock:
            socket.send_fds(server.sock, [order], [in_r, out_w, err_w, status_w])
    except OSError:
        for fd in (out_r, out_w, err_r, err_w, status_r, status_w, in_r, *([in_w] if in_w else [])):
            os.close(fd)
        return _real(argv, cwd, env, input, timeout, text)
    for fd in (in_r, out_w, err_w, status_w):
        os.close(fd)
    return _communicate(argv, out_r, err_r, status_r, in_w, data, timeout, encoding)


def _communicate(argv, out_r, err_r, status_r, in_w, data, timeout, encoding):
    """Popen.communicate's loop over the child's pipes and the warm process's
    report (``PID``, then ``exit CODE CPU``), then the CompletedProcess."""
    global cpu_seconds
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: [], status_r: []}
    sel = selectors.DefaultSelector()
    for fd in chunks:
        sel.register(fd, selectors.EVENT_READ)
    offset = 0
    if in_w is not None:
        if data:
            os.set_blocking(in_w, False)
            sel.register(in_w, selectors.EVENT_WRITE)
        else:
            os.close(in_w)
            in_w = None
    deadline = None if timeout is None else time.monotonic() + timeout
    pid = None
    timed_out = False
    try:
        while sel.get_map():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(left):
                fd = key.fd
                if fd == in_w:
                    try:
                        offset += os.write(in_w, data[offset:offset + 65536])
                    except BrokenPipeError:
                        offset = len(data)
                    if offset >= len(data):
                        sel.unregister(in_w)
                        os.close(in_w)
                        in_w = None
                    continue
                chunk = os.read(fd, 65536)
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    sel.unregister(fd)
            if pid is None and b"\n" in b"".join(chunks[status_r]):
                pid = int(b"".join(chunks[status_r]).split(b"\n", 1)[0])
        if timed_out:
            if pid is None:  # the warm process has not even forked: wait for it
                pid = int(_read_line(status_r, chunks[status_r]))
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _read_rest(status_r, chunks[status_r])  # its exit, as Popen.wait() after kill()
            raise subprocess.TimeoutExpired(argv, timeout, b"".join(chunks[out_r]), b"".join(chunks[err_r]))
    except KeyboardInterrupt:
        if pid is not None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        raise
    finally:
        sel.close()
        for fd in (out_r, err_r, status_r, *([in_w] if in_w is not None else [])):
            os.close(fd)
    lines = b"".join(chunks[status_r]).decode().split()
    if len(lines) != 4 or lines[1] != "exit":
        raise RuntimeError(f"tests/launcher.py: the warm referee died during {argv[1:]!r}: {lines!r}")
    returncode, cpu = int(lines[2]), float(lines[3])
    cpu_seconds += cpu
    out, err = b"".join(chunks[out_r]), b"".join(chunks[err_r])
    if encoding is not None:  # Popen._translate_newlines
        out = out.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
        err = err.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
    return subprocess.CompletedProcess(argv, returncode, out, err)


def _read_line(fd: int, into: list[bytes]) -> bytes:
    while b"\n" not in b"".join(into):
        chunk = os.read(fd, 4096)
        if not chunk:
            raise RuntimeError("tests/launcher.py: the warm referee died")
        into.append(chunk)
    return b"".join(into).split(b"\n", 1)[0]


def _read_rest(fd: int, into: list[bytes]) -> None:
    while chunk := os.read(fd, 4096):
        into.append(chunk)


# ----- the warm process -------------------------------------------------------------

def _warm() -> None:
    import importlib

    for name in WARM_MODULES:
        importlib.import_module(name)
    from referee.cli import LAZY_COMMANDS
    from referee.core import registry

    for module, _ in LAZY_COMMANDS.values():
        importlib.import_module(module)
    for game in registry.available_games():
        try:
            registry.get_game(game)
        except Exception:  # a broken game is the command's to report
            pass


def filled_caches() -> list[str]:
    """The referee's functools caches that hold something (after :func:`_warm`:
    only the registry's may, see the module's docstring)."""
    found = []
    for name, module in sorted(sys.modules.items()):
        if name == "referee" or name.startswith("referee."):
            for attr, value in sorted(vars(module).items()):
                info = getattr(value, "cache_info", None)
                if callable(info) and getattr(value, "__module__", None) == name and info().currsize:
                    found.append(f"{name}.{attr}")
    return found


def serve(control_fd: int):
    """The warm process's loop; returns only in a forked child, with what
    :func:`run_command` needs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the test process stops it
    _warm()
    import gc

    gc.freeze()  # a child's collections and exit then leave these pages shared (~70 -> ~25 ms a command)
    control = socket.socket(fileno=control_fd)
    os.write(2, b"ready\n")
    devnull = os.open(os.environ.get("REFEREE_TEST_LAUNCHER_LOG", os.devnull), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.dup2(devnull, 2)  # the client stops reading; a bug here shows as "died"
    os.close(devnull)
    running: dict[int, tuple[int, int]] = {}  # pidfd: (pid, status fd)
    while True:
        ready = _select([control.fileno(), *running])
        for fd in ready:
            if fd == control.fileno():
                try:
                    msg, fds, _, _ = socket.recv_fds(control, MAX_REQUEST, 4)
                except OSError:
                    msg, fds = b"", []
                if not msg:  # the test process is done (or gone)
                    for pid, _ in running.values():
                        _killpg(pid)
                    for pidfd, (pid, status) in running.items():
                        os.waitpid(pid, 0)
                    os._exit(0)
                order = json.loads(msg)
                pid = os.fork()
                if pid == 0:
                    control.detach()
                    for pidfd, (_, status) in running.items():
                        os.close(pidfd)
                        os.close(status)
                    os.close(control_fd)
                    return order, fds
                _setpgid(pid)  # as the child does: a kill of its group cannot come too early
                status = fds[3]
                for other in fds[:3]:
                    os.close(other)
                _write(status, f"{pid}\n")
                running[os.pidfd_open(pid)] = (pid, status)
            else:
                pid, status = running.pop(fd)
                os.close(fd)
                _, code, usage = os.wait4(pid, 0)
                _write(status, f"exit {os.waitstatus_to_exitcode(code)} {usage.ru_utime + usage.ru_stime:.6f}\n")
                os.close(status)


def _select(fds: list[int]) -> list[int]:
    import select

    while True:
        try:
            return select.select(fds, [], [])[0]
        except InterruptedError:
            continue


def _setpgid(pid: int) -> None:
    try:
        os.setpgid(pid, pid if pid else 0)
    except OSError:
        pass  # it already did (and may have started the command)


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _write(fd: int, text: str) -> None:
    try:
        os.write(fd, text.encode())
    except OSError:
        pass  # the test process gave up on it


def run_command(order: dict, fds: list[int]):
    """In the forked child: become ``referee ARGS`` as the console script
    starts it, and run it (the interpreter's own exit ends the process)."""
    _setpgid(0)
    for target, fd in enumerate(fds[:3]):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the request's fds, the server's: as close_fds
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a new Python sets it
    os.environ.clear()
    os.environ.update(order["env"])
    os.chdir(order["cwd"])
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    sys.argv = list(order["argv"])
    sys.path[0] = os.path.dirname(sys.argv[0])  # the console script's folder
    import tempfile

    tempfile.tempdir = None  # TMPDIR as this command's environment says
    from referee.cli import main

    sys.exit(main())


if __name__ == "__main__":
    _order = serve(int(sys.argv[1]))
    run_command(*_order)
