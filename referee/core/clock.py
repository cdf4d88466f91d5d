"""Time controls beyond the per-step limits: a match time bank per seat with
a Fischer increment, a first-step allowance, and a grace margin.

The referee's measured wall time of a step (request to reply) is what is
charged.  A step may take up to what is left in the bank (plus the first-step
allowance on a seat's first step); the grace margin absorbs machine jitter
past that, but is never forgiven silently: the overrun is logged
(``grace_ms``) and the bank is left empty.  Past the grace the step is a
TIMEOUT ("its time bank ran out").  The per-step ``hard_time`` still caps
every step, and ``soft_time`` still gives LATE."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .runner import Limits


@dataclass
class Charge:
    allowed: float  # seconds this step may use before the grace margin
    grace_used: float = 0.0
    ran_out: bool = False
    left: float = 0.0  # the bank after the step (increment included)


class SeatClock:
    """One seat's bank; inert when the limits set no ``time_bank``."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.left = limits.time_bank
        self.moved = False

    @property
    def on(self) -> bool:
        return self.left is not None

    def allowed(self) -> float | None:
        """What the next step may use (None: no bank)."""
        if self.left is None:
            return None
        return self.left + (0.0 if self.moved else self.limits.first_step_extra)

    def step_limits(self) -> Limits:
        """The limits for the next step: the hard limit shrunk to what the
        bank (and the grace) allow."""
        allowed = self.allowed()
        if allowed is None:
            return self.limits
        hard = min(self.limits.hard_time, allowed + self.limits.grace)
        return dataclasses.replace(self.limits, hard_time=max(hard, 0.001),
                                   soft_time=min(self.limits.soft_time, max(hard, 0.001)))

    def charge(self, wall: float) -> Charge | None:
        allowed = self.allowed()
        if allowed is None:
            return None
        self.moved = True
        over = wall - allowed
        charge = Charge(allowed)
        if over > self.limits.grace:
            charge.ran_out = True
            self.left = 0.0
        elif over > 0:
            charge.grace_used = over
            self.left = self.limits.increment
        else:
            self.left = allowed - wall + self.limits.increment
        charge.left = self.left
        return charge
