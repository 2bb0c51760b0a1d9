"""`gpu-npd cleanup` against the API double with the real kubernetes client: gpu-npd's own writer (the agent's
KubernetesSink, enforce mode, the eks repair profile, the repair annotation, DRA device taints) leaves its traces
on nodes; cleanup (the CLI) removes every one of them and nothing else: other writers' taints, conditions,
annotations, labels, DeviceTaintRules and pod conditions stay as they were."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from click.testing import CliRunner

from agent.config import load
from agent.health import HealthEngine
from agent.kube.cleanup import Owned, plan_node, plan_pod
from agent.kube.sink import KubernetesSink
from apiserver_double import ApiDouble
from fakeclock import Clock
from gpunpd.cli import main
from kubeapi.client import make_api
from parsers import Classifier
from test_dra import FOREIGN, _name, _serve_dra

XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
OTHER_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
OTHER_CONDITION = {"type": "KernelDeadlock", "status": "False", "reason": "KernelHasNoDeadlock",
                   "message": "kernel has no deadlock"}  # node-problem-detector's
EKS_AGENT_AHR = {"type": "AcceleratedHardwareReady", "status": "True", "reason": "NvidiaAcceleratedHardwareIsReady",
                 "message": "Monitoring for the Nvidia system is active"}  # synthetic: another writer's condition


@pytest.fixture
def api():
    with ApiDouble() as d:
        yield d


def agent_writes(api, node: str, dra: bool = False) -> None:
    """What a gpu-npd agent in enforce mode leaves on its node after an Xid 79 (the real sink and fencer)."""
    clock = Clock()
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": []})
    s = replace(cfg.kube, api_server=api.url, coalesce_seconds=0.05, repair_profile="eks", repair_annotation=True,
                dra_device_taints=dra, max_tainted_fraction=1.0)
    engine = HealthEngine(cfg, clock)
    sink = KubernetesSink(make_api(s), node, s, "enforce", clock=clock)  # with dra: a DeviceTaintRule, no node taint
    sink.apply(engine.snapshot(engine.observe(Classifier().classify(XID79))))
    sink.sync()


def cleanup(api, *args: str):
    return CliRunner().invoke(main, ["cleanup", "--api-server", api.url, *args])


def test_cleanup_removes_every_trace_and_touches_nothing_else(api):
    _serve_dra(api)
    before = api.add_node("gpu-node-1", labels={"gpu-npd.io/do-not-repair": "false"}, taints=[OTHER_TAINT],
                          conditions=[{"type": "Ready", "status": "True"}, OTHER_CONDITION])
    before["metadata"]["annotations"] = {"example.com/keep": "x"}
    before = copy.deepcopy(before)
    api.add_node("gpu-node-3", conditions=[{"type": "Ready", "status": "True"}, EKS_AGENT_AHR])
    untouched = api.node("gpu-node-3")
    api.add_node("gpu-node-2")
    before_2 = api.node("gpu-node-2")
    api.add_node("cpu-node-1", taints=[{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}])
    other_pod = api.add_pod("train", "worker-0", "gpu-node-1", gpus=8)
    other_pod["status"]["conditions"] = [{"type": "Ready", "status": "True"},
                                         {"type": "example.com/Checkpointed", "status": "True"}]
    our_pod = api.add_pod("train", "worker-1", "gpu-node-1", gpus=8)
    our_pod["status"]["conditions"] = [{"type": "Ready", "status": "True"},
                                       {"type": "gpu-npd.io/GPUFault", "status": "True", "reason": "Xid79FallenOffBus"}]

    agent_writes(api, "gpu-node-1")
    agent_writes(api, "gpu-node-2", dra=True)
    node = api.node("gpu-node-1")
    assert {t["key"] for t in node["spec"]["taints"]} == {"nvidia.com/gpu", "gpu-npd.io/GPUUnhealthy"}
    assert {"GPUUnhealthy", "AcceleratedHardwareReady"} <= set(api.conditions("gpu-node-1"))
    assert "gpu-npd.io/repair" in node["metadata"]["annotations"]
    assert _name("gpu-node-2") in api.device_taint_rules and "GPUUnhealthy" in api.conditions("gpu-node-2")
    # the budgets' grants: node 1's taint, node 2's DeviceTaintRule
    assert sorted(cm["metadata"]["name"] for cm in api.configmaps.values()) == ["gpu-npd-dra-budget",
                                                                                "gpu-npd-taint-budget"]
    with api.lock:  # fabric-check's condition (written by the fabric check, not the agent) is gpu-npd's too
        api.nodes["gpu-node-1"]["status"]["conditions"].append(
            {"type": "FabricCheckFailed", "status": "True", "reason": "LowBusBandwidth", "message": "12 GB/s"})
        api.nodes.touch("gpu-node-1")
    node = api.node("gpu-node-1")

    dry = cleanup(api)  # the default: a dry run that lists, changes nothing
    assert dry.exit_code == 0, dry.output
    assert "would remove taint gpu-npd.io/GPUUnhealthy=Xid79FallenOffBus:NoSchedule from node/gpu-node-1" in dry.output
    assert "would remove DeviceTaintRule" in dry.output and "would remove pod condition gpu-npd.io/GPUFault" in dry.output
    assert "would remove condition FabricCheckFailed (True, LowBusBandwidth) from node/gpu-node-1" in dry.output
    assert "would remove ConfigMap (budget: 1 grant(s)) from configmap/gpu-npd/gpu-npd-dra-budget" in dry.output
    assert "would remove ConfigMap (budget: 1 grant(s)) from configmap/gpu-npd/gpu-npd-taint-budget" in dry.output
    assert "dry run: nothing changed" in dry.output.splitlines()[-1]
    assert api.node("gpu-node-1") == node and api.pod_status_patches == []

    done = cleanup(api, "--apply")
    assert done.exit_code == 0, done.output
    for name, was in (("gpu-node-1", before), ("gpu-node-2", before_2)):
        after = api.node(name)
        for obj in (after, was):
            obj["metadata"].pop("resourceVersion")
        assert after == was, name  # every trace gone: the node is as it was before the agent wrote
    assert api.node("gpu-node-3") == untouched  # another writer's AcceleratedHardwareReady stays
    assert api.taints("cpu-node-1") == [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
    assert set(api.device_taint_rules) == {FOREIGN["metadata"]["name"]} and not api.configmaps
    assert [c["type"] for c in api.pods[("train", "worker-1")]["status"]["conditions"]] == ["Ready"]
    assert api.pods[("train", "worker-0")]["status"]["conditions"] == other_pod["status"]["conditions"]
    assert "on 2 node(s) removed" in done.output.splitlines()[-1]

    again = cleanup(api, "--apply")  # idempotent: nothing left to do, nothing written
    patches = (api.node_patches, api.status_patches)
    assert again.exit_code == 0 and "0 change(s)" in again.output
    assert (api.node_patches, api.status_patches) == patches


def test_a_taint_added_by_someone_else_meanwhile_survives_the_conflict(api):
    api.add_node("gpu-node-1", taints=[OTHER_TAINT])
    agent_writes(api, "gpu-node-1")
    added = {"key": "example.com/drain", "effect": "NoSchedule"}
    api.before_node_patch.append(lambda node: node["spec"]["taints"].append(added))  # a concurrent writer
    res = cleanup(api, "--apply")
    assert res.exit_code == 0, res.output
    assert api.taints("gpu-node-1") == [OTHER_TAINT, added] and api.conflicts == 1


def test_api_errors_are_one_line_each_and_exit_1(api, caplog):
    api.add_node("gpu-node-1")
    agent_writes(api, "gpu-node-1")
    api.set_fault(status=503)
    res = cleanup(api, "--apply")
    assert res.exit_code == 1
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert errors and all("\n" not in e and "503" in e for e in errors)


def test_wait_for_pods_refuses_while_agents_run(api):
    api.add_pod("gpu-npd", "gpu-npd-x7k2p", "gpu-node-1")["metadata"]["labels"] = {"app.kubernetes.io/name": "gpu-npd"}
    res = cleanup(api, "--apply", "--wait-for-pods", "gpu-npd/app.kubernetes.io/name=gpu-npd", "--wait-seconds", "0")
    assert res.exit_code == 1 and "still running" in res.output
    assert cleanup(api, "--wait-for-pods", "nonsense").exit_code == 2


def test_owned_comes_from_the_agents_configs(tmp_path):
    conf = tmp_path / "pool.yaml"
    conf.write_text("kubernetes: {taint_prefix: example.org/, repair_annotation_key: example.org/repair}\n")
    owned = Owned.of([load(str(conf), env={}), load(None, env={})])
    node = {"metadata": {"name": "n", "annotations": {"example.org/repair": "{}", "example.org/other": "x"}},
            "spec": {"taints": [{"key": "example.org/GPUUnhealthy", "effect": "NoSchedule"},
                                {"key": "example.com/other", "effect": "NoSchedule"}]},
            "status": {"conditions": [{"type": "GPUDegraded", "status": "False"},
                                      {"type": "MemoryPressure", "status": "False"}]}}
    assert [(c.what, c.detail.split(" ")[0]) for c in plan_node(node, owned)] == [
        ("taint", "example.org/GPUUnhealthy=:NoSchedule"), ("condition", "GPUDegraded"),
        ("annotation", "example.org/repair")]
    pod = {"metadata": {"name": "p", "namespace": "ns"},
           "status": {"conditions": [{"type": "gpu-npd.io/GPUFault"}, {"type": "example.org/Fault"}]}}
    assert [c.detail for c in plan_pod(pod, owned)] == ["gpu-npd.io/GPUFault", "example.org/Fault"]


def test_owned_is_what_the_writers_name():
    """The pod fault condition is the writer's constant, not under the configured prefix: still ours with any
    prefix.  A kubelet condition type is never ours (kubeapi/reserved.py), as the condition writer never writes it."""
    pool = replace(load(None, env={}), conditions={"GPUDegraded": None, "Ready": None})
    pool = replace(pool, kubernetes=replace(pool.kube, taint_prefix="example.org/"))
    owned = Owned.of([pool])
    pod = {"metadata": {"name": "p", "namespace": "ns"},
           "status": {"conditions": [{"type": "gpu-npd.io/GPUFault"}, {"type": "Ready"}]}}
    assert [c.detail for c in plan_pod(pod, owned)] == ["gpu-npd.io/GPUFault"]
    node = {"metadata": {"name": "n"}, "status": {"conditions": [{"type": "GPUDegraded"}, {"type": "Ready"}]}}
    assert [c.detail.split(" ")[0] for c in plan_node(node, owned)] == ["GPUDegraded"]


def test_an_unreachable_api_server_is_no_cluster_one_line_exit_2(api, caplog):
    """Refused, or a connection dropped without a reply: nothing could be done, which is "no cluster" (exit 2, as
    with no kubeconfig), one line naming the server; it was one ERROR line per step and exit 1, a partial failure's
    code.  A server that answers, even 503 to everything, is reached: its refusals are counted (exit 1, above)."""
    import socket

    with socket.socket() as s:  # a port nothing listens on: the connection is refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    res = CliRunner().invoke(main, ["cleanup", "--apply", "--api-server", f"http://127.0.0.1:{port}"])
    assert isinstance(res.exception, SystemExit), res.exception  # urllib3's NewConnectionError is no OSError
    assert res.exit_code == 2
    assert res.output.splitlines() == [res.output.strip()] and res.output.startswith(
        f"gpu-npd cleanup: no cluster: API server http://127.0.0.1:{port} unreachable: NewConnectionError")
    assert "refused" in res.output
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    api.add_node("gpu-node-1")
    api.set_fault(drop=True)
    res = cleanup(api, "--apply", "--wait-for-pods", "gpu-npd/app.kubernetes.io/name=gpu-npd")
    assert res.exit_code == 2 and len(res.output.splitlines()) == 1 and "unreachable" in res.output, res.output


def test_pods_that_cannot_be_listed_for_wait_for_pods_are_one_line_exit_1(api):
    """--wait-for-pods whose pods the server refuses to list (RBAC): whether the agents stopped is unknown, so
    nothing is cleaned; one line naming the refusal, exit 1 (was a traceback)."""
    api.set_fault(forbid=("GET", "/api/v1/namespaces/gpu-npd/pods", "pods is forbidden"))
    res = cleanup(api, "--apply", "--wait-for-pods", "gpu-npd/app.kubernetes.io/name=gpu-npd")
    assert isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 1
    assert res.output.splitlines() == [
        "gpu-npd cleanup: --wait-for-pods: cannot list pods app.kubernetes.io/name=gpu-npd in gpu-npd: HTTP 403 "
        "Forbidden: pods is forbidden"]


def test_wait_for_pods_bounds_each_list_by_the_request_timeout(api):
    """Each list of the agents' pods is one request under the timeout every other call of cleanup has (was none: an
    API server that accepts and never answers held the command, the chart's hook with it, for ever)."""
    import time

    from agent.kube.cleanup import wait_for_pods_gone
    from kubeapi.retry import api_errors

    api.set_fault(latency=5.0)
    began = time.monotonic()
    with pytest.raises(api_errors()):
        wait_for_pods_gone(make_api(type("S", (), {"api_server": api.url, "kubeconfig": ""})(), required=True),
                           "gpu-npd", "app.kubernetes.io/name=gpu-npd", 60, timeout=0.5)
    assert time.monotonic() - began < 4.0
