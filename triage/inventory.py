"""Where a job's addresses are, from the cluster's own inventory: its pods' and nodes' objects (the API's JSON, what
`gpu-npd cluster` watches and `kubectl get pods,nodes -o json` writes) or kubectl's wide tables (`kubectl get pods -o
wide`, `kubectl get nodes -o wide`).  Pure.

NCCL, Gloo, Ray and torch name a peer or a lost node by its address (`NET/IB : Got completion from peer
172.17.127.143<49577>`, Ray's `... and ip: 10.128.0.103 has been marked dead`); a pod's IP and its node, or a node's
own addresses, say which node (and pod) that is.  What is read here becomes the same evidence NCCL's own address lines
give triage (kind `nccl_address`: the address, its node as host, details `pod` and `map: cluster`), which
triage.attribute's Job prefers to NCCL's (the node, not the pod's hostname NCCL prints).

- A pod's addresses: status.podIP, status.podIPs, and its other interfaces' as Multus lists them
  (k8s.v1.cni.cncf.io/network-status; NCCL_SOCKET_IFNAME may name one of them); a hostNetwork pod's IP is its
  node's (the node, no pod).  Its hostname too (its name, or spec.hostname): what NCCL's prefix, MPI's "on node
  ..", torchrun's "host : .." call it.
- A node's addresses: status.addresses (InternalIP, ExternalIP, Hostname ...), and on EC2 the instance its
  spec.providerID names (libfabric's EFA provider names a peer by its instance: "Peer host id: i-..").
- kubectl's tables: a file whose first line is the header of `get pods -o wide` (NAME .. IP  NODE, NAMESPACE first
  with -A) or `get nodes -o wide` (NAME .. INTERNAL-IP  EXTERNAL-IP ..); each row's cells are read at its header's
  column positions (kubectl aligns them; RESTARTS may hold spaces: "1 (72d ago)").  An IP two pods of one table
  share is a hostNetwork pod's: its node's.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Any, Callable, Collection, Iterable, Iterator, Mapping, NamedTuple

from parsers import Classifier
from parsers.envelope import json_document, json_value, parse_time

from .attribute import JOB_SEEN_NODE_FAULTS, NODE_FAULT_KINDS
from .clock import Clock
from .conditions import MESSAGE_TEXT, read_condition
from .facts import POD_ENDS, WAITING_REASONS, WHY_OOM, pod_end, pod_ended_as
from .model import TEXT_MAX, Evidence
from .read import read_lines

# Multus: a pod's interfaces and their addresses, JSON [{"name", "interface", "ips": [..], "mac", ..}] (its
# NetworkStatus type, k8snetworkplumbingwg/network-attachment-definition-client pkg/apis/k8s.cni.cncf.io/v1/types.go),
# under the annotation's name and the older one it replaced
NETWORK_STATUS = ("k8s.v1.cni.cncf.io/network-status", "k8s.v1.cni.cncf.io/networks-status")
MAX_INTERFACES = 16  # interfaces (and addresses of each) read from it
MAP = "cluster"  # details["map"] of the evidence made here
_COLUMNS = re.compile(r"\S+(?: \S+)*")  # a header's column: words one space apart (NOMINATED NODE)
# A Node's spec.providerID on EC2, "aws:///<zone>/<instance id>" (the AWS cloud provider's, every EKS node's): the
# instance libfabric's EFA provider names a peer by ("Peer host id: i-0ce6d3d57139f053c", triage.facts efa_host_id)
PROVIDER_INSTANCE = re.compile(r"^aws:///[\w\-]*/(i-[0-9a-f]{8,17})$")
_IP = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]+)$")


class PodAddresses(NamedTuple):
    node: str
    pod: str  # "namespace/name" (the name alone where the namespace is not known)
    ips: tuple[str, ...]  # the pod's own (none for a hostNetwork pod)
    host_ip: str  # its node's, "" unknown


def address_key(address: str) -> str:
    """An address as compared here: no port ("<43123>", "[..]:29500", an IPv4 "..:29500"), no zone, lower case."""
    a = address.strip()
    if a.startswith("[") and "]" in a:  # "[fd00::1]:29500"
        a = a[1:a.index("]")]
    a = a.split("<", 1)[0].split("%", 1)[0].strip("[]")
    if a.count(":") == 1:  # an IPv4 address or a name with its port
        a = a.split(":", 1)[0]
    return a.lower()


def pod_addresses(obj: Mapping[str, Any]) -> PodAddresses:
    """A Pod object's addresses and where it runs."""
    meta = _mapping(obj.get("metadata"))
    status = _mapping(obj.get("status"))
    node = _mapping(obj.get("spec")).get("nodeName") or ""
    host_ip = address_key(status.get("hostIP") or "")
    ips: tuple[str, ...] = ()
    if node and not _mapping(obj.get("spec")).get("hostNetwork"):
        raw = [status.get("podIP") or ""] + [p.get("ip") or "" for p in status.get("podIPs") or []
                                             if isinstance(p, dict)] + attached_ips(meta)
        ips = tuple(dict.fromkeys(a for a in map(address_key, raw) if a and a != host_ip))
    ns, name = meta.get("namespace") or "", meta.get("name") or ""
    return PodAddresses(node, f"{ns}/{name}" if ns else name, ips, host_ip)


def pod_hostnames(obj: Mapping[str, Any]) -> tuple[str, ...]:
    """The names a pod's own lines and its peers' call it by: its hostname, the pod's name unless spec.hostname sets
    another (an Indexed Job's "<job>-<index>", a JobSet's)."""
    name = _mapping(obj.get("metadata")).get("name") or ""
    hostname = _mapping(obj.get("spec")).get("hostname") or ""
    return tuple(dict.fromkeys(h for h in (hostname, name) if h))


def attached_ips(meta: Mapping[str, Any]) -> list[str]:
    """The addresses Multus lists for a pod's interfaces (its network-status annotation), [] without one."""
    annotations = _mapping(meta.get("annotations"))
    raw = annotations.get(NETWORK_STATUS[0]) or annotations.get(NETWORK_STATUS[1])
    if not raw:
        return []
    try:
        doc = json_value(raw)  # (None where it is no JSON: a TypeError below)
        return [str(ip) for net in doc[:MAX_INTERFACES] if isinstance(net, dict)
                for ip in (net.get("ips") or [])[:MAX_INTERFACES] if isinstance(ip, str)]
    except (ValueError, TypeError, AttributeError, KeyError):
        return []


def node_addresses(obj: Mapping[str, Any]) -> tuple[str, ...]:
    """A Node object's status.addresses (InternalIP, ExternalIP, Hostname, ...), as address_key gives them, then the
    EC2 instance its spec.providerID names (PROVIDER_INSTANCE)."""
    out = []
    for x in _mapping(obj.get("status")).get("addresses") or ():
        if isinstance(x, dict) and x.get("address"):
            out.append(address_key(str(x["address"])))
    m = PROVIDER_INSTANCE.match(str(_mapping(obj.get("spec")).get("providerID") or ""))
    if m is not None:
        out.append(m.group(1))
    return tuple(dict.fromkeys(a for a in out if a))


def no_execute(node: Mapping[str, Any]) -> tuple[str, ...]:
    """A Node's NoExecute taints' keys (at most 16): why the taint manager deleted a pod of it (facts.pod_end)."""
    return tuple(str(t["key"]) for t in _mapping(node.get("spec")).get("taints") or ()
                 if isinstance(t, dict) and t.get("effect") == "NoExecute" and t.get("key"))[:16]


def located(address: str, node: str, pod: str | None, file: str | None = None, line: int | None = None) -> Evidence:
    """The evidence that `address` is `node` (and `pod`): the kind NCCL's own address lines are read as."""
    return Evidence("nccl_address", "info", host=node, address=address, file=file, line=line,
                    details={"map": MAP, **({"pod": pod} if pod else {})})


def fault_in(classifier: Classifier, message: str, kinds: Collection[str]) -> Any:
    """The first finding of one of `kinds` (a parsers.Finding; None: none) in a status message Kubernetes or the
    container runtime wrote on a pod: its first line read alone (Classifier.classify_alone: a stream of its own,
    nothing of another pod's reaching it), the others after it in that stream (at most 64); a message the parsers choke
    on is none."""
    try:
        for i, line in enumerate(message.splitlines()[:64]):
            finding = classifier.classify_alone(line) if i == 0 else classifier.classify(line)
            if finding is not None and finding.kind in kinds:
                return finding
    except Exception:  # noqa: BLE001 - a message the parsers choke on is just not evidence
        return None
    return None


def pod_ended(pod: Mapping[str, Any], rank: int | None = None, taints: tuple[str, ...] = (),
              file: str | None = None, classifier: Classifier | None = None) -> list[Evidence]:
    """Kubernetes ending the pod itself (triage.facts POD_ENDS): its DisruptionTarget condition (status True: the
    scheduler's preemption, the taint manager, the Eviction API, the pod GC, the kubelet), else its status.reason (the
    kubelet's node-pressure eviction "Evicted", "The node was low on resource: ephemeral-storage. Threshold quantity:
    1Gi, available: 777784Ki." (kubernetes/kubernetes #122932), NodeLost, a node shutdown's "Terminated", an admission the
    device plugin refused, "UnexpectedAdmissionError"); a status.reason the table knows names it better than the
    condition (Evicted's TerminationByKubelet).  One job_ended Evidence of the pod (its node, its rank): the cluster
    component's (cluster/evidence.py, the pods it watches) and offline triage's (a `kubectl get pods -o json` beside the
    logs, read_objects), as offline triage reads the same reasons in kubectl's text (the k8s_ended row); [] for a pod
    no one ended.  Before it, the node fault the ending's message names, read by the parsers (`fault_in`,
    NODE_FAULT_KINDS; `classifier` reused across pods, else one of its own): the kubelet's UnexpectedAdmissionError
    quoting the device plugin's NVML error "error creating nvml.Device 5: nvml: GPU is lost, which is unexpected"
    (kubernetes/kubernetes #97131) is the node's lost GPU (fallen_off_bus, parsers/rules.py nvml_gpu_is_lost), the
    pod's end its consequence (triage.attribute's node_fault shows it after the fault), as offline triage reads the
    same message in kubectl's text; an admission refused for "requested number of devices unavailable" (#96519) or a
    device plugin unreachable names no fault: the job_ended alone."""
    status = _mapping(pod.get("status"))
    host = _mapping(pod.get("spec")).get("nodeName")
    name = _mapping(pod.get("metadata")).get("name")
    cond = next((c for c in status.get("conditions") or () if isinstance(c, dict) and
                 c.get("type") == "DisruptionTarget" and c.get("status") == "True"), None)
    reason = status.get("reason") if isinstance(status.get("reason"), str) else None
    key = pod_end(reason, taints)
    message = status.get("message") if key is not None else None
    if key is None:  # a container the kubelet could not start, its waiting reason (WAITING_REASONS: an image pull)
        statuses = [*(status.get("initContainerStatuses") or ()), *(status.get("containerStatuses") or ())]
        waits = [_mapping(cs.get("state")).get("waiting") for cs in statuses if isinstance(cs, dict)]
        waiting = next((w for w in waits if isinstance(w, dict) and w.get("reason") in WAITING_REASONS), None)
        if waiting is not None:
            reason, key, message = waiting["reason"], waiting["reason"], waiting.get("message")
    if cond is not None and (key is None or key == "TerminationByKubelet"):
        key = pod_end(cond.get("reason"), taints) or key
        if key is not None and key != pod_end(reason, taints):
            reason, message = cond.get("reason"), cond.get("message")
    if key is None:
        return []
    # when: the condition's transition, else its containers' first end, else (a pod that never ran) its start
    meta = _mapping(pod.get("metadata"))
    finished = (parse_time(_mapping(_mapping(cs.get("state")).get("terminated")).get("finishedAt"))
                for cs in status.get("containerStatuses") or () if isinstance(cs, dict))
    when = parse_time(_mapping(cond).get("lastTransitionTime")) or min(filter(None, finished), default=None) or \
        parse_time(meta.get("deletionTimestamp") or status.get("startTime") or meta.get("creationTimestamp"))
    pod_name, where = _pod_name(pod), file or f"pod/{name}"
    text = f"pod {name} {POD_ENDS[key].ended}: {reason}" + (f": {message}" if message else "")
    out = []
    finding = fault_in(classifier or Classifier(), message, NODE_FAULT_KINDS) if isinstance(message, str) else None
    if finding is not None:
        e = Evidence.from_finding(finding, host=host, time=when, text=text)
        out.append(e.with_context(file=where, line=None,
                                  details={**e.details, "pod": pod_name, "pod_reason": reason}))
    return out + [Evidence("job_ended", "error", "unknown", when, host, rank, text=text[:TEXT_MAX],
                           file=where,
                           details={"fact": "k8s_ended", **pod_ended_as(key, reason), "pod": pod_name,
                                    **({"taints": ",".join(taints)} if taints and key.startswith("taint:") else {})})]


def pod_started(pod: Mapping[str, Any], rank: int | None = None, file: str | None = None) -> list[Evidence]:
    """The kubelet started a container of the pod, as its status says (a container, or init container, running,
    `started` (1.16+), or ended with a start time, now or before a restart: the kubelet mounted its volumes and pulled
    its image first): the pod ran, as the kubelet's "Started container" Event says offline (triage.facts k8s_started,
    context kind pod_started; triage.attribute Job.ran), so a FailedMount or image pull it logged before is no failure.
    One Evidence a pod (the earliest start it shows), [] for a pod none of whose containers started."""
    status = _mapping(pod.get("status"))
    starts: list[datetime | None] = []
    for cs in (*(status.get("initContainerStatuses") or ()), *(status.get("containerStatuses") or ())):
        if not isinstance(cs, dict):
            continue
        now = _mapping(cs.get("state"))
        ran = [_mapping(now.get("running")), _mapping(now.get("terminated")),
               _mapping(_mapping(cs.get("lastState")).get("terminated"))]
        # (a terminated state of a container that never started, StartError, has the zero time: 1970-01-01)
        times = [t for t in (parse_time(r.get("startedAt")) for r in ran) if t is not None and t.timestamp() > 0]
        if times or "running" in now or cs.get("started") is True:
            starts.append(min(times, default=None))
    if not starts:
        return []
    name, host = _mapping(pod.get("metadata")).get("name"), _mapping(pod.get("spec")).get("nodeName")
    when = min(filter(None, starts), default=None)
    return [Evidence("pod_started", "info", "unknown", when, host, rank, text=f"pod {name} started", file=file or
                     f"pod/{name}", details={"fact": "k8s_started", "pod": _pod_name(pod)})]


def _pod_name(pod: Mapping[str, Any]) -> str | None:
    """A Pod object's "namespace/name" (its name alone where it has no namespace): evidence's detail "pod"."""
    meta = _mapping(pod.get("metadata"))
    ns, name = meta.get("namespace"), meta.get("name")
    return f"{ns}/{name}" if ns else name


def _mapping(value: Any) -> Mapping[str, Any]:
    """A field that should hold an object: {} where it holds anything else (a hand-edited document's string)."""
    return value if isinstance(value, dict) else {}


def runtime_faults(pod: Mapping[str, Any], rank: int | None = None, file: str | None = None,
                   classifier: Classifier | None = None) -> list[Evidence]:
    """A container (or init container) whose waiting or terminated message the parsers read as a fault of the node
    seen by the job (JOB_SEEN_NODE_FAULTS): the container runtime's OCI hook refusing the pod its GPUs, as the
    kubelet words it ("failed to create containerd task: .. error running hook #0: .. stderr: Auto-detected mode
    as 'legacy'" then, on the message's next line, "nvidia-container-cli: initialization error: nvml error: driver
    not loaded: unknown"; waiting reason RunContainerError / CreateContainerError, terminated StartError exit 128):
    the pod never ran, logged nothing, and no agent saw a line of it. One Evidence per container and fault text;
    each message's lines read as one stream of their own (its two lines one failure), nothing reaching another's.
    Other kinds in a message (a terminated container's log tail, FallbackToLogsOnError) are the agents' to report
    from the pod's log."""
    status = _mapping(pod.get("status"))
    host = _mapping(pod.get("spec")).get("nodeName")
    name = _mapping(pod.get("metadata")).get("name")
    pod_name = _pod_name(pod)
    classifier = classifier or Classifier()
    out: list[Evidence] = []
    seen: set[tuple] = set()
    for cs in (*(status.get("initContainerStatuses") or ()), *(status.get("containerStatuses") or ())):
        if not isinstance(cs, dict):
            continue
        last = _mapping(_mapping(cs.get("lastState")).get("terminated"))
        now = _mapping(cs.get("state"))
        for key, state in (("waiting", _mapping(now.get("waiting"))), ("terminated", _mapping(now.get("terminated"))),
                           ("terminated", last)):
            message = state.get("message")
            if not message or not isinstance(message, str):
                continue
            finding = fault_in(classifier, message, JOB_SEEN_NODE_FAULTS)
            if finding is None:
                continue
            said = (cs.get("name"), finding.kind, finding.details.get("driver_error") or finding.message)
            if said in seen:
                continue
            seen.add(said)
            when = parse_time(state.get("finishedAt") or state.get("startedAt") or last.get("finishedAt") or
                              status.get("startTime") or _mapping(pod.get("metadata")).get("creationTimestamp"))
            text = f"container {cs.get('name')} of pod {name} {key} ({state.get('reason') or '?'}): {message}"
            e = Evidence.from_finding(finding, host=host, rank=rank, time=when, text=text[:MESSAGE_TEXT])
            out.append(e.with_context(file=file or f"pod/{name}", line=None,
                                      details={**e.details, "pod": pod_name, "container": cs.get("name"),
                                               "state": key, "reason": state.get("reason")}))
    return out


# whether a container's current terminated state (container's name, the state, its finishedAt) was its pod's
# deletion rather than its own end: the live path's judgement from what its watch saw (cluster/evidence.py)
DeletionEnded = Callable[[Any, Mapping[str, Any], datetime | None], bool]
SKEW_S = 2  # seconds: how far apart a node's finishedAt and the API server's deletionTimestamp can read one moment
KILL_CODES = (128 + 9, 128 + 15)  # the kubelet's kill: SIGTERM at the request (143), SIGKILL at the grace's end (137)


def deletion_asked(pod: Mapping[str, Any]) -> float | None:
    """The earliest the pod's deletion through the API can have been asked (its owner restarting or suspending it, a
    preemption, a node drain, a user, cascading recovery), on the API server's clock; None for a pod not being
    deleted (no deletionTimestamp: `kubectl get pods` shows no `Terminating`).  The API server sets
    deletionTimestamp to the request + its grace period; a later delete with a shorter grace moves it earlier and sets
    deletionGracePeriodSeconds to the shorter grace, so the first request may be as early as the deadline less the
    pod's own grace (spec.terminationGracePeriodSeconds, the grace a delete that names none gets): the deadline less
    the larger of the two (the deadline alone where neither is said)."""
    meta = _mapping(pod.get("metadata"))
    deadline = parse_time(meta.get("deletionTimestamp"))
    if deadline is None:
        return None
    graces = (meta.get("deletionGracePeriodSeconds"), _mapping(pod.get("spec")).get("terminationGracePeriodSeconds"))
    return deadline.timestamp() - max((g for g in graces if isinstance(g, int) and g > 0), default=0)


def ended_by_deletion(state: Mapping[str, Any], when: datetime | None, asked: float,
                      seen: bool | None = None) -> bool:
    """Whether a container's last end (state.terminated, `when` its finishedAt; a lastState ended before a restart the
    kubelet does not make in a pod it is deleting) was its pod's deletion, asked at `asked` (deletion_asked): the
    kubelet's SIGTERM (torchrun handling it exits 1, a process that does not, 143) and SIGKILL at the grace period's
    end (137), rather than its own death that its owner reacted to (a JobSet's failurePolicy, a Job's backoffLimit),
    in the order of the evidence's strength:
    - OOMKilled: the kernel's kill, never the kubelet's: its own;
    - `seen`: what the live path's watch saw of the order (cluster/evidence.py `_seen`, no clock): False ended before
      the deletion, True running when it was asked; None where nothing was seen (an offline snapshot);
    - the clocks, for a pod first seen already deleted (the controller restarting, a relist; `kubectl get pod -o
      yaml` of a Terminating pod): finishedAt is the node's clock, `asked` the API server's, both whole seconds; a
      container that ended SKEW_S or more after the request was its deletion's; one that ended within SKEW_S of it
      only with the kill's own exit code (KILL_CODES), any other (exit 1, a segfault) its own death.  torchrun takes
      about that long to exit 1 on a SIGTERM: "Received 15 death signal, shutting down workers" at 21:35:32.106, its
      SignalException traceback at 21:35:34.295 (determined-ai/determined #8915); an exit 1 nearer the request is
      read as a crash."""
    if state.get("reason") == "OOMKilled":
        return False
    if seen is not None:
        return seen
    if when is None:
        return False
    ended = when.timestamp()
    return ended >= asked + SKEW_S or (ended >= asked - SKEW_S and state.get("exitCode") in KILL_CODES)


def deletion_ends(pod: Mapping[str, Any]) -> DeletionEnded | None:
    """An offline snapshot's judgement of which container ends were its pod's deletion: the clocks alone
    (ended_by_deletion, nothing seen of the order); None for a pod not being deleted."""
    asked = deletion_asked(pod)
    return None if asked is None else (lambda container, state, when: ended_by_deletion(state, when, asked))


def container_exits(pod: Mapping[str, Any], rank: int | None = None, file: str | None = None,
                    by_deletion: DeletionEnded | None = None) -> list[Evidence]:
    """Containers of a pod that ended badly, this run (state.terminated) or the one before a restart
    (lastState.terminated: a container in CrashLoopBackOff shows its last end there): OOMKilled (its cgroup's limit,
    WHY_OOM; exit code 137, or 0 as some runtimes report it) is an `oom_kill`, a non-zero exit code a rank's death
    (`rank_exit`, its signal from an exit code 129-159 or the state's `signal`), with the pod's node, its rank,
    the state's finishedAt and details "pod" and "container" (the pod an incident's root names); exit 0 is none.
    `by_deletion` says which current ends were the pod's deletion (none of them: skipped)."""
    status = _mapping(pod.get("status"))
    host = _mapping(pod.get("spec")).get("nodeName")
    name = _mapping(pod.get("metadata")).get("name")
    where = file or f"pod/{name}"
    pod_name = _pod_name(pod)
    out = []
    for cs in status.get("containerStatuses") or []:
        if not isinstance(cs, dict):
            continue
        for last, state in ((False, _mapping(_mapping(cs.get("state")).get("terminated"))),
                            (True, _mapping(_mapping(cs.get("lastState")).get("terminated")))):
            if not state:
                continue
            when = parse_time(state.get("finishedAt"))
            if by_deletion is not None and not last and by_deletion(cs.get("name"), state, when):
                continue
            code = state.get("exitCode")
            if not code and state.get("reason") != "OOMKilled":
                continue
            text = f"container {cs.get('name')} of pod {name} terminated: {state.get('reason') or 'Error'}, " \
                   f"exit code {code}"
            if state.get("reason") == "OOMKilled":  # its cgroup's limit (WHY_OOM)
                out.append(Evidence("oom_kill", "error", "application", when, host, rank, text=text,
                                    file=where, exit_code=code,
                                    details={"oom": WHY_OOM["OOMKilled"], "pod": pod_name,
                                             "container": cs.get("name")}))
                continue
            signal = code - 128 if isinstance(code, int) and 128 < code < 160 else state.get("signal")
            out.append(Evidence("rank_exit", "error", "unknown", when, host, rank, text=text, file=where,
                                exit_code=code, signal=signal or None,
                                details={"pod": pod_name, "container": cs.get("name")}))
    return out


def pod_ends(pod: Mapping[str, Any], rank: int | None = None, taints: tuple[str, ...] = (), file: str | None = None,
             classifier: Classifier | None = None, by_deletion: DeletionEnded | None = None) -> list[Evidence]:
    """Everything a Pod object says of how its containers and the pod ended, read alike live (cluster/evidence.py
    Reader.pod_exits, the pods the controller watches) and offline (read_objects: `kubectl get pod X -o yaml`,
    `kubectl get pods -o json` beside the logs): what the containers' status messages say of the pod's node
    (runtime_faults), Kubernetes ending the pod itself (pod_ended), the containers' own ends (container_exits), and
    whether the kubelet started a container of it (pod_started: context that a volume or image it waited on before is
    no failure)."""
    classifier = classifier or Classifier()
    return (runtime_faults(pod, rank, file, classifier) + pod_ended(pod, rank, taints, file, classifier) +
            container_exits(pod, rank, file, by_deletion) + pod_started(pod, rank, file))


# ---- offline: an inventory file in the job's directory ---------------------------------------------------------

def kind_of(first_line: str) -> str | None:
    """"pods" / "nodes" for the header of kubectl's wide table, "json" for a pretty-printed JSON document's first
    line, "yaml" for `kubectl get -o yaml`'s ("apiVersion: v1"); None for anything else (a log)."""
    line = first_line.rstrip("\r\n")
    if line.strip() == "{":
        return "json"
    if line.startswith(("apiVersion: ", "- apiVersion: ")):  # (a List's items pasted alone: a sequence of objects)
        return "yaml"
    if not line.startswith(("NAME ", "NAMESPACE ")):
        return None
    cols = set(_COLUMNS.findall(line))
    if {"NAME", "IP", "NODE"} <= cols:
        return "pods"
    if {"NAME", "INTERNAL-IP"} <= cols:
        return "nodes"
    return None


MAX_OPENING = 64  # comment and blank lines passed over before an inventory document's first line


def opening(first: str, lines: Iterator[str]) -> tuple[list[str], str | None]:
    """The `#` comment lines and blank lines at a file's start (`kubectl edit`'s "# Please edit the object below. ..."
    header before the YAML it opens, a header a user wrote above a saved `kubectl get -o yaml`), up to MAX_OPENING,
    and the line after them (None at the end of the file), the one kind_of judges; taken from `lines`."""
    before: list[str] = []
    line: str | None = first
    while line is not None and len(before) < MAX_OPENING and (not line.strip() or line.lstrip().startswith("#")):
        before.append(line)
        line = next(lines, None)
    return before, line


def read_table(lines: Iterable[str], file: str | None = None) -> list[Evidence]:
    """kubectl's wide table of pods or nodes (header first) as located addresses, and a pod row whose STATUS is a
    reason Kubernetes ended it by (POD_ENDS: Evicted, Shutdown, UnexpectedAdmissionError, OutOfnvidia.com/gpu,
    ErrImagePull, ..) that pod's end, as its object's status.reason is (pod_ended: its NODE, NAMESPACE/NAME; the row the
    evidence's line); rows it cannot read are skipped."""
    it = iter(lines)
    header = next(it, "").rstrip("\r\n")
    kind = kind_of(header)
    if kind not in ("pods", "nodes"):
        return []
    cols = [(m.group(0), m.start()) for m in _COLUMNS.finditer(header)]
    names = [c for c, _ in cols]
    rows: list[tuple[int, dict[str, str]]] = []
    for n, raw in enumerate(it, 2):
        row = raw.rstrip("\r\n")
        if not row.strip():
            continue
        cells = {}
        for i, (name, start) in enumerate(cols):
            end = cols[i + 1][1] if i + 1 < len(cols) else None
            cells[name] = row[start:end].strip() if end is not None else row[start:].strip()
        split = row.split()
        if not _IP.match(cells.get("IP" if kind == "pods" else "INTERNAL-IP", "")) and len(split) == len(names):
            cells = dict(zip(names, split))  # not aligned (a copy that lost kubectl's padding): one word a cell
        rows.append((n, cells, row))
    out = []
    if kind == "nodes":
        for n, cells, _ in rows:
            node = cells.get("NAME", "")
            for col in ("INTERNAL-IP", "EXTERNAL-IP"):
                ip = cells.get(col, "")
                if node and _IP.match(ip):
                    out.append(located(ip, node, None, file, n))
        return out
    seen: dict[str, list] = {}
    for n, cells, row in rows:
        ip, node, name = cells.get("IP", ""), cells.get("NODE", ""), cells.get("NAME", "").removeprefix("pod/")
        if not node or node == "<none>" or not name:
            continue
        ns = cells.get("NAMESPACE", "")
        pod = f"{ns}/{name}" if ns else name
        if pod_end(cells.get("STATUS")) is not None:  # `kubectl get pods,nodes`' NAME is "pod/<name>"
            obj = {"metadata": {"name": name, **({"namespace": ns} if ns else {})}, "spec": {"nodeName": node},
                   "status": {"reason": cells["STATUS"]}}
            out.extend(e.with_context(line=n, text=row[:TEXT_MAX]) for e in pod_ended(obj, file=file))
        out.append(located(name, node, pod, file, n))  # the pod's hostname: its name
        if _IP.match(ip):
            seen.setdefault(ip, []).append((n, node, pod))
    for ip, where in seen.items():
        n, node, pod = where[0]
        shared = len(where) > 1  # a hostNetwork pod's IP (its node's): the node, no pod
        out.append(located(ip, node, None if shared else pod, file, n))
    return out


def _kind(obj: Any) -> str:
    """An item's kind: its own, else Pod, Node or Event as its fields say ("" for anything else)."""
    if not isinstance(obj, dict):
        return ""
    return obj.get("kind") or ("Pod" if "nodeName" in _mapping(obj.get("spec")) else
                               "Node" if "addresses" in _mapping(obj.get("status")) else
                               "Event" if any(isinstance(obj.get(k), dict) for k in EVENT_ABOUT) else "")


def _items(doc: Any) -> list:
    """A document's objects: a List's items, a YAML sequence of objects (a List's items pasted alone), or the one
    object it is."""
    if isinstance(doc, list):
        return doc
    return (doc.get("items") if isinstance(doc.get("items"), list) else [doc]) if isinstance(doc, dict) else []


OBJECT_KINDS = ("Pod", "Node", "Event")  # the kinds read off a document of objects; one with none is read as text


# An Event's fields, core/v1 first, then events.k8s.io/v1's names for them: the object it is about, its words, the node
# that reported it (the kubelet's Events name their node in source.host and reportingInstance), and its time: the first
# it was seen (attribution orders a job's evidence by what came first), else the last, else the object's creation
EVENT_ABOUT = ("involvedObject", "regarding")
EVENT_WORDS = ("message", "note")
EVENT_TIMES = ("eventTime", "firstTimestamp", "lastTimestamp", "series.lastObservedTime", "metadata.creationTimestamp")
MAX_EVENT_LINES = 64  # lines of one Event's message read (as fault_in reads a pod's)


def _field(obj: Mapping[str, Any], dotted: str) -> Any:
    for key in dotted.split("."):
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _event_node(ev: Mapping[str, Any], about: Mapping[str, Any]) -> str | None:
    """The node an Event names: its subject when that is a Node, else the node whose kubelet reported it."""
    if about.get("kind") == "Node" and about.get("name"):
        return str(about["name"])
    host = _field(ev, "source.host") or _field(ev, "deprecatedSource.host")
    if not host and (ev.get("reportingComponent") or ev.get("reportingController")) == "kubelet":
        host = ev.get("reportingInstance")
    return str(host) if host else None


def read_events(events: Iterable[Mapping[str, Any]], file: str | None = None) -> list[Evidence]:
    """Event objects (`kubectl get events -o json / -o yaml`), each read as the row `kubectl get events` prints of it,
    "<type> <reason> <kind>/<name> <message>" ("reason: <reason>" where it has no type; a message's further lines
    after it), by triage's line reading (the k8s_ended row, the parsers' rules): the same evidence the text gives, with
    the Event's own time, node and pod, which in the object sit on other lines than its reason and message."""
    lines: list[str] = []
    whose: list[tuple[datetime | None, str | None, str | None]] = []  # each line's Event: (time, node, pod)
    for ev in events:
        about = next((ev[k] for k in EVENT_ABOUT if isinstance(ev.get(k), dict)), {})
        words = next((ev[k] for k in EVENT_WORDS if isinstance(ev.get(k), str)), "")
        when = next(filter(None, (parse_time(_field(ev, k)) for k in EVENT_TIMES)), None)
        name, ns = about.get("name") or "", about.get("namespace") or ""
        pod = (f"{ns}/{name}" if ns else name) if about.get("kind") == "Pod" and name else None
        subject = f"{str(about.get('kind') or '').lower()}/{name}" if name else ""
        text = words.splitlines()[:MAX_EVENT_LINES] or [""]
        kind, reason = str(ev.get("type") or ""), str(ev.get("reason") or "")
        # (an Event without its type, cut from a longer paste, names its reason as kubectl describe does)
        head = f"{kind} {reason}" if kind else f"reason: {reason}" if reason else ""
        text[0] = " ".join(w for w in (head, subject, text[0]) if w)
        lines.extend(line + "\n" for line in text)
        whose.extend([(when, _event_node(ev, about), pod)] * len(text))
    out = []
    # (read under a bare name: the file's path names no host or rank of an Event; its line, one of the rows made
    # here, is none of the file's)
    for e in read_lines(lines, "events", Clock()):
        when, node, pod = whose[e.line - 1] if e.line and e.line <= len(whose) else (None, None, None)
        details = {**e.details, **({"pod": pod} if pod else {})}
        # (the Event's own time first: a time its message states is another moment's, NTH's "Instance will be
        # interrupted at <time>" two minutes after its notice, AKS's "Preempt Scheduled: <date>")
        out.append(replace(e, time=when or e.time, host=node or e.host, file=file, line=None, details=details))
    return out


def read_objects(doc: Any, file: str | None = None) -> list[Evidence]:
    """The API's JSON or YAML (`kubectl get pods,nodes,events -o json`: a List of Pods, Nodes and Events, or one
    object) as located addresses, the pods Kubernetes ended and the Events' evidence (read_events); anything else gives
    none."""
    items = _items(doc)
    out = read_events([obj for obj in items if _kind(obj) == "Event"], file)
    nodes = [obj for obj in items if _kind(obj) == "Node"]
    taints = {_mapping(obj.get("metadata")).get("name"): no_execute(obj) for obj in nodes}
    classifier = Classifier()  # one for the pods' status messages (pod_ended) and the nodes' conditions
    now = beaten(nodes)
    for obj in items:
        kind = _kind(obj)
        if kind == "Pod":
            # its containers' ends and Kubernetes ending the pod (an eviction, its node lost): the job's evidence; a
            # Terminating pod's containers the deletion ended are none (its SIGTERM's 143 is no rank's own death)
            out.extend(pod_ends(obj, None, taints.get(_mapping(obj.get("spec")).get("nodeName")) or (), file,
                                classifier, deletion_ends(obj)))
            p = pod_addresses(obj)
            if p.node:
                out.extend(located(ip, p.node, p.pod, file) for ip in p.ips)
                out.extend(located(h, p.node, p.pod, file) for h in pod_hostnames(obj))
                if p.host_ip:
                    out.append(located(p.host_ip, p.node, None, file))
        elif kind == "Node":
            name = _mapping(obj.get("metadata")).get("name") or ""
            out.extend(located(a, name, None, file) for a in node_addresses(obj) if name and a != name.lower())
            out.extend(node_conditions(obj, classifier, file, now))
    return out


def _conditions(node: Any) -> list:
    """A Node object's status.conditions ([] where it holds anything but a list)."""
    conditions = _mapping(_mapping(node).get("status")).get("conditions")
    return conditions if isinstance(conditions, list) else []


def beaten(nodes: Iterable[Any]) -> float | None:
    """The newest lastHeartbeatTime of the Nodes' conditions (epoch seconds; None: none), the dump's clock for the
    heartbeat check of other detectors' conditions (triage.conditions foreign_fact).  A dump has no clock of its own
    (`kubectl get` writes none), and live's (the controller's now) is not offline's: the newest beat is the latest
    moment the dump is known to show (each kubelet refreshes its own conditions' at least every 5 minutes), never after
    kubectl read it, so a condition it finds stale was stale then too, as live would have found it, and a single
    node's dump judges its detector against its kubelet's beat.  Without beats (a hand-cut document) the check is
    skipped: the condition is read as it stands."""
    beats = (parse_time(c.get("lastHeartbeatTime")) for node in nodes for c in _conditions(node)
             if isinstance(c, dict) and isinstance(c.get("lastHeartbeatTime"), str))
    return max((b.timestamp() for b in beats if b is not None), default=None)


def node_conditions(node: Mapping[str, Any], classifier: Classifier, file: str | None = None,
                    now: float | None = None) -> list[Evidence]:
    """A Node object's conditions that say a fault of it, read as the live cluster component reads them
    (triage.conditions read_condition: gpu-npd's own that stand, other detectors' that say their problem; `now`, the
    dump's clock, `beaten`), each a node fault on the node at its lastTransitionTime, in `file` (the document's, as the
    node's addresses); a condition it cannot read (not a mapping, fields of other types) is skipped."""
    name = _mapping(node.get("metadata")).get("name")
    if not name or not isinstance(name, str):
        return []
    found = (read_condition(classifier, name, c, now) for c in _conditions(node))
    return [e.with_context(file=file or e.file) for e in found if e is not None]


def read_inventory(lines: Iterator[str], first: str, file: str | None = None, max_chars: int = 256 << 20,
                   notes: list[str] | None = None) -> tuple[list[Evidence] | None, list[str]]:
    """An inventory file whose first line is `first` (the rest still in `lines`, each with its line end): its located
    addresses, pod ends and Events' evidence (read_objects), or None with the lines taken from `lines` when it is no
    document of objects after all (JSON or YAML that does not parse, holds no Pod, Node or Event, or is longer than
    `max_chars`): the caller reads those, then the rest of `lines`, as a log, and a one-line note why goes to `notes`
    (nothing is lost: every line is still read).  Comment lines and blank lines before the document's own first line
    (opening) are passed over to find it, and handed back with the rest where it is no document."""
    before, first = opening(first, lines)
    kind = kind_of(first) if first is not None else None
    if kind in ("pods", "nodes"):
        return read_table([first, *lines], file), []
    if kind not in ("json", "yaml"):
        return None, before + ([first] if first is not None else [])
    name = file or "<input>"
    text = [*before, first]
    size = sum(map(len, text))
    for line in lines:
        text.append(line)
        size += len(line)
        if size > max_chars:
            _note(notes, f"{name}: {kind.upper()} longer than {max_chars >> 20} MiB, not read as Kubernetes objects; "
                  "read as text")
            return None, text
    try:  # (JSON or YAML that does not parse: ValueError, its first line the note)
        doc = json_document("".join(text[len(before):])) if kind == "json" else _yaml("".join(text))
    except ValueError as exc:
        why = (str(exc).strip().splitlines() or ["does not parse"])[0][:200]
        _note(notes, f"{name}: not read as Kubernetes objects ({kind.upper()} that does not parse: {why}); "
              "read as text")
        return None, text
    if not any(_kind(obj) in OBJECT_KINDS for obj in _items(doc)):
        _note(notes, f"{name}: {kind.upper()} with no Pod, Node or Event, not read as Kubernetes objects; read as text")
        return None, text
    return read_objects(doc, file), []


def _note(notes: list[str] | None, note: str) -> None:
    if notes is not None:
        notes.append(note)


def _yaml(text: str) -> Any:
    """`kubectl get -o yaml`'s document (libyaml's safe loader where it is built in); ValueError where it is no YAML."""
    import yaml  # noqa: PLC0415 - only for a YAML inventory: plain logs start without it

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from None
