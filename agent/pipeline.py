"""The record path: batches from the intake -> classification -> findings -> health engine -> sinks."""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime, timezone
from typing import Any, Callable

from parsers import Classifier, Finding

from .checks.problems import judged as judge_checks
from .checks.scheduler import CheckBatch
from .gpu.collector import GpuCollector, annotate
from .coalesce import Decision, Decisions
from .health import Change, HealthEngine
from .metrics import Metrics
from .podlookup import PodLookup
from .poller import SampleBatch
from .progress import Mark, ProgressTracker
from .samples import SampleJudge
from .selfcaused import CounterGuard
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
                 clock: Callable[[], float], check_severity: str = "error"):
        self.engine = engine
        self.judge = judge
        self.metrics = metrics
        self.gpu = gpu
        self.workloads = workloads
        self.pods = pods
        self.sinks = sinks
        self.boot_epoch = boot_epoch
        self.clock = clock
        self.check_severity = check_severity
        self.classifiers: dict[str, Classifier] = {}
        self.cursors: dict[str, Any] = {}
        self.xids = XidMerger()
        self.decisions = Decisions()
        self._batch = Change()  # what this batch's decisions changed: published with its conditions at its end
        self._fresh: list[tuple] = []  # metric labels of this batch's decided findings, counted at its end
        self.guard: CounterGuard | None = None  # lines our own counter reads cause (agent/selfcaused.py)
        self.progress: ProgressTracker | None = None  # progress per pod (agent/progress.py)
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
            if self.progress is not None:
                for ref, marks in batch.progress:
                    self.progress.observe(ref, [Mark(at, p) for at, p in marks])
            return
        name = batch[0].source
        classifier = self.classifiers.get(name)
        if classifier is None:
            classifier = self.classifiers[name] = Classifier()
        decisions = self.decisions
        for rec in batch:
            finding = classifier.classify(rec.line)
            if finding is None:
                continue
            if finding.program not in KERNEL_PROGRAMS:
                # a syslog line from another program that reads like a kernel fault (any local process can
                # write one): counted, never a node problem
                self.metrics.forged.labels(name, finding.kind).inc()
                continue
            self._stamp(finding)
            known = decisions.get(name, finding)
            if known is not None:
                if finding.kind == "xid":
                    if self.xids.already_seen(finding, name):
                        continue
                elif self._ours(finding):
                    continue
                if self.engine.repeat(finding, known.outcome):
                    self._repeat(finding, known)
                    continue
                decisions.forget(known)  # its problem is gone: decide afresh
            self.observe(finding, name, batched=True)
        self._flush()
        if batch[-1].cursor is not None:  # sources that keep their own offsets leave it None
            self.cursors[name] = batch[-1].cursor
        self.metrics.records.labels(name).inc(len(batch))  # counted once processed: a test may wait on it
        self.dirty = True

    def _stamp(self, f: Finding) -> None:
        if f.timestamp is None and f.uptime is not None:
            f.timestamp = datetime.fromtimestamp(self.boot_epoch + f.uptime, timezone.utc)

    def _repeat(self, f: Finding, known: Decision) -> None:
        """A repeat counted without a decision (see coalesce.py); a possible cause of job failures at most
        once a second, so a storm does not push every other cause out of the correlation window."""
        self.decisions.counted(known)
        t = f.timestamp.timestamp() if f.timestamp is not None else 0.0
        if t - known.cause_at >= 1.0:
            known.cause_at = t
            self.workloads.note_finding(f)

    def _flush(self) -> None:
        """End of a batch: one decision of conditions for the whole batch, then its findings into the metrics
        (in that order: whoever sees a finding counted sees the conditions it raised)."""
        change, self._batch = self.engine.derive(self._batch), Change()
        self._held(change)
        self.apply(change)
        fresh, self._fresh = self._fresh, []
        for labels, n in Counter(fresh).items():  # a flood's findings share a few label sets: one inc each
            self._count(labels, n)
        for d in self.decisions.flush():
            n, d.pending = d.pending, 0
            self.metrics.coalesced.labels(d.key[0]).inc(n)
            self._count((d.finding_labels, d.driver, d.xid_labels), n)

    def _count(self, labels: tuple, n: int) -> None:
        """One finding (or `n` repeats of it) in every counter: by kind, by driver (unclassified), by Xid."""
        finding_labels, driver, xid_labels = labels
        self.metrics.count("findings", finding_labels, n)
        if driver is not None:
            self.metrics.count("unclassified", (driver,), n)
        if xid_labels is not None:
            self.metrics.count("xid_errors", xid_labels, n)

    def _ours(self, f: Finding) -> bool:
        """A line our own counter reads caused (agent/selfcaused.py): counted as such, never a node problem."""
        if self.guard is not None and self.guard.explains(f):
            self.metrics.self_caused.labels(f.kind, f.pci or "unknown").inc()
            return True
        return False

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

    def observe(self, f: Finding, source: str, batched: bool = False) -> None:
        """Decide one finding.  `batched`: inside `process`, which derives conditions once at the batch end."""
        if f.timestamp is None:
            self._stamp(f)
        annotate(f, self.gpu.pci_to_gpu)
        if self._ours(f):
            return
        xid = f.xid if f.kind == "xid" else None
        if xid is not None and self.xids.already_seen(f, source):
            return
        pod = self.pods(f.pid) if xid is not None and f.pid is not None else None
        if pod is not None:
            f.details["pod"] = f"{pod.namespace}/{pod.pod}"
            if f.attribution == "application":
                self.workloads.observe_app_xid(pod, f)  # the pod that caused it hears about it
        self.workloads.note_finding(f)
        labels = (f.kind, f.severity, f.attribution)
        driver = f.details.get("driver", "unknown") if f.kind == "unclassified" else None
        xid_labels = None
        if xid is not None:
            details = f.details
            xid_labels = (str(xid), f.pci or "unknown", str(details.get("gpu_index", "")), details.get("uuid", ""))
        if batched:
            self.engine.observe(f, "kernel", derive=False, change=self._batch)
        else:
            change = self.engine.observe(f, "kernel")
        if self.engine.outcome is not None:
            t = f.timestamp.timestamp() if f.timestamp is not None else 0.0
            self.decisions.remember(source, f, Decision(self.engine.outcome, labels, xid_labels, driver, t))
        if batched:
            self._fresh.append((labels, driver, xid_labels))
        else:
            self._held(change)
            self.apply(change)
            self._count((labels, driver, xid_labels), 1)

    def _held(self, change: Change) -> None:
        for xid, reason in change.held:
            self.metrics.count("xid_policy_held", (str(xid), reason))

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
