"""Properties of the Kubernetes write path's pure parts (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent.kube.desired import TaintRule, merge_taints, our_taint_keys, ours
from agent.kube.sink import condition_patch
from kubeapi.events import EventRecorder, Ref

PREFIX = "gpu-npd.io/"
OURS = our_taint_keys([TaintRule("GPUUnhealthy"), TaintRule("NVLinkUnhealthy")], PREFIX)
keys = st.sampled_from(["gpu-npd.io/GPUUnhealthy", "gpu-npd.io/NVLinkUnhealthy", "example.com/maint",
                        "nvidia.com/gpu", "gpu-npd.io.evil/x", "node.kubernetes.io/unreachable", "gpu-npd.io/"])
taint = st.fixed_dictionaries({"key": keys, "effect": st.sampled_from(["NoSchedule", "NoExecute"])},
                              optional={"value": st.text(max_size=5), "timeAdded": st.just("2024-01-01T00:00:00Z")})


@given(st.lists(taint, max_size=8), st.dictionaries(st.sampled_from(["GPUUnhealthy", "NVLinkUnhealthy"]),
                                                     st.sampled_from(["NoSchedule", "NoExecute"]), max_size=2))
def test_merge_never_touches_anyone_elses_taints(current, wanted):
    mine = {PREFIX + c: {"key": PREFIX + c, "value": "r", "effect": e} for c, e in wanted.items()}
    merged = merge_taints(current, mine, OURS)
    assert [t for t in merged if not ours(t, OURS)] == [t for t in current if not ours(t, OURS)]
    assert sorted(t["key"] for t in merged if ours(t, OURS)) == sorted(mine)
    assert merge_taints(merged, mine, OURS) == merged  # idempotent: a second sync writes nothing
    assert all(t in merged for t in current if t["key"] not in OURS)  # "gpu-npd.io/" alone is not ours either


def test_a_prefix_in_someone_elses_domain_owns_nothing():
    """Issue 31: `taint_prefix: nvidia.com/` made the device plugin's `nvidia.com/gpu` taint ours to delete."""
    plugin = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    keys = our_taint_keys([TaintRule("gpu")], "nvidia.com/")
    assert keys == frozenset()
    assert merge_taints([plugin], {}, keys) == [plugin]
    keys = our_taint_keys([TaintRule("GPUUnhealthy")], "gpu-npd.io/")
    assert merge_taints([plugin, {"key": "gpu-npd.io/Other", "effect": "NoSchedule"}], {}, keys) == \
        [plugin, {"key": "gpu-npd.io/Other", "effect": "NoSchedule"}]  # a key we never write is not ours


def test_the_kubelets_conditions_are_never_written():
    from parsers.model import Condition

    body = condition_patch([Condition("Ready", True, "Plugin", "a plugin named its condition Ready", 0.0),
                            Condition("GPUUnhealthy", True, "Xid79FallenOffBus", "m", 0.0)], 0.0)
    assert [c["type"] for c in body["status"]["conditions"]] == ["GPUUnhealthy"]


def test_a_change_the_body_does_not_carry_is_no_write():
    """What a condition write must carry is its body without the heartbeat time (`condition_patch` at 0): the key
    condition_key built apart counted a kubelet type's change (never in the body) and sent the same body again."""
    from types import SimpleNamespace

    from agent.kube.sink import ConditionWriter
    from parsers.model import Condition, Snapshot

    bodies: list[dict] = []
    n = SimpleNamespace(node="gpu-1", s=SimpleNamespace(repair_profile="off", request_timeout_seconds=5,
                                                        heartbeat_seconds=300),
                        api=SimpleNamespace(patch_node_status=lambda node, body, **_: bodies.append(body)),
                        wait=lambda: None, count=lambda kind: None)
    writer = ConditionWriter(n)
    ours = Condition("GPUUnhealthy", True, "Xid79FallenOffBus", "m", 10.0)
    writer.write(Snapshot((ours, Condition("Ready", True, "Plugin", "one", 10.0))), 20.0, False)
    changed = Snapshot((ours, Condition("Ready", False, "Plugin", "two", 15.0)))
    assert not writer.pending(changed)
    writer.write(changed, 30.0, False)
    assert len(bodies) == 1
    writer.write(Snapshot((Condition("GPUUnhealthy", True, "Xid79FallenOffBus", "m2", 10.0),)), 40.0, False)
    assert len(bodies) == 2 and bodies[1]["status"]["conditions"][0]["message"] == "m2"


class FakeEventsApi:
    def __init__(self):
        self.events: dict[str, dict] = {}

    def create_namespaced_event(self, ns, body, **_):
        self.events[body["metadata"]["name"]] = body

    def patch_namespaced_event(self, name, ns, body, **_):
        self.events[name].update(body)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=200))
def test_event_counts_are_never_lost(occurrences):
    t = [1000.0]
    rec = EventRecorder("default", "n", burst=3, per_minute=60, aggregate_seconds=1e9, clock=lambda: t[0])
    api = FakeEventsApi()
    for obj, reason in occurrences:
        rec.record(Ref("Pod", f"p{obj}", "ns"), f"R{reason}", "m")
        if len(api.events) % 2 == 0:
            rec.flush(api, 1)
    for _ in range(400):  # let the bucket refill until everything is written
        if not rec.pending():
            break
        rec.bucket.tokens = rec.bucket.burst
        rec.flush(api, 1)
    assert sum(e["count"] for e in api.events.values()) == len(occurrences)
    assert len(api.events) == len(set(occurrences))
