"""The controller's state: pods grouped into jobs, each job's evidence, and at most one open incident per job.
Pure (no I/O, a clock handed in): the watches feed it objects, `settle()` hands back what changed.

- Evidence is kept per source object and replaced when the object changes (an aggregated Event's count grows:
  its evidence is read again, never added twice), so a relist after a watch reset changes nothing.
- A node fault counts for the jobs with a pod on that node, from a minute before the pod started there; once the pod
  is deleted, for the job that holds its end (Ends): its bad end, or its deletion while running where a fault of its
  node from before the deletion can have caused it (_leave), to that end.
- An incident opens when triage.attribute() finds one in a job's evidence, is updated as its verdict or its
  evidence grows (one Event, patched), and closes after `idle` seconds without new evidence or when the job's
  owner is deleted; a later failure opens the next incident (`seq` + 1).  What the closed incident held is
  marked on the nodes' clocks alone (Mark): never the controller's, which may be minutes off the nodes'.
- Addresses: a job's evidence that names a peer or host by its address (NET/IB's "from peer 10.1.2.3", Ray's
  "ip: 10.1.2.3", a rank's prefix) is given the node (and pod) that address is, from what is watched anyway: the
  job pods' status.podIP / podIPs with spec.nodeName (a pod IP reused by a later pod is the later pod's, and a
  finished pod, whose status keeps its last IP, takes back none another pod has; a deleted pod's stays its own,
  bounded, until reused), the nodes' status.addresses, the pods' status.hostIP (a hostNetwork
  pod's IP is its node's: the node, no pod).  It reaches triage as NCCL's own address lines do (kind nccl_address,
  context only: triage.attribute Job.addresses), one mechanism for both.
- Held: a job whose only failure is a fact a healthy end also prints (triage.facts LiveFact.at_end: a rank that lost
  the store on another host, the store's process having exited first) opens no incident while its writers' pods run,
  for `hold` seconds (the controller's clock): none where they ended well first (phase Succeeded, or deleted: a
  rollout's, a scale-down's; an end in failure is evidence of its own), its evidence then marked as a closed
  incident's; one where they still run after it (the store's loss left them running) or another failure comes.
- Bounded: pods of no known job are not kept; an Event for a pod not seen yet waits in a bounded map; a job
  without pods and without an open (or held) incident is forgotten: at once when it holds nothing, else (its deleted
  pods' starts and exits, its Events) once quiet for `idle` seconds (the controller's clock: _done), so that an Event
  read late of a deleted pod is still read with them; evidence per job is capped (newest kept); addresses are
  those of the pods and nodes kept, and of at most MAX_WAITING deleted pods and MAX_WAITING pods' host IPs.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Mapping

from parsers.bounded import keep_newest
from parsers.envelope import parse_time
from triage import DEFAULT_WINDOW, SKEW, Evidence, Incident, attribute, is_consequence
from triage.attribute import CONTEXT_KINDS, said_once
from triage.facts import bare_address, said_at_end
from triage.inventory import address_key, located, no_execute, node_addresses, pod_addresses

from .evidence import AGENT_COMPONENT, Order, Reader, watched_pod_event, repair_gpus, watched, with_gpus
from .owners import Job, Owner, batch_job_of, job_of, kind_name
from .recovery import OPT_IN

MAX_EVIDENCE = 2000  # per job (the newest kept): a 10,000-rank job's storm is summarised, not hoarded
MAX_WAITING = 10_000  # Events for pods not seen yet
MAX_EVENTS = 1024  # Events kept per job (the oldest forgotten first, counted): a storm cannot grow a job without end
MAX_POD_WARNINGS = 16  # other components' Warning Events kept a pod (of triage.facts EVENT_ENDS: the kubelet's
# FailedMount and FailedPrepareDynamicResources, the attach-detach controller's FailedAttachVolume); more are counted (Book.dropped)
# how long a job whose only failure a healthy end also prints (Book._at_end) waits for its writers' pods to end before
# its incident opens: a healthy end's ranks exit within seconds of the store's, a rollout deletes them at once
HOLD = 120.0
FAULT_SLACK = 60.0  # a node fault this long before a pod started on the node still counts for its job
# Which incarnation of a restarted job a pod is of (Book._incarnation): one the restart chose (its evidence is the old
# gang's), a member it did not delete (SURVIVOR: the next incarnation's, less what the teardown made it say: _own),
# or one created since
CHOSEN, SURVIVOR, NEW = "chosen", "survivor", "new"


@dataclass(slots=True)
class PodInfo:
    job: tuple
    node: str
    started: float  # creation time (epoch seconds)
    exits: list[Evidence] = field(default_factory=list)
    uid: str = ""
    labelled: bool = False  # the pod's own cascading-recovery label (its owner's: Book.owner_optin)
    hostname: str = ""  # its spec.hostname where set (an Indexed Job's, a JobSet's: not its name)
    order: Order = field(default_factory=Order)  # what the watch saw of it before its deletion (evidence.Order)
    ended: bool = False  # its containers ended for good (_finished) or its deletion was asked (deletionTimestamp)
    # its deletion's deadline as first seen (metadata.deletionTimestamp, the API server's clock): no later than the
    # request + its grace; None: no deletion seen before it went (a force delete of a running pod, grace 0)
    deleting: float | None = None
    # the batch Job it is of (owners.batch_job_of: a JobSet's child Job, "<jobset>-<replicatedjob>-<index>"; one label
    # value, at most 63 characters): that Job's Events are its job's (Book._job_event)
    batch_job: str = ""


@dataclass(slots=True)
class Waiting:
    """The Events of a pod not seen yet (Book.waiting): by uid, and how many of them are other components' Warnings
    (at most MAX_POD_WARNINGS, counted as they come: no Event re-reads the others)."""

    events: dict[str, Mapping] = field(default_factory=dict)
    theirs: int = 0


@dataclass(slots=True)
class Open:
    """An open incident as written (or as recovered from its Event after a restart)."""

    id: str
    seq: int
    opened: float
    fingerprint: str
    event: str  # the Event's name
    updates: int = 1
    last_evidence: float = 0.0
    incident: Incident | None = None
    recovery: dict | None = None  # the cascading-recovery decision on this incident, as written in its Event


@dataclass(frozen=True, slots=True)
class Mark:
    """Where a closed incident's evidence ends, so that a later failure of the job counts and what it held does not,
    on the nodes' clocks alone (an evidence time is an agent's or a kubelet's; the controller's clock may be minutes
    off theirs, and no evidence time is ever compared with it): `since` is the newest evidence time it held, `seen`
    the readings it held that a time cannot tell from a later one (those of that second, and those with no time;
    bounded).  Evidence counts after the close when it is newer than `since`, or of that second (or with no time)
    and not one of `seen`.  A mark recovered from an incident's Event (a restart) has only `since` (its
    last_evidence): there, that second's evidence is the closed incident's."""

    since: float = 0.0
    seen: frozenset[tuple[float | None, str]] | None = None  # (its time, the reading)

    def counts(self, e: Evidence) -> bool:
        t = None if e.time is None else _epoch(e.time)
        if t is not None and t != self.since:
            return t > self.since
        if self.seen is None:  # recovered: that second is the closed incident's; evidence with no time counts
            return t is None
        return (t, _reading(e)) not in self.seen

    def after(self, held: list[Evidence]) -> "Mark":
        """The mark of an incident closed holding `held` (the evidence this mark let count): `seen` keeps what this
        mark saw that the new `since` does not tell apart (no time; that second)."""
        since = max((_epoch(e.time) for e in held if e.time is not None), default=self.since)
        seen = {(t, _reading(e)) for e in held if (t := None if e.time is None else _epoch(e.time)) in (None, since)}
        seen |= {(t, r) for t, r in self.seen or () if t in (None, since)}
        return Mark(since, frozenset(sorted(seen, key=lambda s: s[1])[:MAX_EVIDENCE]))


@dataclass(frozen=True, slots=True)
class Left:
    """A job's pod deleted with no end of its own (Book._leave: force-deleted while running, its node lost, its
    controller's delete), whose deletion's deadline is known: a fault of its node from before it, read later (the
    Events' and the pods' watches are separate streams), makes its node's facts the job's as a bad end's
    (Book._suspect_left).  Bounded (MAX_WAITING)."""

    job: tuple
    record: int  # the record of its job it was deleted from (JobState.record)
    pod: tuple[str, str]
    uid: str
    node: str
    started: float
    deadline: float | None  # PodInfo.deleting


@dataclass(slots=True)
class Ends:
    """The pod ends a job holds whose node's facts stay the job's (Book._counting): exit/<ns>/<name>/<uid> of a deleted
    pod that ended badly, or that its node's fault before its deletion can have ended (Book._leave) -> (its node, its
    start, its end: the newest time its exits say, inf when none; the deletion's), and how many of them each node holds
    (Book._unlink asks a node's, not every end's).  Changed here alone, the two together."""

    where: dict[str, tuple[str, float, float]] = field(default_factory=dict)
    nodes: dict[str, int] = field(default_factory=dict)  # node -> how many of `where` are there

    def __len__(self) -> int:
        return len(self.where)

    def get(self, end: str) -> tuple[str, float, float] | None:
        return self.where.get(end)

    def add(self, end: str, node: str, started: float, until: float) -> None:
        self.pop(end)  # (a pod of that name and uid dropped again: its end as read now)
        self.where[end] = (node, started, until)
        self.nodes[node] = self.nodes.get(node, 0) + 1

    def pop(self, end: str) -> tuple[str, float, float] | None:
        where = self.where.pop(end, None)
        if where is not None:
            left = self.nodes[where[0]] - 1
            if left:
                self.nodes[where[0]] = left
            else:
                del self.nodes[where[0]]
        return where

    def clear(self) -> list[str]:
        """Every end forgotten; returns the nodes they were on."""
        nodes = list(self.nodes)
        self.where.clear()
        self.nodes.clear()
        return nodes


@dataclass(slots=True)
class JobState:
    job: Job
    pods: set = field(default_factory=set)
    nodes: dict = field(default_factory=dict)  # node -> how many of the job's pods run there
    events: dict = field(default_factory=dict)  # Event uid -> list[Evidence]
    versions: dict = field(default_factory=dict)  # Event uid -> the resourceVersion its evidence was read from
    mark: Mark = Mark()  # where the last closed incident's evidence ends: what it held is not counted again
    # the pods its last restart chose (the mark of its decision, for chose()): the incarnation torn down, whose
    # Events, exits and nodes are not the job's evidence any more (None: never restarted)
    restarted: tuple[float, frozenset[str] | None] | None = None
    sources: dict = field(default_factory=dict)  # Event uid (or exit/..) -> the pod it is about: ((ns, name), uid)
    ends: Ends = field(default_factory=Ends)  # its deleted pods' ends (_drop_pod, _leave): their nodes' facts the job's
    # pod -> the uids of its other components' Warnings among `events` (MAX_POD_WARNINGS a pod): the index of `events`
    # by pod that the cap is counted on (from `events` and `sources` it would be a scan of up to MAX_EVENTS a Warning)
    warned: dict = field(default_factory=dict)
    seq: int = 0  # incidents opened so far on this job
    open: Open | None = None
    dirty: bool = False
    last_change: float = 0.0
    # since when (controller clock) an incident a healthy end may explain waits (_at_end)
    hold_since: float | None = None
    podless: float | None = None  # since when (controller clock) its pods are all gone, what they held kept (_done)
    record: int = 0  # which record of the job this is (Book.records): a job forgotten and seen again is another


@dataclass(frozen=True, slots=True)
class Change:
    """What settle() decided for one job: `opened`, `updated` or `closed`; `restored`: an incident a previous run
    wrote, its verdict the same (nothing to write; its cascading recovery is decided if it was not)."""

    what: str
    job: Job
    open: Open
    incident: Incident | None
    evidence: int = 0


class Book:
    def __init__(self, window: float = DEFAULT_WINDOW, idle: float = 1800.0, hold: float = HOLD,
                 foreign_conditions: bool = True) -> None:
        self.window, self.idle, self.hold = window, idle, hold
        self.foreign_conditions = foreign_conditions  # other detectors' node conditions read too (Reader.condition)
        self.reader = Reader()
        self.pods: dict[tuple[str, str], PodInfo] = {}
        self.jobs: dict[tuple, JobState] = {}
        # node -> key -> fault, or context of a pod's end there (another component's Event: evidence.NODE_SELECTORS)
        self.node_facts: dict[str, dict[str, Evidence]] = {}
        self.node_gpus: dict[str, dict] = {}
        self.node_taints: dict[str, tuple[str, ...]] = {}  # node -> its NoExecute taints' keys (why a pod was deleted)
        self.node_jobs: dict[str, set] = {}
        self.waiting: OrderedDict[tuple[str, str], Waiting] = OrderedDict()  # (ns, pod) -> its Events
        self.other_pods: set[tuple[str, str]] = set()
        # deleted pod -> (job, node, creation time, uid, its own opt-in, its job's record: _tombstone, its batch Job)
        self.gone: OrderedDict[tuple[str, str], tuple[tuple, str, float, str, bool, int, str]] = OrderedDict()
        # deleted pods with no end of their own and a known deletion, whose node's fault from before it may still be
        # read (Left, Book._leave): end id -> it, and node -> its end ids
        self.left: OrderedDict[str, Left] = OrderedDict()
        self.left_on: dict[str, set[str]] = {}
        self.records = 0  # the jobs' records made so far (JobState.record)
        self.dropped = 0
        # forgotten jobs: (seq, mark, restarted)
        self.retired: OrderedDict[tuple, tuple[int, Mark, tuple | None]] = OrderedDict()
        self.owner_uids: dict[tuple[str, str, str], str] = {}  # owners watched: Owner.where -> uid
        self.owner_optin: set[tuple[str, str, str]] = set()  # owners labelled for cascading recovery
        # owners watched that an owner of the table owns (owners.owner_of: a TrainJob's JobSet): Owner.where -> that
        # owner, on which their jobs' incidents are
        self.parents: dict[tuple[str, str, str], Owner] = {}
        # address -> where it is: the job pods' IPs (node, pod), nodes' addresses, pods' host IPs, deleted pods' IPs
        self.pod_ips: dict[str, tuple[str, tuple[str, str]]] = {}
        self.pod_addr: dict[tuple[str, str], tuple[str, ...]] = {}  # pod -> its IPs in pod_ips
        self.node_ips: dict[str, str] = {}
        self.node_addr: dict[str, tuple[str, ...]] = {}  # node -> its addresses in node_ips
        self.host_ips: OrderedDict[str, str] = OrderedDict()
        self.former_ips: OrderedDict[str, tuple[str, tuple[str, str] | None]] = OrderedDict()
        self.hostnames: dict[tuple[str, str], tuple[str, str]] = {}  # (ns, spec.hostname) -> the job pod

    # ---- feed --------------------------------------------------------------------------------------

    def pod(self, obj: Mapping[str, Any], now: float, deleted: bool = False) -> None:
        meta = obj.get("metadata") or {}
        key = (meta.get("namespace", ""), meta.get("name", ""))
        job = None if deleted else job_of(obj)
        if job is not None:
            job = self._rehome(job)
            if not job.owner.uid:
                uid = self.owner_uids.get(job.owner.where)
                if uid:
                    job = job.on(replace(job.owner, uid=uid))
        old = self.pods.get(key)
        if job is None:
            if old is not None:
                self._drop_pod(key, old)
            if deleted:
                self.other_pods.discard(key)
            else:
                self.other_pods.add(key)  # a pod of no job: what agents write about it is not kept
            return
        state = self.jobs.get(job.key)
        if state is None:
            seq, mark, restarted = self.retired.pop(job.key, (0, Mark(), None))
            state = self._record(job, mark=mark, restarted=restarted, seq=seq)
        elif not state.job.owner.uid and job.owner.uid and (state.open is None or
                                                            job.owner.where == state.job.owner.where):
            state.job = job  # (an open incident's Event stays on the object it is on)
        node = (obj.get("spec") or {}).get("nodeName") or ""
        started = _epoch(parse_time(meta.get("creationTimestamp"))) or now
        labelled = (meta.get("labels") or {}).get(OPT_IN) == "true"
        uid = meta.get("uid", "")
        if old is not None and (old.job != job.key or old.node != node or (old.uid and uid and old.uid != uid)):
            # another job or node, or another pod of that name (a relist missed its DELETED): the old one is gone
            self._drop_pod(key, old)
            old = None
        order = watched(obj, old.order if old is not None else None)
        exits = self.reader.pod_exits(obj, _rank_of(obj), self.node_taints.get(node, ()), order)
        self._pod_addresses(key, obj, node)
        hostname = ((obj.get("spec") or {}).get("hostname") or "").lower()
        if hostname and hostname != key[1] and (
                not _finished(obj) or self.hostnames.get((key[0], hostname), key) == key):
            self.hostnames[(key[0], hostname)] = key
        ended = _finished(obj) or bool(meta.get("deletionTimestamp"))
        deadline = parse_time(meta.get("deletionTimestamp"))
        deleting = None if deadline is None else _epoch(deadline)
        if old is not None:
            if ended and not old.ended:
                self._ended(state)
            old.uid, old.labelled, old.order, old.ended = uid, labelled, order, ended
            if old.deleting is not None and deleting is not None:
                deleting = min(old.deleting, deleting)  # (a later delete with a shorter grace moves it earlier)
            old.deleting = deleting if deleting is not None else old.deleting
            if old.hostname and old.hostname != hostname and self.hostnames.get((key[0], old.hostname)) == key:
                del self.hostnames[(key[0], old.hostname)]
            old.hostname = hostname
        before: list[Evidence] = []
        if old is None:
            state.pods.add(key)
            state.podless = None
            if node:
                self.node_jobs.setdefault(node, set()).add(job.key)
                state.nodes[node] = state.nodes.get(node, 0) + 1
            self.pods[key] = PodInfo(job.key, node, started, exits, uid, labelled, hostname, order, ended, deleting,
                                     batch_job_of(obj))
            if (node and self.node_facts.get(node)) or state.restarted is not None:
                self._touch(state, now)  # after a restart: the Events of a pod seen only now are its own
            waiting = self.waiting.pop(key, None)
            for ev in waiting.events.values() if waiting is not None else ():
                self.event(ev, now)
        elif exits != old.exits:
            before, old.exits = old.exits, exits
        else:
            return
        # a pod's start alone (context) is news only to a job with Events that may be of it (a FailedMount before it) or
        # to the pod's own ends it follows (an image pulled at last)
        if state.events or any(e.kind not in CONTEXT_KINDS for e in (*before, *exits)):
            self._touch(state, now)

    def _pod_addresses(self, key: tuple[str, str], obj: Mapping[str, Any], node: str) -> None:
        """A job pod's IPs -> (its node, the pod); a hostNetwork pod's (its IP is its node's) and every pod's host IP
        -> its node."""
        found = pod_addresses(obj)
        if node and found.host_ip:
            keep_newest(self.host_ips, found.host_ip, node, MAX_WAITING)
        now_ips = found.ips if node else ()
        if _finished(obj):  # its last IP stays in its status, which the network may have given a later pod
            now_ips = tuple(a for a in now_ips if self.pod_ips.get(a, (node, key))[1] == key)
        if self.pod_addr.get(key, ()) == now_ips and all(self.pod_ips.get(a) == (node, key) for a in now_ips):
            return
        self._forget_addresses(key, keep=False)
        for a in now_ips:
            self.pod_ips[a] = (node, key)  # a reused address is the later pod's
            self.former_ips.pop(a, None)
        if now_ips:
            self.pod_addr[key] = now_ips

    def _forget_addresses(self, key: tuple[str, str], keep: bool) -> None:
        """A pod's addresses no longer its own (`keep`: it was deleted; they stay its own, bounded, until reused)."""
        for a in self.pod_addr.pop(key, ()):
            where = self.pod_ips.get(a)
            if where is None or where[1] != key:
                continue  # a later pod's now
            del self.pod_ips[a]
            if keep:
                keep_newest(self.former_ips, a, where, MAX_WAITING)

    def locate(self, address: str) -> tuple[str, str | None] | None:
        """The node an address is, and the pod ("namespace/name") when it is a pod's own; None: not known."""
        a = address_key(address)
        where = self.pod_ips.get(a) or self.former_ips.get(a)
        if where is not None and self.pod_ips.get(a) is None and (a in self.node_ips or a in self.host_ips):
            where = None  # a deleted pod's address that is a node's now
        if where is not None:
            return where[0], f"{where[1][0]}/{where[1][1]}" if where[1] else None
        node = self.node_ips.get(a) or self.host_ips.get(a)
        return (node, None) if node else None

    def locate_name(self, namespace: str, name: str) -> tuple[str, str | None] | None:
        """The node (and pod) of a job pod a line names by its hostname (the pod's name, or its spec.hostname), or
        by a DNS name whose first label is that; None: no such pod kept."""
        label = name.split(".", 1)[0].split("<", 1)[0].lower()
        key = (namespace, label)
        if key not in self.pods:
            key = self.hostnames.get(key, key)
        info = self.pods.get(key)
        if info is None or not info.node:
            return None
        return info.node, f"{key[0]}/{key[1]}"

    def _drop_pod(self, key: tuple[str, str], info: PodInfo) -> None:
        """A pod is gone: its evidence stays with the job (a restarted gang's old pods still explain it), and so
        does what its agents write about it after (a tombstone, bounded), and its addresses (until reused)."""
        self.pods.pop(key, None)
        self._forget_addresses(key, keep=True)
        if info.hostname and self.hostnames.get((key[0], info.hostname)) == key:
            del self.hostnames[(key[0], info.hostname)]
        state = self.jobs.get(info.job)
        keep_newest(self.gone, key, (info.job, info.node, info.started, info.uid, info.labelled,
                                     state.record if state is not None else 0, info.batch_job), MAX_WAITING)
        if state is not None:
            self._ended(state)
            state.pods.discard(key)
            if _counted(state, info.exits):
                # keyed by the pod's uid too: a pod its owner re-creates under the same name (a PyTorchJob's) that ends
                # badly again, elsewhere, is a second end, its node's facts the job's as well as the first's
                end = _end_id(key, info.uid)
                state.events[end] = info.exits
                state.sources[end] = (key, info.uid)
                if info.node and any(e.kind not in CONTEXT_KINDS for e in info.exits):
                    state.ends.add(end, info.node, info.started, max(
                        (_epoch(e.time) for e in info.exits if e.time is not None), default=math.inf))
        if state is None or not info.node:
            return
        if state.ends.get(_end_id(key, info.uid)) is None:
            self._leave(state, Left(info.job, state.record, key, info.uid, info.node, info.started, info.deleting))
        left = state.nodes.get(info.node, 1) - 1
        if left > 0:
            state.nodes[info.node] = left
            return
        state.nodes.pop(info.node, None)
        self._unlink(state, info.node)

    def _leave(self, state: JobState, left: Left) -> None:
        """A pod of the job went with no end of its own (running: force-deleted, grace 0, its node lost or its
        GPU hung; its controller's or a user's delete; its node deleted): its node's facts stay the job's as a bad
        end's (Ends) where a fault of that node can have caused the deletion: one from before it (from FAULT_SLACK
        before the pod started to its deletion's deadline + SKEW), read already or, the deadline known, read later
        (left, bounded: _suspect_left).  A deletion with no deadline seen (a running pod force-deleted at once) is
        timed by the watch's order alone: the faults read before it, to the newest of them.  Not otherwise: a gang's
        healthy pods its controller deleted after a rank elsewhere failed leave no node of the job, and a fault of
        their node after their deletion is none of its."""
        suspects = self._suspects(state, left)
        if not suspects:
            if left.deadline is not None:
                end = _end_id(left.pod, left.uid)
                self._forget_left(end)
                self.left[end] = left
                self.left_on.setdefault(left.node, set()).add(end)
                while len(self.left) > MAX_WAITING:
                    self._forget_left(next(iter(self.left)))
            return
        end = _end_id(left.pod, left.uid)
        if end not in state.events:
            state.events[end] = []
            state.sources[end] = (left.pod, left.uid)
        until = left.deadline if left.deadline is not None else max(
            (_epoch(e.time) for e in suspects if e.time is not None), default=left.started)
        state.ends.add(end, left.node, left.started, until)
        self.node_jobs.setdefault(left.node, set()).add(state.job.key)

    def _suspects(self, state: JobState, left: Left) -> list[Evidence]:
        """The faults of a deleted pod's node (not context: a driver upgrade or a disruption explains a pod's end only
        as the end's own context) that can have caused its deletion (_leave), and that count for its job (its mark)."""
        return [e for e in self.node_facts.get(left.node, {}).values()
                if e.kind not in CONTEXT_KINDS and state.mark.counts(e) and (e.time is None or left.started -
                FAULT_SLACK <= _epoch(e.time) <= (math.inf if left.deadline is None else left.deadline + SKEW))]

    def _suspect_left(self, node: str) -> None:
        """A node's facts changed: the pods deleted there with no end of their own whose deletion a fault of it now
        read can have caused are kept as ends (_leave) of their jobs (the same record: not a forgotten job's)."""
        for end in list(self.left_on.get(node, ())):
            left = self.left[end]
            state = self.jobs.get(left.job)
            if state is None or state.record != left.record:
                self._forget_left(end)
            elif self._suspects(state, left):
                self._forget_left(end)
                self._leave(state, left)

    def _forget_left(self, end: str) -> None:
        left = self.left.pop(end, None)
        if left is not None:
            ends = self.left_on[left.node]
            ends.discard(end)
            if not ends:
                del self.left_on[left.node]

    def _release_ends(self, state: JobState) -> None:
        """The pod ends the job held are forgotten (a closed incident's, a forgotten job's): so are their nodes'."""
        for node in state.ends.clear():
            self._unlink(state, node)

    def _unlink(self, state: JobState, node: str) -> None:
        """A node's facts no longer touch the job: none of its pods runs there, nor does it hold a pod's end there."""
        if node in state.nodes or node in state.ends.nodes:
            return
        jobs = self.node_jobs.get(node)
        if jobs is not None:
            jobs.discard(state.job.key)
            if not jobs:
                del self.node_jobs[node]

    def event(self, ev: Mapping[str, Any], now: float, deleted: bool = False) -> None:
        """A node agent's Event (on a Pod or a Node); another component's Event on a Node that triage reads as context
        (evidence.NODE_SELECTORS: the GPU Operator's driver upgrade, Karpenter's disruption; Reader.node_event); or
        another component's Event on a job's pod that triage reads: a Warning of a pod end only an Event says
        (triage.facts POD_WARNINGS: the kubelet's FailedMount and FailedPrepareDynamicResources, the attach-detach
        controller's FailedAttachVolume) or context of one (the node controller's NodeNotReady), or a Normal one that
        says whose a pod end is (POD_NORMALS: Karpenter's Evicted).  evidence.POD_EVENT_SELECTORS, as the API server
        selects them; the one filter here: evidence.watched_pod_event; read by Reader.their_pod_event.  Those of a pod
        of no job are dropped at once, those of a pod not seen yet wait (bounded), at most MAX_POD_WARNINGS kept a
        pod."""
        obj = ev.get("involvedObject") or {}
        uid = (ev.get("metadata") or {}).get("uid") or _event_id(ev)
        if obj.get("kind") == "Node":
            node = obj.get("name") or ""
            facts = self.node_facts.get(node, {})
            found = [] if deleted else self.reader.node_event(ev)
            if deleted or not found:
                if facts.pop(uid, None) is None:
                    return
                if not facts:
                    self.node_facts.pop(node, None)
            else:
                if facts.get(uid) == found[0]:
                    return
                facts[uid] = found[0]
                self.node_facts[node] = facts
            self._node_changed(node, now)
            return
        if obj.get("kind") == "Job":
            self._job_event(ev, obj, uid, now, deleted)
            return
        theirs = _theirs(ev)
        if obj.get("kind") != "Pod" or (theirs and not watched_pod_event(ev)):
            return
        key = (obj.get("namespace") or (ev.get("metadata") or {}).get("namespace", ""), obj.get("name", ""))
        if deleted:
            return  # an expired Event: what it said stays the job's evidence until the incident closes
        info = self._pod_of(key, obj.get("uid") or "", ev)
        if info is False:
            return  # an earlier pod's of that name, not kept: not this pod's (a forgotten job's, read late)
        if info is None and key in self.other_pods:
            return
        if info is None:
            waiting = self.waiting.get(key) or self.waiting.setdefault(key, Waiting())
            if theirs and uid not in waiting.events:
                if waiting.theirs >= MAX_POD_WARNINGS:
                    self.dropped += 1
                    return
                waiting.theirs += 1
            waiting.events[uid] = ev
            self.waiting.move_to_end(key)
            while len(self.waiting) > MAX_WAITING:
                self.waiting.popitem(last=False)
                self.dropped += 1
            return
        state = self.jobs[info.job]
        rv = (ev.get("metadata") or {}).get("resourceVersion")
        if rv is not None and state.versions.get(uid) == rv and uid in state.events:
            return  # read already (a relist hands every object again)
        if theirs:
            found = self.reader.their_pod_event(ev, info.node)
            warned = state.warned.get(key, set())
            if uid not in warned and (not found or len(warned) >= MAX_POD_WARNINGS):
                self.dropped += bool(found)
                return  # another Warning, or one past the pod's cap: not kept
        else:
            found = self.reader.pod_event(ev, info.node)
        if not _counted(state, found):
            return  # a closed incident's (or a healthy end's), read again: a relist, its count patched since
        if theirs:
            state.warned[key] = warned | {uid}
        state.versions[uid] = rv
        if state.events.get(uid) == found:
            return
        state.sources[uid] = (key, obj.get("uid") or info.uid)  # the pod it is about: its uid, else the pod's now
        self._keep(state, uid, found, now)

    def _job_event(self, ev: Mapping[str, Any], obj: Mapping[str, Any], uid: str, now: float, deleted: bool) -> None:
        """The Job controller's Event on a batch Job (evidence.JOB_SELECTORS: its DeadlineExceeded, the job's end at its
        activeDeadlineSeconds; it then deletes the pods, whose statuses say nothing of why): the evidence of the job
        that Job owns (its incident's owner), or whose pods are of it (`_child_of`: a JobSet's, a TrainJob's child Job),
        as offline reads it."""
        where = (obj.get("namespace") or (ev.get("metadata") or {}).get("namespace", ""),
                 kind_name(str(obj.get("apiVersion") or ""), "Job"), obj.get("name", ""))
        found = [] if deleted else self.reader.job_event(ev)
        if not found:
            return  # (an expired Event: what it said stays the job's evidence until the incident closes)
        rv = (ev.get("metadata") or {}).get("resourceVersion")
        children = self._child_of(where[0], where[2])
        for key, state in self.jobs.items():
            if (state.job.owner.where != where and key not in children) or state.events.get(uid) == found \
                    or not _counted(state, found):
                continue
            state.versions[uid] = rv
            self._keep(state, uid, found, now)

    def _child_of(self, namespace: str, name: str) -> set[tuple]:
        """The jobs whose pods, kept or deleted (a tombstone of a job still kept), are of the batch Job `name`
        (PodInfo.batch_job): a JobSet's child Job's Event is its JobSet's job's."""
        kept = {info.job for (ns, _), info in self.pods.items() if ns == namespace and info.batch_job == name}
        return kept | {was[0] for (ns, _), was in self.gone.items()
                       if ns == namespace and was[6] == name and self._of_kept_job(was)}

    def _keep(self, state: JobState, uid: str, found: list[Evidence], now: float) -> None:
        """An Event's evidence kept as the job's (the oldest forgotten past MAX_EVENTS, counted), the job changed."""
        state.events[uid] = found
        if len(state.events) > MAX_EVENTS:
            oldest = next(iter(state.events))
            state.versions.pop(oldest, None)
            pod = state.sources.pop(oldest, None)
            if pod is not None and oldest in state.warned.get(pod[0], ()):
                state.warned[pod[0]].discard(oldest)
            del state.events[oldest]
            if (where := state.ends.pop(oldest)) is not None:
                self._unlink(state, where[0])
            self.dropped += 1
        self._touch(state, now)

    def _pod_of(self, key: tuple[str, str], uid: str, ev: Mapping[str, Any]) -> PodInfo | None | bool:
        """The pod an Event is about (its involvedObject's name, and uid where it names one): the pod of that name kept,
        or the last one deleted (its tombstone, _tombstone) when its uid is the Event's; None: a pod not seen yet (the
        Event waits, bounded): a later pod of that name (the Event created at or after the one kept, or saying no
        time); False: an earlier pod of that name no longer known (a fixed name's: a JobSet's, a StatefulSet's; a
        forgotten job's), the Event created (metadata.creationTimestamp, the API server's clock, as the pod's) before
        the pod kept was: not its."""
        info = self.pods.get(key)
        was = self._tombstone(key)
        if was is not None and (info is None or (uid and was.uid == uid != info.uid)):
            info = was
        if info is None or not uid or not info.uid or info.uid == uid:
            return info
        created = parse_time((ev.get("metadata") or {}).get("creationTimestamp"))
        return False if created is not None and _epoch(created) < info.started else None

    def node(self, obj: Mapping[str, Any], now: float, deleted: bool = False) -> None:
        """A Node: gpu-npd's conditions that stand (and other detectors' its reader reads), and the GPUs of its repair
        annotation."""
        name = (obj.get("metadata") or {}).get("name", "")
        self._node_addresses(name, {} if deleted else obj)
        taints = () if deleted else no_execute(obj)
        if taints:
            self.node_taints[name] = taints
        else:
            self.node_taints.pop(name, None)
        facts = self.node_facts.get(name, {})
        before = {k: v for k, v in facts.items() if k.startswith("condition/")}
        now_facts = {}
        if not deleted:
            for c in (obj.get("status") or {}).get("conditions") or []:
                e = self.reader.condition(name, c, now, self.foreign_conditions)
                if e is not None:
                    now_facts[f"condition/{c.get('type')}"] = e
        gpus = {} if deleted else repair_gpus(obj)
        if now_facts == before and gpus == self.node_gpus.get(name, {}):
            return
        for k in before:
            del facts[k]
        facts.update(now_facts)
        if facts:
            self.node_facts[name] = facts
        if gpus:
            self.node_gpus[name] = gpus
        else:
            self.node_gpus.pop(name, None)
        if not facts:
            self.node_facts.pop(name, None)
        self._node_changed(name, now)

    def nodes_listed(self, names: set[str], now: float) -> None:
        """A (re)list of the nodes held `names`: what is held of a node not listed now (deleted while the watch was
        not there) is forgotten, as its DELETED would have: its faults, addresses, taints, repair-annotation GPUs."""
        for name in {*self.node_facts, *self.node_addr, *self.node_taints, *self.node_gpus} - names:
            self.node({"metadata": {"name": name}}, now, deleted=True)

    def _node_addresses(self, name: str, obj: Mapping[str, Any]) -> None:
        """A node's status.addresses (InternalIP, ExternalIP, Hostname, ...) and its EC2 instance -> the node."""
        now_addr = node_addresses(obj)
        before = self.node_addr.get(name, ())
        if before == now_addr:
            return
        for a in before:
            if self.node_ips.get(a) == name:
                del self.node_ips[a]
        for a in now_addr:
            self.node_ips[a] = name
        if now_addr:
            self.node_addr[name] = now_addr
        else:
            self.node_addr.pop(name, None)

    def owner_deleted(self, owner: Owner, now: float) -> list[Change]:
        """The owner is gone: its jobs' incidents close, their state is forgotten (an owned one's, a TrainJob's JobSet:
        the jobs it was the owner of, theirs on its owner)."""
        out = []
        where = owner.where
        self.owner_uids.pop(where, None)
        self.owner_optin.discard(where)
        gone = [owner, *filter(None, [self.parents.pop(where, None)])]
        for key, state in list(self.jobs.items()):
            o = state.job.owner
            if any(o.where == g.where and (not g.uid or not o.uid or o.uid == g.uid) for g in gone):
                if state.open is not None:
                    out.append(self._close(state))
                for pod in list(state.pods):
                    info = self.pods.get(pod)
                    if info is not None:
                        self._drop_pod(pod, info)
                self._retire(key, state)
        return out

    def owners_listed(self, api_version: str, kind: str, keys: set[tuple[str, str]], now: float) -> list[Change]:
        """A (re)list of the owners of one kind held `keys` (namespace, name): those watched before and not listed
        now were deleted while the watch was not there."""
        what = kind_name(api_version, kind)
        out: list[Change] = []
        for ns, _, name in [w for w in self.owner_uids if w[1] == what and (w[0], w[2]) not in keys]:
            out += self.owner_deleted(Owner(api_version, kind, ns, name, self.owner_uids[(ns, what, name)]), now)
        return out

    def owner_seen(self, owner: Owner, opt_in: bool = False, parent: Owner | None = None) -> None:
        """An owner object as watched: its uid completes jobs found by label (the Event names it); its
        cascading-recovery label opts its pods in; `parent` (owners.owner_of: a TrainJob, of its JobSet): the owner
        its jobs are then (their next incident's Event on it: an open one's stays where it is)."""
        where = owner.where
        if opt_in:
            self.owner_optin.add(where)
        else:
            self.owner_optin.discard(where)
        was = self.parents.pop(where, None)
        if parent is not None:
            self.parents[where] = parent
        if owner.uid:
            self.owner_uids[where] = owner.uid
        if not owner.uid and parent == was:
            return
        for state in self.jobs.values():
            o = state.job.owner
            if o.where == where:
                now = parent or (owner if owner.uid and not o.uid else o)
            elif was is not None and o == was and state.job.key == where:
                now = parent or owner  # no longer owned (its owner deleted orphaning it): its own again
            else:
                continue
            if now != o and (state.open is None or now.where == o.where):
                state.job = state.job.on(now)

    def restore(self, job: Job, open_: Open | None, seq: int, since: float, now: float) -> None:
        """What a previous run of the controller wrote (recovered from its Events); `since`: a closed incident's
        last_evidence (the nodes' clocks).  An open one is quiet from `now` (its idle time is this clock's)."""
        state = self.jobs.get(job.key)
        if state is None:
            state = self._record(job)
        state.seq = max(state.seq, seq)
        if since > state.mark.since:
            state.mark = Mark(since)
        if open_ is not None:
            state.open = open_
            state.dirty = True
            state.last_change = max(state.last_change, now)

    def _record(self, job: Job, **kw: Any) -> JobState:
        """A new record of the job (JobState.record: the deleted pods' tombstones of an earlier one are not its)."""
        self.records += 1
        state = self.jobs[job.key] = JobState(job, record=self.records, **kw)
        return state

    def _rehome(self, job: Job) -> Job:
        """The job, its Event on its owner's owner where one was learnt (self.parents: a TrainJob, of its JobSet)."""
        return job.on(self.parents.get(job.owner.where))

    def _retire(self, key: tuple, state: JobState) -> None:
        """Forget a job, but not how many incidents it had, its mark nor its last restart's (a job of the same name
        coming back must not reopen, or rename, an incident already written; its new pods' evidence is newer; what its
        torn-down pods say late, once the owner has recreated them, is not its evidence)."""
        del self.jobs[key]
        self._release_ends(state)
        if state.seq:
            keep_newest(self.retired, key, (state.seq, state.mark, state.restarted), MAX_WAITING)

    def _close(self, state: JobState) -> Change:
        """Close the job's open incident: mark what it held (its pods keep their exits: the mark, not a clock, tells
        them from later ones)."""
        change = Change("closed", state.job, state.open, state.open.incident)
        state.job = self._rehome(state.job)  # its owner's owner learnt while the incident was open: the next one's on it
        self._mark_held(state)
        if state.open.last_evidence > state.mark.since:  # it held newer evidence than what counts now (a node fault
            state.mark = Mark(state.open.last_evidence)  # its pods have left the node): that second's is its own
        state.open = None
        return change

    def _mark_held(self, state: JobState) -> None:
        """What the job's evidence that counts now holds is marked (Mark.after) as a closed incident's (_close) or a
        healthy end's (_at_end), and its Events forgotten: a later failure is read from its own."""
        state.mark = state.mark.after(self._counting(state))
        self._release_ends(state)
        state.events.clear()
        state.versions.clear()
        state.sources.clear()
        state.warned.clear()  # (the uids of Events no longer held: a pod's cap counts what its job holds)

    def _node_changed(self, node: str, now: float) -> None:
        if node in self.left_on:
            self._suspect_left(node)
        for key in self.node_jobs.get(node, ()):
            state = self.jobs.get(key)
            if state is not None:
                self._touch(state, now)

    @staticmethod
    def _ended(state: JobState) -> None:
        """A pod of the job ended (PodInfo.ended) or went: a held job is decided again (_at_end: its writers may all
        have ended now), at once rather than at the hold's end."""
        if state.hold_since is not None:
            state.dirty = True

    @staticmethod
    def _touch(state: JobState, now: float) -> None:
        state.dirty = True
        state.last_change = now

    # ---- decide ------------------------------------------------------------------------------------

    def evidence(self, state: JobState) -> list[Evidence]:
        out = self._counting(state)
        return out + self.addresses(out, state.job.key[0])

    def _counting(self, state: JobState) -> list[Evidence]:
        """The job's evidence that counts (not a closed incident's), the newest MAX_EVIDENCE."""
        out: list[Evidence] = []
        gone = state.restarted
        # node -> (the earliest start there of a deleted pod whose end the job holds, the latest such end): its facts
        # of that time stay the job's (the fault of the node where its failed pod ran, once its owner replaced it)
        ended: dict[str, tuple[float, float]] = {}
        for uid, found in state.events.items():
            was = self._source(state, gone, *state.sources[uid]) if gone is not None and uid in state.sources \
                else NEW
            if was != CHOSEN:
                out.extend(found if was == NEW else _own(found))
                if (where := state.ends.get(uid)) is not None:
                    node, started, end = where
                    was_start, was_end = ended.get(node, (started, end))
                    ended[node] = (min(was_start, started), max(was_end, end))
        nodes: dict[str, float] = {}
        for pod in state.pods:
            info = self.pods.get(pod)
            was = NEW if info is None or gone is None else self._incarnation(state, gone, info)
            if info is None or was == CHOSEN:
                continue
            out.extend(info.exits if was == NEW else _own(info.exits))
            if info.node:
                nodes[info.node] = min(nodes.get(info.node, info.started), info.started)
        # the facts of a node where a pod of the job runs, from a minute before it started there; of a node where only
        # a pod end the job holds was (its pod deleted since: its owner's restart), to that end (+ the nodes' skew):
        # the fault, or the context (the GPU Operator's driver upgrade, triage.attribute Job._refined), of that end; of
        # a node with both (the restart's replacement put back on the failed pod's node), from the earlier start on
        for node, started in nodes.items():
            ended[node] = (min(started, ended[node][0]) if node in ended else started, math.inf)
        for node, (started, until) in ended.items():
            # a condition repeats an Event of the same fault: it speaks only where no such Event of the window does
            # (the Event expired, or it is an earlier fault's, outside the window; triage.attribute said_once)
            here = said_once(e for e in self.node_facts.get(node, {}).values()
                             if e.time is None or started - FAULT_SLACK <= _epoch(e.time) <= until + SKEW)
            out.extend(with_gpus(here, self.node_gpus[node]) if node in self.node_gpus else here)
        if state.mark.since or state.mark.seen is not None:
            out = [e for e in out if state.mark.counts(e)]
        if len(out) > MAX_EVIDENCE:
            out.sort(key=lambda e: _epoch(e.time) if e.time else 0.0)
            out = out[-MAX_EVIDENCE:]
        return out

    def _incarnation(self, state: JobState, gone: tuple[float, frozenset[str] | None], info: PodInfo) -> str:
        """Which incarnation a pod is of, by the mark of the restart that tore the old one down (`gone`): CHOSEN, a
        pod it chose (opted in, chose()); SURVIVOR, a member it did not delete (no opt-in) created in its second or
        before, which goes on into the owner's next incarnation; NEW, a pod created since."""
        if self._opted(state, info):
            return CHOSEN if chose(gone, info.started, info.uid) else NEW
        return SURVIVOR if info.started <= gone[0] else NEW

    def _source(self, state: JobState, gone: tuple[float, frozenset[str] | None], key: tuple[str, str],
                uid: str) -> str:
        """Which incarnation the pod an Event (or a deleted pod's exit) is about, by its name and uid, is of
        (_incarnation): the pod of that name kept, or the last one deleted (its tombstone), when its uid is that.  A
        pod neither is was deleted before (the owner's pods are seen created long before they can log anything):
        CHOSEN, torn down."""
        info = self.pods.get(key)
        if info is not None and info.uid == uid:
            return self._incarnation(state, gone, info)
        was = self._tombstone(key)
        if was is not None and was.uid == uid:
            return self._incarnation(state, gone, was)
        return CHOSEN

    def _of_kept_job(self, was: tuple) -> bool:
        """Whether a deleted pod's tombstone (`gone`) is of the record of its job still kept."""
        return (state := self.jobs.get(was[0])) is not None and state.record == was[5]

    def _tombstone(self, key: tuple[str, str]) -> PodInfo | None:
        """The last pod of that name deleted, while the record of its job it was deleted from is kept: not a forgotten
        job's (its deleted pods' starts forgotten with it), though the job is seen again under its key."""
        was = self.gone.get(key)
        if was is None or not self._of_kept_job(was):
            return None
        return PodInfo(was[0], was[1], was[2], uid=was[3], labelled=was[4], batch_job=was[6])

    def addresses(self, evidence: list[Evidence], namespace: str = "") -> list[Evidence]:
        """Where the addresses the evidence names (peers, hosts) are, as triage reads NCCL's own address lines
        (kind nccl_address: the address, its node as host, its pod in details): context, never evidence itself.  An
        address is an IP (locate) or a pod's hostname in the job's namespace (locate_name: an MPI launcher's "on node
        pi-worker-1", torchrun's "host : ..", a peer's "<hostname>.<subdomain>.<ns>.svc.cluster.local")."""
        named = {e.peer for e in evidence if e.peer} | {e.host for e in evidence if e.host}
        out = []
        for name in sorted(named):
            where = self.locate(name) or self.locate_name(namespace, name)
            bare = bare_address(name)
            if where is None or where[0] == bare:
                continue
            out.append(located(bare, where[0], where[1], file="cluster/addresses"))
        return out

    def settle(self, now: float) -> list[Change]:
        """Attribute every job whose evidence changed; close incidents gone quiet.  Returns what to write."""
        changes: list[Change] = []
        for key, state in list(self.jobs.items()):
            # quiet on the controller's own clock (last_change), never against an evidence time (the nodes')
            if state.open is not None and not state.dirty and now - state.last_change > self.idle:
                changes.append(self._close(state))
                continue
            if not state.dirty and not (state.hold_since is not None and now - state.hold_since >= self.hold):
                if self._done(state, now):
                    self._retire(key, state)
                continue
            state.dirty = False
            evidence = self.evidence(state)
            incidents = attribute(evidence, self.window) if evidence else []
            if incidents and state.open is None and self._at_end(state, evidence, now):
                continue
            state.hold_since = None
            if not incidents:
                if state.open is not None and state.open.incident is not None and _refuted(state.open.incident,
                                                                                         evidence):
                    # what it named is no failure now (a pod that never started, started: the kubelet's retry got past
                    # its FailedMount): it closes, its evidence marked as held
                    changes.append(self._close(state))
                continue
            incident = incidents[0]
            fp = fingerprint(incident)
            last = max((_epoch(e.time) for e in evidence if e.time is not None), default=0.0)  # nodes' clocks
            if state.open is None:
                state.seq += 1
                state.open = Open(incident_id(state.job, state.seq), state.seq, now, fp,
                                  event_name(state.job, state.seq), 1, last, incident)
                changes.append(Change("opened", state.job, state.open, incident, len(evidence)))
            elif state.open.fingerprint != fp:
                state.open.fingerprint = fp
                state.open.updates += 1
                state.open.incident = incident
                state.open.last_evidence = max(state.open.last_evidence, last)
                changes.append(Change("updated", state.job, state.open, incident, len(evidence)))
            else:
                if state.open.incident is None:  # an incident restored from its Event, the same as written
                    changes.append(Change("restored", state.job, state.open, incident, len(evidence)))
                state.open.incident = incident
                state.open.last_evidence = max(state.open.last_evidence, last)
        return changes

    def _done(self, state: JobState, now: float) -> bool:
        """Whether a job can be forgotten: its pods are gone, it has no open or held incident, and nothing it holds can
        still change a verdict.  What its deleted pods held (their starts: a FailedMount the kubelet's retry got past is
        no failure; their exits) and its Events stay `idle` seconds (the controller's clock) after the last pod went or
        the last evidence came, whichever is later, for the Events read late (the kubelet's Warning of a deleted pod,
        an agent's written after it, a relist after a watch gap); then it is forgotten: a later Event of its pods waits
        (bounded) for a pod of that name, as any Event of a pod not seen."""
        if state.pods or state.open is not None or state.hold_since is not None:
            return False
        if not state.events:
            return True
        if state.podless is None:
            state.podless = now
        return now - max(state.podless, state.last_change) >= self.idle

    def _at_end(self, state: JobState, evidence: list[Evidence], now: float) -> bool:
        """Whether the incident a job's evidence makes waits, or is none: its only failures are facts a healthy end
        also prints (triage.facts said_at_end: a rank that lost the store on another host, whose process exited
        first), read from its writers' Events.  Their pods ended well (Succeeded, or deleted: any bad end of theirs
        or another pod's is a failure of its own, read from its status): none, what it held marked as a closed
        incident's; they run: it waits `hold` seconds from the first such verdict, then opens."""
        failures = [e for e in evidence if e.kind not in CONTEXT_KINDS]
        if not failures or not all(said_at_end(e.kind, e.details.get("fact")) for e in failures):
            return False
        if self._writers_ended(state):
            self._mark_held(state)
            state.hold_since = None
            return True
        if state.hold_since is None:
            state.hold_since = now
        return now - state.hold_since < self.hold

    def _writers_ended(self, state: JobState) -> bool:
        """Whether every pod whose Events say a fact a healthy end also prints ended (PodInfo.ended) or is gone (its
        uid another pod's now, or deleted)."""
        writers = {state.sources[uid] for uid, found in state.events.items()
                   if uid in state.sources and any(said_at_end(e.kind, e.details.get("fact")) for e in found)}
        return bool(writers) and all((info := self.pods.get(key)) is None or (uid and info.uid != uid) or info.ended
                                     for key, uid in writers)

    def opted_in(self, job_key: tuple, mark: tuple[float, frozenset[str] | None] | None = None
                 ) -> list[tuple[str, str, str]]:
        """The job's pods cascading recovery may delete, (namespace, name, uid): labelled, or of a labelled owner;
        `mark` (a restart's, from `mark()`): only the pods it chose, those created before its second, or in it with
        one of its uids (None: every one created in it); not those created since (the owner's new incarnations)."""
        state = self.jobs.get(job_key)
        if state is None:
            return []
        return sorted((ns, name, p.uid) for ns, name in state.pods
                      if (p := self.pods.get((ns, name))) is not None and self._opted(state, p)
                      and (mark is None or chose(mark, p.started, p.uid)))

    def _opted(self, state: JobState, info: PodInfo) -> bool:
        """Whether cascading recovery may delete the job's pod: labelled, or of a labelled owner (or of the labelled
        object it was found as, its key: a TrainJob's JobSet, labelled by its runtime's template)."""
        return info.labelled or state.job.owner.where in self.owner_optin or state.job.key in self.owner_optin

    def restarted(self, job_key: tuple, mark: tuple[float, frozenset[str] | None], incident: str | None = None
                  ) -> list[Change]:
        """A restart of the job is done (its chosen pods deleted; or one a previous run wrote): its incident
        (`incident`, when still open) closes, so that a failure of the owner's new incarnation is the job's next
        incident, decided on its own; and from now on the incarnation torn down (the pods the restart's `mark` chose:
        _incarnation) adds nothing to the job's evidence: their Events, exits and nodes; its members not opted in go
        on into the next incarnation, less what the teardown made them say (_own)."""
        state = self.jobs.get(job_key)
        if state is None:
            return []
        out = [self._close(state)] if incident is not None and state.open is not None and state.open.id == incident \
            else []  # first: the mark of what it held is taken with the old pods' evidence
        if state.restarted is None or mark[0] >= state.restarted[0]:  # a later mark chose every pod an earlier one did
            state.restarted = mark
        state.dirty = True
        return out

    def mark(self, pods: list[tuple[str, str, str]], limit: int) -> tuple[float, list[str] | None]:
        """Where `pods` (as opted_in() gives them) end, on the API server's clock alone: the newest creationTimestamp
        among them (whole seconds) and the uids of those created in that second (sorted; None: more than `limit`)."""
        started = {uid: self.pods[(ns, name)].started for ns, name, uid in pods if (ns, name) in self.pods}
        newest = max(started.values(), default=0.0)
        uids = sorted(uid for uid, t in started.items() if t == newest and uid)
        return newest, uids if len(uids) <= limit else None

    def counts(self) -> dict[str, int]:
        return {"pods": len(self.pods), "jobs": len(self.jobs), "nodes_with_faults": sum(
                    any(e.kind not in CONTEXT_KINDS for e in facts.values()) for facts in self.node_facts.values()),
                "waiting_events": sum(len(w.events) for w in self.waiting.values()),
                "addresses": len(self.pod_ips) + len(self.node_ips) + len(self.host_ips) + len(self.former_ips) +
                len(self.hostnames),
                "open_incidents": sum(1 for s in self.jobs.values() if s.open is not None),
                "held_incidents": sum(1 for s in self.jobs.values() if s.hold_since is not None),
                "podless_jobs": sum(1 for s in self.jobs.values() if s.podless is not None)}


def _own(evidence: list[Evidence]) -> list[Evidence]:
    """What a member a restart did not delete says of its own: not what its peers' deletion makes a healthy rank
    print (triage's consequences: a watchdog timeout, a peer's connection closed, a rank ended by SIGTERM), which is
    the old gang's teardown; a fault of its own (an Xid or ECC error on its node, a CUDA error, an exception, a rank
    killed or crashed by a signal of its own) is the job's next incident."""
    return [e for e in evidence if not is_consequence(e)]


def _counted(state: JobState, found: list[Evidence]) -> bool:
    """Whether evidence read is worth keeping for the job: some of it counts (`Mark.counts`); what the mark says a
    closed incident (or a healthy end, Book._at_end) held would hold its job (and its writers, Book._writers_ended) for
    ever, counted never."""
    return any(state.mark.counts(e) for e in found)


def _refuted(incident: Incident, evidence: list[Evidence]) -> bool:
    """Whether an open incident the job's evidence no longer shows was refuted: its root's evidence still read, judged
    no failure now (a FailedMount the pod's start got past).  Not when it is no longer read (withdrawn: a node's
    condition cleared, its Event expired or the node deleted): that incident closes when quiet (`idle`), so a fault
    that stands again (a flapping condition) is the same incident, not a new one (its Event and recovery decision) each
    time."""
    return not incident.evidence or incident.evidence[0] in evidence


def chose(mark: tuple[float, frozenset[str] | None], started: float, uid: str) -> bool:
    """Whether a restart's mark (created, uids) chose a pod of this creation time (whole seconds) and uid: created
    before its second, or in it with one of its uids (None: every pod created in it)."""
    return started < mark[0] or (started == mark[0] and (mark[1] is None or uid in mark[1]))


def fingerprint(i: Incident) -> str:
    """What makes an incident's Event worth updating: its verdict and root (triage's key), the rule that
    decided, and how much evidence it has."""
    return hashlib.sha1(f"{i.key}|{i.rule}|{len(i.evidence)}".encode()).hexdigest()[:16]


def incident_id(job: Job, seq: int) -> str:
    digest = hashlib.sha1("|".join(job.key).encode()).hexdigest()[:10]
    return f"{digest}-{seq}"


def event_name(job: Job, seq: int) -> str:
    """Deterministic: a restarted controller finds (and patches) the Event of an incident it had open."""
    base = job.owner.name[:200].strip(".-") or "job"
    return f"{base}.gpu-npd-incident-{incident_id(job, seq)}"


def _finished(pod: Mapping[str, Any]) -> bool:
    """A pod whose containers all ended for good (phase Succeeded / Failed): its status keeps the last IP it had
    (kubernetes/kubernetes #92697, #98611), which a later pod may have now, and an Indexed Job's replacement pod has
    its hostname: it takes neither from a pod kept (the later one; a relist hands both in name order)."""
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _end_id(pod: tuple[str, str], uid: str) -> str:
    """The key of a deleted pod's end among its job's Events (JobState.events, JobState.ends)."""
    return f"exit/{pod[0]}/{pod[1]}/{uid}"


def _epoch(t: datetime | None) -> float:
    return t.timestamp() if t is not None else 0.0


def _reading(e: Evidence) -> str:
    """A piece of evidence as read (every field): an object read again gives the same; a later occurrence (another
    pod, a container's next exit, another Event) another."""
    return repr(e)


RANK_KEYS = ("batch.kubernetes.io/job-completion-index",)
# A workload whose pods carry a RANK_KEYS index that is not unique in the job: its label -> the label and value that
# make it unique.  A JobSet's pods carry their child Job's completion index, and JobSet numbers its Jobs across the
# JobSet (jobset.sigs.k8s.io/job-global-index), not their pods, nor says a Job's pod count on a pod: the index is the
# pod's rank only in a JobSet of one child Job (jobset.sigs.k8s.io/global-replicas "1"; kubernetes-sigs/jobset
# api/jobset/v1alpha2/jobset_types.go); with several, or from a JobSet before that label, the rank is not known.
RANK_UNIQUE_IF = {"jobset.sigs.k8s.io/jobset-name": ("jobset.sigs.k8s.io/global-replicas", "1")}

REPLICA_INDEX = "training.kubeflow.org/replica-index"
OPERATOR_NAME = "training.kubeflow.org/operator-name"
# A Kubeflow pod's role: kubeflow/training-operator's replica type (lower case), else kubeflow/mpi-operator v2's job
# role.
REPLICA_ROLE = ("training.kubeflow.org/replica-type", "training.kubeflow.org/job-role")
# Kubeflow numbers each replica type's pods from 0 (a PyTorchJob's Master 0 and Worker 0 share index 0): a pod's rank
# is its index plus what its operator adds for its role, where the operator numbers that role.  Operator name -> role
# -> (what is added to the index, the env var its containers carry only where the job's spec makes that the rank;
# "": always).  A role or operator not here holds no rank known from the pod.
#  - pytorchjob-controller (kubeflow/training-operator pkg/controller.v1/pytorch/envvar.go setPodEnv, v1.5 to v1.9):
#    RANK = the index, + 1 for a Worker, set only where the job has a Master; without one (elastic) torchrun numbers
#    the nodes at its rendezvous.
#  - mpi-operator (kubeflow/mpi-operator pkg/controller/mpi_job_controller.go newConfigMap, workerReplicaIndexLabel):
#    the hostfile lists the launcher first where it runs as a worker (runLauncherAsWorker: its index "0", the workers'
#    their index + 1, since v0.7), then the workers; a launcher that is no worker has no index.
#  - jaxjob-controller (training-operator pkg/controller.v1/jax/envvar.go): PROCESS_ID = the Worker's index.
#  - not numbered from the pod: tfjob-controller (TF_CONFIG's task index is per replica type), xgboostjob-controller
#    (a Worker's RANK adds the Master's replicas, not on the pod), paddlejob-controller (paddle's launch numbers
#    them), mpijob-controller (training-operator's MPIJob lists a launcher with GPUs first, which a worker does not
#    say).
REPLICA_RANKS: dict[str, dict[str, tuple[int, str]]] = {
    "pytorchjob-controller": {"master": (0, ""), "worker": (1, "RANK")},
    "mpi-operator": {"launcher": (0, ""), "worker": (0, "")},
    "jaxjob-controller": {"worker": (0, "")},
}


def _rank_of(pod: Mapping[str, Any]) -> int | None:
    """A pod's rank when its workload says it (completion index, replica index) and it is unique in the job: a dead
    pod's rank.  None when it is not known."""
    meta = pod.get("metadata") or {}
    labels = meta.get("labels") or {}
    index = labels.get(REPLICA_INDEX)
    if index is not None:
        return _replica_rank(pod, labels, str(index))
    for owner, (key, value) in RANK_UNIQUE_IF.items():
        if labels.get(owner) and labels.get(key) != value:
            return None
    for source in (meta.get("annotations") or {}, labels):
        for key in RANK_KEYS:
            value = source.get(key)
            if value is not None and str(value).isdigit():
                return int(value)
    return None


def _replica_rank(pod: Mapping[str, Any], labels: Mapping[str, Any], index: str) -> int | None:
    """A Kubeflow pod's rank: its replica index where its operator numbers its role (REPLICA_RANKS), else None."""
    role = next((str(labels[k]).lower() for k in REPLICA_ROLE if labels.get(k)), "")
    scheme = REPLICA_RANKS.get(str(labels.get(OPERATOR_NAME, "")), {}).get(role)
    if scheme is None or not index.isdigit():
        return None
    add, needs = scheme
    if needs and not any(e.get("name") == needs for c in (pod.get("spec") or {}).get("containers") or ()
                         for e in c.get("env") or ()):
        return None
    return int(index) + add


def _theirs(ev: Mapping[str, Any]) -> bool:
    """An Event another component than the node agents wrote (the kubelet's)."""
    return (ev.get("source") or {}).get("component") != AGENT_COMPONENT


def _event_id(ev: Mapping[str, Any]) -> str:
    meta = ev.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"
