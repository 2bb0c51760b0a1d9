"""The input side of the agent: which sources run, each on its own thread kept running, and the intake queue
between them and the pipeline.

Sources (`select_sources`, `fabricmanager_source`, `imex_source`): /dev/kmsg when readable, else log files, else
journald; NVIDIA Fabric Manager's log and the IMEX daemon's, each as its own source.  The `Supervisor` runs each on its own thread: a failing source is reported
down and restarted with backoff; its up/down status and its counters are exported.  Every source hands its batches
to the `Intake`, which the agent's loop takes them from.

The intake is bounded in bytes, back-pressured, its lag measured.

The bound is memory, not a number of batches: a batch of 10,000 long lines and a batch of one short line weigh
what they hold.  When the queue is full a source waits (kmsg's ring buffer keeps the records meanwhile; an
overrun there is counted by the source, never silent).  One batch always fits into an empty queue, so a batch
larger than the bound still moves.  How long sources have been held back is kept too: their input lies unread
meanwhile, and /healthz counts it (`unread_for`) beside the lag of what is queued.  A source is held back from its
first wait for room until the pipeline finds the queue empty (it has then taken all there was): one emit that finds
room at once says nothing, since in a flood the pipeline often frees a slot while the source reads its next batch.
"""

from __future__ import annotations

import errno
import logging
import os
import random
import threading
import time
from collections import deque
from typing import Any, Callable

from .config import Config
from .metrics import Metrics
from .sources import Record, Source, SourceAbsent
from .sources.journald import JournaldSource
from .sources.kmsg import KmsgSource
from .sources.logfile import LogFileSource

log = logging.getLogger("gpu_npd")
NO_KERNEL_LOG = "kernel-log"  # the source label reported down when no kernel log can be read at all
FABRICMANAGER = "fabricmanager"  # the source label of NVIDIA Fabric Manager's log file
IMEX = "imex"  # the source label of the NVIDIA IMEX daemon's log file (multi-node NVLink)


# errno -> why /dev/kmsg cannot be opened in a pod, and how to fix it (docs/install.md "Kernel log access")
KMSG_FIXES = {
    errno.EPERM: "the container runtime's device cgroup refuses the device to an unprivileged container; run the "
                 "agent privileged (the default install: Helm kmsgAccess=privileged, kustomize without "
                 "components/unprivileged) or grant /dev/kmsg through a device plugin or CDI",
    errno.EACCES: "kernel.dmesg_restrict=1 and the agent lacks CAP_SYSLOG (or is not root); add capability SYSLOG",
    errno.ENOENT: "it is not mounted; mount the host's /dev/kmsg (hostPath, type CharDevice)",
}


def unreadable_because(path: str) -> str | None:
    """None when `path` opens for reading, else why not and the fix, in one line (dmesg_restrict makes /dev/kmsg
    refuse non-root at open, whatever its mode: only an open tells)."""
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        return None
    except OSError as exc:
        why = f"{errno.errorcode.get(exc.errno or 0, 'error')}: {exc.strerror or exc}"
        fix = KMSG_FIXES.get(exc.errno or 0)
        return f"{why}; {fix}" if fix else why


def select_sources(cfg: Config, state: dict[str, Any], boot_id: str) -> list[Source]:
    """Defaults that just work: /dev/kmsg when readable, else log files, else journald."""
    cursors = state.get("cursors", {})
    sources: list[Source] = []
    problem = unreadable_because(cfg.kmsg) if cfg.kmsg else "turned off (kmsg: \"\")"
    kmsg_ok = problem is None
    if kmsg_ok:
        sources.append(KmsgSource(cfg.kmsg, boot_id, cursors.get("kmsg")))
    # the fallback follows the kernel's lines once: the first file of fallback_log_files that exists
    # (kern.log before syslog / messages, which hold the same lines again)
    fallback = next((p for p in cfg.fallback_log_files if os.path.exists(p)), None)
    files = list(cfg.log_files) or ([] if kmsg_ok or fallback is None else [fallback])
    journald = cfg.journald or (cfg.journald is None and not kmsg_ok and not files)
    # one start-up line naming the kernel log read, and when it is not kmsg, why and how to fix it
    instead = ", ".join(files) or ("the journal" if journald else "nothing")
    if kmsg_ok:
        log.info("kernel log: reading %s%s", cfg.kmsg, f" (and {', '.join(files)})" if files else "")
    elif cfg.kmsg:
        log.warning("kmsg source %s is not readable (%s); falling back to %s, which loses records the host's "
                    "syslog drops or rate-limits", cfg.kmsg, problem, instead)
    else:
        log.info("kernel log: kmsg %s; reading %s", problem, instead)
    if files:
        sources.append(LogFileSource(files, cfg.state_dir, cursors.get("files"),
                                     gone_grace_seconds=cfg.source_gone_grace_seconds))
    if journald:
        sources.append(JournaldSource(cursors.get("journald")))
    return sources


def fabricmanager_source(cfg: Config, state: dict[str, Any]) -> Source | None:
    """NVIDIA Fabric Manager's own log, followed as its own source (`fabricmanager`) when configured; a host
    without it (no NVSwitch, FM not installed) reports the source absent, never down. Not a kernel log: it
    does not count toward "some kernel log is read"."""
    return _daemon_log(cfg, cfg.fabricmanager_log, FABRICMANAGER, state)


def imex_source(cfg: Config, state: dict[str, Any]) -> Source | None:
    """The NVIDIA IMEX daemon's own log (nvidia-imex.service's LOG_FILE_NAME, /var/log/nvidia-imex.log by default;
    Fabric Manager's envelope), followed as its own source (`imex`) when configured: its [ERROR] lines are
    imex_error findings. A host without it (no multi-node NVLink, or the DRA driver's ComputeDomain daemon running
    IMEX in a pod, logging to that pod's stderr: read with the pod logs) reports the source absent, never down."""
    return _daemon_log(cfg, cfg.imex_log, IMEX, state)


def _daemon_log(cfg: Config, path: str, name: str, state: dict[str, Any]) -> Source | None:
    if not path:
        return None
    return LogFileSource([path], cfg.state_dir, state.get("cursors", {}).get(name), name=name, optional=True,
                         gone_grace_seconds=cfg.source_gone_grace_seconds)


class Supervisor:
    """Runs each source on its own thread; a failing source is reported down and restarted with backoff."""

    def __init__(self, metrics: Metrics, emit: Callable[[Any], None], stop: threading.Event):
        self.metrics = metrics
        self.emit = emit
        self.stop = stop
        self.sources: list[Source] = []
        self.status: dict[str, str] = {}
        self._counted: dict[tuple[str, str], int] = {}

    def blind(self, kmsg: str) -> None:
        """No kernel log at all: unhealthy, exported and alerted, not a quiet "ok"."""
        log.error("no readable kernel log source (kmsg %r, log files, journald): kernel faults on this node "
                  "go unseen; mount /dev/kmsg or /var/log into the pod and grant CAP_SYSLOG", kmsg)
        self.status[NO_KERNEL_LOG] = "down"
        self.metrics.source_up.labels(NO_KERNEL_LOG).set(0)

    def start(self, sources: list[Source]) -> None:
        """Start a thread per source; one whose input is absent from this host (Source.absent) is said once and left
        out (not started, not in `sources`, not in the gauge)."""
        self.sources = []
        for src in sources:
            why = src.absent()
            if why:
                log.info("%s", why)
                self.status[src.name] = "absent"
                continue
            self.sources.append(src)
        for src in self.sources:
            threading.Thread(target=self.supervise, args=(src,), name=f"source-{src.name}", daemon=True).start()

    def supervise(self, src: Source) -> None:
        backoff = 1.0
        while not self.stop.is_set():
            self.status[src.name] = "up"
            self.metrics.source_up.labels(src.name).set(1)
            self._refresh(src)  # input already gone at (re)start: down at once, not after a tick
            try:
                src.run(self.emit, self.stop)
                if self.stop.is_set():
                    return
                raise RuntimeError("source ended")
            except SourceAbsent as exc:
                log.info("%s", exc)
                self.status[src.name] = "absent"
                self.metrics.source_up.remove(src.name)
                return
            except Exception as exc:  # noqa: BLE001 - any failure restarts the source
                log.error("source %s failed: %s; restarting in %.0f s", src.name, exc, backoff)
                self.status[src.name] = "down"
                self.metrics.source_up.labels(src.name).set(0)
                self.metrics.restarts.labels(src.name).inc()
                self.stop.wait(backoff * random.uniform(0.8, 1.2))
                backoff = min(backoff * 2, 30.0)

    def refresh(self) -> None:
        """A running source whose input vanished (Source.gone) is down, in the gauge as in /healthz, until the
        input is back; called every tick."""
        for src in self.sources:
            self._refresh(src)

    def _refresh(self, src: Source) -> None:
        if self.status.get(src.name) in ("up", "gone"):  # not failed (down, restarting) nor absent
            why = src.gone()
            if why and self.status.get(src.name) == "up":
                log.error("source %s is down: %s; it resumes when the input is back", src.name, why)
            elif not why and self.status.get(src.name) == "gone":
                log.info("source %s is up again: its input is back", src.name)
            self.status[src.name] = "gone" if why else "up"
            self.metrics.source_up.labels(src.name).set(0 if why else 1)

    def collect_counters(self) -> None:
        """Counters sources keep themselves (records: those that hand on findings) -> metrics."""
        for src in self.sources:
            counts = src.counters()
            for key, metric in (("dropped", self.metrics.dropped), ("records", self.metrics.records),
                                ("refused", self.metrics.refused)):
                delta = counts.get(key, 0) - self._counted.get((src.name, key), 0)
                if delta > 0:
                    metric.labels(src.name).inc(delta)
                    self._counted[(src.name, key)] = counts[key]
            delta = counts.get("internal_errors", 0) - self._counted.get((src.name, "internal_errors"), 0)
            if delta > 0:  # a source's own bug on an input it went on past (gpu_npd_internal_errors_total)
                self.metrics.internal_errors.inc(delta)
                self._counted[(src.name, "internal_errors")] = counts["internal_errors"]

    def problems(self) -> list[str]:
        out = [f"source {n} is down" for n, s in self.status.items() if s == "down"]
        for src in self.sources:  # asked live: /healthz does not wait for the next tick
            why = src.gone() if self.status.get(src.name) in ("up", "gone") else None
            if why:
                out.append(f"source {src.name} is down: {why}")
        return out

    def summary(self) -> str:
        return ", ".join(f"{n}={'down' if s == 'gone' else s}" for n, s in sorted(self.status.items())) or "no sources"


# ---- the intake queue ------------------------------------------------------------------------------------------------

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
        self.taken = 0.0  # when the batch taken last was queued (time.monotonic): part of it held, its records wait on
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
        """The next batch, or None after `timeout` (0: at once; at once too once the agent stops); sets `lag`."""
        with self._cond:
            if not self._items and timeout > 0 and not self.stop.is_set():
                self._cond.wait(timeout)
            if not self._items:
                self.lag = 0.0
                self._held.clear()  # the pipeline has taken all there was: no source is behind any more
                return None
            enqueued, size, batch = self._items.popleft()
            self.bytes -= size
            self._cond.notify_all()
        self.taken = enqueued
        self.lag = time.monotonic() - enqueued
        return batch

    def wake(self) -> None:
        """End the waits of take() and emit() now (the agent stops: set `stop` first), not at their timeouts."""
        with self._cond:
            self._cond.notify_all()

    def unread_for(self) -> float:
        """Seconds the source held back longest has been held back (0: none is): since its first wait for room,
        the pipeline has never caught up, the source's input lying unread meanwhile."""
        with self._cond:
            since = min(self._held.values(), default=None)
        return 0.0 if since is None else time.monotonic() - since

    def __len__(self) -> int:
        return len(self._items)
