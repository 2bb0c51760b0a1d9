"""A settable clock for code that takes `clock=` (tests and simulations)."""

from __future__ import annotations


class Clock:
    def __init__(self, t: float = 1_800_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t
