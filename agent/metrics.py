"""Prometheus metrics on the agent's own registry."""

from __future__ import annotations

from typing import Any, Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Info
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from kubeapi.dropped import dropped_events
from parsers.gpus import GpuMap
from parsers.model import Condition, Problem, Reading, Snapshot
from parsers.version import version

from .gpuinfo import info_family
from .keyspec import Invalid, each
from .reading_metrics import families


class Metrics:
    # Its attributes, declared (those __init__ sets): why, tests/test_slots.py
    __slots__ = ("registry", "node", "proc_root", "max_series", "_series", "_xid_names", "_xid_held",
                 # its families
                 "overflow", "findings", "xid_errors", "unclassified", "xid_policy_held", "self_caused",
                 "ib_counters_disabled", "records", "dropped", "restarts", "internal_errors", "coalesced", "source_up",
                 "queue_bytes", "queue_waits", "self_cpu", "self_rss", "self_threads", "self_files", "last_tick",
                 "workload_findings", "workload_step_seconds", "workload_hang", "refused", "intake_lag", "forged",
                 "state_write_errors", "kube_writes", "kube_errors", "kube_api_up", "_kube_api_up_exported",
                 "taint_held", "check_runs", "check_duration", "check_last_run", "events_dropped",
                 # what it exports at a scrape
                 "_conditions", "_problems", "_readings", "_stats", "_evictions", "_scan_failures")

    def __init__(self, pod_label: bool = False, max_series: int = 1000, node: str = "", proc_root: str = "/") -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.node, self.proc_root = node, proc_root  # gpu_npd_gpu_info's Hostname; where /proc/driver/nvidia is
        self.max_series = max_series  # per family whose labels come from input (Xid code/PCI, namespace/pod)
        self._series: dict[str, dict[tuple[str, ...], Any]] = {}  # family -> label set -> its child (capped)
        # an Xid series' GPU (index, UUID) by PCI address, fixed at the address's first count: one series per GPU
        # and Xid code for the agent's life, whatever NVML says later (the GPU lost, the driver gone or back)
        self._xid_names: dict[str, tuple[str, str]] = {}
        self._xid_held: dict[tuple[str, ...], float] | None = None  # Xids held for NVML's first inventory (hold_xids)
        self.overflow = Counter("gpu_npd_series_overflow", "Increments folded into the `other` series because a "
                                "family reached max_series_per_family distinct label sets.", ["family"], registry=r)
        self.findings = Counter("gpu_npd_findings", "Findings recognised, by kind, severity and attribution.",
                                ["kind", "severity", "attribution"], registry=r)
        self.xid_errors = Counter("gpu_npd_xid_errors", "NVRM Xid errors seen, by Xid code and GPU "
                                  "(PCI address; NVML's index and UUID of it, fixed at its first Xid: empty "
                                  "where NVML had not named it by then).",
                                  ["xid", "pci_bus_id", "gpu", "uuid"], registry=r)
        self.unclassified = Counter("gpu_npd_unclassified_lines", "Driver lines with an error word that no rule "
                                    "recognised (kind unclassified), by driver: new formats to report.",
                                    ["driver"], registry=r)
        self.xid_policy_held = Counter("gpu_npd_xid_policy_held", "Xids the per-Xid policy (xid_policy) held back "
                                       "and raised nothing for, by Xid code and reason (below_threshold: fewer "
                                       "than `count` within `window_seconds`; ignored_after: `ignore_after` "
                                       "matched).", ["xid", "reason"], registry=r)
        self.self_caused = Counter("gpu_npd_self_caused_lines", "Kernel lines the agent's own reads caused (mlx5 "
                                   "ACCESS_REG failures after our InfiniBand counter reads): never a node problem.",
                                   ["kind", "pci_bus_id"], registry=r)
        self.ib_counters_disabled = Gauge("gpu_npd_ib_counters_disabled", "1 for an InfiniBand device whose counters "
                                          "the agent stopped reading because reading them made the device log "
                                          "errors (a function the fabric manager restricts).",
                                          ["device", "pci_bus_id"], registry=r)
        self.records = Counter("gpu_npd_source_records", "Records read, by source.", ["source"], registry=r)
        self.dropped = Counter("gpu_npd_source_dropped", "Records lost before they were read (kmsg ring overrun).",
                               ["source"], registry=r)
        self.restarts = Counter("gpu_npd_source_restarts", "Times a source was restarted after failing.",
                                ["source"], registry=r)
        self.internal_errors = Counter("gpu_npd_internal_errors", "Batches skipped because processing them raised "
                                       "(a bug: see the agent's log).", registry=r)
        self.coalesced = Counter("gpu_npd_coalesced_records", "Records counted as repeats of a finding already "
                                 "decided (counted in every counter; not decided again).", ["source"], registry=r)
        self.source_up = Gauge("gpu_npd_source_up", "1 when the source is running, 0 when down.", ["source"],
                               registry=r)
        self.queue_bytes = Gauge("gpu_npd_intake_queue_bytes", "Estimated memory held by records read and not "
                                 "yet processed: queued (bounded by queue_max_mb), and the rest of a big batch "
                                 "held between turns of the loop.", registry=r)
        self.queue_waits = Counter("gpu_npd_intake_waits", "Times a source waited for room in the intake queue "
                                   "(back-pressure: the pipeline is behind).", registry=r)
        self.self_cpu = Gauge("gpu_npd_self_cpu_percent", "Agent CPU use, percent of one core, 10 s average.",
                              registry=r)
        self.self_rss = Gauge("gpu_npd_self_resident_memory_bytes", "Agent resident memory.", registry=r)
        self.self_threads = Gauge("gpu_npd_self_threads", "Agent threads.", registry=r)
        self.self_files = Gauge("gpu_npd_self_open_files", "Agent open files.", registry=r)
        self.last_tick = Gauge("gpu_npd_engine_last_tick_timestamp_seconds",
                               "When the health engine last ran its housekeeping.", registry=r)
        self.workload_findings = Counter("gpu_npd_workload_findings", "NCCL / CUDA / distributed-training failures "
                                         "in container logs, by namespace and kind.",
                                         ["namespace", "kind"] + (["pod"] if pod_label else []), registry=r)
        self.workload_step_seconds = Gauge("gpu_npd_workload_step_seconds", "Time per training step of a pod, "
                                           "from its trainer's progress lines (printed, or derived from their "
                                           "spacing).", ["namespace", "pod", "job"], registry=r)
        self.workload_hang = Gauge("gpu_npd_workload_hang_suspected", "1 while a pod that was making progress has "
                                   "been silent past its allowance (WorkloadHangSuspected).",
                                   ["namespace", "pod", "job"], registry=r)
        self.refused = Counter("gpu_npd_source_refused_files", "Files a source would not open: not a regular file, "
                               "or a symlink leading outside the allowed log roots.", ["source"], registry=r)
        self.intake_lag = Gauge("gpu_npd_intake_lag_seconds", "How long the batch being processed waited between "
                                "its source and the health engine, the rest of a big batch held between turns "
                                "until it is processed (0 when nothing waits).", registry=r)
        self.forged = Counter("gpu_npd_forged_or_userspace", "Lines in a kernel-log file that read like a kernel "
                              "fault but were written by another program (syslog tag not `kernel`): never a "
                              "node problem.", ["source", "kind"], registry=r)
        self.state_write_errors = Counter("gpu_npd_state_write_errors", "State writes that failed (read-only or "
                                          "full state directory): detection goes on from memory.", registry=r)
        self.kube_writes = Counter("gpu_npd_kube_writes", "Kubernetes API writes, by kind (conditions, taints, events, annotations, devicetaintrules).",
                                   ["kind"], registry=r)
        self.kube_errors = Counter("gpu_npd_kube_errors", "Kubernetes API failures, by HTTP status or "
                                   "connection/timeout/conflict (those three at 0 from the Kubernetes writer's "
                                   "start).", ["kind"], registry=r)
        # registered only when the Kubernetes writer runs (enable_kube): no series in local mode or `mode: off`,
        # so "API writes failing" cannot pend on agents that never write
        self.kube_api_up = Gauge("gpu_npd_kube_api_up", "1 when the last Kubernetes sync succeeded.", registry=None)
        self._kube_api_up_exported = False
        self.taint_held = Gauge("gpu_npd_taint_held_by_budget", "1 while a taint is held back by the tainted-node "
                                "budget (its condition stands).", ["taint"], registry=r)
        self.check_runs = Counter("gpu_npd_check_runs", "Active check rule runs (NPD plugin protocol), by check "
                                  "(plugin config source) and result: OK, NonOK, Unknown, Skipped.",
                                  ["check", "result"], registry=r)
        self.check_duration = Gauge("gpu_npd_check_duration_seconds", "Wall time of the last run of a check's "
                                    "rules (the slowest rule of the run).", ["check"], registry=r)
        self.check_last_run = Gauge("gpu_npd_check_last_run_timestamp_seconds", "When a check last ran.",
                                    ["check"], registry=r)
        self.events_dropped = dropped_events()  # every Event recorder of the agent adds itself (agent/kube/nodeapi.py)
        r.register(self.events_dropped)
        Info("gpu_npd_build", "Build information.", registry=r).info({"version": version()})
        self._conditions: tuple[Condition, ...] = ()
        self._problems: tuple[Problem, ...] = ()
        self._readings: list[Reading] = []
        self._stats: dict = {}
        self._evictions: dict[str, Callable[[], int]] = {}  # cache name -> its eviction count, read at scrape
        self._scan_failures: list[Callable[[], int]] = []  # each multi-pattern scanner's failures, read at scrape
        r.register(_StateCollector(self))

    def count_evictions(self, cache: str, read: Callable[[], int]) -> None:
        """Export a bounded cache's evictions (entries forgotten to stay within its size) as
        gpu_npd_cache_evictions_total{cache}."""
        self._evictions[cache] = read

    def count_scan_failures(self, read: Callable[[], int]) -> None:
        """Export the scans a scanner's engine (hyperscan, RE2) raised on, each done without it instead (a buffer by
        `re`: parsers/prefilter.py `scan_failures`; a message's keywords one by one: parsers/classify.py
        `Dispatch.scan_failures`), in gpu_npd_scan_failures_total: 0 from the start."""
        self._scan_failures.append(read)

    # Counter totals survive restarts through the state file: bounded label sets (kinds, Xid x GPU).
    PERSISTED = ("findings", "xid_errors", "unclassified", "xid_policy_held")

    def ib_counters_off(self, device: str, pci: str) -> None:
        """The agent stopped reading this InfiniBand device's counters (agent/selfcaused.py)."""
        self.ib_counters_disabled.labels(device, pci).set(1)

    def set_kube_api_up(self, value: float) -> None:
        """The writer's view of the API; the series exists from the writer's first attempt on."""
        if not self._kube_api_up_exported:
            self.registry.register(self.kube_api_up)
            self._kube_api_up_exported = True
        self.kube_api_up.set(value)

    def totals(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for name in self.PERSISTED:
            for family in getattr(self, name).collect():
                out[name] = {"|".join(s.labels.values()): s.value
                             for s in family.samples if s.name.endswith("_total")}
        for labels, n in (self._xid_held or {}).items():  # (a stop before the first inventory: still counted)
            key = "|".join(labels)
            out["xid_errors"][key] = out["xid_errors"].get(key, 0) + n
        return out

    def count(self, name: str, labels: tuple[str, ...], value: float = 1.0) -> None:
        """Increment a counter whose labels come from input, within max_series distinct label sets: past
        that, into one `other` series (every label "other"), and the overflow is counted. Never lost."""
        children = self._series.setdefault(name, {})
        child = children.get(labels)
        if child is None:
            if len(children) >= self.max_series:
                self.overflow.labels(name).inc(value)
                labels = ("other",) * len(labels)
                child = children.get(labels)
            if child is None:
                child = children[labels] = getattr(self, name).labels(*labels)
        child.inc(value)

    def restore_totals(self, totals: dict[str, dict[str, float]], same_boot: bool = True) -> list[str]:
        """The counters' saved totals; an entry not of its type (a number; as many labels as the counter has) is
        dropped alone and its fault returned (keyspec.each).  Saved in this boot, a named Xid series fixes its GPU's
        names (the same GPU at that address); saved before a reboot, it does not: the GPU there may be another (a
        replaced board has another UUID; its Xids are a series of their own)."""
        faults: list[str] = []
        for name in self.PERSISTED:
            counter = getattr(self, name)
            for key, value in each(totals.get(name, {}), dict[str, float], f"totals.{name}", faults):
                labels = key.split("|")
                if len(labels) != len(counter._labelnames):
                    faults.append(str(Invalid(f"totals.{name}[{key[:60]!r}]",
                                              f"expected {len(counter._labelnames)} labels")))
                elif value > 0:  # (finite: keyspec refuses a float that is not)
                    if same_boot and name == "xid_errors" and labels[2] and len(self._xid_names) < self.max_series:
                        self._xid_names.setdefault(labels[1], (labels[2], labels[3]))  # the GPU's series goes on
                    self.count(name, tuple(labels), value)
        return faults

    def set_readings(self, readings: list[Reading], stats: dict) -> None:
        self._readings, self._stats = list(readings), dict(stats)

    def apply(self, snapshot: Snapshot) -> None:
        """The sink interface: conditions and problem counts are exported as the latest snapshot has them."""
        self._conditions, self._problems = snapshot.conditions, snapshot.problems

    def count_finding(self, labels: tuple, n: int = 1) -> None:
        """One finding (or `n` repeats of it) in every counter, by the labels its admission made (agent/pipeline.py
        `labels_of`): metrics only counts them."""
        finding_labels, driver, xid_labels = labels
        self.count("findings", finding_labels, n)
        if driver is not None:
            self.count("unclassified", (driver,), n)
        if xid_labels is not None:
            self._count_xid(xid_labels, n)

    def hold_xids(self) -> None:
        """NVML's first inventory is under way: an Xid on a GPU it has not named yet (the kernel log's backlog read
        at start) waits for it (name_xids), so that its series carries the GPU's index and UUID from the first."""
        self._xid_held = {}

    @property
    def holding_xids(self) -> bool:
        return self._xid_held is not None

    def name_xids(self, gpus: GpuMap) -> None:
        """NVML's first inventory concluded (named the GPUs, or failed: then they stay unnamed): the Xids held
        counted, with the names it gave their address."""
        held, self._xid_held = self._xid_held, None
        for (xid, pci, gpu, uuid), n in (held or {}).items():
            self._count_xid((xid, pci, gpu or gpus.index(pci) or "", uuid or gpus.uuid(pci) or ""), n)

    def _count_xid(self, labels: tuple[str, ...], n: float) -> None:
        xid, pci, gpu, uuid = labels
        names = self._xid_names.get(pci)
        if names is None:
            held = self._xid_held
            if held is not None and not gpu and (labels in held or len(held) < self.max_series):
                held[labels] = held.get(labels, 0) + n
                return
            names = (gpu, uuid)
            if len(self._xid_names) < self.max_series:
                self._xid_names[pci] = names
        self.count("xid_errors", (xid, pci, *names), n)


class _StateCollector:
    """Conditions and problem counts straight from the engine's last state (no stale reason series)."""

    def __init__(self, metrics: Metrics):
        self.metrics = metrics

    def describe(self):
        return []

    def collect(self):
        cond = GaugeMetricFamily("gpu_npd_node_condition", "Node condition status (1 = problem), with its reason.",
                                 labels=["condition", "reason"])
        for c in self.metrics._conditions:
            cond.add_metric([c.type, c.reason], 1.0 if c.status else 0.0)
        yield cond
        probs = GaugeMetricFamily("gpu_npd_problems", "Standing problems, by condition and severity.",
                                  labels=["condition", "severity"])
        counts: dict[tuple[str, str], int] = {}
        for p in self.metrics._problems:
            counts[(p.condition, p.severity)] = counts.get((p.condition, p.severity), 0) + 1
        for (c, s), n in sorted(counts.items()):
            probs.add_metric([c, s], n)
        yield probs
        yield from families(self.metrics._readings)
        yield info_family(self.metrics._readings, self.metrics.node, self.metrics.proc_root)
        ev = CounterMetricFamily("gpu_npd_cache_evictions", "Entries forgotten by a bounded per-input cache to stay "
                                 "within its size (pci->UUID maps, pid->pod map, the line memos, the "
                                 "workload rank sets): input cannot grow memory.",
                                 labels=["cache"])
        for cache, read in sorted(self.metrics._evictions.items()):
            ev.add_metric([cache], read())
        yield ev
        yield CounterMetricFamily("gpu_npd_scan_failures", "Buffers of pod logs, and messages' keyword scans, the "
                                  "multi-pattern scan engine (hyperscan or RE2) raised on, each scanned again by "
                                  "Python: nothing lost, the scan slower (the first error in the agent's log). "
                                  "Nonzero: report it.",
                                  value=sum(read() for read in self.metrics._scan_failures))
        stats = self.metrics._stats
        if stats:
            up = GaugeMetricFamily("gpu_npd_nvml_status", "NVML state: 1 for the current status (ok, or the NVML "
                                   "error that keeps it from starting, e.g. LIBRARY_NOT_FOUND on a host without GPUs).",
                                   labels=["status"])
            up.add_metric([stats["nvml_status"]], 1.0)
            yield up
            errs = CounterMetricFamily("gpu_npd_nvml_errors", "NVML calls that failed, by GPU and NVML error.",
                                       labels=["gpu", "error"])
            for (gpu, code), n in sorted(stats["nvml_errors"].items()):
                errs.add_metric([gpu, code], n)
            yield errs
            yield CounterMetricFamily("gpu_npd_nvml_timeouts", "NVML calls that missed their deadline.",
                                      value=stats["nvml_timeouts"])
            yield GaugeMetricFamily("gpu_npd_poll_duration_seconds", "Wall time of the last telemetry poll.",
                                    value=stats["duration"])
