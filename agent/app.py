"""The running agent: wires sources -> intake -> pipeline (parsers, health engine) -> sinks, nothing more.

Each stage is its own module: `supervisor` (which sources, kept running), `intake` (the bounded queue and
its lag), `pipeline` (classification -> findings -> engine -> sinks), `xidmerge` (one Xid from NVML and
kmsg counts once), `coalesce` (repeats counted without a new decision), `podlookup` (pid -> pod), `selfwatch`
(the agent's own footprint), `checkpoint` (state).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Callable

import psutil

from .checkpoint import Checkpoint
from .checks.scheduler import CheckScheduler, gpu_busy
from .checks.settings import plugin_configs
from .config import Config
from .gpu.collector import GpuCollector
from .gpu.nvml import open_backend
from .health import Change, HealthEngine
from .httpserver import serve
from .intake import Intake
from .metrics import Metrics
from .pipeline import Pipeline
from .podlookup import PodLookup
from .poller import Poller, watch_udev
from .samples import SampleJudge
from .selfcaused import CounterGuard
from .selfwatch import SelfWatch
from .sinks.stdout import StdoutSink
from .sources.kmsg import read_boot_id
from .sources.podlogs import PodLogSource, PodRef
from .supervisor import Supervisor, fabricmanager_source, select_sources
from .workloads import WorkloadTracker

__all__ = ["Agent", "select_sources"]
log = logging.getLogger("gpu_npd")


def boot_epoch() -> float:
    """Wall-clock time of this boot (kmsg stamps are seconds since it)."""
    try:
        with open("/proc/uptime", encoding="ascii") as fh:
            return time.time() - float(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return psutil.boot_time()


class Agent:
    def __init__(self, cfg: Config, clock: Callable[[], float] = time.time, out=None):
        self.cfg = cfg
        self.clock = clock
        self.stop = threading.Event()
        self.metrics = Metrics(cfg.workload_pod_label, cfg.max_series_per_family)
        self.boot_id = read_boot_id()
        self.boot_epoch = boot_epoch()
        self.engine = HealthEngine(cfg, clock)
        self.engine.boot_time = self.boot_epoch
        self.engine.boot_id = self.boot_id
        self.judge = SampleJudge(cfg.sample_rules, cfg.sample_ignore)
        self.intake = Intake(int(cfg.queue_max_mb * 2**20), self.stop, self.metrics)
        self.supervisor = Supervisor(self.metrics, self.intake.emit, self.stop)
        self.selfwatch = SelfWatch(self.metrics)
        self.stdout = StdoutSink(cfg.node_name, out)
        self.sinks = [self.stdout]
        self.server = None
        self.gpu = GpuCollector(open_backend(cfg.nvml), cfg.nvml_deadline_seconds, cfg.expected_gpus)
        self.guard = CounterGuard(cfg.ib_counter_selfcheck_seconds, cfg.ib_counter_selfcheck_repeats, clock,
                                  lambda device, pci: self.metrics.ib_counters_disabled.labels(device, pci).set(1))
        self.poller = Poller(self.gpu, cfg.sysfs_root, guard=self.guard)
        self.kube = self._kube_sink()
        if self.kube is not None:
            self.sinks.append(self.kube)
        self.podfaults = self._pod_fault_writer()
        if self.podfaults is not None:
            self.sinks.append(self.podfaults)
        self.pods = PodLookup(cfg.proc_root)
        self.metrics.count_evictions("pid_pod", lambda: self.pods.pids.evictions)
        self.workloads = WorkloadTracker(self._pod_event, self.metrics, cfg.workload_correlation_seconds,
                                         cfg.workload_pod_label, lambda: list(self.engine.problems.values()), clock)
        self.metrics.count_evictions("workload_jobs", lambda: self.workloads.evictions)
        self.pipeline = Pipeline(self.engine, self.judge, self.metrics, self.gpu, self.workloads, self.pods,
                                 self.sinks, self.boot_epoch, clock,
                                 check_severity=str(cfg.checks.get("severity") or "error"))
        self.metrics.count_evictions("decisions", lambda: self.pipeline.decisions.evictions)
        self.pipeline.guard = self.guard
        self.checks = self._check_scheduler()
        self.metrics.count_evictions("kernel_uuid",
                                     lambda: sum(c.uuid_evictions for c in list(self.pipeline.classifiers.values())))
        self.metrics.count_evictions("kernel_memo",
                                     lambda: sum(c.memo_evictions for c in list(self.pipeline.classifiers.values())))
        self.checkpoint = Checkpoint(cfg.state_dir, self.metrics, self._state)
        self._last_loop = time.monotonic()
        self._last_tick = 0.0
        self._udev = None

    @property
    def sources(self):
        return self.supervisor.sources

    def _kube_sink(self):
        if self.cfg.mode == "off":
            return None
        from kubeapi.client import make_api  # noqa: PLC0415 - the kubernetes client is heavy: only when used
        from .kube.sink import KubernetesSink  # noqa: PLC0415

        api = make_api(self.cfg.kube)
        if api is None:
            return None
        return KubernetesSink(api, self.cfg.node_name, self.cfg.kube, self.cfg.mode, lambda: self.engine.conditions,
                              self.metrics, self._on_node, problems=lambda: list(self.engine.problems.values()))

    def _pod_fault_writer(self):
        """Pods on a faulted GPU get the gpu-npd.io/GPUFault condition (opt-in; agent/kube/podfault.py)."""
        if self.kube is None or not self.cfg.kube.pod_fault_conditions:
            return None
        from kubeapi.events import Ref  # noqa: PLC0415
        from .kube.podfault import PodFaultWriter  # noqa: PLC0415

        kube = self.kube
        return PodFaultWriter(kube.api, self.cfg.node_name, self.cfg.kube, self.cfg.mode,
                              lambda: list(self.engine.problems.values()), self.metrics,
                              lambda ns, name, uid, reason, message, key: kube.record_event(
                                  Ref("Pod", name, ns, uid), reason, message, key))

    def _check_scheduler(self) -> CheckScheduler | None:
        """The active checks the `checks` block enables (none by default), run on their own thread; their
        results travel through the intake like every other input.  GPU-loading ones ask a separate NVML
        handle (never the poller's) whether a compute process is on a GPU."""
        configs = plugin_configs(self.cfg.checks, self.cfg.sysfs_root, self.cfg.nvml)
        if not configs:
            return None
        nvml = open_backend(self.cfg.nvml) if any(c.gpu_load for c in configs) else None
        return CheckScheduler(configs, self.intake.emit, busy=lambda: gpu_busy(nvml, self.cfg.nvml_deadline_seconds))

    def _on_node(self, node: dict) -> None:
        """First read of our Node: its nvidia.com/gpu capacity is the expected GPU count unless configured."""
        gpus = node.get("status", {}).get("capacity", {}).get("nvidia.com/gpu")
        if self.cfg.expected_gpus == 0 and gpus:
            try:
                self.gpu.expected_gpus = int(gpus)
            except ValueError:
                pass

    def _pod_event(self, ref: PodRef, reason: str, message: str, key: str) -> None:
        self.stdout.workload(ref, reason, message)
        if self.kube is not None:
            from kubeapi.events import Ref  # noqa: PLC0415
            self.kube.record_event(Ref("Pod", ref.pod, ref.namespace, ref.uid), reason, message, key)

    # ---- start / stop ----------------------------------------------------------------------------

    def _restore(self, state: dict) -> dict:
        try:
            self.engine.restore(state)
            self.pipeline.cursors = dict(state.get("cursors", {}))
            self.metrics.restore_totals(state.get("totals", {}))
            self.judge.restore(state.get("samples", {}))
            if state.get("boot_id") == self.boot_id:
                self.guard.restore(state.get("counter_guard"))
        except Exception as exc:  # noqa: BLE001 - values of the right shape but not usable: start fresh
            state = self.checkpoint.store.reject(f"cannot restore: {type(exc).__name__}: {exc}"[:200])
            self.engine = self.pipeline.engine = HealthEngine(self.cfg, self.clock)
            self.engine.boot_time = self.boot_epoch
            self.engine.boot_id = self.boot_id
            self.pipeline.cursors = {}
            self.judge = self.pipeline.judge = SampleJudge(self.cfg.sample_rules, self.cfg.sample_ignore)
        return state

    def start(self, serve_http: bool = True) -> None:
        state = self._restore(self.checkpoint.store.load())
        cursors = self.pipeline.cursors
        if state.get("boot_id") and state["boot_id"] != self.boot_id:
            log.info("new boot (%s -> %s): kernel-log problems cleared", state["boot_id"], self.boot_id)
            self.pipeline.apply(self.engine.new_boot())
            cursors.pop("kmsg", None)
            cursors.pop("journald", None)
        self.pipeline.publish()
        for cond in self.engine.conditions.values():
            if cond.status:
                self.pipeline.apply(Change(conditions=[cond]))  # say what stands, once, at start
        if self.kube is not None:
            self.kube.start()
        if self.podfaults is not None:
            self.podfaults.start()
        sources = select_sources(self.cfg, {"cursors": cursors}, self.boot_id)
        if not sources:
            self.supervisor.blind(self.cfg.kmsg)
        fm = fabricmanager_source(self.cfg, {"cursors": cursors})
        if fm is not None:
            sources.append(fm)
        if self.cfg.pod_logs_root and os.path.isdir(self.cfg.pod_logs_root):
            c = self.cfg
            self.pods.pod_source = PodLogSource(c.pod_logs_root, c.state_dir, c.workload_include_namespaces,
                                                c.workload_exclude_namespaces, c.workload_include_pods,
                                                c.workload_exclude_pods, c.workload_max_open_files,
                                                allowed_roots=c.workload_allowed_log_roots,
                                                gone_grace_seconds=c.source_gone_grace_seconds)
            sources.append(self.pods.pod_source)
            self.metrics.count_evictions("pod_uuid", self.pods.pod_source.uuid_evictions)
            self.metrics.count_evictions("pod_memo", self.pods.pod_source.memo_evictions)
        self.supervisor.start(sources)
        threading.Thread(target=self.poller.run, args=(self.intake.emit, self.stop, self.cfg.poll_seconds),
                         name="telemetry", daemon=True).start()
        threading.Thread(target=self.gpu.xid_events, args=(self.intake.nvml_xid, self.stop), name="nvml-xid",
                         daemon=True).start()
        if self.checks is not None:
            threading.Thread(target=self.checks.run, args=(self.stop,), name="checks", daemon=True).start()
            log.info("active checks: %s", ", ".join(c.source for c in self.checks.configs))
        if self.cfg.udev:
            self._udev = watch_udev(self.poller.wake)
        if serve_http:
            host, port = self.cfg.metrics_host_port
            self.server = serve(host, port, self.metrics.registry, self.health, self.liveness)
        self.pipeline.dirty = True

    def shutdown(self) -> None:
        self.stop.set()
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:  # what was already read is processed, not lost
            batch = self.intake.take_nowait()
            if batch is None:
                break
            self.pipeline.process(batch)
        self.save()
        if self.podfaults is not None:
            self.podfaults.close()
        if self.kube is not None:
            self.kube.close()
        if self.server is not None:
            self.server.shutdown()

    def run_forever(self) -> None:
        while not self.stop.is_set():
            self.step(timeout=min(0.2, self.cfg.tick_seconds))

    # ---- the loop ----------------------------------------------------------------------------------

    def step(self, timeout: float = 0.2) -> None:
        batch = self.intake.take(timeout)
        self.metrics.intake_lag.set(self.intake.lag)
        self.metrics.queue_bytes.set(self.intake.bytes)
        try:
            if batch:
                self.pipeline.process(batch)
            if time.monotonic() - self._last_tick >= self.cfg.tick_seconds:
                self._tick()
        except Exception:  # noqa: BLE001 - a bug on one input must not stop detection of the next
            log.exception("internal error while processing %s; the batch is skipped", type(batch).__name__)
            self.metrics.internal_errors.inc()
        self._last_loop = time.monotonic()

    def _tick(self) -> None:
        self._last_tick = time.monotonic()
        self.pipeline.apply(self.engine.tick())
        self.supervisor.refresh()
        self.supervisor.collect_counters()
        self.selfwatch.tick()
        self.metrics.last_tick.set(time.time())
        if self.pipeline.dirty:
            self.checkpoint.maybe_save(self.pipeline)

    def _state(self) -> dict:
        return {"boot_id": self.boot_id, "cursors": self.pipeline.cursors, "totals": self.metrics.totals(),
                "samples": self.judge.to_state(), "counter_guard": self.guard.to_state(), **self.engine.to_state()}

    def save(self) -> None:
        self.checkpoint.save(self.pipeline)

    # ---- health ------------------------------------------------------------------------------------

    def liveness(self) -> tuple[bool, str]:
        """/livez: only a stalled engine fails it (a restart cures that; it does not cure a missing source)."""
        stalled = time.monotonic() - self._last_loop
        if stalled > max(5.0, 5 * self.cfg.tick_seconds):
            return False, f"engine stalled for {stalled:.0f} s"
        return True, "ok"

    def health(self) -> tuple[bool, str]:
        """/healthz (readiness): the engine and every source."""
        problems = self.supervisor.problems()
        live, why = self.liveness()
        if not live:
            problems.append(why)
        lag = self.intake.lag
        if lag > self.cfg.intake_lag_seconds:
            problems.append(f"intake {lag:.0f} s behind (detection is late; see gpu_npd_intake_lag_seconds)")
        if problems:
            return False, "; ".join(problems)
        return True, f"ok ({self.supervisor.summary()})"
