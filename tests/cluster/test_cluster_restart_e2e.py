"""End to end across a real process restart: `gpu-npd cluster` processes (as the Deployment runs them) against the
API double.  The controller keeps its state in the cluster (the incident Events, its Lease): a leader that exits
(its Lease not renewed through an API outage, or SIGTERM in the middle of a restart) and the process started after
it keep one incident per job and one decision per incident, announced once on the workload and acted on once; the
new leader decides nothing before it has restored what the previous one wrote.

The evidence is the agents' Events as test_cluster publishes them (synthetic variations of real lines; their sources
there); the outages are the double's fault injection."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from apiserver_double import ApiDouble
from harness import free_port, wait_until
from test_cluster import agent_pod_event, doc, gang, incidents, publish_timeouts, publish_xid
from test_cluster_recovery import opt_in, recoveries, recreate

from cluster.controller import Settings
from kubeapi.client import make_api
from triage import CATEGORIES

OPTED = ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"]  # llm-w-0-3 has no opt-in: never deleted
LEASE = "/apis/coordination.k8s.io/v1/namespaces/gpu-npd/leases/gpu-npd-cluster"
RESTORE = "GET", "/api/v1/events"  # the new leader's restore lists the incident Events (its watches come after)


class Cluster:
    """One `python -m gpunpd cluster` process: a replica of the Deployment, with a short Lease (2 s, renewed
    within 1 s) so that an outage longer than it is a test's seconds, not the default's 15."""

    def __init__(self, tmp: Path, api: ApiDouble, identity: str, mode: str):
        self.port, self.tmp, self.identity = free_port(), tmp, identity
        self.out, self.err = tmp / f"{identity}.{id(self)}.out", tmp / f"{identity}.{id(self)}.err"
        self.started = len(api.requests)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gpunpd", "cluster", "--api-server", api.url, "--identity", identity,
             "--metrics-address", f"127.0.0.1:{self.port}", "--recovery", mode, "--lease-duration", "2",
             "--renew-deadline", "1", "--retry-period", "0.25"],
            stdout=open(self.out, "w"), stderr=open(self.err, "w"))

    def metric(self, name: str, labels: str = "") -> float | None:
        try:
            text = urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=2).read().decode()
        except OSError:
            return None
        for line in text.splitlines():
            if line.startswith(f"{name}{labels} "):
                return float(line.rsplit(" ", 1)[1])
        return None

    def opened(self) -> float | None:
        """gpu_npd_job_incidents_total summed over its categories (None: not scraped)."""
        values = [self.metric("gpu_npd_job_incidents_total", f'{{category="{c}"}}') for c in CATEGORIES]
        return None if None in values else sum(values)

    def lines(self) -> list[dict]:
        return [json.loads(x) for x in self.out.read_text().splitlines() if x.startswith("{")]

    def stderr(self) -> str:
        return self.err.read_text()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(10)


def requested(api: ApiDouble, since: int, method: str, path: str, selector: str = "") -> int:
    return sum(1 for m, p, params, _ in api.requests[since:]
               if m == method and p == path and selector in params.get("fieldSelector", ""))


def canary(api: ApiDouble) -> None:
    """A second job, on its own node, with no opt-in: its incident, written by the new leader, is the sign that the
    leader has looked at everything before it (the first job's evidence, listed before its watches began)."""
    api.add_node("node-e", gpus=8)
    api.stores[("jobset.x-k8s.io", "jobsets")][("train", "canary")] = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "canary", "namespace": "train", "uid": "uid-canary"}}
    p = api.add_pod("train", "canary-w-0-0", "node-e", gpus=8)
    p["metadata"]["labels"] = {"jobset.sigs.k8s.io/jobset-name": "canary", "batch.kubernetes.io/job-name": "canary-w-0"}
    api.pods.touch(("train", "canary-w-0-0"))


def publish_canary(api: ApiDouble) -> None:
    ev = agent_pod_event("node-e", "canary-w-0-0", [0])
    make_api(Settings(api_server=api.url)).create_namespaced_event("train", {**ev, "metadata": {
        "name": "canary-w-0-0.node-e", "namespace": "train"}})


def looked_at_everything(api: ApiDouble, leader: Cluster) -> dict:
    """The canary's incident Event, once `leader` has counted it too: the leader counts an incident at its first
    settle after the Event is written, so a scrape right after the Event's write had it or not by the scheduler's
    whim (its `opened()` 1 or 2 where 1 was expected; failed under load).  From then on `leader.opened()` counts
    the canary's incident (the leader's last: what it opened before is counted by then, its Event written first)."""
    publish_canary(api)
    incident = wait_until(lambda: next((e for e in incidents(api) if e["involvedObject"]["name"] == "canary"), None),
                          "the canary's incident (the new leader has decided on what came before it)")
    category = f'{{category="{doc(incident)["incident"]["category"]}"}}'
    wait_until(lambda: (leader.metric("gpu_npd_job_incidents_total", category) or 0) >= 1, "the canary counted")
    return incident


def job_incidents(api: ApiDouble) -> list[dict]:
    return [e for e in incidents(api) if e["reason"] == "JobIncident" and e["involvedObject"]["name"] == "llm"]


def announced_once(api: ApiDouble) -> dict:
    """The job's one incident Event and one recovery Event (its count 1: announced once, not aggregated again)."""
    (incident,) = job_incidents(api)
    (recovery,) = recoveries(api)
    assert recovery["involvedObject"]["name"] == "llm" and recovery.get("count", 1) == 1, recovery
    return incident


def setup(api: ApiDouble) -> None:
    gang(api)
    opt_in(api, OPTED)
    canary(api)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_an_api_outage_longer_than_the_lease_and_a_restarted_process_keep_one_incident_and_one_decision(
        tmp_path, mode):
    """The leader has opened the job's incident and decided its restart (observe: "would restart"; enforce: the
    opted-in pods deleted, the owner recreating them); the API then refuses everything for longer than the Lease: the
    leader exits 1, saying so in one line.  The process the Deployment starts in its place (the same pod's name) finds
    the API still down, then only its restore refused: it leads, and writes and deletes nothing before it has
    restored.  With the API back, the incident is the same one (observe: still open; enforce:
    closed by its restart), the decision is not taken again and the pods are not deleted again."""
    with ApiDouble() as api:
        setup(api)
        first = Cluster(tmp_path, api, "ctl-0", mode)
        try:
            wait_until(lambda: first.metric("gpu_npd_cluster_leader") == 1, "the first process leads", timeout=20)
            publish_xid(api)
            publish_timeouts(api)
            wait_until(lambda: recoveries(api), "the decision announced on the job")
            wait_until(lambda: job_incidents(api) and doc(job_incidents(api)[0]).get("recovery"),
                       "the decision in the incident's Event")
            if mode == "enforce":
                wait_until(lambda: len(api.pods_deleted) == 3, "the opted-in pods deleted")
                wait_until(lambda: job_incidents(api) and doc(job_incidents(api)[0])["state"] == "closed",
                           "the restarted incident closed")
                recreate(api, OPTED)
            (opened,) = job_incidents(api)
            api.set_fault(status=503)
            code = first.proc.wait(15)
        finally:
            first.stop()
        assert code == 1, first.stderr()
        errors = [x for x in first.stderr().splitlines() if " ERROR " in x]
        # one line that says which Lease, why (the API's last answer) and what comes next; was "leader election:
        # lost lease gpu-npd/gpu-npd-cluster" alone, the reason only in the warnings before it
        assert len(errors) == 1 and errors[0].endswith(
            "leader election: lost lease gpu-npd/gpu-npd-cluster: not renewed within the 1 s renew deadline (last: "
            "HTTP 503 Service Unavailable: injected failure); stopping: exit 1, to restart as a standby"), errors

        second = Cluster(tmp_path, api, "ctl-0", mode)  # the Deployment restarts the container: the same pod name
        try:
            wait_until(lambda: requested(api, second.started, "GET", LEASE), "the new process asking for the Lease")
            before = len(api.requests)
            api.set_fault(refuse=(*RESTORE, 503, "ServiceUnavailable", "down (the double)"))
            wait_until(lambda: second.metric("gpu_npd_cluster_leader") == 1, "the new process leads")
            wait_until(lambda: requested(api, before, *RESTORE, "gpu-npd-cluster"), "its restore refused")
            assert len(job_incidents(api)) == 1 and len(recoveries(api)) == 1 and len(api.pods_deleted) == (
                3 if mode == "enforce" else 0)  # nothing decided before the restore
            api.set_fault()
            wait_until(lambda: "recovered 1 incident(s) from their Events" in second.stderr(), "the restore")
            looked_at_everything(api, second)
            incident = announced_once(api)
            assert incident["metadata"]["name"] == opened["metadata"]["name"]
            assert doc(incident)["id"] == doc(opened)["id"] and doc(incident)["recovery"] == doc(opened)["recovery"]
            assert doc(incident)["state"] == ("open" if mode == "observe" else "closed")
            assert len(api.pods_deleted) == (3 if mode == "enforce" else 0)
            for result in ("observed", "restarted", "rate_limited"):
                assert second.metric("gpu_npd_recoveries_total", f'{{result="{result}"}}') == 0
            assert second.opened() == 1  # the canary's alone: the job's restored, opened and counted by the first
            assert not [x for x in second.lines() if x["job"]["name"] == "llm" and x["action"] == "opened"]
        finally:
            code = second.stop()
        assert code == 0, second.stderr()


@pytest.mark.slow
@pytest.mark.parametrize("refused", ["decision", "deletions"])
def test_sigterm_in_the_middle_of_a_restart_leaves_it_to_the_next_leader_once(tmp_path, refused):
    """SIGTERM (a rollout, a drain) while a restart is under way: its decision made but not yet written in the
    incident's Event (the job's Event writes failing: no pod may be deleted before it is), or written with the pod
    deletions failing.  The process exits 0 and gives its Lease up; the next one (another pod) takes over at once and
    the restart happens once: decided again only when nothing was written (the decision had not been announced nor
    acted on), finished and not decided again when it was; one incident, one recovery Event, each opted-in pod deleted
    once, one `restarted` and one incident opened summed over the two processes (each counted by the one whose
    Event carrying it was written)."""
    with ApiDouble() as api:
        setup(api)
        publish_xid(api)
        publish_timeouts(api)
        if refused == "decision":
            api.set_fault(refuse=("POST", "/namespaces/train/events", 503, "ServiceUnavailable", "down (the double)"))
        else:
            api.set_fault(refuse=("DELETE", "/namespaces/train/pods/[^/]+", 503, "ServiceUnavailable",
                                  "down (the double)"))
        first = Cluster(tmp_path, api, "ctl-0", "enforce")
        second = None
        try:
            wait_until(lambda: first.metric("gpu_npd_cluster_leader") == 1, "the first process leads", timeout=20)
            second = Cluster(tmp_path, api, "ctl-1", "enforce")  # the rollout's new pod, up before the old one ends
            wait_until(lambda: "gpu-npd restarted job JobSet/llm" in first.stderr(), "decided")
            if refused == "deletions":
                wait_until(lambda: requested(api, 0, "DELETE", "/api/v1/namespaces/train/pods/llm-w-0-0"),
                           "a deletion refused")
                wait_until(lambda: first.metric("gpu_npd_recoveries_total", '{result="restarted"}') == 1,
                           "the decision written: counted")
            wait_until(lambda: second.metric("gpu_npd_cluster_leader") == 0, "the new pod standing by", timeout=20)
            counted = first.metric("gpu_npd_recoveries_total", '{result="restarted"}')  # its last word, as scraped
            opened = first.opened()
        finally:
            code = first.stop()
        assert code == 0, first.stderr()
        assert api.pods_deleted == []
        assert len(recoveries(api)) == (0 if refused == "decision" else 1)
        api.set_fault()
        try:  # the Lease was given up: the standby leads at once
            wait_until(lambda: len(api.pods_deleted) == 3, "the restart done by the next leader", timeout=15)
            looked_at_everything(api, second)
            incident = announced_once(api)
            assert doc(incident)["recovery"]["result"] == "restarted" and doc(incident)["state"] == "closed"
            assert sorted(n for _, n in api.pods_deleted) == OPTED
            # summed over the replicas, as alerts and dashboards read it: one restart (was 2 where the decision was
            # unwritten: counted when decided, by both)
            assert counted + second.metric("gpu_npd_recoveries_total", '{result="restarted"}') == 1, counted
            # and one incident (was 2 where its Event was unwritten: counted when opened, by both), the canary's
            # the second's too
            assert opened == (0 if refused == "decision" else 1) and opened + second.opened() == 1 + 1, opened
        finally:
            code = second.stop() if second else None
        assert code == 0, second.stderr()
