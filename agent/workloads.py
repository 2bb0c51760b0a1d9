"""Workload failures from pod logs: metrics, Pod Events, and the node fault that likely caused them.

Never raises node problems: a pod's NCCL timeout says something about the job, and only a node
fault seen by the kernel or telemetry makes the node unhealthy.  One exception in kind, never in
conditions: a node daemon that runs in a pod (parsers/kinds.py `daemon_pod`: the DRA driver's
ComputeDomain daemon runs nvidia-imex) says the node's faults in its own log; such a finding from
that container is the node's (a cause of its jobs' failures, counted as the node's finding, its
pod's Event saying so), not the pod's application failure.
"""

from __future__ import annotations

import re
import time
from collections import deque
from dataclasses import replace
from datetime import datetime, timezone
from types import EllipsisType
from typing import Callable, Iterable

from parsers import Cause, CauseIndex, Finding, explain, likely_cause
from parsers.catalog import xid_reason
from parsers.correlate import Noted, Ranks, can_cause, describe
from parsers.kinds import BY_NAME as KIND, CUDA_REASONS, SEVERITY_RANK, TABLE as KINDS
from parsers.finding import restated, seen_at
from parsers.model import PodEvent, PodRef, Problem
from kubeapi.message import MESSAGE_MAX, cut

from .gpu.interface import COMPUTE_MODES

# finding kind -> Pod Event reason: a workload kind's own (parsers/kinds.py); CUDA errors refined by their text
EVENT_REASONS = {k.name: k.reason for k in KINDS if k.workload}
# the kinds that are the node's fault only in a pod that holds GPUs (parsers/kinds.py `pod_holds_gpus`)
ON_GPU_PODS = frozenset(k.name for k in KINDS if k.pod_holds_gpus)
# A pod that holds GPUs and could not use them: what happened and what to check when it repeats on the node are the
# kind's words (parsers/kinds.py `in_gpu_pod`).  gpu_access_lost, no device or no driver in the container: its devices
# were taken away (NVIDIA/nvidia-container-toolkit #48, #251; NVIDIA/nvidia-docker #1671).  gpu_busy, busy or
# unavailable (rules.CUDA_BUSY, 46): the container sees the GPU and was refused a context on it, which the container
# runtime never decides (it only grants the device nodes, NVIDIA/nvidia-container-runtime #139): another process holds
# the GPU in exclusive-process mode (a python process on every GPU, NVIDIA/nvidia-docker #572; a DIGITS process on an
# "E. Process" GPU 0, NVIDIA/DIGITS #2005; the device plugin's MPS sharing, its server the GPU's one process, refusing
# a pod: NVIDIA/k8s-device-plugin #647, #1118), or the GPU's compute mode is Prohibited.
# what to check when a gpu_busy Event names the GPUs' processes itself (`users_words`): in place of its kind's, so that
# the Event stays within the API server's MESSAGE_MAX with them
GPU_BUSY_NAMED = ("the processes this Event names: one no running pod owns keeps the GPU until it is killed, and a "
                  "restarted pod given that GPU fails again")
# A gpu_busy Event names who holds each of the pod's GPUs (agent/app.py `_gpu_users`: NVML's compute mode and compute
# processes, each pid's pod), asked when a job's Event is first made and again no sooner than this after
USERS_ASK_SECONDS = 60.0
# (GPU index, PCI address, compute mode, [(pid, its pod or None)]) per GPU the pod holds, or why they are not named
Users = list[tuple[int, str, int, list[tuple[int, PodRef | None]]]] | str
# what `gpu_users(ref)` gives: the answer now, or (NVML asked on a thread of its own) the answer to come: None until it
# has come (or why there is none: its deadline passed)
Asked = Users | Callable[[], Users | None]
STOPPED = "the agent stopped before NVML answered"  # a busy Event still waiting for its answer at shutdown
_ORDINAL = re.compile(r"(-(worker|master|launcher|rank))?-\d+$")
# An Indexed Job's completion index last in the name its pods' generated suffix follows (`<job>-<index>-<5>`, KEP-2214):
# no leading zero, below 10^7 (the API caps an Indexed Job's parallelism at 10^5, kubernetes pkg/apis/batch/validation
# maxParallelismForIndexedJob, completions past 10^5 only with parallelism at most 10^4). Not a CronJob's run's number:
# its Job is `<cronjob>-<scheduled time since the epoch>` (pkg/controller/cronjob getJobName: minutes, 8 digits since
# 1989; seconds before 1.21's controller), each run a Job of its own
_INDEX = re.compile(r"-(?:0|[1-9]\d{0,6})\Z")
# An MPIJob's launcher: a Job `<mpijob>-launcher` (mpi-operator v2), its pod `<mpijob>-launcher-<5>`, its workers
# `<mpijob>-worker-<n>` (_ORDINAL): the launcher's role last after the generated suffix, so the launcher and its
# workers are one job (kubeflow/mpi-operator #152: `..-1572827779-launcher-gdqv7`, `..-1572827779-worker-19`)
_LAUNCHER = re.compile(r"-launcher\Z")


def users_words(users: Users) -> str:
    """A gpu_busy Event's sentence on who holds the pod's GPUs (`Users`): each GPU's compute mode and the processes on
    it with their pods, a process no running pod owns (one an earlier pod left behind) said so; or why they are not
    named."""
    if isinstance(users, str):
        return f"The processes on its GPUs are not named: {users}."
    said = []
    for index, pci, mode, procs in users:
        who = ", ".join(f"pid {pid} ({f'pod {ref.namespace}/{ref.pod}' if ref is not None else 'no running pod'})"
                        for pid, ref in procs) or "no process"
        said.append(f"GPU {index} ({pci}) {COMPUTE_MODES.get(mode, f'mode {mode}')}: {who}")
    return f"Now on its GPUs (NVML's index, compute mode, compute processes): {'; '.join(said)}."


def _asked(ask: Callable, *args) -> Users | Callable[[], Users | None] | None:
    """`ask(*args)` (`gpu_users`, or the answer it gave to come), its fault said as the answer: the Event is made
    whatever the question's fault."""
    try:
        return ask(*args)
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"[:200]


def event_reason(f: Finding) -> str:
    if f.kind == "cuda_error":
        return CUDA_REASONS.get(str(f.details.get("cuda_error", "")), "CUDAError")
    if f.kind == "xid" and f.xid is not None:
        return xid_reason(f.xid)
    return EVENT_REASONS.get(f.kind, "WorkloadError")


def daemon_of(ref: PodRef, f: Finding) -> str | None:
    """The node daemon whose own log `ref` is and that said `f` (parsers/kinds.py `daemon_pod`: its container), else
    None."""
    row = KIND.get(f.kind)
    daemon = row.daemon_pod if row is not None else None
    return daemon[1] if daemon is not None and ref.container == daemon[0] else None


def job_of(pod: str) -> str:
    """The job of pod `pod` by its name (the agent reads pod logs, never the pod's labels): pods of one job aggregate
    together.  A name ending in its ordinal is the job's name and that ordinal (PyTorchJob's `train-worker-0`, a
    StatefulSet's); else the name a generated suffix was appended to (triage.ranks `generated_from`), without an
    index last (`_INDEX`): an Indexed Job's pod `<job>-<index>-<5>` is its Job's (KEP-2214), a JobSet's `<jobset>-
    <rjob>-<jobindex>-<podindex>-<5>` its child Job's, the `batch.kubernetes.io/job-name` its pods carry (`network-
    jobset-leader-0-0-2qphg` of Job `network-jobset-leader-0`: kubernetes-sigs/jobset #578); a non-indexed Job's pod,
    a CronJob's run's (`hello-28290331-<5>`), a ReplicaSet's, the Job's, the ReplicaSet's; an MPIJob's launcher
    (`<mpijob>-launcher-<5>`) its workers' (`_LAUNCHER`).  Names alone cannot tell a
    Job named `train-7` (its pods `train-7-<5>`) from index 7 of an Indexed Job `train`: read as the latter, two such
    Jobs on one node are one job here (one Event per reason, one workload: fewer, never more).  Was: every such pod
    its own job (its Events, witnesses and workloads one per pod)."""
    job = _ORDINAL.sub("", pod)
    if job != pod:
        return job
    # imported here: pods' names are asked only of pod logs' findings, which bring the `triage` package anyway
    # (agent/sources/podlogs.py); an agent without pod logs never holds it (issue 24's idle footprint)
    from triage.ranks import generated_from  # noqa: PLC0415

    return _LAUNCHER.sub("", _INDEX.sub("", generated_from(pod)))


MAX_JOBS = 1024  # (namespace, job, reason, cause) keys remembered for Event aggregation; oldest forgotten first
MAX_RANKS = 4096  # ranks remembered per key (a job's size; the Event shows the count and the first 16)
MAX_RANKS_TOTAL = 32768  # ranks remembered over all keys: past it the oldest keys are forgotten (counted)
# the least severity of a pod's finding that its Pod Event says: an info finding (a link up, a driver load, a
# register read the firmware refused, as a container may print them) is counted, never said as the job's failure
EVENT_FLOOR = SEVERITY_RANK["warning"]
EXCERPT = 160  # characters of the offending line quoted in an Event
# ranks whose collective a timeout's Event remembers per key (triage.facts collectives_words lists 4 distinct ones, 8
# ranks each): the first seen
MAX_COLLECTIVE_RANKS = 32
_UNPRINTABLE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x1f\x7f-\x9f]")  # ANSI/CSI, C0, C1


def quoted(text: str) -> str:
    """A sanitised excerpt of a container's line for an Event: escapes and control characters removed,
    length-capped, clearly marked as the container's words (never read as ours)."""
    clean = " ".join(_UNPRINTABLE.sub(" ", text).split())
    if len(clean) > EXCERPT:
        clean = clean[:EXCERPT - 1] + "\u2026"
    return f' Container output: "{clean}"' if clean else ""


def _stated(f: Finding) -> str:
    """The Event's words for a finding its pod's log printed after stating the job's success (agent/sources/podlogs.py
    `_teardown`: triage.teardown `stated_words`, which the cluster reads back), else none."""
    return f.details.get("stated_success", "")


def _outranks(f: Finding, quote: tuple[float, Finding, str]) -> bool:
    """Whether `f` is a better line for its Event to quote than the one it quotes (`quote`): a line that decides a
    cause outranks the aftermath of another failure, a completion error's flushed work request
    (triage.attribute.flushed: NCCL's `status=5` after the `status=12` that broke the connection), which the cluster
    reads as deciding nothing.  Nothing else does: the quote moves at most once per failure (the Event with it, to the
    pod that wrote the line: one Event more, never one per repeat)."""
    from triage.attribute import flushed  # noqa: PLC0415 (see `observe`)

    return flushed(quote[1]) and not flushed(f)


def _cause(p: Problem, at: float) -> Cause:
    return Cause(at, f"{p.reason} on {p.subject.split(':', 1)[-1]}", p.severity)


def _key(ref: PodRef, reason: str, cause: Cause | None, job: str) -> tuple[str, str, str, str]:
    """A pod failure's Event key (its aggregation): one Event per namespace, job, reason and likely cause."""
    return ref.namespace, job, reason, cause.text if cause else ""


class WorkloadTracker:
    def __init__(self, metrics, window: float = 600.0, pod_label: bool = False,
                 clock: Callable[[], float] = time.time):
        self.metrics, self.window, self.pod_label, self.clock = metrics, window, pod_label, clock
        # the node faults that may explain a failure, the latest 512: a finding's as the fields of its Noted (what
        # `describe` reads of it, never the finding: its message alone may be 4 KiB) until a failure asks (`_cause`
        # describes it then; most are never asked about), a telemetry problem's as its Cause
        self.causes: deque[Cause | tuple] = deque(maxlen=512)
        self._index: CauseIndex | None = None  # of `causes`, built when a failure needs it after they changed
        self._ranks: dict[tuple, Ranks] = {}
        self._first: dict[tuple, PodRef] = {}
        # a job fact's key -> (when, the Event's message, whether it names the culprit, its line): its first (that
        # names one)
        self._said: dict[tuple, tuple[float, str, bool, int]] = {}
        # any other key -> (when, its first finding without its line, that line quoted): what its Event says and quotes
        self._quote: dict[tuple, tuple[float, Finding, str]] = {}
        # the quoted line's (pod, kind, line) -> (its key, the cause its Event said): what `amend` re-words, found
        # though the node's standing problem changed since (one per quote, forgotten with it: `_unquote`)
        self._quoted: dict[tuple[PodRef, str, int | None], tuple[tuple, Cause | None]] = {}
        # a watchdog timeout's key -> (each rank's collective, in the order seen; the Event's words for them): said so
        # that the cluster compares the job's ranks' collectives across its nodes (triage.facts collectives_words)
        self._colls: dict[tuple, tuple[dict[int, object], str]] = {}
        # (namespace, job) -> its keys (those of `_ranks`, in its order; forgotten with them): what a consequence asks
        # of its job (`_spoke`) without a walk of every key remembered
        self._jobs: dict[tuple, dict[tuple, None]] = {}
        self._rank_total = 0
        # who holds a busy pod's GPUs (`users_words`), asked of `gpu_users(ref)` (agent/app.py; None: not asked): the
        # Event key's last answer and when it was asked (USERS_ASK_SECONDS), the latest MAX_JOBS keys; the keys whose
        # answer is to come (when asked, the answer), and the lines whose Event waits for it, per key and pod (the
        # latest line, and how many), at most MAX_JOBS (`answered` makes their Events)
        self.gpu_users: Callable[[PodRef], Asked] | None = None
        self._users: dict[str, tuple[float, str, bool]] = {}
        self._asking: dict[str, tuple[float, Callable[[], Users | None]]] = {}
        self._waiting: dict[tuple[str, PodRef], tuple[Finding, int]] = {}
        self.evictions = 0  # keys forgotten to stay within MAX_JOBS / MAX_RANKS_TOTAL

    # ---- node side ------------------------------------------------------------------------------------

    def note_finding(self, f: Finding) -> None:
        """A node finding that could break a job (parsers/correlate.py `can_cause`) is a possible cause of failures
        after it; its severity kept as noted (before the Xid policy rewrites it: agent/pipeline.py).  Kept as the
        fields of its parsers/correlate.py `Noted`, in their order: a plain tuple (a Noted made here costs ~3k
        instructions more, a function on a kernel line's path: bench/callpath.py), made a Noted when a failure asks
        (tests/agent/test_workloads.py checks each field holds the finding's value of its name)."""
        if can_cause(f):
            d = f.details
            self.causes.append((f.timestamp.timestamp(), f.severity, f.kind, f.xid, f.sxid, f.pci, d.get("netdev"),
                                d.get("gpu_index")))
            self._index = None

    def note_problem(self, p: Problem) -> None:
        """Telemetry problems (GPU lost, IB port down, ...) are causes too."""
        if p.kind == "telemetry" and p.attribution in ("hardware", "fabric", "driver") and p.severity in ("error", "fatal"):
            self.causes.append(_cause(p, p.first_seen))
            self._index = None

    @staticmethod
    def standing(problems: Iterable[Problem]) -> Problem | None:
        """Of the node's problems now, the one a failure may be blamed on beyond the causes remembered: the fatal
        hardware or fabric problem seen last.  Picked once per batch of pod findings, so a finding costs the
        same whatever the number of problems standing (issue 31: 27 s of CPU at 4,096)."""
        return max((p for p in problems if p.severity == "fatal" and p.attribution in ("hardware", "fabric")),
                   key=lambda p: p.last_seen, default=None)

    def _cause(self, f: Finding, standing: Problem | None) -> Cause | None:
        """The likeliest cause of `f` (dated): the best remembered one (by an index built once while they stand
        still), or `standing` (dated no later than `f`: it stands still) when it is more severe or later."""
        if self._index is None:  # the findings noted since the last failure described now, once
            self.causes = deque((c if isinstance(c, Cause) else Noted(*c).cause() for c in self.causes),
                                maxlen=self.causes.maxlen)
            self._index = CauseIndex(self.causes)
        remembered = likely_cause(f, self._index, self.window)
        if standing is None:
            return remembered
        now = _cause(standing, min(standing.last_seen, f.timestamp.timestamp()))
        return likely_cause(f, [c for c in (remembered, now) if c is not None], self.window)

    # ---- pod side --------------------------------------------------------------------------------------

    def apply(self, snapshot) -> None:
        """The sink interface: telemetry problems raised are possible causes."""
        for p in snapshot.new_problems:
            self.note_problem(p)

    def observe(self, ref: PodRef, f: Finding, standing: Problem | None = None,
                daemon: str | None | EllipsisType = ...) -> PodEvent | None:
        """A workload failure in a pod's log (`standing`: the node's problem it may be blamed on, see
        `standing`): the Event it makes; None for a finding under EVENT_FLOOR (counted only).  `daemon`: `daemon_of(ref,
        f)` where the caller has it (agent/pipeline.py, which counts a daemon's finding as the node's), else asked
        here.  A finding amending one of an earlier batch: `amend`."""
        labels = [ref.namespace, f.kind] + ([ref.pod] if self.pod_label else [])
        self.metrics.count("workload_findings", tuple(labels))
        if not self._said_of(f):
            return None
        self._dated(f)
        if daemon is ...:
            daemon = daemon_of(ref, f)
        if daemon is not None:
            return self._daemon_fault(ref, f, daemon)
        if f.kind in ON_GPU_PODS:  # the node's only in a pod the kubelet says holds GPUs (agent/pipeline.py `_holds_gpus`)
            return self.gpu_access(ref, f) if f.details.get("workload") else None  # else counted only
        # imported here: the job facts (the `triage` package) matter only once pod logs are read, which brings them
        # anyway (agent/sources/podlogs.py); an agent without pod logs never holds them (issue 24's idle footprint)
        from triage.facts import live, names_culprit  # noqa: PLC0415
        from triage.facts import words as fact_words  # noqa: PLC0415

        fact = live(f.kind, f.details.get("fact"))
        job = job_of(ref.pod)
        if fact is not None and f.details.get("consequence") and self._spoke(
                _key(ref, fact.reason, None, job), seen_at(f, self.clock())):
            return None  # a consequence (Ray's RayChannelTimeoutError: a failure elsewhere made its rank raise it) is
            # said once a job on the node, where nothing else of the job's failure was (counted only): a 1,000-rank
            # job's one fault adds no Event where the node said it, and one at most where it said nothing
        cause = self._cause(f, standing) if fact is None else None
        reason = event_reason(f) if fact is None else fact.reason
        key = _key(ref, reason, cause, job)
        ranks = self._ranks.get(key)
        if ranks is None:
            ranks = self._ranks[key] = Ranks(MAX_RANKS)
            self._jobs.setdefault(key[:2], {})[key] = None
        self._add_rank(ranks, f)
        first = self._first.setdefault(key, ref)  # one Event per job and reason: on the first pod that said it
        if fact is None:  # the job's first failure of the kind on this node is quoted (and said), the ranks counted:
            # its later lines are often the first's consequences (NCCL's flushed work requests after the completion
            # error that broke the link, nccl-1814-ib), and the Event is on the first pod (`first`), whose line it is.
            # A first line that decides nothing gives way to the first that does (`_outranks`), whichever pod's log was
            # read first (deepspeed-6875-ib-retry: the flushed requests' pod read before the retries-exceeded one's)
            at = seen_at(f, self.clock())
            quote = self._quote.get(key)
            if quote is not None and at - quote[0] > self.window:  # (a later failure: the job restarted since)
                quote = None
                self._colls.pop(key, None)
            if quote is None or (quote[0] - at <= self.window and _outranks(f, quote)):
                self._unquote(key)
                quote = self._quote[key] = (at, replace(f, message=""), quoted(f.message))
                self._first[key] = first = ref
                self._quoted[(ref, f.kind, f.line)] = (key, cause)
            message, line_at = self._quote_words(key, f, quote, cause, ranks, first), quote[0]
        else:  # a job fact (triage.facts.LIVE_FACTS): the job's first on this node names the culprit, repeats count;
            # a witness's (a rank a barrier failed, naming none) gives way to the job's first that names one, and a
            # fact its pod's log read after a later line's (held back for the lines after it: Slurm's OOM summary, for
            # srun's node, agent/sources/podlogs.py `_block`) to the earlier line's (by time, then line; another pod's
            # never: the Event stays on its pod)
            at = seen_at(f, self.clock())
            said = self._said.get(key)
            named = names_culprit(fact, f.details)
            # (a fact of a later failure: the job restarted since)
            if said is None or at - said[0] > self.window or (named and not said[2]) or \
                    (ref == first and (named or not said[2]) and said[0] - at <= self.window and
                     (at, f.line or 0) < (said[0], said[3])):
                said = self._said[key] = (at, f"{fact_words(fact, f.details)}{_stated(f)} [container {ref.container}]"
                                              f"{quoted(f.message)}", named, f.line or 0)
                self._first[key] = first = ref
            message, line_at = said[1], said[0]
        # the quoted line's own time travels with the Event (kubeapi.events: its eventTime), by which the cluster
        # orders the job's ranks across its nodes (cluster/evidence.py)
        event = PodEvent(first, reason, message, "|".join(key), at=line_at)
        self._evict()
        return event

    def _evict(self) -> None:
        """The jobs remembered longest ago forgotten past MAX_JOBS, or past MAX_RANKS_TOTAL ranks in all."""
        while len(self._ranks) > MAX_JOBS or (self._rank_total > MAX_RANKS_TOTAL and len(self._ranks) > 1):
            oldest = next(iter(self._ranks))
            self._rank_total -= len(self._ranks.pop(oldest))
            self._unquote(oldest)
            self._first.pop(oldest, None)
            self._said.pop(oldest, None)
            self._quote.pop(oldest, None)
            self._colls.pop(oldest, None)
            keys = self._jobs[oldest[:2]]
            del keys[oldest]
            if not keys:
                del self._jobs[oldest[:2]]
            self.evictions += 1

    def _unquote(self, key: tuple) -> None:
        """The line `key`'s Event quotes (if any) no longer found by `amend` (its quote replaced or forgotten)."""
        quote = self._quote.get(key)
        if quote is not None:  # (its entry only: a restarted container's line of that number may be another key's)
            line = (self._first[key], quote[1].kind, quote[1].line)
            if self._quoted.get(line, ((),))[0] == key:
                del self._quoted[line]

    def amend(self, ref: PodRef, f: Finding) -> PodEvent | None:
        """`f` amends (parsers/rules.py EVENT_AMENDS) a finding of this pod read in an earlier batch, whose Event was
        said (agent/pipeline.py `_pod_events`): never counted again; the Event that quotes that finding re-worded with
        what the amendment gave (Ray's OOM kill: the node its next line named; NCCL's socket error: the peer, the rank),
        as one occurrence (PodEvent count 0); None where no Event quotes it (another rank's line, a fact, a daemon's
        fault, a pod's GPU access: those Events quote nothing amended).  The Event is the one the finding was quoted
        under (`_quoted`), its key and cause as said: a node problem raised or cleared since changes neither."""
        # (a pod's GPU access, a daemon's fault: ref's container and f's kind, which the `_quoted` key holds, and
        # `observe` quotes neither: no lookup of theirs finds a quote)
        if not self._said_of(f):  # false where its own read marked it teardown (podlogs `_teardown`: after_success)
            return None
        from triage.facts import live  # noqa: PLC0415 (see `observe`)

        if live(f.kind, f.details.get("fact")) is not None:  # true only where a fill gives "fact" (EVENT_FILL_*: none)
            return None
        key, cause = self._quoted.get((ref, f.kind, f.line)) or ((), None)
        quote = self._quote.get(key)
        if quote is None:
            return None
        self._dated(f)
        quote = self._quote[key] = (quote[0], replace(f, message=""), quote[2])
        ranks = self._ranks[key]  # (forgotten with its quote)
        self._add_rank(ranks, f)  # (a rank the amendment gave: parsers/rules.py EVENT_FILLS)
        event = PodEvent(ref, key[2], self._quote_words(key, f, quote, cause, ranks, ref), "|".join(key),
                         at=quote[0], count=0)
        self._evict()  # (the rank it added counts toward MAX_RANKS_TOTAL)
        return event

    def _said_of(self, f: Finding) -> bool:
        """Whether a pod's finding may be said in an Event (else counted only)."""
        if SEVERITY_RANK[f.severity] < EVENT_FLOOR:
            return False
        if f.details.get("after_success"):  # its file stated the job's success before: its teardown, no failure
            return False  # (agent/sources/podlogs.py `_teardown`, triage.teardown; counted only)
        if restated(f):  # a line restating another program's that the agent reads itself (parsers/rules.py
            return False  # Rule.restates: the device plugin's "XidCriticalError: Xid=94 on Device=GPU-.." says the
            # kernel's Xid line again): neither the pod's failure nor a second node finding; counted only
        return True

    def _dated(self, f: Finding) -> None:
        """A finding to be said whose line is not dated: dated when read."""
        if f.timestamp is None:
            f.timestamp = datetime.fromtimestamp(self.clock(), timezone.utc)

    def _add_rank(self, ranks: Ranks, f: Finding) -> None:
        if f.rank is not None and ranks.add(f.rank):
            self._rank_total += 1

    def _quote_words(self, key: tuple, f: Finding, quote: tuple[float, Finding, str], cause: Cause | None,
                     ranks: Ranks, first: PodRef) -> str:
        """The Event's message for the line it quotes (`quote`, `_quote`'s: `f` its latest finding under `key`):
        what failed, its likely cause, the ranks, the collectives, the node and Ray task its line names, the line."""
        from triage.facts import node_named_words, ray_task_words  # noqa: PLC0415 (see `observe`)

        colls = self._collectives(key, f) if f.kind == "nccl_timeout" else ""
        # the Ray task's process the quoted failure was raised in (agent/sources/podlogs.py: its node, not this one)
        task = ray_task_words(quote[1].details.get("task_pid"), quote[1].details.get("task_host"))
        # the node its line names (triage.facts NODE_NAMED: Ray's OOM kill), which its excerpt may not say
        node = node_named_words(quote[1].details)
        return (f"{explain(quote[1], cause, self.window, ranks)}{'. ' + colls if colls else ''}"
                f"{'. ' + node if node else ''}{'. ' + task if task else ''}{_stated(quote[1])}"
                f" [container {first.container}]{quote[2]}")

    def _spoke(self, key: tuple, at: float) -> bool:
        """Whether an Event of the failure of `key`'s job was made on this node within the window of `at`: any line
        quoted or fact said under one of the job's keys (`_jobs`: its own, not every key remembered; the witness's
        key, which its repeats find, among them)."""
        window = self.window
        return any(v is not None and abs(at - v[0]) <= window
                   for k in self._jobs.get(key[:2], ()) for v in (self._quote.get(k), self._said.get(k)))

    def _collectives(self, key: tuple, f: Finding) -> str:
        """The Event's words for the collectives the key's ranks timed out in (`f`'s added when its rank is new and
        its line names one: agent/sources/podlogs.py completes its size and process group), re-worded only when a rank
        is added.  Nothing is compared here: the cluster reads them back from every node's Event of the job and
        triage.attribute's rule compares them (a rank's timeout alone is no mismatch, and no Event is added for it)."""
        from triage.facts import collective, collectives_words  # noqa: PLC0415 (see `observe`)

        by_rank, said = self._colls.get(key) or ({}, "")
        if f.rank is not None and f.rank not in by_rank and len(by_rank) < MAX_COLLECTIVE_RANKS:
            c = collective(f.details)
            if c is not None:
                by_rank[f.rank] = c
                said = collectives_words(by_rank)
                self._colls[key] = (by_rank, said)
        return said

    def _daemon_fault(self, ref: PodRef, f: Finding, daemon: str) -> PodEvent:
        """A node fault its daemon's pod said (`daemon_of`): a cause of the node's jobs' failures after it, counted as
        the node's finding where it is admitted (agent/pipeline.py; as the daemon's log on the host would be), the
        daemon pod's Event saying so (one per daemon and reason, its count raised on repeats)."""
        self.note_finding(f)
        reason = KIND[f.kind].reason
        message = (f"{describe(f)} said by {daemon} running in this pod: a fault of this node "
                   f"(attribution: {f.attribution}), not this pod's own failure; the node's jobs failing after it are "
                   f"blamed on it. Recommended action: {f.action}. [container {ref.container}]{quoted(f.message)}")
        return PodEvent(ref, reason, message, "|".join((ref.namespace, job_of(ref.pod), reason, "daemon")),
                        at=seen_at(f, self.clock()))

    def gpu_access(self, ref: PodRef, f: Finding) -> PodEvent | None:
        """A pod that holds GPUs (the kubelet's word) found none or could not open the driver (parsers/kinds.py
        `pod_holds_gpus`): the node's container runtime took its devices away, not the GPU (the host's NVML still
        answers) and not the program; or it was refused its GPU (gpu_busy): another process holds it.  The Event's
        words are the kind's (parsers/kinds.py `in_gpu_pod`).  One Event per job (its count raised on repeats); the
        node's problem is raised by the kind's `repeated` row when pods of several workloads say it (agent/health.py).
        None: a gpu_busy Event waits for NVML's answer on who holds the GPUs (`answered` makes it, never the loop
        waiting for NVML)."""
        key = "|".join((ref.namespace, job_of(ref.pod), KIND[f.kind].reason, "gpus"))
        said = self._users_words(key, ref) if f.kind == "gpu_busy" else ("", False)
        if said is None and (len(self._waiting) < MAX_JOBS or (key, ref) in self._waiting):
            waiting = self._waiting.get((key, ref))
            self._waiting[(key, ref)] = (f, waiting[1] + 1 if waiting is not None else 1)
            return None
        return self._gpu_access(ref, f, key, *(said or ("", False)))

    def _gpu_access(self, ref: PodRef, f: Finding, key: str, users: str, named: bool) -> PodEvent:
        """`gpu_access`'s Event, with the sentence on who holds the GPUs (`users`, `named`: it names the processes)."""
        row = KIND[f.kind]
        said = f.details.get("cuda_error") or f.details.get("driver_error") or row.wording
        what, check = row.in_gpu_pod
        r = row.repeated
        head = (f"The pod holds GPUs (the kubelet's PodResources) but its process could not use them ({said}): "
                f"{what}.")
        tail = (f" Recommended action: {row.action}. When it repeats on this node, check "
                f"{GPU_BUSY_NAMED if named else check}; pods of {r.processes} workloads within "
                f"{int(r.window_seconds)} s raise {r.condition}. [container {ref.container}]{quoted(f.message)}")
        # the sentence cut, never the container's line at the end; in bytes of UTF-8, as the API server counts an
        # Event's message (kubeapi/message.py, the sink's `message_of` too)
        room = MESSAGE_MAX - len((head + tail).encode()) - 1
        users = " " + cut(users, room, "\u2026") if users and room > 3 else ""
        return PodEvent(ref, row.reason, head + users + tail, key, at=seen_at(f, self.clock()))

    def _users_words(self, key: str, ref: PodRef) -> tuple[str, bool] | None:
        """`users_words` for the Event `key` and whether it names the processes: asked of `gpu_users` when the key is
        new or its last answer is USERS_ASK_SECONDS old, else that answer again (a flood of one pod's lines asks once);
        None while NVML's answer is to come (`answered`)."""
        if self.gpu_users is None:
            return "", False
        if key in self._asking:
            return None
        now = self.clock()
        last = self._users.get(key)
        if last is None or now - last[0] >= USERS_ASK_SECONDS:
            users = _asked(self.gpu_users, ref)
            if callable(users):
                self._asking[key] = (now, users)
                return None
            last = self._said_users(key, now, users)
        return last[1], last[2]

    def _said_users(self, key: str, at: float, users: Users) -> tuple[float, str, bool]:
        """The key's answer (`users`, asked at `at`) remembered: the latest MAX_JOBS keys'."""
        self._users.pop(key, None)
        said = self._users[key] = (at, users_words(users), not isinstance(users, str))
        while len(self._users) > MAX_JOBS:
            del self._users[next(iter(self._users))]
        return said

    def answered(self, final: bool = False) -> list[PodEvent]:
        """The busy Events whose answer on who holds the GPUs has come (or why none will: NVML's deadline passed), made
        now, one per line that waited (each its pod's, the latest line's words); `final` (shutdown): every one still
        waiting, its answer or STOPPED.  Asked each tick (agent/pipeline.py recheck_gpu_access)."""
        events: list[PodEvent] = []
        for key, (at, answer) in list(self._asking.items()):
            users = _asked(answer)
            if users is None:
                if not final:
                    continue
                users = STOPPED
            del self._asking[key]
            said = self._said_users(key, at, users)
            for (k, ref), (f, n) in list(self._waiting.items()):
                if k == key:
                    del self._waiting[(k, ref)]
                    events += [self._gpu_access(ref, f, key, said[1], said[2])] * n
        return events

    def observe_app_xid(self, ref: PodRef, f: Finding) -> PodEvent:
        """An application Xid whose pid maps into a pod: the pod gets the Event, the node nothing."""
        gpu = f.details.get("gpu_index")
        where = f"GPU {gpu} ({f.pci})" if gpu is not None else f"GPU {f.pci}"
        proc = f" from pid {f.pid}{f' ({f.process})' if f.process else ''}" if f.pid is not None else ""
        message = (f"Xid {f.xid} on {where}{proc} in this pod. Attribution: application. "
                   f"Recommended action: {f.action}.{quoted(f.message)}")
        return PodEvent(ref, xid_reason(f.xid or 0), message, f"{ref.namespace}|{ref.pod}|xid{f.xid}|{f.pci}",
                        at=seen_at(f, self.clock()))
