"""Pods on a faulted GPU get one pod condition, `gpu-npd.io/GPUFault`, for their workload's own failure policy
(Job `podFailurePolicy.onPodConditions`, JobSet `failurePolicy`, ...).  Opt-in: `kubernetes.pod_fault_conditions`.

Pure part: which GPUs are unusable (`fatal_gpus`: fatal problems on a GPU, which NVLink Xids are too), which
pods use them (`affected`: the kubelet's PodResources answer by UUID or DRA device, else the pod the
pid -> cgroup map named in the problem), the condition (`condition`).
Edge: `PodFaultWriter`, a sink with its own thread: asks the kubelet, reads each pod (skipped when the
condition stands already or the pod is not on this node), writes `pods/status` with a strategic merge of
`status.conditions` (keyed by type: no one else's condition is touched), retries API failures with backoff
and keeps what is pending until written.  In observe mode it announces what it would do and writes nothing.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Callable

from kubeapi.events import Ref, iso
from kubeapi.retry import WriterThread
from parsers.finding import SEVERITY_RANK
from parsers.gpus import by_gpu, problem_gpu
from parsers.model import Snapshot

from ..podresources import PodDevices
from .nodeapi import NodeApi
from .owners import DeviceOwners

log = logging.getLogger("gpu_npd.kube")
CONDITION_TYPE = "gpu-npd.io/GPUFault"
MIN_SEVERITY = "fatal"  # a GPU problem this severe makes the GPU unusable for the pods on it
RECHECK_SECONDS = 60.0  # while a fault stands, the kubelet is asked again this often (pods started meanwhile)
MAX_MESSAGE = 1024
# The Job controller judges a pod by its podFailurePolicy once it has failed and counts it then, dropping this
# finalizer (kubernetes pkg/controller/job): a condition written after that is not seen by the Job.
JOB_TRACKING = "batch.kubernetes.io/job-tracking"


def fatal_gpus(problems: list) -> dict[str, tuple[str, str, str, str]]:
    """pci -> (uuid or "", reason, message, pod named by pid -> cgroup or "") for GPUs with a fatal problem."""
    out: dict[str, tuple[str, str, str, str]] = {}
    for p in sorted(problems, key=lambda p: (-SEVERITY_RANK.get(p.severity, 0), p.first_seen)):
        if p.subject.startswith("gpu:") and SEVERITY_RANK.get(p.severity, 0) >= SEVERITY_RANK[MIN_SEVERITY]:
            pci, uuid = problem_gpu(p)
            out.setdefault(pci, (uuid, p.reason, p.message, str(p.details.get("pod") or "")))
    return out


def affected(gpus: dict[str, tuple[str, str, str, str]], pods: list[PodDevices] | None,
             dra: dict[str, tuple[str, str, str]] | None = None) -> dict[tuple[str, str], tuple[str, str, str]]:
    """(namespace, pod) -> (pci, reason, message) of the first faulted GPU it uses.  `pods` None: the kubelet
    could not say; then only the pod a problem names (its process's cgroup) is known.  `dra`: our GPU key
    (pci or uuid) -> (driver, pool, device) from this node's ResourceSlices."""
    out: dict[tuple[str, str], tuple[str, str, str]] = {}
    for pci, (uuid, reason, message, pod) in sorted(gpus.items()):
        claim = by_gpu(dra, pci, uuid)
        for p in pods or []:
            if (uuid and uuid.lower() in p.devices) or (claim is not None and claim in p.claims):
                out.setdefault((p.namespace, p.name), (pci, reason, message))
        if pods is None and "/" in pod:
            ns, name = pod.split("/", 1)
            out.setdefault((ns, name), (pci, reason, message))
    return out


def condition(node: str, pci: str, uuid: str, reason: str, message: str, now: float) -> dict:
    gpu = f"GPU {pci}" + (f" ({uuid})" if uuid else "")
    text = f"{gpu} on node {node} is unusable: {message}"
    return {"type": CONDITION_TYPE, "status": "True", "reason": reason,
            "message": text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…",
            "lastTransitionTime": iso(now)}


class PodFaultWriter(WriterThread):
    """A sink: `apply` keeps the faulted GPUs of the snapshot and wakes the thread; the thread does every read and
    write, and writes its own Events (one per pod and GPU, announcing what it wrote or would write)."""

    def __init__(self, api, node: str, settings, mode: str, metrics=None, clock: Callable[[], float] = time.time,
                 lister: Callable[[], list[PodDevices]] | None = None):
        self.api, self.node, self.s, self.mode, self.clock = api, node, settings, mode, clock
        self.n = NodeApi(api, node, settings, metrics)  # the client-side QPS limit and the write counters
        self.events = self.n.recorder(clock)
        self.owners = DeviceOwners(api, node, settings, self.n, clock, lister,
                                   "pods on a faulted GPU are found by the pid of the faulting process only")
        super().__init__("pod-faults", self.n.stop, settings.max_backoff_seconds, "pod condition write", log,
                         self.n.count_error)
        self.wake.set()  # the first pass runs once started
        self._lock = threading.Lock()
        self._gpus: dict[str, tuple[str, str, str, str]] = {}
        self.done: set[tuple[str, str, str]] = set()  # (namespace, pod, pci) written (or found written) / announced

    # ---- agent side (never blocks) ----------------------------------------------------------------

    def apply(self, snapshot: Snapshot) -> None:
        gpus = fatal_gpus(list(snapshot.problems))
        with self._lock:
            grew = bool(set(gpus) - set(self._gpus))
            self._gpus = gpus
        if grew:
            self.wake.set()

    # ---- the writer loop ---------------------------------------------------------------------------

    def run(self) -> None:
        while not self.stop.is_set():
            with self._lock:
                standing = bool(self._gpus)
            self.wake.wait(RECHECK_SECONDS if standing or self.events.pending() else None)
            self.wake.clear()
            if self.stop.is_set():
                break
            self.attempt(self.sync)  # an API failure: back off, keep what is pending

    def sync(self) -> None:
        with self._lock:
            gpus = dict(self._gpus)
        if gpus:
            self._mark(gpus)
        if self.events.pending():
            self.n.wait()
            self.n.count("events", self.events.flush(self.api, self.s.request_timeout_seconds))

    def _mark(self, gpus: dict[str, tuple[str, str, str, str]]) -> None:
        pods = self.owners.pods()
        targets = affected(gpus, pods, self.owners.dra(pods))
        for (ns, name), (pci, reason, message) in sorted(targets.items()):
            if (ns, name, pci) in self.done:
                continue
            cond = condition(self.node, pci, gpus[pci][0], reason, message, self.clock())
            if self.mode != "enforce":
                log.info("observe: would set %s on pod %s/%s (%s)", CONDITION_TYPE, ns, name, cond["message"])
                self._announce(ns, name, "", "GPUFaultConditionWouldSet",
                               f"gpu-npd would set {CONDITION_TYPE} on this pod: {cond['message']}", pci)
            else:
                self._write(ns, name, cond, pci)
            self.done.add((ns, name, pci))
        self.done &= {(ns, name, pci) for (ns, name), (pci, _, _) in targets.items()}

    def _write(self, ns: str, name: str, cond: dict, pci: str) -> None:
        """Write the condition unless it stands already; a pod gone, elsewhere or refusing is left alone (said)."""
        from kubernetes.client.rest import ApiException  # noqa: PLC0415

        self.n.wait()
        try:
            pod = json.loads(self.api.read_namespaced_pod(name, ns, _preload_content=False,
                                                          _request_timeout=self.s.request_timeout_seconds).data)
        except ApiException as exc:
            if exc.status == 404:
                return
            raise
        if pod.get("spec", {}).get("nodeName") != self.node:
            return
        if any(c.get("type") == CONDITION_TYPE and c.get("status") == "True"
               for c in pod.get("status", {}).get("conditions") or []):
            return  # written before (an earlier run of the agent): idempotent
        self.n.wait()
        try:
            self.api.patch_namespaced_pod_status(name, ns, {"status": {"conditions": [cond]}},
                                                 _content_type="application/strategic-merge-patch+json",
                                                 _request_timeout=self.s.request_timeout_seconds)
        except ApiException as exc:
            if exc.status in (403, 404, 422):  # refused by RBAC / the admission policy, or gone: not retried
                log.warning("pod %s/%s: %s not written (HTTP %s %s)", ns, name, CONDITION_TYPE, exc.status, exc.reason)
                self.n.count_error(str(exc.status))
                return
            raise
        self.n.count("pod_conditions")
        meta = pod.get("metadata", {})
        late = (" (after the pod had failed and its Job had counted it: the Job's podFailurePolicy did not see it)"
                if pod.get("status", {}).get("phase") == "Failed" and "batch.kubernetes.io/job-name" in (meta.get("labels") or {})
                and JOB_TRACKING not in (meta.get("finalizers") or []) else "")
        log.warning("pod %s/%s: %s set%s (%s)", ns, name, CONDITION_TYPE, late, cond["message"])
        self._announce(ns, name, meta.get("uid", ""), "GPUFaultConditionSet",
                       f"gpu-npd set {CONDITION_TYPE} on this pod{late}: {cond['message']}", pci)

    def _announce(self, ns: str, name: str, uid: str, reason: str, message: str, pci: str) -> None:
        self.events.record(Ref("Pod", name, ns, uid), reason, message, "Warning", key=f"podfault|{ns}/{name}|{pci}")
