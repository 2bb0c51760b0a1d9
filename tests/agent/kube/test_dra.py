"""Per-GPU fencing with DRA device taints (KEP-5055) against the API double: ResourceSlices as NVIDIA's
DRA driver publishes them (attributes `uuid`, `pcieBusID`; devices `gpu-<minor>`), DeviceTaintRules
created / deleted only under gpu-npd's owner label, the GPU budget, discovery and fallback."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from agent.config import ConfigError, load
from agent.health import HealthEngine
from kubeapi.client import call, make_api
from agent.kube.dra import DeviceFencer, choose_versions, match_devices, node_hash, owner, rule_name
from agent.kube.nodeapi import NodeApi
from agent.kube.sink import KubernetesSink
from apiserver_double import ApiDouble
from fakeclock import Clock
from harness import AgentProc, wait_until
from parsers import Classifier
from parsers.model import Snapshot

XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
DRIVER = "gpu.nvidia.com"
FOREIGN = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
           "metadata": {"name": "admin-maintenance", "labels": {"team": "infra"}},
           "spec": {"deviceSelector": {"driver": DRIVER, "pool": "gpu-node-1", "device": "gpu-1"},
                    "taint": {"key": "example.com/maintenance", "effect": "NoSchedule"}}}


def _slice(node: str, gpus: list[tuple[str, str]]) -> dict:
    # synthetic: shaped as NVIDIA/k8s-dra-driver-gpu cmd/gpu-kubelet-plugin/deviceinfo.go publishes a GPU
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-{DRIVER}"},
            "spec": {"driver": DRIVER, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}", "attributes": {"type": {"string": "gpu"}, "uuid": {"string": uuid},
                                                                     "pcieBusID": {"string": pci}}}
                                 for i, (uuid, pci) in enumerate(gpus)]}}


def _name(node: str, device: str = "gpu-0") -> str:
    return rule_name(node, (DRIVER, node, device))


GPUS = [("GPU-aaaaaaaa-0000-0000-0000-000000000000", "0000:5d:00.0"),
        ("GPU-bbbbbbbb-0000-0000-0000-000000000000", "0000:5e:00.0")]


@pytest.fixture
def api():
    with ApiDouble() as d:
        yield d


def _serve_dra(api, rules_version="v1alpha3"):
    api.dra_versions = {"v1": ["resourceslices"], rules_version: ["devicetaintrules"]}
    api.resource_slices = [_slice("gpu-node-1", GPUS), _slice("gpu-node-2", GPUS)]
    api.device_taint_rules = {FOREIGN["metadata"]["name"]: FOREIGN}


def test_versions_and_matching():
    assert choose_versions({"v1": ["resourceslices"], "v1alpha3": ["devicetaintrules"]}) == ("v1alpha3", "v1")
    assert choose_versions({"v1": ["resourceslices"]}) == (None, "v1")
    assert choose_versions({}) == (None, None)
    m = match_devices([_slice("n", GPUS)], DRIVER)
    assert m["0000:5d:00"] == (DRIVER, "n", "gpu-0") and m[GPUS[1][0]] == (DRIVER, "n", "gpu-1")
    assert match_devices([_slice("n", GPUS)], "other.driver") == {}


def test_config_is_opt_in_and_checked():
    assert load(env={}, flags={}).kube.dra_device_taints is False
    with pytest.raises(ConfigError, match="kubernetes.dra_taint_effect"):
        load(env={}, flags={"kubernetes": {"dra_taint_effect": "PreferNoSchedule"}})


def test_fencer_creates_holds_then_deletes_only_its_own(api):
    _serve_dra(api)
    clock = Clock()
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": []})
    s = replace(cfg.kube, api_server=api.url, dra_device_taints=True, taint_hold_down_seconds=300)
    engine = HealthEngine(cfg, clock)
    engine.observe(Classifier().classify(XID79))
    counts = []
    n = NodeApi(make_api(s), "gpu-node-1", s)
    n.count = counts.append
    f = DeviceFencer(n, clock)
    f.sync(list(engine.problems.values()))
    rule = api.device_taint_rules[_name("gpu-node-1")]
    assert rule["spec"]["deviceSelector"] == {"driver": DRIVER, "pool": "gpu-node-1", "device": "gpu-0"}
    assert rule["spec"]["taint"]["effect"] == "NoSchedule" and f.fenced == {"0000:5d:00"}
    f.sync([])  # the problem cleared: kept through the hold-down ...
    assert _name("gpu-node-1") in api.device_taint_rules
    clock.t += 301
    f.sync([])  # ... then removed; the admin's rule is never touched
    assert set(api.device_taint_rules) == {"admin-maintenance"} and counts == ["devicetaintrules"] * 2


def test_a_pass_during_the_hold_down_asks_nothing_of_the_api(api):
    """A cleared rule is held through the hold-down; the writer's passes in between (Events, the node's other
    writers) do not sync the fencer: no list of the node's ResourceSlices or rules until something changes or the
    hold-down ends, then one sync deletes the rule.  Was: due on every pass while a rule was held, two GETs each
    (2,000 a pass in a fleet of 1,000 nodes)."""
    _serve_dra(api)
    api.add_node("gpu-node-1", gpus=0)
    clock = Clock()
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": []})
    s = replace(cfg.kube, api_server=api.url, dra_device_taints=True, taint_hold_down_seconds=300,
                max_tainted_fraction=1.0, heartbeat_seconds=3600)
    engine = HealthEngine(cfg, clock)
    sink = KubernetesSink(make_api(s), "gpu-node-1", s, "enforce", clock=clock)
    sink.apply(engine.snapshot(engine.observe(Classifier().classify(XID79))))
    sink.sync()
    assert _name("gpu-node-1") in api.device_taint_rules
    sink.apply(Snapshot())  # the problem cleared: the rule is held through the hold-down
    clock.t += 1
    sink.sync()
    dra = lambda: [r for r in api.requests if "/apis/resource.k8s.io/" in r[1]]  # noqa: E731
    before = len(dra())
    for _ in range(9):
        clock.t += 30
        sink.sync()
    assert dra()[before:] == [] and _name("gpu-node-1") in api.device_taint_rules
    assert sink.fencer.next_due() == clock.t + 30
    clock.t = sink.fencer.next_due()
    sink.sync()  # the hold-down ended: one sync, the rule deleted
    assert _name("gpu-node-1") not in api.device_taint_rules
    clock.t += 30
    after = len(dra())
    sink.sync()
    assert dra()[after:] == []


def test_gpu_budget(api):
    _serve_dra(api)  # 4 GPUs in the pool: 10% -> at least one may be tainted, not two
    api.device_taint_rules["gpu-npd-gpu-node-2-gpu-0"] = {  # an older version's rule (node label, no grant)
        "metadata": {"name": "gpu-npd-gpu-node-2-gpu-0", "labels": {"app.kubernetes.io/managed-by": "gpu-npd",
                                                                     "gpu-npd.io/node": "gpu-node-2"}}}
    clock = Clock()
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": []})
    s = replace(cfg.kube, api_server=api.url, dra_device_taints=True, qps=500, burst=500)
    engine = HealthEngine(cfg, clock)
    engine.observe(Classifier().classify(XID79))
    f = DeviceFencer(NodeApi(make_api(s), "gpu-node-1", s), clock)
    f.recheck.uniform = lambda lo, hi: hi  # the jitter's latest
    f.sync(list(engine.problems.values()))
    assert _name("gpu-node-1") not in api.device_taint_rules and f.fenced == set() and f.held == {"0000:5d:00"}
    # held: the budget is asked again on a backoff (before: every minute for as long as the GPU was held), each
    # ask's lists from the watch cache; a sync between (a heartbeat, another change) keeps the last answer
    asks = lambda: [r for r in api.requests  # noqa: E731 - the pool's slices listed: an ask
                    if r[1].endswith("/resourceslices") and "fieldSelector" not in r[2]]
    start, times = clock.t, []
    while clock.t < start + 3600:
        clock.t += 60
        before = len(asks())
        f.sync(list(engine.problems.values()))  # at every minute: a heartbeat, or the fencer's own due time
        if len(asks()) > before:
            times.append(clock.t - start)
        assert f.held == {"0000:5d:00"} and f.next_due() == f.recheck.next_at
    assert times == [60, 180, 420, 900, 1800, 2700, 3600]  # 60 s doubling to the 15-minute cap
    assert all(r[2].get("resourceVersion") == "0" for r in asks())


def _run(tmp_path: Path, api, **kube) -> AgentProc:
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"mode": "enforce", "nvml": "off", "kubernetes": {
        "api_server": api.url, "coalesce_seconds": 0.05, "dra_device_taints": True, **kube}}))
    return AgentProc(tmp_path, "--config", str(conf))


def _two_more_passes(a: AgentProc) -> None:
    """Wait for two more of the writer's passes (the heartbeat's, when `heartbeat_seconds` is short): each writes the
    conditions, then the DRA rules and node taints; the first began after this call, and ended before the second
    wrote its conditions."""
    written = lambda: a.value("gpu_npd_kube_writes_total", kind="conditions") or 0  # noqa: E731
    passes = written()
    wait_until(lambda: written() >= passes + 2, "two more write passes")


def test_process_fences_one_gpu_not_the_node(api, tmp_path: Path):
    _serve_dra(api)
    api.add_node("gpu-node-1", gpus=0)  # no GPU expected from capacity: no GPUCountMismatch on the node
    a = _run(tmp_path, api, max_tainted_fraction=0.5, heartbeat_seconds=0.2)
    a.write(f"3,1,1000,-;{XID79}\n")
    wait_until(lambda: _name("gpu-node-1") in api.device_taint_rules, "DeviceTaintRule")
    wait_until(lambda: api.conditions("gpu-node-1").get("GPUUnhealthy", {}).get("status") == "True", "condition")
    _two_more_passes(a)  # a node taint for the fenced GPU would have been written by then
    assert api.taints("gpu-node-1") == []  # the node stays schedulable for its healthy GPU
    rule = api.device_taint_rules[_name("gpu-node-1")]
    assert rule["apiVersion"] == "resource.k8s.io/v1alpha3" and rule["spec"]["taint"]["key"] == "gpu-npd.io/unhealthy"
    assert api.device_taint_rules["admin-maintenance"] == FOREIGN
    assert a.stop()[0] == 0


def test_process_without_dra_falls_back_to_node_taints(api, tmp_path: Path):
    api.add_node("gpu-node-1", gpus=0)  # the double serves no resource.k8s.io
    a = _run(tmp_path, api, heartbeat_seconds=0.2)
    a.write(f"3,1,1000,-;{XID79}\n")
    wait_until(lambda: [t["key"] for t in api.taints("gpu-node-1")] == ["gpu-npd.io/GPUUnhealthy"], "node taint")
    a.write(f"3,2,2000,-;{XID79.replace('5d', '5e')}\n")
    # a second faulty GPU: discovery is not repeated, the absence not said again (in the pass that writes it, after
    # its condition, or any later one)
    wait_until(lambda: "0000:5e:00" in api.conditions("gpu-node-1")["GPUUnhealthy"]["message"], "the second GPU")
    _two_more_passes(a)
    assert a.stop()[0] == 0
    err = a.stderr()
    assert err.count("is not served by this cluster") == 1 and "falling back to node taints" in err


# ---- ownership, foreign names, refusals and the budget across racing agents (issue 31 item 5) ----------------

LONG = "gpu-node-" + "r" * 54  # 63 characters shared: the two nodes below differ only after them
LONG_A, LONG_B = LONG + "-a", LONG + "-b"


def _agent(tmp_path: Path, api, node: str, **kube) -> AgentProc:
    home = tmp_path / node[-12:]
    home.mkdir()
    conf = home / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"mode": "enforce", "nvml": "off", "log_level": "warning", "kubernetes": {
        "api_server": api.url, "coalesce_seconds": 0.05, "dra_device_taints": True, **kube}}))
    return AgentProc(home, "--config", str(conf), env={"NODE_NAME": node}, start_timeout=60.0)


def _xid79(pci: str, seq: int) -> str:
    return f"3,{seq},{1000 + seq},-;{XID79.replace('0000:5d:00', pci)}\n"


def test_whose_a_rule_is_is_exact():
    """The full name in the annotation, its hash in the label: both must agree; an older version's label names a
    node only below 63 characters (a 63-character label may be a longer name cut). Names never collide."""
    body = lambda node: {"metadata": {"labels": {"app.kubernetes.io/managed-by": "gpu-npd",  # noqa: E731
                                                 "gpu-npd.io/node-hash": node_hash(node)},
                                      "annotations": {"gpu-npd.io/node": node}}}
    assert owner(body(LONG_A)) == LONG_A and owner(body(LONG_B)) == LONG_B
    forged = body(LONG_A)
    forged["metadata"]["labels"]["gpu-npd.io/node-hash"] = node_hash(LONG_B)
    assert owner(forged) is None
    legacy = lambda label: {"metadata": {"labels": {"app.kubernetes.io/managed-by": "gpu-npd",  # noqa: E731
                                                    "gpu-npd.io/node": label}}}
    assert owner(legacy("gpu-node-1")) == "gpu-node-1" and owner(legacy(LONG_A[:63])) is None
    assert owner({"metadata": {"annotations": {"gpu-npd.io/node": "gpu-node-1"}}}) is None  # no owner label
    long_a, long_b = "n" * 250 + "-a", "n" * 250 + "-b"  # cut to the same readable part
    names = {rule_name(n, (DRIVER, n, d)) for n in (long_a, long_b, "x-a", "x") for d in ("gpu-0", "a-gpu-0")}
    assert len(names) == 8 and all(len(n) <= 253 for n in names)


def test_grants_are_counted_with_the_rules_and_reclaimed_only_when_stale(api):
    """The grant book against the API double's ConfigMaps: full is full (grants and rules without grants count),
    a grant whose rule never appeared is another node's to reclaim only after the grace, a rule keeps its grant,
    and a node releases only its own."""
    from agent.kube.grants import GRANT_GRACE_SECONDS, GrantBook  # noqa: PLC0415

    s = replace(load(env={}).kube, api_server=api.url)
    client = make_api(s)
    request = lambda method, path, body=None, query=None: call(client, method, path, body, query)  # noqa: E731
    clock = Clock()
    a, b = (GrantBook(request, "gpu-npd", "budget", n, clock, sleep=lambda _: None) for n in ("node-a", "node-b"))
    assert a.acquire(["a1", "a2"], set(), 3) == ["a1", "a2"]
    assert b.acquire(["b1", "b2"], {"legacy"}, 3) == []  # two grants and a rule without one: 3 of 3
    assert b.acquire(["b1"], set(), 3) == ["b1"]
    assert a.acquire(["a1", "a2"], set(), 3) == ["a1", "a2"]  # granted before: still a's
    clock.t += GRANT_GRACE_SECONDS + 1
    assert b.acquire(["b1", "b2"], {"a1"}, 3) == ["b1", "b2"]  # a2 never got its rule: reclaimed; a1 has one
    # (b1, granted before the grace, is b's still: asking for it again says it is still wanted)
    a.release(["a1", "b1"])
    assert sorted(api.configmaps[("gpu-npd", "budget")]["data"]) == ["b1", "b2"]
    raced: list = []

    def racing(method, path, body=None, query=None):
        if method == "PUT" and not raced:  # another agent writes between this one's read and its write
            raced.append(a.acquire(["a3"], set(), 4))
        return request(method, path, body, query)

    c = GrantBook(racing, "gpu-npd", "budget", "node-c", clock, sleep=lambda _: None)
    got = c.acquire(["c1", "c2"], set(), 4)
    assert got == ["c1"] and c.conflicts == 1 and raced == [["a3"]]
    assert sorted(api.configmaps[("gpu-npd", "budget")]["data"]) == ["a3", "b1", "b2", "c1"]


def test_what_clock_skew_between_agents_does_to_grants_as_docs_operations_says(api):
    """Grant times are each agent's own wall clock (docs/operations.md "Clocks"): pinned here.  A grant whose action
    stands is counted whatever the clocks; a grant without one is judged by the reader's clock, so a reader more
    than GRANT_GRACE_SECONDS ahead of its writer takes that slot at once (the limit the page states), and a writer
    ahead of its reader holds an orphaned grant that much longer than the grace.  Its own grant a node drops once it
    no longer wants it, whatever the clocks."""
    from agent.kube.grants import GRANT_GRACE_SECONDS, GrantBook  # noqa: PLC0415

    client = make_api(replace(load(env={}).kube, api_server=api.url))
    request = lambda method, path, body=None, query=None: call(client, method, path, body, query)  # noqa: E731
    t = 1_800_000_000.0
    ahead = Clock(t + GRANT_GRACE_SECONDS + 1)
    a, b = (GrantBook(request, "gpu-npd", "skew", n, c, sleep=lambda _: None)
            for n, c in (("node-a", Clock(t)), ("node-b", ahead)))
    assert a.acquire(["a1", "a2"], set(), 2) == ["a1", "a2"]
    assert b.acquire(["b1"], {"a1"}, 2) == ["b1"]  # a1's rule stands: counted; a2 (no rule yet) judged lapsed
    late = GrantBook(request, "gpu-npd", "skew2", "node-c", Clock(t + 1000), sleep=lambda _: None)
    assert late.acquire(["c1"], set(), 1) == ["c1"]  # written at t on a clock 1,000 s ahead, never acted on: ...
    reader = Clock(t + GRANT_GRACE_SECONDS + 1)  # ... past the grace on a right clock, kept (1,000 s more)
    assert GrantBook(request, "gpu-npd", "skew2", "node-d", reader, sleep=lambda _: None).acquire(["d1"], set(), 1) == []
    late.release(["c1"])
    assert api.configmaps[("gpu-npd", "skew2")]["data"] == {}


def test_nodes_sharing_63_characters_never_touch_each_others_rules(api, tmp_path: Path):
    """Issue 31: owner labels cut to 63 characters collided, and one node's agent deleted the other's rule 2 s
    after start. Now the rule carries the node's full name (an annotation) and its hash (the label listed by),
    both checked on read: B, with no fault and no hold-down, lists nothing of A's and deletes nothing."""
    api.dra_versions = {"v1": ["resourceslices"], "v1alpha3": ["devicetaintrules"]}
    api.resource_slices = [_slice(LONG_A, GPUS), _slice(LONG_B, GPUS)]
    for n in (LONG_A, LONG_B):
        api.add_node(n, gpus=0)
    a = _agent(tmp_path, api, LONG_A, max_tainted_fraction=0.5)
    a.write(_xid79("0000:5d:00", 1))
    mine = wait_until(lambda: [r for r in api.device_taint_rules.values()
                               if r["metadata"]["annotations"]["gpu-npd.io/node"] == LONG_A], "A's rule")[0]
    assert mine["metadata"]["labels"]["gpu-npd.io/node-hash"] != ""
    # a rule claiming B by its label but naming A in full, and a legacy-style label cut to 63: neither is B's
    api.device_taint_rules["forged"] = {**mine, "metadata": {**mine["metadata"], "name": "forged", "labels": {
        **mine["metadata"]["labels"], "gpu-npd.io/node-hash": node_hash(LONG_B)}}}
    api.device_taint_rules["cut"] = {"metadata": {"name": "cut", "labels": {
        "app.kubernetes.io/managed-by": "gpu-npd", "gpu-npd.io/node": LONG_B[:63]}},
        "spec": mine["spec"]}
    b = _agent(tmp_path, api, LONG_B, taint_hold_down_seconds=0)
    wait_until(lambda: api.conditions(LONG_B).get("GPUUnhealthy", {}).get("status") == "False", "B's first write")
    def b_listed():  # where B's list of its rules stands among the requests (None: not yet)
        return next((i for i, r in enumerate(list(api.requests))
                     if r[0] == "GET" and node_hash(LONG_B) in r[2].get("labelSelector", "")), None)
    wait_until(lambda: b_listed() is not None, "B's list of its rules", timeout=30)
    # what B deletes, it deletes right after that list, in the same pass; the node taints' read of B's Node follows
    # the fencer's sync in that pass (agent/kube/sink.py _write_taints), so once it came any DELETE came before it
    wait_until(lambda: any(r[:2] == ("GET", f"/api/v1/nodes/{LONG_B}") for r in list(api.requests)[b_listed():]),
               "B's read of its Node after the fencer's sync", timeout=30)
    assert {"forged", "cut", mine["metadata"]["name"]} <= set(api.device_taint_rules)
    assert not [r for r in api.requests if r[0] == "DELETE" and "devicetaintrules" in r[1]]
    assert a.stop()[0] == 0 and b.stop()[0] == 0


def test_a_foreign_rule_holding_our_name_is_not_fenced(api, tmp_path: Path):
    """Issue 31: a 409 on a rule name someone else holds counted as fenced, and the GPU stayed schedulable. Now
    the rule under the name is read: not this node's, so the GPU is not fenced, it is said (Event), and the
    node taint is the fallback."""
    _serve_dra(api)
    api.add_node("gpu-node-1", gpus=0)
    name = _name("gpu-node-1")
    squatter = {**FOREIGN, "metadata": {"name": name, "labels": {"team": "someone"}}}
    api.device_taint_rules[name] = squatter
    a = _run(tmp_path, api, max_tainted_fraction=0.5)
    a.write(f"3,1,1000,-;{XID79}\n")
    wait_until(lambda: [t["key"] for t in api.taints("gpu-node-1")] == ["gpu-npd.io/GPUUnhealthy"], "node taint")
    wait_until(lambda: any(e.get("reason") == "DeviceTaintRuleNameTaken" for e in api.events()), "the Event")
    assert api.device_taint_rules[name] == squatter
    assert a.stop()[0] == 0
    assert "not this node's" in a.stderr()


def test_a_budget_refusal_is_a_refusal_not_a_node_taint(api, tmp_path: Path):
    """Issue 31: a budget refusal fell back to tainting the whole node. Now the GPU is left unfenced, the node
    untainted, and the refusal is said: a warning, a Node Event and gpu_npd_taint_held_by_budget."""
    _serve_dra(api)  # 4 GPUs: 10% -> 1, spent by node 2's rule
    api.device_taint_rules["gpu-npd-gpu-node-2-gpu-0"] = {
        "metadata": {"name": "gpu-npd-gpu-node-2-gpu-0", "labels": {"app.kubernetes.io/managed-by": "gpu-npd",
                                                                     "gpu-npd.io/node": "gpu-node-2"}},
        "spec": {"deviceSelector": {"driver": DRIVER, "pool": "gpu-node-2", "device": "gpu-0"}}}
    api.add_node("gpu-node-1", gpus=0)
    a = _run(tmp_path, api)
    a.write(f"3,1,1000,-;{XID79}\n")
    wait_until(lambda: any(e.get("reason") == "DeviceTaintHeldByBudget" for e in api.events()), "the Event")
    wait_until(lambda: a.value("gpu_npd_taint_held_by_budget", taint="gpu-npd.io/unhealthy:gpu-0") == 1, "gauge")
    assert api.conditions("gpu-node-1")["GPUUnhealthy"]["status"] == "True"
    # the Event went out at the end of the pass that refused (KubernetesSink.sync: the node taints, then the Events),
    # so a node taint that pass wrote would stand already
    assert api.taints("gpu-node-1") == [] and _name("gpu-node-1") not in api.device_taint_rules
    assert a.stop()[0] == 0
    assert "held back: the GPU taint budget" in a.stderr()


def test_racing_agents_never_fence_more_than_the_budget(api, tmp_path: Path):
    """Issue 31: three agents racing fenced 17 of 80 GPUs against a budget of 8. Four real agents, 20 faulty
    GPUs each (80 in the pool, 10% -> 8): the grants are compare-and-swapped on one ConfigMap, so exactly 8
    rules stand, at no moment more, and no node is tainted for the GPUs refused.  "At no moment": counted on each
    rule the API double stores (a thread that sampled every 2 ms could miss a short one)."""
    api.dra_versions = {"v1": ["resourceslices"], "v1alpha3": ["devicetaintrules"]}
    nodes = [f"gpu-node-{i}" for i in range(4)]
    pcis = [f"0000:{0x10 + i:02x}:00" for i in range(20)]
    api.resource_slices = [_slice(n, [(f"GPU-{n}-{i:04d}", f"{p}.0") for i, p in enumerate(pcis)]) for n in nodes]
    for n in nodes:
        api.add_node(n, gpus=0)
    most = [0]

    class Rules(dict):  # the double's store of rules, which counts the most standing as each is created
        def __setitem__(self, name, rule):
            super().__setitem__(name, rule)
            most[0] = max(most[0], len(self))

    api.device_taint_rules = Rules()
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415
    with ThreadPoolExecutor(4) as pool:
        # event_burst: each agent records 20 Xid Events before its refusals; the default 25 could hold them back minutes
        agents = list(pool.map(lambda n: _agent(tmp_path, api, n, qps=50, burst=50, event_burst=200), nodes))
    batch = "".join(_xid79(p, i + 1) for i, p in enumerate(pcis))
    for a in agents:
        a.write(batch)
    wait_until(lambda: all(api.conditions(n).get("GPUUnhealthy", {}).get("status") == "True" for n in nodes),
               "every node's condition", timeout=60)
    wait_until(lambda: len(api.device_taint_rules) == 8, "the budget's 8 rules", timeout=60)
    held = lambda a: sum(1 for line in a.metrics().splitlines()  # noqa: E731
                         if line.startswith('gpu_npd_taint_held_by_budget{taint="gpu-npd.io/unhealthy:') and
                         line.endswith(" 1.0"))
    wait_until(lambda: sum(held(a) for a in agents) == 72, "72 refusals said (the gauge)", timeout=60)
    # the gauge is set when the refusal is decided; its Event is posted by the event writer's own thread after it
    wait_until(lambda: any(e.get("reason") == "DeviceTaintHeldByBudget" for e in api.events()), "a refusal's Event")
    # no wait for "nothing more": an agent creates its granted rules before it sets its refusals' gauge (DeviceFencer
    # .sync), so with 72 refusals set every pass of the race has created what it will; a held GPU is asked for again
    # only at its recheck, at a random time within 60 s (BUDGET_RECHECK_SECONDS), which no short wait would catch
    assert most[0] == 8 and len(api.device_taint_rules) == 8
    (cm,) = api.configmaps.values()
    assert sorted(cm["data"]) == sorted(api.device_taint_rules)
    assert all(api.taints(n) == [] for n in nodes)
    assert all(a.stop()[0] == 0 for a in agents)
