"""Progress per pod and hang suspicion: progress marks from pod logs -> step time, WorkloadHangSuspected.

A pod that was making progress (at least `min_steps` advances seen) and then says nothing for
max(k x its median interval between progress lines, floor_seconds) is suspected hung: one Pod Event
(`WorkloadHangSuspected`, saying what supports it: standing hardware / fabric faults on this node) and the
gauge `gpu_npd_workload_hang_suspected` = 1; progress again clears both (a `WorkloadProgressResumed` Event).
A checkpoint save or an evaluation announced in the log stretches the allowance to `pause_seconds` from the
announcement, capped at `timeout_fraction` x the longest collective timeout the pod's log said (PyTorch's NCCL
watchdog ends the job at that timeout: a hang inside the pause is to be suspected before it); a line said when the
evaluation or save is done (its loss, `done, saving took ...`) ends the pause, the pace's allowance counted from it.  An RL trainer's
rollout generation bar keeps the pod alive without setting the pace (it is no step and no interval of the median).
Never a node condition: a hung job is the job's, until a node fault explains it.

The verdict names the pod's own devices (`Owned`: its GPUs and RDMA rails, from a cache the kubelet's
PodResources answer fills off the main loop, agent/kube/poddevices.py): what its GPUs did over the last poll
(utilisation pinned or idle, power, PCIe traffic, whether NVLink data moved), whether its rails' data counters
moved, and a fault standing on one of its GPUs or rails, or on the node as a whole, as the likely cause (a fault
on another pod's GPU is named as not this pod's).  Where the pod's devices are unknown it speaks of the node's GPUs and says so.

Pods tracked are capped (`max_pods`; the pod silent the longest is forgotten first, counted); a pod whose
logs are gone (deleted) is forgotten at the next tick, a suspected one whose processes ended within RECHECK seconds; a
container started again (a new log file) is learnt anew.  What is learnt of each pod is saved with the agent's state
(to_state) and restored by an agent started again in the same boot (restore): a silence goes on being measured, a
suspicion stands without a second Event.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from dataclasses import asdict, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Callable, Iterable

from parsers import normalize_pci
from parsers.gpus import GpuMap, gpu_key, reading_key
from parsers.model import PodEvent, PodRef, Problem, Reading

if TYPE_CHECKING:  # a type only: the trainers' progress rules (compiled at import) load with the pod log reader
    from parsers.progress import Progress

from .hangsettings import HangSettings
from .keyspec import Invalid, each
from .peers import FIELDS as PEER_FIELDS, median_of
from .podresources import Owned
from .workloads import job_of

HANG_REASON = "WorkloadHangSuspected"
RESUMED_REASON = "WorkloadProgressResumed"
INTERVALS = 32  # intervals kept per pod for the median (a few hundred bytes per pod)
RECHECK = 60.0  # seconds between two looks at whether a suspected pod still runs (one /proc pass each)
@dataclass(frozen=True)
class Mark:
    """One recognised progress line: when it was written (the CRI timestamp, else when it was read)."""
    at: float
    progress: Progress


@dataclass(frozen=True)
class _Bar:
    """The tqdm bar a pod's training counts on (`_Pod.bar`), set, cleared and restored as one value: its total
    (Progress.total: the bar is known by it), its last count (its total once finished), when its last line came (the
    tracker's clock) and the total of the training bar before it (a loop's own, back after another's); a bar restored
    from a state file that lacks some of them (an older agent's, a damaged one) has None there (`_bar` reads it so)."""
    total: int
    at: int | None = None
    seen: float | None = None
    was: int | None = None


# a bar's fields as the state file keeps them, apart, beside the pod's other fields (as an agent before `_Bar` saved
# them, and reads them): the record's field -> its key
BAR_KEYS = {"total": "bar", "at": "bar_at", "seen": "bar_seen", "was": "bar_was"}


def _flat(bar: _Bar | None) -> dict[str, object]:
    """A pod's bar as its entry in the state file keeps it (BAR_KEYS)."""
    return {key: None if bar is None else getattr(bar, name) for name, key in BAR_KEYS.items()}


def _joined(entry: object) -> object:
    """A pod's entry in the state file with its bar's fields (BAR_KEYS) as one record, as keyspec reads `_Pod`: None
    where no total was saved (no bar), a field not saved None; anything else as it is (keyspec says what is wrong)."""
    if not isinstance(entry, dict):
        return entry
    rest = {k: v for k, v in entry.items() if k not in BAR_KEYS.values()}
    total = entry.get(BAR_KEYS["total"])
    return {**rest, "bar": None if total is None else {name: entry.get(key) for name, key in BAR_KEYS.items()}}


@dataclass
class _Pod:
    """A tracked pod; its fields are its entry in the state file (ProgressTracker.to_state, read back by keyspec), its
    bar's apart (`_flat`, `_joined`)."""
    ref: PodRef
    last: float  # time of the last advance (agent clock)
    last_written: float | None = None  # its log timestamp, for intervals
    step: int | None = None
    advances: int = 0
    intervals: list[float] = field(default_factory=list)  # held as a deque of the last INTERVALS
    step_seconds: float | None = None
    printed: bool = False  # the step time is one a trainer printed (spacing never overrides it)
    trainer: str = ""  # the trainer of the last advance (spacing is a step time only between one trainer's lines)
    container: str = ""  # the container of the last advance (its restart starts the learning again: restarted)
    paused: float | None = None  # when the last pause was announced (after the last advance)
    pause: str = ""
    suspected: float | None = None  # when the suspicion was raised
    timeout: float | None = None  # the longest collective timeout (s) the pod's log said (one a process group, made in
    # the program's order: which one a pause's ranks wait on is not known); kept across a restart of the container (the
    # next run is launched with the same timeout, and says it again only if it can)
    checked: float = 0.0  # when a suspected pod was last found running
    # DeepSpeed checkpoint files its ranks began and have not said written (Progress.files) since its last advance or a
    # save's end: a rank's own commit (Progress.rank) ends the pause only at 0, another rank still writing before
    files: int = 0
    # the tqdm bar its training counts on (None: none seen yet): a bar of another total shown while it runs is an inner
    # one (_bar)
    bar: _Bar | None = None

    def filed(self, n: int) -> None:
        """`n` more checkpoint files in flight (a `Saving`'s +1, a `Saved`'s -1), never below 0 (a line lost, a `Saved`
        without its `Saving`)."""
        self.files = max(0, self.files + n)

    def unpause(self) -> None:
        """No pause standing: none announced, no checkpoint file in flight (an advance, a save's end, a restart)."""
        self.paused, self.pause, self.files = None, "", 0

    def __post_init__(self) -> None:
        self.intervals = deque(self.intervals, maxlen=INTERVALS)
        self.files = max(0, self.files)  # (a damaged or hand-edited state's negative count: none in flight)
        # the pod name without its ordinal, every metric's label: derived once from `ref` (never reassigned), not a
        # field, never saved (a `job` an older agent saved is not read)
        self.job: str = job_of(self.ref.pod)


# _Pod's times on the tracker's clock (the rest: the log's), and its bar's `_Bar.seen`
CLOCKED = ("last", "paused", "suspected", "checked")


class ProgressTracker:
    """observe() and tick() return the Pod Events they decide (the pipeline hands them to the sinks)."""

    def __init__(self, metrics, cfg: HangSettings = HangSettings(), clock: Callable[[], float] = time.monotonic,
                 alive: Callable[[], set[str] | None] = lambda: None,
                 devices: Callable[[PodRef], Owned | None] = lambda ref: None):
        self.metrics, self.cfg, self.clock = metrics, cfg, clock
        self.alive = alive  # uids of pods with a live process (None: unknown); a finished job is not hung
        self.devices = devices  # the pod's GPUs and rails (None: unknown); never blocks (a cache, filled elsewhere)
        self.pods: OrderedDict[str, _Pod] = OrderedDict()  # pod uid -> state, least recently advanced first
        self.evictions = 0
        self.finished = 0  # pods forgotten because nothing of them runs any more

    # ---- progress in --------------------------------------------------------------------------------

    def observe(self, ref: PodRef, marks: Iterable[Mark]) -> list[PodEvent]:
        now = self.clock()
        events: list[PodEvent] = []
        pod = self.pods.get(ref.uid)
        for mark in marks:
            p = mark.progress
            if p.timeout is not None:  # (said before the first step too: a process group is made before it)
                pod = pod if pod is not None else self._track(ref, now)
                pod.timeout = p.timeout if pod.timeout is None else max(pod.timeout, p.timeout)
                if not p.moved and not p.pause and p.seconds is None:
                    continue  # nothing else on the line
            if pod is None:
                if not p.moved or p.heartbeat:
                    continue  # a pause (or a rollout) of a pod never seen progressing says nothing
                pod = self._track(ref, now)
            if p.total is not None and p.moved and not p.heartbeat:
                p = self._bar(pod, p, now)
            if not p.moved:
                if p.seconds is not None:  # the last step timed at its end (NeMo-RL's `• Total step time:`): no
                    if p.trainer == pod.trainer:  # advance; its trainer's printed step time
                        self._step_time(pod, p.seconds, True)
                    continue
                if p.files:
                    pod.filed(p.files)
                if p.ended and not (p.rank and pod.files):  # an evaluation's results or a save's end, said when done:
                    # alive now, back to training (the silence after it is the pace's, no pause's)
                    pod.last = now
                    pod.unpause()
                else:  # (a rank's own end while another rank's file is being written: the save goes on)
                    pod.paused, pod.pause = now, p.pause
                continue
            if p.heartbeat:  # alive (an RL rollout's generation bar), not the pace: no step, no interval
                pod.last = now
                continue
            if p.step is not None and p.step == pod.step:
                if p.seconds is not None:  # the same step printed again (another rank, a second logger): not an
                    self._step_time(pod, p.seconds, True)  # advance, but its printed time is the better one
            else:
                pod.container = ref.container
                events += self._advance(pod, mark, now)
            if p.pause:  # progress, then a pause said on the same line (a bar, then `Saving checkpoint...`)
                pod.paused, pod.pause = now, p.pause
        return events

    def restarted(self, ref: PodRef) -> None:
        """The container `ref` started again (a new log file: a new process, same pod).  If it is the one whose
        progress the pod is judged by, what was learnt of the old process goes: the new one loads, compiles and
        warms up before its first step (no silence of the old one's pace), so it is judged again only after
        `min_steps` advances of its own.  A standing suspicion stays, cleared (WorkloadProgressResumed) by the new
        process's first advance."""
        pod = self.pods.get(ref.uid)
        if pod is None or pod.container != ref.container:
            return
        pod.intervals.clear()
        pod.advances, pod.step, pod.last_written, pod.trainer = 0, None, None, ""
        pod.printed = False
        pod.unpause()
        pod.bar = None  # (the new process's bars, totals)

    def _track(self, ref: PodRef, now: float) -> _Pod:
        while len(self.pods) >= self.cfg.max_pods:
            _, old = self.pods.popitem(last=False)
            self._forget(old)
            self.evictions += 1
        pod = self.pods[ref.uid] = _Pod(ref, now)
        self.devices(ref)  # a cache miss asks its thread to learn this pod's devices before any verdict needs them
        return pod

    def _bar(self, pod: _Pod, p: Progress, now: float) -> Progress:
        """What a tqdm bar's line says of the pod's training, its bar known by its total.  A bar of another total shown
        while the training bar runs (its last line within the pause allowance) is an inner one: the Hugging Face
        Trainer's evaluation bar, unnamed (`22% 2/9 [00:00<00:01, 4.08it/s]` among `17% 34/204 ...`), its count no step
        and its rate no step time: an evaluation announced, said over when that bar finishes (`9/9`).  Read as the
        training bar's before, its counts were steps back from 34 and its rate the step time.  The training bar is the
        first bar seen, the same total again (the next epoch's bar), one whose total grew as its count went on (count and
        total both up), after it finished a bar of a larger total (the training after an evaluation at the start; one of
        a smaller total is still inner: the Trainer evaluates after its last step, its bar at `204/204`, unless it is the
        total of the training bar before: a loop's `tqdm(train_loader)` back after its larger unnamed `tqdm(val_loader)`,
        which its finished bar made the training's; else the roles swapped for good, the training an evaluation), or,
        once it has been silent past the pause allowance, the bar shown since (a run resumed in the same container,
        another total)."""
        bar = pod.bar
        if bar is not None and p.total != bar.total and bar.seen is not None \
                and now - bar.seen < self.pause_allowance(pod):
            if bar.at == bar.total:  # (it finished)
                inner = p.total < bar.total and p.total != bar.was
            else:
                inner = p.step is None or bar.at is None or p.step < bar.at or p.total < bar.total
            if inner:
                return replace(p, step=None, seconds=None, pause="evaluation", moved=False, ended=p.step is None,
                               total=None)
        was = None if bar is None else bar.was if p.total == bar.total else bar.total
        pod.bar = _Bar(p.total, p.total if p.step is None else p.step, now, was)
        return p

    def _advance(self, pod: _Pod, mark: Mark, now: float) -> list[PodEvent]:
        p = mark.progress
        if pod.last_written is not None and pod.advances:
            interval = mark.at - pod.last_written
            if interval > 0:
                pod.intervals.append(interval)
                if (p.seconds is None and not pod.printed and p.trainer == pod.trainer and p.step is not None
                        and pod.step is not None and p.step > pod.step):
                    self._step_time(pod, interval / (p.step - pod.step), False)  # a trainer logging every N steps
        if p.seconds is not None:
            self._step_time(pod, p.seconds, True)
        pod.step, pod.last_written, pod.last, pod.trainer = p.step, mark.at, now, p.trainer
        pod.advances += 1
        pod.unpause()
        self.pods.move_to_end(pod.ref.uid)
        if pod.suspected is not None:
            silent = now - pod.suspected
            pod.suspected = None
            self.metrics.workload_hang.labels(pod.ref.namespace, pod.ref.pod, pod.job).set(0)
            return [PodEvent(pod.ref, RESUMED_REASON, f"Progress resumed{_at(pod.step)} after the hang suspicion "
                             f"({silent:.0f} s after it was raised).", self._key(pod), "Normal")]
        return []

    def _step_time(self, pod: _Pod, seconds: float, printed: bool) -> None:
        """The pod's step time: printed by its trainer, else the spacing of one trainer's lines (a pod whose log
        mixes two, Megatron-DeepSpeed's `iteration N` and DeepSpeed's `step=N+1`, has no step between them)."""
        pod.step_seconds, pod.printed = seconds, pod.printed or printed
        self.metrics.workload_step_seconds.labels(pod.ref.namespace, pod.ref.pod, pod.job).set(seconds)

    # ---- the judgement, every tick --------------------------------------------------------------------

    def allowance(self, pod: _Pod) -> float:
        median = median_of(pod.intervals) if pod.intervals else 0.0
        return max(self.cfg.k * median, self.cfg.floor_seconds)

    def pause_allowance(self, pod: _Pod) -> float:
        """The silence allowed after an announced pause: `pause_seconds`, capped at `timeout_fraction` x the collective
        timeout the pod's log said (unknown: not capped; the default a job runs under is not knowable from outside it,
        as launchers set their own: the Hugging Face Trainer's `ddp_timeout`, 1800 s, DeepSpeed's 30 minutes)."""
        if pod.timeout is None:
            return self.cfg.pause_seconds
        return min(self.cfg.pause_seconds, self.cfg.timeout_fraction * pod.timeout)

    def allowances(self, pod: _Pod) -> tuple[float, float | None]:
        """The silences the pod is allowed: after its last advance (`allowance`) and after its announced pause
        (`pause_allowance`; None: none announced)."""
        return self.allowance(pod), self.pause_allowance(pod) if pod.paused is not None else None

    def deadline(self, pod: _Pod) -> float:
        """When the pod's silence becomes a hang suspicion: its last advance + the allowance, or later, the last
        announced pause + its own allowance (never sooner than the pace alone allows)."""
        allowance, paused = self.allowances(pod)
        deadline = pod.last + allowance
        if paused is not None:
            deadline = max(deadline, pod.paused + paused)
        return deadline

    def tick(self, live_uids: set[str] | None = None, standing: Iterable[Problem] = (),
             readings: tuple[list[Reading], list[Reading]] = ([], [])) -> list[PodEvent]:
        """Judge every pod; `live_uids` (the pods whose logs still exist) lets deleted pods go; `standing`: the
        node's problems, a hang's likely cause; `readings`: the last two telemetry polls (what the pod's devices
        did, looked at only when a pod is due)."""
        if live_uids is not None:
            for uid in [u for u in self.pods if u not in live_uids]:
                self._forget(self.pods.pop(uid))
        if not self.cfg.enabled:
            return []
        now = self.clock()
        due, suspected = [], []
        for pod in self.pods.values():
            if pod.suspected is not None:  # still running? (a job the watchdog ended is no hang any more)
                suspected.append(pod)
                continue
            if pod.advances < self.cfg.min_steps:
                continue
            if now >= self.deadline(pod):
                due.append(pod)
        if not due and not any(now - pod.checked >= RECHECK for pod in suspected):
            return []
        running = self.alive()  # one /proc pass, only when a pod is due (or the suspected are to be looked at again)
        for pod in suspected:
            pod.checked = now
            if running is not None and pod.ref.uid not in running:  # ended: its gauge goes (the alert resolves)
                self._forget(self.pods.pop(pod.ref.uid))
                self.finished += 1
        problems = list(standing)
        events = []
        for pod in due:
            if running is not None and pod.ref.uid not in running:
                self._forget(self.pods.pop(pod.ref.uid))  # its processes ended: finished, not hung
                self.finished += 1
                continue
            support = evidence(self.devices(pod.ref), problems, *readings)
            events.append(self._suspect(pod, now, support))
        return events

    def _suspect(self, pod: _Pod, now: float, support: str) -> PodEvent:
        pod.suspected = pod.checked = now
        allowance, paused = self.allowances(pod)  # the pair its deadline read (asked again: once a suspicion)
        self.metrics.workload_hang.labels(pod.ref.namespace, pod.ref.pod, pod.job).set(1)
        median = median_of(pod.intervals) if pod.intervals else 0.0
        said = (f"No training progress for {now - pod.last:.0f} s{_at(pod.step, ' since')} (progress lines every "
                f"{median:.1f} s (median); allowed max({self.cfg.k:g} x {median:.1f} s, {self.cfg.floor_seconds:g} s)"
                f" = {allowance:.0f} s")
        if paused is not None:
            said += f", or {paused:g} s after the announced {pod.pause}"
            if paused < self.cfg.pause_seconds:
                said += (f" (pause_seconds {self.cfg.pause_seconds:g} s capped at {self.cfg.timeout_fraction:g} x the "
                         f"{pod.timeout:g} s collective timeout the pod's log said, so that the suspicion comes before "
                         f"PyTorch's NCCL watchdog ends the job)")
        return PodEvent(pod.ref, HANG_REASON, f"{said}). {support}", self._key(pod), "Warning")

    # ---- bookkeeping --------------------------------------------------------------------------------

    @staticmethod
    def _key(pod: _Pod) -> str:
        return f"{pod.ref.namespace}|{pod.ref.pod}|hang"

    def _forget(self, pod: _Pod) -> None:
        for family in (self.metrics.workload_step_seconds, self.metrics.workload_hang):
            try:
                family.remove(pod.ref.namespace, pod.ref.pod, pod.job)
            except KeyError:
                pass

    def to_state(self) -> dict[str, dict]:
        """Every tracked pod as it stands, least recently advanced first (agent/checkpoint.py writes it); its times
        on the tracker's clock, the monotonic one: the same for an agent started again within this boot."""
        return {uid: {**{f.name: getattr(p, f.name) for f in fields(p) if f.name != "bar"}, **_flat(p.bar),
                      "ref": asdict(p.ref), "intervals": list(p.intervals)} for uid, p in self.pods.items()}

    def restore(self, state: object) -> list[str]:
        """What to_state saved, by an agent started again in the same boot (the caller's to check: a reboot ends
        every process, and the monotonic clock starts again): each pod goes on as it stood, a silence measured from
        its last advance before the restart, a suspicion standing (its gauge set again, its Event not said again);
        the most recently advanced max_pods.  A time ahead of the clock (not this clock's) is taken as now: no
        silence is restored longer than the clock has run.  Whether a pod still exists, the pod list decides at the
        next tick.  An entry not of its type is dropped alone and its fault returned (keyspec.each)."""
        faults: list[str] = []
        now = self.clock()
        if isinstance(state, dict):
            state = {uid: _joined(entry) for uid, entry in state.items()}
        saved = list(each(state, dict[str, _Pod], "progress", faults))
        for uid, pod in saved[max(0, len(saved) - self.cfg.max_pods):]:
            if pod.ref.uid != uid:  # (a time not finite keyspec refused already: a float is a finite number)
                faults.append(str(Invalid(f"progress.{uid[:60]}", f"the pod's uid is {pod.ref.uid[:60]!r}")))
                continue
            for name in CLOCKED:
                if getattr(pod, name) is not None:
                    setattr(pod, name, min(getattr(pod, name), now))
            if pod.bar is not None and pod.bar.seen is not None:
                pod.bar = replace(pod.bar, seen=min(pod.bar.seen, now))
            self.pods[uid] = pod
            if pod.step_seconds is not None:
                self.metrics.workload_step_seconds.labels(pod.ref.namespace, pod.ref.pod, pod.job).set(pod.step_seconds)
            if pod.suspected is not None:
                self.metrics.workload_hang.labels(pod.ref.namespace, pod.ref.pod, pod.job).set(1)
            self.devices(pod.ref)  # its devices learnt before a verdict needs them, as for a pod first tracked
        return faults

    def snapshot(self) -> dict[str, dict]:
        """Per pod: step, step time, allowance, suspected (for tests, benchmarks and debugging)."""
        return {uid: {"pod": p.ref.pod, "step": p.step, "step_seconds": p.step_seconds, "advances": p.advances,
                      "allowance": self.allowance(p), "suspected": p.suspected is not None}
                for uid, p in self.pods.items()}


def evidence(owned: Owned | None, standing: list[Problem], previous: list[Reading], latest: list[Reading]) -> str:
    """The verdict's support: what the pod's GPUs and rails did over the last poll, then the likely cause (a fault
    standing on its devices or on the node as a whole).  `owned` None: the pod's devices are unknown; the node's
    GPUs are described instead, and the verdict says so."""
    gpus = [r for r in latest if r.entity == "gpu"]
    gpu_map = GpuMap.from_readings(latest)  # the GPUs the node read: PCI address -> their names
    mine = [r for r in gpus if owned is not None and gpu_map.names(reading_key(r)) & owned.gpus]
    if mine:
        names = ", ".join(sorted((r.labels.get("gpu_index", r.subject) for r in mine), key=_natural))
        whose, shown = f"Its GPU{'s' if len(mine) > 1 else ''} {names} (per {owned.source})", mine
    else:
        whose = ("This pod's GPUs are not known (the kubelet's PodResources API has not named them)" if owned is None
                 else f"This pod's GPUs ({len(owned.gpus)} per {owned.source}) were not read in the last poll")
        shown = gpus
        if gpus:
            whose += f"; the node's {_gpus(len(gpus))}"
    said = _gpu_activity(shown, {r.subject: r.values for r in previous if r.entity == "gpu"})
    out = [f"{whose}: {said}" if said else f"{whose}."]
    rails = _rails(previous, latest, owned)
    if rails:
        out.append(rails)
    out.append(_support(standing, owned, gpu_map, _below(latest)))
    return " ".join(out)


def _below(readings: list[Reading]) -> dict[str, tuple[list[str], list[str]]]:
    """The PCIe ports the node read (sysfs, agent/sysfs/pci.py): port address (a function's key) -> (the GPUs, the
    RDMA NIC functions) below it."""
    return {normalize_pci(r.labels.get("pci_bus_id"), True) or "": (
        [g for g in str(r.labels.get("gpus_below") or "").split(",") if g],
        [n for n in str(r.labels.get("nics_below") or "").split(",") if n])
        for r in readings if r.entity == "pci" and (r.labels.get("gpus_below") or r.labels.get("nics_below"))}


def _rail_keys(r: Reading) -> set[str]:
    """The names an RDMA port reading answers to: its device, its netdevs and its PCI address (lower case)."""
    keys = {str(r.labels.get("device") or "").lower(), str(r.labels.get("pci_bus_id") or "").lower(),
            normalize_pci(r.labels.get("pci_bus_id")) or ""}
    keys |= {n.lower() for n in str(r.labels.get("netdev") or "").split(",")}
    return keys - {""}


def _natural(name: str):
    return (0, int(name), "") if name.isdigit() else (1, 0, name)


PCIE = ("pcie_tx_bytes_per_second", "pcie_rx_bytes_per_second")  # NVML's rate over its own 20 ms sample
# B/s both ways together below which a GPU's PCIe is quiet: the least difference the peer test counts (its floor)
PCIE_QUIET = next(f.floor for f in PEER_FIELDS if f.name == PCIE[0])
NVLINK = ("nvlink_tx_kib", "nvlink_rx_kib")  # counters since driver load


def _span(lo: float, hi: float, scale: float = 1.0) -> str:
    """`lo-hi`, or one figure where they are the same (one GPU, or all alike)."""
    return f"{lo / scale:.0f}" if round(lo / scale) == round(hi / scale) else f"{lo / scale:.0f}-{hi / scale:.0f}"


def _gpus(n: int) -> str:
    return f"{n} GPU" if n == 1 else f"{n} GPUs"


def _gpu_activity(gpus: list[Reading], before: dict[str, dict] | None = None) -> str:
    """What these GPUs did over the last poll: power (idle below 100 W), utilisation (pinned or idle), PCIe
    traffic (quiet below PCIE_QUIET) and whether their NVLink data counters moved since the poll `before`."""
    said = []
    power = [r.values["power_watts"] for r in gpus if "power_watts" in r.values]
    if power:
        said.append(f"GPU power {_span(min(power), max(power))} W over {_gpus(len(power))}"
                    f"{' (idle)' if max(power) < 100 else ''}.")
    util = [r.values["utilization_gpu"] for r in gpus if "utilization_gpu" in r.values]
    if util:
        said.append(f"GPU utilisation {_span(min(util), max(util))} %{_utilisation(min(util), max(util))}.")
    pcie = [sum(r.values[f] for f in PCIE) for r in gpus if all(f in r.values for f in PCIE)]
    if pcie:
        quiet = sum(1 for b in pcie if b < PCIE_QUIET)
        said.append(f"PCIe traffic {_span(min(pcie), max(pcie), 1e6)} MB/s"
                    f"{f' (quiet on {quiet} of {_gpus(len(pcie))})' if quiet else ''}.")
    links = [r for r in gpus if before and r.subject in before and all(f in r.values and f in before[r.subject]
                                                                        for f in NVLINK)]
    if links:
        flat = sum(1 for r in links if all(before[r.subject][f] == r.values[f] for f in NVLINK))
        said.append(f"NVLink data counters unchanged over the last poll on {flat} of {_gpus(len(links))}.")
    return " ".join(said)


DATA = ("counters/port_xmit_data", "counters/port_rcv_data")


def _rails(previous: list[Reading], latest: list[Reading], owned: Owned | None) -> str:
    """Whether the RDMA rails' data counters moved over the last poll: the pod's own rails where it was allocated
    some, else the node's (NCCL on the host network sends over all of them)."""
    before = {r.subject: r.values for r in previous if r.entity == "ib_port"}
    ports = [r for r in latest if r.entity == "ib_port" and r.subject in before and all(d in r.values for d in DATA)]
    own = [r for r in ports if owned is not None and _rail_keys(r) & owned.rails]
    if own:
        ports, whose = own, "its rails"
    else:
        whose = "the node's rails" + (" (none allocated to this pod)" if owned is not None else "")
    if not ports:
        return ""
    flat = sum(1 for r in ports if all(before[r.subject].get(d) == r.values[d] for d in DATA))
    return f"RDMA data counters unchanged over the last poll on {flat} of {len(ports)} ports ({whose})."


def _support(standing: list[Problem], owned: Owned | None = None, gpu_map: GpuMap | None = None,
             below: dict[str, tuple[list[str], list[str]]] | None = None) -> str:
    """The likely cause: a hardware / fabric / driver fault standing on the pod's GPUs or rails, or on the node as a
    whole (a fabric, a driver, the node itself).  A fault on a GPU or rail of another pod is not this pod's cause
    (said, not blamed).  `owned` None: the pod's devices are unknown, so any fault on the node is its likely cause."""
    faults = [p for p in standing if p.attribution in ("hardware", "fabric", "driver")
              and p.severity in ("error", "fatal")]
    gpu_map = gpu_map if gpu_map is not None else GpuMap()
    mine_gpus = set(owned.gpus) if owned is not None else set()
    for pci in gpu_map:  # every GPU the node read
        keys = gpu_map.names(pci)
        if keys & mine_gpus:
            mine_gpus |= keys
    ours, others = [], []
    for p in faults:
        where = _where(p, gpu_map, below or {})
        if owned is None or where[0] == "node":
            ours.append(p)
        elif where[0] == "gpu":
            (ours if where[1] & mine_gpus else others).append(p)
        elif not owned.rails or where[1] & (owned.rails | mine_gpus):  # no rail allocated: it sends over the node's
            ours.append(p)
        else:
            others.append(p)
    names = lambda ps: ", ".join(sorted({f"{p.reason} on {p.subject.split(':', 1)[-1]}" for p in ps})[:4])  # noqa: E731
    aside = (f" (Not this pod's: {names(others)}, on devices it does not hold.)" if others else "")
    if ours:
        scope = "this node" if owned is None else "this pod's devices or the node as a whole"
        return (f"Likely caused by a node fault standing on {scope}: {names(ours)}. "
                f"Recommended action: drain the node and restart the job elsewhere.{aside}")
    place = "this node" if owned is None else "this pod's GPUs and rails or the node as a whole"
    return (f"No hardware or fabric fault stands on {place}: the cause is likely in the job or on a peer "
            f"node. Recommended action: check the job's other pods, then take stack dumps (py-spy dump).{aside}")


def _where(p: Problem, gpu_map: GpuMap, below: dict[str, tuple[list[str], list[str]]]) -> tuple[str, set[str]]:
    """Which device a problem stands on: ("gpu", its names), ("rail", its names) or ("node", {}) for the node as
    a whole (a fabric, a driver, a switch: every pod's).  A PCIe port's (`pci:`, sysfs naming what is `below` it) is
    the devices' below it: "rail" with their names where an RDMA NIC is among them (a pod with no rail of its own
    sends over it), else "gpu"; one with nothing known below it, as a NIC function, by its own address."""
    kind, _, rest = p.subject.partition(":")
    device = rest.split("/", 1)[0]
    uuid = str(p.details.get("uuid") or "").lower()
    if kind == "gpu" or (kind == "pci" and normalize_pci(device) in gpu_map):
        pci = gpu_key(device)
        return "gpu", ({pci, uuid} | gpu_map.names(pci)) - {""}
    if kind == "ib":
        return "rail", {device.lower()}
    gpus, nics = below.get(normalize_pci(device, True) or "", ((), ())) if kind == "pci" else ((), ())
    if gpus or nics:
        names = {name for g in gpus for name in gpu_map.names(gpu_key(g)) | {gpu_key(g)}}
        names |= {name for n in nics for name in (n.lower(), normalize_pci(n) or "", normalize_pci(n, True) or "")}
        return ("rail" if nics else "gpu"), names - {""}
    if kind in ("nic", "pci"):
        return "rail", {device.lower(), normalize_pci(device) or ""} - {""}
    return "node", set()


PINNED, IDLE = 95.0, 5.0  # percent: every GPU at or above / at or below


def _utilisation(low: float, high: float) -> str:
    """What the GPUs' utilisation says of a hang: pinned (a kernel that never ends, typically a collective
    spinning on a peer that never joins) or idle (no kernel at all: the job is stuck on the host side)."""
    if low >= PINNED:
        return " (pinned: kernels running without progress, as a collective waiting on a peer does)"
    if high <= IDLE:
        return " (idle: no kernel running, the job is stuck outside the GPUs)"
    return ""


def _at(step: int | None, word: str = " at") -> str:
    return f"{word} step {step}" if step is not None else ""
