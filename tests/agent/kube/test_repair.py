"""Remediation hand-off: the `eks` condition profile (Karpenter / EKS node auto repair), the repair
annotation, the do-not-repair opt-out; unit and through the real `gpu-npd run` process."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from agent.config import ConfigError, load
from agent.health import HealthEngine
from kubeapi.client import make_api
from kubeapi.events import iso
from agent.kube.repair import profile_conditions, repair_annotation
from agent.kube.sink import KubernetesSink
from apiserver_double import ApiDouble
from fakeclock import Clock
from harness import AgentProc, wait_until
from parsers import Classifier

# Lines as the driver prints them (shape of tests/agent/kube/test_kube.py's XID79, itself from the NVIDIA Xid docs).
XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
XID48 = "NVRM: Xid (PCI:0000:5d:00): 48, pid=1234, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0."  # synthetic: Xid 48 shape
AHR = "AcceleratedHardwareReady"
ANNOTATION = "gpu-npd.io/repair"


@pytest.fixture
def api():
    with ApiDouble() as d:
        yield d


def _engine(clock):
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": []})
    return cfg, HealthEngine(cfg, clock)


def test_profile_reason_changes_keep_the_transition_time():
    clock = Clock()
    _, engine = _engine(clock)
    prev = profile_conditions("eks", [], {}, clock(), False)
    assert prev[AHR].status is True and prev[AHR].reason == "NvidiaAcceleratedHardwareIsReady"
    engine.observe(Classifier().classify(XID48))
    clock.t += 5
    c1 = profile_conditions("eks", list(engine.problems.values()), prev, clock(), False)
    assert c1[AHR].status is False and c1[AHR].reason == "NvidiaXID48Error"
    engine.observe(Classifier().classify(XID79))
    clock.t += 60
    c2 = profile_conditions("eks", list(engine.problems.values()), c1, clock(), False)
    assert c2[AHR].reason in ("NvidiaXID79Error", "NvidiaXID48Error")
    assert c2[AHR].last_transition == c1[AHR].last_transition  # the repair timer keeps running
    opted = profile_conditions("eks", list(engine.problems.values()), c2, clock(), True)
    assert opted[AHR].status is True and opted[AHR].reason == "RepairOptedOut"


def test_repair_annotation_names_action_and_gpus():
    clock = Clock()
    _, engine = _engine(clock)
    assert repair_annotation([]) is None
    engine.observe(Classifier().classify(XID79))
    body = json.loads(repair_annotation(list(engine.problems.values())))
    assert body["action"] and body["reason"] == "NvidiaXID79Error"
    assert [g["pci"] for g in body["gpus"]] == ["0000:5d:00"]


def test_profile_is_opt_in_and_checked():
    cfg = load(env={}, flags={})
    assert cfg.kube.repair_profile == "off" and cfg.kube.repair_annotation is False
    with pytest.raises(ConfigError, match="kubernetes.repair_profile"):
        load(env={}, flags={"kubernetes": {"repair_profile": "gke"}})


def test_sink_off_by_default_writes_no_profile(api):
    api.add_node("gpu-1")
    clock = Clock()
    cfg, engine = _engine(clock)
    s = replace(cfg.kube, api_server=api.url)
    sink = KubernetesSink(make_api(s), "gpu-1", s, "observe", clock=clock)
    sink.apply(engine.snapshot(engine.observe(Classifier().classify(XID79))))
    sink.sync()
    assert AHR not in api.conditions("gpu-1")
    assert ANNOTATION not in api.node("gpu-1")["metadata"].get("annotations", {})


def test_first_sync_writes_the_opt_out_it_just_read(api):
    """The first sync reads the Node (KubernetesSink._read_node) before it writes the conditions: a node labelled
    do-not-repair from the start gets RepairOptedOut in its first write, not one heartbeat later."""
    api.add_node("gpu-1", labels={"gpu-npd.io/do-not-repair": "true"})
    clock = Clock()
    cfg, engine = _engine(clock)
    s = replace(cfg.kube, api_server=api.url, repair_profile="eks")
    sink = KubernetesSink(make_api(s), "gpu-1", s, "observe", clock=clock)
    sink.apply(engine.snapshot(engine.observe(Classifier().classify(XID79))))
    sink.sync()
    assert api.conditions("gpu-1")[AHR]["reason"] == "RepairOptedOut"
    assert api.conditions("gpu-1")["GPUUnhealthy"]["status"] == "True"


def test_nothing_pending_after_a_write_with_the_profile_on(api):
    """With the repair profile on, a snapshot just written is not pending: the shutdown's last try (KubernetesSink.run)
    writes nothing more (the profile's conditions were compared as missing, so every shutdown wrote again)."""
    api.add_node("gpu-1")
    clock = Clock()
    cfg, engine = _engine(clock)
    s = replace(cfg.kube, api_server=api.url, repair_profile="eks")
    sink = KubernetesSink(make_api(s), "gpu-1", s, "observe", clock=clock)
    snap = engine.snapshot(engine.observe(Classifier().classify(XID79)))
    sink.apply(snap)
    sink.sync()
    assert AHR in api.conditions("gpu-1") and not sink.conditions.pending(snap)
    clock.t += 5
    later = engine.snapshot(engine.observe(Classifier().classify(XID48)))
    assert sink.conditions.pending(later)


def _run(tmp_path: Path, api, **kube) -> AgentProc:
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"mode": "observe", "nvml": "off",
                                    "kubernetes": {"api_server": api.url, "coalesce_seconds": 0.05, **kube}}))
    return AgentProc(tmp_path, "--config", str(conf))


def test_process_eks_profile_and_annotation(api, tmp_path: Path):
    api.add_node("gpu-node-1", gpus=0)["metadata"]["annotations"] = {"example.com/keep": "x"}
    a = _run(tmp_path, api, repair_profile="eks", repair_annotation=True, heartbeat_seconds=1)
    ready = wait_until(lambda: api.conditions("gpu-node-1").get(AHR), "AcceleratedHardwareReady")
    assert ready["status"] == "True" and ready["reason"] == "NvidiaAcceleratedHardwareIsReady"
    a.write(f"3,1,1000,-;{XID48}\n")
    bad = wait_until(lambda: (c := api.conditions("gpu-node-1").get(AHR)) and c["status"] == "False" and c, "False")
    assert bad["reason"] == "NvidiaXID48Error"
    since = bad["lastTransitionTime"]
    ann = json.loads(wait_until(lambda: api.node("gpu-node-1")["metadata"].get("annotations", {}).get(ANNOTATION), "annotation"))
    assert ann["gpus"][0]["pci"] == "0000:5d:00" and ann["action"]
    # a later second (the stamps' resolution), waited for, not slept: a moved transition time would show
    wait_until(lambda: iso(time.time()) > since, "a second later than the transition")
    a.write(f"3,2,2000,-;{XID79}\n")
    wait_until(lambda: api.conditions("gpu-node-1")[AHR]["message"] != bad["message"], "reason/message update")
    assert api.conditions("gpu-node-1")[AHR]["status"] == "False"
    assert api.conditions("gpu-node-1")[AHR]["lastTransitionTime"] == since
    assert api.node("gpu-node-1")["metadata"]["annotations"]["example.com/keep"] == "x"  # others' kept
    assert "GPUUnhealthy" in api.conditions("gpu-node-1")  # our own conditions stand beside the profile's
    with api.lock:  # the operator opts the node out: seen at the next heartbeat (1 s here)
        api.nodes["gpu-node-1"]["metadata"]["labels"]["gpu-npd.io/do-not-repair"] = "true"
    c = wait_until(lambda: (c := api.conditions("gpu-node-1")[AHR]) and c["reason"] == "RepairOptedOut" and c, "opt-out")
    assert c["status"] == "True"  # the repair trigger is suppressed ...
    assert api.conditions("gpu-node-1")["GPUUnhealthy"]["status"] == "True"  # ... the node still reports its own
    assert a.stop()[0] == 0


EXAMPLES = Path(__file__).resolve().parents[3] / "deploy" / "examples"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*/config.yaml")), ids=lambda p: p.parent.name)
def test_example_configs_load(path):
    load(str(path), env={})


def _rule_taints(rule: dict, node: dict) -> bool:
    """The node-readiness-controller's rule semantics (its docs): the taint stands unless every listed
    condition has its requiredStatus; an absent condition is not satisfied."""
    conds = {c["type"]: c["status"] for c in node["status"].get("conditions", [])}
    return not all(conds.get(c["type"]) == c["requiredStatus"] for c in rule["spec"]["conditions"])


def test_process_readiness_gate_publishes_conditions_only(api, tmp_path: Path):
    rule = yaml.safe_load((EXAMPLES / "node-readiness-controller" / "nodereadinessrule.yaml").read_text())
    cfg = load(str(EXAMPLES / "node-readiness-controller" / "config.yaml"), env={})
    assert cfg.mode == "observe"
    assert {c["type"] for c in rule["spec"]["conditions"]} <= set(cfg.conditions)
    node = api.add_node("gpu-node-1", gpus=0)
    assert rule["spec"]["nodeSelector"]["matchLabels"].items() <= node["metadata"]["labels"].items()
    assert _rule_taints(rule, api.node("gpu-node-1"))  # before gpu-npd reports: the gate holds
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({**yaml.safe_load((EXAMPLES / "node-readiness-controller" / "config.yaml").read_text()),
                                    "nvml": "off", "kubernetes": {"api_server": api.url, "coalesce_seconds": 0.05}}))
    a = AgentProc(tmp_path, "--config", str(conf))
    wait_until(lambda: "GPUUnhealthy" in api.conditions("gpu-node-1"), "GPUUnhealthy written")
    assert not _rule_taints(rule, api.node("gpu-node-1"))  # healthy: the controller lifts its taint
    a.write(f"3,1,1000,-;{XID79}\n")
    wait_until(lambda: api.conditions("gpu-node-1")["GPUUnhealthy"]["status"] == "True", "GPUUnhealthy True")
    assert _rule_taints(rule, api.node("gpu-node-1"))  # the controller taints
    assert api.taints("gpu-node-1") == []  # gpu-npd itself never does in observe mode
    assert a.stop()[0] == 0


def test_an_nvlink_problem_names_its_gpu_by_the_gpus_address():
    """An NVLink's problem (subject `gpu:<pci>/nvlink<n>`, NVLinkDown asks for a GPU reset) names its GPU: the
    annotation gave `pci: 0000:5d:00/nvlink3`, a second GPU beside the one its Xid names, and the DRA fencing, the
    GPU fault and stragglers keyed it by that text (parsers.gpus.problem_gpu); the GPU's address now, one entry."""
    from parsers.gpus import problem_gpu

    clock = Clock()
    _, engine = _engine(clock)
    engine.observe(Classifier().classify(XID79))
    (xid,) = engine.problems.values()
    link = replace(xid, id="nvlink", subject="gpu:0000:5d:00/nvlink3", kind="nvlink", condition="NVLinkUnhealthy",
                   reason="NVLinkDown", action="RESET_GPU", details={"uuid": "GPU-5d", "gpu_index": "3", "link": "3"})
    assert problem_gpu(link) == ("0000:5d:00", "GPU-5d")
    body = json.loads(repair_annotation([xid, link]))
    assert [g["pci"] for g in body["gpus"]] == ["0000:5d:00"]
    lost = replace(link, subject="gpu:nvml2/nvlink3", details={"gpu_index": "2"})
    assert json.loads(repair_annotation([lost]))["gpus"] == [{"pci": "", "index": 2}]
