"""Game workers forked from one process that has imported the referee once.

A game's worker (:mod:`.worker`) is a process of its own, so that games stay
isolated; started as ``python -m referee.tournament.worker`` it spends far more
CPU on Python's start-up and the referee's imports (~0.3 s, 1 s of wall time
on a busy machine) than a fast game spends playing.  So on Linux a series or
tournament starts one fork server, ``python -m referee.tournament.forkserver``,
which imports the referee (and, at the first game, loads the game's plugin)
and then forks one fresh worker per game: a new process with a fresh seat
folder, seat hosts and players, as before, that begins where the imports end.

The server reads commands on stdin, one a line (``ID`` is the client's
number for a worker):

- ``start ID JSON``: fork a worker; JSON holds its SPEC line, its stderr file,
  environment and working folder.  The worker reads the SPEC and then ``go``
  on its stdin as a ``python -m referee.tournament.worker -`` does;
- ``go ID``: the worker's game may start;
- ``after ID NEXT``: ``go NEXT`` once worker ID's game has played its last
  step (it says so on its socket, see ``worker``; at once if it has):
  what is left of that game then (its result written, its seats closed or
  kept, their files landed, its exit) need not hold the next game up, nor
  does a round trip through the client (see ``runner.WorkerPlay``);
- ``off ID``: end the worker's input (before ``go``: its game is called off);
- ``kill ID``: SIGKILL the worker.

and writes ``exit ID CODE`` when a worker ends (CODE as
``Popen.returncode``: negative for a signal).  Each worker's stdin is a pipe
whose only writer is the server; when the server's own stdin ends (the
client closed it, or died, even by SIGKILL) it closes them all, so that
every worker sees what a worker of its own sees when its parent dies (see
:mod:`.worker`), and exits once they are gone.

The server is single-threaded (forking a threaded process is unsafe) and
ignores SIGINT: the client stops it.  A worker gets SIGINT's default back."""
from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import IO

from referee.core import warmseats
from referee.core.interpreter import PYTHON

from . import worker


def available() -> bool:
    """Whether workers can be forked from a server here (Linux: fork and
    pidfd)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork") and hasattr(os, "pidfd_open")


# ----- the server ------------------------------------------------------------------

def _child(read: int, order: dict, channel: int) -> None:
    """In the forked worker: its stdin, output, environment and folder, its
    socket to the server's kept seat hosts (``channel``, see
    :mod:`referee.core.warmseats`), then the game (never returns)."""
    try:
        os.dup2(read, 0)
        errors = os.open(order["errors"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.dup2(errors, 1)
        os.dup2(errors, 2)
        os.dup2(channel, 3)
        os.closerange(4, os.sysconf("SC_OPEN_MAX"))  # the server's pipes, other workers' inputs
        warmseats.connect(3)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.environ.clear()
        os.environ.update(order["env"])
        os.chdir(order["cwd"])
        worker.main(["-"])  # leaves with os._exit
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
            sys.stderr.flush()
    os._exit(1)


def _warm(game: str, sandbox: str) -> None:
    """Do, once in the server, what every worker of this game would do first:
    load the game plugin (the entry-point scan alone costs ~0.1 s a worker)
    and check that the sandbox starts (a whole bwrap sandbox run each), and
    what every seat's sandbox is made of (see ``sandbox.warm``), and find the
    control groups (``cgroups.warm``).
    All are kept by the modules (``get_game``, ``sandbox.probe``) and forked
    with them; a problem here is left for the worker to report."""
    from referee.core import cgroups, inotify, sandbox as sandbox_mod, seats
    from referee.core.registry import get_game

    with contextlib.suppress(Exception):
        get_game(game)
    with contextlib.suppress(Exception):
        sandbox_mod.warm(sandbox_mod.resolve(sandbox), seats.host_argv(True))
    with contextlib.suppress(Exception):
        cgroups.warm()
    with contextlib.suppress(Exception):
        inotify.warm()


def serve() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    inputs: dict[int, int] = {}              # ID: write end of the worker's stdin
    running: dict[int, tuple[int, int]] = {}  # pidfd: (ID, pid)
    keeper = warmseats.Keeper()  # seat hosts kept for later games
    channels: dict[int, tuple[int, object]] = {}  # socket fd: (ID, the server's end of the worker's socket)
    warmed: set[tuple[str, str]] = set()  # (game, sandbox)
    pending = b""
    open_input = True

    def report(line: str) -> None:
        with contextlib.suppress(OSError):
            os.write(1, line.encode() + b"\n")

    played: set[int] = set()  # workers whose game has played its last step
    chains: dict[int, int] = {}  # ID: the worker to go once its game has (after ID NEXT)

    def notes(ident: int):
        """What a worker's note (``played``) does: the game chained to it goes."""
        def note(text: str) -> None:
            if text == "played":
                played.add(ident)
                if ident in chains:
                    feed(chains.pop(ident), b"go\n")
        return note

    def feed(ident: int, data: bytes) -> None:
        fd = inputs.get(ident)
        if fd is not None:
            with contextlib.suppress(OSError):  # it died: its exit says so
                os.write(fd, data)

    def start(ident: int, order: dict) -> None:
        spec = json.loads(order["spec"])
        what = (str(spec.get("game")), str(spec.get("sandbox") or "auto"))
        if what not in warmed:
            _warm(*what)
            warmed.add(what)
        read, write = os.pipe()
        ours, theirs = keeper.channel()
        try:
            pid = os.fork()
        except OSError as exc:
            os.close(read)
            os.close(write)
            ours.close()
            theirs.close()
            with contextlib.suppress(OSError), open(order["errors"], "a") as f:
                f.write(f"referee: cannot start a game's worker: {exc}\n")
            report(f"exit {ident} 1")
            return
        if pid == 0:
            _child(read, order, theirs.fileno())
        os.close(read)
        theirs.close()
        channels[ours.fileno()] = (ident, ours)
        inputs[ident] = write
        running[os.pidfd_open(pid)] = (ident, pid)
        feed(ident, order["spec"].encode() + b"\n")

    def command(line: str) -> None:
        verb, _, rest = line.partition(" ")
        ident_text, _, payload = rest.partition(" ")
        try:
            ident = int(ident_text)
        except ValueError:
            return
        if verb == "start":
            start(ident, json.loads(payload))
        elif verb == "go":
            feed(ident, b"go\n")
        elif verb == "after":
            with contextlib.suppress(ValueError):
                following = int(payload)
                if ident in played:
                    feed(following, b"go\n")
                elif ident in {owner for owner, _ in running.values()}:
                    chains[ident] = following
        elif verb == "off":
            with contextlib.suppress(KeyError, OSError):
                os.close(inputs.pop(ident))
        elif verb == "kill":
            for ident2, pid in running.values():
                if ident2 == ident:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)

    while open_input or running:
        ready, _, _ = select.select(([0] if open_input else []) + list(channels) + keeper.fds() + list(running),
                                    [], [])
        # What each ready fd was when select said so: handling one closes
        # fds (a kept host taken or ended) and opens others (a worker
        # started), and a number may be reused at once, so each is acted on
        # only if it is still what it was (a new worker's pidfd taken for an
        # old one's exit would block this server in waitpid for ever).
        talked = [(fd, channels[fd]) for fd in ready if fd in channels]
        ended = [(fd, keeper.watched[fd]) for fd in ready if fd in keeper.watched]
        exited = [(fd, running[fd]) for fd in ready if fd in running]
        # A worker's message (a seat host given back) before its exit, which
        # it precedes: the next game's worker is started only after that exit.
        for fd, entry in talked:
            if channels.get(fd) is entry and not keeper.handle(entry[1], notes(entry[0])):
                channels.pop(fd)[1].close()
        for fd, kept in ended:
            if keeper.watched.get(fd) is kept:
                keeper.drop(fd)  # a kept host that ended
        keeper.reap(workers={pid for _, pid in running.values()})
        if 0 in ready:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                open_input = False
                for write in inputs.values():
                    with contextlib.suppress(OSError):
                        os.close(write)
                inputs.clear()
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                command(line.decode())
        for fd, entry in exited:
            if running.get(fd) != entry:
                continue
            ident, pid = running.pop(fd)
            os.close(fd)
            for channel_fd, (owner, channel) in list(channels.items()):
                if owner == ident:  # what it sent is read before its exit is told
                    while select.select([channel_fd], [], [], 0)[0] and keeper.handle(channel, notes(owner)):
                        pass
                    channels.pop(channel_fd)
                    channel.close()
            _, status = os.waitpid(pid, 0)
            played.discard(ident)
            chains.pop(ident, None)
            with contextlib.suppress(KeyError, OSError):
                os.close(inputs.pop(ident))
            report(f"exit {ident} {os.waitstatus_to_exitcode(status)}")
    keeper.close()
    with contextlib.suppress(ChildProcessError):  # what workers left to us, a subreaper
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


# ----- the client ------------------------------------------------------------------

class ForkServer:
    """The referee's end: starts the server, forks workers through it and
    waits for their exits (several threads may wait at once)."""

    def __init__(self, errors: Path) -> None:
        self.errors = errors
        with open(errors, "wb") as err:
            self.proc = subprocess.Popen([PYTHON, "-P", "-m", "referee.tournament.forkserver"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        self._lock = threading.Lock()
        self._ended = threading.Condition(self._lock)
        self._codes: dict[int, int] = {}
        self._gone = False  # the server ended: no more exits will come
        self._next = 0
        self._reader = threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[bytes]) -> None:
        for line in stream:
            verb, _, rest = line.decode().partition(" ")
            ident, _, code = rest.partition(" ")
            if verb == "exit":
                with self._ended:
                    self._codes[int(ident)] = int(code)
                    self._ended.notify_all()
        with self._ended:
            self._gone = True
            self._ended.notify_all()

    def _send(self, line: str) -> None:
        with self._lock:
            try:
                self.proc.stdin.write(line.encode() + b"\n")
                self.proc.stdin.flush()
            except (OSError, ValueError):
                pass  # the server is gone: the waits say so

    def start(self, spec_line: str, errors: Path) -> int:
        """Fork a worker for the game ``spec_line``, its output to ``errors``."""
        errors.touch()
        with self._lock:
            self._next += 1
            ident = self._next
        order = {"spec": spec_line, "errors": str(errors), "env": dict(os.environ), "cwd": os.getcwd()}
        self._send(f"start {ident} {json.dumps(order)}")
        return ident

    def go(self, ident: int) -> None:
        self._send(f"go {ident}")

    def off(self, ident: int) -> None:
        self._send(f"off {ident}")

    def kill(self, ident: int) -> None:
        self._send(f"kill {ident}")

    def after(self, ident: int, following: int) -> None:
        """Have worker ``following`` go once worker ``ident``'s game has
        played its last step (see the module doc)."""
        self._send(f"after {ident} {following}")

    def wait(self, ident: int, timeout: float | None = None) -> int | None:
        """The worker's exit code; None if the server ended first (or the
        timeout passed)."""
        with self._ended:
            self._ended.wait_for(lambda: ident in self._codes or self._gone, timeout)
            return self._codes.pop(ident, None)

    def why_gone(self) -> str:
        try:
            lines = self.errors.read_text(errors="replace").strip().splitlines()
        except OSError:
            lines = []
        return lines[-1][:200] if lines else f"exit {self.proc.poll()}"

    def close(self) -> None:
        """End the server (its workers' inputs end with it) and wait for it."""
        with self._lock, contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=10)
        with contextlib.suppress(OSError):
            if not self.errors.stat().st_size:
                self.errors.unlink()


if __name__ == "__main__":
    serve()
