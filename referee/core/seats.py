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
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence

from . import sandbox as sandbox_mod
from .runner import LINUX, Limits, RunResult, rlimit_values

HOST_SCRIPT = Path(__file__).with_name("seathost.py")
GRACE_S = 2.0  # how long past the hard limit the host may take to report
START_TIMEOUT_S = 30.0


def available() -> bool:
    """Whether seat hosts can run here (Linux with pidfd) and are not
    switched off (``REFEREE_RUNNER=direct`` or ``portable``)."""
    if os.environ.get("REFEREE_RUNNER", "host") not in ("", "host"):
        return False
    return LINUX and hasattr(os, "pidfd_open")


class SeatHost:
    def __init__(self, seat_dir: Path, sandbox: sandbox_mod.Sandbox,
                 hidden: Sequence[Path] = ()) -> None:
        self.seat_dir = Path(seat_dir).absolute()  # the host does not share our cwd
        self.sandbox = sandbox
        self.hidden = list(hidden)
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.log = self.seat_dir.parent / f".host-{self.seat_dir.name}.log"
        self.fixed: dict[str, int] | None = None  # the limits (but CPU) this host took on
        self.player: tuple[int, int] | None = None  # (pidfd, pid) of the step's player, when told
        self.sent_env: dict[str, str] | None = None  # the environment this host was last told

    # ----- life cycle
    def start(self, player_argv: Sequence[str]) -> str | None:
        """Start the host and wait until it answers; None, or why it could not
        start (then the next step tries again)."""
        self._start(player_argv)
        assert self.proc is not None
        reply = self._ask(b'{"ping":1}\n', time.monotonic() + START_TIMEOUT_S)
        if reply is not None and reply.get("pong"):
            return None
        self._kill(self.proc)
        self.proc = None
        what = "sandbox" if self.sandbox.on else "seat host"
        return f"the seat's {what} did not start: {self._log_tail() or 'no message'}"

    def _log_tail(self) -> str:
        try:
            lines = self.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1][:300] if lines else ""

    def _start(self, player_argv: Sequence[str]) -> None:
        host = [sys.executable, "-S", "-I", str(HOST_SCRIPT)]
        if self.sandbox.on:
            argv = sandbox_mod.wrap(self.sandbox, [*host, "--pid1"], self.seat_dir, self.hidden,
                                    player_argv)
        else:
            argv = host
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, close_fds=True, start_new_session=True,
                                         bufsize=0)
        self.starts += 1
        self.sent_env = None  # a new host is told the whole environment

    def close(self) -> None:
        """End the host (and, with it, anything of the seat still running)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            proc.stdin.close()
        # Its stdout ends when it exits: wait for that, not in Popen.wait's
        # sleep-and-poll loop (tens of ms per seat per match).
        with contextlib.suppress(OSError, ValueError):
            while select.select([proc.stdout], [], [], 5)[0] and proc.stdout.read(1 << 16):
                pass
        try:
            proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            self._kill(proc)
        with contextlib.suppress(OSError):
            proc.stdout.close()

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()

    # ----- one step
    def run(self, argv: Sequence[str], env: Mapping[str, str], limits: Limits,
            stdout_path: Path, stderr_path: Path, persistent_step: int | None = None,
            meanwhile: Callable[[], None] | None = None) -> RunResult:
        """Run one step: ``argv`` spawned for it, or, with ``persistent_step``,
        the kept-alive player (started from ``argv`` if needed) told to play
        that step.  ``meanwhile`` is called once the request is sent: the
        caller's own work overlaps the player's run (it must be short: the
        reply's arrival is only seen once it returns)."""
        rlimits = rlimit_values(limits)
        fixed = {name: value for name, value in rlimits.items() if name != "cpu"}
        if self.proc is not None and self.fixed is not None and fixed != self.fixed:
            self.close()  # the host lowered its own limits to these: a new one takes others
        if self.proc is None or self.proc.poll() is not None:
            if self.proc is not None:
                self._kill(self.proc)
                self.proc = None
            problem = self.start(argv)
            if problem:
                return RunResult(start_error=problem)
        self.fixed = fixed
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        request = {"argv": list(argv), **self._env_request(env), "cwd": str(self.seat_dir),
                   "hard": limits.hard_time, "rlimits": rlimits,
                   "stdout": str(Path(stdout_path).absolute()),
                   "stderr": str(Path(stderr_path).absolute()),
                   "output_kb": limits.output_kb}
        if persistent_step is not None:
            request.update(persistent=True, step=persistent_step)
        started = time.monotonic()
        try:
            reply = self._ask(json.dumps(request).encode() + b"\n", started + limits.hard_time + GRACE_S,
                              meanwhile)
        except BaseException:  # Ctrl-C or a kill of the referee: the step dies with it
            self._abandon()
            raise
        wall = time.monotonic() - started
        if reply is None or "host_error" in reply:
            self._abandon()
            note = "the seat host stopped answering" if reply is None else f"seat host error: {reply['host_error']}"
            result = RunResult(signal=signal.SIGKILL, wall_s=wall, notes=[note])
            result.timed_out = wall > limits.hard_time
            return result
        self._forget_player()
        result = RunResult(exit_code=reply["exit"], signal=reply["signal"], wall_s=wall,
                           cpu_s=reply["cpu"], peak_kb=reply["peak_kb"],
                           start_error=reply["start_error"], orphans_killed=reply["killed"],
                           stdout_tail=reply["stdout_tail"], stderr_tail=reply["stderr_tail"])
        if reply.get("restarted"):
            result.notes.append("started")
        # The referee's clock decides: past the hard limit is a TIMEOUT, whatever
        # the player did to the clocks meanwhile.
        result.timed_out = bool(reply["timed_out"]) or wall > limits.hard_time
        return result

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
             meanwhile: Callable[[], None] | None = None) -> dict | None:
        """Send one request; the reply, or None if the host died or did not
        answer by the deadline.  A line ``{"started": pid}`` before the reply
        names the step's player (a host without a sandbox sends it)."""
        assert self.proc is not None
        try:
            self.proc.stdin.write(request)
        except OSError:
            return None
        if meanwhile is not None:
            meanwhile()
        out = self.proc.stdout.fileno()
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
            try:
                reply = json.loads(line)
            except ValueError:
                return None
            if not isinstance(reply, dict):
                return None
            if "started" not in reply:
                return reply
            self._watch_player(reply["started"])

    def _abandon(self) -> None:
        """Kill the host and the step's player (a new host starts next step)."""
        assert self.proc is not None
        self._kill(self.proc)
        self.proc = None
        self._kill_player()

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
