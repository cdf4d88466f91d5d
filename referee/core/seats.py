"""The referee's end of a seat host (see :mod:`referee.core.seathost`).

One :class:`SeatHost` per seat per match: started at the seat's first step
(inside the sandbox when there is one), asked to run each step's command, and
closed with the match.  The referee's clock is the one that counts: the step's
wall time is measured here, from the request to the reply, so a player that
stops the referee (SIGSTOP) or its host gains nothing; a host that does not
answer by the hard limit plus a grace period is killed and started afresh for
the next step."""
from __future__ import annotations

import contextlib
import functools
import importlib.util
import marshal
import os
import py_compile
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence

from . import cgroups, direct, sandbox as sandbox_mod, warmseats
from .later import Meanwhile
from .runner import LINUX, Limits, RunResult, _children, rlimit_values, runner_choice, usable_cores
from .interpreter import PYTHON

HOST_SCRIPT = Path(__file__).with_name("seathost.py")
# Imported, not run as a script: its compiled form is then read from
# __pycache__, where a script is compiled anew at every start (~5 ms a host).
# Appended to the path, so nothing beside it stands in for a standard module.
HOST_CODE = f"import sys; sys.path.append({str(HOST_SCRIPT.parent)!r}); import seathost; seathost.main()"
GRACE_S = 2.0  # how long past the hard limit the host may take to report
START_TIMEOUT_S = 30.0


def available() -> bool:
    """Whether seat hosts can run here (Linux with pidfd) and are not
    switched off (``REFEREE_RUNNER=direct`` or ``portable``)."""
    if runner_choice() != "host":
        return False
    return LINUX and hasattr(os, "pidfd_open")


def host_argv(sandboxed: bool, warm: bool = False) -> list[str]:
    """The command that starts a seat host (as pid 1 of its sandbox, or not;
    ``warm``: one a series keeps, see :mod:`.warmseats`, outside a sandbox
    it does not end with the worker that starts it).  -B: see
    :func:`_compile_host`."""
    return [PYTHON, "-S", "-I", "-B", "-c", HOST_CODE, *(["--pid1"] if sandboxed else []),
            *(["--warm"] if warm and not sandboxed else [])]


@functools.cache
def _compile_host() -> None:
    """Write the host's __pycache__ entry if it is missing or stale (an
    editable install run only in the sandbox, where the host cannot write
    it; a checkout whose seathost.py changed since); once per referee.
    Without it every host starts compiling itself (~20 ms of CPU a seat
    host, two per game of a series)."""
    cached = importlib.util.cache_from_source(str(HOST_SCRIPT))
    if sys.dont_write_bytecode or _fresh(cached, HOST_SCRIPT):
        return
    try:
        py_compile.compile(str(HOST_SCRIPT), cfile=cached, doraise=True)
        with open(cached, "rb") as f:  # a write cut short (a file-size limit, a full disk)
            marshal.loads(f.read()[16:])  # would break every later host: check it
    except Exception:
        with contextlib.suppress(OSError):
            os.remove(cached)


def _fresh(cached: str, source: Path) -> bool:
    """Whether ``cached`` is the bytecode of ``source`` as it is now, as the
    import system checks it (PEP 552: magic, then the source's mtime and
    size, or its hash)."""
    try:
        with open(cached, "rb") as f:
            head = f.read(16)
        info = os.stat(source)
        if len(head) < 16 or head[:4] != importlib.util.MAGIC_NUMBER:
            return False
        flags = int.from_bytes(head[4:8], "little")
        if flags & 1:  # hash-based (SOURCE_DATE_EPOCH builds)
            return head[8:16] == importlib.util.source_hash(source.read_bytes())
    except OSError:
        return False
    return (flags == 0 and int.from_bytes(head[8:12], "little") == int(info.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(head[12:16], "little") == info.st_size & 0xFFFFFFFF)


class Leased:
    """A warm seat host taken from the fork server (:mod:`.warmseats`), seen
    as the Popen of a host this process started: it is not our child, so it
    is watched, waited for and killed through its pidfd."""

    def __init__(self, lease: warmseats.Lease) -> None:
        self.lease = lease
        self.pid = lease.pid
        self.stdin = open(lease.stdin, "wb", buffering=0)
        self.stdout = open(lease.stdout, "rb", buffering=0)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self.lease.pidfd], [], [], 0)[0]:
            self.returncode = -signal.SIGKILL  # its parent, the fork server, reaps it
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not select.select([self.lease.pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
            self.returncode = -signal.SIGKILL
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self.lease.pidfd, signal.SIGKILL)

    def close(self) -> None:
        """Idempotent (close_hosts closes what _kill may have closed): a
        pidfd closed twice would close whatever file took its number."""
        for pipe in (self.stdin, self.stdout):
            with contextlib.suppress(OSError):
                pipe.close()
        if self.lease.pidfd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.lease.pidfd)
            self.lease.pidfd = -1


class SeatHost:
    def __init__(self, seat_dir: Path, sandbox: sandbox_mod.Sandbox,
                 hidden: Sequence[Path] = (), environ: Mapping[str, str] | None = None,
                 warm: "WarmSeat | None" = None) -> None:
        self.seat_dir = Path(seat_dir).absolute()  # the host does not share our cwd
        self._absolute: dict[Path | str, str] = {}  # output paths as the host is told them (see _request)
        # A warm seat (a series' seat host kept for its entrant's next game):
        # its key, the host taken for it if any, where its files go at the end.
        self.warm = warm
        self.reset = False  # reset at the game's end, to be kept (see retire_hosts)
        self.sandbox = sandbox
        self.hidden = list(hidden)
        # The host's own environment: its player's (sandbox.player_environment),
        # never the referee's whole one.
        self.environ = dict(environ) if environ is not None else \
            sandbox_mod.player_environment(os.environ, self.seat_dir, sandbox.on)
        self.limits = Limits()  # those it was started with (see expect): the sandbox's and group's sizes
        self.group: cgroups.SeatGroup | None = None  # the seat's control group, where there are some
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.log = warm.log if warm is not None else self.seat_dir.parent / f".host-{self.seat_dir.name}.log"
        self.fixed: dict[str, int] | None = None  # the limits (but CPU) this host took on
        self.player: tuple[int, int] | None = None  # (pidfd, pid) of the step's player, when told
        self.sent_env: dict[str, str] | None = None  # the environment this host was last told
        self.started_s: float | None = None  # a prestarted player's start-up, to report at its first step
        # (the group, its counters as the last step ended): the next step's 'before'
        self.reading: tuple[cgroups.SeatGroup, cgroups.Reading] | None = None
        # The kept-alive player its host lent (see direct.py), and what the
        # host must be told of the steps played here when it plays the next.
        self.borrowed: direct.Borrowed | None = None
        self.sync: dict | None = None
        self.outputs: tuple[str, str] | None = None  # its player's output files (stdout, stderr), once named

    # ----- life cycle
    def start(self, player_argv: Sequence[str]) -> str | None:
        """Start the host and wait until it answers; None, or why it could not
        start (then the next step tries again)."""
        return start_hosts([(self, player_argv)])[0]

    def _log_tail(self) -> str:
        try:
            lines = self.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1][:300] if lines else ""

    def _start(self, player_argv: Sequence[str]) -> None:
        lease = self.warm.lease if self.warm is not None else None
        if lease is not None:  # a warm host from an earlier game: it answers the ping as a new one
            self.warm.lease = None
            self._drop_group()
            self.proc = Leased(lease)  # type: ignore[assignment]
            where = cgroups.hierarchy()
            if lease.groups and where is not None:
                self.group = cgroups.SeatGroup(where, {name: Path(folder) for name, folder in lease.groups.items()})
            _HOSTS.add(lease.pid)
            self.starts += 1
            self.sent_env = None
            return
        _compile_host()
        host = host_argv(self.sandbox.on, warm=self.warm is not None)
        if self.sandbox.on:
            argv = sandbox_mod.wrap(self.sandbox, host, self.seat_dir, self.hidden,
                                    player_argv, sandbox_mod.tmp_bytes(self.limits.disk_mb),
                                    warm=self.warm is not None)
        else:
            argv = host
        self._drop_group()
        self.group = cgroups.SeatGroup.create(self.limits.memory_mb, self.limits.processes,
                                              self.sandbox.on,
                                              owner=warmseats.keeper_pid() if self.warm is not None else None)
        if self.group is None and not self.sandbox.on:
            _adopt_orphans()
        joining = self.group.joining(argv) if self.group is not None else None
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen(joining or argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, close_fds=True, start_new_session=True,
                                         bufsize=0, env=self.environ,
                                         preexec_fn=self.group.join if self.group and not joining else None)
        _HOSTS.add(self.proc.pid)
        self.starts += 1
        self.sent_env = None  # a new host is told the whole environment

    def close(self) -> None:
        """End the host (and, with it, anything of the seat still running)."""
        close_hosts([self])

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        if isinstance(proc, Leased):  # not our child: its pid may be another's once it ended
            proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            proc.close()
            return
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()

    def expect(self, limits: Limits) -> None:
        """Take the limits a host is started with (its sandbox's /tmp and
        /dev/shm, its control group's memory and process count)."""
        self.limits = limits

    def _drop_group(self) -> None:
        """Kill whatever is left of the seat and remove its group; without
        one (and without a sandbox, whose kernel namespace does it), sweep
        the processes of the seat that outlived their host."""
        if self.group is not None:
            self.group.remove()
            self.group = None
        elif not self.sandbox.on:
            sweep_orphans()

    # ----- one step
    def run(self, argv: Sequence[str], env: Mapping[str, str], limits: Limits,
            stdout_path: Path, stderr_path: Path, persistent_step: int | None = None,
            meanwhile: Meanwhile | None = None) -> RunResult:
        """Run one step: ``argv`` spawned for it, or, with ``persistent_step``,
        the kept-alive player (started from ``argv`` if needed) told to play
        that step.  ``meanwhile(ready)`` is called once the request is sent:
        the caller's own work overlaps the player's run, as long as
        ``ready()`` says that no answer came (the answer's arrival is only
        seen once it returns: see later.Later.until)."""
        fixed = self._fixed(limits)
        if self.proc is not None and self.fixed is not None and fixed != self.fixed:
            self.close()  # the host lowered its own limits to these: a new one takes others
        if self.proc is None or self.proc.poll() is not None:
            self._unborrow()
            self.sync = None
            if self.proc is not None:
                self._kill(self.proc)
                self.proc = None
            self.expect(limits)
            problem = self.start(argv)
            if problem:
                return RunResult(start_error=problem)
        self.fixed = fixed
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        started_s, self.started_s = self.started_s, None
        group = self.group
        # The group's counters as the seat's last step ended, if this same
        # group: nothing of the seat runs between its steps (a spawned
        # player's processes are swept, a kept-alive one is frozen), so a
        # second reading would find the same counters (and cost one on the
        # step's critical path).  Whatever did run is charged to this step.
        before = self.reading[1] if self.reading is not None and self.reading[0] is group else \
            group.read() if group is not None else None
        started = time.monotonic()
        reply: dict | None = None
        lent = False  # played here (direct.py): this process's own clock timed it
        try:
            more: dict | None = {}
            if persistent_step is not None and self.borrowed is not None:
                reply, more = self._direct(persistent_step, limits, stdout_path, stderr_path, started, meanwhile)
                lent = reply is not None
                if more is not None and more.get("resume"):
                    meanwhile = None  # (called: the player is woken)
            if reply is None and more is not None:  # (None: the host is gone)
                request = self._request(argv, env, limits, stdout_path, stderr_path)
                if persistent_step is not None:
                    request.update(persistent=True, step=persistent_step, lend=self._lending(), **more)
                    if self.sync is not None and "sync" not in more:
                        request["sync"] = self.sync
                    self.sync = None
                reply = self._ask(message(request), started + limits.hard_time + GRACE_S,
                                  meanwhile)
        except BaseException:  # Ctrl-C or a kill of the referee: the step dies with it
            self._abandon()
            raise
        wall = time.monotonic() - started
        if persistent_step is not None and reply is not None and reply.get("exit") == 0 \
                and (lent or self.sandbox.on) and isinstance(reply.get("wall"), float) and reply["wall"] > 0:
            # It answered: from the request to its ``done`` and its way back
            # to its stdin (at most SETTLE_S; docs/protocol.md), as the
            # worker that played it here (direct.py) or its host saw it, not
            # the stop and the sweep that follow (~0.1 ms a step).  A host
            # is trusted with its clock only in its sandbox, as pid 1 of it,
            # which no player can stop (without one, a process that escaped
            # its step's sweep could stop the host before it read a request).
            wall = min(wall, reply["wall"])
        after = group.read() if group is not None else None
        self.reading = (group, after) if after is not None else None
        if reply is None or "host_error" in reply:
            self._abandon()
            note = "the seat host stopped answering" if reply is None else f"seat host error: {reply['host_error']}"
            result = RunResult(signal=signal.SIGKILL, wall_s=wall, notes=[note])
            result.timed_out = wall > limits.hard_time
            _whole_seat(result, before, after, limits)
            return result
        self._forget_player()
        if "lend" in reply:
            self._borrow(reply["lend"])
        result = RunResult(exit_code=reply["exit"], signal=reply["signal"], wall_s=wall,
                           cpu_s=reply["cpu"], peak_kb=reply["peak_kb"],
                           start_error=reply["start_error"], orphans_killed=reply["killed"],
                           stdout_tail=reply["stdout_tail"], stderr_tail=reply["stderr_tail"])
        if reply.get("restarted"):
            result.notes.append("started")
        # Over a whole-seat limit its host measured (no control group): all killed.
        result.memory_exceeded = reply.get("over") == "memory"
        result.processes_exceeded = reply.get("over") == "processes"
        result.started_s = started_s
        # The referee's clock decides: past the hard limit is a TIMEOUT, whatever
        # the player did to the clocks meanwhile.
        result.timed_out = bool(reply["timed_out"]) or wall > limits.hard_time
        _whole_seat(result, before, after, limits)
        return result

    def prestart_request(self, argv: Sequence[str], env: Mapping[str, str], limits: Limits,
                         stdout_path: Path, stderr_path: Path) -> bytes | None:
        """The request that starts the persistent player ``argv`` before the
        match (see :func:`prestart`), or None if this host is not up."""
        if self.proc is None:
            return None
        self.fixed = self._fixed(limits)
        request = self._request(argv, env, limits, stdout_path, stderr_path)
        request["prestart"] = True
        request["lend"] = self._lending()
        self.outputs = (request["stdout"], request["stderr"])
        return message(request)

    # ----- a kept-alive player's ordinary steps, played here (see direct.py)
    def _lending(self) -> bool:
        """Whether to ask the host to lend its player: a control group
        counts the seat's processes (see direct.py)."""
        return self.group is not None and direct.enabled()

    def _borrow(self, lend: object, starts: object = None) -> None:
        """Play the lent player's next steps here; ``starts``: the sizes of
        its output files where its next step's output begins (its start-up's
        output is its first step's), if not where they end now."""
        self._unborrow()
        if self.group is None or self.proc is None or not isinstance(lend, dict):
            return
        self.borrowed = direct.borrow(lend, self.proc.pid, self.sandbox.on, self.group.pids(),
                                      self.group.count(), self.outputs, starts)

    def _unborrow(self) -> None:
        """Stop playing the player here; the host is told at its next step."""
        if self.borrowed is not None:
            self.borrowed.close()
            self.borrowed = None

    def _direct(self, step: int, limits: Limits, stdout_path: Path, stderr_path: Path, started: float,
                meanwhile: Meanwhile | None) -> tuple[dict | None, dict | None]:
        """A step of the lent player, played here: the host's reply as it
        would have been, or what hands the player back (see
        direct.Borrowed.step); (None, None) if the host is gone."""
        borrowed = self.borrowed
        assert borrowed is not None and self.group is not None
        stdout, stderr = self.outputs = self._absolute_path(stdout_path), self._absolute_path(stderr_path)

        def sweep() -> int | None:
            answer = self._ask(message({"sweep_borrowed": 1}), time.monotonic() + limits.hard_time + GRACE_S)
            return answer.get("killed") if isinstance(answer, dict) and "killed" in answer else None

        reply, more = borrowed.step(step, limits.hard_time, rlimit_values(limits), stdout, stderr,
                                    limits.output_kb, started, meanwhile, self.group.count, sweep)
        if reply is None:  # handed back (its descriptors closed), or the host is gone
            self._unborrow()
            return None, more
        if not reply.pop("keep"):
            self.borrowed = None
            self.sync = borrowed.sync(stdout, stderr)
        return reply, {}

    @staticmethod
    def _fixed(limits: Limits) -> dict[str, int]:
        """The limits a host takes on itself for its players (all but CPU),
        and those its sandbox is made with."""
        fixed = {name: value for name, value in rlimit_values(limits).items() if name != "cpu"}
        fixed["disk"] = sandbox_mod.tmp_bytes(limits.disk_mb)
        fixed["memory"], fixed["processes"] = limits.memory_mb or 0, limits.processes or 0
        return fixed

    def _request(self, argv: Sequence[str], env: Mapping[str, str], limits: Limits,
                 stdout_path: Path, stderr_path: Path) -> dict:
        request = {"argv": list(argv), **self._env_request(env), "cwd": str(self.seat_dir),
                   "hard": limits.hard_time, "rlimits": rlimit_values(limits),
                   "stdout": self._absolute_path(stdout_path),
                   "stderr": self._absolute_path(stderr_path),
                   "output_kb": limits.output_kb}
        if self.group is not None:
            request["grouped"] = True  # no {"started": pid}: a dead host's group is killed whole
        elif limits.memory_mb or limits.processes:
            # No control group holds the seat: its host measures it (seathost.over_seat_limits).
            request["seat"] = {"memory_kb": int((limits.memory_mb or 0) * 1024),
                               "processes": limits.processes or 0, "every": cgroups.SAMPLE_S}
        return request

    def _absolute_path(self, path: Path | str) -> str:
        """``path`` made absolute, as :attr:`seat_dir` is (the referee's cwd
        does not change): worked out once per path, not at every step (two
        ``getcwd`` and pathlib's parsing were ~10 us of each step's path)."""
        found = self._absolute.get(path)
        if found is None:
            found = self._absolute[path] = str(Path(path).absolute())
        return found

    def _env_request(self, env: Mapping[str, str]) -> dict:
        """The environment as this host is told it: whole the first time, then
        only what changed (the step number, mostly)."""
        last, self.sent_env = self.sent_env, dict(env)
        if last is None:
            return {"env": self.sent_env}
        changes: dict[str, str | None] = {name: value for name, value in env.items() if last.get(name) != value}
        changes.update((name, None) for name in last.keys() - env.keys())
        return {"env_changes": changes} if changes else {}

    def _ask(self, request: bytes, deadline: float,
             meanwhile: Meanwhile | None = None) -> dict | None:
        """Send one request; the reply, or None if the host died or did not
        answer by the deadline.  A line ``{"started": pid}`` before the reply
        names the step's player (a host without a sandbox or a control group
        sends it)."""
        assert self.proc is not None
        try:
            self.proc.stdin.write(request)
        except OSError:
            return None
        out = self.proc.stdout.fileno()
        if meanwhile is not None:  # (done until the host answers: see later.Later.until)
            meanwhile(lambda: bool(select.select([out], [], [], 0)[0]))
        buffer = b""
        while True:
            while b"\n" not in buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                ready, _, _ = select.select([out], [], [], remaining)
                if not ready:
                    continue
                chunk = os.read(out, 1 << 16)
                if not chunk:
                    return None
                buffer += chunk
            line, buffer = buffer.split(b"\n", 1)
            reply = _reply(line)
            if reply is None or "started" not in reply:
                return reply
            self._watch_player(reply["started"])

    def _abandon(self) -> None:
        """Kill the host and the step's player, and every other process of
        the seat (a new host starts next step)."""
        assert self.proc is not None
        self._unborrow()
        self.sync = None
        self._kill(self.proc)
        _HOSTS.discard(self.proc.pid)
        self.proc = None
        self._kill_player()
        self._drop_group()

    # ----- the step's player, should its host die first
    def _watch_player(self, pid: object) -> None:
        """Hold a pidfd of the player the host started: forked by posix_spawn,
        it has no death signal tied to its host (seathost._spawned)."""
        self._forget_player()
        if isinstance(pid, int) and pid > 1:
            with contextlib.suppress(OSError):
                self.player = (os.pidfd_open(pid), pid)

    def _kill_player(self) -> None:
        """Kill the step's player and its process group, if it still runs (the
        pidfd says so: its pid cannot have gone to another process meanwhile)."""
        if self.player is not None:
            pidfd, pid = self.player
            exited, _, _ = select.select([pidfd], [], [], 0)  # readable once it ended
            if not exited:
                with contextlib.suppress(OSError):
                    os.killpg(pid, signal.SIGKILL)
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        self._forget_player()

    def _forget_player(self) -> None:
        if self.player is not None:
            with contextlib.suppress(OSError):
                os.close(self.player[0])
            self.player = None


# ----- several hosts at once, before a match's first step
def start_hosts(starts: Sequence[tuple[SeatHost, Sequence[str]]]) -> list[str | None]:
    """Start seat hosts all at once and wait until each answers: one after
    the other, each host's start-up (~10-15 ms) was paid in turn.  For
    each, None or why it could not start (its next step tries again)."""
    for host, player_argv in starts:
        host._start(player_argv)
    # (Its referee, this process: a warm host, not our child, wakes us should a player stop us.)
    ping = message({"ping": 1, "referee": os.getpid()})
    replies = _exchange([(host, ping, START_TIMEOUT_S) for host, _ in starts], len(starts))
    problems: list[str | None] = []
    for (host, _), (reply, _) in zip(starts, replies):
        if reply is not None and reply.get("pong"):
            problems.append(None)
            continue
        host._abandon()
        what = "sandbox" if host.sandbox.on else "seat host"
        problems.append(f"the seat's {what} did not start: {host._log_tail() or 'no message'}")
    return problems


def close_hosts(hosts: Sequence[SeatHost]) -> None:
    """End hosts (and, with them, anything of their seats still running):
    all are told first, then waited for, so that their exits overlap."""
    procs = [host.proc for host in hosts if host.proc is not None]
    for host in hosts:
        host.proc = None
        host._unborrow()
        host.sync = None
    _HOSTS.difference_update(proc.pid for proc in procs)
    for proc in procs:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    for proc in procs:
        # Its stdout ends when it exits: wait for that, not in Popen.wait's
        # sleep-and-poll loop (tens of ms per seat per match).
        with contextlib.suppress(OSError, ValueError):
            while select.select([proc.stdout], [], [], 5)[0] and proc.stdout.read(1 << 16):
                pass
        try:
            proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            SeatHost._kill(proc)
        with contextlib.suppress(OSError):
            proc.stdout.close()
        if isinstance(proc, Leased):
            proc.close()
    for host in hosts:
        host._drop_group()


# ----- warm seats: a series' seat hosts kept for their entrants' next games
RESET_TIMEOUT_S = START_TIMEOUT_S  # a host that does not answer by then is ended (a busy machine is no reason)


class WarmSeat:
    """What makes a seat warm (see :mod:`.warmseats`): the key of its host,
    the host taken for it (if any, until started), its slot's seat folder
    (bound as the seat folder in the sandbox; None without a sandbox, where
    the host works in each game's own seat folder) and the game's own seat
    folder its files go to at the end, and the slot's state as the game
    found it."""

    def __init__(self, key: str, lease: "warmseats.Lease | None", slot: Path | None, home: Path,
                 log: Path) -> None:
        self.key, self.lease, self.slot, self.home = key, lease, slot, home
        self.state = warmseats.slot_state(slot) if slot is not None else None
        self.log = log  # its host's, over all its games: each game gets its own part
        self.log_start = self.log.stat().st_size if self.log.exists() else 0


def warm_key(sandbox: sandbox_mod.Sandbox, player_argv: Sequence[str], hidden: Sequence[Path],
             environ: Mapping[str, str], limits: Limits) -> str:
    """The key of a warm seat's host: everything it is made of but its slot
    (the sandbox's command line, with a stand-in for the slot, or the host's
    own without a sandbox; the environment but HOME; the limits it takes on
    and its group's)."""
    stand_in = Path("/nonexistent/referee-slot")
    argv = sandbox_mod.wrap(sandbox, host_argv(True), stand_in, hidden, player_argv,
                            sandbox_mod.tmp_bytes(limits.disk_mb), warm=True) if sandbox.on else \
        host_argv(False, warm=True)
    env = {name: value for name, value in environ.items() if name != "HOME"}
    return warmseats.key_of([argv, env, SeatHost._fixed(limits)])


def retire_hosts(hosts: Sequence[SeatHost]) -> None:
    """At a game's end, reset warm hosts for their entrants' next games
    (``seathost.reset``: every process of the seat killed, its private
    folders emptied, nothing left); one that is not reset is ended now.
    Those reset stay up until their slots are landed (:func:`keep_host`)."""
    for host in hosts:
        host._unborrow()
        host.sync = None
    asks = [(host, message({"reset": 1}), RESET_TIMEOUT_S) for host in hosts
            if host.warm is not None and host.proc is not None and host.proc.poll() is None]
    replies = _exchange(asks, len(asks))
    for (host, _, _), (reply, _) in zip(asks, replies):
        if reply is not None and reply.get("reset") is True:
            host.reset = True
        else:
            host._abandon()


def keep_host(host: SeatHost) -> None:
    """Land a warm seat's slot (its files into the game's seat folder) and
    hand its host, if reset and the slot is as it was, to the fork server
    for the entrant's next game; else end the host and remove the slot."""
    warm = host.warm
    if warm is None:
        return
    landed = warmseats.land(warm.slot, warm.home) if warm.slot is not None else True
    with contextlib.suppress(OSError), open(warm.log, "rb") as log:  # what its host said in this game
        log.seek(warm.log_start)
        (warm.home.parent / f".host-{warm.home.name}.log").write_bytes(log.read())
    kept = False
    if landed and host.reset and host.proc is not None and host.proc.poll() is None and _alone(host) \
            and (warm.slot is None or warm.state is not None and warmseats.slot_state(warm.slot) == warm.state):
        kept = warmseats.give(warm.key, _lease(host))
    host.reset = False
    if kept:
        _HOSTS.discard(host.proc.pid)
        host.proc = None
        if host.group is not None:
            host.group.release()
        host.group = None  # the fork server removes it once the host ends
        host.warm = None
        return
    host.close()
    if warm.slot is not None:
        warmseats.remove_slot(warm.slot)
    host.warm = None


def _alone(host: SeatHost) -> bool:
    """Whether the seat's control group holds nothing but its host (and
    bwrap): what a reset host must be (a seat without a group is kept only
    in a sandbox, whose host saw its whole pid namespace)."""
    if host.group is None:
        return host.sandbox.on
    return len(host.group.pids()) <= cgroups.HOST_PROCESSES[host.sandbox.on]


def _lease(host: SeatHost) -> warmseats.Lease:
    """The host as handed over: its pipes and a pidfd (duplicated: this
    process's copies are closed)."""
    proc = host.proc
    assert proc is not None and host.warm is not None
    if isinstance(proc, Leased):
        lease = proc.lease
        fds = (os.dup(proc.stdin.fileno()), os.dup(proc.stdout.fileno()), os.dup(lease.pidfd))
        proc.close()
    else:
        fds = (os.dup(proc.stdin.fileno()), os.dup(proc.stdout.fileno()), os.pidfd_open(proc.pid))
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()
        # Never waited for here (subprocess would reap it, should it end
        # while this worker lives): the fork server, its parent once this
        # worker is gone, reaps it.
        proc.returncode = 0
    groups = {name: str(folder) for name, folder in host.group.folders.items()} if host.group else None
    return warmseats.Lease(proc.pid, *fds, slot=str(host.warm.slot or ""), groups=groups,
                           log=str(host.warm.log))


def prestart(asks: Sequence[tuple[SeatHost, bytes, float]]) -> None:
    """Start persistent players before the match's first step, as many at a
    time as there are cores, each waited for until it is idle (blocked with
    no CPU used: its start-up done) or for at most its seconds.  Its start-up
    is not charged, wall time or CPU (as between steps).  A host that fails
    here is started afresh at that step."""
    replies = _exchange([(host, request, wait + GRACE_S) for host, request, wait in asks], usable_cores())
    for (host, _, _), (reply, wall) in zip(asks, replies):
        if reply is None or "host_error" in reply:
            host._abandon()
        elif not reply.get("start_error"):
            host.started_s = wall  # a start error is reported (and retried) at the first step
            if "lend" in reply:
                host._borrow(reply["lend"], reply.get("starts"))


def _exchange(asks: Sequence[tuple[SeatHost, bytes, float]], at_once: int
              ) -> list[tuple[dict | None, float]]:
    """Send each host its request (at most ``at_once`` unanswered) and
    collect the one-line replies: (the reply, or None if the host died or
    did not answer within its seconds; the seconds from request to reply)."""
    results: list[tuple[dict | None, float]] = [(None, 0.0)] * len(asks)
    todo = list(range(len(asks)))[::-1]
    waiting: dict[int, tuple[int, float, bytearray]] = {}  # stdout fd: (ask, sent at, what came)
    while todo or waiting:
        while todo and len(waiting) < at_once:
            index = todo.pop()
            host, request, _ = asks[index]
            assert host.proc is not None and host.proc.stdin and host.proc.stdout
            try:
                host.proc.stdin.write(request)
            except OSError:
                continue
            waiting[host.proc.stdout.fileno()] = (index, time.monotonic(), bytearray())
        now = time.monotonic()
        for fd, (index, sent, _) in list(waiting.items()):
            if now - sent >= asks[index][2]:
                results[index] = (None, now - sent)
                del waiting[fd]
        if not waiting:
            continue
        timeout = min(sent + asks[index][2] for index, sent, _ in waiting.values()) - now
        ready, _, _ = select.select(list(waiting), [], [], max(0.0, timeout))
        for fd in ready:
            index, sent, came = waiting[fd]
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            came += chunk
            if chunk and b"\n" not in came:
                continue
            del waiting[fd]
            reply = _reply(came.split(b"\n", 1)[0]) if chunk else None
            results[index] = (reply, time.monotonic() - sent)
    return results


def _whole_seat(result: RunResult, before: "cgroups.Reading | None",
                after: "cgroups.Reading | None", limits: Limits) -> None:
    """What the seat's group counted over the step: the CPU of all its
    processes, a kill for memory, forks refused."""
    if before is None or after is None:
        return
    result.cpu_s = max(result.cpu_s, after.cpu_s - before.cpu_s)
    result.memory_exceeded = after.oom_kills > before.oom_kills
    refused = after.forks_refused - before.forks_refused
    if refused > 0:
        result.notes.append(f"{refused} process(es) refused: the seat's limit is {limits.processes}")


# ----- without a sandbox or control group: the referee sweeps what its hosts left
_HOSTS: set[int] = set()  # the pids of live seat hosts (children of ours that are not strays)
_ADOPTING: list[set[int]] = []  # once a subreaper: our children from before, not strays either


def _adopt_orphans() -> None:
    """Make the referee a child subreaper (once): a seat host that dies (a
    player may kill it) leaves its processes to us, not to init, and
    :func:`sweep_orphans` ends them."""
    if _ADOPTING:
        return
    _ADOPTING.append(_children())
    with contextlib.suppress(OSError, AttributeError, ImportError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def sweep_orphans() -> int:
    """Kill every child of the referee that is neither a live seat host nor
    older than the hosts (re-parented processes of a seat, and all they
    start), until none is left; how many."""
    if not _ADOPTING:
        return 0
    killed = 0
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        strays = _children() - _HOSTS - _ADOPTING[0]
        if not strays:
            break
        for pid in strays:
            for kill in (os.killpg, os.kill):
                with contextlib.suppress(OSError):
                    kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
            killed += 1
    return killed


def message(request: dict) -> bytes:
    """A request line for a host (``seathost.decode`` reads it; see
    ``seathost.encode`` for why marshal, as hex)."""
    return marshal.dumps(request).hex().encode() + b"\n"


def _reply(line: bytes) -> dict | None:
    """A host's message line, or None if it is not one (a dict).  Marshal is
    trusted here as the host is: its stdout is closed to its player (see
    ``seathost.main``, not dumpable), who prints into files, not into it."""
    try:
        reply = marshal.loads(bytes.fromhex(line.decode("ascii")))
    except (ValueError, EOFError, TypeError):
        return None
    return reply if isinstance(reply, dict) else None
