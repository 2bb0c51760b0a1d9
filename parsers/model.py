"""The shared types: what one stage returns is what the next one takes, and every stage imports them from here.

It sits in `parsers/` (the lowest package) so that every program (the node agent, `offline/`, `cluster/`) and
every subpackage imports its types downward.  Plain data only: no I/O, no behaviour.

    inputs     Record, SampleBatch, CheckBatch, WorkloadFindings (+ PodRef), NodeInfo: what the intake carries
    telemetry  Reading (a device read), Verdict (what a sample rule sees in it)
    decisions  Finding (re-exported), Problem, Condition, Change (what one step of the engine changed)
    output     PodEvent, Snapshot: the one immutable value every sink's `apply` receives
    facts      Boot: this boot's id and wall-clock start, read once
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .finding import Finding

__all__ = ["Boot", "Change", "CheckBatch", "Condition", "Finding", "NodeInfo", "Notice", "PodEvent", "PodRef", "Problem",
           "Reading", "Record", "SampleBatch", "Snapshot", "Verdict", "WorkloadFindings"]


# ---- facts ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Boot:
    """This boot, read once at start: its id (/proc/sys/kernel/random/boot_id: a reboot changes it) and when it
    began (wall clock; kmsg stamps are seconds since it).  `epoch` None: unknown (findings are not dated by it)."""
    id: str = ""
    epoch: float | None = None


# ---- inputs: the batches sources put into the intake ------------------------------------------------------

@dataclass(slots=True)
class Record:
    source: str
    line: str  # the line as read, envelope included
    cursor: Any = None  # the source's position after this record; persisted once it is processed
    stream: str | None = None  # which of the source's streams (a followed file) it is from: context is per stream


@dataclass
class Reading:
    entity: str  # gpu, nvlink, ib_port, pci, node
    subject: str  # "gpu:0000:5d:00", "gpu:0000:5d:00/nvlink3", "ib:mlx5_0/1", "pci:0000:5d:00.0", "node"
    labels: dict[str, str]
    values: dict[str, float] = field(default_factory=dict)
    text: dict[str, str] = field(default_factory=dict)  # non-numeric facts for messages (missing PCI ids)
    # fields it would carry were not read this time (an NVML call failed or missed its deadline): a rule on an
    # absent field keeps what it raised instead of clearing (agent/samples.py)
    partial: bool = False


@dataclass
class SampleBatch:
    """One telemetry poll: every reading, and the poller's own figures (NVML status, errors, duration)."""
    readings: list[Reading]
    stats: dict[str, Any] = field(default_factory=dict)
    source: str = "telemetry"
    # the NVIDIA GPUs' addresses sysfs or NVML named since start (agent/gpu/collector.py known_pci, copied on the
    # poller's thread): which PCI devices are GPUs while NVML is down (agent/pipeline.py)
    gpus: frozenset[str] = frozenset()


@dataclass
class CheckBatch:
    """One invocation of one active-check plugin config (agent/checks): the config and its rules' results."""
    cfg: Any
    results: list


@dataclass(frozen=True)
class PodRef:
    namespace: str
    pod: str
    uid: str
    container: str


@dataclass
class WorkloadFindings:
    """What the pod log source hands on: findings, each with the container it came from."""
    items: list[tuple[PodRef, Finding]]
    source: str = "pods"
    # trainers' progress lines (parsers/progress.py, agent/progress.py): per container, (written at, Progress)
    progress: list[tuple[PodRef, list[tuple[float, Any]]]] = field(default_factory=list)
    # containers started again (a new log file beside the one followed): their progress is learnt anew
    restarted: list[PodRef] = field(default_factory=list)
    # called once the pipeline has taken it (processed, or skipped on an internal error): only then may the
    # source save its read offsets past these lines (a SIGTERM with it still queued re-reads them at the restart)
    done: Callable[[], None] | None = None


@dataclass(frozen=True)
class NodeInfo:
    """What this node's Node object says that detection uses (read by the Kubernetes writer, which hands it on
    through the intake like any input): its nvidia.com/gpu capacity, None when it has none."""
    gpus: int | None = None


# ---- decisions --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    """A problem a rule sees in a reading or a check result (the engine turns it into a Problem)."""
    condition: str
    reason: str
    severity: str
    attribution: str
    action: str
    message: str
    details: dict[str, Any]


@dataclass
class Problem:
    id: str
    subject: str  # "gpu:0000:5d:00", "nic:0000:0c:00", "node"
    kind: str
    condition: str
    reason: str
    severity: str
    attribution: str
    action: str
    message: str
    clear: str
    first_seen: float
    last_seen: float
    count: int = 1
    source: str = "kernel"
    code: int | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Condition:
    type: str
    status: bool
    reason: str
    message: str
    last_transition: float
    severity: str = ""  # the worst standing problem's severity ("" while healthy)


@dataclass(frozen=True)
class Notice:
    """A node's finding of warning or worse that raised no problem (no condition rule for it): said as a Node Event,
    at most once per `key` a while (agent/health.py HealthEngine._notice)."""
    key: str  # subject|reason: one Event per key, its count raised each time it is said again
    subject: str  # "node", "gpu:0000:5d:00", ...
    kind: str
    reason: str  # the kind's (parsers/kinds.py reason_of)
    severity: str
    message: str  # the finding's sentence, as a problem's message says it
    at: float  # the line's own time (wall clock)


@dataclass
class Change:
    """What one step of the engine changed (its return value, handed to the next stage)."""
    new_problems: list[Problem] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)  # conditions whose status/reason/message moved
    held: list[tuple[int, str]] = field(default_factory=list)  # (Xid, reason) the policy held back: metrics only
    renamed: list[str] = field(default_factory=list)  # ids of problems now under another subject (a `pci:` a GPU's)
    notices: list[Notice] = field(default_factory=list)  # node findings raising no problem, said as Events

    def __bool__(self) -> bool:
        return bool(self.new_problems or self.conditions or self.renamed or self.notices)


# ---- output: what sinks receive -----------------------------------------------------------------------------

@dataclass(frozen=True)
class PodEvent:
    """An Event for a workload's pod (a job's NCCL timeout with its likely node cause, an application Xid)."""
    ref: PodRef
    reason: str
    message: str
    key: str  # aggregation key: one Event per key, its count raised on repeats
    type: str = "Warning"  # "Normal" for good news (a workload's progress resumed)
    at: float | None = None  # the time (Unix seconds) of the line the message quotes, where it is a failure's
    count: int = 1  # occurrences it adds; 0: the same occurrence re-worded (an amendment of the finding it quotes)


@dataclass(frozen=True)
class Snapshot:
    """State + what changed, built once per change and handed to every sink: a value no one mutates, so a sink
    on its own thread reads it safely.

    conditions    every condition the agent keeps, as it stands now (copies)
    problems      every standing problem: the engine's published copies, shared between snapshots (a problem
                  is copied again only when it changed, so a snapshot costs what changed, not what stands;
                  agent/health.py: HealthEngine.snapshot builds it)
    changed       the conditions that moved in this change (a subset of `conditions`)
    new_problems  problems raised in this change (Events)
    pod_events    Events for pods (workload correlation)
    notices       node findings that raised no problem, to be said (Node Events)
    """
    conditions: tuple[Condition, ...] = ()
    problems: tuple[Problem, ...] = ()
    changed: tuple[Condition, ...] = ()
    new_problems: tuple[Problem, ...] = ()
    pod_events: tuple[PodEvent, ...] = ()
    notices: tuple[Notice, ...] = ()

    def condition(self, name: str) -> Condition | None:
        return next((c for c in self.conditions if c.type == name), None)

