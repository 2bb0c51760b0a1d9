"""State saving: what the agent must remember across restarts, written at most every SAVE_EVERY seconds."""

from __future__ import annotations

import logging
import time
from typing import Any

from parsers.model import Boot

from .metrics import Metrics
from .state import StateStore

log = logging.getLogger("gpu_npd")
SAVE_EVERY = 1.0  # seconds between state writes while something changed
MAX_BACKOFF = 300.0  # a failing state directory is retried at doubling intervals up to this
LOG_EVERY = 600.0  # and its error repeated in the log at most this often (each failure is counted in the metric)


class Checkpoint:
    def __init__(self, store: StateStore, metrics: Metrics):
        self.store = store
        self.metrics = metrics
        self._last_save = 0.0
        self._failures = 0
        self._backoff = 0.0
        self._next_try = 0.0
        self._logged = float("-inf")

    def maybe_save(self, owner: Any, boot: Boot) -> None:
        now = time.monotonic()
        if now >= self._next_try and now - self._last_save >= SAVE_EVERY:
            self.save(owner, boot)

    def save(self, owner: Any, boot: Boot, last: bool = False) -> bool:
        """Write what `owner` (the pipeline) remembers, with the boot it is of and the counter totals;
        `owner.dirty` is cleared once it is on disk.  Whether it was written; `last`: the shutdown's write, after
        which nothing retries, its failure said whatever was said in the last LOG_EVERY seconds."""
        try:
            self.store.save({"boot_id": boot.id, "totals": self.metrics.totals(), **owner.to_state()})
        except OSError as exc:  # read-only or full: every source keeps running from memory; alerted
            now = time.monotonic()
            self.metrics.state_write_errors.inc()
            self._failures += 1
            self._backoff = min(MAX_BACKOFF, max(SAVE_EVERY, self._backoff * 2))
            self._next_try = now + self._backoff
            if last:  # nothing retries it: said whatever was said before
                log.error("cannot write state to %s at shutdown: %s; the next start reads again what was processed "
                          "since the last write and loses the conditions that stood: make the state directory "
                          "writable (%d failed write(s), gpu_npd_state_write_errors_total)", self.store.path, exc,
                          self._failures)
            elif now - self._logged >= LOG_EVERY:
                self._logged = now
                log.error("cannot write state to %s: %s; detection goes on from memory, but a restart would "
                          "re-read and lose standing conditions: make the state directory writable (%d failed "
                          "write(s) so far; retrying at up to %.0f s intervals, gpu_npd_state_write_errors_total)",
                          self.store.path, exc, self._failures, MAX_BACKOFF)
            return False
        if self._failures:
            log.info("state written to %s again, after %d failed write(s)", self.store.path, self._failures)
            self._failures, self._backoff, self._next_try, self._logged = 0, 0.0, 0.0, float("-inf")
        owner.dirty = False
        self._last_save = time.monotonic()
        return True
