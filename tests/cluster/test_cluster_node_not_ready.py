"""The node controller's NodeNotReady Warning Event on a pod (pkg/controller/util/node MarkPodsNotReady,
`recorder.Event(pod, Warning, "NodeNotReady", "Node is not ready")`), live: the cluster component watches it
(cluster/evidence.py POD_EVENT_SELECTORS, triage.facts POD_EVENTS, one server-side field selector as the kubelet's
Warnings) and reads it as offline triage reads the same Event (triage.inventory read_events, the k8s_not_ready row:
context pod_not_ready), so the taint manager's deletion of the pod after it is for its node not ready
("taint:NodeNotReady", triage.attribute Job._refined) where the node's NoExecute taints are not known (the Node
object gone, or back Ready with its taints removed), as offline (tests/triage/test_pod_ended.py).  Against the HTTP
API double with the real kubernetes client, and the Book alone."""

from __future__ import annotations

from apiserver_double import ApiDouble
from harness import wait_until

from cluster.book import Book
from cluster.evidence import POD_EVENT_SELECTORS, watched_pod_event
from triage.facts import POD_ENDS

from test_cluster import NODES, controller, gang, incidents, publish_timeouts
from test_cluster_kubelet_events import create, kubelet_event, pod_of, refined_root, stamp_ago, watched_selectors

# REAL: the node controller's message on the pod (robert-fekete/KubernetesDemo's README, `kubectl get events`:
# "16m Warning NodeNotReady pod/java-demo-api-5b876b98f8-nc7ct Node is not ready",
# tests/fixtures/pods/ended/events-taint-manager-node-not-ready.txt); the Event object around it is constructed (core/v1
# Event fields as client-go's recorder fills them for a Pod, source.component the node controller's)
NOT_READY = "Node is not ready"
# REAL: the taint manager's DisruptionTarget reason (tests/triage/test_pod_ended.py TAINTED); the condition's other
# fields constructed (core/v1 PodCondition)
TAINTED = "DeletionByTaintManager"


def not_ready_event(pod: str, ago: float = 300.0) -> dict:
    ev = kubelet_event(pod, None, reason="NodeNotReady", message=NOT_READY)
    when = stamp_ago(ago)
    return {**ev, "count": 1, "source": {"component": "node-controller"}, "firstTimestamp": when,
            "lastTimestamp": when}


def deleted_by_taint_manager(ago: float = 60.0) -> dict:
    return {"phase": "Running", "conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": TAINTED,
         "message": "Taint manager: deleting due to NoExecute taint", "lastTransitionTime": stamp_ago(ago)}]}


def test_the_node_controllers_not_ready_event_is_watched_on_pods():
    assert "type=Warning,involvedObject.kind=Pod,reason=NodeNotReady" in POD_EVENT_SELECTORS
    assert watched_pod_event(not_ready_event("llm-w-0-1"))
    assert not watched_pod_event({**not_ready_event("llm-w-0-1"), "type": "Normal"})


def test_a_pod_the_taint_manager_deleted_after_its_nodes_not_ready_event_ended_for_its_node_not_ready_live():
    """node-b not ready (its Node's taints not known to the controller: added without any), the node controller's
    NodeNotReady Event on the job's pod there, then the taint manager's deletion of it, the other ranks timing out:
    the incident names node-b not ready (infrastructure), as offline triage says of the same Event and pod.  Was: the
    Event never watched, the deletion a NoExecute taint of no known kind ("NOEXECUTE TAINT")."""
    with ApiDouble() as api:
        gang(api)
        api.pods[("train", "llm-w-0-1")]["status"] = deleted_by_taint_manager()
        api.pods.touch(("train", "llm-w-0-1"))
        with controller(api) as c:
            create(api, not_ready_event("llm-w-0-1"))
            publish_timeouts(api, nodes=("node-a", "node-c", "node-d"))
            root = wait_until(lambda: refined_root(c, "taint:NodeNotReady"),
                              "the deletion refined by the NodeNotReady Event")
            assert (root.details["why"], root.host) == ("NODE NOT READY", "node-b")
            ev = wait_until(lambda: next((e for e in incidents(api) if "node node-b" in e["message"]), None),
                            "the incident's Event")
        assert ev["message"].startswith("infrastructure"), ev["message"]
        assert "type=Warning,involvedObject.kind=Pod,reason=NodeNotReady" in watched_selectors(api)


def test_a_not_ready_event_alone_is_no_incident_and_one_of_a_pod_of_no_job_is_dropped():
    """A node's blip marks its pods not ready and it comes back: context alone, no incident (a fleet's routine);
    one of a pod of no job is not kept."""
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(pod_of(f"llm-w-0-{i}", node), 100.0)
    book.pod(pod_of("web-1", "node-a", job=None), 100.0)
    book.event(not_ready_event("web-1"), 100.0)
    for i in range(len(NODES)):
        book.event(not_ready_event(f"llm-w-0-{i}") | {"metadata": {
            "name": f"nr{i}", "namespace": "train", "uid": f"nr-{i}", "resourceVersion": "1"}}, 100.0)
    assert book.settle(101.0) == [] and not book.waiting
    (state,) = book.jobs.values()
    assert [e.kind for e in book.evidence(state)] == ["pod_not_ready"] * len(NODES)
