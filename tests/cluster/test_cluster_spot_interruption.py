"""A spot VM reclaimed under a job, live: aws-node-termination-handler (NTH, `emit-kubernetes-events`) writes a Normal
Event of reason SpotInterruption on the Node when the cloud's two-minute interruption notice comes
(aws/aws-node-termination-handler docs/kubernetes_events.md: "All events are about Kubernetes `Node` objects", source
aws-node-termination-handler; cmd/node-termination-handler.go emits the event's Description, observability.Normal), then
cordons and drains the node through the Eviction API (the pod's DisruptionTarget condition, EvictionByEvictionAPI).
The cluster component watches that Node Event (cluster/evidence.py NODE_SELECTORS, triage.facts NODE_EVENTS) and reads
it as offline triage reads the same Event (the nth_spot_interruption row, context node_spot_interruption): the eviction
of the job's pod on that node after it is the cloud reclaiming the spot VM (POD_ENDS "SpotInterruption",
infrastructure, its node), not a drain of no known cause.  The notice alone, or on a node no job's pod was evicted
from, is no incident.

The Event objects are CONSTRUCTED around NTH's REAL message: "Spot ITN received. Instance will be interrupted at
2020-09-15T21:15:41Z" (its Description as NTH's own log prints it in aws/aws-node-termination-handler
docs/aemm_interruption_testing.md, https://github.com/aws/aws-node-termination-handler/blob/main/docs/
aemm_interruption_testing.md; pkg/monitor/spotitn/spot-itn-monitor.go's "Spot ITN received. Instance will be interrupted
at %s \\n")."""

from __future__ import annotations

import pytest

from cluster.evidence import NODE_SELECTORS
from triage.facts import NODE_DRAINS, POD_ENDS

from test_cluster import NODES
from test_cluster_driver_upgrade import _book, evicted, upgrade_event
from test_cluster_karpenter import evicted_live
from test_cluster_kubelet_events import create

# REAL (docs/aemm_interruption_testing.md), with the " \n" NTH's format string ends it with
SPOT_ITN = "Spot ITN received. Instance will be interrupted at 2020-09-15T21:15:41Z \n"
SPOT_WORDS = "the cloud reclaimed its node"  # (POD_ENDS["SpotInterruption"]'s words)


def spot_interruption(node: str, ago: float = 300.0, message: str = SPOT_ITN) -> dict:
    ev = upgrade_event(node, message, 9, ago)
    return {**ev, "reason": "SpotInterruption", "source": {"component": "aws-node-termination-handler"}}


def spot_interrupted(node: str, ago: float = 300.0) -> dict:
    """Karpenter's notice of `node` (SYNTHETIC: aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go
    SpotInterrupted, commit 1dea438a3d92eeb226f14c8b0804030d46453284: type Warning, "Spot interruption warning was
    triggered"), context as NTH's (test_cluster_autoscaler_removals)."""
    ev = upgrade_event(node, "Spot interruption warning was triggered", 11, ago)
    return {**ev, "type": "Warning", "reason": "SpotInterrupted", "source": {"component": "karpenter"}}


def test_nths_spot_interruption_is_watched_on_nodes():
    assert "involvedObject.kind=Node,reason=SpotInterruption" in NODE_SELECTORS
    assert NODE_DRAINS["node_spot_interruption"] == "SpotInterruption"
    assert POD_ENDS["SpotInterruption"].category == "infrastructure"


def test_a_pod_evicted_after_nths_spot_interruption_notice_is_the_reclaim_of_its_node_live():
    """NTH's SpotInterruption Event on node-b, then the Eviction API's eviction of the job's pod there (NTH's drain),
    the other ranks timing out: the incident names node-b and the spot reclaim (infrastructure), as offline triage says
    of the same Event and pod.  Was: the Event never watched, the eviction a drain of no known cause ("DRAIN")."""
    root, ev, _ = evicted_live(lambda api: create(api, spot_interruption("node-b")), "SpotInterruption", SPOT_WORDS)
    assert (root.details["why"], root.details["pod_reason"], root.host) == (
        "SPOT INTERRUPTION", "EvictionByEvictionAPI", "node-b")
    assert ev["message"].startswith("infrastructure") and "node node-b" in ev["message"], ev["message"]


@pytest.mark.parametrize("notice", [spot_interruption, spot_interrupted])
def test_the_notice_alone_is_no_incident_and_an_eviction_elsewhere_stays_a_drain(notice):
    """The notice (NTH's; Karpenter's, h740) of every node of the job with no pod evicted (the job finished first; the
    notice of a node whose pods NTH could not drain yet): no incident, no nodes_with_faults.  The eviction of the pod
    on node-b when the notice was node-c's: a drain (DRAIN), not node-c's reclaim."""
    book = _book()
    for node in NODES:
        book.event(notice(node) | {"metadata": {"name": f"s-{node}", "namespace": "default",
                                                "uid": f"s-{node}", "resourceVersion": "1"}}, 100.0)
    assert book.settle(101.0) == [] and book.counts()["nodes_with_faults"] == 0
    assert [e.kind for e in book.node_facts["node-b"].values()] == ["node_spot_interruption"]
    book = _book(evicted())
    book.event(notice("node-c"), 100.0)
    (opened,) = book.settle(101.0)
    assert opened.incident.evidence[0].details["pod_end"] == "EvictionByEvictionAPI"
