"""The intake queue between source threads and the pipeline: bounded in bytes, back-pressured, its lag measured.

The bound is memory, not a number of batches: a batch of 10,000 long lines and a batch of one short line weigh
what they hold.  When the queue is full a source waits (kmsg's ring buffer keeps the records meanwhile; an
overrun there is counted by the source, never silent).  One batch always fits into an empty queue, so a batch
larger than the bound still moves.  How long sources have been held back is kept too: their input lies unread
meanwhile, and /healthz counts it (`unread_for`) beside the lag of what is queued.  A source is held back from its
first wait for room until the pipeline finds the queue empty (it has then taken all there was): one emit that finds
room at once says nothing, since in a flood the pipeline often frees a slot while the source reads its next batch.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

from .sources import Record

RECORD_OVERHEAD = 128  # bytes a queued record holds beyond its text (Record, str header, list slot): ~116 by tracemalloc
FINDING_OVERHEAD = 1024  # bytes a queued pod finding holds beyond its message: ~800 by tracemalloc
OTHER_BATCH = 4096  # a telemetry sample batch, weighed as this


def weight(batch: Any) -> int:
    """Estimated bytes `batch` holds while queued."""
    if isinstance(batch, list):
        return sum(len(r.line) for r in batch) + RECORD_OVERHEAD * len(batch)
    items = getattr(batch, "items", None)  # pod findings (WorkloadFindings): up to ~1,000 per poll
    if isinstance(items, list):
        return sum(len(f.message) for _, f in items) + FINDING_OVERHEAD * len(items)
    return OTHER_BATCH


class Intake:
    """Sources put batches; the pipeline takes them.  The wait of the batch being taken is the intake lag."""

    def __init__(self, max_bytes: int, stop: threading.Event, metrics=None):
        self.max_bytes = max(1, int(max_bytes))
        self.stop = stop
        self.metrics = metrics
        self.lag = 0.0
        self.bytes = 0
        self._items: deque[tuple[float, int, Any]] = deque()
        # the thread of each source held back -> since when: from its first wait for room until the pipeline finds
        # the queue empty (a flood's source is held back all along, not once per batch it waited for)
        self._held: dict[int, float] = {}
        self._cond = threading.Condition()

    def emit(self, batch: Any) -> None:
        """Queue `batch`; waits while the queue is full (back-pressure), gives up only when the agent stops."""
        size = weight(batch)
        with self._cond:
            if self._items and self.bytes + size > self.max_bytes:
                if self.metrics is not None:
                    self.metrics.queue_waits.inc()
                self._held.setdefault(threading.get_ident(), time.monotonic())
                while self._items and self.bytes + size > self.max_bytes:
                    if self.stop.is_set():
                        return  # stopping: what is not queued is re-read from the source's saved cursor
                    self._cond.wait(0.5)
            self._items.append((time.monotonic(), size, batch))
            self.bytes += size
            self._cond.notify_all()

    def nvml_xid(self, pci: str, xid: int) -> None:
        """An Xid from NVML's event API travels as the kernel line it stands for (one classification path)."""
        self.emit([Record("nvml", f"NVRM: Xid (PCI:{pci}): {xid}, reported through NVML events")])

    def take(self, timeout: float) -> Any:
        """The next batch, or None after `timeout` (0: at once); sets `lag`."""
        with self._cond:
            if not self._items and timeout > 0:
                self._cond.wait(timeout)
            if not self._items:
                self.lag = 0.0
                self._held.clear()  # the pipeline has taken all there was: no source is behind any more
                return None
            enqueued, size, batch = self._items.popleft()
            self.bytes -= size
            self._cond.notify_all()
        self.lag = time.monotonic() - enqueued
        return batch

    def unread_for(self) -> float:
        """Seconds the source held back longest has been held back (0: none is): since its first wait for room,
        the pipeline has never caught up, the source's input lying unread meanwhile."""
        with self._cond:
            since = min(self._held.values(), default=None)
        return 0.0 if since is None else time.monotonic() - since

    def __len__(self) -> int:
        return len(self._items)
