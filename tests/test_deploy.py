"""Manifests, alert rules and the dashboard: validated by the real tools."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agent.config import load

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None and not os.environ.get("CI"),
                                    reason="promtool not installed (.ci/run installs it)")


def docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_every_manifest_passes_kubernetes_validate_strict():
    files = sorted(str(p) for p in DEPLOY.rglob("*.yaml") if p.name != "rules-test.yaml")
    exe = Path(sys.executable).with_name("kubernetes-validate")
    r = subprocess.run([str(exe), "--strict", *files], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    passed = r.stdout.count(" passed for resource ")
    core = sum(1 for f in files for d in docs(Path(f)) if not d["apiVersion"].startswith("monitoring.coreos.com"))
    assert passed == core, r.stdout  # every core object validated (CRDs only warn: no schema shipped for them)


def test_daemonset_wiring():
    objs = {(d["kind"], d["metadata"]["name"]): d for d in docs(DEPLOY / "daemonset.yaml")}
    ds = objs[("DaemonSet", "gpu-npd")]["spec"]["template"]["spec"]
    c = ds["containers"][0]
    assert ds["priorityClassName"] == "system-node-critical" and {"operator": "Exists"} in ds["tolerations"]
    assert {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}} in c["env"]
    assert c["livenessProbe"]["httpGet"]["path"] == c["readinessProbe"]["httpGet"]["path"] == "/healthz"
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    for path in ("/dev/kmsg", "/var/log", "/host/sys", "/run/log/journal", "/host/proc", "/etc/gpu-npd"):
        assert mounts[path].get("readOnly") is True, path
    assert not mounts["/var/lib/gpu-npd"].get("readOnly")
    rules = objs[("ClusterRole", "gpu-npd")]["rules"]
    assert {"apiGroups": [""], "resources": ["nodes/status"], "verbs": ["patch"]} in rules
    vap = objs[("ValidatingAdmissionPolicy", "gpu-npd-own-node-only")]
    assert "authentication.kubernetes.io/node-name" in vap["spec"]["validations"][0]["expression"]


def test_configmap_config_is_a_valid_agent_config(tmp_path):
    cm = next(d for d in docs(DEPLOY / "daemonset.yaml") if d["kind"] == "ConfigMap")
    conf = tmp_path / "config.yaml"
    conf.write_text(cm["data"]["config.yaml"])
    cfg = load(str(conf), env={})
    assert cfg.mode == "observe" and cfg.sysfs_root == "/host" and len(cfg.kube.taints) == 3


@needs_promtool
def test_alert_rules_pass_promtool_unit_tests(tmp_path):
    assert PROMTOOL
    rule = docs(DEPLOY / "monitoring" / "prometheusrule.yaml")[0]
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rule["spec"]))
    shutil.copy(DEPLOY / "monitoring" / "rules-test.yaml", tmp_path)
    check = subprocess.run([PROMTOOL, "check", "rules", "rules.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    r = subprocess.run([PROMTOOL, "test", "rules", "rules-test.yaml"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and "SUCCESS" in r.stdout, r.stdout + r.stderr
    tested = set(re.findall(r"alertname: (\w+)", (DEPLOY / "monitoring" / "rules-test.yaml").read_text()))
    assert tested == {r["alert"] for r in rule["spec"]["groups"][0]["rules"]}  # every alert has a test


def test_dashboard_queries_only_metrics_the_agent_exports(tmp_path):
    from prometheus_client.parser import text_string_to_metric_families
    from prometheus_client import generate_latest
    from test_telemetry import make, poll
    from telemetry_kit import copy_sysfs, hgx_scenario

    agent, _ = make(tmp_path, hgx_scenario(), copy_sysfs(tmp_path))
    poll(agent)
    agent.metrics.taint_held.labels("gpu-npd.io/GPUUnhealthy").set(0)
    agent.metrics.registry.register(agent.metrics.kube_api_up)  # as when the Kubernetes writer runs
    agent.metrics.kube_api_up.set(1)
    agent._publish()
    agent.metrics.source_up.labels("kmsg").set(1)
    agent.metrics.xid_errors.labels("79", "0000:5d:00", "3", "u").inc()
    samples = {s.name for f in text_string_to_metric_families(generate_latest(agent.metrics.registry).decode())
               for s in f.samples}
    dash = json.loads((DEPLOY / "monitoring" / "grafana-dashboard.json").read_text())
    used = {m for p in dash["panels"] for t in p["targets"] for m in re.findall(r"gpu_npd_\w+", t["expr"])}
    assert used and used <= samples, used - samples
    rules = docs(DEPLOY / "monitoring" / "prometheusrule.yaml")[0]["spec"]["groups"][0]["rules"]
    alerted = {m for r in rules for m in re.findall(r"gpu_npd_\w+", r["expr"])}
    assert alerted <= samples, alerted - samples
