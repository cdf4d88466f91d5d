"""Writes that no one needs before the next player's step ends, done while
that player runs.

After a step is applied the referee owes the match folder its snapshot, every
other seat its view of that step and the player its decision file removed.
None of these is read before the next step's reply comes back: done in line,
they would add a file creation each (~100 us on ext4) to every step's critical
path; done on one worker thread, they overlap the next player's run, whose
reply the referee waits for with the GIL released.

Jobs wait until :meth:`Later.go`, which the match calls as it hands the
step to the player, so that they compete with the player's run and not with
the referee's own work before it.  A kept-alive player's step is shorter
than the jobs: they are done before it, in line (:meth:`Later.in_line`).  Each job names the seat whose folder it
touches (or none, for the match folder); the match waits for a seat's jobs
before it touches that folder itself, and for all of them before it writes
the result.  Where the referee
forks its players itself (``REFEREE_RUNNER=direct``, the portable runner) a
thread and a fork do not mix well, so the jobs run in line there."""
from __future__ import annotations

import errno
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


class Later:
    def __init__(self, threaded: bool) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="referee-later") if threaded else None
        self._batches: list[tuple[set[int | None], Future]] = []
        self._queued: list[tuple[int | None, Callable[[], None]]] = []

    def submit(self, seat: int | None, job: Callable[[], None]) -> None:
        """Do ``job`` (which touches ``seat``'s folder, or only the match
        folder for None) now, or on the worker thread from :meth:`go` on."""
        if self._pool is None:
            job()
        else:
            self._queued.append((seat, job))

    def go(self) -> None:
        """Start the jobs submitted so far, as one batch (one hand-over to the
        thread per step, not one per file)."""
        if self._pool is not None and self._queued:
            jobs, self._queued = self._queued, []
            self._batches.append(({seat for seat, _ in jobs}, self._pool.submit(_run_all, jobs)))

    def in_line(self) -> None:
        """Do the jobs submitted so far here, on the calling thread, after
        those handed over before them (whose errors are raised here).  For a
        step with nothing to overlap: a kept-alive player's step is over in a
        fraction of a millisecond, less than the jobs take, so they would run
        into its reply, and the GIL they hold would count in its time.  A
        full disk leaves the jobs from the one that failed for :meth:`wait`,
        as the thread does."""
        jobs, self._queued = self._queued, []
        try:
            self.wait()  # (with nothing queued: it hands nothing over)
        except BaseException:
            self._queued = jobs + self._queued
            raise
        stalled = _run_all(jobs)
        if stalled:
            done: Future = Future()
            done.set_result(stalled)
            self._batches.append(({seat for seat, _ in stalled}, done))

    def wait(self, seat: int | None = None) -> None:
        """Wait for the jobs that touch ``seat``'s folder (all jobs for None);
        the first one's error, if any, is raised here.  Jobs that stopped on
        a full disk are run again here, in line: meanwhile the match has
        charged the seat that filled it and emptied its folder (see
        ``Match._disk_fault``); if the disk is still full, that error goes up."""
        if any(seat is None or owner == seat for owner, _ in self._queued):
            self.go()
        pending = []
        error: BaseException | None = None
        stalled: list[tuple[int | None, Callable[[], None]]] = []
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
        runs on the way out, after :meth:`wait` or after another error)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self._batches, self._queued = [], []


def _run_all(jobs: list[tuple[int | None, Callable[[], None]]]) -> list[tuple[int | None, Callable[[], None]]]:
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
