"""Which log sources run, and keeping them running: restart with backoff, up/down status, their counters."""

from __future__ import annotations

import errno
import logging
import os
import random
import threading
from typing import Any, Callable

from .config import Config
from .metrics import Metrics
from .sources import Source, SourceAbsent
from .sources.journald import JournaldSource
from .sources.kmsg import KmsgSource
from .sources.logfile import LogFileSource

log = logging.getLogger("gpu_npd")
NO_KERNEL_LOG = "kernel-log"  # the source label reported down when no kernel log can be read at all
FABRICMANAGER = "fabricmanager"  # the source label of NVIDIA Fabric Manager's log file


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
    if not cfg.fabricmanager_log:
        return None
    return LogFileSource([cfg.fabricmanager_log], cfg.state_dir, state.get("cursors", {}).get(FABRICMANAGER),
                         name=FABRICMANAGER, optional=True, gone_grace_seconds=cfg.source_gone_grace_seconds)


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
        self.sources = sources
        for src in sources:
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

    def problems(self) -> list[str]:
        out = [f"source {n} is down" for n, s in self.status.items() if s == "down"]
        for src in self.sources:  # asked live: /healthz does not wait for the next tick
            why = src.gone() if self.status.get(src.name) in ("up", "gone") else None
            if why:
                out.append(f"source {src.name} is down: {why}")
        return out

    def summary(self) -> str:
        return ", ".join(f"{n}={'down' if s == 'gone' else s}" for n, s in sorted(self.status.items())) or "no sources"
