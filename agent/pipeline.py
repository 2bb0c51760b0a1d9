"""The record path, one direction: a batch from the intake -> findings -> admission -> coalescer -> engine ->
one snapshot -> every sink.  Each stage returns its result to the next; none reads back what a later one set.

    process(batch)            one handler per batch type (parsers/model.py); each returns the engine's Change;
                              kernel-log records' (_records):
      classify                parsers: a line -> a Finding or None (per source: its context and memo)
      admission               each finding: the pre-checks once (kernel's own line, dated, not one Xid twice,
                              not ours); then
        Coalescer.repeat      a repeat of a standing decision: counted, not decided again; or
        HealthEngine.decide   enriched (GPU index/UUID, pod of the pid), then decided
      HealthEngine.derive     the conditions, once per batch
    publish(change)           the snapshot (state + what changed), built once, handed to each sink's apply
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Callable

from parsers import Classifier, Finding, Prefilter, amends, from_kernel, keyword_prefilter, seen_at
from parsers.gpus import is_mig
from parsers.kinds import BY_NAME as KIND, taken_by
from parsers.model import (Boot, Change, CheckBatch, NodeInfo, PodEvent, PodRef, Record, SampleBatch, Snapshot,
                           WorkloadFindings)

from .checks.problems import judged as judge_checks
from .coalesce import Coalescer
from .gpu.collector import GpuCollector, annotate
from .health import HealthEngine
from .metrics import Metrics
from .podlookup import PodLookup
from .samples import SampleJudge
from .selfcaused import CounterGuard
from .workloads import ON_GPU_PODS, WorkloadTracker, daemon_of, job_of
from .xidmerge import XidMerger

if TYPE_CHECKING:  # types only: the tracker and the peer test load where they are built (agent/app.py)
    from .peers import PeerOutliers
    from .kube.poddevices import PodDeviceCache  # (loaded where pod logs are followed, not idle: test_idle_footprint)
    from .progress import ProgressTracker

log = logging.getLogger("gpu_npd")
UNSURE_SECONDS = 120.0  # a finding whose pod's devices are unknown waits this long for the kubelet's answer
UNSURE_MAX = 256  # pods whose such finding is held at once (oldest dropped: counted only, as read)
Batch = list[Record] | SampleBatch | CheckBatch | WorkloadFindings | NodeInfo
PodFindings = list[tuple[PodRef, Finding]]  # a batch's pod findings, each with its container


def _pod_events(items: PodFindings) -> tuple[PodFindings, PodFindings]:
    """A batch of pod findings as events: an amendment (parsers/rules.py EVENT_AMENDS: a later line of the event gave
    the peer its finding lacked) in place of the same container's finding it amends, so the Event says it once, as the
    event ended; and, apart, those amending a finding of an earlier batch (its Event said then): never a second
    occurrence, the pipeline re-words that Event with each (`_pod_findings`)."""
    later: PodFindings = []
    if not any(amends(f) for _, f in items):
        return items, later
    out: PodFindings = []
    for ref, f in items:
        if not amends(f):
            out.append((ref, f))
            continue
        for i in range(len(out) - 1, -1, -1):
            r, g = out[i]
            if r == ref and (g.kind, g.xid, g.sxid, g.line) == (f.kind, f.xid, f.sxid, f.line):
                out[i] = (ref, f)
                break
        else:
            later.append((ref, f))
    return out, later


def labels_of(f: Finding) -> tuple:
    """A node finding's labels in every counter it counts in (Metrics.count_finding): by kind, by driver for
    unclassified lines, by Xid.  Made once, as the finding is admitted: before the engine decides it (the Xid policy
    rewrites its severity and attribution in place; the counters say what was recognised), kept by the coalescer for
    its repeats.  An Xid's returned first, without the unclassified test: every decided Xid passes here
    (bench/inprocess.py --instructions, 147.5k -> 147.2k a record)."""
    kind, d = f.kind, f.details
    if kind == "xid" and f.xid is not None:
        return ((kind, f.severity, f.attribution), None,
                (str(f.xid), f.pci or "unknown", str(d.get("gpu_index", "")), d.get("uuid", "")))
    return (kind, f.severity, f.attribution), d.get("driver", "unknown") if kind == "unclassified" else None, None


class Pipeline:
    """Turns each batch into a Change and hands its snapshot to the sinks; keeps the read cursors."""

    def __init__(self, engine: HealthEngine, judge: SampleJudge, metrics: Metrics, gpu: GpuCollector,
                 workloads: WorkloadTracker, pods: PodLookup, sinks: list, boot: Boot,
                 clock: Callable[[], float], guard: CounterGuard | None = None, cursors: dict | None = None,
                 check_severity: str = "error", expected_gpus: int = 0, progress: ProgressTracker | None = None,
                 peers: PeerOutliers | None = None, prefilter: Prefilter | None = None,
                 kept: dict | None = None, pod_devices: PodDeviceCache | None = None):
        self.engine, self.judge, self.metrics, self.gpu = engine, judge, metrics, gpu
        # a pod's devices as last known (agent/kube/poddevices.py: `cache(ref)`, `_host_answers`) and whether it holds
        # GPUs by the kubelet's word (its `holds_gpus`; None: unknown), for the kinds that are the node's only in such a
        # pod (parsers/kinds.py `pod_holds_gpus`); None: no cache (workload_hang disabled).  Those findings whose pod's
        # devices were unknown, asked again each tick until UNSURE_SECONDS after they were read: a pod's first (its
        # uid's: one pod's flood holds one place, and its lines after are counted as read), with when it was read and
        # the time its line is judged by (`_holds_gpus`)
        self.pod_devices = pod_devices
        self._unsure: dict[str, tuple[float, float, PodRef, Finding]] = {}
        if gpu.status == "starting":  # the kernel log's backlog is read before NVML names the GPUs (_name_xids)
            metrics.hold_xids()
        self.workloads, self.pods, self.sinks, self.clock = workloads, pods, sinks, clock
        self.boot, self.guard, self.xids = boot, guard, XidMerger()  # admission's (_records)
        self.coalescer = Coalescer(engine)
        self.classifiers: dict[str, Classifier] = {}
        # the records' keyword test (parsers/prefilter.py), one for every stream's classifier: its regex compiled once
        self.prefilter = prefilter if prefilter is not None else keyword_prefilter()
        # what each stream's classifier is made from (`for_stream`): the rule tables, prefilter and repeat memo shared
        self._classifier = Classifier(prefilter=self.prefilter)
        self.cursors: dict = dict(cursors or {})
        self.check_severity = check_severity
        self.expected_gpus = expected_gpus  # configured (0: the Node's capacity says, see _node)
        self.progress = progress  # progress per pod and hang suspicion (agent/progress.py), when pod logs are followed
        # sections of the saved state whose stage is not built this run (the tracker's, pod logs not followed): written
        # back as they were read, so a stage turned off and on again finds what it had learnt
        self.kept: dict = dict(kept or {})
        self.peers = peers  # stragglers against peers (agent/peers.py), when enabled
        self._readings: tuple[list, list] = ([], [])  # the last two polls' readings (a hang's device evidence)
        # the GPUs' addresses sysfs or NVML named since start, as the poller's last batch carried them (SampleBatch
        # gpus): read on this thread only, so which devices are GPUs needs no lock while NVML is down
        self.known_gpus: frozenset[str] = frozenset()
        self.dirty = False
        self._events: list[PodEvent] = []  # Events for pods said while handling this batch
        self._handlers = {list: self._records, SampleBatch: self._samples, CheckBatch: self._checked,
                          WorkloadFindings: self._pod_findings, NodeInfo: self._node}

    def process(self, batch: Batch) -> Snapshot | None:
        """One batch through every stage; the snapshot the sinks received (None: nothing changed)."""
        change = self._handlers[type(batch)](batch)
        self.dirty = True
        return self.publish(change)

    # ---- kernel-log records -------------------------------------------------------------------------

    def _records(self, batch: list[Record]) -> Change:
        """A batch of kernel-log records: each line classified, each finding admitted, then counted as a repeat of a
        standing decision or decided (into the batch's Change); the conditions derived once, then the findings
        decided anew counted.  Admission, the pre-checks a kernel-log finding passes once before anything counts it
        as a node fault (counted where a refusal says something):

        - from the kernel: a syslog line another program wrote (any local process can write one that reads like a
          kernel fault) is counted as such (gpu_npd_forged_or_userspace_total), never a node problem;
        - dated: a kmsg finding carries seconds since boot: its wall-clock time is the boot's start plus that (read
          by seen_at wherever a time is asked; the datetime is built only for a finding that goes on past the
          coalescer: a storm's repeat counted builds none);
        - not one Xid twice: an Xid NVML's event API already reported (or the kernel log, the other way round)
          within a few seconds is the same Xid (agent/xidmerge.py);
        - not ours: a line our own InfiniBand counter reads caused (agent/selfcaused.py) is counted as such.

        A finding decided is enriched first (the GPU NVML knows at its address, the pod of its pid), then decided by
        the engine; a decision a repeat may count without deciding is remembered by the coalescer.  An amendment
        (parsers/rules.py EVENT_AMENDS: an event's finding again, made worse or given its address) is always decided
        (the same amendment of a later event is that event's, no repeat) and never counted as another finding."""
        name = batch[0].source
        # one classifier per stream (a source, or a file a source follows; a batch is from one stream): an open
        # multi-line event or an NVRM banner of one file never reaches another's lines
        stream = name if batch[0].stream is None else f"{name}:{batch[0].stream}"
        classifier = self.classifiers.get(stream)
        if classifier is None:
            classifier = self.classifiers[stream] = self._classifier.for_stream()
        change = Change()
        epoch, guard, already_seen = self.boot.epoch, self.guard, self.xids.already_seen
        repeat, remember, noted = self.coalescer.repeat, self.coalescer.remember, self.workloads.note_finding
        decide, gpu, known, pods = self.engine.decide, self.gpu, self.known_gpus, self.pods
        dated, utc = datetime.fromtimestamp, timezone.utc  # (a decided kmsg line's wall time)
        fresh: list[tuple] = []  # the counter labels of the findings decided anew
        read = classifier.read
        for rec in batch:
            line, amended = read(rec.line)
            # the line's own finding, then the earlier findings it amended (an address it gave: decided after it)
            for f in (line, *amended) if amended else (line,):
                if f is None:
                    continue
                if not from_kernel(f):  # the one rule `gpu-npd parse` applies too
                    self.metrics.forged.labels(name, f.kind).inc()
                    continue
                if f.kind == "xid":
                    if already_seen(f, name):
                        continue
                elif guard is not None and guard.explains(f, epoch):
                    self.metrics.self_caused.labels(f.kind, f.pci or "unknown").inc()
                    continue
                amendment = amends(f)
                due = None if amendment else repeat(name, f)
                if due is False:  # a repeat counted, nothing more: no datetime built (seen_at reads its kmsg stamp)
                    continue
                if f.timestamp is None and f.uptime is not None and epoch is not None:
                    f.timestamp = dated(epoch + f.uptime, utc)  # its wall time, for what it goes on to
                annotate(f, gpu.gpu_map, known)  # (the inventory's map: the poller's thread replaces it)
                if due:  # a repeat noted as a possible cause, at most once a second: with its GPU index, as its first,
                    noted(f)  # so that a failure after it names the same GPU
                    continue
                if f.kind == "xid" and f.pid is not None:
                    pod = pods(f.pid)
                    if pod is not None:
                        f.details["pod"] = f"{pod.namespace}/{pod.pod}"
                        if f.attribution == "application":
                            self._events.append(self.workloads.observe_app_xid(pod, f))  # the pod that caused it
                noted(f)
                labels = labels_of(f)
                outcome = decide(f, "kernel", change)  # a kernel-log problem (a new boot clears it)
                if outcome is not None:
                    remember(name, f, outcome, labels)
                if not amendment:
                    fresh.append(labels)
        change = self.engine.derive(change)  # one decision of conditions for the whole batch
        # then its findings into the metrics (in that order: whoever sees a finding counted sees the conditions
        # it raised); a flood's findings share a few label sets: one increment each
        self._name_xids()
        count = self.metrics.count_finding
        for labels, n in Counter(fresh).items():
            count(labels, n)
        for source, labels, n in self.coalescer.flush():
            self.metrics.coalesced.labels(source).inc(n)
            count(labels, n)
        if batch[-1].cursor is not None:  # sources that keep their own offsets leave it None
            self.cursors[name] = batch[-1].cursor
        self.metrics.records.labels(name).inc(len(batch))  # counted once processed: a test may wait on it
        return change

    def _name_xids(self) -> None:
        """Once NVML's first init concluded (GPUs named, or it failed or missed its deadline: then they stay
        unnamed), the Xids held for it are counted (agent/metrics.py hold_xids).  The status is set after the
        inventory's map, on the poller's thread: a status past `starting` has its map."""
        if self.metrics.holding_xids and self.gpu.status != "starting":
            self.metrics.name_xids(self.gpu.gpu_map)

    # ---- other inputs ---------------------------------------------------------------------------------

    def _samples(self, batch: SampleBatch) -> Change:
        now = self.clock()
        judged = {r.subject: self.judge.judge(r, now) for r in batch.readings}
        if self.peers is not None:
            for subject, verdicts in self.peers.judge(batch.readings, now).items():
                judged[subject] = judged.get(subject, []) + verdicts
        change = self.engine.sync(batch.source, judged)
        if not batch.gpus <= self.known_gpus:  # GPUs learned: the problems raised on them as `pci:` are theirs
            self.known_gpus = self.known_gpus | batch.gpus
            self.engine.learn_gpus(self.known_gpus, change)
        self._readings = (self._readings[1], batch.readings)
        self.judge.forget(set(judged))
        self.metrics.set_readings(batch.readings, batch.stats)
        self._name_xids()
        return change

    def _checked(self, batch: CheckBatch) -> Change:
        """One run of a plugin config: its rules' results are what stands for them (permanent -> the
        condition, temporary -> an Event-only problem); counted per result, its duration kept."""
        name = batch.cfg.source
        for res in batch.results:
            self.metrics.check_runs.labels(name, "Skipped" if res.status.startswith("Skipped") else res.status).inc()
        self.metrics.check_duration.labels(name).set(max((r.duration for r in batch.results), default=0.0))
        self.metrics.check_last_run.labels(name).set(self.clock())
        return self.engine.sync(f"check:{name}", judge_checks(batch.cfg, batch.results, self.check_severity))

    def _pod_findings(self, batch: WorkloadFindings) -> Change:
        try:
            standing = self.workloads.standing(self.engine.problems.values())  # once: nothing changes it meanwhile
            change = Change()
            events, later = _pod_events(batch.items)
            for ref, f in events:
                annotate(f, self.gpu.gpu_map, self.known_gpus)
                at = seen_at(f, self.clock())  # an unstamped line: when read
                holds = self._holds_gpus(ref, f, at)
                daemon = daemon_of(ref, f)  # once: the Event's and the node's count's
                event = self.workloads.observe(ref, f, standing, daemon)
                if event is not None:  # (None: an info finding, counted only)
                    self._events.append(event)
                    # a node daemon's own fault (the Event `observe` made is `_daemon_fault`'s): the node's finding
                    if daemon is not None:
                        self.metrics.count_finding(labels_of(f))
                if holds:
                    self.engine.decide(f, "pods", change)  # its kind's `repeated` row: the node's past N workloads
                elif holds is None and self.pod_devices is not None and f.kind in ON_GPU_PODS and \
                        ref.uid not in self._unsure:  # (no cache, no answer to wait for: counted only)
                    if len(self._unsure) >= UNSURE_MAX:
                        del self._unsure[next(iter(self._unsure))]
                    self._unsure[ref.uid] = (self.clock(), at, ref, f)
            for ref, f in later:  # amending what an earlier batch's Event said: that Event re-worded (when it quotes
                annotate(f, self.gpu.gpu_map, self.known_gpus)  # the finding amended), nothing counted or decided again
                event = self.workloads.amend(ref, f)
                if event is not None:
                    self._events.append(event)
            if self.progress is not None:
                from .progress import Mark  # noqa: PLC0415 - loaded already with the tracker (agent/app.py)

                for ref in batch.restarted:  # before the new run's lines (read in the same poll)
                    self.progress.restarted(ref)
                for ref, marks in batch.progress:
                    self._events += self.progress.observe(ref, [Mark(at, p) for at, p in marks])
        finally:
            if batch.done is not None:  # taken (a batch an internal error stops is skipped, not re-read)
                batch.done()
        return self.engine.derive(change) if change else change

    def _holds_gpus(self, ref: PodRef, f: Finding, at: float) -> bool | None:
        """For a kind that is the node's only in a pod that holds GPUs (parsers/kinds.py `pod_holds_gpus`): whether
        `ref` holds some (None: unknown; False for every other kind).  Where it does, `f` carries its pod's workload
        (`workload`: namespace/job, what its kind's `repeated` row counts) and the Event says the node's runtime.  `at`:
        when the line was written (wall clock), an answer asked after it the kubelet's word on the pod."""
        taker = taken_by(f.kind, f.details.get("driver_error"))
        if f.kind not in ON_GPU_PODS and taker is None:
            return False
        reset = self._reset(at)
        if reset is not None:  # the GPUs were being reset (NVML released for it): the reset's, not the node's fault
            f.severity, f.details["during"] = "info", reset  # (counted only: no Event, nothing decided)
            return False
        holds = self.pod_devices.holds_gpus(ref, at) if self.pod_devices is not None else None
        if taker is not None:  # another kind's words (parsers/kinds.py `takes`: NVML's "Failed to initialize NVML:
            # Unknown Error" in the container): the pod's lost access only where it holds GPUs and the host's NVML
            # answers for each of them; else (unknown included: not held) its own kind's, the node's driver
            if not holds or not self._host_answers(ref):
                return False
            row = KIND[taker]
            f.kind, f.severity, f.attribution, f.action = row.name, row.severity, row.attribution, row.action
        if holds:
            f.details["workload"] = f"{ref.namespace}/{job_of(ref.pod)}"
        return holds

    def _reset(self, at: float) -> str | None:
        """Why NVML was released when a pod's line was written (`at`, wall clock: a GPU reset, agent/gpu/collector.py
        `released`), or None: a pod whose GPUs are being reset cannot see them, whatever it holds."""
        released = self.gpu.released
        if released is None or not released[0] <= at <= released[1]:
            return None
        return f"NVML released for a GPU reset ({', '.join(released[2])})"

    def _host_answers(self, ref: PodRef) -> bool:
        """Whether the agent's own NVML answers for every GPU the kubelet says `ref` holds (the inventory's map: GPUs
        read by their UUID, a MIG device by its parent's where its id names it; one whose id does not, R470+'s
        `MIG-<uuid>`, where NVML answers for every GPU of the node, whichever it is on); False while NVML is off,
        starting or failing, or the pod's GPUs are unknown."""
        owned, gpu = self.pod_devices(ref) if self.pod_devices is not None else None, self.gpu
        gpus = owned.kubelet_gpus if owned is not None else frozenset()
        if not gpus or gpu.status != "ok":
            return False
        names = gpu.gpu_map.every  # (made once per inventory: GpuMap.build)
        unnamed = [g for g in gpus if g not in names]
        return not unnamed or (all(map(is_mig, unnamed)) and gpu.answers_for_all())  # asked once, where needed

    def recheck_gpu_access(self, final: bool = False) -> Change:
        """The findings of `_holds_gpus` whose pod's devices were unknown when read, asked again (each tick): a pod
        the kubelet now says holds GPUs has its Event and counts for the node; one it says holds none, or still
        unknown UNSURE_SECONDS after, is dropped (counted only, as read).  Then the busy Events whose NVML answer has
        come (agent/workloads.py `answered`); `final` (shutdown): every one still waiting, made without it."""
        change, now = Change(), self.clock()
        for uid, (since, at, ref, f) in list(self._unsure.items()):
            holds = self._holds_gpus(ref, f, at)
            if holds is None and now - since < UNSURE_SECONDS:
                continue
            del self._unsure[uid]
            if holds:
                event = self.workloads.gpu_access(ref, f)
                if event is not None:  # (None: it waits for NVML's answer, below at a later tick)
                    self._events.append(event)
                self.engine.decide(f, "pods", change)
        self._events += self.workloads.answered(final)
        return self.engine.derive(change) if change else change

    def judge_progress(self, live_uids: set[str] | None) -> None:
        """Every tick: pods silent past their allowance are suspected hung (their Events go with the next
        publish); `live_uids`: the pods whose logs still exist."""
        if self.progress is not None:
            tracked = len(self.progress.pods)
            events = self.progress.tick(live_uids, self.engine.problems.values(), self._readings)
            if events or len(self.progress.pods) != tracked:  # a suspicion raised, a pod gone: saved (restarts)
                self.dirty = True
            self._events += events

    def _node(self, info: NodeInfo) -> Change:
        """The Node's nvidia.com/gpu capacity is the expected GPU count unless one is configured."""
        if info.gpus and not self.expected_gpus:
            self.gpu.expected_gpus = info.gpus
        return Change()

    def to_state(self) -> dict:
        """What the pipeline's stages remember across a restart (agent/checkpoint.py writes it)."""
        guard = self.guard
        return {"cursors": self.cursors, "samples": self.judge.to_state(),
                "counter_guard": guard.to_state() if guard is not None else None,
                "progress": self.progress.to_state() if self.progress is not None else self.kept.get("progress", {}),
                **self.engine.to_state()}

    def scan_failures(self) -> int:
        """Messages the rule table's keyword scan failed on (parsers/classify.py `Dispatch.scan_failures`): the one scan
        of every stream's classifier and of the pod log source's (one table)."""
        return self._classifier.dispatch.scan_failures

    def classifier_evictions(self, which: str) -> int:
        """Evictions of one bounded cache (`uuid_evictions`, `memo_evictions`) summed over the classifiers."""
        return sum(getattr(c, which) for c in list(self.classifiers.values()))

    # ---- out ----------------------------------------------------------------------------------------------

    def publish(self, change: Change, always: bool = False) -> Snapshot | None:
        """Hand what changed to every sink as one snapshot; None (and no sink called) when nothing did, unless
        `always` (at start: the state as it stands)."""
        for xid, reason in change.held:
            self.metrics.count("xid_policy_held", (str(xid), reason))
        if not (change or self._events or always):
            return None
        events, self._events = tuple(self._events), []
        snapshot = self.engine.snapshot(change, events)
        for sink in self.sinks:
            try:
                sink.apply(snapshot)
            except Exception:  # a sink failing never stops detection
                log.exception("sink %s failed", type(sink).__name__)
        return snapshot

