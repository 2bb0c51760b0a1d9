"""The agent's ValidatingAdmissionPolicy on Nodes (deploy/base and the chart): only its own node, and on
nodes/status only gpu-npd's condition types (issue 31 item 4: a condition named Ready wrote Ready=False and made
the node NotReady). Its CEL is evaluated by cel-python as the API server would (tests/cel_admission.py); its
list of condition types is the code's (agent/kube/repair.py own_condition_types) and `extra`: the types a
configuration adds, which the chart derives from the configuration it renders and an overlay lists by a patch."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from agent.kube.repair import own_condition_types
from cel_admission import admitted
from kubeapi.reserved import CONDITION_TYPE, CONDITION_TYPE_MAX, KUBELET_CONDITIONS
from test_deploy import DEPLOY, needs_kubectl, operator_overlay
from test_helm import CHART, by_key, helm, render

AGENT = "system:serviceaccount:gpu-npd:gpu-npd"
BASE_VAP = next(d for d in yaml.safe_load_all((DEPLOY / "base" / "daemonset.yaml").read_text())
                if d and d["kind"] == "ValidatingAdmissionPolicy")


def _strings(expr: str) -> list[str]:
    assert re.fullmatch(r"\[('[-A-Za-z0-9_./]+'(, )?)*\]", expr), expr
    return re.findall(r"'([^']+)'", expr)


def ours_of(vap: dict) -> tuple[list[str], list[str]]:
    """The policy's built-in types and its `extra` (the configuration's own)."""
    variables = {v["name"]: v["expression"] for v in vap["spec"]["variables"]}
    builtin, plus = variables["ours"].rsplit(" + ", 1)
    assert plus == "variables.extra" and [v["name"] for v in vap["spec"]["variables"]][:2] == ["extra", "ours"]
    return _strings(builtin), _strings(variables["extra"])


def chart_vap(values: dict | None = None) -> dict:
    return by_key(render(values))[("ValidatingAdmissionPolicy", "gpu-npd-own-node-only")]


def test_the_manifests_list_is_the_codes_table():
    assert ours_of(BASE_VAP) == (list(own_condition_types()), [])
    chart = chart_vap()
    assert ours_of(chart) == (list(own_condition_types()), [])
    assert chart["spec"]["variables"] == BASE_VAP["spec"]["variables"]
    assert chart["spec"]["validations"] == BASE_VAP["spec"]["validations"]


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
    for vap in (BASE_VAP, chart_vap()):
        assert admitted(vap, user, claim, sub, "gpu-node-1", OLD, new) is ok


def _ok(ctype: str) -> dict:
    return {"ok_reason": f"No{ctype}", "ok_message": f"no {ctype}"}


def test_a_configuration_adding_condition_types_renders_a_policy_admitting_them():
    """h469: a configuration naming a condition type of its own made every agent's status write fail with HTTP 403
    unless rbac.extraConditionTypes said it again. The chart derives `extra` from what it renders: every pool's
    conditions, a built-in check's condition, and rbac.extraConditionTypes (an NPD plugin config's types, which no
    value shows); the built-in types are not said twice. Other types stay refused."""
    values = {"config": {"conditions": {"SiteCheckFailed": _ok("SiteCheckFailed"), "GPUUnhealthy": _ok("GPU")},
                         "checks": {"builtin": {"gpu": {"condition": "example.com/GPUBurnFailed"}}}},
              "taints": [{"condition": "GPUUnhealthy"}],  # conditions replace the kind table's: no NVLinkUnhealthy
              "nodePools": [{"name": "a100", "nodeSelector": {"pool": "a100"},
                             "config": {"conditions": {"A100Fault": _ok("A100Fault")}}},
                            {"name": "h100", "nodeSelector": {"pool": "h100"}}],
              "rbac": {"extraConditionTypes": ["NPDPluginProblem"]}}
    vap = chart_vap(values)
    added = ["A100Fault", "NPDPluginProblem", "SiteCheckFailed", "example.com/GPUBurnFailed"]
    assert ours_of(vap) == (list(own_condition_types()), added)
    for ctype in [*added, "GPUUnhealthy"]:
        assert admitted(vap, AGENT, "gpu-node-1", "status", "gpu-node-1", OLD, _set(OLD, ctype, "True")), ctype
    for ctype in ("Ready", "KernelDeadlock", "FabricCheckFailed", "Anything"):
        assert not admitted(vap, AGENT, "gpu-node-1", "status", "gpu-node-1", OLD, _set(OLD, ctype, "False")), ctype
    assert not admitted(vap, AGENT, "gpu-node-2", "status", "gpu-node-1", OLD, _set(OLD, "SiteCheckFailed", "True"))


@pytest.mark.parametrize("values, error", [
    *[({"rbac": {"extraConditionTypes": [t]}}, f'rbac.extraConditionTypes: condition type "{t}" is the kubelet.s')
      for t in sorted(KUBELET_CONDITIONS)],
    # (taints: [], as the kind table's conditions the built-in taints name are replaced: that alone fails too)
    ({"nodePools": [{"name": "a", "nodeSelector": {"pool": "a"}, "config": {"conditions": {"Ready": _ok("R")}},
                     "taints": []}]},
     'conditions: condition type "Ready" is the kubelet.s'),
    ({"config": {"conditions": {"X' || true || 'Y": _ok("X")}}, "taints": []}, "conditions: .* is no condition type"),
    ({"config": {"checks": {"builtin": {"ib": {"condition": "Bad Name"}}}}},
     "checks.builtin.ib.condition: .* is no condition type"),
    # the lengths Kubernetes' pattern does not say (kubeapi/reserved.py refuses them alike): metav1.Condition's
    # MaxLength 316 (a qualified name of 317), a name past 63, a prefix past 253
    *[({"rbac": {"extraConditionTypes": [t]}}, "rbac.extraConditionTypes: .* is no condition type")
      for t in ("a" * 249 + ".com/" + "B" * 63, "G" * 64, "a" * 251 + ".io/G")],
])
def test_a_type_the_policy_must_not_admit_fails_the_render(values, error):
    """The kubelet's types (kubeapi/reserved.py; the agent refuses them too, but the policy is what holds a stolen
    token back) and a name that is no condition type (it is quoted into the policy's CEL) fail the render with one
    line naming the value."""
    with pytest.raises(helm.HelmError, match=error):
        render(values)


def test_a_condition_type_of_316_characters_renders():
    t = "a" * 248 + ".com/" + "B" * 63
    assert ours_of(chart_vap({"rbac": {"extraConditionTypes": [t, "G" * 63]}}))[1] == ["G" * 63, t]


def test_the_charts_refusal_is_the_agents_declaration():
    """The chart's render and the agent's configuration refuse the same condition types: the kubelet's list and
    Kubernetes' pattern the chart's template writes are kubeapi/reserved.py's (a type the one refuses and the other
    takes: a render that fails for a configuration the agents run, or a policy refusing every status write)."""
    text = (CHART / "templates" / "_helpers.tpl").read_text()
    (kubelet,) = re.findall(r'has \$t \(list ((?:"[A-Za-z]+" ?)+)\)', text)
    (pattern,) = re.findall(r"regexMatch `([^`]+)` \$t", text)
    assert set(re.findall(r'"([A-Za-z]+)"', kubelet)) == KUBELET_CONDITIONS
    assert pattern == CONDITION_TYPE
    assert f"(gt (len $t) {CONDITION_TYPE_MAX})" in text


@needs_kubectl
def test_an_overlay_lists_its_condition_types_in_extra():
    """kustomize cannot read the configuration's types out of the ConfigMap: an overlay replaces the policy's
    `extra` (docs/install.md "Condition types of your own"), without repeating the built-in ones."""
    patch = [{"op": "replace", "path": "/spec/variables/0/expression", "value": "['SiteCheckFailed']"}]
    objs = operator_overlay("overlays/observe", {"patches": [{
        "target": {"kind": "ValidatingAdmissionPolicy", "name": "gpu-npd-own-node-only"},
        "patch": yaml.safe_dump(patch)}]})
    vap = next(d for d in objs if d["kind"] == "ValidatingAdmissionPolicy" and d["metadata"]["name"] ==
               "gpu-npd-own-node-only")
    assert ours_of(vap) == (list(own_condition_types()), ["SiteCheckFailed"])
    assert admitted(vap, AGENT, "gpu-node-1", "status", "gpu-node-1", OLD, _set(OLD, "SiteCheckFailed", "True"))
    assert admitted(vap, AGENT, "gpu-node-1", "status", "gpu-node-1", OLD, _set(OLD, "GPUUnhealthy", "True"))
    assert not admitted(vap, AGENT, "gpu-node-1", "status", "gpu-node-1", OLD, _set(OLD, "Ready", "False"))


def test_the_checks_pages_npd_plugin_example_renders_a_policy_admitting_the_plugins_conditions(tmp_path):
    """docs/checks.md's Helm values running node-problem-detector's own custom-plugin-monitor.json (the copy in
    tests/fixtures/npd) in the agent: the volume delivers the config and its script where the rendered configuration
    names them, the agent loads that configuration with the plugin's condition NTPProblem, and every condition type it
    would write is one the rendered policy admits. Without the example's rbac.extraConditionTypes the policy refuses
    NTPProblem: a plugin config is a file the chart never reads."""
    import shutil

    from agent.config import load

    page = (DEPLOY.parent / "docs" / "checks.md").read_text()
    (block,) = re.findall(r"```yaml\n(# Helm values: NPD plugin configs in the agent.*?)```", page, re.S)
    values = yaml.safe_load(block)
    objs = render(values)
    ds = next(d for d in objs if d["kind"] == "DaemonSet")
    mount = next(m for m in ds["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] if m["name"] == "npd-plugins")
    volume = next(v for v in ds["spec"]["template"]["spec"]["volumes"] if v["name"] == "npd-plugins")
    npd = DEPLOY.parent / "tests" / "fixtures" / "npd" / "config"
    files = {"custom-plugin-monitor.json": npd / "custom-plugin-monitor.json", "check_ntp.sh": npd / "plugin" / "check_ntp.sh"}
    root = tmp_path / "mnt"
    for item in volume["configMap"]["items"]:  # the ConfigMap's keys, laid out as the kubelet projects them
        (root / item["path"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(files[item["key"]], root / item["path"])
    text = next(d for d in objs if d["kind"] == "ConfigMap" and "config.yaml" in d["data"])["data"]["config.yaml"]
    conf = tmp_path / "config.yaml"
    conf.write_text(text.replace(mount["mountPath"], str(root)))
    cfg = load(str(conf), env={"GPU_NPD_METRICS_ADDRESS": "10.0.0.7:9810"})
    assert "NTPProblem" in cfg.conditions
    vap = chart_vap(values)
    for ctype in cfg.conditions:
        assert admitted(vap, AGENT, "gpu-node-1", "status", "gpu-node-1", OLD, _set(OLD, ctype, "True")), ctype
    without = chart_vap({**values, "rbac": {"extraConditionTypes": []}})
    assert not admitted(without, AGENT, "gpu-node-1", "status", "gpu-node-1", OLD, _set(OLD, "NTPProblem", "True"))
