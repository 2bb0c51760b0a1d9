"""A Pod Event on the pods using a straggling device: the peer-outlier test (agent/peers.py) raised
`StragglerSuspected` for a GPU or an RDMA rail; the pods that hold it are told which device, which field and how
far off (in MADs), where their owners look (`kubectl describe pod`, `kubectl get events`).

Pure part: which stragglers stand (`standing`), which pods use each (`pods_using`: the kubelet's PodResources
answer by GPU UUID or DRA device, a rail by its device name, netdev or PCI address among a pod's device ids;
a rail no pod names serves every GPU pod of the node; the kubelet silent: the pods of the GPU's compute
processes through the pid -> cgroup map), the Event's words (`message`).
Edge: `StragglerEvents`, a sink with its own thread (asking the kubelet blocks): one Event per pod, device and
straggle; a straggle that clears and comes back is announced again.  Events are information, so observe mode
writes them as enforce does.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from kubeapi.events import Ref
from kubeapi.retry import WriterThread
from parsers.gpus import by_gpu, problem_gpu
from parsers.model import Problem, Snapshot

from ..podresources import PodDevices
from .nodeapi import NodeApi
from .owners import DeviceOwners

log = logging.getLogger("gpu_npd.kube")
RECHECK_SECONDS = 60.0  # while a straggler stands unannounced (no pod found yet), the kubelet is asked this often
Pod = tuple[str, str]  # (namespace, name)


def standing(problems, reason: str) -> dict[str, Problem]:
    """problem id -> the straggler problems standing (`reason`: agent.peers.REASON, handed down)."""
    return {p.id: p for p in problems if p.reason == reason}


def device(p: Problem) -> str:
    """The straggling device as its owner knows it: a GPU's index, UUID and address; a rail's device and port."""
    d = p.details
    if p.subject.startswith("gpu:"):
        return (f"GPU {d.get('gpu_index', '?')} ({', '.join(x for x in (str(d.get('uuid') or ''), p.subject[4:]) if x)})")
    netdev = f", {d['netdev']}" if d.get("netdev") else ""
    return f"rail {d.get('device', p.subject)} port {d.get('port', '?')}{netdev}"


def message(p: Problem, node: str) -> str:
    """Which device, on which node, in which field (in words; the verdict's own words say the reading, how many
    MADs off and for how many polls)."""
    return f"{device(p)} on node {node}, used by this pod, is a straggler ({p.details.get('what', '?')}): {p.message}"


def pods_using(p: Problem, pods: list[PodDevices] | None, dra: dict[str, tuple[str, str, str]] | None = None,
               fallback: Callable[[Problem], set[Pod]] | None = None) -> set[Pod]:
    """The pods that use the straggling device.  `pods` None: the kubelet could not say; then `fallback`
    (the pods of the GPU's compute processes, pid -> cgroup)."""
    if pods is None:
        return fallback(p) if fallback is not None else set()
    d = p.details
    if p.subject.startswith("gpu:"):
        pci, uuid = problem_gpu(p)
        uuid = uuid.lower()
        claim = by_gpu(dra, pci, uuid)
        return {(q.namespace, q.name) for q in pods if (uuid and uuid in q.devices) or (claim and claim in q.claims)}
    names = {str(d[k]).lower() for k in ("device", "netdev", "pci_bus_id") if d.get(k)}
    named = {(q.namespace, q.name) for q in pods if names & q.others}
    # a rail no pod was allocated (host-network NCCL): every GPU pod of the node sends over it
    return named or {(q.namespace, q.name) for q in pods if q.devices or q.claims}


class StragglerEvents(WriterThread):
    """A sink: `apply` keeps the standing stragglers and wakes the thread on a new one; the thread asks the
    kubelet and writes the Events."""

    def __init__(self, api, node: str, settings, reason: str, metrics=None, clock: Callable[[], float] = time.time,
                 lister: Callable[[], list[PodDevices]] | None = None,
                 fallback: Callable[[Problem], set[Pod]] | None = None):
        self.api, self.node, self.s, self.clock, self.fallback = api, node, settings, clock, fallback
        self.reason = reason
        self.n = NodeApi(api, node, settings, metrics)
        self.events = self.n.recorder(clock)
        self.owners = DeviceOwners(api, node, settings, self.n, clock, lister,
                                   "the pods of a straggling GPU are found by its compute processes only")
        super().__init__("straggler-events", self.n.stop, settings.max_backoff_seconds, "straggler Event", log,
                         self.n.count_error)
        self._lock = threading.Lock()
        self._stragglers: dict[str, Problem] = {}
        self.done: set[tuple[str, str, str]] = set()  # (namespace, pod, problem id) announced

    # ---- agent side (never blocks) ----------------------------------------------------------------

    def apply(self, snapshot: Snapshot) -> None:
        now = standing(snapshot.problems, self.reason)
        with self._lock:
            grew = bool(set(now) - set(self._stragglers))
            self._stragglers = now
        if grew:
            self.wake.set()

    # ---- the writer loop ---------------------------------------------------------------------------

    def run(self) -> None:
        while not self.stop.is_set():
            with self._lock:
                waiting = any(pid not in {d[2] for d in self.done} for pid in self._stragglers)
            self.wake.wait(RECHECK_SECONDS if waiting or self.events.pending() else None)
            self.wake.clear()
            if self.stop.is_set():
                break
            self.attempt(self.sync)

    def sync(self) -> None:
        with self._lock:
            stragglers = dict(self._stragglers)
        self.done = {d for d in self.done if d[2] in stragglers}  # a cleared straggle is announced again if back
        todo = [p for pid, p in sorted(stragglers.items()) if not any(d[2] == pid for d in self.done)]
        if todo:
            pods = self.owners.pods()
            dra = self.owners.dra(pods)
            for p in todo:
                for ns, name in sorted(pods_using(p, pods, dra, self.fallback)):
                    self.events.record(Ref("Pod", name, ns), self.reason, message(p, self.node), "Warning", at=p.first_seen,
                                       key=f"straggler|{ns}/{name}|{p.id}")
                    self.done.add((ns, name, p.id))
        if self.events.pending():
            self.n.wait()
            self.n.count("events", self.events.flush(self.api, self.s.request_timeout_seconds))
