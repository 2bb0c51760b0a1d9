"""Admission: the pre-checks a kernel-log finding passes once, before anything counts it as a node fault.

- from the kernel: a syslog line another program wrote (any local process can write one that reads like a
  kernel fault) is counted as such (gpu_npd_forged_or_userspace_total), never a node problem;
- dated: a kmsg finding carries seconds since boot; it gets its wall-clock time from the boot's start;
- not one Xid twice: an Xid NVML's event API already reported (or the kernel log, the other way round) within
  a few seconds is the same Xid (agent/xidmerge.py);
- not ours: a line our own InfiniBand counter reads caused (agent/selfcaused.py) is counted as such.
"""

from __future__ import annotations

from datetime import datetime, timezone

from parsers import Finding
from parsers.model import Boot

from .metrics import Metrics
from .selfcaused import CounterGuard
from .xidmerge import XidMerger

# syslog tags of the kernel's own lines; None: the envelope carries no tag (kmsg, dmesg, journalctl -k)
KERNEL_PROGRAMS = frozenset({None, "kernel"})


class Admission:
    def __init__(self, boot: Boot, metrics: Metrics, guard: CounterGuard | None = None):
        self.boot = boot
        self.metrics = metrics
        self.guard = guard
        self.xids = XidMerger()

    def admit(self, f: Finding, source: str) -> Finding | None:
        """`f` dated, or None when it is no node fault to decide (counted where that says something)."""
        if f.program not in KERNEL_PROGRAMS:
            self.metrics.forged.labels(source, f.kind).inc()
            return None
        epoch = self.boot.epoch
        if f.timestamp is None and f.uptime is not None and epoch is not None:
            f.timestamp = datetime.fromtimestamp(epoch + f.uptime, timezone.utc)
        if f.kind == "xid":
            return None if self.xids.already_seen(f, source) else f
        if self.guard is not None and self.guard.explains(f):
            self.metrics.self_caused.labels(f.kind, f.pci or "unknown").inc()
            return None
        return f
