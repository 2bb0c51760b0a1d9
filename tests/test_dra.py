"""Per-GPU fencing with DRA device taints (KEP-5055) against the API double: ResourceSlices as NVIDIA's
DRA driver publishes them (attributes `uuid`, `pcieBusID`; devices `gpu-<minor>`), DeviceTaintRules
created / deleted only under gpu-npd's owner label, the GPU budget, discovery and fallback."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from agent.config import ConfigError, load
from agent.health import HealthEngine
from kubeapi.client import make_api
from agent.kube.dra import DeviceFencer, choose_versions, match_devices
from apiserver_double import ApiDouble
from fakeclock import Clock
from harness import AgentProc, wait_until
from parsers import Classifier

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
    f = DeviceFencer(make_api(s), "gpu-node-1", s, lambda: None, clock, counts.append)
    f.sync(list(engine.problems.values()))
    rule = api.device_taint_rules["gpu-npd-gpu-node-1-gpu-0"]
    assert rule["spec"]["deviceSelector"] == {"driver": DRIVER, "pool": "gpu-node-1", "device": "gpu-0"}
    assert rule["spec"]["taint"]["effect"] == "NoSchedule" and f.fenced == {"0000:5d:00"}
    f.sync([])  # the problem cleared: kept through the hold-down ...
    assert "gpu-npd-gpu-node-1-gpu-0" in api.device_taint_rules
    clock.t += 301
    f.sync([])  # ... then removed; the admin's rule is never touched
    assert set(api.device_taint_rules) == {"admin-maintenance"} and counts == ["devicetaintrules"] * 2


def test_gpu_budget(api):
    _serve_dra(api)  # 4 GPUs in the pool: 10% -> at least one may be tainted, not two
    api.device_taint_rules["gpu-npd-gpu-node-2-gpu-0"] = {
        "metadata": {"name": "gpu-npd-gpu-node-2-gpu-0", "labels": {"app.kubernetes.io/managed-by": "gpu-npd",
                                                                     "gpu-npd.io/node": "gpu-node-2"}}}
    clock = Clock()
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": []})
    s = replace(cfg.kube, api_server=api.url, dra_device_taints=True)
    engine = HealthEngine(cfg, clock)
    engine.observe(Classifier().classify(XID79))
    f = DeviceFencer(make_api(s), "gpu-node-1", s, lambda: None, clock, lambda _: None)
    f.sync(list(engine.problems.values()))
    assert "gpu-npd-gpu-node-1-gpu-0" not in api.device_taint_rules and f.fenced == set()


def _run(tmp_path: Path, api, **kube) -> AgentProc:
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"mode": "enforce", "nvml": "off", "kubernetes": {
        "api_server": api.url, "coalesce_seconds": 0.05, "dra_device_taints": True, **kube}}))
    return AgentProc(tmp_path, "--config", str(conf))


def test_process_fences_one_gpu_not_the_node(api, tmp_path: Path):
    _serve_dra(api)
    api.add_node("gpu-node-1", gpus=0)  # no GPU expected from capacity: no GPUCountMismatch on the node
    a = _run(tmp_path, api, max_tainted_fraction=0.5)
    a.write(f"3,1,1000,-;{XID79}\n")
    wait_until(lambda: "gpu-npd-gpu-node-1-gpu-0" in api.device_taint_rules, "DeviceTaintRule")
    wait_until(lambda: api.conditions("gpu-node-1").get("GPUUnhealthy", {}).get("status") == "True", "condition")
    time.sleep(0.5)
    assert api.taints("gpu-node-1") == []  # the node stays schedulable for its healthy GPU
    rule = api.device_taint_rules["gpu-npd-gpu-node-1-gpu-0"]
    assert rule["apiVersion"] == "resource.k8s.io/v1alpha3" and rule["spec"]["taint"]["key"] == "gpu-npd.io/unhealthy"
    assert api.device_taint_rules["admin-maintenance"] == FOREIGN
    assert a.stop()[0] == 0


def test_process_without_dra_falls_back_to_node_taints(api, tmp_path: Path):
    api.add_node("gpu-node-1", gpus=0)  # the double serves no resource.k8s.io
    a = _run(tmp_path, api)
    a.write(f"3,1,1000,-;{XID79}\n")
    wait_until(lambda: [t["key"] for t in api.taints("gpu-node-1")] == ["gpu-npd.io/GPUUnhealthy"], "node taint")
    a.write(f"3,2,2000,-;{XID79.replace('5d', '5e')}\n")
    time.sleep(0.5)  # a second faulty GPU: discovery is not repeated, the absence not said again
    assert a.stop()[0] == 0
    err = a.proc.stderr.read().decode()
    assert err.count("is not served by this cluster") == 1 and "falling back to node taints" in err
