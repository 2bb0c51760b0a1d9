"""The fabric check's Kubernetes I/O, kept thin: which nodes are idle, one Job per test group, its pods' logs,
the result on the Node (condition and Event), and deleting what it created.

A test group of N nodes is one Indexed Job of N pods (completions = parallelism = N) held to those nodes by
node affinity on kubernetes.io/hostname and spread one per node by pod anti-affinity on the Job's own
label.  Pods use the host network, and MASTER_ADDR is the first node's InternalIP: torchrun's c10d
rendezvous (or any launcher given MASTER_ADDR / FABRIC_NODES / JOB_COMPLETION_INDEX) finds its peers
without a Service.  The Job has a deadline and a TTL, so even a killed CLI leaves nothing running for long.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Callable

from kubeapi.events import EventRecorder, Ref, iso
from parsers.kinds import FABRIC_CONDITION

from .check import Group, Outcome
from .results import parse_output

log = logging.getLogger("gpu_npd.fabric")

RUN_LABEL = "gpu-npd.io/fabric-run"
APP_LABEL = {"app.kubernetes.io/name": "gpu-npd-fabric-check"}
CONDITION = FABRIC_CONDITION
GPU = "nvidia.com/gpu"

# the Jobs' activeDeadlineSeconds is the CLI's --timeout plus this: the CLI times out first and still sees a
# pod that was never scheduled (the Job controller deletes them at its deadline); the deadline remains for a
# CLI killed mid-run
DEADLINE_GRACE_S = 120

_TORCHRUN = ('printf "%s" "$FABRIC_BENCH_SCRIPT" > /tmp/allreduce_bench.py && exec torchrun '
             '--nnodes="$FABRIC_NODES" --nproc-per-node="$FABRIC_GPUS" --rdzv-backend=c10d '
             '--rdzv-endpoint="$MASTER_ADDR:$MASTER_PORT" --rdzv-id="$FABRIC_JOB" /tmp/allreduce_bench.py')
# tool -> (default image, shell command); "" image: --image is required.  nccl-tests' all_reduce_perf runs
# across nodes only under MPI, so its preset measures one node's GPUs (group size 1: NVLink / PCIe); across
# nodes give --command with your MPI launcher (and an image that has all_reduce_perf on PATH).
PRESETS: dict[str, tuple[str, str]] = {
    "torch": ("nvcr.io/nvidia/pytorch:24.04-py3", _TORCHRUN),
    "nccl-tests": ("", 'exec all_reduce_perf -b 512M -e 8G -f 2 -g "$FABRIC_GPUS"'),
}


@dataclass
class JobSpec:
    image: str
    command: str  # run by /bin/sh -c
    namespace: str = "gpu-npd"
    gpus: int = 8  # per node (per pod)
    resources: dict[str, str] = field(default_factory=dict)  # more limits, e.g. {"rdma/ib": "1"}
    env: dict[str, str] = field(default_factory=dict)
    deadline_seconds: int = 600
    master_port: int = 29500
    service_account: str = ""


def bench_script() -> str:
    return resources.files("fabric").joinpath("allreduce_bench.py").read_text(encoding="utf-8")


def job_manifest(name: str, run_id: str, group: Group, addr: str, spec: JobSpec) -> dict[str, Any]:
    labels = {**APP_LABEL, RUN_LABEL: run_id, "gpu-npd.io/fabric-job": name}
    env = {"FABRIC_NODES": str(len(group)), "FABRIC_GPUS": str(spec.gpus), "FABRIC_JOB": name,
           "FABRIC_GROUP": ",".join(group), "MASTER_ADDR": addr, "MASTER_PORT": str(spec.master_port),
           "FABRIC_BENCH_SCRIPT": bench_script(), **spec.env}
    limits = {GPU: str(spec.gpus), **spec.resources} if spec.gpus else dict(spec.resources)
    pod_spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "hostNetwork": True,
        "dnsPolicy": "ClusterFirstWithHostNet",
        "tolerations": [{"operator": "Exists"}],  # the nodes under test may carry gpu-npd's own taints
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": list(group)}]}]}},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"gpu-npd.io/fabric-job": name}},
                 "topologyKey": "kubernetes.io/hostname"}]}},
        "containers": [{"name": "allreduce", "image": spec.image, "command": ["/bin/sh", "-c", spec.command],
                        "env": [{"name": k, "value": v} for k, v in env.items()],
                        "resources": {"limits": limits},
                        "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}}}],
    }
    if spec.service_account:
        pod_spec["serviceAccountName"] = spec.service_account
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": spec.namespace, "labels": labels},
            "spec": {"completions": len(group), "parallelism": len(group), "completionMode": "Indexed",
                     "backoffLimit": 0, "activeDeadlineSeconds": spec.deadline_seconds,
                     "ttlSecondsAfterFinished": 3600,
                     "template": {"metadata": {"labels": labels}, "spec": pod_spec}}}


class KubeFabric:
    """The CLI's Kubernetes side.  `core` is a CoreV1Api, `batch` a BatchV1Api on the same client."""

    def __init__(self, core, batch, spec: JobSpec, poll: float = 5.0, timeout: float = 900.0,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] | None = None,
                 stop: threading.Event | None = None, cleanup_seconds: float = 120.0):
        self.core, self.batch, self.spec = core, batch, spec
        # Ctrl-C / SIGTERM set `stop` (a flag, not an exception raised wherever the main thread happens to be:
        # one raised inside a finalizer is swallowed by Python); the wave loop checks it between API calls
        self.stop = stop or threading.Event()
        self.poll, self.timeout, self.clock = poll, timeout, clock
        self.sleep = sleep or self.stop.wait
        self.cleanup_seconds = cleanup_seconds
        self.run_id = uuid.uuid4().hex[:8]
        self.created: list[str] = []  # Jobs not yet deleted
        self.addresses: dict[str, str] = {}
        self._seq = 0

    # ---- which nodes -------------------------------------------------------------------------------

    def idle_nodes(self, selector: str) -> tuple[list[str], dict[str, str]]:
        """Nodes the selector picks that are Ready, schedulable and run no pod holding a GPU; the rest
        with why they are left out."""
        nodes = self.core.list_node(label_selector=selector).items
        busy: dict[str, str] = {}
        # Pending pods bound to a node hold their GPUs too: every pod not finished counts
        pods = self.core.list_pod_for_all_namespaces(field_selector="status.phase!=Succeeded,status.phase!=Failed").items
        for pod in pods:
            node = pod.spec.node_name
            if not node:
                continue
            for c in pod.spec.containers or []:
                limits = (c.resources.limits or {}) if c.resources else {}
                requests = (c.resources.requests or {}) if c.resources else {}
                if str(limits.get(GPU, requests.get(GPU, "0"))) not in ("0", ""):
                    busy.setdefault(node, f"GPU in use by pod {pod.metadata.namespace}/{pod.metadata.name}")
        idle, skipped = [], {}
        for n in nodes:
            name = n.metadata.name
            ready = any(c.type == "Ready" and c.status == "True" for c in (n.status.conditions or []))
            for a in n.status.addresses or []:
                if a.type == "InternalIP":
                    self.addresses[name] = a.address
            if not ready:
                skipped[name] = "not Ready"
            elif n.spec is not None and n.spec.unschedulable:
                skipped[name] = "unschedulable (cordoned)"
            elif name in busy:
                skipped[name] = busy[name]
            else:
                idle.append(name)
        return sorted(idle), skipped

    # ---- one wave of tests -------------------------------------------------------------------------

    def run_wave(self, groups: list[Group]) -> dict[Group, Outcome]:
        """Create every group's Job, wait for all of them, read their pods' logs, delete the Jobs."""
        jobs: dict[str, Group] = {}
        for g in groups:
            self._interrupted()
            self._seq += 1
            name = f"gpu-npd-fabric-{self.run_id}-{self._seq}"
            body = job_manifest(name, self.run_id, g, self.addresses.get(g[0], g[0]), self.spec)
            self.batch.create_namespaced_job(self.spec.namespace, body)
            self.created.append(name)
            jobs[name] = g
            log.info("job %s: %s", name, ",".join(g))
        done: dict[str, str] = {}
        deadline = self.clock() + self.timeout
        while len(done) < len(jobs):
            self._interrupted()
            for name in jobs:
                if name not in done:
                    state = self._state(name)
                    if state:
                        done[name] = state
            if len(done) < len(jobs):
                if self.clock() >= deadline:
                    for name in jobs:
                        done.setdefault(name, f"timed out after {self.timeout:g}s")
                    break
                self.sleep(self.poll)
        self._interrupted()
        out = {g: self._outcome(name, done[name]) for name, g in jobs.items()}
        for name in jobs:
            self._delete(name)
        return out

    def _interrupted(self) -> None:
        if self.stop.is_set():
            raise KeyboardInterrupt

    def _state(self, name: str) -> str:
        """'' while running; 'Complete' or 'Failed: <why>' when finished."""
        st = self.batch.read_namespaced_job_status(name, self.spec.namespace).status
        for c in st.conditions or []:
            if c.status == "True" and c.type in ("Complete", "Failed"):
                return "Complete" if c.type == "Complete" else f"Failed: {c.reason or ''} {c.message or ''}".strip()
        return ""

    def _outcome(self, name: str, state: str) -> Outcome:
        pods = self.core.list_namespaced_pod(self.spec.namespace, label_selector=f"job-name={name}").items
        found = None
        for pod in sorted(pods, key=lambda p: p.metadata.name):
            try:
                text = self.core.read_namespaced_pod_log(pod.metadata.name, self.spec.namespace, tail_lines=2000)
            except Exception as exc:  # noqa: BLE001 - a missing log is a missing result, said as such
                log.warning("job %s: cannot read the log of %s: %s", name, pod.metadata.name, exc)
                continue
            try:
                found = parse_output(text or "")
            except Exception as exc:  # noqa: BLE001 - one pod's odd output costs its result, never the run
                log.warning("job %s: cannot read a result in the log of %s: %s", name, pod.metadata.name, exc)
                continue
            if found is not None:
                break
        if state != "Complete":
            unplaced = [p.metadata.name for p in pods if not p.spec.node_name]
            if unplaced:  # a member's GPUs were never reached: no measurement of anyone (the node taken since)
                return Outcome(found, f"not run: pod {unplaced[0]} was never scheduled (job {state})",
                               finished=False, ran=False)
            return Outcome(found, f"job {state[0].lower()}{state[1:]}", finished=False)
        if found is None:
            return Outcome(None, f"no all_reduce result in the logs of {len(pods)} pod(s)")
        return Outcome(found, f"{found.wrong} wrong result(s)" if found.wrong else "")

    def _delete(self, name: str) -> None:
        from kubernetes.client.rest import ApiException  # noqa: PLC0415

        try:
            self.batch.delete_namespaced_job(name, self.spec.namespace, propagation_policy="Background")
        except ApiException as exc:
            if exc.status != 404:
                raise
        if name in self.created:
            self.created.remove(name)

    def cleanup(self) -> list[str]:
        """Delete every Job this run still has (after a failure or Ctrl-C), retrying with backoff for up to
        `cleanup_seconds` (a 503 must not leave Jobs holding GPUs); returns what could not be deleted.
        Jobs are found by this run's label too: a create interrupted before its reply came may exist."""
        deadline, delay = self.clock() + self.cleanup_seconds, 0.5
        while True:
            left = self._cleanup_once()
            if not left or self.clock() + delay > deadline:
                return left
            log.warning("%d Job(s) of this run not yet deleted (%s): retrying in %gs", len(left), left[0], delay)
            time.sleep(delay)  # not self.sleep: a second Ctrl-C does not cut cleanup short
            delay = min(delay * 2, 10.0)

    def _cleanup_once(self) -> list[str]:
        left, listed_ok = [], True
        names = list(self.created)
        try:
            listed = self.batch.list_namespaced_job(self.spec.namespace, label_selector=f"{RUN_LABEL}={self.run_id}")
            names += [j.metadata.name for j in listed.items if j.metadata.name not in names]
        except Exception as exc:  # noqa: BLE001 - still delete the ones we know of
            listed_ok = False
            log.warning("cannot list this run's Jobs: %s", str(exc).splitlines()[0] if str(exc) else exc)
        for name in names:
            try:
                self._delete(name)
            except Exception as exc:  # noqa: BLE001 - try them all; say which stay
                left.append(f"{name} ({exc})".splitlines()[0])
        if not listed_ok and not left:
            left.append("(this run's Jobs could not be listed)")
        return left

    # ---- the result on the Node ----------------------------------------------------------------------

    def write_result(self, node: str, failed: bool, reason: str, message: str, now: float | None = None) -> None:
        """FabricCheckFailed on the Node (True: blamed; False: passed), and an Event when blamed."""
        now = time.time() if now is None else now
        status = "True" if failed else "False"
        current = {c.type: c for c in (self.core.read_node_status(node).status.conditions or [])}
        prev = current.get(CONDITION)
        since = prev.last_transition_time if prev is not None and prev.status == status else None
        cond = {"type": CONDITION, "status": status, "reason": reason, "message": message[:1024],
                "lastHeartbeatTime": iso(now),
                "lastTransitionTime": since.strftime("%Y-%m-%dT%H:%M:%SZ") if since else iso(now)}
        self.core.patch_node_status(node, {"status": {"conditions": [cond]}},
                                    _content_type="application/strategic-merge-patch+json")
        if failed:
            self.warn(node, reason, message)

    def warn(self, node: str, reason: str, message: str) -> None:
        """A Warning Event on the Node, and nothing else (a link suspect: no node is at fault)."""
        events = EventRecorder("default", "gpu-npd-fabric-check")
        events.record(Ref("Node", node, uid=node), reason, message, "Warning")
        events.flush(self.core, timeout=30)
