"""The NVIDIA GPU Operator's driver upgrade, live: its upgrade controller's GPUDriverUpgrade Events on a Node (type
Normal, NVIDIA/k8s-operator-libs pkg/upgrade) say when it began evicting a node's pods; the cluster component watches
them (cluster/evidence.py NODE_SELECTORS, one server-side field selector a reason, as POD_EVENT_SELECTORS) and reads
them as offline triage reads the same Event (triage.inventory read_events, the gpu_driver_upgrade row): context of
that node, which refines the Eviction API's eviction of a job's pod there after it to the upgrade's (POD_ENDS
"drain:GPUDriverUpgrade", triage.attribute Job._refined).  Against the HTTP API double with the real kubernetes
client, and the Book alone for what it keeps."""

from __future__ import annotations

from pathlib import Path

from apiserver_double import ApiDouble
from harness import wait_until

from cluster.book import Book
from cluster.evidence import NODE_SELECTORS, Reader
from triage import attribute
from triage.facts import POD_ENDS

from test_cluster import NODES, controller, gang, incidents, publish_timeouts, settled
from test_cluster_kubelet_events import create, pod_of, stamp_ago, watched_selectors

ENDED = Path(__file__).resolve().parents[1] / "fixtures" / "pods" / "ended"
# REAL: the upgrade controller's messages, every state of one node's upgrade (NVIDIA/cloud-native-docs
# gpu-operator/gpu-driver-upgrades.rst's `kubectl get events` example output, tests/fixtures/pods/ended/
# events-gpu-driver-upgrade.txt); the Event objects around them are constructed (core/v1 Event fields as client-go's
# recorder fills them for a Node: namespace default, source.component the operator's, as describe's From column says
# it in NVIDIA/gpu-operator PR #2168's rows)
STATES = [line.split("   ")[-1].strip() for line in (ENDED / "events-gpu-driver-upgrade.txt").read_text().splitlines()]
EVICTING = "Successfully updated node state label to [pod-deletion-required]"
# REAL: the DisruptionTarget condition the Eviction API sets on the pod it evicts (its reason and message as
# gitlab-runner quotes them, tests/fixtures/pods/ended/gitlab-runner-eviction-api.txt); the condition's other fields
# constructed (core/v1 PodCondition)
EVICTION_MESSAGE = "Eviction API: evicting"
UPGRADE_WORDS = "for the GPU Operator's driver upgrade of its node"  # (POD_ENDS["drain:GPUDriverUpgrade"]'s words)


def upgrade_event(node: str, message: str = EVICTING, n: int = 0, ago: float = 300.0) -> dict:
    when = stamp_ago(ago)
    return {"apiVersion": "v1", "kind": "Event", "type": "Normal", "reason": "GPUDriverUpgrade", "message": message,
            "count": 1, "metadata": {"name": f"{node}.u{n}", "namespace": "default", "uid": f"uev-{node}-{n}",
                                     "resourceVersion": "1"},
            "involvedObject": {"apiVersion": "v1", "kind": "Node", "name": node, "uid": f"uid-{node}"},
            "source": {"component": "nvidia-gpu-operator"}, "firstTimestamp": when, "lastTimestamp": when}


def publish_upgrade(api: ApiDouble, node: str) -> None:
    """The upgrade controller's Events of every state of one node's upgrade, written through the API."""
    for n, message in enumerate(STATES):
        create(api, upgrade_event(node, message, n))


def evicted(status: dict | None = None, ago: float = 120.0) -> dict:
    return {**(status or {}), "phase": "Running", "conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI", "message": EVICTION_MESSAGE,
         "lastTransitionTime": stamp_ago(ago)}]}


def test_the_watched_node_reasons_are_the_node_events_triage_reads_as_context():
    assert "involvedObject.kind=Node,reason=GPUDriverUpgrade" in NODE_SELECTORS


def test_a_pod_evicted_by_the_gpu_operators_driver_upgrade_is_that_nodes_planned_maintenance_live():
    """The upgrade controller's pod-deletion-required Event on node-b, then the Eviction API's eviction of the job's
    pod there, the other ranks timing out: the incident names node-b and the GPU Operator's driver upgrade
    (infrastructure), as offline triage says of the same Event and pod.  Was: the Event never watched (type Normal, on
    a Node; the controller watched only the agents' and the kubelet's Warnings on pods), the eviction a drain of no
    known cause ("DRAIN")."""
    with ApiDouble() as api:
        gang(api)
        api.pods[("train", "llm-w-0-1")]["status"] = evicted()
        api.pods.touch(("train", "llm-w-0-1"))
        with controller(api) as c:
            publish_upgrade(api, "node-b")
            publish_timeouts(api, nodes=("node-a", "node-c", "node-d"))
            ev = wait_until(lambda: next((e for e in incidents(api) if UPGRADE_WORDS in e["message"]), None),
                            "an incident on the driver upgrade")
            assert c.ready.is_set()
            (state,) = c.book.jobs.values()
            root = state.open.incident.evidence[0]
            assert (root.details["why"], root.details["pod_end"], root.host) == (
                "GPU DRIVER UPGRADE", "drain:GPUDriverUpgrade", "node-b")
        assert ev["message"].startswith("infrastructure") and "node node-b" in ev["message"], ev["message"]
        assert set(NODE_SELECTORS) <= watched_selectors(api)


def test_a_routine_driver_upgrade_with_no_pod_evicted_is_no_incident_live():
    """Every GPUDriverUpgrade Event of a routine upgrade of node-b while the job's pods run: nothing (context alone),
    no job touched by the states that evict nothing; nodes_with_faults counts no upgrade."""
    with ApiDouble() as api:
        gang(api)
        with controller(api) as c:
            publish_upgrade(api, "node-b")
            wait_until(lambda: c.book.node_facts.get("node-b"), "the upgrade's Event read")
            settled(c, 3)
            assert incidents(api) == []
            assert c.book.counts()["nodes_with_faults"] == 0


def _book(evicted_status: dict | None = None) -> Book:
    book = Book()
    for i, node in enumerate(NODES):
        p = pod_of(f"llm-w-0-{i}", node)
        if i == 1 and evicted_status is not None:
            p["status"] = evicted_status
        book.pod(p, 100.0)
    return book


def test_only_the_states_that_evict_are_kept_and_an_expired_one_goes():
    book = _book()
    for n, message in enumerate(STATES):
        book.event(upgrade_event("node-b", message, n), 100.0)
    assert [e.kind for e in book.node_facts["node-b"].values()] == ["node_driver_upgrade"]
    assert book.settle(101.0) == []
    book.event(upgrade_event("node-b", EVICTING, 3), 200.0, deleted=True)
    assert "node-b" not in book.node_facts
    assert Reader().node_event(upgrade_event("node-b", STATES[0])) == []


def test_the_upgrades_eviction_stays_the_upgrades_once_the_evicted_pod_is_deleted():
    """The evicted pod deleted and its replacement created on another node: the upgrade's Event of its old node
    still refines the eviction (the node of a pod end the job holds), as offline."""
    book = _book(evicted())
    book.event(upgrade_event("node-b"), 100.0)
    (opened,) = book.settle(101.0)
    assert opened.incident.evidence[0].details["pod_end"] == "drain:GPUDriverUpgrade"
    gone = pod_of("llm-w-0-1", "node-b")
    gone["status"] = evicted()
    book.pod(gone, 102.0, deleted=True)
    again = pod_of("llm-w-0-1", "node-e")
    again["metadata"]["uid"] += "-2"
    book.pod(again, 103.0)
    book.event(upgrade_event("node-e", STATES[0], 9), 103.0)
    for change in book.settle(104.0):
        assert change.incident is None or change.incident.evidence[0].details["pod_end"] == "drain:GPUDriverUpgrade"
    (state,) = book.jobs.values()
    (incident,) = attribute(book.evidence(state))
    assert (incident.evidence[0].details["pod_end"], incident.root.host) == ("drain:GPUDriverUpgrade", "node-b")
    assert POD_ENDS["drain:GPUDriverUpgrade"].category == "infrastructure"


def test_an_eviction_on_a_node_no_upgrade_touched_stays_a_drain():
    book = _book(evicted())
    book.event(upgrade_event("node-c"), 100.0)
    (opened,) = book.settle(101.0)
    assert opened.incident.evidence[0].details["pod_end"] == "EvictionByEvictionAPI"
