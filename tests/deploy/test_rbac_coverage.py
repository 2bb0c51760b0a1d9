"""The RBAC gpu-npd ships grants every request its programs really make.

A real agent (enforce, DRA device taints, the repair hand-off) runs against the API double through faults that
make it write everything it can write: conditions, Events, a DeviceTaintRule under the GPU budget, a node taint
under the node-taint budget, the repair annotation. Every request it made is then authorized against the RBAC
objects `kubectl kustomize deploy/overlays/enforce` renders (the chart renders the same objects:
tests/deploy/test_helm.py), with the API server's RBAC semantics: a ClusterRoleBinding's rules anywhere, a
RoleBinding's only in its namespace; group, resource/subresource, verb, and resourceNames (which never match a
create or a list). Then the chart's post-delete hook, `gpu-npd cleanup --apply`, removes all of it, and its requests
are authorized against the hook's own RBAC. A permission missing from the manifests fails here, not on a cluster
(the node-taint budget's ConfigMap would have: the agent holds its taint back when refused).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from apiserver_double import ApiDouble
from harness import AgentProc, wait_until
from test_deploy import agent_configmap, kustomize, needs_kubectl

from agent.kube.dra import rule_name

SA = ("gpu-npd", "gpu-npd")  # (namespace, name) of the agent's service account in the manifests
DISCOVERY = {"api", "apis", "version", "openapi"}  # system:discovery grants these to every authenticated user


def attributes(method: str, path: str, params: dict) -> tuple | None:
    """(verb, group, resource[/subresource], namespace, name) of a request, None for discovery paths."""
    parts = [p for p in path.split("/") if p]
    if parts[0] == "api":
        group, rest = "", parts[2:]
    elif parts[0] == "apis":
        group, rest = (parts[1], parts[3:]) if len(parts) > 3 else (None, [])
    else:
        return None if parts[0] in DISCOVERY else ("get", "?", path, None, None)
    if group is None or not rest:
        return None  # /apis/<group>[/<version>]: discovery
    namespace = None
    if rest[0] == "namespaces" and len(rest) > 2:
        namespace, rest = rest[1], rest[2:]
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else None
    if len(rest) > 2:
        resource += "/" + rest[2]
    verb = {"POST": "create", "PUT": "update", "PATCH": "patch"}.get(method)
    if verb is None:
        if method == "GET":
            verb = "get" if name else ("watch" if params.get("watch") in ("true", "1") else "list")
        else:
            verb = "delete" if name else "deletecollection"
    return verb, group, resource, namespace, name


def rules_of(objs: list[dict], subject: tuple[str, str]) -> list[tuple[str | None, dict]]:
    """(namespace the rule is limited to, or None, rule) for every rule bound to the service account."""
    roles = {(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d for d in objs
             if d["kind"] in ("ClusterRole", "Role")}
    out = []
    for b in objs:
        if b["kind"] not in ("ClusterRoleBinding", "RoleBinding"):
            continue
        if not any(s.get("kind") == "ServiceAccount" and (s.get("namespace"), s["name"]) == subject
                   for s in b.get("subjects") or []):
            continue
        ref = b["roleRef"]
        scope = b["metadata"].get("namespace") if b["kind"] == "RoleBinding" else None
        role = roles[(ref["kind"], scope if ref["kind"] == "Role" else None, ref["name"])]
        out += [(scope, rule) for rule in role.get("rules") or []]
    return out


def allowed(rules: list[tuple[str | None, dict]], verb: str, group: str, resource: str, namespace: str | None,
            name: str | None) -> bool:
    for scope, rule in rules:
        if scope is not None and scope != namespace:
            continue
        if not ({group, "*"} & set(rule.get("apiGroups") or ())) or not ({resource, "*"} & set(rule.get("resources")
                                                                                             or ())):
            continue
        if not ({verb, "*"} & set(rule.get("verbs") or ())):
            continue
        names = rule.get("resourceNames") or []
        if names and (name is None or name not in names):
            continue  # create and list are never limited by name: such a rule does not cover them
        return True
    return False


def test_the_authorizer_reads_rbac_as_the_api_server_does():
    objs = [{"kind": "Role", "metadata": {"name": "r", "namespace": "ns"},
             "rules": [{"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["cm"], "verbs": ["get"]}]},
            {"kind": "RoleBinding", "metadata": {"name": "r", "namespace": "ns"},
             "roleRef": {"kind": "Role", "name": "r"}, "subjects": [{"kind": "ServiceAccount", "name": "a",
                                                                     "namespace": "ns"}]},
            {"kind": "ClusterRole", "metadata": {"name": "c"},
             "rules": [{"apiGroups": [""], "resources": ["nodes/status"], "verbs": ["patch"]}]},
            {"kind": "ClusterRoleBinding", "metadata": {"name": "c"}, "roleRef": {"kind": "ClusterRole", "name": "c"},
             "subjects": [{"kind": "ServiceAccount", "name": "a", "namespace": "ns"}]}]
    rules = rules_of(objs, ("ns", "a"))
    ok = lambda m, p, q=None: allowed(rules, *attributes(m, p, q or {}))  # noqa: E731
    assert ok("GET", "/api/v1/namespaces/ns/configmaps/cm")
    assert not ok("GET", "/api/v1/namespaces/other/configmaps/cm")  # a Role binds in its namespace only
    assert not ok("GET", "/api/v1/namespaces/ns/configmaps/other") and not ok("GET", "/api/v1/namespaces/ns/configmaps")
    assert ok("PATCH", "/api/v1/nodes/n1/status") and not ok("PATCH", "/api/v1/nodes/n1")  # subresource apart
    assert attributes("GET", "/apis/resource.k8s.io/v1", {}) is None  # discovery
    assert attributes("DELETE", "/apis/resource.k8s.io/v1alpha3/devicetaintrules/x", {}) == (
        "delete", "resource.k8s.io", "devicetaintrules", None, "x")


def enforcing_agent(tmp_path: Path, api: ApiDouble, objs: list[dict]) -> tuple[AgentProc, Path]:
    """A real agent on gpu-node-1 (of ten) with the shipped configuration in enforce, DRA device taints (one GPU,
    gpu-0 at 0000:5d:00, in a ResourceSlice) and the repair hand-off on; and its configuration file."""
    config = yaml.safe_load(agent_configmap(objs)["data"]["config.yaml"])
    api.dra_versions = {"v1": ["resourceslices"], "v1alpha3": ["devicetaintrules"]}
    api.resource_slices = [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                            "metadata": {"name": "gpu-node-1-slice"},
                            "spec": {"driver": "gpu.nvidia.com", "nodeName": "gpu-node-1",
                                     "pool": {"name": "gpu-node-1", "generation": 1, "resourceSliceCount": 1},
                                     "devices": [{"name": "gpu-0", "attributes": {
                                         "uuid": {"string": "GPU-0000"}, "pcieBusID": {"string": "0000:5d:00.0"}}}]}}]
    for i in range(10):
        api.add_node(f"gpu-node-{i}")
    kube = {**config.get("kubernetes", {}), "api_server": api.url, "coalesce_seconds": 0.05,
            "dra_device_taints": True, "repair_profile": "eks", "repair_annotation": True}
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"mode": "enforce", "nvml": "off", "log_level": "warning", "kubernetes": kube}))
    return AgentProc(tmp_path, "--config", str(conf), env={"NODE_NAME": "gpu-node-1"}, start_timeout=60.0), conf


XID79_GPU0 = "3,1,1000,-;NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"


@needs_kubectl
def test_every_request_of_an_enforcing_agent_is_granted_by_the_shipped_rbac(tmp_path: Path):
    objs = kustomize("overlays/enforce")
    rules = rules_of(objs, SA)
    assert rules, "no RBAC bound to the agent's service account"
    with ApiDouble() as api:
        agent, conf = enforcing_agent(tmp_path, api, objs)
        try:
            agent.write(XID79_GPU0)
            # a GPU no ResourceSlice names: the node taint is the fallback (under the node-taint budget)
            agent.write("3,2,1001,-;NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, "
                        "GPU has fallen off the bus.\n")
            wait_until(lambda: api.device_taint_rules, "the GPU's DeviceTaintRule", timeout=30)
            wait_until(lambda: any(t["key"] == "gpu-npd.io/GPUUnhealthy" for t in api.taints("gpu-node-1")),
                       "the node taint", timeout=30)
            wait_until(lambda: "gpu-npd.io/repair" in api.node("gpu-node-1")["metadata"].get("annotations", {}),
                       "the repair annotation", timeout=30)
            wait_until(lambda: api.events(), "an Event", timeout=30)
        finally:
            assert agent.stop()[0] == 0
        made = {attributes(m, p, q) for m, p, q, _ in list(api.requests)} - {None}
        # then the chart's post-delete hook: `gpu-npd cleanup --apply` removes all of it, as its own account
        start = len(api.requests)
        r = subprocess.run([sys.executable, "-m", "gpunpd", "cleanup", "--apply", "--api-server", api.url,
                            "--config", str(conf)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        cleaned = {attributes(m, p, q) for m, p, q, _ in list(api.requests)[start:]} - {None}
        assert not api.device_taint_rules and not api.configmaps and not api.taints("gpu-node-1")
    assert {a[2] for a in made} >= {"nodes", "nodes/status", "events", "configmaps", "devicetaintrules",
                                    "resourceslices"}, made  # the scenario wrote everything it can
    refused = sorted(a for a in made if not allowed(rules, *a))
    assert not refused, f"requests the shipped RBAC does not grant the agent: {refused}"
    pytest.importorskip("helm_python", reason="helm-python-sdk (the test extra) renders the chart's hook")
    from test_helm import render  # noqa: PLC0415

    hook = rules_of(render(hooks=True), ("gpu-npd", "gpu-npd-cleanup"))
    assert hook, "no RBAC bound to the cleanup hook's service account"
    refused = sorted(a for a in cleaned if not allowed(hook, *a))
    assert not refused, f"requests the chart's cleanup hook RBAC does not grant: {refused}"


@needs_kubectl
def test_a_devicetaintrule_name_held_by_another_rule_is_read_with_a_granted_get(tmp_path: Path):
    """A create of the GPU's DeviceTaintRule answered 409 (the name taken by a rule that is not this node's, or an
    earlier create whose reply was lost): the agent GETs the rule under the name to tell which (agent/kube/dra.py
    _create). The shipped ClusterRole granted devicetaintrules list, create and delete but not get: refused (403),
    and _create raised the refusal instead of saying the name was taken (its warning and Event never written)."""
    objs = kustomize("overlays/enforce")
    rules = rules_of(objs, SA)
    with ApiDouble() as api:
        name = rule_name("gpu-node-1", ("gpu.nvidia.com", "gpu-node-1", "gpu-0"))
        api.device_taint_rules[name] = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
                                        "metadata": {"name": name, "labels": {"team": "someone"}},
                                        "spec": {"deviceSelector": {"driver": "gpu.nvidia.com", "pool": "gpu-node-1",
                                                                    "device": "gpu-0"},
                                                 "taint": {"key": "someone/else", "effect": "NoSchedule"}}}
        agent, _ = enforcing_agent(tmp_path, api, objs)
        try:
            agent.write(XID79_GPU0)
            wait_until(lambda: any(m == "GET" and p.endswith(f"/devicetaintrules/{name}")
                                   for m, p, _, _ in list(api.requests)), "the GET of the rule under the name",
                       timeout=30)
        finally:
            assert agent.stop()[0] == 0
        made = {attributes(m, p, q) for m, p, q, _ in list(api.requests)} - {None}
    refused = sorted(a for a in made if not allowed(rules, *a))
    assert not refused, f"requests the shipped RBAC does not grant the agent: {refused}"


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
