"""The seam between what node agents publish and triage: Kubernetes objects in, `triage.Evidence` out.  Pure.

What a node agent (`gpu-npd run`) writes, and what is read of it here:
- Pod Events (source.component "gpu-npd", involvedObject a Pod; agent/workloads.py): one Event per job, reason
  and likely cause on each node, aggregated (count); the reason names the kind (NCCLWatchdogTimeout,
  NCCLRemoteError, CUDAIllegalAddress, Xid31MMUFault for an application Xid...), the message lists the ranks
  ("on 4 ranks (0,1,2,3)") and ends with the container's own line, quoted.  That line is classified again by
  the parsers (the same rules that found it on the node), which gives back its rank, SeqNum, OpType, peer.  A
  watchdog timeout's Event lists the collectives its ranks timed out in ("Collectives timed out: PG 0 SeqNum 7219
  BROADCAST NumelIn 64 (rank 3); ...", triage.facts collectives_words): each listed rank's evidence has its own, which
  triage's mismatched-collective rule compares across the job's nodes.
- Job fact Pod Events (RankExited, ProcessLost, DataLoaderWorkerKilled, BarrierTimeout, StorageError, JobEnded,
  TaskNotStarted, CollectiveMismatch, StoreJoinTimeout, StoreLost, NonFiniteResult, RerunVerdict, RerunReproduced,
  NetworkNotSetUp, ResourceLimit, ArgumentsRejected, RankException, ChildProcessFailed, ModelNotLoaded; triage/facts.py
  LIVE_FACTS):
  the job's first such fact on the node, its fields in the agent's own words ("A rank's process ended (rank 7; host
  node-b; signal 9 SIGKILL)"), read back by triage.facts.read_words into Evidence of the fact's kind.
- Node Events (involvedObject a Node; agent/kube/sink.py): one per new problem, reason as on the condition
  (Xid79FallenOffBus, IBPortDown...), message "Xid 79 on GPU 0000:5d:00: <the kernel's line>. Recommended
  action: ..."; the kernel's line is classified again too.
- Node conditions (GPUUnhealthy, NVLinkUnhealthy, InfiniBandUnhealthy, PCIeUnhealthy: True = a problem):
  evidence when the Events are gone (Events expire after an hour; conditions stand).  Other detectors' conditions
  (triage.facts FOREIGN_CONDITIONS: the EKS node monitoring agent's AcceleratedHardwareReady=False,
  node-problem-detector's KernelDeadlock=True, NVSentinel's SysLogsXIDError=True, ...) alike, unless turned off.
  Read by triage.conditions read_condition, offline triage's reading of a Node in a dump too.
- The repair annotation (gpu-npd.io/repair, JSON with the GPUs' PCI address, index and UUID): fills the GPU
  index of evidence that names only the PCI address.
- Pod status: a container that terminated with a non-zero exit code, a signal or OOMKilled is a rank's death
  (triage's `rank_exit`, or `oom_kill`); a container's waiting or terminated message the parsers read as the job's
  own words for a fault of its node (triage.attribute JOB_SEEN_NODE_FAULTS: the container runtime's hook refusing the
  pod its GPUs, "nvidia-container-cli: initialization error: ..", RunContainerError / StartError exit 128, a pod that
  never started and logged nothing) is that fault on the pod's node.  A pod Kubernetes itself ended (its status.reason:
  Evicted for node pressure, NodeLost, a node shutdown's Terminated, UnexpectedAdmissionError; its DisruptionTarget
  condition: the scheduler's preemption, the taint manager (the node's NoExecute taints say whose), the Eviction API,
  the pod GC) is a job_ended fact naming the pod and why (triage.facts POD_ENDS); a container the kubelet started
  (running, started, or ended with a start time) is the pod's start (context: a FailedMount before it is no failure).
  All of a pod's status is read by triage.inventory pod_ends, as offline triage reads a Pod object (`kubectl get pods
  -o json`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Iterable, Mapping

from parsers.envelope import parse_time
from parsers import Classifier
from parsers.correlate import CLAIMED as CLAIMED_WORDS, read_what
from parsers.kinds import BY_NAME as KIND, CUDA_REASONS, TABLE as KIND_TABLE
from parsers.redacted import placeholder
from parsers.rules import read_again
from triage import Evidence
from triage.conditions import GPU, classify_alone, node_fact, read_condition
from triage.facts import INT_FIELDS as FACT_INT_FIELDS, ONLY_ANOTHER, TEXT_FIELDS as FACT_TEXT_FIELDS, Collective
from triage.facts import JOB_EVENTS, NODE_EVENTS, NODE_NAMED, POD_NORMALS, POD_WARNINGS
from triage.facts import read_collectives, read_node_named
from triage.facts import FACT_SEVERITY, read_ray_task, read_words
from triage.read import of_ray_task, on_named_node
from triage.teardown import STATED_WORDS, read_stated
from triage.inventory import MESSAGE_TEXT, deletion_asked, ended_by_deletion, pod_ends, read_events

AGENT_COMPONENT = "gpu-npd"  # source.component of the node agents' Events
REPAIR_ANNOTATION = "gpu-npd.io/repair"
EXCERPT = re.compile(r' Container output: "(.*)"$', re.S)
RANKS = re.compile(r" on (?:rank (\d+)|\d+ ranks \(([\d,]+)(?:\.\.\.)?\))")

# Pod Event reason -> kind: the workload kinds' reasons (parsers/kinds.py) and the CUDA errors' refined ones
# (parsers/kinds.py CUDA_REASONS, which words them), read the other way
POD_REASON_KINDS = {**{k.reason: k.name for k in KIND_TABLE if k.workload},
                    **{reason: "cuda_error" for reason in CUDA_REASONS.values()}}
HARDWARE_CUDA = {"CUDAUncorrectableECC"}
TEXT = MESSAGE_TEXT  # characters of an Event's message kept as evidence text when it quotes no line (as offline)
# The Warning Events other components write on a job's pod of a pod end only an Event says (triage.facts EVENT_ENDS):
# the kubelet's FailedMount and FailedPrepareDynamicResources, the attach-detach controller's FailedAttachVolume (a pod
# that never started: its status says only ContainerCreating); an image pull is read off the pod's status (its container's
# waiting reason, triage.facts WAITING_REASONS), the kubelet's Events of it being "Failed" and "BackOff" of every
# container error.  One watch each, filtered by the API server (core/v1 Event field selectors: type,
# involvedObject.kind and reason are among those it supports; a selector ANDs its terms, no set of values): the
# cluster's other Warnings (probes, back-offs, scheduling) never reach the controller.  And the node controller's
# NodeNotReady on a pod (triage.facts POD_EVENTS, context: the taint manager's deletion of the pod after it is for its
# node not ready, as offline, where the node's NoExecute taints are not known: the node gone, or back).  And the
# Normal Events of another component on a pod triage reads (triage.facts POD_NORMALS: Karpenter's Evicted, "Evicted pod:
# <reason>", and cluster-autoscaler's ScaleDown, "deleting pod for node scale down", which say the Eviction API's
# eviction of the pod was theirs; type and reason both selected, so the
# kubelet's own Evicted Warnings, said by the pod's status, never come this way twice)
POD_SELECTORS = {"Warning": POD_WARNINGS, "Normal": POD_NORMALS}
POD_EVENT_SELECTORS = tuple(f"type={kind},involvedObject.kind=Pod,reason={reason}"
                            for kind, reasons in POD_SELECTORS.items() for reason in reasons)
# Other components' Events on a Node that triage reads as context of a job's pod ends there (triage.facts NODE_EVENTS:
# the GPU Operator's GPUDriverUpgrade, Karpenter's DisruptionTerminating and aws-node-termination-handler's
# SpotInterruption, type Normal, and Karpenter's SpotInterrupted, a Warning, which say when the upgrade, Karpenter
# disrupting the node, or NTH's or Karpenter's drain before a spot reclaim began evicting the node's pods): one watch each, selected alike; read by
# Reader.node_event as offline reads the same Event
NODE_SELECTORS = tuple(f"involvedObject.kind=Node,reason={reason}" for reason in NODE_EVENTS)
JOB_SELECTORS = tuple(f"involvedObject.kind=Job,reason={reason}" for reason in JOB_EVENTS)
CUT = "\u2026"  # how an excerpt cut to its length ends (agent/workloads.py quoted)
# the peer a remote error names, in the agent's words before the excerpt (parsers/correlate.py explain)
PEER = re.compile(r" \(peer ([^()\s]{1,256})\)")
# a container's line of a node fault kind (reason WorkloadError): "<kind>: the container printed a line that reads
# like a kernel message of this kind; ..." (parsers/correlate.py CLAIMED)
CLAIMED = re.compile(r"^(\w+): " + re.escape(CLAIMED_WORDS[:40]))


class Reader:
    """Turns published objects into Evidence; one classifier (its memo and tables) for all of them, each quoted line
    classified alone (Classifier.classify_alone): Events of different nodes and pods follow each other here, and no
    line's context (an open event, a GPU index's address, a banner's UUID) may reach another's."""

    def __init__(self) -> None:
        self.classifier = Classifier()

    def _classify(self, text: str):
        return classify_alone(self.classifier, text)

    @staticmethod
    def _restored(base: Evidence, ours: str) -> Evidence:
        """Evidence of a line its excerpt cut (CUT), with the details the agent's words before the excerpt state of it
        (parsers/correlate.py read_what: the inverse of its kind's `named`, parsers/kinds.py `read_named`), where the
        cut took them: a CUDA error's error, a completion's status (the detail missing, or cut: the words' value starts
        with what the excerpt kept, less the cut mark); a detail the excerpt states whole stands.  Read again by what
        they decide (parsers/rules.py read_again: a CUDA error's attribution, the application's for an illegal memory
        access, the GPU's for an uncorrectable ECC error); as it was where that would make it another kind."""
        restored = {key: value for key, value in read_what(base.kind, ours).items()
                    if _cut_off(base.details.get(key), value)}
        if not restored:
            return base
        kind, severity, attribution, _ = read_again(base.kind, base.severity, base.attribution, "", restored)
        if kind != base.kind:
            return base
        return base.with_context(severity=severity, attribution=attribution, details={**base.details, **restored})

    # ---- Events ------------------------------------------------------------------------------------

    def pod_event(self, ev: Mapping[str, Any], host: str | None = None) -> list[Evidence]:
        """A node agent's Event on a Pod: one Evidence per rank it lists (at most the 16 it shows).  Its time: the
        quoted line's own (the agent writes it as the Event's eventTime, to the microsecond: kubeapi.events) for the
        line's rank, the Event's own (firstTimestamp, when the agent recorded it) for the other ranks it lists, whose
        lines the agent read after the quoted one; the Event's own for all from an agent that wrote no eventTime."""
        reason = ev.get("reason") or ""
        message = ev.get("message") or ""
        host = (ev.get("source") or {}).get("host") or host
        when, recorded = event_times(ev)
        pod = (ev.get("involvedObject") or {}).get("name")
        m = EXCERPT.search(message)
        ours = message[:m.start()] if m else message
        stated = read_stated(ours)
        if stated is not None:  # after its log stated the job's success: the line's place and that statement's
            return _after_stated(self.pod_event({**ev, "message": STATED_WORDS.sub("", message, 1)}, host),
                                 stated, host, when, pod)
        fact = read_words(reason, ours)
        if fact is not None:
            return [_job_fact(*fact, host, when, pod, m.group(1) if m else message[:TEXT])]
        finding = self._classify(m.group(1)) if m else None
        app_xid = re.match(r"^Xid(\d+)", reason)
        text = m.group(1) if m else message[:TEXT]  # the container's own line, else our words (bounded)
        said = POD_REASON_KINDS.get(reason) or _claimed(reason, ours)  # the kind the agent found, by its words
        if finding is not None and said is not None and finding.kind != said and m.group(1).endswith(CUT):
            finding = None  # the excerpt cut the line and reads back as another kind: the agent's word stands
        if finding is None and said is not None and reason not in POD_REASON_KINDS:  # a node kind, claimed
            row = KIND.get(said)
            base = Evidence(said, row.severity, row.attribution, when, host, text=text)
        elif finding is not None:
            base = Evidence.from_finding(finding, host=host, time=when, text=text)
        elif app_xid:
            base = Evidence("xid", "error", "application", when, host, xid=int(app_xid.group(1)), text=text)
        else:
            kind = POD_REASON_KINDS.get(reason)
            if kind is None:
                return []
            base = Evidence(kind, "error", "hardware" if reason in HARDWARE_CUDA else "unknown", when, host,
                            text=text)
        if m and m.group(1).endswith(CUT) and base.kind == POD_REASON_KINDS.get(reason):
            base = self._restored(base, ours)  # what the cut took, as the agent's words state it
        context: dict[str, Any] = {"file": f"pod/{pod}" if pod else None}  # set in one copy: a storm's hot path
        peer = PEER.search(ours) if base.peer is None else None
        if peer:
            context["peer"] = peer.group(1)
        redacted = context.get("peer") or base.peer
        if placeholder(redacted):  # a redacted peer ("172....<33759>") names no peer, as offline (triage/read.py)
            context.update(peer=None, details={**base.details, "peer_redacted": redacted})
        gpu = GPU.search(ours)
        if gpu and base.pci is None:
            context.update(pci=gpu.group(2).lower(), gpu=int(gpu.group(1)) if gpu.group(1) else None)
        ranks = _ranks(ours)
        colls = read_collectives(ours) if base.kind == "nccl_timeout" else {}
        if colls:  # each listed rank's own collective (agent/workloads.py), whatever the quoted line's
            ranks = list(dict.fromkeys((*ranks, *colls)))
        if len(ranks) == 1:
            context["rank"] = ranks[0]
        node = read_node_named(ours)
        if node is not None:  # the node its line names (agent/workloads.py): that node's, as offline
            context["details"] = {**context.get("details", base.details), NODE_NAMED: node}
        base = base.with_context(**context)
        if node is not None:
            base = on_named_node(base)
        task = read_ray_task(ours)
        if task is not None:  # raised in a Ray task's process (agent/workloads.py): that process's, on its node
            return [of_ray_task(base, *task)]
        if len(ranks) <= 1 and not colls:
            return [base]
        # the quoted line's rank at its time; where the line names none, every rank listed (no order is known)
        return [_in_collective(base.with_context(rank=r) if base.rank in (None, r) or recorded is None else
                               base.with_context(rank=r, time=recorded), colls.get(r)) for r in ranks]

    def their_pod_event(self, ev: Mapping[str, Any], host: str | None = None) -> list[Evidence]:
        """Another component's Event on a job's pod that triage reads (`watched_pod_event`, which the caller,
        cluster.book Book.event, tests first): a Warning of a pod end only an Event says (POD_WARNINGS: the kubelet's
        FailedMount and FailedPrepareDynamicResources, the attach-detach controller's FailedAttachVolume) or context of
        one (the node controller's NodeNotReady), or a Normal one that says whose a pod end is (POD_NORMALS:
        Karpenter's Evicted).  Read as offline triage reads the same Event in `kubectl get events -o json`
        (triage.inventory read_events), on the node its kubelet names, else the pod's (`host`: an attach-detach
        controller's, the node controller's and Karpenter's Events name none); [] for one it does not read."""
        pod = (ev.get("involvedObject") or {}).get("name")
        return [e if e.host else e.with_context(host=host)
                for e in read_events([ev], f"pod/{pod}" if pod else None)]

    @staticmethod
    def job_event(ev: Mapping[str, Any]) -> list[Evidence]:
        """The Job controller's Event on a batch Job of a reason JOB_SELECTORS watches (triage.facts JOB_EVENTS: its
        DeadlineExceeded): read as offline triage reads it in `kubectl get events -o json` (triage.inventory
        read_events: the job's end, no node's); [] for another."""
        obj = ev.get("involvedObject") or {}
        if ev.get("reason") not in JOB_EVENTS or not str(obj.get("apiVersion") or "").startswith("batch/"):
            return []
        return read_events([ev], f"job/{obj.get('name')}")

    def node_event(self, ev: Mapping[str, Any]) -> list[Evidence]:
        """A node agent's Event on a Node: a node fault (or nothing, for what is not one), at its problem's own time
        (the kernel line's: `event_times`), to which triage's node fault window is measured against the ranks' lines.
        Another component's of a reason NODE_SELECTORS watches (triage.facts NODE_EVENTS, no agent's): read as offline
        triage reads it in `kubectl get events -o json` (triage.inventory read_events: the GPU Operator's upgrade
        evicting the node's pods, context; its other states nothing)."""
        host = (ev.get("involvedObject") or {}).get("name")
        if ev.get("reason") in NODE_EVENTS:
            return read_events([ev], f"node/{host}")
        when = event_times(ev)[0]
        severity = "error" if ev.get("type") == "Warning" else "info"
        e = node_fact(self.classifier, ev.get("reason") or "", ev.get("message") or "", host, when, severity)
        return [e] if e is not None else []

    def condition(self, host: str, cond: Mapping[str, Any], now: float | None = None,
                  foreign: bool = True) -> Evidence | None:
        """A gpu-npd node condition that stands (status True) as a node fault; with `foreign`, another detector's
        (triage.facts FOREIGN_CONDITIONS) whose status is its problem, unless its detector stopped beating (`now`, the
        caller's clock in epoch seconds: its lastHeartbeatTime more than STALE_BEATS of its period before).  The one
        reading of a condition, offline triage's of a Node in a dump too (triage.conditions read_condition)."""
        return read_condition(self.classifier, host, cond, now, foreign)

    # ---- pods ----------------------------------------------------------------------------------------

    def pod_exits(self, pod: Mapping[str, Any], rank: int | None = None,
                  taints: tuple[str, ...] = (), order: Order | None = None) -> list[Evidence]:
        """Containers of a pod that ended badly (this run or the one before a restart), what their status messages
        say of the pod's node, and Kubernetes ending the pod itself: triage.inventory pod_ends, the reading offline
        triage gives a Pod object too (`taints`: the NoExecute taint keys its node has, which say why a taint manager
        deleted it).  A container its pod's deletion ended is none (triage.inventory `ended_by_deletion`; `order`:
        what the watch saw of the pod before, `watched`)."""
        deleted, order = deletion_asked(pod), order or Order()
        by_deletion = None if deleted is None else (
            lambda container, state, when: ended_by_deletion(state, when, deleted, _seen(container, state, order)))
        return pod_ends(pod, rank, taints, classifier=self.classifier, by_deletion=by_deletion)


def _cut_off(kept: Any, said: Any) -> bool:
    """Whether an excerpt cut off a detail its line's words state whole (`said`): it kept none, or a start of it
    that runs to the cut (CUT)."""
    return kept is None or isinstance(kept, str) and kept.endswith(CUT) and str(said).startswith(kept[:-len(CUT)])


def event_times(ev: Mapping[str, Any]) -> tuple[datetime | None, datetime | None]:
    """A node agent's Event's two times: when what it says happened (its eventTime: the quoted line's own, or the node
    problem's, to the microsecond: kubeapi.events), and when the agent recorded it (its firstTimestamp, to the second).
    The first is the second where the Event has no eventTime (an agent older than that wrote none)."""
    recorded = parse_time(ev.get("firstTimestamp") or ev.get("lastTimestamp"))
    return parse_time(ev.get("eventTime")) or recorded, recorded


def watched_pod_event(ev: Mapping[str, Any]) -> bool:
    """Another component's Event on a pod that triage reads: a Warning of a pod end only an Event says, or context of
    one (POD_WARNINGS), or a Normal one that says whose a pod end is (POD_NORMALS); POD_EVENT_SELECTORS, as the API
    server selects them."""
    return ev.get("reason") in POD_SELECTORS.get(ev.get("type"), ())


@dataclass(frozen=True, slots=True)
class Order:
    """What the controller's watch saw of a pod before this view (the API server's order of its updates, no clock):
    `before`, the terminated states (container, finishedAt) its last view without deletionTimestamp showed (a pod's
    deletionTimestamp is never unset: every such view came before the deletion; at most two a container);
    `running`, the containers it saw running while the pod was being deleted."""

    before: frozenset = frozenset()
    running: frozenset = frozenset()


def watched(pod: Mapping[str, Any], order: Order | None = None) -> Order:
    """`order` with what this view of the pod adds to it (cluster/book.py keeps one per pod uid)."""
    order = order or Order()
    statuses = (pod.get("status") or {}).get("containerStatuses") or ()
    if (pod.get("metadata") or {}).get("deletionTimestamp") is None:
        ended = {(cs.get("name"), t.get("finishedAt")) for cs in statuses
                 for t in ((cs.get("state") or {}).get("terminated"), (cs.get("lastState") or {}).get("terminated"))
                 if t}
        return order if ended == order.before else Order(frozenset(ended), order.running)  # the states shown now
    running = {cs.get("name") for cs in statuses if (cs.get("state") or {}).get("running") is not None}
    return Order(order.before, order.running | running) if not running <= order.running else order


def _seen(container: str | None, state: Mapping[str, Any], order: Order) -> bool | None:
    """What the watch's order (`Order`, no clock) says of a container's last end: ended before the deletion (seen
    terminated in a view without deletionTimestamp), False, its own; running when the deletion was asked (seen so in a
    view with one), True, the deletion's; None where it saw neither (triage.inventory ended_by_deletion then reads the
    clocks)."""
    if (container, state.get("finishedAt")) in order.before:
        return False
    return True if container in order.running else None


def repair_gpus(node: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The repair annotation's GPUs by PCI address (lower case), {} without one or when it is not JSON."""
    raw = ((node.get("metadata") or {}).get("annotations") or {}).get(REPAIR_ANNOTATION)
    if not raw:
        return {}
    try:
        doc = json.loads(raw)
        return {str(g["pci"]).lower(): g for g in doc.get("gpus", []) if isinstance(g, dict) and g.get("pci")}
    except (ValueError, TypeError, AttributeError):
        return {}


def with_gpus(evidence: Iterable[Evidence], gpus: Mapping[str, Mapping[str, Any]]) -> list[Evidence]:
    """Evidence with the GPU index (and UUID) the repair annotation gives for its PCI address."""
    out = []
    for e in evidence:
        g = gpus.get((e.pci or "").lower()) if e.pci else None
        if g is not None and (e.gpu is None or "uuid" not in e.details):
            index = g.get("index")
            e = e.with_context(gpu=e.gpu if e.gpu is not None else (int(index) if str(index).isdigit() else None),
                               details={**e.details, **({"uuid": g["uuid"]} if g.get("uuid") else {})})
        out.append(e)
    return out


def _job_fact(row, fields: dict, host: str | None, when: datetime | None, pod: str | None,
              text: str) -> Evidence:
    """A job fact's Pod Event (triage.facts.LIVE_FACTS; agent/workloads.py) as the Evidence triage reads from its line:
    the process it names (the rank, the host the line names, else the writer's node, unless the fact is never about
    its writer: a coordinator's lost process, a launcher's relay of a task's launch error, LiveFact.relayed), how
    it ended; the other fields in details; an error, but for a fact whose row reads it as less (FACT_SEVERITY: a rerun's
    verdict, a warning)."""
    values = {name: fields[name] for name in fields if name in FACT_INT_FIELDS or name in FACT_TEXT_FIELDS}
    # (a witness's `consequence` stays True, as offline's: triage.attribute is_consequence)
    details = {name: value if isinstance(value, bool) else str(value) for name, value in fields.items()
               if name not in values}
    if "host" not in values and row.kind not in ONLY_ANOTHER and not row.relayed:
        values["host"] = host
    return Evidence(row.kind, FACT_SEVERITY.get(details.get("fact"), "error"), "unknown", when, text=text,
                    file=f"pod/{pod}" if pod else None, details=details, **values)


def _after_stated(evidence: list[Evidence], stated: tuple[str, int, float | None, int], host: str | None,
                  when: datetime | None, pod: str | None) -> list[Evidence]:
    """A Pod Event's evidence whose line its pod's log printed after stating the job's success (triage.teardown
    `read_stated`: the statement's row, its line, how long before, the line's own): each at the line's place, and the
    statement as the job_success evidence offline reads from that line (its time that long before the Event's line's,
    where both had one), so that the cluster's incident says what offline's does (triage.attribute `_after_success`)."""
    if not evidence:
        return evidence
    name, line, before, this = stated
    at = when - timedelta(seconds=before) if when is not None and before is not None else None
    said = Evidence("job_success", FACT_SEVERITY.get(name, "info"), "unknown", at, host,
                    file=f"pod/{pod}" if pod else None, line=line, details={"fact": name})
    return [*(e.with_context(line=this) for e in evidence), said]


def _in_collective(e: Evidence, c: Collective | None) -> Evidence:
    """A rank's timeout evidence with the collective its agent's Event lists for it (SeqNum, OpType, size, process
    group, as offline reads them from the rank's own lines), or as it is where the Event lists none for the rank."""
    if c is None:
        return e
    details = {k: v for k, v in e.details.items() if k not in ("numel_in", "pg", "group_rank")}
    details.update(seq=c.seq, op=c.op)
    if c.numel_in is not None:
        details["numel_in"] = c.numel_in
    if c.pg is not None:
        details["pg"] = c.pg
    return e.with_context(seq=c.seq, op=c.op, details=details)


def _claimed(reason: str, ours: str) -> str | None:
    """The node fault kind a WorkloadError Event says the container's line reads as (None: not such an Event)."""
    if reason != "WorkloadError":
        return None
    m = CLAIMED.match(ours)
    return m.group(1) if m and m.group(1) in KIND else None


def _ranks(text: str) -> list[int]:
    m = RANKS.search(text)
    if not m:
        return []
    if m.group(1):
        return [int(m.group(1))]
    return [int(x) for x in m.group(2).split(",") if x]
