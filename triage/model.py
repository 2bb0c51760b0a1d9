"""The records of job-level attribution: evidence in, incidents out, and the versioned JSON document.

`Evidence` is one recognised line (or one fact a node agent published) with its job context: which host,
rank and device it is about and when it happened on an aligned wall clock.  `Incident` is one failure of the
job: its category, its root (rank / host / GPU / device / kind), the evidence in time order, the consequences
folded into one sentence and the rule that decided.  Both are frozen: stages hand them on, never edit them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

SCHEMA = "gpu-npd.triage/v1"
CATEGORIES = ("hardware", "fabric", "application", "infrastructure", "undetermined")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One recognised line or node fact of a job.  `kind` is a parsers finding kind (parsers.KINDS) or one of
    triage's job kinds (triage.facts.JOB_KINDS)."""

    kind: str
    severity: str = "error"  # parsers.SEVERITIES
    attribution: str = "unknown"  # parsers.ATTRIBUTIONS, as the line's rule said
    time: datetime | None = None  # aligned wall clock (aware, UTC) when known
    host: str | None = None
    rank: int | None = None  # global rank
    local_rank: int | None = None
    pid: int | None = None
    gpu: int | None = None  # GPU index on its host (a local rank's device, NCCL's [dev], NVML's index)
    pci: str | None = None
    device: str | None = None  # a NIC port / netdev / NVSwitch the fact is about
    file: str | None = None
    line: int | None = None
    text: str = ""  # the line as read (cut to a few hundred characters)
    # what attribution needs from the line
    seq: int | None = None  # NCCL collective sequence number the line is about (WorkNCCL SeqNum, "at work: N")
    op: str | None = None  # OpType
    timeout_ms: int | None = None
    last_enqueued: int | None = None
    last_completed: int | None = None
    peer: str | None = None  # address of the peer a network error names ("10.1.2.3", "10.1.2.3<43123>")
    address: str | None = None  # this rank's own address, from NCCL INFO lines (peer -> host); or, with the kind
    # nccl_address, an address the cluster's pods and nodes map to its node (details "pod": the pod it is)
    exit_code: int | None = None
    signal: int | None = None
    xid: int | None = None
    sxid: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def place(self) -> str:
        """Where it was read: FILE:LINE, or the file alone for an object of it (a pod, a kubectl document's Event)."""
        return f"{self.file}:{self.line}" if self.line is not None else str(self.file)

    def with_context(self, **changes: Any) -> "Evidence":
        """A copy with the given fields set (job context learnt after the line was read)."""
        return replace(self, **changes)

    @classmethod
    def from_finding(cls, f: Any, *, host: str | None = None, rank: int | None = None,
                     time: datetime | None = None, text: str | None = None, **extra: Any) -> "Evidence":
        """Evidence of a parsers.Finding (or anything with its fields): used by the offline reader and by the
        cluster component for the findings node agents publish."""
        d = f.details or {}
        if getattr(f, "process", None) and "process" not in d:  # the process the line names (a memory error's SIGBUS)
            d = {**d, "process": f.process}
        if extra.get("pid") is None and getattr(f, "pid", None) is not None:
            extra = {**extra, "pid": f.pid}
        gpu = d.get("gpu_index", d.get("gpu"))
        seq = d.get("seq")
        timeout = d.get("timeout_ms")
        return cls(
            kind=f.kind, severity=f.severity, attribution=f.attribution,
            time=time if time is not None else utc(f.timestamp), host=host,
            rank=rank if rank is not None else f.rank, gpu=as_int(gpu), pci=f.pci,
            device=d.get("netdev") or d.get("switch"), file=f.file, line=f.line,
            text=(text if text is not None else f.message)[:TEXT_MAX], seq=as_int(seq), op=d.get("op"),
            timeout_ms=as_int(timeout), peer=f.peer, xid=f.xid, sxid=f.sxid, details=dict(d), **extra)


TEXT_MAX = 400


@dataclass(frozen=True, slots=True)
class Root:
    """Where an incident started.  Any field may be None when the evidence does not say."""

    kind: str | None = None
    rank: int | None = None
    host: str | None = None
    gpu: int | None = None
    pci: str | None = None
    device: str | None = None
    pod: str | None = None  # "namespace/name": the pod the address that names the root is (the cluster's map)

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "host": self.host, "gpu": self.gpu, "pci": self.pci, "device": self.device,
                "kind": self.kind, "pod": self.pod}


@dataclass(frozen=True, slots=True)
class Incident:
    category: str  # CATEGORIES
    root: Root
    evidence: tuple[Evidence, ...]  # the root's evidence first, then the consequences', in time order
    consequences: str  # one sentence: what the failure did to the rest of the job
    rule: str  # the name of the rule that decided (triage.attribute.RULES)
    reason: str  # why, in one sentence an operator reads
    time: datetime | None = None  # when the root happened (aligned wall clock)
    # supporting evidence: warnings below a fault's weight about the root's own node and device (its GPU, the PCIe
    # port above it, its NVLink), each with details "support" saying how it is the root's (triage.attribute
    # `support`); never part of the verdict
    support: tuple[Evidence, ...] = ()
    # the job's own statement of its success (a job_success line: MLPerf's run_stop "success", a launcher's success
    # line) the failure came after (triage.teardown `stated_before`): the job had done its work, the failure is in its
    # teardown or exit, another urgency and owner; the reason says it too.  None: no statement came before it
    after_success: Evidence | None = None

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown category {self.category!r}")

    @property
    def key(self) -> str:
        """A stable name for this incident (category and root), the same however much evidence arrives later: what
        a live component dedupes and updates its one Event by."""
        r = self.root
        return "/".join("-" if v is None else str(v) for v in (self.category, r.kind, r.host, r.rank, r.gpu,
                                                                 r.pci or r.device))

    def to_dict(self, evidence_limit: int | None = None) -> dict[str, Any]:
        shown = self.evidence if evidence_limit is None else self.evidence[:evidence_limit]
        return {
            "category": self.category,
            "root": self.root.to_dict(),
            "time": self.time.isoformat() if self.time else None,
            "evidence": [_evidence_entry(e) for e in shown],
            "evidence_total": len(self.evidence),
            "support": [{**_evidence_entry(e), "why": e.details.get("support")} for e in self.support],
            "consequences": self.consequences,
            "rule": self.rule,
            "reason": self.reason,
            "after_success": _evidence_entry(self.after_success) if self.after_success is not None else None,
        }


def _evidence_entry(e: Evidence) -> dict[str, Any]:
    return {"file": e.file, "line": e.line, "time": e.time.isoformat() if e.time else None, "host": e.host,
            "rank": e.rank, "kind": e.kind, "text": e.text}


def to_json(incidents: Iterable[Incident], evidence_limit: int | None = None, **meta: Any) -> dict[str, Any]:
    """The versioned document `{"schema": "gpu-npd.triage/v1", "incidents": [...]}` (most likely root cause first,
    as given); `meta` adds top-level keys (e.g. "inputs", "errors")."""
    doc: dict[str, Any] = {"schema": SCHEMA, "incidents": [i.to_dict(evidence_limit) for i in incidents]}
    doc.update(meta)
    return doc


def utc(t: datetime | None) -> datetime | None:
    """Aware UTC; a naive stamp is taken as UTC (the clock stage says otherwise when it knows better)."""
    if t is None:
        return None
    return t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t.astimezone(timezone.utc)


def as_int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(str(value)) if str(value).isdigit() else None
    except ValueError:
        return None
