"""The agent's ValidatingAdmissionPolicy on Nodes (deploy/base and the chart): only its own node, and on
nodes/status only gpu-npd's condition types (issue 31 item 4: a condition named Ready wrote Ready=False and made
the node NotReady). Its CEL is evaluated by cel-python as the API server would (tests/cel_admission.py); its
list of condition types is the code's (agent/kube/repair.py own_condition_types)."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from agent.kube.repair import own_condition_types
from cel_admission import admitted
from test_deploy import DEPLOY
from test_helm import by_key, render

AGENT = "system:serviceaccount:gpu-npd:gpu-npd"
BASE_VAP = next(d for d in yaml.safe_load_all((DEPLOY / "base" / "daemonset.yaml").read_text())
                if d and d["kind"] == "ValidatingAdmissionPolicy")


def ours_of(vap: dict) -> list[str]:
    (expr,) = [v["expression"] for v in vap["spec"]["variables"] if v["name"] == "ours"]
    assert re.fullmatch(r"\[('[A-Za-z0-9]+'(, )?)*\]", expr), expr
    return re.findall(r"'([^']+)'", expr)


def test_the_manifests_list_is_the_codes_table():
    assert ours_of(BASE_VAP) == list(own_condition_types())
    chart = by_key(render({}))[("ValidatingAdmissionPolicy", "gpu-npd-own-node-only")]
    assert ours_of(chart) == list(own_condition_types())
    assert chart["spec"]["variables"][1:] == BASE_VAP["spec"]["variables"][1:]
    assert chart["spec"]["validations"] == BASE_VAP["spec"]["validations"]
    extra = by_key(render({"rbac": {"extraConditionTypes": ["SiteCheckFailed"]}}))
    assert ours_of(extra[("ValidatingAdmissionPolicy", "gpu-npd-own-node-only")]) == \
        [*own_condition_types(), "SiteCheckFailed"]


def _node(*conditions: dict, taints: list | None = None) -> dict:
    return {"metadata": {"name": "gpu-node-1"}, "spec": {"taints": taints or []},
            "status": {"capacity": {"nvidia.com/gpu": "8"},
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}, *conditions]}}


OLD = _node({"type": "GPUUnhealthy", "status": "False", "reason": "GPUIsHealthy"},
            {"type": "KernelDeadlock", "status": "False", "reason": "KernelHasNoDeadlock"})  # NPD's


def _set(node: dict, ctype: str, status: str, reason: str = "X") -> dict:
    node = copy.deepcopy(node)
    conds = [c for c in node["status"]["conditions"] if c["type"] != ctype]
    node["status"]["conditions"] = conds + [{"type": ctype, "status": status, "reason": reason}]
    return node


def _drop(node: dict, ctype: str) -> dict:
    node = copy.deepcopy(node)
    node["status"]["conditions"] = [c for c in node["status"]["conditions"] if c["type"] != ctype]
    return node


@pytest.mark.parametrize("user, claim, sub, new, ok", [
    (AGENT, "gpu-node-1", "status", _set(OLD, "GPUUnhealthy", "True", "Xid79FallenOffBus"), True),  # its own
    (AGENT, "gpu-node-1", "status", _set(OLD, "AcceleratedHardwareReady", "False"), True),  # the eks profile's
    (AGENT, "gpu-node-1", "status", _set(OLD, "Ready", "False"), False),  # the kubelet's: NotReady
    (AGENT, "gpu-node-1", "status", _drop(OLD, "Ready"), False),
    (AGENT, "gpu-node-1", "status", _set(OLD, "KernelDeadlock", "True"), False),  # another agent's
    (AGENT, "gpu-node-1", "status", _set(OLD, "FabricCheckFailed", "True"), False),  # fabric-check's own SA
    (AGENT, "gpu-node-1", "status", _set(OLD, "Anything", "True"), False),  # a type of no one's
    (AGENT, "gpu-node-2", "status", _set(OLD, "GPUUnhealthy", "True"), False),  # another node
    (AGENT, None, "status", _set(OLD, "GPUUnhealthy", "True"), False),  # a token without the node claim
    (AGENT, "gpu-node-1", "", _node(taints=[{"key": "gpu-npd.io/GPUUnhealthy", "effect": "NoSchedule"}]), True),
    ("system:node:gpu-node-1", None, "status", _set(OLD, "Ready", "False"), True),  # the kubelet: not matched
])
def test_the_agent_may_write_only_its_condition_types_on_its_own_node(user, claim, sub, new, ok):
    for vap in (BASE_VAP, by_key(render({}))[("ValidatingAdmissionPolicy", "gpu-npd-own-node-only")]):
        assert admitted(vap, user, claim, sub, "gpu-node-1", OLD, new) is ok
