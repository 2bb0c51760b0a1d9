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


class Checkpoint:
    def __init__(self, store: StateStore, metrics: Metrics):
        self.store = store
        self.metrics = metrics
        self._last_save = 0.0

    def maybe_save(self, owner: Any, boot: Boot) -> None:
        if time.monotonic() - self._last_save >= SAVE_EVERY:
            self.save(owner, boot)

    def save(self, owner: Any, boot: Boot) -> None:
        """Write what `owner` (the pipeline) remembers, with the boot it is of and the counter totals;
        `owner.dirty` is cleared once it is on disk."""
        try:
            self.store.save({"boot_id": boot.id, "totals": self.metrics.totals(), **owner.to_state()})
        except OSError as exc:  # read-only or full: every source keeps running from memory; alerted
            self.metrics.state_write_errors.inc()
            log.error("cannot write state to %s: %s; detection goes on from memory, but a restart would "
                      "re-read and lose standing conditions: make the state directory writable", self.store.path, exc)
            return
        owner.dirty = False
        self._last_save = time.monotonic()
