"""The client-side rate limit of every API writer (`TokenBucket`): the Event recorder's (kubeapi/events.py), the node
writers' (agent/kube/nodeapi.py), the cluster component's recovery actions.  A module of its own so that a reader
that only paces its requests does not load the Event recorder."""

from __future__ import annotations

import time
from typing import Callable


class TokenBucket:
    def __init__(self, rate_per_s: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.clock = rate_per_s, burst, clock
        self.tokens, self.t = float(burst), clock()

    def take(self) -> bool:
        if self.refill() >= 1:
            self.tokens -= 1
            return True
        return False

    def refill(self) -> float:
        """The tokens there are now (what has refilled since the last look added)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        return self.tokens
