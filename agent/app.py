"""The running agent: one factory (`build`) from config to an agent; `start` runs it.

The record path, one direction (docs/architecture.md): sources -> `intake` (bounded queue, lag) -> `pipeline`
(classify -> admission -> `coalesce` -> `health` engine -> one snapshot) -> sinks (`workloads`, `metrics`,
`sinks.stdout`, `kube.sink`).  `intake` also picks the sources and keeps them running (`Supervisor`).  Beside the
path: `poller` (telemetry), `checks` (active checks), `checkpoint` (state), `selfwatch` (the agent's own footprint).
"""

from __future__ import annotations

import functools
import logging
import math
import os
import threading
import time
from typing import TYPE_CHECKING, Any, Callable

import psutil

from parsers import Prefilter, keyword_prefilter
from parsers.model import Boot, Change, Record, WorkloadFindings

from .checkpoint import Checkpoint, Section
from .checks.scheduler import CheckScheduler, gpu_busy
from .checks.settings import plugin_configs
from .config import Config
from .gpu.collector import GpuCollector
from .gpu.nvml import answer_of, ask_users, open_backend, pids_on
from .health import HealthEngine
from .httpserver import serve
from .intake import Intake, Supervisor, fabricmanager_source, imex_source, select_sources, weight
from .keyspec import dropped
from .metrics import Metrics
from .pipeline import Pipeline
from .podlookup import PodLookup
from .pidmap import running_pods
from .poller import Poller, watch_udev
from .samples import SampleJudge
from .selfcaused import CounterGuard
from .selfwatch import SelfWatch
from .sinks import enabled as enabled_sinks
from .sources import SLICE
from .sinks.stdout import StdoutSink
from .sources.kmsg import read_boot_id
from .state import StateStore
from .workloads import WorkloadTracker

if TYPE_CHECKING:  # types only: each is loaded where the configuration asks for it (issue 24's idle footprint)
    from .peers import PeerOutliers
    from .progress import ProgressTracker

__all__ = ["Agent", "build", "select_sources"]
# SIGTERM exits within 2 s whatever the backlog (docs/index.md): the batch in hand, this long processing what
# is queued (the rest is re-read from the saved cursor), then the state written and the threads stopped
DRAIN_SECONDS = 0.5
# and then waits up to this long in all for its own threads to end (the Xid thread's NVML wait is 1 s, begun before
# the stop and mostly run out during the drain; a poll stuck in an NVML call is not waited for)
JOIN_SECONDS = 1.0
# a turn of the loop processes a big batch of records (a log file's 64 KiB of lines took 30-61 ms, 242 ms seen) in
# slices until this long, the rest in the next turns, so that its tick and the other inputs are not held meanwhile
TURN_SECONDS = 0.01
# the state file's section of the pod log source's offsets (agent/checkpoint.py Section); the file of their own that an
# earlier agent kept them in, read when the state has none (an upgrade), and removed once the state holds them
POD_LOGS, LEGACY_POD_LOGS = "pod_logs", "podlogs.json"
RELEASE_FILE = "release-nvml"  # in state_dir: while it exists the agent holds no NVML (docs/nvml.md)
log = logging.getLogger("gpu_npd")


def boot_epoch() -> float:
    """Wall-clock time of this boot (kmsg stamps are seconds since it)."""
    try:
        with open("/proc/uptime", encoding="ascii") as fh:
            return time.time() - float(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return psutil.boot_time()


def read_boot() -> Boot:
    """This boot's facts, read once."""
    return Boot(read_boot_id(), boot_epoch())


def _memory(cfg: Config, clock: Callable[[], float], boot: Boot, metrics: Metrics, state: dict) -> tuple:
    """What the agent remembers, built from the saved state: (engine, sample judge, counter guard, cursors, the
    faults of the saved entries dropped)."""
    engine = HealthEngine(cfg, clock, boot)
    faults = engine.restore(state)
    judge = SampleJudge(cfg.sample_rules, cfg.sample_ignore, boot.epoch or 0.0, cfg.boot_grace_seconds)
    faults += judge.restore(state.get("samples", {}))
    judge.adopt(engine.problems.values())  # what stands of the rules' verdicts: a partial first reading keeps it
    guard = CounterGuard(cfg.ib_counter_selfcheck_seconds, cfg.ib_counter_selfcheck_repeats, clock,
                         metrics.ib_counters_off)
    if _same_boot(state, boot):
        faults += guard.restore(state.get("counter_guard"))
    cursors = dict(state.get("cursors", {}))
    if _rebooted(state, boot):
        cursors.pop("kmsg", None)  # a new boot: the kernel's sequence numbers start again
        cursors.pop("journald", None)
    faults += metrics.restore_totals(state.get("totals", {}), _same_boot(state, boot))
    return engine, judge, guard, cursors, faults


def _same_boot(state: dict, boot: Boot) -> bool:
    """The saved state is of this boot: what holds only within one (a monotonic clock's times, what mlx5 did) holds."""
    return state.get("boot_id") == boot.id


def _rebooted(state: dict, boot: Boot) -> bool:
    """The saved state is of an earlier boot: what was learned from the kernel log is history."""
    return bool(state.get("boot_id")) and state["boot_id"] != boot.id


def _kube_sink(cfg: Config, metrics: Metrics, emit: Callable[[Any], None]):
    if cfg.mode == "off":
        named = cfg.kube.api_server or cfg.kube.kubeconfig
        if named:  # `make run ARGS=--kubeconfig=...` without MODE=: the cluster named is not written to, and says so
            log.info("Kubernetes: mode off: nothing written to %s (mode observe or enforce writes)", named)
        return None
    from kubeapi.client import make_api  # noqa: PLC0415 - the kubernetes client is heavy: only when used

    api = make_api(cfg.kube, implicit_kubeconfig=False)  # outside a pod: only a named kubeconfig
    if api is None:
        return None
    from .kube.sink import KubernetesSink  # noqa: PLC0415 - the writers: only with a cluster to write to

    return KubernetesSink(api, cfg.node_name, cfg.kube, cfg.mode, metrics, emit)


def build(cfg: Config, clock: Callable[[], float] = time.time, out=None, boot: Boot | None = None,
          prefilter: Prefilter | None = None) -> Agent:
    """The one factory from config to an agent: boot facts read once, the saved state restored before the engine
    is built (a state that cannot be restored is moved aside and the agent starts fresh), then every stage is
    built once, each handed what it needs.  Nothing runs until `Agent.start`.  `prefilter`: the kernel records'
    keyword test, its regex compiled already (`gpu-npd run` compiles it before it imports this module), else compiled
    here, first (a process compiles it at the first line it looks at: a short `gpu-npd parse` pays only for what it
    reads; compiled at an idle node's first kernel line, what compiling it holds for a moment, ~1.6 MiB, stayed in the
    agent's heap for good)."""
    prefilter = prefilter if prefilter is not None else keyword_prefilter().compile()
    boot = boot if boot is not None else read_boot()
    metrics = Metrics(cfg.workload_pod_label, cfg.max_series_per_family, cfg.node_name, cfg.proc_root)
    store = StateStore(cfg.state_dir)
    state = store.load()
    try:
        engine, judge, guard, cursors, faults = _memory(cfg, clock, boot, metrics, state)
    except Exception as exc:  # noqa: BLE001 - values of the right shape but not usable: start fresh
        state = store.reject(f"cannot restore: {type(exc).__name__}: {exc}"[:200])
        engine, judge, guard, cursors, faults = _memory(cfg, clock, boot, metrics, state)
    stop = threading.Event()
    intake = Intake(int(cfg.queue_max_mb * 2**20), stop, metrics)
    gpu = GpuCollector(open_backend(cfg.nvml, cfg.proc_root, fresh=True), cfg.nvml_deadline_seconds,
                       cfg.expected_gpus, release_file=os.path.join(cfg.state_dir, RELEASE_FILE), proc_root=cfg.proc_root)
    workloads = WorkloadTracker(metrics, cfg.workload_correlation_seconds, cfg.workload_pod_label, clock)
    kube = _kube_sink(cfg, metrics, intake.emit)
    pods = PodLookup(cfg.proc_root)
    writers = [w for w in (_pod_fault_writer(cfg, kube, metrics), _straggler_events(cfg, kube, metrics, pods, gpu))
               if w is not None]  # sinks with writer threads of their own
    optional = enabled_sinks(cfg.sinks, cfg.node_name)  # the `sinks` block's enabled rows (agent/sinks/__init__.py)
    writers += [s for s in optional if hasattr(s, "start")]
    stdout = StdoutSink(cfg.node_name, out)
    sinks = [workloads, metrics, stdout] + ([kube] if kube is not None else []) + writers \
        + [s for s in optional if not hasattr(s, "start")]
    pod_logs = follows_pod_logs(cfg)  # decided once: the tracker and the pod log source come and go together
    progress = _progress(cfg, metrics, clock) if pod_logs else None
    # the tracker's times are the monotonic clock's, which starts again at a boot: an earlier boot's pods are history
    saved_progress = state.get("progress", {}) if _same_boot(state, boot) else {}
    devices = None
    if progress is not None:
        devices = _pod_devices(cfg, kube, metrics, pods, gpu, progress)
        if devices is not None:
            progress.devices = devices
            writers.append(devices)  # a thread of its own, started and closed with the writers (not a sink)
        faults += progress.restore(saved_progress)
    offsets = _pod_offsets(cfg, state, pod_logs, faults) if cfg.state_dir else {}
    dropped(f"state file {store.path}", faults)  # each restore drops a bad entry alone: said once, however many
    pipeline = Pipeline(engine, judge, metrics, gpu, workloads, pods, sinks, boot, clock, guard, cursors,
                        str(cfg.checks.get("severity") or "error"), cfg.expected_gpus, progress, _peers(cfg),
                        prefilter, kept={"progress": saved_progress} if progress is None else None, pod_devices=devices)
    workloads.gpu_users = _gpu_users(cfg, pods, gpu, lambda: pipeline.pod_devices)
    for cache, owner in (("pid_pod", pods.pids), ("workload_jobs", workloads), ("decisions", pipeline.coalescer),
                         ("progress_pods", progress)):
        if owner is not None:
            metrics.count_evictions(cache, functools.partial(getattr, owner, "evictions"))
    metrics.count_evictions("kernel_uuid", functools.partial(pipeline.classifier_evictions, "uuid_evictions"))
    metrics.count_evictions("kernel_memo", functools.partial(pipeline.classifier_evictions, "memo_evictions"))
    metrics.count_scan_failures(pipeline.scan_failures)
    poller = Poller(gpu, cfg.sysfs_root, guard=guard, expected_nics=cfg.expected_nics)
    sections = {POD_LOGS: Section(store.path, offsets)} if cfg.state_dir else {}
    legacy = os.path.join(cfg.state_dir, LEGACY_POD_LOGS) if cfg.state_dir else ""
    agent = Agent(cfg, boot, stop, intake, pipeline, poller, kube, Checkpoint(store, metrics, sections),
                  _check_scheduler(cfg, intake, gpu), rebooted=_rebooted(state, boot), writers=writers,
                  pod_logs=pod_logs,
                  legacy=legacy if os.path.exists(legacy) and (pod_logs or isinstance(state.get(POD_LOGS), dict))
                  else None)
    stdout.on_closed = agent.request_stop  # `gpu-npd run | head -1`: the reader gone, the agent ends as on SIGTERM
    return agent


def _pod_offsets(cfg: Config, state: dict, pod_logs: bool, faults: list[str]) -> dict:
    """The pod log source's offsets as saved with the state (its POD_LOGS section: kept as read while pod logs are not
    followed; one not an object is dropped alone, its fault added to `faults`, the rest of the state restored); an
    earlier agent's, which kept them in a file of their own (LEGACY_POD_LOGS), read from it."""
    saved = state.get(POD_LOGS)
    if isinstance(saved, dict):
        return saved
    if saved is not None:
        faults.append(f"{POD_LOGS}: expected an object, got {type(saved).__name__}")
        return {}
    return StateStore(cfg.state_dir, LEGACY_POD_LOGS).load() if pod_logs else {}


def _progress(cfg: Config, metrics: Metrics, clock: Callable[[], float]) -> ProgressTracker:
    """The hang tracker (agent/progress.py; with it agent/peers.py and agent/podresources): built only
    when pod logs are followed, its only input (progress marks); without them the state file's `progress` section
    is written back as read (Pipeline.kept)."""
    from .progress import ProgressTracker  # noqa: PLC0415 - issue 24's idle footprint (test_idle_footprint.py)

    # the tracker measures silences only (never a time of day): on the wall clock an NTP step or a VM's clock set
    # forward past the allowance read as every tracked pod silent that long at once (a burst of false hang Events)
    return ProgressTracker(metrics, cfg.workload_hang, time.monotonic if clock is time.time else clock,
                           alive=functools.partial(running_pods, cfg.proc_root))


def _pod_fault_writer(cfg: Config, kube, metrics: Metrics):
    """Pods on a faulted GPU get the gpu-npd.io/GPUFault condition (opt-in; agent/kube/podfault.py)."""
    if kube is None or not cfg.kube.pod_fault_conditions:
        return None
    from .kube.podfault import PodFaultWriter  # noqa: PLC0415

    return PodFaultWriter(kube.n.api, cfg.node_name, cfg.kube, cfg.mode, metrics)


def _straggler_events(cfg: Config, kube, metrics: Metrics, pods: PodLookup, gpu: GpuCollector):
    """Pods using a straggling GPU or rail get a Pod Event naming it (agent/kube/stragglers.py), when the
    peer-outlier test runs and the agent writes to a cluster."""
    if kube is None or not cfg.peer_outliers.enabled:
        return None
    from .kube.stragglers import StragglerEvents  # noqa: PLC0415
    from .peers import REASON as STRAGGLER  # noqa: PLC0415

    own = _OwnNvml(cfg, pods)  # (this runs on the writer's thread)

    def compute_pods(p) -> set[tuple[str, str]]:
        """The kubelet silent: the pods of the GPU's compute processes (pid -> cgroup -> the pod log tree)."""
        index = p.details.get("gpu_index")
        if index is None or pods.pod_source is None or gpu.status == "released":  # a reset wants NVML let go
            return set()
        return {(r.namespace, r.pod) for r in own.pods_on(int(index))}

    return StragglerEvents(kube.n.api, cfg.node_name, cfg.kube, STRAGGLER, metrics, fallback=compute_pods)


class _OwnNvml:
    """An NVML handle of its own, never the poller's (opened at its first question), and a pid -> pod cache of its own
    over the pod log tree: what a stage asking NVML on its own thread (the straggler Events' writer, the pod device
    cache, the busy Events' questions) asks through, each question a session of its own within the NVML deadline
    (agent/gpu/nvml.py)."""

    def __init__(self, cfg: Config, pods: PodLookup | None = None) -> None:
        self.spec, self.proc_root, self.deadline = cfg.nvml, cfg.proc_root, cfg.nvml_deadline_seconds
        self.pods, self.lookup = pods, PodLookup(cfg.proc_root)  # (pods None: a stage that asks for no pod)
        self._nvml: list = []

    @property
    def nvml(self):
        if not self._nvml:
            self._nvml.append(open_backend(self.spec, self.proc_root))
        return self._nvml[0]

    def pod(self, pid: int):
        """The running pod of `pid` (by its cgroup, in the pod log tree as it stands), else None."""
        self.lookup.pod_source = self.pods.pod_source
        return self.lookup(pid)

    def pods_on(self, index: int) -> list:
        """The pods of GPU `index`'s compute processes (none where NVML cannot say within its deadline)."""
        return [r for r in map(self.pod, pids_on(self.nvml, index, self.deadline) or []) if r is not None]


def _gpu_users(cfg: Config, pods: PodLookup, gpu: GpuCollector, devices: Callable[[], object]):
    """Who holds a busy pod's GPUs (agent/workloads.py `Users`), asked when a PodGPUBusy Event is made, never per line:
    the GPUs the kubelet says the pod holds (`devices()`: the pipeline's PodResources cache), each one's compute mode
    and compute pids through a handle of its own (`ask_users`: one session, begun on its helper thread, never waited
    for on the agent's loop), each pid's pod by its cgroup (a pid no running pod owns: None); else why they cannot be
    named.  Where NVML is asked, the answer to come (`answer_of`, within the NVML deadline: None until then), which
    the tracker reads each tick (WorkloadTracker.answered)."""
    own = _OwnNvml(cfg, pods)

    def users(ref):
        if gpu.status == "off":
            return ask_users(None, [])
        if gpu.status == "released":  # a reset wants NVML let go
            return "NVML is released for a GPU reset"
        if gpu.status != "ok":  # starting, or its init failing: no inventory to find the pod's GPUs in
            return f"the agent's NVML has not named the GPUs ({gpu.status})"
        cache = devices()
        owned = cache(ref) if cache is not None else None
        gpus = owned.kubelet_gpus if owned is not None else frozenset()
        if not gpus:
            return "the kubelet has not said which GPUs the pod holds"
        held = [(g.ident.index, g.labels["pci_bus_id"]) for g in list(gpu.gpus)
                if gpu.gpu_map.names(g.labels["pci_bus_id"]) & gpus]
        if not held:
            return f"NVML names none of the pod's GPUs ({', '.join(sorted(gpus))})"
        asked: list = []  # the call, once begun (or why it is not): another job's question in flight waits its turn

        def begun() -> bool:
            if not asked:
                call = ask_users(own.nvml, [i for i, _ in held], own.deadline)
                if call is None:  # (an earlier question within its deadline: asked at a later tick)
                    return False
                asked.append(call)
            return True

        def answer():
            if not begun():
                return None
            found = asked[0] if isinstance(asked[0], str) else answer_of(asked[0], own.deadline)
            if found is None or isinstance(found, str):
                return found
            return [(i, pci, found[i][0], [(pid, own.pod(pid)) for pid in found[i][1]]) for i, pci in held]
        return asked[0] if begun() and isinstance(asked[0], str) else answer

    return users


def follows_pod_logs(cfg: Config) -> bool:
    """Pod logs are followed: `pod_logs_root` is set and, at start, a directory (else a node without pods)."""
    return bool(cfg.pod_logs_root) and os.path.isdir(cfg.pod_logs_root)


def _pod_devices(cfg: Config, kube, metrics: Metrics, pods: PodLookup, gpu: GpuCollector, progress: ProgressTracker):
    """The pods' GPUs and rails for the hang verdict (agent/kube/poddevices.py): the kubelet's PodResources answer,
    asked on a thread of its own while pods are tracked; the kubelet silent, the pods of each GPU's compute
    processes (a handle of its own, nothing asked while NVML is released)."""
    if not cfg.workload_hang.enabled:  # (no tracker without pod logs: build asks only with one)
        # no verdict: the cache is never asked, so no thread of its own and no kubelet client loaded
        return None
    from .kube.poddevices import PodDeviceCache  # noqa: PLC0415
    from .podresources import Owned  # noqa: PLC0415

    own = _OwnNvml(cfg, pods)  # (this runs on the cache's thread)

    def compute_pods() -> dict[tuple[str, str], Owned]:
        if pods.pod_source is None or gpu.status != "ok":  # released: a reset wants NVML let go
            return {}
        found: dict[tuple[str, str], set[str]] = {}
        gpus = gpu.gpu_map  # the inventory's names of each GPU (UUID lower-cased, PCI address)
        for g in list(gpu.gpus):
            for ref in own.pods_on(g.ident.index):
                found.setdefault((ref.namespace, ref.pod), set()).update(gpus.names(g.labels["pci_bus_id"]))
        return {pod: Owned(frozenset(keys), frozenset(), "its compute processes") for pod, keys in found.items()}

    return PodDeviceCache(kube.n.api if kube is not None else None, cfg.node_name, cfg.kube,
                          cfg.workload_hang.device_refresh_seconds, metrics,
                          fallback=compute_pods if cfg.nvml != "off" else None, wanted=lambda: bool(progress.pods))


def _peers(cfg: Config) -> PeerOutliers | None:
    """The peer-outlier test when the `peer_outliers` block enables it."""
    s = cfg.peer_outliers
    if not s.enabled:
        return None
    from .peers import PeerOutliers  # noqa: PLC0415 - off by default (issue 24's idle footprint)

    return PeerOutliers(s.k, s.polls, s.min_peers)


def _check_scheduler(cfg: Config, intake: Intake, gpu: GpuCollector) -> CheckScheduler | None:
    """The active checks the `checks` block enables (none by default), run on their own thread; their
    results travel through the intake like every other input.  GPU-loading ones ask a separate NVML
    handle (never the poller's: `_OwnNvml`, opened at their first question, on the checks' thread) whether a compute
    process is on a GPU."""
    configs = plugin_configs(cfg.checks, cfg.sysfs_root, cfg.nvml, cfg.proc_root)
    if not configs:
        return None
    own = _OwnNvml(cfg) if any(c.gpu_load for c in configs) else None

    def busy() -> str | None:  # nothing is asked of NVML while the agent has released it (a GPU reset)
        if gpu.status == "released":
            return "nvml: released"
        return gpu_busy(own.nvml, own.deadline) if own is not None else None
    return CheckScheduler(configs, intake.emit, busy=busy)


class Agent:
    """A built agent (see `build`): `start` runs its threads, `step` is one turn of its loop."""

    def __init__(self, cfg: Config, boot: Boot, stop: threading.Event, intake: Intake, pipeline: Pipeline,
                 poller: Poller, kube, checkpoint: Checkpoint, checks: CheckScheduler | None, rebooted: bool = False,
                 writers=(), pod_logs: bool = False, legacy: str | None = None):
        self.cfg, self.boot, self.stop, self.intake, self.pipeline = cfg, boot, stop, intake, pipeline
        self.poller, self.kube, self.checkpoint, self.checks = poller, kube, checkpoint, checks
        self.metrics, self.engine, self.gpu, self.pods = pipeline.metrics, pipeline.engine, pipeline.gpu, pipeline.pods
        self.rebooted = rebooted
        self.pod_logs = pod_logs  # pod logs followed (build's follows_pod_logs, with the tracker built for them)
        self.legacy = legacy  # an earlier agent's LEGACY_POD_LOGS, its offsets now in the state's POD_LOGS section
        # threads of their own: sinks (agent/kube/podfault.py, stragglers.py), the pod -> device cache
        self.writers = list(writers)
        self.supervisor = Supervisor(self.metrics, intake.emit, stop)
        self.selfwatch = SelfWatch(self.metrics)
        self.server = None
        self._last_loop = time.monotonic()
        self._last_tick = 0.0
        self._udev = None
        self._threads: list[threading.Thread] = []  # start()'s own: telemetry, nvml-xid, checks
        self.held = Held(pipeline)  # a batch begun and not finished: the loop, the drain, the gauge and the lag read it

    @property
    def sources(self):
        return self.supervisor.sources

    # ---- start / stop ----------------------------------------------------------------------------

    def start(self, serve_http: bool = True) -> None:
        change = Change()
        if self.rebooted:
            log.info("new boot (now %s): kernel-log problems cleared", self.boot.id)
            change = self.engine.new_boot()
        change.conditions += [c for c in self.engine.conditions.values() if c.status and c not in change.conditions]
        self.pipeline.publish(change, always=True)  # say what stands, once, at start
        if self.legacy is not None and self.save():
            _remove_legacy(self.legacy)
        if self.kube is not None:
            self.kube.start()
        for w in self.writers:
            w.start()
        cfg, cursors = self.cfg, self.pipeline.cursors
        sources = select_sources(cfg, {"cursors": cursors}, self.boot.id)
        if not sources:
            self.supervisor.blind(cfg.kmsg)
        for daemon_log in (fabricmanager_source(cfg, {"cursors": cursors}), imex_source(cfg, {"cursors": cursors})):
            if daemon_log is not None:
                sources.append(daemon_log)
        if self.pod_logs:
            # imported here: the pod log reader brings the job facts' readers (the `triage` package, statistics)
            # that a node without pod logs never uses (issue 24's idle footprint, tests/agent/test_idle_footprint.py)
            from .sources.podlogs import PodLogSource  # noqa: PLC0415

            section = self.checkpoint.sections.get(POD_LOGS)  # its offsets saved with the state, in one write
            pods = self.pods.pod_source = PodLogSource(
                cfg.pod_logs_root, section,
                cfg.workload_include_namespaces, cfg.workload_exclude_namespaces, cfg.workload_include_pods,
                cfg.workload_exclude_pods, cfg.workload_max_open_files, allowed_roots=cfg.workload_allowed_log_roots,
                gone_grace_seconds=cfg.source_gone_grace_seconds)
            if section is not None:
                section.flush = pods.save  # each state write takes the offsets safe then
            sources.append(pods)
            self.metrics.count_evictions("pod_uuid", pods.uuid_evictions)
            self.metrics.count_evictions("pod_memo", pods.memo_evictions)
            self.metrics.count_scan_failures(pods.scan_failures)
        self.supervisor.start(sources)
        self._threads = [
            threading.Thread(target=self.poller.run, args=(self.intake.emit, self.stop, cfg.poll_seconds),
                             name="telemetry", daemon=True),
            threading.Thread(target=self.gpu.xid_events, args=(self.intake.nvml_xid, self.stop), name="nvml-xid",
                             daemon=True)]
        if self.checks is not None:
            self._threads.append(threading.Thread(target=self.checks.run, args=(self.stop,), name="checks",
                                                  daemon=True))
        for t in self._threads:
            t.start()
        if self.checks is not None:
            log.info("active checks: %s", ", ".join(c.source for c in self.checks.configs))
        if cfg.udev:
            self._udev = watch_udev(self.poller.wake)
        if serve_http:
            host, port = cfg.metrics_host_port
            self.server = serve(host, port, self.metrics.registry, self.health, self.liveness)
        self.pipeline.dirty = True

    def request_stop(self) -> None:
        """Stop now (SIGTERM, Ctrl-C): the loop's wait for input on the intake (up to a tick) and a source's wait for
        room in it end at once."""
        self.stop.set()
        self.intake.wake()

    def shutdown(self) -> bool:
        """Process what is queued (`_drain`), save the state, end the writers, the server and the threads. Whether
        every step ended well: a step that raises (a bug on one input in the drain, say) is logged in one line and
        counted (gpu_npd_internal_errors_total), a save that cannot write says so itself (the state: an error line
        and gpu_npd_state_write_errors_total; the pod logs' offsets: a warning), and the steps after it still run,
        so what was processed is saved and nothing runs on; a drain that fails stops there, what it had not
        processed being read again at the next start. `gpu-npd run` exits 1 when this is False (docs/operations.md)."""
        self.stop.set()
        self.poller.wake()  # the poller waits for its next poll on its own event, not on stop: it ends now
        pods, deadline = self.pods.pod_source, time.monotonic() + DRAIN_SECONDS
        steps = [("process what is queued", functools.partial(self._drain, deadline)),
                 # the busy Pod Events still waiting for NVML's answer (agent/workloads.py `answered`): made without it
                 ("make the Pod Events waiting for NVML",
                  lambda: self.pipeline.publish(self.pipeline.recheck_gpu_access(final=True))),
                 ("save the state", functools.partial(self.save, last=True)),
                 # the pod logs' offsets as far as the drain took their findings
                 *([("save the pod-log offsets", pods.save)] if pods is not None else []),
                 *((f"close the {type(w).__name__}", w.close) for w in self.writers),
                 *([("close the Kubernetes writer", self.kube.close)] if self.kube is not None else []),
                 *([("stop the HTTP server", self.server.shutdown)] if self.server is not None else []),
                 ("stop the threads", self.close)]
        ok = True
        for what, step in steps:
            try:
                if step() is False:  # a save that could not write, a slice skipped: said and counted by the step itself
                    ok = False
            except Exception as exc:  # noqa: BLE001 - one step's bug must not cost the state or leave threads running
                ok = False
                self._failed(f"in shutdown, cannot {what}", exc, "the other shutdown steps go on")
        return ok

    def _failed(self, doing: str, exc: Exception, then: str) -> None:
        """A stage failed (a bug on one input): said in one line, `internal error <doing>: <exception>; <then>` (what
        goes on after it), its traceback at debug, and counted (gpu_npd_internal_errors_total); the loop's batch and
        tick, the drain's slices and shutdown's steps each say and count a failure here, once."""
        self.metrics.internal_errors.inc()
        log.error("internal error %s: %s: %s; %s", doing, type(exc).__name__, str(exc)[:200], then)
        log.debug("internal error %s", doing, exc_info=True)

    def _drain(self, deadline: float) -> bool:
        """What was already read is processed until `deadline`, not lost: the batch a turn of the loop had begun, then
        what is queued, a batch of records or pod findings in slices (`Held.slices`), so a big batch does not hold the
        exit past the deadline by more than one slice. What is not processed is not acknowledged (no cursor or pod-log
        offset saved past it) and is read again at the next start. A batch of pod findings is finished once begun
        (`_finish`); False when a slice of one failed (said and counted there)."""
        held, ok = self.held, True
        while True:
            batch = held.batch
            if batch is None:
                if time.monotonic() >= deadline:
                    return ok
                batch = self.intake.take(0)
                if batch is None:
                    return ok
            elif type(batch) is list and time.monotonic() >= deadline:
                return ok
            if type(batch) is list:
                held.slices(batch, deadline)
            elif type(batch) is WorkloadFindings:
                ok = self._finish(batch) and ok
            else:
                self.pipeline.process(batch)

    def _finish(self, batch: WorkloadFindings) -> bool:
        """A batch of pod findings (the one held, or a new one) processed to its end whatever the deadline: it is
        acknowledged as a whole (its `done`), so stopped partway the next start would read its processed slices again.
        A slice that raises is skipped, said and counted as the loop does, and the rest still processed; whether none
        did."""
        ok, held = True, self.held
        while batch is not None:
            try:
                held.slices(batch, math.inf)
            except Exception as exc:  # noqa: BLE001 - the rest of the batch still processed
                ok = False
                self._failed("while processing a slice of pod findings", exc, _skipped(held))
            batch = held.batch
        return ok

    def _lag(self) -> float:
        """How long the records being processed have waited since their source queued them: while part of a batch is
        held between turns, till now (the intake's lag is the wait of a batch when it was taken)."""
        return time.monotonic() - self.intake.taken if self.held.batch is not None else self.intake.lag

    def _queued_bytes(self) -> int:
        """What the records read and not yet processed hold: those queued, and the rest of a batch held."""
        held = self.held
        return self.intake.bytes if held.batch is None else self.intake.bytes + held.bytes()

    def close(self) -> None:
        """End the threads this agent started or made (what `shutdown` ends after its drain; alone, for an agent
        that was built and driven by hand): udev's observer, the poller's, Xid and checks threads (waited for up to
        JOIN_SECONDS in all: a poll in an NVML call that hangs is not), then the GPU collector's NVML workers.
        Before, shutdown left all of these running: udev's observer and the NVML workers for the process's life."""
        self.stop.set()
        self.poller.wake()
        if self._udev is not None:
            self._udev.stop()  # joins the observer (pyudev: after it, no callback runs)
            self._udev = None
        deadline = time.monotonic() + JOIN_SECONDS
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        self._threads = []
        self.gpu.close()

    def run_forever(self) -> None:
        """Process input as it comes, and tick every `tick_seconds`: between them the loop waits for input until the
        next tick is due (request_stop wakes it), so an idle agent's main thread wakes once a tick, not every 0.2 s."""
        while not self.stop.is_set():
            self.step(timeout=max(0.0, self._last_tick + self.cfg.tick_seconds - time.monotonic()))

    # ---- the loop ----------------------------------------------------------------------------------

    def step(self, timeout: float = 0.2) -> None:
        """One turn: a batch processed (a batch of records or pod findings for up to TURN_SECONDS, the rest in the next
        turns, taken before anything newer), then the tick when it is due."""
        held = self.held
        batch = held.batch if held.batch is not None else self.intake.take(timeout)
        self.metrics.intake_lag.set(self._lag())
        doing, then = "while processing a batch", "the batch is skipped"
        try:
            if type(batch) is list or type(batch) is WorkloadFindings:
                if batch:  # (an empty list: nothing read)
                    doing, then = f"while processing a slice of {_kind(batch)}", ""  # (_skipped says what follows)
                    held.slices(batch, time.monotonic() + TURN_SECONDS)
            elif batch:
                doing, then = f"while processing a {type(batch).__name__}", "the batch is skipped"
                self.pipeline.process(batch)
        except Exception as exc:  # noqa: BLE001 - a bug on one input must not stop detection of the next
            self._failed(doing, exc, then or _skipped(held))
        if time.monotonic() - self._last_tick >= self.cfg.tick_seconds:
            try:
                self._tick()
            except Exception as exc:  # noqa: BLE001 - nor stop the next tick
                self._failed("in the tick", exc, "the next one runs when due")
        self.metrics.queue_bytes.set(self._queued_bytes())  # after the turn: the rest of a batch held counts
        self._last_loop = time.monotonic()

    def _tick(self) -> None:
        self._last_tick = time.monotonic()
        source = self.pods.pod_source
        # the pods that exist, once the pod logs were listed and read up (before it, the pods restored from the state
        # neither go nor are judged: what they wrote while the agent was down is not read yet)
        if source is None or source.caught_up:
            self.pipeline.judge_progress(set(source.pods) if source is not None else None)
        self.pipeline.publish(self.pipeline.recheck_gpu_access())  # pods whose devices were unknown when read
        self.pipeline.publish(self.engine.tick())
        self.supervisor.refresh()
        self.supervisor.collect_counters()
        self.selfwatch.tick()
        self.metrics.last_tick.set(time.time())
        # not while a batch of pod findings is begun: the counts of its slices processed would be saved with the pod
        # logs' offsets before it (it is acknowledged as a whole), and the next start would count them again
        if (self.pipeline.dirty or self.checkpoint.changed) and type(self.held.batch) is not WorkloadFindings:
            self.checkpoint.maybe_save(self.pipeline, self.boot)

    def save(self, last: bool = False) -> bool:
        """Write the state; whether it was written (a failure is said and counted by the checkpoint)."""
        return self.checkpoint.save(self.pipeline, self.boot, last)

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
        queued, unread = self._lag(), self.intake.unread_for()
        if queued + unread > self.cfg.intake_lag_seconds:  # a record read now is this late; one unread, later
            problems.append(f"detection {queued + unread:.0f} s behind: records waited {queued:.0f} s in the intake "
                            f"and sources {unread:.0f} s to queue more, their input unread meanwhile (see "
                            "gpu_npd_intake_lag_seconds, gpu_npd_intake_waits_total)")
        if problems:
            return False, "; ".join(problems)
        return True, f"ok ({self.supervisor.summary()})"


def _remove_legacy(path: str) -> None:
    """An earlier agent's pod-log offsets file removed, the state written with its offsets (or newer ones): left, an
    agent rolled back to that version would read on from those offsets, stale since the upgrade, and count every
    finding read since again (without the file it starts each pod log at its end, as at its first start: what the pods
    write until it runs is not read, nothing is counted twice; and upgraded again, it finds the offsets it saved)."""
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("cannot remove %s, the pod-log offsets an earlier agent kept (now in the state file): %s; an agent "
                    "of that version would read on from them", path, exc.strerror or exc)


class Held:
    """A batch of records or pod findings processed over turns of the loop (and the drain), in slices: the one begun,
    `batch` (None when none is), and where its next slice starts; what is left of it is processed before anything
    newer, so no line of a stream is reordered, and counts in the queue gauge (`bytes`) and in the lag (Agent._lag)."""

    __slots__ = ("pipeline", "batch", "start")

    def __init__(self, pipeline: Pipeline):
        self.pipeline = pipeline
        self.batch: list[Record] | WorkloadFindings | None = None
        self.start = 0

    def slices(self, batch: list[Record] | WorkloadFindings, deadline: float) -> None:
        """`batch` (the one held, from where it stands, or a new one, from its start) processed in slices until
        `deadline` (at least one), what is left held. A batch of records in slices each ending at a record that carries
        its source's cursor (every SLICE-th, as kmsg and log files mark them; a batch of a source that marks none,
        whole); a slice whose processing raises is skipped, as the loop skips a batch, and acknowledged: its cursor
        kept, since what it did before the error (a finding counted, a problem decided) is saved with the state, and
        read again it would be counted twice. A batch of pod findings (up to the pod log source's MAX_BATCH_FINDINGS a
        poll, more after a big chunk: 1,248 findings took 65 ms) in slices of SLICE findings (`_part`), acknowledged
        once its last is processed or skipped."""
        if batch is not self.batch:
            self.batch, self.start = batch, 0
        start, records = self.start, type(batch) is list
        n = len(batch) if records else len(batch.items)
        while True:
            end = start + SLICE
            while records and end < n and batch[end - 1].cursor is None:
                end += SLICE
            end = min(end, n)
            if end < n:
                self.start = end
            else:
                self.batch = None
            part = batch if start == 0 and end == n else batch[start:end] if records else _part(batch, start, end)
            try:
                self.pipeline.process(part)
            except Exception:
                if records and part[-1].cursor is not None:
                    self.pipeline.cursors[part[0].source] = part[-1].cursor
                    self.pipeline.dirty = True
                raise
            start = end
            if start >= n or time.monotonic() >= deadline:
                return

    def bytes(self) -> int:
        """What the rest of the batch held holds (intake.weight)."""
        batch, start = self.batch, self.start
        return weight(batch[start:] if type(batch) is list else _part(batch, start, None))


def _skipped(held: Held) -> str:
    """What follows a slice that failed: skipped, and the rest of its batch processed while one is held."""
    return "the slice is skipped, the rest of its batch processed" if held.batch is not None else "the slice is skipped"


def _part(batch: WorkloadFindings, start: int, end: int | None) -> WorkloadFindings:
    """The pod findings `start:end` of `batch` as a batch of their own: the first carries the batch's progress marks
    and restarts (a tick between turns judges the pods' silences with them), the last its acknowledgement (`done`)."""
    first, last = start == 0, end is None or end >= len(batch.items)
    return WorkloadFindings(batch.items[start:end], batch.source, batch.progress if first else [],
                            batch.restarted if first else [], batch.done if last else None)


def _kind(batch: list[Record] | WorkloadFindings) -> str:
    """What a batch holds, for a log line: whose records, or pod findings."""
    return f"{batch[0].source} records" if type(batch) is list else "pod findings"
