"""The cloud's reclaim and the node autoscalers' removals, live, one family with offline triage:
- Karpenter's spot interruption notice of a node (aws/karpenter-provider-aws pkg/controllers/interruption/events/
  events.go SpotInterrupted, commit 1dea438a3d92eeb226f14c8b0804030d46453284: a Warning Event of reason SpotInterrupted
  on the Node, "Spot interruption warning was triggered"), read as aws-node-termination-handler's SpotInterruption
  (test_cluster_spot_interruption): context of its node (node_spot_interruption), watched on Nodes
  (cluster/evidence.py NODE_SELECTORS, triage.facts NODE_EVENTS); the eviction of a job's pod on that node after it,
  through the Eviction API or said by Karpenter's own Evicted Event, is the cloud reclaiming the spot VM (POD_ENDS
  "SpotInterruption"), not Karpenter's consolidation nor a drain of no known cause.
- cluster-autoscaler's eviction of a pod scaling its node down (kubernetes/autoscaler cluster-autoscaler/core/scaledown/
  actuation/drain.go evictPod, commit 92aba319cbd5f03b63386412b7b8c45a837b89df: a Normal Event of reason ScaleDown on the
  pod, "deleting pod for node scale down", then the Eviction API), named as Karpenter's consolidation is (NODE
  DISRUPTION, infrastructure): watched on pods (POD_EVENT_SELECTORS type=Normal,reason=ScaleDown).

SYNTHETIC: the Event objects are built around the messages those two source files format (no public `kubectl get
events -o json` of either was found); the Eviction API's condition words are gitlab-runner's REAL ones
(test_cluster_driver_upgrade.EVICTION_MESSAGE)."""

from __future__ import annotations

from cluster.evidence import NODE_SELECTORS, POD_EVENT_SELECTORS, watched_pod_event
from triage.facts import POD_ENDS

from test_cluster_karpenter import evicted_live, karpenter_evicted
from test_cluster_kubelet_events import create, kubelet_event, stamp_ago
from test_cluster_spot_interruption import SPOT_WORDS, spot_interrupted

SCALE_DOWN = "deleting pod for node scale down"  # SYNTHETIC: drain.go's message
SCALE_DOWN_WORDS = "cluster-autoscaler evicted it"  # (POD_ENDS["evict:cluster-autoscaler"]'s words)


def scale_down(pod: str, ago: float = 121.0) -> dict:
    when = stamp_ago(ago)
    ev = kubelet_event(pod, None, reason="ScaleDown", message=SCALE_DOWN, kind="Normal", n=13)
    return {**ev, "count": 1, "source": {"component": "cluster-autoscaler"}, "firstTimestamp": when,
            "lastTimestamp": when}


def test_the_removals_are_watched_narrowly():
    assert "involvedObject.kind=Node,reason=SpotInterrupted" in NODE_SELECTORS
    assert "type=Normal,involvedObject.kind=Pod,reason=ScaleDown" in POD_EVENT_SELECTORS
    assert watched_pod_event(scale_down("llm-w-0-1"))
    assert POD_ENDS["evict:cluster-autoscaler"].category == "infrastructure"
    assert not POD_ENDS["evict:cluster-autoscaler"].restart


def test_a_pod_evicted_after_karpenters_spot_interruption_notice_is_the_reclaim_of_its_node_live():
    """Karpenter's SpotInterrupted Event on node-b, then the Eviction API's eviction of the job's pod there: the spot
    reclaim of node-b, as NTH's notice makes it.  Was: the Event never watched, the eviction a DRAIN."""
    root, ev, _ = evicted_live(lambda api: create(api, spot_interrupted("node-b")), "SpotInterruption", SPOT_WORDS)
    assert (root.details["why"], root.details["pod_reason"], root.host) == (
        "SPOT INTERRUPTION", "EvictionByEvictionAPI", "node-b")
    assert ev["message"].startswith("infrastructure") and "node node-b" in ev["message"], ev["message"]


def test_karpenters_own_eviction_on_a_node_it_was_told_the_cloud_reclaims_is_the_reclaim_live():
    """Karpenter's notice of node-b, then its Evicted Event of the job's pod there (its drain for the interruption):
    the spot reclaim, not Karpenter's consolidation (NODE DISRUPTION).  Was: Karpenter's."""
    def write(api):
        create(api, spot_interrupted("node-b"))
        create(api, karpenter_evicted("llm-w-0-1"))
    root, ev, _ = evicted_live(write, "SpotInterruption", SPOT_WORDS)
    assert (root.details["why"], root.host) == ("SPOT INTERRUPTION", "node-b")


def test_a_pod_cluster_autoscaler_evicted_is_its_node_scale_down_live():
    """cluster-autoscaler's ScaleDown Event of the job's pod on node-b, the pod's DisruptionTarget condition a second
    after it (EvictionByEvictionAPI), the other ranks timing out: the autoscaler scaling node-b down (infrastructure),
    as offline triage says of the same Event.  Was: the Event never watched, the eviction a DRAIN."""
    root, ev, asked = evicted_live(lambda api: create(api, scale_down("llm-w-0-1")), "evict:cluster-autoscaler",
                                   SCALE_DOWN_WORDS)
    assert (root.details["why"], root.host) == ("NODE DISRUPTION", "node-b")
    assert ev["message"].startswith("infrastructure") and "node node-b" in ev["message"], ev["message"]
    assert set(POD_EVENT_SELECTORS) | set(NODE_SELECTORS) <= asked
