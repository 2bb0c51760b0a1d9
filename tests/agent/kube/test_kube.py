"""The Kubernetes sink through the real `kubernetes` client against the HTTP API double."""

from __future__ import annotations

import copy
import functools
import json
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from fakeclock import Clock
import yaml

from agent.config import load
from agent.health import HealthEngine
from kubeapi.client import make_api
from kubeapi.events import MAX_PENDING, Ref
from agent.kube.desired import budget_size, merge_taints, taint_value
from agent.kube.sink import KubernetesSink
from agent.metrics import Metrics
from apiserver_double import ApiDouble
from harness import AgentProc
from parsers import Classifier
from parsers.model import Snapshot

XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
IB_DOWN = "mlx5_core 0000:0c:00.0 ibp12s0: Link down"
OTHER_TAINT = {"key": "example.com/maintenance", "value": "true", "effect": "NoSchedule"}
OTHER_CONDITION = {"type": "KernelDeadlock", "status": "False", "reason": "KernelHasNoDeadlock", "message": "npd"}
TAINT = "gpu-npd.io/GPUUnhealthy"




@pytest.fixture
def api():
    with ApiDouble() as d:
        yield d


def make_sink(d: ApiDouble, node: str = "gpu-1", mode: str = "enforce", clock: Clock | None = None, **over):
    clock = clock or Clock()
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": []})
    s = replace(cfg.kube, api_server=d.url, coalesce_seconds=0.05, **over)
    engine = HealthEngine(cfg, clock)
    metrics = Metrics()
    sink = KubernetesSink(make_api(s), node, s, mode, metrics, clock=clock)
    return engine, sink, metrics, clock


def book_grants(d: ApiDouble, name: str = "gpu-npd-taint-budget") -> list[str]:
    """The grants in the budget's ConfigMap (not the pools' summaries)."""
    return sorted(k for k in d.configmaps[("gpu-npd", name)].get("data") or {} if not k.startswith("_pool."))


def observe(engine, sink, line: str) -> None:
    sink.apply(engine.snapshot(engine.observe(copy.deepcopy(_classified(line)))))


@functools.cache
def _classified(line: str):
    """A line's finding, as a classifier of its own gives it (a classifier built a line: 20 s of a 10,000-line storm)."""
    return Classifier().classify(line)


# ---- conditions ------------------------------------------------------------------------------------

def test_conditions_are_merged_by_type_and_others_survive(api):
    api.add_node("gpu-1", taints=[OTHER_TAINT], conditions=[{"type": "Ready", "status": "True"}, OTHER_CONDITION])
    engine, sink, _, clock = make_sink(api)
    sink.apply(engine.snapshot(engine.tick()))
    sink.sync()
    conds = api.conditions("gpu-1")
    assert conds["Ready"]["status"] == "True" and conds["KernelDeadlock"] == OTHER_CONDITION
    assert conds["GPUUnhealthy"]["status"] == "False" and conds["GPUUnhealthy"]["reason"] == "GPUIsHealthy"
    assert {"GPUDegraded", "NVLinkUnhealthy", "InfiniBandUnhealthy", "PCIeUnhealthy"} <= set(conds)
    observe(engine, sink, XID79)
    sink.sync()
    conds = api.conditions("gpu-1")
    assert conds["GPUUnhealthy"]["status"] == "True" and conds["GPUUnhealthy"]["reason"] == "Xid79FallenOffBus"
    assert conds["KernelDeadlock"] == OTHER_CONDITION and conds["Ready"]["status"] == "True"
    assert api.taints("gpu-1")[0] == OTHER_TAINT
    assert all(r[3] == "application/strategic-merge-patch+json" for r in api.requests if r[1].endswith("/status"))


def test_heartbeat_keeps_transition_time_and_writes_nothing_between(api):
    api.add_node("gpu-1")
    engine, sink, _, clock = make_sink(api, heartbeat_seconds=300)
    observe(engine, sink, XID79)
    sink.sync()
    first = api.conditions("gpu-1")["GPUUnhealthy"]
    writes = api.status_patches
    clock.t += 100
    sink.sync()
    assert api.status_patches == writes  # nothing changed, heartbeat not due
    clock.t += 300
    sink.sync()
    assert api.status_patches == writes + 1
    again = api.conditions("gpu-1")["GPUUnhealthy"]
    assert again["lastTransitionTime"] == first["lastTransitionTime"]
    assert again["lastHeartbeatTime"] > first["lastHeartbeatTime"]


def test_burst_of_changes_is_one_patch(api):
    api.add_node("gpu-1")
    engine, sink, _, _ = make_sink(api, mode="observe")
    sink.start()
    deadline = time.monotonic() + 3
    while api.status_patches < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    before = api.status_patches
    c = Classifier()  # classified first: the burst is the changes, not the classifier's start-up (a loaded host)
    findings = [c.classify(f"NVRM: Xid (PCI:0000:{0x10 + i:02x}:00): 79, pid='<unknown>', name=<unknown>, "
                           "GPU has fallen off the bus.") for i in range(10)]
    t0 = time.monotonic()
    for f in findings:
        sink.apply(engine.snapshot(engine.observe(f)))
    while api.status_patches == before and time.monotonic() - t0 < 2:
        time.sleep(0.005)
    took = time.monotonic() - t0
    time.sleep(0.3)
    sink.close()
    assert api.status_patches == before + 1 and took < 1.0
    assert "+9 more problems" in api.conditions("gpu-1")["GPUUnhealthy"]["message"]


# ---- taints -----------------------------------------------------------------------------------------

def test_enforce_taints_only_ours_and_removes_after_hold_down(api):
    api.add_node("gpu-1", taints=[OTHER_TAINT])
    engine, sink, _, clock = make_sink(api, taint_hold_down_seconds=300)
    observe(engine, sink, XID79)
    sink.sync()
    assert api.taints("gpu-1") == [OTHER_TAINT, {"key": TAINT, "value": "Xid79FallenOffBus", "effect": "NoSchedule"}]
    engine.new_boot()  # the problem clears (a reboot)
    sink.apply(engine.snapshot(engine.tick()))
    clock.t += 10
    sink.sync()
    assert [t["key"] for t in api.taints("gpu-1")] == [OTHER_TAINT["key"], TAINT]  # held down
    clock.t += 300
    sink.sync()
    assert api.taints("gpu-1") == [OTHER_TAINT]


def test_observe_mode_never_taints(api):
    api.add_node("gpu-1")
    engine, sink, _, _ = make_sink(api, mode="observe")
    observe(engine, sink, XID79)
    sink.sync()
    assert api.conditions("gpu-1")["GPUUnhealthy"]["status"] == "True"
    assert api.taints("gpu-1") == [] and api.node_patches == 0


def test_concurrent_taint_writer_conflict_is_retried_and_both_survive(api):
    api.add_node("gpu-1")
    engine, sink, metrics, _ = make_sink(api)
    sink.sync()
    api.before_node_patch.append(lambda node: node.setdefault("spec", {}).setdefault("taints", []).append(OTHER_TAINT))
    observe(engine, sink, XID79)
    sink.sync()
    assert api.conflicts == 1
    assert {t["key"] for t in api.taints("gpu-1")} == {OTHER_TAINT["key"], TAINT}
    assert metrics.registry.get_sample_value("gpu_npd_kube_errors_total", {"kind": "conflict"}) == 1


def test_the_api_error_counter_has_its_known_kinds_at_zero_from_the_writers_start(api):
    """(h503) gpu_npd_kube_errors_total{kind} exists at 0 from the writer's start for each kind known then (no answer:
    connection, timeout; a node write's conflict), so an alert's rate() or increase() sees the first failure (a
    counter's first sample is its baseline: a series born at 1 never increases); as the cluster component's
    gpu_npd_cluster_api_errors_total. A local agent (no writer) exports none."""
    engine, sink, metrics, _ = make_sink(api)
    for kind in ("connection", "timeout", "conflict"):
        assert metrics.registry.get_sample_value("gpu_npd_kube_errors_total", {"kind": kind}) == 0, kind
    assert Metrics().registry.get_sample_value("gpu_npd_kube_errors_total", {"kind": "connection"}) is None
    sink.close()


def test_someone_removing_our_taint_is_repaired_and_theirs_never_touched(api):
    api.add_node("gpu-1", taints=[OTHER_TAINT])
    engine, sink, _, clock = make_sink(api, heartbeat_seconds=60)
    observe(engine, sink, XID79)
    sink.sync()
    with api.lock:
        api.nodes["gpu-1"]["spec"]["taints"] = [OTHER_TAINT]  # kubectl taint ... -
    clock.t += 70  # next heartbeat re-reads the node
    sink.sync()
    assert [t["key"] for t in api.taints("gpu-1")] == [OTHER_TAINT["key"], TAINT]


def test_budget_refuses_the_11th_of_100_nodes(api):
    for i in range(100):
        taints = [{"key": "gpu-npd.io/GPUUnhealthy", "value": "x", "effect": "NoSchedule"}] if i < 10 else []
        api.add_node(f"gpu-{i:03d}", taints=taints)
    engine, sink, metrics, clock = make_sink(api, node="gpu-050")
    sink.taints.recheck.uniform = lambda lo, hi: hi  # the jitter's latest: the first recheck 60 s after
    observe(engine, sink, XID79)
    sink.sync()
    assert api.taints("gpu-050") == []  # held back
    assert api.conditions("gpu-050")["GPUUnhealthy"]["status"] == "True"  # the condition stands
    assert metrics.registry.get_sample_value("gpu_npd_taint_held_by_budget", {"taint": TAINT}) == 1
    assert any(e["reason"] == "TaintHeldByBudget" for e in api.events())
    lists = [r for r in api.requests if r[0] == "GET" and r[1] == "/api/v1/nodes"]
    assert lists and all(r[2].get("labelSelector") == "nvidia.com/gpu.present=true" and r[2].get("limit") == "100"
                         and r[2].get("resourceVersion") == "0" for r in lists)  # from the watch cache
    # one tainted node recovers: the budget has room again and the held taint goes on
    with api.lock:
        api.nodes["gpu-000"]["spec"]["taints"] = []
    lists = api.lists
    clock.t += 10
    sink.sync()
    assert api.lists == lists  # not asked again before its recheck
    assert sink._next_hold_down() == sink.taints.next_ask() == clock.t + 50  # the writer wakes for it
    clock.t += 60
    sink.sync()
    assert [t["key"] for t in api.taints("gpu-050")] == [TAINT]
    assert metrics.registry.get_sample_value("gpu_npd_taint_held_by_budget", {"taint": TAINT}) == 0


def _most_tainted_at_once(api: ApiDouble) -> int:
    """The most nodes that carried TAINT at once, over every state of the Nodes the API double held: its change log
    (each write as it was sent to watches, in resourceVersion order), none of it compacted away."""
    with api.lock:
        assert api.nodes.compacted == 0
        log = list(api.nodes.log)
    tainted: set[str] = set()
    most = 0
    for _, _, name, sent, _ in log:
        taints = json.loads(sent)["object"].get("spec", {}).get("taints") or []
        (tainted.add if any(t["key"] == TAINT for t in taints) else tainted.discard)(name)
        most = max(most, len(tainted))
    return most


def test_racing_agents_never_taint_more_nodes_than_the_budget(api, tmp_path: Path):
    """The node-taint budget across agents deciding in the same instant (before: each listed the pool, saw the
    last slot free and took it). Four real agents in enforce mode, each given an Xid 79 at once, in a pool of 20
    GPU nodes (10% -> 2): grants are compare-and-swapped on one ConfigMap, so exactly 2 nodes are tainted, at no
    moment more; the other two hold their taint back and say so; every condition stands.  "At no moment": every
    state the API held, replayed from its change log (a thread that sampled every 2 ms could miss a short one, and
    cost the test a fifth of its CPU)."""
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    from harness import wait_until  # noqa: PLC0415

    racers = [f"gpu-{i:03d}" for i in range(4)]
    for i in range(20):
        api.add_node(f"gpu-{i:03d}")

    def agent(node: str) -> AgentProc:
        home = tmp_path / node
        home.mkdir()
        conf = home / "gpu-npd.yaml"
        conf.write_text(yaml.safe_dump({"mode": "enforce", "nvml": "off", "log_level": "warning", "kubernetes": {
            "api_server": api.url, "coalesce_seconds": 0.05, "qps": 50, "burst": 50}}))
        return AgentProc(home, "--config", str(conf), env={"NODE_NAME": node}, start_timeout=60.0)

    with ThreadPoolExecutor(4) as pool:
        agents = list(pool.map(agent, racers))
    tainted = lambda: [n for n in racers if any(t["key"] == TAINT for t in api.taints(n))]  # noqa: E731
    try:
        api.set_fault(latency=0.3)  # every request takes 0.3 s: the four decisions overlap (list, then write)
        for a in agents:
            a.write(f"3,1,1000,-;{XID79}\n")
        wait_until(lambda: all(api.conditions(n).get("GPUUnhealthy", {}).get("status") == "True" for n in racers),
                   "every node's condition", timeout=60)
        held = lambda a: 'gpu_npd_taint_held_by_budget{taint="gpu-npd.io/GPUUnhealthy"} 1.0' in a.metrics()  # noqa: E731
        wait_until(lambda: len(tainted()) == 2 and sum(held(a) for a in agents) == 2, "2 tainted, 2 held back",
                   timeout=60)
        wait_until(lambda: sum(e.get("reason") == "TaintHeldByBudget" for e in api.events()) == 2, "2 refusals said")
        # no wait for "nothing more": each refusal's Event went out at the end of its pass, after that pass's taints;
        # a held node asks again only at its recheck, at a random time within 60 s (BUDGET_RECHECK_SECONDS)
    finally:
        api.set_fault()
    assert _most_tainted_at_once(api) == 2 and len(tainted()) == 2
    (cm,) = api.configmaps.values()
    grants = sorted(k for k in cm["data"] if not k.startswith("_pool."))  # and the pool's summary (its size)
    assert cm["metadata"]["name"] == "gpu-npd-taint-budget" and grants == sorted(tainted())
    assert [json.loads(v)["nodes"] for k, v in cm["data"].items() if k.startswith("_pool.")] == [20]
    assert all(a.stop()[0] == 0 for a in agents)


def test_a_node_already_tainted_takes_another_key_without_asking_the_budget(api):
    """The budget counts nodes: with the pool's budget spent by ten others, a node that already carries a gpu-npd
    taint still gets a second key (another condition) and lists nothing."""
    from agent.kube.desired import TaintRule
    for i in range(100):
        taints = [{"key": TAINT, "value": "x", "effect": "NoSchedule"}] if i < 10 or i == 50 else []
        api.add_node(f"gpu-{i:03d}", taints=taints)
    rules = (TaintRule("GPUUnhealthy"), TaintRule("InfiniBandUnhealthy", "NoSchedule", "error"))
    engine, sink, _, _ = make_sink(api, node="gpu-050", taints=rules)
    observe(engine, sink, XID79)
    observe(engine, sink, IB_DOWN)
    sink.sync()
    assert [t["key"] for t in api.taints("gpu-050")] == [TAINT, "gpu-npd.io/InfiniBandUnhealthy"]
    assert api.lists == 0 and not api.configmaps


def test_grants_of_other_pools_count_there_only_and_none_outlives_the_grace(api):
    """Pools with different selectors share the ConfigMap: a grant of a node outside this pool is not counted
    here; past the grace any grant without its taint goes (a node that left the cluster, an action that never
    came), so the ConfigMap never fills as nodes come and go."""
    from agent.kube.grants import GRANT_GRACE_SECONDS, GrantBook
    from kubeapi.client import call

    client = make_api(replace(load(env={}).kube, api_server=api.url))
    request = lambda method, path, body=None, query=None: call(client, method, path, body, query)  # noqa: E731
    clock = Clock()
    other = GrantBook(request, "gpu-npd", "budget", "b-1", clock)
    assert other.acquire(["b-1"], set(), 1, among={"b-1", "b-2"}) == ["b-1"]
    mine = GrantBook(request, "gpu-npd", "budget", "a-1", clock)
    assert mine.acquire(["a-1"], set(), 1, among={"a-1", "a-2"}) == ["a-1"]  # b-1's grant is pool b's
    assert sorted(api.configmaps[("gpu-npd", "budget")]["data"]) == ["a-1", "b-1"]
    clock.t += GRANT_GRACE_SECONDS + 1
    gone = GrantBook(request, "gpu-npd", "budget", "a-2", clock)
    assert gone.acquire(["a-2"], {"a-1"}, 2, among={"a-1", "a-2"}) == ["a-2"]  # a-1 tainted: counted as such
    assert sorted(api.configmaps[("gpu-npd", "budget")]["data"]) == ["a-1", "a-2"]  # b-1 (left the cluster) gone


def test_no_access_to_the_budgets_configmap_holds_the_taint_back_and_says_why(api):
    """An older release's RBAC (no Role for the budget's ConfigMap): the API refuses the grant (403). The taint is
    held back, the warning and the Event name the ConfigMap and the Role, the condition stands and Events flow."""
    from kubernetes.client.rest import ApiException

    api.add_node("gpu-1")
    engine, sink, metrics, _ = make_sink(api)

    def forbidden(*_a, **_k):
        raise ApiException(status=403, reason="Forbidden")

    sink.taints.book.request = forbidden
    observe(engine, sink, XID79)
    sink.sync()
    assert api.taints("gpu-1") == [] and api.conditions("gpu-1")["GPUUnhealthy"]["status"] == "True"
    assert metrics.registry.get_sample_value("gpu_npd_taint_held_by_budget", {"taint": TAINT}) == 1
    (held,) = [e for e in api.events() if e["reason"] == "TaintHeldByBudget"]
    assert "ConfigMap gpu-npd/gpu-npd-taint-budget refused the agent (HTTP 403 Forbidden)" in held["message"]
    assert "Role gpu-npd-budgets" in held["message"]


def test_rbac_denying_one_verb_is_said_in_one_line_and_the_other_writers_go_on(api, caplog):
    """A ClusterRole without `list` on nodes (the taint budget's pool count): the API's 403 names the verb and the
    resource in the writer's one warning line, and the writers after the taints (the node's Events) still write;
    before, every sync stopped at the taints, the problem's Event was never written and the line said only "HTTP 403
    Forbidden". The Status message is xpipe-io/xpipe #127's, verbatim
    (https://github.com/xpipe-io/xpipe/issues/127)."""
    denied = 'nodes is forbidden: User "..." cannot list resource "nodes" in API group "" at the cluster scope'
    api.add_node("gpu-1")
    engine, sink, metrics, _ = make_sink(api, max_backoff_seconds=0.05)
    api.set_fault(forbid=("GET", "/api/v1/nodes", denied))
    observe(engine, sink, XID79)
    with caplog.at_level("WARNING", logger="gpu_npd.kube"):
        sink.attempt(sink.sync)
    (line,) = [r.getMessage() for r in caplog.records if "Kubernetes API write failed" in r.getMessage()]
    assert f"(HTTP 403 Forbidden: {denied})" in line and "\n" not in line
    assert api.conditions("gpu-1")["GPUUnhealthy"]["status"] == "True" and api.taints("gpu-1") == []
    assert [e["reason"] for e in api.events()] == ["Xid79FallenOffBus"]
    assert metrics.registry.get_sample_value("gpu_npd_kube_api_up") == 0
    api.set_fault()  # the ClusterRole mended: the taint follows at the next try
    sink.attempt(sink.sync)
    assert [t["key"] for t in api.taints("gpu-1")] == [TAINT]
    api.set_fault(status=503)  # the API down (or 429, overloaded): the pass stops at its first failure
    sent = len(api.requests)
    observe(engine, sink, IB_DOWN)
    with pytest.raises(Exception, match="503"):
        sink.sync()
    assert len(api.requests) == sent + 1


def test_a_grant_keeps_what_others_wrote_on_the_budgets_configmap(api):
    """The budget's ConfigMap made or touched by someone else (a GitOps tool's tracking annotation, kubectl
    apply's last-applied configuration, an owner reference for garbage collection, binaryData): a grant and its
    release rewrite `data` only. Before, each compare-and-swap PUT sent only name, namespace and labels, and the
    API server's update (a whole replace) dropped the rest."""
    api.add_node("gpu-1")
    owner = {"apiVersion": "v1", "kind": "Namespace", "name": "gpu-npd", "uid": "u-1"}
    notes = {"argocd.argoproj.io/tracking-id": "gpu-npd:/ConfigMap:gpu-npd/gpu-npd-taint-budget"}
    api.configmaps[("gpu-npd", "gpu-npd-taint-budget")] = {
        "apiVersion": "v1", "kind": "ConfigMap", "data": {}, "binaryData": {"note": "aGFuZA=="},
        "metadata": {"name": "gpu-npd-taint-budget", "namespace": "gpu-npd", "annotations": notes,
                     "ownerReferences": [owner], "finalizers": ["example.com/keep"]}}
    engine, sink, _, clock = make_sink(api, taint_hold_down_seconds=0)
    observe(engine, sink, XID79)
    sink.sync()
    assert [t["key"] for t in api.taints("gpu-1")] == [TAINT] and book_grants(api) == ["gpu-1"]
    sink.apply(Snapshot())  # repaired: the taint goes, its grant too (a second PUT)
    clock.t += 1
    sink.sync()
    assert api.taints("gpu-1") == [] and book_grants(api) == []
    cm = api.configmaps[("gpu-npd", "gpu-npd-taint-budget")]
    assert cm["metadata"]["annotations"] == notes and cm["metadata"]["ownerReferences"] == [owner]
    assert cm["metadata"]["finalizers"] == ["example.com/keep"] and cm["binaryData"] == {"note": "aGFuZA=="}


def test_a_node_recreated_under_its_name_gets_everything_back_by_the_next_heartbeat(api):
    """The Node deleted and registered again under the same name (a re-registering kubelet after a repair): the
    conditions, the taint and the repair hand-off annotation are all back by the next heartbeat. Before, the
    annotation, written only when its value changed, never came back while the problem stood."""
    api.add_node("gpu-1")
    engine, sink, _, clock = make_sink(api, repair_annotation=True)
    observe(engine, sink, XID79)
    sink.sync()
    written = api.node("gpu-1")["metadata"]["annotations"]["gpu-npd.io/repair"]
    assert json.loads(written)["action"] and [t["key"] for t in api.taints("gpu-1")] == [TAINT]
    with api.lock:
        del api.nodes["gpu-1"]
    api.add_node("gpu-1")
    clock.t += sink.s.heartbeat_seconds * 1.2  # past the next heartbeat
    sink.sync()
    node = api.node("gpu-1")
    assert node["metadata"].get("annotations", {}).get("gpu-npd.io/repair") == written
    assert api.conditions("gpu-1")["GPUUnhealthy"]["status"] == "True"
    assert [t["key"] for t in api.taints("gpu-1")] == [TAINT]
    patches = api.node_patches
    clock.t += sink.s.heartbeat_seconds * 1.2  # a heartbeat with the annotation in place: not written again
    sink.sync()
    assert api.node_patches == patches


def test_a_grant_goes_back_when_the_taint_is_gone_whoever_removed_it(api):
    """The node's grant is released when its last gpu-npd taint is gone: by our own patch, or by someone's kubectl
    while the condition cleared (the writer then has nothing to patch, and released nothing before)."""
    api.add_node("gpu-1")
    engine, sink, _, clock = make_sink(api)
    observe(engine, sink, XID79)
    sink.sync()
    assert [t["key"] for t in api.taints("gpu-1")] == [TAINT]
    assert book_grants(api) == ["gpu-1"]
    with api.lock:
        api.nodes["gpu-1"]["spec"]["taints"] = []  # a hand's kubectl
        api.nodes.touch("gpu-1")
    sink.taints.write({}, clock(), heartbeat=True)  # and the condition cleared: nothing of ours to patch
    assert api.taints("gpu-1") == [] and book_grants(api) == []


def test_budget_math():
    assert budget_size(100, 0.1) == 10 and budget_size(99, 0.1) == 9
    assert budget_size(5, 0.1) == 1  # a small pool may lose one node
    assert budget_size(1000, 0.1, 5) == 5  # the absolute cap wins
    assert taint_value("Xid79FallenOffBus") == "Xid79FallenOffBus" and len(taint_value("x" * 100)) == 63
    merged = merge_taints([OTHER_TAINT, {"key": TAINT, "value": "a", "effect": "NoSchedule", "timeAdded": "t"}],
                          {TAINT: {"key": TAINT, "value": "a", "effect": "NoSchedule"}}, frozenset({TAINT}))
    assert merged[1]["timeAdded"] == "t" and merged[0] == OTHER_TAINT


def test_restart_keeps_a_taint_whose_problem_still_stands(api, tmp_path):
    api.add_node("gpu-1", taints=[OTHER_TAINT])
    engine, sink, _, clock = make_sink(api)
    observe(engine, sink, XID79)
    sink.sync()
    state = engine.to_state()
    patches = api.node_patches
    engine2, sink2, _, _ = make_sink(api, clock=clock)  # a new process: same state, empty sink memory
    engine2.restore(state)
    sink2.apply(engine2.snapshot(engine2.tick()))
    sink2.sync()
    assert [t["key"] for t in api.taints("gpu-1")] == [OTHER_TAINT["key"], TAINT]
    assert api.node_patches == patches  # not even rewritten
    assert api.conditions("gpu-1")["GPUUnhealthy"]["lastTransitionTime"]


def test_restart_after_the_problem_cleared_removes_the_taint_only_after_hold_down(api):
    api.add_node("gpu-1", taints=[{"key": TAINT, "value": "Xid79FallenOffBus", "effect": "NoSchedule"}])
    engine, sink, _, clock = make_sink(api, taint_hold_down_seconds=120)
    sink.sync()
    assert [t["key"] for t in api.taints("gpu-1")] == [TAINT]
    clock.t += 121
    sink.sync()
    assert api.taints("gpu-1") == []


# ---- API trouble --------------------------------------------------------------------------------------

def test_outage_of_60_s_then_recovery_ends_in_the_current_state(api):
    api.add_node("gpu-1", taints=[OTHER_TAINT])
    engine, sink, metrics, clock = make_sink(api, taint_hold_down_seconds=30)
    sink.sync()
    api.set_fault(status=503)
    failures = 0
    for second in range(0, 60, 5):  # 60 s of outage while things happen on the node
        if second == 10:
            observe(engine, sink, XID79)
        if second == 20:
            observe(engine, sink, IB_DOWN)
        if second == 30:
            observe(engine, sink, "mlx5_core 0000:0c:00.0 ibp12s0: Link up")
        clock.t += 5
        try:
            sink.sync()
        except Exception:  # noqa: BLE001 - what the writer loop catches and backs off on
            failures += 1
    assert failures == 10  # every sync from the first change on hit the outage
    api.set_fault()
    sink.sync()
    conds = api.conditions("gpu-1")
    assert conds["GPUUnhealthy"]["status"] == "True" and conds["InfiniBandUnhealthy"]["status"] == "False"
    assert [t["key"] for t in api.taints("gpu-1")] == [OTHER_TAINT["key"], TAINT]
    reasons = {e["reason"] for e in api.events()}
    assert {"Xid79FallenOffBus", "IBPortDown"} <= reasons  # events raised during the outage are not lost


@pytest.mark.parametrize("fault", [{"status": 429, "retry_after": 1}, {"status": 500}, {"drop": True}])
def test_writer_thread_backs_off_and_recovers(api, fault):
    """Two refused tries, then the API heals: the writer waited between them (Retry-After's 1 s, else its backoff:
    1 s, jitter down to 0.8 s) and wrote everything.  The outage ends after the tries it refused, not after 1.5 s
    (which a loaded host's writer thread could start after: nothing refused)."""
    api.add_node("gpu-1")
    engine, sink, metrics, _ = make_sink(api, mode="enforce", max_backoff_seconds=1)
    api.set_fault(times=2, **fault)
    observe(engine, sink, XID79)
    t0 = time.monotonic()
    sink.start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not api.taints("gpu-1"):
        time.sleep(0.05)
    sink.close()
    assert api.taints("gpu-1") and api.conditions("gpu-1")["GPUUnhealthy"]["status"] == "True"
    assert api.rejected == 2 and time.monotonic() - t0 >= 2 * 0.8  # backed off after each, did not hammer
    assert metrics.registry.get_sample_value("gpu_npd_kube_api_up") == 1


def test_slow_api_never_blocks_detection(api):
    api.add_node("gpu-1")
    engine, sink, _, _ = make_sink(api, request_timeout_seconds=0.5)
    api.set_fault(latency=3.0)
    sink.start()
    finding = Classifier().classify(XID79)  # classified once: the bound is on apply(), not the classifier's start-up
    slowest = 0.0
    for i in range(200):
        t0 = time.monotonic()
        sink.apply(engine.snapshot(engine.observe(finding)))
        slowest = max(slowest, time.monotonic() - t0)
    # apply() only records: a call that waited on the API would take at least the 0.5 s request timeout (the
    # API answers after 3 s); a per-call bound, not a total, so a loaded CI host cannot fail it
    assert slowest < 0.4
    sink.close(timeout=0.1)
    assert engine.conditions["GPUUnhealthy"].status


# ---- events -------------------------------------------------------------------------------------------

def test_repeats_update_one_event_and_distinct_problems_are_rate_limited(api):
    api.add_node("gpu-1")
    engine, sink, _, _ = make_sink(api, mode="observe", event_burst=5, events_per_minute=60)
    for _ in range(32):
        sink.events.record(Ref("Node", "gpu-1"), "R", "same")
    sink.sync()
    (ev,) = api.events()
    assert ev["count"] == 32 and ev["involvedObject"] == {"kind": "Node", "name": "gpu-1", "apiVersion": "v1"}
    for i in range(20):
        observe(engine, sink, f"NVRM: Xid (PCI:0000:{0x20 + i:02x}:00): 79, pid='<unknown>', name=<unknown>, "
                              "GPU has fallen off the bus.")
    sink.sync()
    assert len(api.events()) <= 1 + 5  # the bucket held the rest back ...
    assert sink.events.pending() >= 15  # ... without losing them


def test_a_storm_of_condition_less_findings_is_one_node_event(api):
    """(h491) A node's finding raising no condition (a full conntrack table: kubernetes/kubernetes #71261,
    kernel-tables-2026.yaml) is a Warning Event on the Node of its kind's reason; a storm of 10,000 of its lines is one
    Event (one create), not 10,000 writes, said again once `notice_seconds` have passed. Was no Event."""
    api.add_node("gpu-1")
    engine, sink, _, clock = make_sink(api, mode="observe")
    line = "nf_conntrack: table full, dropping packet"
    for _ in range(10_000):
        clock.t += 0.001
        observe(engine, sink, line)  # every line decided (the coalescer's repeats skip even that)
    sink.sync()
    (ev,) = api.events()
    assert (ev["type"], ev["reason"], ev["count"]) == ("Warning", "KernelTableFull", 1)
    assert ev["involvedObject"]["kind"] == "Node" and line in ev["message"]
    assert not any(c.status for c in engine.conditions.values())
    writes = [r for r in api.requests if "/events" in r[1] and r[0] in ("POST", "PATCH")]
    assert len(writes) == 1
    clock.t += engine.cfg.notice_seconds  # said again: past the recorder's aggregation period (as long), a second Event
    observe(engine, sink, line)
    sink.sync()
    assert [e["reason"] for e in api.events()] == ["KernelTableFull"] * 2
    assert len([r for r in api.requests if "/events" in r[1] and r[0] in ("POST", "PATCH")]) == 2


# Status messages of Events the API server refused for good, verbatim from client-go's "Server rejected event"
# lines: a namespace being deleted (403, https://github.com/kubernetes/kubernetes/issues/100220), a namespace gone
# (404, https://github.com/kubernetes/kubernetes/issues/42695), an Event the API will not take (422,
# https://github.com/fabric8io/kubernetes-client/issues/2219).
REFUSALS = [
    (403, "Forbidden", 'events "e2e-host-exec.166bb9dc892eaed1" is forbidden: unable to create new content in '
                       "namespace hostport-4308 because it is being terminated"),
    (404, "NotFound", 'namespaces "default" not found'),
    (422, "Invalid", 'Event "topic-operator4qpg6" is invalid: involvedObject.namespace: Invalid value: "": does not '
                     "match event.namespace"),
]


def test_events_the_api_refuses_for_good_are_counted_on_the_agents_metrics(api, tmp_path: Path):
    """An Event the API server refuses for good (403, 404, 422) is dropped (kubeapi/events.py): the agent's /metrics
    counts it in gpu_npd_events_dropped_total{reason="rejected"}, exported at 0 from the start with the overflow
    series, and never going down.  Was: counted only in the recorder, seen in the agent's log alone.  A real agent
    process against the API double; the other writes (the conditions) go on."""
    api.add_node("gpu-node-1")
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"mode": "observe", "kubernetes": {"api_server": api.url}, "nvml": "off"}))
    a = AgentProc(tmp_path, "--config", str(conf))
    try:
        a.wait_for(lambda: "GPUUnhealthy" in api.conditions("gpu-node-1"), what="first condition write")
        assert a.value("gpu_npd_events_dropped_total", reason="rejected") == 0
        assert a.value("gpu_npd_events_dropped_total", reason="overflow") == 0
        for i, (status, reason, message) in enumerate(REFUSALS, 1):
            api.set_fault(refuse=("POST", "/events", status, reason, message))
            a.write(f"3,{i},{i}000,-;{XID79.replace('5d', f'{0x20 + i:02x}')}\n")
            a.wait_for(lambda: a.value("gpu_npd_events_dropped_total", reason="rejected") == i,
                       what=f"Event refused with {status} counted")
        api.set_fault()
        a.write(f"3,9,9000,-;{XID79}\n")
        a.wait_for(lambda: [e["reason"] for e in api.events()] == ["Xid79FallenOffBus"], what="the next Event written")
        assert a.value("gpu_npd_events_dropped_total", reason="rejected") == len(REFUSALS)
        assert a.value("gpu_npd_events_dropped_total", reason="overflow") == 0
        assert api.conditions("gpu-node-1")["GPUUnhealthy"]["status"] == "True"
    finally:
        assert a.stop()[0] == 0


def test_events_past_the_pending_backlog_are_counted_on_the_agents_metrics(api):
    """More distinct Events pending than the recorder holds (MAX_PENDING, the API refusing nothing but the rate
    limit holding them back): the oldest are forgotten and gpu_npd_events_dropped_total{reason="overflow"} counts
    each, read from the registry the agent's /metrics serves, in prometheus-client's text format."""
    api.add_node("gpu-1")
    _, sink, metrics, _ = make_sink(api, mode="observe", event_burst=1, events_per_minute=0)

    def dropped() -> dict[str, float]:
        (fam,) = [f for f in text_string_to_metric_families(generate_latest(metrics.registry).decode())
                  if f.name == "gpu_npd_events_dropped"]
        return {s.labels["reason"]: s.value for s in fam.samples if s.name.endswith("_total")}

    assert dropped() == {"rejected": 0, "overflow": 0}
    for i in range(MAX_PENDING + 40):
        sink.events.record(Ref("Pod", f"w-{i}", "train"), "NCCLTimeout", "rank timed out", key=str(i))
    assert dropped() == {"rejected": 0, "overflow": 40}
    sink.sync()  # one Event written (the bucket's one token), the rest still pending: nothing more dropped
    assert len(api.events()) == 1 and sink.events.pending() == MAX_PENDING - 1
    assert dropped() == {"rejected": 0, "overflow": 40}


def test_local_mode_without_any_cluster_config(monkeypatch, tmp_path):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing"))
    monkeypatch.setenv("HOME", str(tmp_path))
    cfg = load(env={}, flags={"kmsg": ""})
    assert make_api(cfg.kube) is None


# ---- the whole agent ---------------------------------------------------------------------------------

def test_agent_process_writes_condition_and_taint_within_a_second(api, tmp_path: Path):
    """A fatal Xid reaches the API as the condition and the taint within 1 s (docs/kubernetes.md), measured by the
    agent's own stamps: its JSON line of the problem (the pipeline's pass that hands the sinks the snapshot) to its
    log line of the taint written (after the API's answer), so that the test process's own scheduling on a loaded
    host does not count.  Measured from a settled agent: its start-up writes done and its client-side rate limit
    (qps 5, burst 10) full again; an Xid right after them waits on its pacing by design (was measured so: 0.6 to
    0.8 s on a loaded 2-CPU host against 0.3 to 0.5 s settled, and failed once under load)."""
    api.add_node("gpu-node-1", taints=[OTHER_TAINT])
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"mode": "enforce", "kubernetes": {"api_server": api.url}, "nvml": "off"}))
    a = AgentProc(tmp_path, "--config", str(conf))
    a.wait_for(lambda: "GPUUnhealthy" in api.conditions("gpu-node-1"), timeout=30, what="the start-up's conditions")
    api.quiet()
    a.write(f"3,1,1000,-;{XID79}\n")
    a.wait_for(lambda: "taints on gpu-node-1: ['" in a.stderr(), timeout=30, what="the taint written")
    assert api.conditions("gpu-node-1")["GPUUnhealthy"]["status"] == "True"
    assert [t["key"] for t in api.taints("gpu-node-1")] == [OTHER_TAINT["key"], TAINT]
    (problem,) = [e["time"] for e in a.events() if e.get("event") == "problem"]
    (written,) = [ln.split()[0] for ln in a.stderr().splitlines() if "taints on gpu-node-1: ['" in ln]
    took = stamp(written) - stamp(problem)
    assert 0 <= took < 1.0, (problem, written)
    assert a.stop()[0] == 0
    n = len(api.requests)
    b = AgentProc(tmp_path, "--config", str(conf))  # restart: the taint stays, the condition does not flap
    b.wait_for(lambda: ("PATCH", "/api/v1/nodes/gpu-node-1/status") in [r[:2] for r in api.requests[n:]],
               timeout=30, what="the restarted agent's conditions")
    api.quiet()  # its start-up's writes done (was: 1 s, which a loaded host's start-up outlasts)
    assert [t["key"] for t in api.taints("gpu-node-1")] == [OTHER_TAINT["key"], TAINT]
    assert api.conditions("gpu-node-1")["GPUUnhealthy"]["status"] == "True"
    assert b.stop()[0] == 0


def stamp(text: str) -> float:
    """One of the agent's stamps (agent/sinks/stdout.py utc_iso: RFC 3339, UTC, milliseconds) as epoch seconds."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_taint_rule_by_severity(api):
    from agent.kube.desired import TaintRule
    api.add_node("gpu-1")
    rules = (TaintRule("GPUUnhealthy", "NoSchedule", "fatal"), TaintRule("InfiniBandUnhealthy", "NoSchedule", "fatal"))
    engine, sink, _, _ = make_sink(api, taints=rules)
    observe(engine, sink, IB_DOWN)  # severity error: condition yes, taint no
    sink.sync()
    assert api.conditions("gpu-1")["InfiniBandUnhealthy"]["status"] == "True" and api.taints("gpu-1") == []
    observe(engine, sink, XID79)  # fatal
    sink.sync()
    assert [t["key"] for t in api.taints("gpu-1")] == [TAINT]


def test_bad_taint_rules_are_config_errors():
    from agent.config import ConfigError
    with pytest.raises(ConfigError, match=r"kubernetes.taints\[0\].min_severity"):
        load(env={}, flags={"kubernetes": {"taints": [{"condition": "GPUUnhealthy", "min_severity": "bad"}]}})
    with pytest.raises(ConfigError, match=r"kubernetes.taints\[0\].effect"):
        load(env={}, flags={"kubernetes": {"taints": [{"condition": "GPUUnhealthy", "effect": "Evict"}]}})


# ---- committed writes whose replies are lost; backoff ----------------------------------------------------

@pytest.mark.parametrize("kind", [("PATCH", "/nodes/gpu-1/status"), ("PATCH", "/nodes/gpu-1"),
                                  ("POST", "/events"), ("PATCH", "/events/[^/]+")],
                         ids=["condition", "taint", "event-create", "event-patch"])
def test_a_committed_write_whose_reply_is_lost_never_wedges_the_writer(api, kind):
    """The API server commits the write but the reply is lost; the retry must converge (a real server then
    answers 409 AlreadyExists to the Event create, 409 Conflict to the taint's stale resourceVersion)."""
    api.add_node("gpu-1", taints=[OTHER_TAINT])
    engine, sink, metrics, _ = make_sink(api, mode="enforce")
    probe = Ref("Node", "gpu-1")
    if kind[0] == "PATCH" and "events" in kind[1]:  # the Event must exist first for its count patch to be the lost write
        sink.events.record(probe, "Probe", "one")
        sink.sync()
    api.set_fault(lose_reply=kind)
    observe(engine, sink, XID79)
    sink.events.record(probe, "Probe", "one")
    with pytest.raises(Exception):
        sink.sync()  # committed on the server, lost on the way back
    api.set_fault()
    sink.events.record(probe, "Probe", "one")
    recovered = False
    for _ in range(3):
        try:
            sink.sync()
            recovered = True
            break
        except Exception:  # noqa: BLE001 - one conflict on a stale resourceVersion is re-read next time
            continue
    assert recovered, "the writer never recovered"
    assert api.conditions("gpu-1")["GPUUnhealthy"]["status"] == "True"
    assert [t["key"] for t in api.taints("gpu-1")] == [OTHER_TAINT["key"], TAINT]
    probes = [e for e in api.events() if e["reason"] == "Probe"]
    assert len(probes) == 1 and probes[0]["count"] == (3 if "events" in kind[1] and kind[0] == "PATCH" else 2)
    assert not sink.events.pending()


def test_retry_after_is_the_wait_and_does_not_inflate_the_backoff():
    from kubeapi.retry import next_delay

    one = lambda: 1.0  # noqa: E731 - no jitter
    assert next_delay(0.0, None, 60, one) == (1.0, 1.0)
    assert next_delay(32.0, None, 60, one) == (60.0, 60.0)
    assert next_delay(8.0, 30.0, 60, one) == (30.0, 8.0)  # the server's wait, backoff unchanged
    assert next_delay(8.0, 120.0, 60, one) == (60.0, 8.0)  # capped at the maximum
    assert next_delay(60.0, None, 60, lambda: 1.2) == (60.0, 60.0)  # jitter never exceeds the maximum
    backoff, waits = 0.0, []
    for retry_after in [None, None, 5.0, 5.0, None]:
        wait, backoff = next_delay(backoff, retry_after, 60, one)
        waits.append(wait)
    assert waits == [1.0, 2.0, 5.0, 5.0, 4.0]


def test_held_agents_ask_the_budget_on_a_backoff_and_mostly_of_its_configmap(api):
    """The budget's load in a fleet-wide event (h129). Before: an agent whose taint the budget held back asked
    again every minute (and at every heartbeat), each ask a quorum LIST of the whole pool: 1,000 nodes with 900
    held made ~9,000 LISTs (900k Node objects) a minute of an API server needed elsewhere. Now a held taint asks
    on a backoff (60 s doubling to 15 min, full jitter; heartbeats keep to it), learns "still full" from the
    budget's ConfigMap alone (its pool summary and grants), and lists from the watch cache. 20 of a 100-node
    pool fail at once (the budget: 10), every writer woken every 15 s for an hour (as by changes; heartbeats
    when due): the held ten list the pool a handful of times, not 600; a freed slot is taken within the cap."""
    from agent.kube.grants import BUDGET_RECHECK_CAP_SECONDS

    for i in range(100):
        api.add_node(f"gpu-{i:03d}")
    clock = Clock()
    agents = [make_sink(api, node=f"gpu-{i:03d}", clock=clock, taint_hold_down_seconds=0, qps=500, burst=500)
              for i in range(20)]
    for engine, sink, _, _ in agents:
        observe(engine, sink, XID79)
    tainted = lambda: [n for n in api.nodes if any(t["key"] == TAINT for t in api.taints(n))]  # noqa: E731
    start = clock.t
    lists, listed, most = api.lists, api.listed, 0
    for engine, sink, _, _ in agents:  # the burst: every agent asks at once
        sink.sync()
    burst = api.lists - lists
    assert len(tainted()) == 10 and burst == 10  # the ten after the book filled learnt it from the book alone
    while clock.t < start + 3600:
        clock.t += 15
        for _, sink, _, _ in agents:
            sink.sync()
        most = max(most, len(tainted()))
    held = [sink for _, sink, _, _ in agents if sink.taints.held]
    hour, objects = api.lists - lists - burst, api.listed - listed
    assert len(held) == 10 and most == 10 and len(tainted()) == 10
    # the ten held agents asked ~11 times each in the hour (not 60); all but a few asks read only the ConfigMap
    # (a full count when its pool summary is 15 minutes old): before, 600 LISTs of the whole pool
    assert hour <= 8, hour
    assert objects <= 100 * (burst + hour)
    # a tainted node recovers: its grant goes back, and a held node takes the slot within the backoff's cap
    freed = next(sink for _, sink, _, _ in agents if not sink.taints.held)
    freed.apply(Snapshot())  # its GPU repaired: no condition, the taint goes (no hold-down here), the grant too
    freed.sync()
    assert len(tainted()) == 9 and freed.node not in tainted() and len(book_grants(api)) == 9
    recovered = clock.t
    while len(tainted()) < 10:
        clock.t += 15
        for _, sink, _, _ in agents:
            sink.sync()
        assert len(tainted()) <= 10
    assert clock.t - recovered <= BUDGET_RECHECK_CAP_SECONDS + 15
    assert freed.node not in tainted() and sum(not sink.taints.held for sink in held) == 1
    print(f"burst LISTs {burst}, hour LISTs {hour}, Node objects listed {objects}, "
          f"slot taken after {clock.t - recovered:.0f} s")

def test_a_held_taint_that_appears_on_the_node_is_no_longer_held(api):
    """h131: a held-back taint that someone else puts on the node (kubectl, an older agent) is not held any more;
    before, it stayed in `held`, so `next_ask` stayed in the past once due and the writer thread woke at once,
    again and again (a sync that changed nothing, in a loop, until the condition cleared)."""
    for i in range(100):
        taints = [{"key": TAINT, "value": "x", "effect": "NoSchedule"}] if i < 10 else []
        api.add_node(f"gpu-{i:03d}", taints=taints)
    engine, sink, _, clock = make_sink(api, node="gpu-050")
    observe(engine, sink, XID79)
    sink.sync()
    assert api.taints("gpu-050") == [] and sink.taints.held == {TAINT}
    with api.lock:
        api.nodes["gpu-050"]["spec"]["taints"] = [{"key": TAINT, "value": "x", "effect": "NoSchedule"}]
        api.nodes.touch("gpu-050")
    clock.t += 70  # past the heartbeat and any recheck
    sink.sync()
    assert sink.taints.held == set()
    assert sink._next_hold_down() > clock.t  # the writer sleeps until something is due

def test_a_slot_freed_without_a_release_is_taken_within_the_cap(api):
    """h131: a tainted node deleted (replaced by the repair it was tainted for: its agent never releases its
    grant) frees its slot, which the next full count of the pool reclaims. A held node that learns "still full"
    from the book alone must come to that full count within the backoff's cap of the slot freeing: before, the
    book was trusted until its pool summary was 15 minutes old and the next ask drawn up to 15 minutes after a
    refusal from it, so a slot freed just after a full count waited up to ~30 minutes."""
    from agent.kube.grants import BUDGET_RECHECK_CAP_SECONDS

    for i in range(20):
        api.add_node(f"gpu-{i:03d}")
    clock = Clock()
    agents = [make_sink(api, node=f"gpu-{i:03d}", clock=clock, taint_hold_down_seconds=0, qps=500, burst=500,
                        max_tainted_fraction=0.5, max_tainted_nodes=2) for i in range(3)]
    for engine, sink, _, _ in agents:
        # the first windows' earliest, then half of the cap: a refusal from the book late in its summary's life
        sink.taints.recheck.uniform = lambda lo, hi: 1.0 if hi < BUDGET_RECHECK_CAP_SECONDS else hi / 2 + 50
        observe(engine, sink, XID79)
        sink.sync()
    held, start = agents[2][1], clock.t
    assert book_grants(api) == ["gpu-000", "gpu-001"] and held.taints.held  # the cap: 2
    lists = api.lists
    while not (clock.t > start + 600 and api.lists > lists):  # a full count, the grants past their grace
        lists = api.lists
        clock.t += 2
        held.sync()
    with api.lock:
        del api.nodes["gpu-000"]  # replaced; its agent went with it, its grant stays in the book
    freed = clock.t
    while TAINT not in [t["key"] for t in api.taints("gpu-002")]:
        clock.t += 2
        held.sync()
        assert clock.t - freed <= BUDGET_RECHECK_CAP_SECONDS + 2, "the freed slot is still not taken"


def test_recheck_windows_and_what_the_book_alone_may_say():
    """grants.Recheck: full jitter within 60 s doubling to the cap, started over for another held set, and never
    later than `until` (a refusal from the book alone). GrantBook.pool_count: an answer only from a summary younger
    than BOOK_ALONE_SECONDS (and not from the future: another node's clock far ahead), never with our own grant."""
    from agent.kube.grants import BOOK_ALONE_SECONDS, GrantBook, Recheck

    r = Recheck(uniform=lambda lo, hi: hi)
    windows = []
    for _ in range(6):
        r.refused(0.0, {"k"})
        windows.append(r.next_at)
    assert windows == [60, 120, 240, 480, 900, 900]
    r.refused(0.0, {"k"}, until=500.0)
    assert r.next_at == 500.0
    r.refused(0.0, {"k", "j"})
    assert r.next_at == 60 and r.due(60) and not r.due(59)
    r.reset()
    assert r.due(float("-inf")) and r.held == frozenset()

    now = 1e9
    data = {"_pool.p": json.dumps({"nodes": 20, "at": now}), "a": json.dumps({"node": "a", "at": 1, "pool": "p"}),
            "b": json.dumps({"node": "b", "at": 1, "pool": "q"}), "c": json.dumps({"node": "c", "at": 1})}
    book = GrantBook(lambda method, path, **kw: {"metadata": {}, "data": data}, "ns", "cm", "x", lambda: now)
    assert book.pool_count("p", "x") == (1, 20, now)  # only the pool's tagged grants
    assert book.pool_count("p", "a") is None  # our own grant: count in full and use it
    assert book.pool_count("q", "x") is None  # no summary of that pool
    for at, trusted in ((now - BOOK_ALONE_SECONDS + 1, True), (now - BOOK_ALONE_SECONDS, False),
                        (now + 30, True), (now + 3600, False)):
        data["_pool.p"] = json.dumps({"nodes": 20, "at": at})
        assert (book.pool_count("p", "x") is not None) is trusted, at


def test_a_taint_held_for_days_keeps_asking_at_the_cap():
    """h148: Recheck's attempt count grew at every refusal, and 60 * 2 ** 1024 overflows a float: a taint (or a DRA
    rule) held back through ~1,024 refusals (about five days of a full pool, one ask per ~7.5 minutes at the cap)
    raised OverflowError at each ask after, so the writer failed (its Events after the taints unwritten), backed off
    a minute and asked again (the ConfigMap, or a LIST of the pool), every minute, for as long as the pool stayed
    full. Now the windows stay at the cap."""
    from agent.kube.grants import BUDGET_RECHECK_CAP_SECONDS, Recheck

    r = Recheck(uniform=lambda lo, hi: hi)
    for i in range(2000):
        r.refused(i * 1000.0, {"k"})
    assert r.next_at == 1999 * 1000.0 + BUDGET_RECHECK_CAP_SECONDS and r.attempt == 4


def test_what_the_last_write_at_shutdown_could_not_write_is_said(api, caplog):
    """The API server down as the agent stops: the writer's last try failed and was dropped without a word (`except
    Exception: pass`), the node's Events for the problems raised meanwhile lost unsaid. Now one warning says the
    failure and how many Events are not written; the conditions and taints need no word: the next start writes them
    again from the saved state (its first pass writes every condition)."""
    import logging

    api.add_node("gpu-1")
    engine, sink, _, _ = make_sink(api, mode="enforce", max_backoff_seconds=1)
    api.set_fault(seconds=60, status=500)
    observe(engine, sink, XID79)
    sink.start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not api.rejected:
        time.sleep(0.05)
    caplog.set_level(logging.INFO, logger="gpu_npd")
    caplog.clear()
    sink.close(timeout=10)
    last = [r for r in caplog.records if "at shutdown" in r.getMessage()]
    assert len(last) == 1 and last[0].levelno == logging.WARNING, [r.getMessage() for r in caplog.records]
    assert "HTTP 500" in last[0].getMessage() and "1 Event(s) not written" in last[0].getMessage(), last[0].getMessage()
    assert "GPUUnhealthy" not in api.conditions("gpu-1")
    api.set_fault()  # the API server back, the next start's writer (the state restored: the same snapshot)
    _, again, _, _ = make_sink(api, mode="enforce")
    again.apply(engine.snapshot())
    again.start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not api.taints("gpu-1"):
        time.sleep(0.05)
    again.close()
    assert api.conditions("gpu-1")["GPUUnhealthy"]["status"] == "True" and api.taints("gpu-1")


# ---- taint keys of conditions with a domain of their own -------------------------------------------------

def _prefixed_condition(**kube) -> "object":
    """The defaults plus `example.com/IBLinkDown` (raised by an InfiniBand link down), tainted beside GPUUnhealthy."""
    base = load(env={}, flags={})
    conditions = {**base.conditions, "example.com/IBLinkDown": {"ok_reason": "LinksUp", "ok_message": "links up"}}
    rules = [{"match": {"kind": "ib_link"}, "condition": "example.com/IBLinkDown"}, *base.condition_rules]
    taints = [{"condition": "GPUUnhealthy"}, {"condition": "example.com/IBLinkDown"}]
    return load(env={}, flags={"conditions": conditions, "condition_rules": rules,
                                "kubernetes": {"taints": taints, **kube}})


def test_a_condition_with_its_own_domain_taints_by_its_name_and_the_other_taints_stand(api):
    """h488: the key was taint_prefix + the type, `gpu-npd.io/example.com/IBLinkDown`: no qualified name (two '/'),
    the API server refused the node's whole taint patch (422) at every retry, so GPUUnhealthy's taint was lost too.
    The key is taint_prefix + the condition's name after its own domain."""
    cfg = _prefixed_condition()
    api.add_node("gpu-1", taints=[OTHER_TAINT])
    s = replace(cfg.kube, api_server=api.url, coalesce_seconds=0.05)
    clock = Clock()
    engine = HealthEngine(cfg, clock)
    sink = KubernetesSink(make_api(s), "gpu-1", s, "enforce", Metrics(), clock=clock)
    observe(engine, sink, XID79)
    observe(engine, sink, IB_DOWN)
    sink.sync()
    assert api.conditions("gpu-1")["example.com/IBLinkDown"]["status"] == "True"
    assert api.invalid_node_patches == 0
    assert [t["key"] for t in api.taints("gpu-1")] == [OTHER_TAINT["key"], TAINT, "gpu-npd.io/IBLinkDown"]
