"""Which node fault, if any, explains a workload failure: pure functions over findings.

A workload failure (NCCL timeout, remote error, IB completion error, CUDA error) seen within
`window` seconds after a hardware, fabric or driver fault on the same node is reported as likely
caused by it; without one, the cause is said to be elsewhere (another node, or the application).
Used by the agent (per node, live) and by `gpu-npd parse` (over a training log plus a dmesg).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from heapq import merge
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, NamedTuple

from .envelope import host_key
from .finding import SEVERITY_RANK, Finding
from .kinds import BY_NAME as KIND
from .kinds import DEVICES, OOM_SCOPES, TABLE, named_as, read_named
from .ports import DOWN_STATES

WORKLOAD_KINDS = frozenset(k.name for k in TABLE if k.workload)
CORRELATED_KINDS = frozenset(k.name for k in TABLE if k.correlated)  # not: running out of memory
# what a failure that is never blamed on the node means, by kind; any other (node) kind in a container's
# output is the container's text claiming a kernel event, not the node's kernel log
UNCORRELATED = {k.name: k.never_the_node for k in TABLE if k.workload and k.never_the_node}
CLAIMED = ("the container printed a line that reads like a kernel message of this kind; it is the "
           "container's own output, not this node's kernel log, and changes nothing on the node")
CAUSE_ATTRIBUTIONS = frozenset({"hardware", "fabric", "driver"})
SKEW = 5.0  # seconds a cause may be stamped after the failure it explains (clocks, buffering)
DEFAULT_WINDOW = 600.0

WHAT = {k.name: k.wording for k in TABLE}  # kind -> how an operator says it
# kinds about a device other than a GPU -> what that device is called
DEVICE_NOUN = {k.name: DEVICES[k.device] for k in TABLE if k.device not in (None, "gpu")}


@dataclass(frozen=True)
class Cause:
    """A finding that may explain a workload's failure seen after it (explain)."""

    time: float  # epoch seconds
    text: str  # "Xid 79 on GPU 3 (0000:5d:00)"
    severity: str
    host: str | None = None  # the node whose log named it, where the line's envelope names one (Finding.host)


class Noted(NamedTuple):
    """A possible cause as noted (agent/workloads.py, which holds its fields as a plain tuple, in this order): its time
    and severity then, and what `describe` reads of the finding (its kind, Xid or SXid, device), until a failure asks
    for its description; not the finding, whose message alone may be 4 KiB.  `describe` takes it as it takes the
    finding."""
    time: float  # epoch seconds
    severity: str
    kind: str
    xid: int | None
    sxid: int | None
    pci: str | None
    netdev: str | None
    gpu_index: object

    @property
    def details(self) -> dict:
        return {"netdev": self.netdev, "gpu_index": self.gpu_index}

    def cause(self) -> Cause:
        """The cause it stands for, described now (as `cause_of` describes the finding)."""
        return Cause(self.time, describe(self), self.severity)


def can_cause(f: Finding) -> bool:
    """Whether a finding is a node fault that could break a job (dated: a cause is found by its time)."""
    if f.kind in WORKLOAD_KINDS or f.timestamp is None or f.attribution not in CAUSE_ATTRIBUTIONS:
        return False
    states = DOWN_STATES.get(f.kind)
    if states is not None:  # a link state: down is a fault whatever its severity
        return f.details.get("state") in states
    return SEVERITY_RANK[f.severity] >= SEVERITY_RANK["error"]


def cause_of(f: Finding) -> Cause | None:
    """The node fault a finding stands for, when it could break a job (`can_cause`); None otherwise."""
    return Cause(f.timestamp.timestamp(), describe(f), f.severity, f.host) if can_cause(f) else None


def describe(f: Finding | Noted) -> str:
    what = f"Xid {f.xid}" if f.xid is not None else f"SXid {f.sxid}" if f.sxid is not None else \
        WHAT.get(f.kind) or f.kind.replace("_", " ")
    if f.kind in DEVICE_NOUN:
        where = f.details.get("netdev") or f.pci
        return f"{what} on {DEVICE_NOUN[f.kind]} {where}" if where else what
    if f.pci:
        gpu = f.details.get("gpu_index")
        return f"{what} on GPU {gpu} ({f.pci})" if gpu is not None else f"{what} on GPU {f.pci}"
    return what


class CauseIndex:
    """The causes a failure may take: where both name their host (`gpu-npd parse` of many nodes' logs), only its own
    node's (one machine however its logs spell it: envelope.host_key, `node-a` is `node-a.cluster.local`), and those
    naming none (a plain dmesg beside a training log); a failure naming none, any.  Each set sorted (_Sorted), a host's
    made at its first failure from the causes grouped per host (given order kept)."""

    def __init__(self, causes: Iterable[Cause] = ()):
        causes = list(causes)
        self._all = _Sorted(causes)
        hosted: dict[str | None, list[int]] = {}  # host_key -> the positions of its causes in `causes`, in order
        for i, c in enumerate(causes):
            hosted.setdefault(None if c.host is None else host_key(c.host), []).append(i)
        self._causes, self._hosted = causes, hosted if len(hosted.keys() - {None}) else None
        self._of_host: dict[str, _Sorted] = {}

    def best(self, t: float, window: float, host: str | None = None) -> Cause | None:
        """The most severe, then latest, cause stamped in [t - window, t + SKEW] that a failure on `host` may take."""
        hosted = self._hosted
        if host is None or hosted is None:  # a failure naming no node, or causes naming none: any
            return self._all.best(t, window)
        host = host_key(host)
        index = self._of_host.get(host)
        if index is None:
            causes = self._causes
            index = self._of_host[host] = _Sorted(
                [causes[i] for i in merge(hosted.get(host, ()), hosted.get(None, ()))])
        return index.best(t, window)


class _Sorted:
    """Causes sorted by time, one list per severity: the best cause for a failure is found by bisection
    (O(log n) per failure, so correlating n failures with m causes is O((n + m) log m))."""

    def __init__(self, causes: Iterable[Cause] = ()):
        by_severity: dict[str, list[Cause]] = {}
        for c in causes:
            by_severity.setdefault(c.severity, []).append(c)
        # most severe first; within one severity, by time
        self._lists = [(sorted(cs, key=lambda c: c.time)) for _, cs in
                       sorted(by_severity.items(), key=lambda kv: SEVERITY_RANK[kv[0]], reverse=True)]
        self._times = [[c.time for c in cs] for cs in self._lists]

    def best(self, t: float, window: float) -> Cause | None:
        """The most severe, then latest, cause stamped in [t - window, t + SKEW]."""
        latest, earliest = t + SKEW, t - window
        for causes, times in zip(self._lists, self._times):
            i = bisect_right(times, latest) - 1
            if i >= 0 and times[i] >= earliest:
                return causes[bisect_left(times, times[i])]  # equal times: the first given, as before
        return None


def likely_cause(f: Finding, causes: Iterable[Cause] | CauseIndex, window: float = DEFAULT_WINDOW) -> Cause | None:
    """The most severe, then latest, node fault within `window` before the failure `f`, on its node where both name
    theirs (CauseIndex).  Pass a CauseIndex when correlating many failures with the same causes."""
    if f.kind not in CORRELATED_KINDS or f.timestamp is None:
        return None
    index = causes if isinstance(causes, CauseIndex) else CauseIndex(causes)
    return index.best(f.timestamp.timestamp(), window, f.host)


def what_of(f: Finding) -> str:
    """A workload finding in an Event's words: its kind's `named` template (parsers/kinds.py `named_as`, the words
    triage's reason says it in) where the line has every field it names (a CUDA error's status, the other rank on an
    NCCL rank's GPU, a completion's status, the ranks a straggler report names), else the kind's wording; a node
    kind's name."""
    row = KIND.get(f.kind)
    if row is None or not row.workload:
        return f.kind
    named = row.named
    return named_as((named,) if isinstance(named, str) else named, f) or row.wording


# what may follow `what_of`'s words in a sentence of `explain`: the ranks, the likely cause, the peer, the rest
WHAT_ENDS = r" on (?:rank \d|\d+ ranks \()|, likely caused by |: | \(peer |$"


def read_what(kind: str, words: str) -> dict:
    """The details a sentence of `explain` that opens with `what_of`'s words of a finding of `kind` states, read back
    (parsers/kinds.py `read_named`, the inverse of the kind's `named`): a CUDA error's error, a completion's status,
    in full (an Event quotes the line cut to its length; cluster/evidence.py restores what the cut took); {} for a kind
    of no template, or words that name none of its fields."""
    row = KIND.get(kind)
    return read_named(row.named, words, WHAT_ENDS) if row is not None and row.workload and row.named else {}


RANKS_SHOWN = 16


class Ranks:
    """The ranks that reported one failure, gathered line by line: how many (up to `limit` remembered) and
    the lowest RANKS_SHOWN kept in order as they come, so the Event text costs O(1) per line, not a sort
    of thousands of ranks."""

    __slots__ = ("seen", "lowest", "limit")

    def __init__(self, limit: int = 4096):
        self.seen: set[int] = set()
        self.lowest: list[int] = []
        self.limit = limit

    def add(self, rank: int) -> bool:
        """True when the rank is new and remembered."""
        if rank in self.seen or len(self.seen) >= self.limit:
            return False
        self.seen.add(rank)
        if len(self.lowest) < RANKS_SHOWN or rank < self.lowest[-1]:
            insort(self.lowest, rank)
            del self.lowest[RANKS_SHOWN:]
        return True

    def __len__(self) -> int:
        return len(self.seen)


def rank_text(ranks: Iterable[int] | Ranks, shown: int = RANKS_SHOWN) -> str:
    if isinstance(ranks, Ranks):
        count, first = len(ranks), ranks.lowest[:shown]
    else:
        every = sorted(set(ranks))
        count, first = len(every), every[:shown]
    listed = ",".join(map(str, first)) + ("..." if count > shown else "")
    return f"rank {first[0]}" if count == 1 else f"{count} ranks ({listed})"


def explain(f: Finding, cause: Cause | None, window: float = DEFAULT_WINDOW,
            ranks: Iterable[int] | Ranks | None = None) -> str:
    """One sentence for an Event or a report line (`ranks`: all ranks that reported it, when several)."""
    what = what_of(f)
    if not ranks:
        ranks = [f.rank] if f.rank is not None else []
    if ranks:
        what += f" on {rank_text(ranks)}"
    if f.kind not in CORRELATED_KINDS:  # (a CUDA OOM whose GPU others held says so: kinds.OOM_SCOPES "gpu_held")
        scope = OOM_SCOPES.get(f.details.get("oom")) if f.kind in UNCORRELATED else None
        return f"{what}: {scope.said if scope is not None else UNCORRELATED.get(f.kind, CLAIMED)}"
    if cause is not None:
        at = datetime.fromtimestamp(cause.time, timezone.utc).strftime("%H:%M:%S")
        return f"{what}, likely caused by {cause.text} at {at} on this node"
    peer = f" (peer {f.peer})" if f.peer else ""
    where = OWN_FAILURE if f.attribution == "application" else ELSEWHERE
    return f"{what}{peer}: no hardware or fabric fault on this node in the preceding {int(window // 60)} min; {where}"


# where `explain` says the cause of a failure no node fault explains lies: a line its rule attributes to the application
# (two ranks on one GPU, an illegal memory access, a library's setting) says so itself; any other may be another's
ELSEWHERE = "the cause is likely elsewhere (another node or link: find the first failing rank) or in the application"
OWN_FAILURE = "the line reads as the application's own failure (its code, configuration or placement)"
