"""A kept-alive player's ordinary steps, driven by the referee's worker itself.

Through its seat host a persistent step is a request to the host, the host's
own Python around the player and a reply: two more wake-ups and ~0.5 ms of
CPU a step, where the step's own work is ~0.3 ms (docs/series.md, "A
reference").  So once a step leaves the player frozen while it waits for its
next request, the host may *lend* it (``seathost.lend``): it names the
player and its ends of the player's pipes, which the worker opens through
``/proc`` (a pipe opened there is the same pipe), and does nothing until the
worker's next request.  The worker then plays the ordinary step itself, with
the host's own code (:class:`seathost.Persistent`, :class:`seathost.Outputs`):
it writes ``step <k>``, wakes the player, waits for ``done``, freezes it
again once it reads its stdin, reads its CPU and caps its output.

Whatever is not ordinary goes back to the host, which stays the one place
that starts, kills and sweeps: a player that died, went past the deadline or
its CPU budget, or closed its output is handed back in the middle of its
step (the host finishes it as any other); one that left its step half-way
(not reading its stdin when frozen, or printing past its ``done``) is handed
back for its next step; and a step that leaves more processes in the seat
than it found (the seat's control group counts them, zombies too) is swept
by the host before its result counts.  So a seat is lent only where a
control group holds it, and only a player of one process (a wrapper's
child, a player that forks, is the host's).

The player stays the host's child, so its pid cannot go to another process
while it is lent (a player that dies is a zombie until the host reaps it).
``REFEREE_DIRECT_STEPS=off`` turns this off (every step through the host)."""
from __future__ import annotations

import contextlib
import os
import select
import stat
import time
from typing import Callable

from . import seathost
from .later import Meanwhile

ENV = "REFEREE_DIRECT_STEPS"


def enabled() -> bool:
    """Whether seats may lend their players here (not ``REFEREE_DIRECT_STEPS=off``)."""
    return os.environ.get(ENV, "") != "off" and hasattr(os, "pidfd_open")


class Borrowed:
    """A player its host lent, with the worker's own ends of its pipes, a
    pidfd, and the seat's process count when it was lent."""

    def __init__(self, player: seathost.Persistent, pidfd: int, baseline: int) -> None:
        self.player = player
        self.pidfd = pidfd
        self.baseline = baseline
        self.outputs = seathost.Outputs()
        self.answered = False  # it played a step here: its host must not take it for a fresh start
        self.poller = select.poll()
        self.poller.register(player.from_player, select.POLLIN)
        self.poller.register(pidfd, select.POLLIN)

    def close(self) -> None:
        """Let go of the player (again: a no-op)."""
        for fd in (self.player.to_player, self.player.from_player, self.pidfd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.player.to_player = self.player.from_player = self.pidfd = -1
        self.outputs.close()

    def sync(self, stdout: str, stderr: str, starts: tuple[int, int] | None = None) -> dict:
        """What the host must know to take the player back (see
        ``seathost.Persistent.take_back``), the borrowed fds closed:
        ``starts``, the output files' sizes where the step being handed
        back began (by default: where the last one here ended)."""
        if starts is None:
            _, _, out_start, err_start = self.outputs.open({"stdout": stdout, "stderr": stderr})
            starts = (out_start, err_start)
        player = self.player
        back = {"cpu_mark": player.cpu_mark, "settled": player.settled, "pending": player.pending,
                "midline": player.midline, "starts": starts, "answered": self.answered}
        self.close()
        return back

    def _dead(self) -> bool:
        return any(fd == self.pidfd for fd, _ in self.poller.poll(0))

    def step(self, k: int, hard: float, rlimits: dict, stdout: str, stderr: str, output_kb: int,
             started: float, meanwhile: Meanwhile | None,
             count: Callable[[], int | None], sweep: Callable[[], int | None]) -> tuple[dict | None, dict | None]:
        """Play step ``k``: (the host's reply as it would have sent it, None)
        when the step ended ordinarily (``reply["keep"]``: whether the next
        step may be played here too); else (None, a request's additions that
        hand the player back: the host then plays or finishes the step).
        ``sweep`` has the host sweep the seat (the processes killed; None if
        the host did not answer)."""
        player = self.player
        if self._dead():  # a death between steps is the host's to report
            return None, {"sync": self.sync(stdout, stderr)}
        out, err, out_start, err_start = self.outputs.open({"stdout": stdout, "stderr": stderr})
        budget = player.budget({"rlimits": rlimits})
        deadline = started + hard
        # What it printed after its last ``done`` and before its freeze is
        # output, not this step's answer (a second ``done`` that came once
        # the last step had read the first), as its host drains it too.
        player.drain(out)
        try:
            os.write(player.to_player, b"step %d\n" % k)
        except OSError:  # its stdin closed or full: the host's
            return None, {"sync": self.sync(stdout, stderr, starts=(out_start, err_start))}
        player.thaw(deadline)
        answered = False
        if meanwhile is not None:  # the referee's own work, until the answer comes (later.Later.until)
            def ready() -> bool:
                nonlocal answered
                events = self.poller.poll(0)
                if any(fd == self.pidfd or not got & select.POLLIN for fd, got in events):
                    return True  # it died, or closed its output: seen below
                # What it printed goes to its file; a line of its own (debug
                # output) is not its answer, ``done`` is.
                answered = bool(events) and player.drain(out)
                return answered

            meanwhile(ready)

        def back() -> tuple[None, dict]:
            return None, {"sync": self.sync(stdout, stderr, starts=(out_start, err_start)),
                          "resume": True, "elapsed": time.monotonic() - started}

        while not (answered or player.drain(out)):
            now = time.monotonic()
            if now >= deadline or budget and seathost._over_budget(player, budget, started):
                return back()
            wake = min(deadline, now + seathost.CPU_POLL_S) if budget else deadline
            ended = [fd for fd, events in self.poller.poll(max(1, int((wake - now) * 1000) + 1))
                     if fd == self.pidfd or not events & select.POLLIN]
            if ended:  # it died, or closed its output
                # A ``done`` it printed first is its answer, as its host
                # reads what came before it looks for a death.
                if player.drain(out):
                    break
                return back()
        wall = time.monotonic() - started
        readings: list = []
        # Frozen first, so that it starts nothing while the rest is swept; its
        # CPU and memory are read while its stop takes effect.
        player.freeze(lambda: readings.extend((player.cpu(), player.peak_kb())))
        used, peak = readings
        wall = max(wall, player.quiet_at - started)  # (its way back to its stdin is its own: see seats.run)
        used = max(used, player.cpu_mark)  # (a player gone since reads 0: its death charges it, next step)
        if budget and used - player.cpu_mark > budget:
            return back()  # over its budget (see seathost._over_budget): the host kills it
        reply = seathost._blank_reply(restarted=False)
        reply.update(exit=0, wall=wall, cpu=max(0.0, used - player.cpu_mark), peak_kb=peak)
        player.cpu_mark = used
        def swept() -> int | None:  # (by its host, only if the step left more processes than it found)
            if count() == self.baseline:
                return 0
            killed = sweep()
            if killed is not None:
                self.baseline = count()
            return killed

        killed = player.sweep_frozen(swept)
        if killed is None:
            return None, None  # the host is gone: the caller abandons the seat
        reply["killed"] = killed
        self.answered = True
        self.outputs.finish(reply, out, err, out_start, err_start, output_kb)
        reply["keep"] = player.lendable() and not self._dead()
        return reply, None


def borrow(lend: dict, host_pid: int, sandboxed: bool, pids: list[int], count: int | None,
           outputs: tuple[str, str] | None = None, starts: object = None) -> Borrowed | None:
    """Take the player a host lent (``seathost.lend``: its pid as the host
    sees it, the host's fd numbers of its pipes); ``host_pid`` is the host's
    own process (without a sandbox) or its bubblewrap's, ``pids`` the
    seat's processes and ``count`` their number (its control group's).
    None where anything does not check out: the host keeps playing.
    ``outputs``: its output files (stdout, stderr), opened now, as the
    /proc files a step reads are, so that a first step costs what any does
    (lent before the match, their first opening would be step 1's);
    ``starts``: their sizes where its next step's output begins, if not
    where they end now (a player lent at its start: what it printed while
    it started is its first step's)."""
    if count is None or not isinstance(lend, dict):
        return None
    try:
        inner, to_fd, from_fd = int(lend["pid"]), int(lend["to"]), int(lend["from"])
    except (KeyError, TypeError, ValueError):
        return None
    host, player = (None, None) if sandboxed else (host_pid, inner)
    if sandboxed:  # pids as the sandbox's pid namespace numbers them: the host is its 1
        for pid in pids:
            ns = _nspid(pid)
            if len(ns) > 1 and ns[-1] == 1:
                host = pid
            elif len(ns) > 1 and ns[-1] == inner:
                player = pid
    if host is None or player is None or player not in pids or _parent(player) != host:
        return None
    fds: list[int] = []
    try:
        fds.append(os.pidfd_open(player))
        fds.append(os.open(f"/proc/{host}/fd/{to_fd}", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC))
        fds.append(os.open(f"/proc/{host}/fd/{from_fd}", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC))
        ours, theirs = os.fstat(fds[1]), os.stat(f"/proc/{player}/fd/0")
        if not (stat.S_ISFIFO(ours.st_mode) and os.path.samestat(ours, theirs)
                and stat.S_ISFIFO(os.fstat(fds[2]).st_mode)):
            raise OSError("not the player's pipes")
    except OSError:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        return None
    held = seathost.Persistent()
    held.parent = False
    held.pid, held.members, held.to_player, held.from_player = player, (player,), fds[1], fds[2]
    held.cpu_mark = held.cpu()  # frozen: what it used so far, as its host's mark
    borrowed = Borrowed(held, fds[0], count)
    held.peak_kb(), held.reading()
    if outputs is not None:
        out, err, _, _ = borrowed.outputs.open({"stdout": outputs[0], "stderr": outputs[1]})
        if isinstance(starts, (list, tuple)) and len(starts) == 2 and all(isinstance(n, int) for n in starts):
            borrowed.outputs.ends[out], borrowed.outputs.ends[err] = starts
    return borrowed


def _nspid(pid: int) -> list[int]:
    """``pid``'s numbers in each pid namespace it is in, outermost first."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"NSpid:"):
                    return [int(n) for n in line.split()[1:]]
    except (OSError, ValueError):
        pass
    return []


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None
