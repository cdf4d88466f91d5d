"""Writes that no one needs before the next player's step ends, done while
that player runs.

After a step is applied the referee owes the log its line (with the state's
hash), the match folder its snapshot, every other seat its view of that step
and the player its decision file removed.  None of these is read before the
next step's reply comes back: done in line, they would add a file creation
each (~100 us on ext4) to every step's critical path; done while the next
player runs, they overlap its run.

Jobs wait until the match hands the step to the player, so that they compete
with the player's run and not with the referee's own work before it:

- A spawned player's step takes milliseconds: the jobs go to one worker
  thread (:meth:`Later.go`).
- A kept-alive player's step is over in a fraction of a millisecond, less
  than the jobs take.  On the thread they ran into its reply, and the GIL they
  held counted in its time (its median step took 0.55 ms, not 0.2).  So the
  match does them itself while it waits (:meth:`Later.until`), one at a
  time, looking for the player's answer between two: the answer is seen at
  most one job late (tens of microseconds), and what is left waits.  Where
  jobs are slow (a disk that takes milliseconds to create a file: three in
  a row), they go to the thread, whose file operations release the GIL.

Each job names the seat whose folder it touches (or none, for the match
folder); the match waits for a seat's jobs before it touches that folder
itself, and for all of them before it writes the result.  Where the referee
forks its players itself (``REFEREE_RUNNER=direct``, the portable runner) a
thread and a fork do not mix well, so the jobs run in line there."""
from __future__ import annotations

import contextlib
import errno
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
# Jobs that took longer than this, SLOW_JOBS of them in a row, done while a
# player runs, were held up by the disk: the next ones go to the thread (see
# Later.until).  One alone may be a preemption on a busy machine.
SLOW_S = 0.0005
SLOW_JOBS = 3

Job = tuple["int | None", Callable[[], None]]
# What a step calls once its request is sent (see Later.until): ``ready()``
# says whether the player's answer has come, or its end (the host's reply,
# where the host plays the step); None where nothing can be asked.
Meanwhile = Callable[["Callable[[], bool] | None"], None]


class Later:
    def __init__(self, threaded: bool) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="referee-later") if threaded else None
        self._batches: list[tuple[set[int | None], Future]] = []
        self._queued: list[tuple[int | None, Callable[[], None], int]] = []  # (seat, job, round)
        self._round = 0  # how many steps did jobs while their player ran (see until)
        self._slow = 0  # slow jobs in a row, done while a player ran (SLOW_JOBS: the thread does them)

    def submit(self, seat: int | None, job: Callable[[], None]) -> None:
        """Do ``job`` (which touches ``seat``'s folder, or only the match
        folder for None) now, or later (:meth:`go`, :meth:`until`)."""
        if self._pool is None:
            job()
        else:
            self._queued.append((seat, job, self._round))

    def go(self, ready: Callable[[], bool] | None = None) -> None:
        """Start the jobs submitted so far on the thread, as one batch (one
        hand-over per step, not one per file).  (``ready``: as :meth:`until`
        takes it, not needed here.)"""
        if self._pool is not None and self._queued:
            self._hand_over(self._take(lambda seat, made: True))

    def until(self, ready: Callable[[], bool] | None) -> None:
        """Do the jobs submitted so far here, one at a time, while a
        kept-alive player runs: before each, ``ready()`` says whether its
        answer has come; if it has, the rest wait, at most until the next
        step starts (:meth:`stale`).  With jobs still on the thread, or after
        a slow one, they go to the thread instead.  An error is kept for
        :meth:`wait` (a full disk's jobs are run again there, as the
        thread's are): the player's step goes on."""
        if self._pool is None or self._batches or self._slow >= SLOW_JOBS or ready is None:
            self.go()
            return
        while self._queued and not ready():
            began = time.monotonic()
            try:
                self._queued[0][1]()
            except Exception as exc:
                failed: Future = Future()
                jobs = self._take(lambda seat, made: True)
                if isinstance(exc, OSError) and exc.errno in NO_SPACE:
                    failed.set_result(jobs)
                else:
                    failed.set_exception(exc)
                self._batches.append(({seat for seat, _ in jobs}, failed))
                break
            del self._queued[0]
            self._slow = self._slow + 1 if time.monotonic() - began > SLOW_S else 0
            if self._slow >= SLOW_JOBS:
                self.go()
                break
        self._round += 1

    def stale(self) -> None:
        """Do here the jobs that a step before this one left (its player
        answered first): so each step's jobs wait at most one more step."""
        if self._queued and self._queued[0][2] < self._round:
            self._in_line(self._take(lambda seat, made: made < self._round))

    def in_line(self) -> None:
        """Do the jobs submitted so far here, on the calling thread, after
        those handed over before them (whose errors are raised here).  A
        full disk leaves the jobs from the one that failed for :meth:`wait`,
        as the thread does."""
        self._in_line(self._take(lambda seat, made: True))

    def wait(self, seat: int | None = None) -> None:
        """Wait for the jobs that touch ``seat``'s folder (all jobs for None);
        the first one's error, if any, is raised here.  Jobs that stopped on
        a full disk are run again here, in line: meanwhile the match has
        charged the seat that filled it and emptied its folder (see
        ``Match._disk_fault``); if the disk is still full, that error goes up.
        Jobs still queued (a kept-alive player answered before they were
        done) are done here, in line."""
        self._in_line(self._take(lambda owner, made: seat is None or owner == seat), seat)

    def _take(self, which: Callable[[int | None, int], bool]) -> list[Job]:
        """Take the queued jobs ``which(seat, round)`` picks, in order."""
        taken = [(seat, job) for seat, job, made in self._queued if which(seat, made)]
        if taken:
            self._queued = [entry for entry in self._queued if not which(entry[0], entry[2])]
        return taken

    def _hand_over(self, jobs: list[Job]) -> None:
        assert self._pool is not None
        self._batches.append(({seat for seat, _ in jobs}, self._pool.submit(_run_all, jobs)))

    def _in_line(self, jobs: list[Job], seat: int | None = None) -> None:
        """Wait for the handed-over jobs that touch ``seat`` (all for None),
        then do ``jobs`` here; a full disk leaves them, from the one that
        failed, for the next :meth:`wait`."""
        try:
            self._finish(seat)
        except BaseException:
            self._queued = [(owner, job, self._round) for owner, job in jobs] + self._queued
            raise
        stalled = _run_all(jobs)
        if stalled:
            done: Future = Future()
            done.set_result(stalled)
            self._batches.append(({owner for owner, _ in stalled}, done))

    def _finish(self, seat: int | None) -> None:
        """Wait for the handed-over jobs that touch ``seat``'s folder (all for
        None), as :meth:`wait` says."""
        pending = []
        error: BaseException | None = None
        stalled: list[Job] = []
        for seats, future in self._batches:
            if seat is None or seat in seats:
                error = error or future.exception()
                if future.exception() is None:
                    stalled.extend(future.result())
            else:
                pending.append((seats, future))
        self._batches = pending
        if error is not None:
            raise error
        for _, job in stalled:
            job()

    def close(self) -> None:
        """Finish everything and stop the thread; errors are dropped (this
        runs on the way out, after :meth:`wait` or after another error: a
        match stopped by an error in game code or by Ctrl-C keeps the
        snapshots of the steps its log has, as far as the disk lets it)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        stalled = [job for _, done in self._batches if done.exception() is None for job in done.result()]
        with contextlib.suppress(Exception):  # (in their order: what the thread had first)
            _run_all(stalled + self._take(lambda seat, made: True))
        self._batches, self._queued = [], []


def _run_all(jobs: list[Job]) -> list[Job]:
    """Run a batch in order; the first error stops it (the match ends on
    it), except a full disk: then the jobs from the one that failed on are
    returned, to be run again by :meth:`Later.wait`."""
    for done, (_, job) in enumerate(jobs):
        try:
            job()
        except OSError as exc:
            if exc.errno in NO_SPACE:
                return jobs[done:]
            raise
    return []
