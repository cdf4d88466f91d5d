"""Verdicts: what the referee concluded about one step of one player.

Decided where DESIGN.md is silent: the limits (wall, CPU, memory) are always
faults, even if a decision file was written first; a non-zero exit status is
only a CRASH when no usable decision was written (many student programs crash
on exit after saving their move; the exit status is still logged)."""
from __future__ import annotations

import enum
import math
import signal

from .runner import Limits, RunResult


class Verdict(str, enum.Enum):
    OK = "OK"
    LATE = "LATE"  # over the soft limit: recorded, the move still counts
    MALFORMED = "MALFORMED"
    NO_DECISION = "NO_DECISION"
    ILLEGAL = "ILLEGAL"
    TIMEOUT = "TIMEOUT"
    CPU_LIMIT = "CPU_LIMIT"
    MEMORY_LIMIT = "MEMORY_LIMIT"
    DISK_LIMIT = "DISK_LIMIT"  # its folder past disk_mb, or it filled the disk
    CRASH = "CRASH"
    RESIGNED = "RESIGNED"  # a human at the keyboard or in the browser gave up: the game ends

    @property
    def counts(self) -> bool:
        """Whether the decision is applied."""
        return self in (Verdict.OK, Verdict.LATE)

    def __str__(self) -> str:
        return self.value


CPU_SLACK_S = 0.1
"""CPU a seat's processes may use past the limit's whole seconds (RLIMIT_CPU's
unit) before their sum is a CPU_LIMIT: the accounting's own grain."""

_MEMORY_WORDS = ("MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory",
                 "Out of memory", "OutOfMemoryError")


def process_fault(run: RunResult, limits: Limits) -> tuple[Verdict, str] | None:
    """A limit verdict from the process facts alone, or None."""
    if run.start_error:
        return Verdict.CRASH, run.start_error
    if run.timed_out or (run.failed and run.wall_s >= limits.hard_time):
        # Wall time past the hard limit is a TIMEOUT whatever happened meanwhile:
        # when the CPU limit equals the wall limit (the default), a program that
        # spins gets SIGXCPU and the wall-clock kill at the same moment, and which
        # one the kernel or a busy referee delivers first must not decide the verdict
        # (a match said TIMEOUT where ``rerun`` of the same step said CPU_LIMIT).
        return Verdict.TIMEOUT, f"killed at the hard time limit of {limits.hard_time:g} s"
    cpu = limits.effective_cpu
    sigxcpu = getattr(signal, "SIGXCPU", None)
    if run.signal is not None and (run.signal == sigxcpu or
                                   (cpu and run.signal == signal.SIGKILL and run.cpu_s >= cpu - 0.05)):
        return Verdict.CPU_LIMIT, f"used {run.cpu_s:.2f} s of CPU, limit {cpu:g} s"
    if cpu and run.cpu_s > max(1, math.ceil(cpu)) + CPU_SLACK_S:
        # Its processes together (helpers it forked, killed at the step's end
        # or not) used more than a single process may before SIGXCPU.
        return Verdict.CPU_LIMIT, (f"its processes together used {run.cpu_s:.2f} s of CPU, "
                                   f"limit {cpu:g} s")
    if run.memory_exceeded:
        return Verdict.MEMORY_LIMIT, (f"its processes together went over the memory limit "
                                      f"({limits.memory_mb:g} MiB)")
    if run.processes_exceeded:
        # Where a control group holds the count, a fork past it fails, and a
        # program that does not expect that fails with it: CRASH.  Without one
        # the seat host counts and kills them all, the same verdict.
        return Verdict.CRASH, (f"its processes together went over the process limit "
                               f"({limits.processes} at once): all of them were killed")
    if run.failed:
        near_limit = limits.memory_mb and run.peak_kb >= 0.9 * limits.memory_mb * 1024
        if any(w in run.stderr_tail for w in _MEMORY_WORDS) or near_limit:
            return Verdict.MEMORY_LIMIT, f"ran out of memory (limit {limits.memory_mb:g} MiB)"
    return None


def describe_exit(run: RunResult) -> str:
    if run.signal is not None:
        try:
            name = signal.Signals(run.signal).name
        except ValueError:
            name = f"signal {run.signal}"
        return f"killed by {name}"
    return f"exit status {run.exit_code}"
