"""The configurations shipped in deploy/ say only what differs from the built-in defaults (agent/settings.py).

A key set to its default pins it: a later release that changes the default would leave every install on the old
value without a word. So a shipped key equal to its default needs a reason on its line (a `#` comment); the paths
the DaemonSet mounts are not repeated in the configuration but tied to the defaults by a test here."""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path

import pytest
import yaml

from agent.config import load, loaded
from agent.kube.settings import DEFAULT_TAINTS
from test_deploy import DEPLOY, agent_configmap, kustomize, needs_kubectl

CHART = DEPLOY / "helm" / "gpu-npd"
FILES = sorted([DEPLOY / "base" / "config.yaml", *DEPLOY.glob("examples/*/config.yaml")])


def leaves(data: dict, prefix: str = "") -> list[str]:
    """The dotted paths of a configuration's values; a list (taints) is one value."""
    out = []
    for key, value in data.items():
        path = f"{prefix}{key}"
        out += leaves(value, path + ".") if isinstance(value, dict) and value else [path]
    return out


def at(config: dict, path: str):
    for part in path.split("."):
        config = config[part]
    return config


def effective(data: dict, tmp_path: Path) -> dict:
    """The configuration the agent runs with, as plain data: the file over the defaults."""
    conf = tmp_path / "shipped.yaml"
    conf.write_text(yaml.safe_dump(data))
    return asdict(load(str(conf), env={}))


def pinned_without_reason(text: str, data: dict, tmp_path: Path) -> list[str]:
    """The keys of `data` (from `text`) set to their built-in default with no comment on their line."""
    default, shipped = asdict(load(env={})), effective(data, tmp_path)
    out = []
    for path in leaves(data):
        if at(shipped, path) != at(default, path):
            continue
        name = re.escape(path.rsplit(".", 1)[-1])
        lines = [line for line in text.splitlines() if re.match(rf"\s*(- )?{name}:", line)]
        if not any("#" in line for line in lines):
            out.append(path)
    return out


def chart_config() -> tuple[str, dict]:
    """The chart's agent configuration as values.yaml ships it: `config`, with `taints` as kubernetes.taints."""
    text = (CHART / "values.yaml").read_text()
    values = yaml.safe_load(text)
    config = dict(values["config"])
    if values.get("taints") is not None:
        config["kubernetes"] = {**config.get("kubernetes", {}), "taints": values["taints"]}
    return text, config


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(DEPLOY)))
def test_a_shipped_config_sets_no_key_to_its_default_without_a_reason(path, tmp_path):
    text = path.read_text()
    assert pinned_without_reason(text, yaml.safe_load(text) or {}, tmp_path) == []


def test_the_charts_config_sets_no_key_to_its_default_without_a_reason(tmp_path):
    assert pinned_without_reason(*chart_config(), tmp_path) == []


def test_the_check_finds_a_default_and_accepts_its_reason(tmp_path):
    """The old shipped base (before 0.1.0's cleanup): every key equal to its default is named; a comment excuses one."""
    text = ("state_dir: /var/lib/gpu-npd\nsysfs_root: /host  # the host's /sys\npod_logs_root: /var/log/pods\n"
            "mode: observe\nkubernetes:\n  taints:\n    - {condition: GPUUnhealthy, effect: NoSchedule}\n"
            "    - {condition: NVLinkUnhealthy, effect: NoSchedule}\n"
            "    - {condition: InfiniBandUnhealthy, effect: NoSchedule}\n"
            "  max_tainted_fraction: 0.1\n  budget_selector: \"nvidia.com/gpu.present=true\"\n  qps: 20\n")
    assert pinned_without_reason(text, yaml.safe_load(text), tmp_path) == [
        "state_dir", "pod_logs_root", "mode", "kubernetes.taints", "kubernetes.max_tainted_fraction",
        "kubernetes.budget_selector"]
    excused = text.replace("state_dir: /var/lib/gpu-npd", "state_dir: /var/lib/gpu-npd  # the hostPath's")
    assert "state_dir" not in pinned_without_reason(excused, yaml.safe_load(excused), tmp_path)


def assert_defaults_fit_the_daemonset(objs: list[dict], tmp_path: Path) -> None:
    """The agent's state_dir is the writable hostPath mount of that same path, pod_logs_root lies under a mount of
    the host's directory at the same path, and the taint budget's pool (budget_selector) is the nodes the DaemonSet
    runs on: what the configuration no longer says, the defaults and the DaemonSet agree on."""
    ds = next(d for d in objs if d["kind"] == "DaemonSet")["spec"]["template"]["spec"]
    conf = tmp_path / "config.yaml"
    conf.write_text(agent_configmap(objs)["data"]["config.yaml"])
    cfg = load(str(conf), env={})
    volumes = {v["name"]: v for v in ds["volumes"]}
    same = {m["mountPath"]: m for m in ds["containers"][0]["volumeMounts"]
            if volumes[m["name"]].get("hostPath", {}).get("path") == m["mountPath"]}  # the host's path, unmoved
    assert cfg.state_dir in same and not same[cfg.state_dir].get("readOnly"), cfg.state_dir
    # the DaemonSet's own GPU_NPD_* variables replace no key of its ConfigMap (each would be a warning at every start)
    env = {e["name"]: e.get("value", "") for e in ds["containers"][0].get("env", [])}
    assert loaded(str(conf), env)[1] == []
    assert any(Path(cfg.pod_logs_root).is_relative_to(p) for p in same), cfg.pod_logs_root
    selector = dict(term.split("=", 1) for term in cfg.kube.budget_selector.split(","))
    assert selector == ds["nodeSelector"], (cfg.kube.budget_selector, ds["nodeSelector"])


@needs_kubectl
def test_the_kustomize_daemonset_mounts_what_the_defaults_name(tmp_path):
    assert_defaults_fit_the_daemonset(kustomize("overlays/observe"), tmp_path)


def test_the_chart_daemonset_mounts_what_the_defaults_name(tmp_path):
    from test_helm import render  # needs helm-python-sdk (test_helm skips without it)

    objs = render()
    assert "taints" not in yaml.safe_load(agent_configmap(objs)["data"]["config.yaml"]).get("kubernetes", {})
    assert_defaults_fit_the_daemonset(objs, tmp_path)


@pytest.mark.parametrize("values, taints", [({}, None), ({"taints": []}, []),
                                            ({"taints": [{"condition": "GPUUnhealthy"}]}, [{"condition": "GPUUnhealthy"}])])
def test_the_chart_renders_taints_only_when_set(values, taints):
    """taints null: the agent's own default applies (nothing pinned); a list, even empty (no taints), is written."""
    from test_helm import render

    config = yaml.safe_load(agent_configmap(render(values))["data"]["config.yaml"])
    assert config.get("kubernetes", {}).get("taints") == taints


def test_the_charts_copy_of_the_builtin_taints_is_the_agents():
    """The chart checks enforce mode's tolerations against the agent's taints; with `taints: null` it must know
    them, from its helper gpu-npd.builtinTaints: the agent's defaults (min_severity left at its default)."""
    helpers = (CHART / "templates" / "_helpers.tpl").read_text()
    body = re.search(r'define "gpu-npd.builtinTaints" -}}\n(.*?)\n{{- end', helpers, re.S)
    assert body, "gpu-npd.builtinTaints not found in _helpers.tpl"
    builtin = [{k: v for k, v in t.items() if k != "min_severity"} for t in asdict(load(env={}))["kubernetes"]["taints"]]
    assert yaml.safe_load(body.group(1)) == builtin
    assert [t["condition"] for t in builtin] == list(DEFAULT_TAINTS)


def test_the_charts_copies_of_conditions_and_reserved_domains_are_the_agents():
    """The chart refuses a taint rule on a condition the agent does not know and a taint prefix in someone else's
    domain, with the agent's line: from its helpers' copies of the kind table's conditions (the default
    `conditions`), each built-in check's condition and kubeapi/reserved.py's domains."""
    from agent.checks.builtin import TABLE
    from kubeapi.reserved import RESERVED_DOMAINS

    helpers = (CHART / "templates" / "_helpers.tpl").read_text()

    def helper(name: str):
        body = re.search(rf'define "gpu-npd.{name}" -}}}}\n(.*?)\n{{{{- end', helpers, re.S)
        assert body, f"gpu-npd.{name} not found in _helpers.tpl"
        return yaml.safe_load(body.group(1))

    assert helper("kindConditionTypes") == list(load(env={}).conditions)
    assert helper("checkConditionTypes") == {c.name: c.condition for c in TABLE}
    assert helper("reservedDomains") == list(RESERVED_DOMAINS)
