"""The running agent: sources -> parsers -> health engine -> sinks, one way."""

from __future__ import annotations

import logging
import os
import queue
import random
import threading
import time
from collections import OrderedDict, deque
from datetime import datetime, timezone
from typing import Any, Callable

import psutil

from parsers import Classifier, Finding, detect

from .config import Config
from .gpu.collector import GpuCollector, annotate
from .gpu.nvml import open_backend
from .health import Change, HealthEngine
from .httpserver import serve
from .metrics import Metrics
from .poller import Poller, SampleBatch, watch_udev
from .samples import SampleJudge
from .sinks.stdout import StdoutSink
from .sources import Record, Source, SourceAbsent
from .sources.journald import JournaldSource
from .sources.kmsg import KmsgSource, read_boot_id
from .sources.logfile import LogFileSource
from .sources.podlogs import PodLogSource, PodRef, WorkloadFindings
from .pidmap import PidLookup
from .workloads import WorkloadTracker
from .state import StateStore

log = logging.getLogger("gpu_npd")
SAVE_EVERY = 1.0  # seconds between state writes while something changed
DEDUPE_KEYS = 4096  # recent record texts remembered for shedding duplicates
# syslog tags of the kernel's own lines; None: the envelope carries no tag (kmsg, dmesg, journalctl -k)
KERNEL_PROGRAMS = frozenset({None, "kernel"})
NO_KERNEL_LOG = "kernel-log"  # the source label reported down when no kernel log can be read at all
XID_MERGE_SECONDS = 10.0  # one Xid seen by both NVML events and the kernel log within this is one Xid


def boot_epoch() -> float:
    """Wall-clock time of this boot (kmsg stamps are seconds since it)."""
    try:
        with open("/proc/uptime", encoding="ascii") as fh:
            return time.time() - float(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return psutil.boot_time()


def readable(path: str) -> bool:
    """Can we really open it (dmesg_restrict makes /dev/kmsg refuse non-root at open, whatever its mode)?"""
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        return True
    except OSError:
        return False


def select_sources(cfg: Config, state: dict[str, Any], boot_id: str) -> list[Source]:
    """Defaults that just work: /dev/kmsg when readable, else log files, else journald."""
    cursors = state.get("cursors", {})
    sources: list[Source] = []
    kmsg_ok = bool(cfg.kmsg) and readable(cfg.kmsg)
    if kmsg_ok:
        sources.append(KmsgSource(cfg.kmsg, boot_id, cursors.get("kmsg")))
    elif cfg.kmsg:
        log.warning("kmsg source %s is not readable; falling back", cfg.kmsg)
    # the fallback follows the kernel's lines once: the first file of fallback_log_files that exists
    # (kern.log before syslog / messages, which hold the same lines again)
    fallback = next((p for p in cfg.fallback_log_files if os.path.exists(p)), None)
    files = list(cfg.log_files) or ([] if kmsg_ok or fallback is None else [fallback])
    if files:
        sources.append(LogFileSource(files, cfg.state_dir, cursors.get("files")))
    if cfg.journald or (cfg.journald is None and not sources):
        sources.append(JournaldSource(cursors.get("journald")))
    return sources


class Agent:
    def __init__(self, cfg: Config, clock: Callable[[], float] = time.time, out=None):
        self.cfg = cfg
        self.clock = clock
        self.stop = threading.Event()
        self.metrics = Metrics(cfg.workload_pod_label, cfg.max_series_per_family)
        self.engine = HealthEngine(cfg, clock)
        self.store = StateStore(cfg.state_dir)
        # (when enqueued, batch): the wait of the batch being processed is the intake lag
        self.queue: queue.Queue[tuple[float, list[Record] | SampleBatch]] = queue.Queue(maxsize=cfg.queue_batches)
        self.lag = 0.0
        self.stdout = StdoutSink(cfg.node_name, out)
        self.sinks = [self.stdout]
        self.boot_id = read_boot_id()
        self.boot_epoch = boot_epoch()
        self.engine.boot_time = self.boot_epoch
        self.engine.boot_id = self.boot_id
        self.classifiers: dict[str, Classifier] = {}
        self.cursors: dict[str, Any] = {}
        self.status: dict[str, str] = {}
        self._counted: dict[tuple[str, str], int] = {}
        self._dirty = False
        self._last_save = 0.0
        self._last_loop = time.monotonic()
        self._last_tick = 0.0
        self._proc = psutil.Process()
        self._cpu = deque(maxlen=10)
        self._shedding = False
        self._recent: OrderedDict[str, None] = OrderedDict()
        self.sources: list[Source] = []
        self.server = None
        self.gpu = GpuCollector(open_backend(cfg.nvml), cfg.nvml_deadline_seconds, cfg.expected_gpus)
        self.poller = Poller(self.gpu, cfg.sysfs_root)
        self.judge = SampleJudge(cfg.sample_rules, cfg.sample_ignore)
        self.kube = self._kube_sink()
        if self.kube is not None:
            self.sinks.append(self.kube)
        self.pod_source: PodLogSource | None = None
        self._pids = PidLookup(cfg.proc_root)
        self.metrics.count_evictions("pid_pod", lambda: self._pids.evictions)
        self.metrics.count_evictions("kernel_uuid",
                                     lambda: sum(c.uuid_evictions for c in list(self.classifiers.values())))
        self.workloads = WorkloadTracker(self._pod_event, self.metrics, cfg.workload_correlation_seconds,
                                         cfg.workload_pod_label, lambda: list(self.engine.problems.values()), clock)
        self._xid_seen: OrderedDict[tuple[str, int], tuple[float, str]] = OrderedDict()
        self._udev = None

    def _kube_sink(self):
        if self.cfg.mode == "off":
            return None
        from .kube.client import make_api  # noqa: PLC0415 - the kubernetes client is heavy: only when used
        from .kube.sink import KubernetesSink  # noqa: PLC0415

        api = make_api(self.cfg.kube)
        if api is None:
            return None
        return KubernetesSink(api, self.cfg.node_name, self.cfg.kube, self.cfg.mode, lambda: self.engine.conditions,
                              self.metrics, self._on_node, problems=lambda: list(self.engine.problems.values()))

    def _on_node(self, node: dict) -> None:
        """First read of our Node: its nvidia.com/gpu capacity is the expected GPU count unless configured."""
        gpus = node.get("status", {}).get("capacity", {}).get("nvidia.com/gpu")
        if self.cfg.expected_gpus == 0 and gpus:
            try:
                self.gpu.expected_gpus = int(gpus)
            except ValueError:
                pass

    # ---- start / stop ----------------------------------------------------------------------------

    def start(self, serve_http: bool = True) -> None:
        state = self.store.load()
        try:
            self.engine.restore(state)
            self.cursors = dict(state.get("cursors", {}))
            self.metrics.restore_totals(state.get("totals", {}))
            self.judge.restore(state.get("samples", {}))
        except Exception as exc:  # noqa: BLE001 - values of the right shape but not usable: start fresh
            state = self.store.reject(f"cannot restore: {type(exc).__name__}: {exc}"[:200])
            self.engine = HealthEngine(self.cfg, self.clock)
            self.engine.boot_time = self.boot_epoch
            self.engine.boot_id = self.boot_id
            self.cursors = {}
            self.judge = SampleJudge(self.cfg.sample_rules, self.cfg.sample_ignore)
        if state.get("boot_id") and state["boot_id"] != self.boot_id:
            log.info("new boot (%s -> %s): kernel-log problems cleared", state["boot_id"], self.boot_id)
            self._apply(self.engine.new_boot())
            self.cursors.pop("kmsg", None)
            self.cursors.pop("journald", None)
        self._publish()
        for cond in self.engine.conditions.values():
            if cond.status:
                self._apply(Change(conditions=[cond]))  # say what stands, once, at start
        if self.kube is not None:
            self.kube.start()
        self.sources = select_sources(self.cfg, {"cursors": self.cursors}, self.boot_id)
        if not self.sources:  # blind to the kernel: unhealthy, exported and alerted, not a quiet "ok"
            log.error("no readable kernel log source (kmsg %r, log files, journald): kernel faults on this node "
                      "go unseen; mount /dev/kmsg or /var/log into the pod and grant CAP_SYSLOG", self.cfg.kmsg)
            self.status[NO_KERNEL_LOG] = "down"
            self.metrics.source_up.labels(NO_KERNEL_LOG).set(0)
        if self.cfg.pod_logs_root and os.path.isdir(self.cfg.pod_logs_root):
            c = self.cfg
            self.pod_source = PodLogSource(c.pod_logs_root, c.state_dir, c.workload_include_namespaces,
                                           c.workload_exclude_namespaces, c.workload_include_pods,
                                           c.workload_exclude_pods, c.workload_max_open_files,
                                           allowed_roots=c.workload_allowed_log_roots)
            self.sources.append(self.pod_source)
            self.metrics.count_evictions("pod_uuid", self.pod_source.uuid_evictions)
        for src in self.sources:
            threading.Thread(target=self._supervise, args=(src,), name=f"source-{src.name}", daemon=True).start()
        threading.Thread(target=self.poller.run, args=(self._emit, self.stop, self.cfg.poll_seconds),
                         name="telemetry", daemon=True).start()
        threading.Thread(target=self.gpu.xid_events, args=(self._nvml_xid, self.stop), name="nvml-xid",
                         daemon=True).start()
        if self.cfg.udev:
            self._udev = watch_udev(self.poller.wake)
        if serve_http:
            host, port = self.cfg.metrics_host_port
            self.server = serve(host, port, self.metrics.registry, self.health, self.liveness)
        self._dirty = True

    def shutdown(self) -> None:
        self.stop.set()
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:  # what was already read is processed, not lost
            try:
                self._process(self.queue.get_nowait()[1])
            except queue.Empty:
                break
        self.save()
        if self.kube is not None:
            self.kube.close()
        if self.server is not None:
            self.server.shutdown()

    def run_forever(self) -> None:
        while not self.stop.is_set():
            self.step(timeout=min(0.2, self.cfg.tick_seconds))

    # ---- the pipeline ------------------------------------------------------------------------------

    def step(self, timeout: float = 0.2) -> None:
        try:
            enqueued, batch = self.queue.get(timeout=timeout)
            self.lag = time.monotonic() - enqueued
        except queue.Empty:
            batch, self.lag = None, 0.0
        self.metrics.intake_lag.set(self.lag)
        try:
            if batch:
                self._process(batch)
            if time.monotonic() - self._last_tick >= self.cfg.tick_seconds:
                self._tick()
        except Exception:  # noqa: BLE001 - a bug on one input must not stop detection of the next
            log.exception("internal error while processing %s; the batch is skipped", type(batch).__name__)
            self.metrics.internal_errors.inc()
        self._last_loop = time.monotonic()

    def _emit(self, batch: list[Record] | SampleBatch) -> None:
        while not self.stop.is_set():
            try:
                self.queue.put((time.monotonic(), batch), timeout=0.5)
                return
            except queue.Full:
                continue  # back-pressure: the source waits, nothing is dropped silently

    def _nvml_xid(self, pci: str, xid: int) -> None:
        """An Xid from NVML's event API travels as the kernel line it stands for (one classification path)."""
        self._emit([Record("nvml", f"NVRM: Xid (PCI:{pci}): {xid}, reported through NVML events")])

    def _process(self, batch: list[Record] | SampleBatch) -> None:
        if isinstance(batch, SampleBatch):
            self._judge(batch)
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
        for rec in batch:
            if self._shedding and self._duplicate(rec.line):
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
            self._observe(finding, name)
        if batch[-1].cursor is not None:  # sources that keep their own offsets leave it None
            self.cursors[name] = batch[-1].cursor
        self.metrics.records.labels(name).inc(len(batch))  # counted once processed: a test may wait on it
        self._dirty = True

    def _judge(self, batch: SampleBatch) -> None:
        now = self.clock()
        judged = {r.subject: self.judge.judge(r, now) for r in batch.readings}
        self._apply(self.engine.sync(batch.source, judged))
        self.judge.forget(set(judged))
        self.metrics.set_readings(batch.readings, batch.stats)
        self._dirty = True

    def _observe(self, f: Finding, source: str) -> None:
        if f.timestamp is None and f.uptime is not None:
            f.timestamp = datetime.fromtimestamp(self.boot_epoch + f.uptime, timezone.utc)
        annotate(f, self.gpu.pci_to_gpu)
        if f.kind == "xid" and f.xid is not None and self._same_xid(f, source):
            return
        pod = self._pod_of(f.pid) if f.kind == "xid" and f.pid is not None else None
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
        self._apply(self.engine.observe(f, "kernel"))

    def _same_xid(self, f: Finding, source: str) -> bool:
        """True when the other channel (NVML events vs kernel log) already reported this Xid."""
        key, now = (f.pci or "", f.xid or 0), time.monotonic()
        seen = self._xid_seen.get(key)
        if seen is not None and seen[1] != source and now - seen[0] <= XID_MERGE_SECONDS:
            del self._xid_seen[key]
            return True
        self._xid_seen[key] = (now, source)
        self._xid_seen.move_to_end(key)
        while len(self._xid_seen) > 1024:
            self._xid_seen.popitem(last=False)
        return False

    def _pod_of(self, pid: int) -> PodRef | None:
        """The pod a process runs in; pod names come from the pod log tree (no API call)."""
        if self.pod_source is None:
            return None
        hit = self._pids(pid)
        return self.pod_source.pods.get(hit[0]) if hit is not None else None

    def _pod_event(self, ref: PodRef, reason: str, message: str, key: str) -> None:
        self.stdout.workload(ref, reason, message)
        if self.kube is not None:
            from .kube.events import Ref  # noqa: PLC0415
            self.kube.record_event(Ref("Pod", ref.pod, ref.namespace, ref.uid), reason, message, key)

    def _apply(self, change: Change) -> None:
        if not change:
            return
        for p in change.new_problems:
            self.workloads.note_problem(p)
        self._publish()
        for sink in self.sinks:
            try:
                sink.apply(change)
            except Exception:  # a sink failing never stops detection
                log.exception("sink %s failed", type(sink).__name__)
        self._dirty = True

    def _publish(self) -> None:
        self.metrics.set_state(list(self.engine.conditions.values()), list(self.engine.problems.values()))

    def _duplicate(self, line: str) -> bool:
        key = detect(line).message if line[:1].isdigit() or line[:1] in "[<{" else line
        if key in self._recent:
            self._recent.move_to_end(key)
            return True
        self._recent[key] = None
        if len(self._recent) > DEDUPE_KEYS:
            self._recent.popitem(last=False)
        return False

    # ---- housekeeping --------------------------------------------------------------------------------

    def _tick(self) -> None:
        self._last_tick = time.monotonic()
        self._apply(self.engine.tick())
        for src in self.sources:  # counters sources keep themselves (records: those that hand on findings)
            counts = src.counters()
            for key, metric in (("dropped", self.metrics.dropped), ("records", self.metrics.records),
                                ("refused", self.metrics.refused)):
                delta = counts.get(key, 0) - self._counted.get((src.name, key), 0)
                if delta > 0:
                    metric.labels(src.name).inc(delta)
                    self._counted[(src.name, key)] = counts[key]
        self._watch_self()
        self.metrics.last_tick.set(time.time())
        if self._dirty and time.monotonic() - self._last_save >= SAVE_EVERY:
            self.save()

    def _watch_self(self) -> None:
        try:
            with self._proc.oneshot():
                self._cpu.append(self._proc.cpu_percent())
                rss = self._proc.memory_info().rss
                self.metrics.self_threads.set(self._proc.num_threads())
                self.metrics.self_files.set(len(self._proc.open_files()))
        except psutil.Error:
            return
        cpu = sum(self._cpu) / len(self._cpu)
        self.metrics.self_cpu.set(cpu)
        self.metrics.self_rss.set(rss)
        shedding = rss > self.cfg.shed_rss_mb * 2**20 or cpu > self.cfg.shed_cpu_percent
        if shedding != self._shedding:
            log.warning("%s shedding duplicate records (cpu %.0f%%, rss %d MiB)",
                        "start" if shedding else "stop", cpu, rss >> 20)
            self._shedding = shedding
            self.metrics.shedding.set(1 if shedding else 0)

    def save(self) -> None:
        try:
            self.store.save({"boot_id": self.boot_id, "cursors": self.cursors, "totals": self.metrics.totals(),
                             "samples": self.judge.to_state(), **self.engine.to_state()})
        except OSError as exc:  # read-only or full: every source keeps running from memory; alerted
            self.metrics.state_write_errors.inc()
            log.error("cannot write state to %s: %s; detection goes on from memory, but a restart would "
                      "re-read and lose standing conditions: make the state directory writable", self.store.path, exc)
            return
        self._dirty = False
        self._last_save = time.monotonic()

    # ---- supervision and health ----------------------------------------------------------------------

    def _supervise(self, src: Source) -> None:
        backoff = 1.0
        while not self.stop.is_set():
            self.status[src.name] = "up"
            self.metrics.source_up.labels(src.name).set(1)
            try:
                src.run(self._emit, self.stop)
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

    def liveness(self) -> tuple[bool, str]:
        """/livez: only a stalled engine fails it (a restart cures that; it does not cure a missing source)."""
        stalled = time.monotonic() - self._last_loop
        if stalled > max(5.0, 5 * self.cfg.tick_seconds):
            return False, f"engine stalled for {stalled:.0f} s"
        return True, "ok"

    def health(self) -> tuple[bool, str]:
        """/healthz (readiness): the engine and every source."""
        problems = [f"source {n} is down" for n, s in self.status.items() if s == "down"]
        live, why = self.liveness()
        if not live:
            problems.append(why)
        if self.lag > self.cfg.intake_lag_seconds:
            problems.append(f"intake {self.lag:.0f} s behind (detection is late; see gpu_npd_intake_lag_seconds)")
        if problems:
            return False, "; ".join(problems)
        up = ", ".join(f"{n}={s}" for n, s in sorted(self.status.items())) or "no sources"
        return True, f"ok ({up})"
