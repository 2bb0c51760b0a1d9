"""State saving: what the agent must remember across restarts, written at most every SAVE_EVERY seconds, with the
sections a stage saving on its own thread keeps in it (`Section`: the pod logs' offsets, on disk in the same write as
the counts of the findings read up to them)."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

from parsers.model import Boot

from .metrics import Metrics
from .state import StateStore

log = logging.getLogger("gpu_npd")
SAVE_EVERY = 1.0  # seconds between state writes while something changed
MAX_BACKOFF = 300.0  # a failing state directory is retried at doubling intervals up to this
LOG_EVERY = 600.0  # and its error repeated in the log at most this often (each failure is counted in the metric)


class Section:
    """One section of the state file as the store of a stage that saves on a thread of its own (the pod log source,
    agent/sources/podlogs.py): `load` gives the section as the state was read at start, `save` keeps what it is given
    in memory (`changed` until a state write took it), and every state write takes the stage's latest (`take`: the
    stage's `flush` first, run on the thread that writes).  So the offsets of a source are never on disk ahead of or
    behind the counts of the findings read up to them: both are in one atomic write (two files written apart, a
    SIGKILL between the writes counted a batch twice at the next start, or lost its counts)."""

    def __init__(self, path: Any, saved: dict[str, Any]):
        self.path = path  # (the state file: where a fault of the section is said to be)
        self._saved = saved
        self.data: dict[str, Any] | None = saved or None  # (kept as read until the stage saves: nothing is lost)
        self.changed = False
        self.flush: Callable[[], Any] | None = None  # the stage's own save, into this section

    def load(self) -> dict[str, Any]:
        return self._saved

    def save(self, data: dict[str, Any]) -> None:
        if data != self.data:
            self.data, self.changed = data, True

    def take(self) -> dict[str, Any] | None:
        """What the state write about to happen holds: the stage's latest, taken now."""
        if self.flush is not None:
            self.flush()
        return self.data


class Checkpoint:
    def __init__(self, store: StateStore, metrics: Metrics, sections: dict[str, Section] | None = None):
        self.store = store
        self.metrics = metrics
        self.sections = dict(sections or {})  # name -> a stage's section of the state (`Section`)
        self._last_save = 0.0
        self._failures = 0
        self._backoff = 0.0
        self._next_try = 0.0
        self._logged = float("-inf")

    @property
    def changed(self) -> bool:
        """A section's stage saved something the state file does not hold yet."""
        return any(s.changed for s in self.sections.values())

    def maybe_save(self, owner: Any, boot: Boot) -> None:
        now = time.monotonic()
        if now >= self._next_try and now - self._last_save >= SAVE_EVERY:
            self.save(owner, boot)

    def save(self, owner: Any, boot: Boot, last: bool = False) -> bool:
        """Write what `owner` (the pipeline) remembers, with the boot it is of and the counter totals;
        `owner.dirty` is cleared once it is on disk.  Whether it was written; `last`: the shutdown's write, after
        which nothing retries, its failure said whatever was said in the last LOG_EVERY seconds."""
        try:
            taken = {name: s.take() for name, s in self.sections.items()}
            self.store.save({"boot_id": boot.id, "totals": self.metrics.totals(), **owner.to_state(),
                             **{name: data for name, data in taken.items() if data is not None}})
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
        for name, data in taken.items():
            if self.sections[name].data is data:  # (not saved again meanwhile by its own thread)
                self.sections[name].changed = False
        self._last_save = time.monotonic()
        return True
