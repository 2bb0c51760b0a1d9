"""Azure's reclaim of a Spot VM, live: AKS's node-problem-detector turns the VM's Preempt scheduled event into the node
condition VMEventScheduled and its condition change Event on the Node (reason VMEventScheduled, source
custom-scheduledevents-consolidated-condition-plugin-monitor, "Node condition VMEventScheduled is now: True, reason:
VMEventScheduled, message: "Preempt Scheduled: <date>. DurationInSeconds: -1. .."").  Azure then deletes the VM within
seconds: the node goes NotReady and is deleted, its pods deleted by the taint manager (DeletionByTaintManager) or pod GC
(DeletionByPodGC), evicted by AKS's node auto-drain (EvictionByEvictionAPI), or gone with no end of their own; the other
ranks time out.  Offline triage reads the Event as the end of the job's pods on that node (the k8s_ended row's
"Preempt Scheduled: ", POD_ENDS SpotInterruption, tests/triage/test_pod_ended.py
test_azure_and_gcp_reclaiming_a_spot_vm_is_a_spot_interruption).  Was (h747): the cluster component watched no such
Event, the reclaim a NoExecute taint, pod GC or a drain of no known cause.  Now it watches the Event on Nodes
(cluster/evidence.py NODE_SELECTORS, triage.facts NODE_ENDS) and reads it as offline does (triage.inventory
read_events): the same root, SPOT INTERRUPTION on the node.  Offline, the notice alone on a node of the job is that
reclaim too (Azure's Preempt is not cancelled), and so it is live; a notice of a node where no pod of the job ran is
none of the job's live (offline reads a dump's Events as the job's).

REAL message: maksim-paskal/aks-node-termination-handler #98 (https://github.com/maksim-paskal/
aks-node-termination-handler/issues/98, a comment's `kubectl describe node` Events row after `az vmss
simulate-eviction`).  The Event object around it is CONSTRUCTED (core/v1 Event fields as node-problem-detector's k8s
exporter fills them for a Node, its source the row's From).  REAL reason PreemptScheduled: AKS's node-problem-detector
docs' Events table (MicrosoftDocs/azure-docs articles/aks/node-problem-detector.md); its message is cut in #98, so no
Event of it is built here."""

from __future__ import annotations

import pytest

from cluster.book import Book
from cluster.evidence import NODE_SELECTORS, Reader
from triage import attribute
from triage.facts import POD_ENDS
from triage.inventory import read_objects

from test_cluster import NODES, agent_pod_event
from test_cluster_driver_upgrade import _book as upgrade_book, evicted
from test_cluster_karpenter import evicted_live
from test_cluster_kubelet_events import create, pod_of, stamp_ago
from test_cluster_node_not_ready import deleted_by_taint_manager

PREEMPT = ('Node condition VMEventScheduled is now: True, reason: VMEventScheduled, message: "Preempt Scheduled: Wed, '
           '26 Feb 2025 10:13:13 GMT. DurationInSeconds: -1.  For more information, see '
           'https://aka.ms/aks/scheduledevents."')
# REAL, Azure/AKS #2062 (`kubectl get events`): another scheduled event of Azure's, no reclaim
REBOOT = "Node condition RebootScheduled is now: True, reason: RebootScheduled"
SPOT_WORDS = "the cloud reclaimed its node"  # (POD_ENDS["SpotInterruption"]'s words)


def vm_event(node: str, ago: float = 300.0, reason: str = "VMEventScheduled", message: str = PREEMPT) -> dict:
    when = stamp_ago(ago)
    return {"apiVersion": "v1", "kind": "Event", "type": "Warning", "reason": reason, "message": message, "count": 1,
            "metadata": {"name": f"{node}.vm{reason}", "namespace": "default", "uid": f"vm-{node}-{reason}",
                         "resourceVersion": "1"},
            "involvedObject": {"apiVersion": "v1", "kind": "Node", "name": node, "uid": f"uid-{node}"},
            "source": {"component": "custom-scheduledevents-consolidated-condition-plugin-monitor", "host": node},
            "firstTimestamp": when, "lastTimestamp": when}


def pod_gc(ago: float = 60.0) -> dict:
    """The pod GC's deletion of a pod whose node is gone (kubernetes/kubernetes pkg/controller/podgc: DisruptionTarget
    reason DeletionByPodGC, constructed as test_pod_ended's)."""
    return {"phase": "Running", "conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
         "message": "PodGC: node no longer exists", "lastTransitionTime": stamp_ago(ago)}]}


def _book(status: dict | None = None, timeouts: bool = True) -> Book:
    """The gang on node-a..d, node-b's pod with `status`, the other ranks' agents' timeouts."""
    book = upgrade_book(status)
    for i, node in enumerate(NODES):
        if timeouts and i != 1:
            book.event(agent_pod_event(node, f"llm-w-0-{i}", [i]), 100.0)
    return book


def test_azures_preempt_notice_is_watched_on_nodes_and_read_as_offline():
    assert {"involvedObject.kind=Node,reason=VMEventScheduled",
            "involvedObject.kind=Node,reason=PreemptScheduled"} <= set(NODE_SELECTORS)
    [e] = Reader().node_event(vm_event("node-b"))
    assert (e.kind, e.details["pod_end"], e.details["why"], e.host) == (
        "job_ended", "SpotInterruption", "SPOT INTERRUPTION", "node-b")
    assert POD_ENDS["SpotInterruption"].category == "infrastructure"
    # another scheduled event of Azure's is no reclaim
    assert Reader().node_event(vm_event("node-b", reason="RebootScheduled", message=REBOOT)) == []


@pytest.mark.parametrize("status, was", [
    (deleted_by_taint_manager(), "NOEXECUTE TAINT"),
    (pod_gc(), "POD GC"),
    (evicted(), "DRAIN"),
    (None, "undetermined"),
])
def test_a_reclaimed_spot_vms_pod_ends_after_the_preempt_notice_are_the_spot_interruption(status, was):
    """The Preempt notice of node-b, then node-b's pod deleted by the taint manager, by pod GC, evicted by the node
    auto-drain, or still running in the API (the VM gone, its kubelet silent), the other ranks timing out: the
    incident's root is the spot reclaim of node-b (infrastructure), as offline says of the same objects.  Was: the
    notice never watched, the root the deletion (`was`) or the timeouts undetermined."""
    book = _book(status)
    book.event(vm_event("node-b"), 100.0)
    (opened,) = book.settle(101.0)
    root = opened.incident.evidence[0]
    assert (opened.incident.category, root.details["why"], root.host) == ("infrastructure", "SPOT INTERRUPTION",
                                                                          "node-b")
    assert SPOT_WORDS in opened.incident.reason
    # offline, the same objects (`kubectl get pods,events -o json`) and the same timeouts
    pods = [{**pod_of(f"llm-w-0-{i}", node), "kind": "Pod", "apiVersion": "v1",
             **({"status": status} if i == 1 and status is not None else {})} for i, node in enumerate(NODES)]
    found = read_objects({"kind": "List", "items": [*pods, vm_event("node-b")]})
    found += [e for i, node in enumerate(NODES) if i != 1
              for e in Reader().pod_event(agent_pod_event(node, f"llm-w-0-{i}", [i]))]
    incident = attribute(found)[0]
    assert (incident.category, incident.evidence[0].details["why"], incident.root.host) == (
        "infrastructure", "SPOT INTERRUPTION", "node-b")
    assert was != root.details["why"]


def test_a_preempt_notice_of_a_node_of_no_pod_of_the_job_is_none_of_its_and_a_reboot_none():
    """The notice of node-x, where no pod of the job ran: none of the job's (the timeouts undetermined; without them
    no incident); Azure's RebootScheduled of node-b is no reclaim, not kept."""
    book = _book(timeouts=False)
    book.event(vm_event("node-x"), 100.0)
    book.event(vm_event("node-b", reason="RebootScheduled", message=REBOOT), 100.0)
    assert book.settle(101.0) == [] and "node-b" not in book.node_facts
    book = _book()
    book.event(vm_event("node-x"), 100.0)
    (opened,) = book.settle(101.0)
    assert opened.incident.category == "undetermined"


def test_a_pod_the_node_auto_drain_evicted_after_azures_preempt_notice_is_the_reclaim_live():
    """Against the API double with the real client: the notice written on node-b, the job's pod there evicted (AKS's
    node auto-drain), the other ranks timing out: the incident's Event names the spot reclaim of node-b, and the Node
    Event is one watch of its own."""
    root, ev, asked = evicted_live(lambda api: create(api, vm_event("node-b")), "SpotInterruption", SPOT_WORDS)
    assert (root.details["why"], root.host) == ("SPOT INTERRUPTION", "node-b")
    assert ev["message"].startswith("infrastructure") and "node node-b" in ev["message"], ev["message"]
    assert "involvedObject.kind=Node,reason=VMEventScheduled" in asked
