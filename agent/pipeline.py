"""The record path: batches from the intake -> classification -> findings -> health engine -> sinks."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import Any, Callable

from parsers import Classifier, Finding

from .checks.problems import judged as judge_checks
from .checks.scheduler import CheckBatch
from .gpu.collector import GpuCollector, annotate
from .health import Change, HealthEngine
from .metrics import Metrics
from .podlookup import PodLookup
from .poller import SampleBatch
from .samples import SampleJudge
from .shedding import RecentMessages
from .sources import Record
from .sources.podlogs import WorkloadFindings
from .workloads import WorkloadTracker
from .xidmerge import XidMerger

log = logging.getLogger("gpu_npd")
# syslog tags of the kernel's own lines; None: the envelope carries no tag (kmsg, dmesg, journalctl -k)
KERNEL_PROGRAMS = frozenset({None, "kernel"})


class Pipeline:
    """Turns each batch into findings and hands the engine's changes to the sinks; keeps the read cursors."""

    def __init__(self, engine: HealthEngine, judge: SampleJudge, metrics: Metrics, gpu: GpuCollector,
                 workloads: WorkloadTracker, pods: PodLookup, sinks: list, boot_epoch: float,
                 clock: Callable[[], float], under_pressure: Callable[[], bool], check_severity: str = "error"):
        self.engine = engine
        self.judge = judge
        self.metrics = metrics
        self.gpu = gpu
        self.workloads = workloads
        self.pods = pods
        self.sinks = sinks
        self.boot_epoch = boot_epoch
        self.clock = clock
        self.under_pressure = under_pressure
        self.check_severity = check_severity
        self.classifiers: dict[str, Classifier] = {}
        self.cursors: dict[str, Any] = {}
        self.xids = XidMerger()
        self.recent = RecentMessages()
        self.dirty = False

    def process(self, batch: list[Record] | SampleBatch | WorkloadFindings | CheckBatch) -> None:
        if isinstance(batch, SampleBatch):
            self._judge(batch)
            return
        if isinstance(batch, CheckBatch):
            self._checked(batch)
            return
        if isinstance(batch, WorkloadFindings):
            for ref, f in batch.items:
                annotate(f, self.gpu.pci_to_gpu)
                self.workloads.observe(ref, f)
            return
        name = batch[0].source
        classifier = self.classifiers.get(name)
        if classifier is None:
            classifier = self.classifiers[name] = Classifier()
        shedding = self.under_pressure()
        for rec in batch:
            if shedding and self.recent.duplicate(rec.line):
                self.metrics.shed.inc()
                continue
            finding = classifier.classify(rec.line)
            if finding is None:
                continue
            if finding.program not in KERNEL_PROGRAMS:
                # a syslog line from another program that reads like a kernel fault (any local process can
                # write one): counted, never a node problem
                self.metrics.forged.labels(name, finding.kind).inc()
                continue
            self.observe(finding, name)
        if batch[-1].cursor is not None:  # sources that keep their own offsets leave it None
            self.cursors[name] = batch[-1].cursor
        self.metrics.records.labels(name).inc(len(batch))  # counted once processed: a test may wait on it
        self.dirty = True

    def _judge(self, batch: SampleBatch) -> None:
        now = self.clock()
        judged = {r.subject: self.judge.judge(r, now) for r in batch.readings}
        self.apply(self.engine.sync(batch.source, judged))
        self.judge.forget(set(judged))
        self.metrics.set_readings(batch.readings, batch.stats)
        self.dirty = True

    def _checked(self, batch: CheckBatch) -> None:
        """One run of a plugin config: its rules' results are what stands for them (permanent -> the
        condition, temporary -> an Event-only problem); counted per result, its duration kept."""
        name = batch.cfg.source
        for res in batch.results:
            self.metrics.check_runs.labels(name, "Skipped" if res.status.startswith("Skipped") else res.status).inc()
        self.metrics.check_duration.labels(name).set(max((r.duration for r in batch.results), default=0.0))
        self.metrics.check_last_run.labels(name).set(self.clock())
        self.apply(self.engine.sync(f"check:{name}", judge_checks(batch.cfg, batch.results, self.check_severity)))
        self.dirty = True

    def observe(self, f: Finding, source: str) -> None:
        if f.timestamp is None and f.uptime is not None:
            f.timestamp = datetime.fromtimestamp(self.boot_epoch + f.uptime, timezone.utc)
        annotate(f, self.gpu.pci_to_gpu)
        if f.kind == "xid" and f.xid is not None and self.xids.already_seen(f, source):
            return
        pod = self.pods(f.pid) if f.kind == "xid" and f.pid is not None else None
        if pod is not None:
            f.details["pod"] = f"{pod.namespace}/{pod.pod}"
            if f.kind == "xid" and f.attribution == "application":
                self.workloads.observe_app_xid(pod, f)  # the pod that caused it hears about it
        self.workloads.note_finding(f)
        self.metrics.findings.labels(f.kind, f.severity, f.attribution).inc()
        if f.kind == "unclassified":
            self.metrics.unclassified.labels(f.details.get("driver", "unknown")).inc()
        if f.kind == "xid" and f.xid is not None:
            self.metrics.count("xid_errors", (str(f.xid), f.pci or "unknown", str(f.details.get("gpu_index", "")),
                                              f.details.get("uuid", "")))
        self.apply(self.engine.observe(f, "kernel"))

    def apply(self, change: Change) -> None:
        if not change:
            return
        for p in change.new_problems:
            self.workloads.note_problem(p)
        self.publish()
        for sink in self.sinks:
            try:
                sink.apply(change)
            except Exception:  # a sink failing never stops detection
                log.exception("sink %s failed", type(sink).__name__)
        self.dirty = True

    def publish(self) -> None:
        self.metrics.set_state(list(self.engine.conditions.values()), list(self.engine.problems.values()))
