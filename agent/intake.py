"""The intake queue between source threads and the pipeline: bounded, back-pressured, its lag measured."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

from .sources import Record


class Intake:
    """Sources put batches; the pipeline takes them.  The wait of the batch being taken is the intake lag."""

    def __init__(self, max_batches: int, stop: threading.Event):
        self.queue: queue.Queue[tuple[float, Any]] = queue.Queue(maxsize=max_batches)
        self.stop = stop
        self.lag = 0.0

    def emit(self, batch: Any) -> None:
        while not self.stop.is_set():
            try:
                self.queue.put((time.monotonic(), batch), timeout=0.5)
                return
            except queue.Full:
                continue  # back-pressure: the source waits, nothing is dropped silently

    def nvml_xid(self, pci: str, xid: int) -> None:
        """An Xid from NVML's event API travels as the kernel line it stands for (one classification path)."""
        self.emit([Record("nvml", f"NVRM: Xid (PCI:{pci}): {xid}, reported through NVML events")])

    def take(self, timeout: float) -> Any:
        """The next batch, or None after `timeout`; sets `lag`."""
        try:
            enqueued, batch = self.queue.get(timeout=timeout)
        except queue.Empty:
            self.lag = 0.0
            return None
        self.lag = time.monotonic() - enqueued
        return batch

    def take_nowait(self) -> Any:
        try:
            return self.queue.get_nowait()[1]
        except queue.Empty:
            return None
