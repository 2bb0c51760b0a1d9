"""Karpenter's node disruptions, live: its Evicted Event on a pod it evicted (type Normal, "Evicted pod" / v1's
"Evicted pod: <reason>", kubernetes-sigs/karpenter pkg/controllers/node/termination/terminator/events) and its
DisruptionTerminating Event on the node it disrupts ("Disrupting Node: <reason>", pkg/controllers/disruption/events).
The cluster component watches both (cluster/evidence.py POD_EVENT_SELECTORS type=Normal,reason=Evicted on pods; and
NODE_SELECTORS, triage.facts NODE_EVENTS) and reads them as offline triage reads the same Events (triage.inventory
read_events): the Eviction API's eviction of a job's pod (its DisruptionTarget condition, EvictionByEvictionAPI) is
then Karpenter's disruption of its node (POD_ENDS "evict:Karpenter", triage.attribute Job._refined), not a drain of
no known cause.  Against the HTTP API double with the real kubernetes client, and the Book alone."""

from __future__ import annotations

from apiserver_double import ApiDouble
from harness import wait_until

from cluster.evidence import POD_EVENT_SELECTORS, NODE_SELECTORS, watched_pod_event
from triage.facts import POD_ENDS

from test_cluster import NODES, controller, gang, incidents, publish_timeouts, settled
from test_cluster_driver_upgrade import _book, evicted, upgrade_event
from test_cluster_kubelet_events import create, kubelet_event, pod_of, refined_root, stamp_ago, watched_selectors

# REAL: Karpenter's messages (aws/karpenter-provider-aws #5806's `kubectl get events -A` rows, tests/fixtures/pods/
# ended/events-karpenter-disrupting.txt: "Evicted pod" on the pod, "Disrupting Node: Expiration/Replace" on the node);
# the Event objects around them are constructed (core/v1 Event fields as client-go's recorder fills them,
# source.component karpenter as describe's From column says it in #3594's table)
EVICTED = "Evicted pod"
DISRUPTING = "Disrupting Node: Expiration/Replace"
KARPENTER_WORDS = "Karpenter evicted it"  # (POD_ENDS["evict:Karpenter"]'s words)


def karpenter_evicted(pod: str, ago: float = 119.0) -> dict:
    when = stamp_ago(ago)
    ev = kubelet_event(pod, None, reason="Evicted", message=EVICTED, kind="Normal", n=7)
    return {**ev, "count": 1, "source": {"component": "karpenter"}, "firstTimestamp": when, "lastTimestamp": when}


def disrupting(node: str, ago: float = 300.0) -> dict:
    ev = upgrade_event(node, DISRUPTING, 7, ago)
    return {**ev, "reason": "DisruptionTerminating", "source": {"component": "karpenter"}}


def test_karpenters_events_are_watched_narrowly():
    """One watch each: the Normal Evicted Events of pods (the kubelet's own Evicted is a Warning, said by the pod's
    status) and DisruptionTerminating on Nodes (its NodeClaim's twin is no Node's)."""
    assert "type=Normal,involvedObject.kind=Pod,reason=Evicted" in POD_EVENT_SELECTORS
    assert "involvedObject.kind=Node,reason=DisruptionTerminating" in NODE_SELECTORS
    assert watched_pod_event(karpenter_evicted("llm-w-0-1"))
    # (the kubelet's own Evicted, a Warning: not this watch)
    assert not watched_pod_event({**karpenter_evicted("llm-w-0-1"), "type": "Warning"})
    assert not watched_pod_event({**karpenter_evicted("llm-w-0-1"), "reason": "Killing"})


def evicted_live(write, pod_end: str = "evict:Karpenter", words: str = KARPENTER_WORDS) -> tuple:
    """The job's pod on node-b evicted through the Eviction API (its DisruptionTarget condition), the Event `write`s
    (Karpenter's; NTH's, test_cluster_spot_interruption), the other ranks timing out: the incident's root once refined
    to `pod_end`, its Event (saying `words`), the watches."""
    with ApiDouble() as api:
        gang(api)
        api.pods[("train", "llm-w-0-1")]["status"] = evicted()
        api.pods.touch(("train", "llm-w-0-1"))
        with controller(api) as c:
            write(api)
            publish_timeouts(api, nodes=("node-a", "node-c", "node-d"))
            root = wait_until(lambda: refined_root(c, pod_end), "the eviction refined by the Event")
            ev = wait_until(lambda: next((e for e in incidents(api) if words in e["message"]), None),
                            "the incident's Event")
            settled(c, 1)
        asked = watched_selectors(api)
    return root, ev, asked


def test_a_pod_karpenter_evicted_is_its_node_disruption_live():
    """Karpenter's Evicted Event of the job's pod on node-b, the pod's DisruptionTarget condition a second before it
    (EvictionByEvictionAPI), the other ranks timing out: the incident names node-b and Karpenter (infrastructure), as
    offline triage says of the same Event and pod.  Was: the Event never watched (type Normal), the eviction a drain of
    no known cause ("DRAIN")."""
    root, ev, asked = evicted_live(lambda api: create(api, karpenter_evicted("llm-w-0-1")))
    assert (root.details["why"], root.host) == ("NODE DISRUPTION", "node-b")
    assert ev["message"].startswith("infrastructure") and "node node-b" in ev["message"], ev["message"]
    assert set(POD_EVENT_SELECTORS) | set(NODE_SELECTORS) <= asked


def test_an_eviction_on_a_node_karpenter_is_disrupting_is_its_node_disruption_live():
    """Karpenter's DisruptionTerminating Event on node-b, then the Eviction API's eviction of the job's pod there (no
    Evicted Event of it: expired, or not yet written): Karpenter's.  Was: the node Event never watched ("DRAIN")."""
    root, ev, _ = evicted_live(lambda api: create(api, disrupting("node-b")))
    assert (root.details["pod_reason"], root.host) == ("EvictionByEvictionAPI", "node-b")
    assert ev["message"].startswith("infrastructure"), ev["message"]
    assert POD_ENDS["evict:Karpenter"].category == "infrastructure" and not POD_ENDS["evict:Karpenter"].restart


def test_routine_disruptions_are_no_incident_and_a_pod_of_no_job_is_dropped():
    """Karpenter consolidating a fleet: its node Events alone are context (no incident, no nodes_with_faults); its
    Evicted Event of a pod of no job is not kept; one of a node no job runs on touches no job."""
    book = _book()
    book.pod(pod_of("web-1", "node-a", job=None), 100.0)
    for node in (*NODES, "node-z"):
        book.event(disrupting(node) | {"metadata": {"name": f"d-{node}", "namespace": "default",
                                                    "uid": f"d-{node}", "resourceVersion": "1"}}, 100.0)
    book.event(karpenter_evicted("web-1"), 100.0)
    assert book.settle(101.0) == [] and not book.waiting
    assert book.counts()["nodes_with_faults"] == 0
    assert [e.kind for e in book.node_facts["node-b"].values()] == ["node_disruption"]


def test_an_eviction_on_a_node_karpenter_left_alone_stays_a_drain():
    book = _book(evicted())
    book.event(disrupting("node-c"), 100.0)
    book.event(upgrade_event("node-d"), 100.0)
    (opened,) = book.settle(101.0)
    assert opened.incident.evidence[0].details["pod_end"] == "EvictionByEvictionAPI"
