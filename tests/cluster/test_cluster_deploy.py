"""The cluster component's manifests: rendered by the real kubectl, validated by kubernetes-validate, and its RBAC
held to the owners table and to the requests the controller really makes (least privilege, nothing missing)."""

from __future__ import annotations

import functools
import re

from apiserver_double import ApiDouble
from harness import wait_until
from test_cluster import controller, gang, incidents, publish_timeouts, publish_xid
from test_deploy import kustomize, needs_kubectl, validate_strict

from cluster.owners import OWNER_KINDS

PATH = "examples/cluster"


@functools.cache
def rendered() -> tuple[dict, ...]:
    """The manifests of PATH as the real kubectl renders them, once for the module (the tests only read them: the
    RBAC check asked kubectl again for each request the controller made)."""
    return tuple(kustomize(PATH))


def objects() -> dict:
    return {(d["kind"], d["metadata"]["name"]): d for d in rendered()}


@needs_kubectl
def test_the_agents_with_the_cluster_component_pass_kubernetes_validate_strict(tmp_path):
    objs = list(rendered())
    validate_strict(objs, tmp_path)
    by = {(d["kind"], d["metadata"]["name"]): d for d in objs}
    dep = by[("Deployment", "gpu-npd-cluster")]["spec"]["template"]["spec"]
    ds = by[("DaemonSet", "gpu-npd")]["spec"]["template"]["spec"]
    assert dep["containers"][0]["image"] == ds["containers"][0]["image"]  # the image is shared with the agent
    assert dep["containers"][0]["args"][0] == "cluster" and dep["serviceAccountName"] == "gpu-npd-cluster"
    sc = dep["containers"][0]["securityContext"]
    assert sc["readOnlyRootFilesystem"] and sc["capabilities"] == {"drop": ["ALL"]} and dep["securityContext"]["runAsNonRoot"]


@needs_kubectl
def test_a_drain_never_evicts_both_replicas_at_once():
    """Two replicas, one leading: a node drain (or a node-pool upgrade draining several nodes at a time, or both
    replicas on one node where the anti-affinity could only be preferred) evicted both at once without a
    PodDisruptionBudget, and no replica led until one was rescheduled and started. One at a time (maxUnavailable,
    not minAvailable: a Deployment scaled to one replica still drains)."""
    objs = objects()
    dep = objs[("Deployment", "gpu-npd-cluster")]
    pdb = objs[("PodDisruptionBudget", "gpu-npd-cluster")]
    assert pdb["metadata"]["namespace"] == dep["metadata"]["namespace"]
    assert pdb["spec"]["maxUnavailable"] == 1 and "minAvailable" not in pdb["spec"]
    assert pdb["spec"]["selector"] == dep["spec"]["selector"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= dep["spec"]["template"]["metadata"]["labels"].items()


def rules() -> list[dict]:
    objs = objects()
    return objs[("ClusterRole", "gpu-npd-cluster")]["rules"] + objs[("Role", "gpu-npd-cluster-leader")]["rules"]


def allowed(group: str, resource: str, verb: str) -> bool:
    return any(group in r["apiGroups"] and resource in r["resources"] and verb in r["verbs"] for r in rules())


@needs_kubectl
def test_rbac_reads_exactly_the_known_owner_kinds_and_writes_only_events_and_its_lease():
    grants = {(g, res) for r in rules() for g in r["apiGroups"] for res in r["resources"]}
    owners = {(k.group, k.plural) for k in OWNER_KINDS}
    assert grants == owners | {("", "pods"), ("", "nodes"), ("", "events"), ("coordination.k8s.io", "leases")}
    for r in rules():
        writes = set(r["verbs"]) - {"get", "list", "watch"}
        assert not writes or r["resources"] in (["events"], ["leases"]), r
        assert "delete" not in r["verbs"] and "*" not in r["verbs"]
    lease_rules = [r for r in rules() if r["resources"] == ["leases"] and "update" in r["verbs"]]
    assert lease_rules and all(r.get("resourceNames") == ["gpu-npd-cluster"] for r in lease_rules)


_PATH = re.compile(r"^/(?:api/v1|apis/([^/]+)/[^/]+)/(?:namespaces/[^/]+/)?([a-z0-9.-]+)(?:/[^/]+)?$")
VERBS = {"POST": "create", "PATCH": "patch", "PUT": "update", "DELETE": "delete"}


def granted() -> set[tuple[str, str, str]]:
    """(group, resource, verb) of every grant of the rendered ClusterRole and leader Role."""
    return {(g, res, v) for r in rules() for g in r["apiGroups"] for res in r["resources"] for v in r["verbs"]}


OWNER = ("owner kinds", "*")  # every owner kind is read alike: one stands for all (the double serves JobSets)


def as_owner(group: str, resource: str) -> tuple[str, str]:
    return OWNER if (group, resource) in {(k.group, k.plural) for k in OWNER_KINDS} else (group, resource)


@needs_kubectl
def test_every_request_the_controller_makes_is_granted_and_every_grant_is_used():
    """Run the controller against the double (an incident written and updated, its Lease taken, renewed and given
    up), then check each request it made against the rendered RBAC: nothing it needs is missing; and each verb the
    RBAC grants against the requests: nothing is granted that it never asks (a `get` on pods, nodes, Events and the
    owner kinds was: it reads only its watches)."""
    with ApiDouble() as api:
        gang(api)
        publish_timeouts(api)
        before = len(api.requests)
        with controller(api) as c:
            wait_until(lambda: incidents(api) and c.ready.is_set(), "an incident")
            publish_xid(api)  # more evidence: the incident's Event is patched
            wait_until(lambda: any("hardware" in e["message"] for e in incidents(api)), "the incident updated")
            wait_until(lambda: any(m == "PUT" and "/leases/" in p for m, p, _, _ in api.requests[before:]),
                       "the Lease renewed")
        made = api.requests[before:]
    used = set()
    checked = 0
    for method, path, params, _ctype in made:
        if re.match(r"^/apis/[^/]+/[^/]+/?$", path):
            continue  # discovery: allowed to every authenticated user (system:discovery)
        m = _PATH.match(path)
        assert m, path
        group, resource = m.group(1) or "", m.group(2)
        if method == "GET":
            verb = "watch" if params.get("watch") else "list" if path.endswith("/" + resource) else "get"
        else:
            verb = VERBS[method]
        assert allowed(group, resource, verb), (method, path, verb)
        used.add((*as_owner(group, resource), verb))
        checked += 1
    assert checked > 5
    unused = {(*as_owner(g, res), v) for g, res, v in granted()} - used
    assert not unused, f"granted but never asked: {sorted(unused)}"


@needs_kubectl
def test_cascading_recovery_adds_only_pod_deletion_and_enforce(tmp_path):
    objs = kustomize("examples/cluster-recovery")
    validate_strict(objs, tmp_path)
    by = {(d["kind"], d["metadata"]["name"]): d for d in objs}
    assert by[("ClusterRole", "gpu-npd-cluster-recovery")]["rules"] == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"]}]
    args = by[("Deployment", "gpu-npd-cluster")]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[-2:] == ["--recovery", "enforce"]
    plain = objects()  # without the component: observe only, nothing may be deleted
    assert "--recovery" not in plain[("Deployment", "gpu-npd-cluster")]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert not any("delete" in r["verbs"] for r in rules())
