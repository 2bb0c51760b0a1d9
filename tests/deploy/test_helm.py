"""The Helm chart (deploy/helm/gpu-npd) as Helm itself renders and lints it: Helm's Go SDK through the
helm-python-sdk package (no helm binary needed), for every values file in the chart's ci/ folder. The output is
validated against the Kubernetes 1.30 schemas, and compared with what `kubectl kustomize` renders: one install,
two tools, the same objects."""

from __future__ import annotations

import copy
import re
import tempfile
from pathlib import Path

import click
import pytest
import yaml

from agent.config import load
from cluster.cli import cluster as cluster_command
from cluster.controller import Settings as ClusterSettings
from crd_schemas import validate as crd_validate
from parsers.kinds import TAINT_PREFIX
from test_deploy import (DEPLOY, assert_cluster_component_scraped, assert_host_paths_safe, critical_pods_unadmitted,
                         host_paths, kustomize, kustomize_with, needs_kubectl, render_kustomization, validate_strict)

helm = pytest.importorskip("helm_python", reason="helm-python-sdk (the test extra) bundles Helm's Go SDK")

CHART = DEPLOY / "helm" / "gpu-npd"
VALUES = sorted((CHART / "ci").glob("*-values.yaml"))
HOOK = "helm.sh/hook"


def render(values: dict | None = None, name: str = "gpu-npd", namespace: str = "gpu-npd",
           hooks: bool = False) -> list[dict]:
    """`helm template <name> deploy/helm/gpu-npd -n <namespace> -f values`: the objects, hooks left out unless asked."""
    with helm.Chart.load(str(CHART)) as chart:
        out = chart.render(values or {}, name=name, namespace=namespace, is_install=True)
    objs = [d for path, text in sorted(out.items()) if not path.endswith("NOTES.txt")
            for d in yaml.safe_load_all(text) if d]
    return [d for d in objs if hooks or HOOK not in d["metadata"].get("annotations", {})]


def values_of(path: Path) -> dict:
    return yaml.safe_load(path.read_text()) or {}


def by_key(objs: list[dict]) -> dict[tuple[str, str], dict]:
    return {(d["kind"], d["metadata"]["name"]): d for d in objs}


def test_helm_lints_and_renders_objects_valid_for_kubernetes_1_30(tmp_path):
    """Every values file (and the defaults): `helm lint --strict` clean, and the rendered objects (hooks too) valid
    against the 1.30 schemas; one kubernetes-validate run over all of them (it loads the schemas once)."""
    objs = []
    for values in [None, *VALUES]:
        v = values_of(values) if values else {}
        report = helm.lint(str(CHART), v, strict=True, kube_version="v1.30.0")
        assert not report.get("errors") and all(m["severity"] < 2 for m in report["messages"]), (values, report)
        rendered = render(v, hooks=True)
        for cm in (d for d in rendered if d["kind"] == "ConfigMap" and "config.yaml" in d["data"]):
            conf = tmp_path / "config.yaml"  # every agent ConfigMap is a configuration the agent accepts
            conf.write_text(cm["data"]["config.yaml"])
            load(str(conf), env={"GPU_NPD_METRICS_ADDRESS": "10.0.0.7:9810"})
        objs += rendered
    validate_strict(objs, tmp_path)


def normalized(d: dict) -> dict:
    """What must be equal between kustomize and Helm: everything but labels and annotations (Helm adds its own;
    checked as a superset instead), and a ConfigMap's config.yaml compared as data, not text (comments)."""
    d = copy.deepcopy(d)
    d["metadata"].pop("labels", None)
    d["metadata"].pop("annotations", None)
    spec = d.get("spec", {})
    for holder in (spec.get("selector", {}), spec.get("template", {}).get("metadata", {})):
        holder.pop("matchLabels", None)
        holder.pop("labels", None)
        holder.pop("annotations", None)
    for c in spec.get("template", {}).get("spec", {}).get("containers", []):
        names = [e["name"] for e in c.get("env", [])]  # kustomize's patches move env entries
        if "GPU_NPD_METRICS_ADDRESS" in names:  # the agent's: $(POD_IP) must come first
            assert names.index("POD_IP") < names.index("GPU_NPD_METRICS_ADDRESS")
        c["env"] = sorted(c.get("env", []), key=lambda e: e["name"])
    if d["kind"] == "ConfigMap" and "config.yaml" in d.get("data", {}):
        d["data"]["config.yaml"] = yaml.safe_load(d["data"]["config.yaml"])
    return d


def labels_of(d: dict) -> list[dict]:
    spec = d.get("spec", {})
    return [d["metadata"].get("labels") or {}, spec.get("selector", {}).get("matchLabels") or {},
            spec.get("template", {}).get("metadata", {}).get("labels") or {}]


def without_hash(rendered: list[dict]) -> list[dict]:
    """The objects with each agent ConfigMap under its DaemonSet's name, without the content hash kustomize and the
    chart append (each its own: kustomize's, and the chart's sha256), in the DaemonSet's volume too; the hash itself
    checked: present, and on that ConfigMap."""
    objs = copy.deepcopy(rendered)
    for ds in (d for d in objs if d["kind"] == "DaemonSet"):
        volume = next(v for v in ds["spec"]["template"]["spec"]["volumes"] if v["name"] == "config")
        hashed, name = volume["configMap"]["name"], ds["metadata"]["name"]
        assert re.fullmatch(rf"{re.escape(name)}-[a-z0-9]{{10}}", hashed), hashed
        volume["configMap"]["name"] = name
        for cm in (d for d in objs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == hashed):
            cm["metadata"]["name"] = name
    return objs


def assert_equivalent(kustomized: list[dict], helmed: list[dict]) -> None:
    k = by_key(d for d in without_hash(kustomized) if d["kind"] != "Namespace")  # helm --create-namespace makes it
    h = by_key(without_hash(helmed))
    assert set(k) == set(h), (set(k) ^ set(h))
    for key in k:
        assert normalized(h[key]) == normalized(k[key]), key
        for kl, hl in zip(labels_of(k[key]), labels_of(h[key])):
            assert kl.items() <= hl.items(), (key, kl, hl)


@needs_kubectl
@pytest.mark.parametrize("overlay, values", [("overlays/observe", {}), ("overlays/enforce", {"mode": "enforce"})])
def test_helm_and_kustomize_render_the_same_objects(overlay, values):
    assert_equivalent(kustomize(overlay), render(values))


@needs_kubectl
@pytest.mark.parametrize("kustomization, values", [
    ("examples/cluster", {"cluster": {"enabled": True}}),
    ("examples/cluster-recovery", {"cluster": {"enabled": True, "recovery": "enforce"}}),
])
def test_helm_cluster_component_is_the_kustomize_one(kustomization, values):
    """cluster.enabled: the agents and deploy/components/cluster; recovery=enforce adds components/cluster-recovery."""
    assert_equivalent(kustomize(kustomization), render(values))


# cascading recovery's bounds: `gpu-npd cluster`'s options after --recovery (the mode), each a value of the chart
RECOVERY = next(p for p in cluster_command.params if p.name == "recovery")
BOUNDS = [p for p in cluster_command.params if p.name.startswith("recover") and p is not RECOVERY]
EXAMPLE = DEPLOY / "examples" / "cluster-recovery" / "kustomization.yaml"


def value_key(option) -> str:
    """The chart's value of an option: its name in camelCase (recovery_namespace_budget -> recoveryNamespaceBudget)."""
    first, *rest = option.name.split("_")
    return first + "".join(w.title() for w in rest)


def cluster_args(values: dict) -> list[str]:
    deployment = next(d for d in render({"cluster": {"enabled": True, **values}}) if d["kind"] == "Deployment")
    return deployment["spec"]["template"]["spec"]["containers"][0]["args"]


def test_recovery_values_are_the_cluster_commands_options():
    """values.yaml's cluster.recovery* keys are the command's options (a renamed or added option fails here): the
    mode with the command's default and choices, each bound unset (null), so that the command's default holds."""
    cluster = values_of(CHART / "values.yaml")["cluster"]
    assert {k for k in cluster if k.startswith("recover")} == {value_key(p) for p in [RECOVERY, *BOUNDS]}
    assert len(BOUNDS) == 4 and cluster["recovery"] == RECOVERY.default
    assert all(cluster[value_key(p)] is None for p in BOUNDS)
    for choice in RECOVERY.type.choices:  # every mode renders; only a mode not the default is written
        assert ("--recovery" in cluster_args({"recovery": choice})) == (choice != RECOVERY.default)
    table = (DEPLOY.parent / "docs" / "install.md").read_text()
    assert all(f"`cluster.{value_key(p)}`" in table for p in [RECOVERY, *BOUNDS])


def test_recovery_bounds_render_only_when_set_and_parse_as_the_command_reads_them():
    """Unset: no option (the command's defaults). Each set alone, 0 included where allowed (a falsy value a template
    could drop): its option and value after the mode's, which the command's own parser reads back as that value."""
    default = cluster_args({})
    assert not any(a.startswith("--recover") for a in default)
    for p in BOUNDS:
        for value in ([0, 7] if isinstance(p.type, click.IntRange) else [0.5, 7, 86400]):
            args = cluster_args({"recovery": "enforce", value_key(p): value})
            assert args[:len(default)] == default and args[len(default):-2] == ["--recovery", "enforce"], args
            assert args[-2] == p.opts[0], args
            ctx = cluster_command.make_context("cluster", args[1:])
            assert ctx.params[p.name] == value and ctx.params["recovery"] == "enforce"


@pytest.mark.parametrize("option", BOUNDS, ids=lambda p: p.name)
def test_a_recovery_bound_out_of_the_commands_range_fails_the_render_with_a_message(option):
    """What the command would refuse at start (a usage error, the pod crash-looping) the render refuses, naming the
    value: below the option's range, or at its open minimum; a fraction or a number too large for a count; a word; a
    boolean."""
    lowest = option.type.min
    bad = [lowest - 1, "1h", True] + ([lowest] if option.type.min_open else []) + (
        [1.5, 1e19] if isinstance(option.type, click.IntRange) else [])  # 1e19: past a 64-bit integer
    for value in bad:
        with pytest.raises(helm.HelmError, match=rf"cluster\.{value_key(option)} .*{re.escape(option.opts[0])}"):
            cluster_args({value_key(option): value})
        with pytest.raises(click.BadParameter):  # and the command refuses it too
            option.type.convert(str(value).lower(), option, None)  # as the command line gives it


@needs_kubectl
def test_the_kustomize_examples_bounds_patch_is_the_helm_values():
    """deploy/examples/cluster-recovery's commented patch, uncommented, renders what the Helm values of the same
    bounds render; it names every bound."""
    text = EXAMPLE.read_text()
    patch = text[text.index("# patches:"):]
    uncommented = text.replace(patch, "\n".join(line.removeprefix("# ") for line in patch.splitlines()) + "\n")
    ops = yaml.safe_load(yaml.safe_load(uncommented)["patches"][0]["patch"])
    pairs = [op["value"] for op in ops]
    bounds = dict(zip(pairs[::2], pairs[1::2]))
    assert list(bounds) == [p.opts[0] for p in BOUNDS]
    with tempfile.TemporaryDirectory(dir=DEPLOY / "examples") as tmp:  # the example's depth: its paths resolve
        (Path(tmp) / "kustomization.yaml").write_text(uncommented)
        kustomized = render_kustomization(str(Path(tmp).relative_to(DEPLOY)))
    values = {value_key(p): p.type.convert(bounds[p.opts[0]], p, None) for p in BOUNDS}
    assert_equivalent(kustomized, render({"cluster": {"enabled": True, "recovery": "enforce", **values}}))


def rollouts_wait_for_ready(objs: list[dict]) -> list[str]:
    """Each DaemonSet and Deployment whose new pods count as available before they have stayed up long enough
    to show a crash: the agent's for three readiness probes, the cluster component's (no readiness probe) for two
    lease durations. Without minReadySeconds a version that passes its first probe and crashes seconds later rolls
    on across the fleet, maxUnavailable (10%) at a time."""
    lease = ClusterSettings().lease_duration
    bad = []
    for d in objs:
        if d["kind"] not in ("DaemonSet", "Deployment"):
            continue
        probe = d["spec"]["template"]["spec"]["containers"][0].get("readinessProbe")
        need = 3 * probe["periodSeconds"] if probe else 2 * lease
        if d["spec"].get("minReadySeconds", 0) < need:
            bad.append(f"{d['kind']}/{d['metadata']['name']}: minReadySeconds {d['spec'].get('minReadySeconds')} "
                       f"< {need}")
    return bad


@needs_kubectl
def test_a_rollout_counts_a_new_pod_only_once_it_stayed_ready_in_every_rendering():
    """kustomize (both overlays, the cluster component), deploy/daemonset.yaml (kept equal to the observe overlay
    by test_deploy) and the chart (defaults, every ci values file, the cluster component, a pool each): every agent
    DaemonSet and cluster Deployment waits; the chart's values set it, 0 included."""
    renders = [kustomize(p) for p in ("overlays/observe", "overlays/enforce", "examples/cluster")]
    renders += [render(values_of(v) if v else {}) for v in [None, *VALUES]]
    renders.append(render({"cluster": {"enabled": True}}))
    assert all(any(d["kind"] == "DaemonSet" for d in objs) for objs in renders)
    assert sum(d["kind"] == "Deployment" for objs in renders for d in objs) >= 2
    for objs in renders:
        assert not rollouts_wait_for_ready(objs), rollouts_wait_for_ready(objs)
    off = render({"minReadySeconds": 0, "cluster": {"enabled": True, "minReadySeconds": 0}})
    assert {d["spec"]["minReadySeconds"] for d in off if d["kind"] in ("DaemonSet", "Deployment")} == {0}


@needs_kubectl
def test_helm_pod_fault_conditions_are_the_kustomize_component():
    """podFaultConditions.enabled: pods RBAC, the pods admission policy and the PodResources socket's mount."""
    assert_equivalent(kustomize_with("components/pod-fault-conditions", everything=True),
                      render({"podFaultConditions": {"enabled": True}}))


@needs_kubectl
def test_helm_and_kustomize_render_the_same_monitoring_objects():
    helmed = render(values_of(CHART / "ci" / "monitoring-values.yaml"))
    monitoring = [d for d in helmed if d["kind"] in ("PodMonitor", "PrometheusRule")
                  or d["metadata"]["name"].endswith("-grafana-dashboard")]
    assert_equivalent(kustomize("monitoring"), monitoring)


MONITORS = ("PodMonitor", "ServiceMonitor")
# the ci values file scraping by each kind of monitor with the cluster component on
MONITORED = {"podMonitor": "monitoring-values.yaml", "serviceMonitor": "servicemonitor-values.yaml"}


@pytest.mark.parametrize("monitor", MONITORED)
def test_helm_scrapes_the_cluster_components_replicas(monitor):
    """podMonitor.enabled or serviceMonitor.enabled with cluster.enabled (a ci values file each, so linted and
    validated too): the replicas by their own monitor (deploy/monitoring's PodMonitor; a ServiceMonitor and a
    headless Service on their port), none without. serviceMonitor scraped the agents only: the cluster component's
    metrics and alerts had no data."""
    values = values_of(CHART / "ci" / MONITORED[monitor])
    assert values[monitor]["enabled"] and values["cluster"]["enabled"]
    objs = render(values)
    assert_cluster_component_scraped([d for d in objs if d["kind"] in MONITORS], objs)
    alone = {"podMonitor": {("PodMonitor", "gpu-npd")},
             "serviceMonitor": {("ServiceMonitor", "gpu-npd"), ("Service", "gpu-npd-metrics")}}[monitor]
    assert {(d["kind"], d["metadata"]["name"]) for d in render({monitor: {"enabled": True}})
            if d["kind"] in (*MONITORS, "Service")} == alone


def test_the_ci_values_render_every_monitor_and_a_wrong_field_of_one_fails_its_validation():
    """The ci values files render both kinds of monitor for the agents and the cluster component alike, so the lint
    test above validates each, against Prometheus Operator's own CRD schemas (validate_strict; kubernetes-validate has
    none: it only warned, and a misspelt field of a monitor passed every test; no ci file had serviceMonitor with the
    cluster component). The check has teeth: a misspelt or ill-typed field fails it."""
    import jsonschema

    monitors = [d for v in VALUES for d in render(values_of(v)) if d["kind"] in MONITORS]
    names = {(d["kind"], d["metadata"]["name"]) for d in monitors}
    assert {(k, n) for k in MONITORS for n in ("gpu-npd", "gpu-npd-cluster")} <= names, names
    sm = next(d for d in monitors if d["kind"] == "ServiceMonitor" and d["metadata"]["name"] == "gpu-npd-cluster")
    crd_validate(sm)
    for endpoint in ({**sm["spec"]["endpoints"][0], "honourLabels": True},
                     {**sm["spec"]["endpoints"][0], "interval": 30}):
        with pytest.raises(jsonschema.ValidationError):
            crd_validate({**sm, "spec": {**sm["spec"], "endpoints": [endpoint]}})


@needs_kubectl
def test_helm_unprivileged_is_the_kustomize_component():
    sc = lambda ds: ds["spec"]["template"]["spec"]["containers"][0]["securityContext"]  # noqa: E731
    helmed = by_key(render({"kmsgAccess": "unprivileged"}))[("DaemonSet", "gpu-npd")]
    assert sc(helmed) == sc(kustomize_with("components/unprivileged"))
    runtime = by_key(render({"runtimeClassName": "nvidia"}))[("DaemonSet", "gpu-npd")]
    assert normalized(without_hash([runtime])[0]) == \
        normalized(without_hash([kustomize_with("components/nvidia-runtime")])[0])


@pytest.mark.parametrize("values", [None, *VALUES], ids=lambda v: v.name if v else "defaults")
def test_the_agent_starts_on_hosts_without_localtime_or_machine_id(values):
    """As test_deploy's for kustomize: no hostPath of a file some distributions lack, every hostPath read-only but
    the state directory, nothing created on the host but it and the journal's mount point."""
    v = values_of(values) if values else {}
    theirs = {x["name"] for x in v.get("extraVolumes", [])}  # the operator's own volumes: theirs to judge
    for ds in (d for d in render(v) if d["kind"] == "DaemonSet"):
        pod = copy.deepcopy(ds["spec"]["template"]["spec"])
        pod["volumes"] = [x for x in pod["volumes"] if x["name"] not in theirs]
        assert not {"/etc/localtime", "/etc/machine-id"} & set(host_paths(pod))
        assert_host_paths_safe(pod)


@needs_kubectl
def test_helm_host_localtime_is_the_kustomize_component():
    """hostLocaltime: true mounts the host's /etc/localtime read-only (type File), as components/host-localtime."""
    helmed = by_key(render({"hostLocaltime": True}))[("DaemonSet", "gpu-npd")]
    kustomized = kustomize_with("components/host-localtime")
    assert normalized(without_hash([helmed])[0]) == normalized(without_hash([kustomized])[0])
    assert_host_paths_safe(helmed["spec"]["template"]["spec"], optional=frozenset({"/etc/localtime"}))


def test_node_pools_one_install_two_behaviours(tmp_path):
    objs = by_key(render(values_of(CHART / "ci" / "pools-values.yaml")))
    canary, fleet = objs[("DaemonSet", "gpu-npd-canary")], objs[("DaemonSet", "gpu-npd-fleet")]
    assert ("DaemonSet", "gpu-npd") not in objs
    pods = [ds["spec"]["template"]["spec"] for ds in (canary, fleet)]
    assert [p["nodeSelector"] for p in pods] == [{"nvidia.com/gpu.present": "true", "gpu-npd.io/pool": "canary"},
                                                 {"nvidia.com/gpu.present": "true", "gpu-npd.io/pool": "fleet"}]
    assert canary["spec"]["selector"]["matchLabels"] != fleet["spec"]["selector"]["matchLabels"]
    env = [{e["name"]: e.get("value") for e in p["containers"][0]["env"]} for p in pods]
    assert [e["GPU_NPD_MODE"] for e in env] == ["enforce", "observe"]
    assert pods[0]["containers"][0]["securityContext"]["privileged"] is True
    assert pods[1]["containers"][0]["securityContext"]["capabilities"]["add"] == ["SYSLOG", "DAC_READ_SEARCH"]
    assert pods[1]["containers"][0]["resources"]["limits"] == {"cpu": "1", "memory": "512Mi"}
    configs = []
    for pool, pod in zip(("canary", "fleet"), pods):
        assert pod["volumes"][6]["name"] == "config"
        name = pod["volumes"][6]["configMap"]["name"]
        assert re.fullmatch(rf"gpu-npd-{pool}-[0-9a-f]{{10}}", name), name
        conf = tmp_path / f"{pool}.yaml"
        conf.write_text(objs[("ConfigMap", name)]["data"]["config.yaml"])
        configs.append(load(str(conf), env={"GPU_NPD_MODE": env[len(configs)]["GPU_NPD_MODE"]}))
    assert [c.kube.max_tainted_fraction for c in configs] == [0.5, 0.1]  # the pool's config over the global one
    assert [[t.condition for t in c.kube.taints] for c in configs] == [["GPUUnhealthy"],
                                                                       ["GPUUnhealthy", "NVLinkUnhealthy",
                                                                        "InfiniBandUnhealthy"]]


def agent_configmaps(values: dict) -> dict[str, dict]:
    """Each DaemonSet's name -> the ConfigMap its agents mount (asserted rendered)."""
    objs = render(values)
    found = by_key(objs)
    return {ds["metadata"]["name"]: found[("ConfigMap", next(v["configMap"]["name"] for v in
                                                             ds["spec"]["template"]["spec"]["volumes"]
                                                             if v["name"] == "config"))]
            for ds in objs if ds["kind"] == "DaemonSet"}


def test_an_agents_configmap_is_named_by_its_content_immutable_and_kept_by_an_upgrade():
    """A plain ConfigMap updated in place (h383's review): a bad configuration reached, at once, every agent pod that
    restarted for any reason (a reboot, an OOM kill, an eviction), however slowly the DaemonSet rolled: the fleet, not
    the rollout's tenth. Named by a hash of its content (as kustomize's generator), immutable, and kept by `helm
    upgrade` (resource-policy keep): an old pod that restarts mounts the configuration it ran with; only the pods the
    rollout reaches see the new one. The name is the pod template's only tie to the content (no checksum annotation)."""
    from hashlib import sha256

    pools = values_of(CHART / "ci" / "pools-values.yaml")
    before = agent_configmaps(pools)
    assert set(before) == {"gpu-npd-canary", "gpu-npd-fleet"}
    for ds, cm in before.items():
        content = cm["data"]["config.yaml"]
        assert cm["metadata"]["name"] == f"{ds}-{sha256(content.removesuffix(chr(10)).encode()).hexdigest()[:10]}"
        assert cm["immutable"] is True and cm["metadata"]["annotations"] == {"helm.sh/resource-policy": "keep"}
    assert agent_configmaps(pools) == before  # the same values: the same names, nothing new to roll
    changed = copy.deepcopy(pools)
    changed["nodePools"][1].setdefault("config", {})["log_level"] = "debug"  # the fleet pool's configuration only
    after = agent_configmaps(changed)
    assert after["gpu-npd-canary"] == before["gpu-npd-canary"]
    assert after["gpu-npd-fleet"]["metadata"]["name"] != before["gpu-npd-fleet"]["metadata"]["name"]
    templates = {ds["metadata"]["name"]: ds["spec"]["template"] for ds in render(pools) if ds["kind"] == "DaemonSet"}
    assert all("checksum/config" not in t["metadata"].get("annotations", {}) for t in templates.values())
    assert next(d for d in render({"podAnnotations": {"a": "b"}}) if d["kind"] == "DaemonSet"  # still rendered
                )["spec"]["template"]["metadata"]["annotations"] == {"a": "b"}


@pytest.mark.parametrize("values, error", [
    ({"nodePools": [{"name": "a", "nodeSelector": {"p": "x"}}, {"name": "b", "nodeSelector": {"p": "x"}}]},
     'the same nodeSelector as pool "a"'),
    ({"nodePools": [{"name": "a"}]}, "a nodeSelector is needed"),
    ({"nodePools": [{"name": "A_B", "nodeSelector": {"p": "x"}}]}, "must be a DNS label"),
    ({"config": {"mode": "enforce"}}, "set mode, not config.mode"),
    ({"config": {"kubernetes": {"taints": []}}}, "set taints, not config.kubernetes.taints"),
    ({"mode": "enforcing"}, 'mode "enforcing"'),
    ({"kmsgAccess": "device"}, 'kmsgAccess "device"'),
    ({"cluster": {"enabled": True, "recovery": "on"}}, 'cluster.recovery "on"'),
    # enforce with tolerations that miss gpu-npd's own taints: the DaemonSet controller never puts the agent back on
    # a node it tainted (an upgrade, an eviction; NoExecute evicts it at once), and nothing clears the taint
    ({"mode": "enforce", "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]},
     f"tolerations do not tolerate gpu-npd's taint {TAINT_PREFIX}GPUUnhealthy:NoSchedule"),
    # taints null (the default): checked against every one of the agent's built-in taints
    ({"mode": "enforce", "tolerations": [{"key": f"{TAINT_PREFIX}GPUUnhealthy", "operator": "Exists"}]},
     f"tolerations do not tolerate gpu-npd's taint {TAINT_PREFIX}NVLinkUnhealthy:NoSchedule"),
    ({"mode": "enforce", "taints": [{"condition": "GPUUnhealthy", "effect": "NoExecute"}],
      "tolerations": [{"key": f"{TAINT_PREFIX}GPUUnhealthy", "operator": "Exists", "effect": "NoSchedule"}]},
     f"{TAINT_PREFIX}GPUUnhealthy:NoExecute"),
    ({"mode": "enforce", "config": {"kubernetes": {"taint_prefix": "example.com/"}},
      "tolerations": [{"key": f"{TAINT_PREFIX}GPUUnhealthy", "operator": "Exists"}]}, "example.com/GPUUnhealthy"),
    ({"nodePools": [{"name": "a", "nodeSelector": {"p": "x"}, "mode": "enforce", "tolerations": []}]},
     r"nodePools\[a\]: tolerations do not tolerate"),
    # a condition with a domain of its own is tainted by its name (agent/kube/desired.py taint_key), not
    # gpu-npd.io/example.com/GPUHot, which is no taint key
    ({"mode": "enforce", "config": {"conditions": {"example.com/GPUHot": {"ok_reason": "Cool", "ok_message": "ok"}}},
      "taints": [{"condition": "example.com/GPUHot"}],
      "tolerations": [{"key": f"{TAINT_PREFIX}example.com/GPUHot", "operator": "Exists"}]},
     f"tolerations do not tolerate gpu-npd's taint {TAINT_PREFIX}GPUHot:NoSchedule"),
    # a surged agent cannot start beside the old one on its node (hostNetwork metrics port, the state directory's lock)
    ({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}},
     r"updateStrategy.rollingUpdate.maxSurge 1: expected 0 \(a surged agent cannot start beside the old one"),
    ({"updateStrategy": {"rollingUpdate": {"maxSurge": "10%", "maxUnavailable": 0}}},
     r"updateStrategy.rollingUpdate.maxSurge 10%: expected 0"),
])
def test_values_that_would_hurt_fail_the_render_with_a_message(values, error):
    with pytest.raises(helm.HelmError, match=error):
        render(values)


@pytest.mark.parametrize("strategy", [
    {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
    {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "0%"}},
    {"type": "RollingUpdate", "rollingUpdate": None}, {"type": "OnDelete"}, None])
def test_an_update_strategy_without_surge_renders(strategy):
    """The check reads a missing or null rollingUpdate or maxSurge as 0, as Kubernetes does (the chart's values merge
    over values.yaml's, so OnDelete keeps its rollingUpdate)."""
    ds = next(d for d in render({"updateStrategy": strategy}) if d["kind"] == "DaemonSet")
    assert (ds["spec"].get("updateStrategy") or {}).get("rollingUpdate", {}).get("maxSurge") in (None, 0, "0%")


@pytest.mark.parametrize("tolerations", [
    [{"operator": "Exists"}],
    [{"key": f"{TAINT_PREFIX}{c}", "operator": "Exists"} for c in ("GPUUnhealthy", "NVLinkUnhealthy", "InfiniBandUnhealthy")],
    [{"key": f"{TAINT_PREFIX}{c}", "operator": "Exists", "effect": "NoSchedule"}
     for c in ("GPUUnhealthy", "NVLinkUnhealthy", "InfiniBandUnhealthy")],
])
def test_tolerations_of_gpu_npds_own_taints_render(tolerations):
    ds = next(d for d in render({"mode": "enforce", "tolerations": tolerations}) if d["kind"] == "DaemonSet")
    assert ds["spec"]["template"]["spec"]["tolerations"] == tolerations
    render({"mode": "observe", "tolerations": []})  # observe writes no taint: nothing to tolerate
    render({"mode": "enforce", "tolerations": [],  # nor does PreferNoSchedule keep a pod off a node
            "taints": [{"condition": "GPUUnhealthy", "effect": "PreferNoSchedule"}]})


_COOL = {"ok_reason": "Cool", "ok_message": "ok"}


@pytest.mark.parametrize("mode", ["enforce", "observe"])
@pytest.mark.parametrize("kube, conditions, taints", [
    # two conditions, one key: example.com/GPUHot is tainted by its name (agent/kube/desired.py taint_key)
    ({}, {"example.com/GPUHot": _COOL, "GPUHot": _COOL}, [{"condition": "example.com/GPUHot"}, {"condition": "GPUHot"}]),
    # a prefix the schema's pattern admits but a qualified name does not: 255 characters before its '/'; the
    # built-in taints (taints null) are checked too
    ({"taint_prefix": ".".join(["a" * 63] * 4) + "/"}, None, None),
    # a condition of 64 characters after its domain: no taint key's name
    ({}, {f"example.com/{'G' * 64}": _COOL}, [{"condition": f"example.com/{'G' * 64}"}]),
    # one condition under two taint rules: one key, and the last rule that held would be written over the other
    ({}, None, [{"condition": "GPUUnhealthy"}, {"condition": "GPUUnhealthy", "effect": "NoExecute"}]),
    # a taint rule naming a condition nothing raises (a typo): rendered before, the agent crash-looping
    ({}, None, [{"condition": "GPUUnhealty"}]),
    # conditions replace the kind table's whole: the built-in taints (taints null) name conditions no longer there
    ({}, {"GPUHot": _COOL}, None),
    # a prefix or annotation key in a domain Kubernetes reserves ("Kubernetes reserves all labels, annotations and
    # taints in the kubernetes.io and k8s.io namespaces": kubernetes.io/docs/reference/labels-annotations-taints),
    # a subdomain of it too, or in a vendor's (kubeapi/reserved.py RESERVED_DOMAINS)
    ({"taint_prefix": "node.kubernetes.io/"}, None, None),
    ({"taint_prefix": "k8s.io/"}, None, None),
    ({"taint_prefix": "nvidia.com/"}, None, None),
    ({"repair_annotation_key": "kubernetes.io/repair"}, None, None),
])
def test_taint_keys_the_agent_refuses_fail_the_render_with_its_message(mode, kube, conditions, taints, tmp_path):
    """The agent refuses at start, in every mode, a taint key that is no qualified name or one two conditions or two
    rules share, a taint rule whose condition it does not know, and a taint prefix or repair annotation key in
    someone else's domain (agent/kube/settings.py check): the chart rendered them, a DaemonSet crash-looping on every
    node. Its render fails with the agent's own line instead, for the global values and a pool's."""
    from agent.config import ConfigError

    config = {"kubernetes": kube, **({"conditions": conditions} if conditions else {})}
    agent_config = {"mode": mode, **config, "kubernetes": {**kube, **({"taints": taints} if taints else {})}}
    conf = tmp_path / "c.yaml"
    conf.write_text(yaml.safe_dump(agent_config))
    with pytest.raises(ConfigError) as refused:
        load(str(conf), env={})
    said = str(refused.value).split("kubernetes.", 1)[1]  # "taints[i].condition: ...", "taint_prefix: ..."
    tolerations = [{"operator": "Exists"}]
    with pytest.raises(helm.HelmError) as err:
        render({"mode": mode, "config": config, "taints": taints, "tolerations": tolerations})
    assert said in str(err.value)
    with pytest.raises(helm.HelmError) as err:
        render({"nodePools": [{"name": "a", "nodeSelector": {"p": "x"}, "mode": mode, "config": config,
                               "taints": taints, "tolerations": tolerations}]})
    assert re.search(rf"nodePools\[a\]: (config\.kubernetes\.)?{re.escape(said)}", str(err.value)), err.value


@pytest.mark.parametrize("enabled", [True, False])
def test_a_taint_rule_on_an_enabled_builtin_checks_condition_renders_and_the_agent_takes_it(enabled, tmp_path,
                                                                                         monkeypatch):
    """A taint rule may name the condition of a built-in check the configuration enables, on a node without the
    check's tool too (dcgmi: one configuration for a fleet where DCGM is on some nodes); where checks are off it
    names nothing, and the render fails with the agent's line."""
    from agent.checks import builtin
    from agent.config import ConfigError

    monkeypatch.setattr(builtin.shutil, "which", lambda _: None)  # this node has no dcgmi
    config = {"checks": {"enabled": enabled, "builtin": {"dcgm": {"enabled": True, "condition": "DCGMLevel2"}}}}
    values = {"config": config, "taints": [{"condition": "DCGMLevel2"}]}
    conf = tmp_path / "config.yaml"
    if enabled:
        cm = next(d for d in render(values) if d["kind"] == "ConfigMap" and "config.yaml" in d["data"])
        conf.write_text(cm["data"]["config.yaml"])
        taints = load(str(conf), env={"GPU_NPD_METRICS_ADDRESS": "10.0.0.7:9810"}).kube.taints
        assert [t.condition for t in taints] == ["DCGMLevel2"]
        return
    conf.write_text(yaml.safe_dump({**config, "kubernetes": {"taints": values["taints"]}}))
    with pytest.raises(ConfigError) as refused:
        load(str(conf), env={})
    with pytest.raises(helm.HelmError) as err:
        render(values)
    assert str(refused.value).split("kubernetes.", 1)[1] in str(err.value)


def test_a_prefix_of_253_renders(tmp_path):
    """Only what the agent refuses fails: a prefix of exactly 253 characters renders and the agent accepts it."""
    for values in ({"config": {"kubernetes": {"taint_prefix": ".".join(["a" * 63] * 4)[:253] + "/"}}},):
        cm = next(d for d in render(values) if d["kind"] == "ConfigMap" and "config.yaml" in d["data"])
        conf = tmp_path / "config.yaml"
        conf.write_text(cm["data"]["config.yaml"])
        load(str(conf), env={"GPU_NPD_METRICS_ADDRESS": "10.0.0.7:9810"})


def test_extra_objects_and_monitoring_labels_and_relabelings():
    objs = by_key(render(values_of(CHART / "ci" / "everything-values.yaml")))
    assert ("NetworkPolicy", "gpu-npd-deny-ingress") in objs
    sm = objs[("ServiceMonitor", "gpu-npd")]
    assert sm["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert sm["spec"]["endpoints"][0]["metricRelabelings"][0]["action"] == "drop"
    svc = objs[("Service", "gpu-npd-metrics")]
    assert svc["spec"]["clusterIP"] == "None" and svc["spec"]["selector"] == sm["spec"]["selector"]["matchLabels"]
    rule = objs[("PrometheusRule", "gpu-npd")]
    shipped = yaml.safe_load((DEPLOY / "monitoring" / "prometheusrule.yaml").read_text())
    assert rule["spec"] == shipped["spec"]  # one rule file, linked into the chart
    ds = objs[("DaemonSet", "gpu-npd")]["spec"]["template"]["spec"]
    assert ds["containers"][0]["image"] == "registry.example.com/infra/gpu-npd:0.1.0-rc1"
    assert ds["runtimeClassName"] == "nvidia" and ds["volumes"][-1]["name"] == "fm-logs"


def test_release_names_and_namespaces_reach_every_reference():
    objs = by_key(render({}, name="npd", namespace="gpu-ops"))
    ds = objs[("DaemonSet", "npd-gpu-npd")]
    assert ds["metadata"]["namespace"] == "gpu-ops" and ds["spec"]["template"]["spec"]["serviceAccountName"] == "npd-gpu-npd"
    vap = objs[("ValidatingAdmissionPolicy", "npd-gpu-npd-own-node-only")]
    assert "system:serviceaccount:gpu-ops:npd-gpu-npd" in vap["spec"]["matchConditions"][0]["expression"]
    assert objs[("ClusterRoleBinding", "npd-gpu-npd")]["subjects"][0]["namespace"] == "gpu-ops"
    objs = by_key(render({"cluster": {"enabled": True}, "podFaultConditions": {"enabled": True}}, name="npd",
                         namespace="gpu-ops"))
    vap = objs[("ValidatingAdmissionPolicy", "npd-gpu-npd-pod-fault-condition-only")]
    assert "system:serviceaccount:gpu-ops:npd-gpu-npd" in vap["spec"]["matchConditions"][0]["expression"]
    deployment = objs[("Deployment", "npd-gpu-npd-cluster")]["spec"]["template"]["spec"]
    args = deployment["containers"][0]["args"]
    lease = objs[("Role", "npd-gpu-npd-cluster-leader")]["rules"][1]["resourceNames"]
    assert lease == [args[args.index("--lease-name") + 1]] == ["npd-gpu-npd-cluster"]  # its Lease, and only it
    assert deployment["serviceAccountName"] == "npd-gpu-npd-cluster"
    assert objs[("RoleBinding", "npd-gpu-npd-cluster-leader")]["subjects"][0]["namespace"] == "gpu-ops"


def test_cleanup_hook_runs_after_uninstall_with_the_agents_configs():
    from click.testing import CliRunner

    from gpunpd.cli import main

    objs = [d for d in render(values_of(CHART / "ci" / "pools-values.yaml"), hooks=True)
            if HOOK in d["metadata"].get("annotations", {})]
    assert {d["metadata"]["annotations"][HOOK] for d in objs} == {"post-delete"}
    job = next(d for d in objs if d["kind"] == "Job")
    args = job["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[:2] == ["cleanup", "--apply"] and "--config=/etc/gpu-npd/canary.yaml" in args
    cm = next(d for d in objs if d["kind"] == "ConfigMap")
    assert set(cm["data"]) == {"canary.yaml", "fleet.yaml"}
    res = CliRunner().invoke(main, [*args, "--help"])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("values", [None, *VALUES], ids=lambda v: v.name if v else "defaults")
def test_critical_priority_pods_are_admitted_where_the_class_is_quota_limited(values):
    """GKE admits system-node-critical / system-cluster-critical pods only in a namespace whose ResourceQuota
    selects those classes (test_deploy.critical_pods_unadmitted): the chart ships one wherever it uses them, in the
    release's namespace, and none where it does not."""
    v = values_of(values) if values else {}
    objs = render(v, namespace="gpu-ops", hooks=True)
    assert critical_pods_unadmitted(objs) == []
    assert [d["metadata"]["namespace"] for d in objs if d["kind"] == "ResourceQuota"] == ["gpu-ops"]
    plain = render({**v, "priorityClassName": "", "cluster": {**v.get("cluster", {}), "priorityClassName": ""}})
    assert not [d for d in plain if d["kind"] == "ResourceQuota"]


def test_the_chart_version_is_the_project_version():
    from parsers.version import VERSION as project
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["version"] == chart["appVersion"] == project


def test_the_budgets_configmaps_a_configuration_names_are_the_ones_granted():
    """kubernetes.taint_budget_configmap / dra_budget_configmap set in the config (or a pool's): the Role and the
    cleanup hook grant those names; a budget in another namespace than the release's fails the render (its Role
    could not reach it)."""
    values = {"config": {"kubernetes": {"taint_budget_configmap": "gpu-npd/fleet-taints"}},
              "nodePools": [{"name": "a", "nodeSelector": {"pool": "a"}},
                            {"name": "b", "nodeSelector": {"pool": "b"},
                             "config": {"kubernetes": {"dra_budget_configmap": "b-gpus"}}}]}
    objs = by_key(render(values, hooks=True))
    for key in (("Role", "gpu-npd-budgets"), ("ClusterRole", "gpu-npd-cleanup")):
        names = next(r["resourceNames"] for r in objs[key]["rules"] if r["resources"] == ["configmaps"])
        assert sorted(names) == ["b-gpus", "fleet-taints", "gpu-npd-dra-budget"], (key, names)
    with pytest.raises(helm.HelmError, match="must be in the release.s namespace"):
        render({"config": {"kubernetes": {"taint_budget_configmap": "kube-system/taints"}}})


def test_the_charts_values_schema_is_the_declarations():
    """values.schema.json derives from agent/settings.py (agent/config.py values_schema()): a key added, renamed or
    bounded there and not here fails this, and so does a new sink's or built-in check's row (a key, or a key's doc,
    derives from it); `make schema` writes it (no kubectl needed; `make manifests` runs it)."""
    import json

    from agent.config import values_schema

    assert json.loads((CHART / "values.schema.json").read_text()) == values_schema(), \
        "run `make schema`"


@pytest.mark.parametrize("config, where, error, key", [
    ({"mod": "enforce"}, "/config", "additional properties 'mod' not allowed", "mod"),  # a typo of mode
    ({"kubernetes": {"max_tainted_fracton": 0.2}}, "/config/kubernetes",
     "additional properties 'max_tainted_fracton' not allowed", "kubernetes.max_tainted_fracton"),
    ({"workload_hang": {"k": 3, "florr_seconds": 60}}, "/config/workload_hang",
     "additional properties 'florr_seconds' not allowed", "workload_hang.florr_seconds"),
    ({"tick_seconds": "soon"}, "/config/tick_seconds", "does not match pattern", "tick_seconds"),
    ({"tick_seconds": 0}, "/config/tick_seconds", "exclusiveMinimum", "tick_seconds"),
    ({"kubernetes": {"max_tainted_fraction": [0.1]}}, "/config/kubernetes/max_tainted_fraction", "got array",
     "kubernetes.max_tainted_fraction"),
    ({"log_format": "xml"}, "/config/log_format", "value must be one of", "log_format"),
    ({"kubernetes": {"taint_prefix": "example.com"}}, "/config/kubernetes/taint_prefix", "does not match pattern",
     "kubernetes.taint_prefix"),
    ({"udev": 2}, "/config/udev", "maximum", "udev"),
])
def test_a_misspelt_or_ill_typed_config_key_fails_the_render_naming_it(config, where, error, key, tmp_path):
    """h383's review: a typo'd key passed `helm template` and reached the nodes, where every agent given it exits.
    The schema refuses it at `helm install / upgrade / template / lint`, one line naming the key, for the global
    config and a pool's; the agent refuses the same key (its error names it too)."""
    from agent.config import ConfigError

    for values, at in (({"config": config}, where),
                       ({"nodePools": [{"name": "a", "nodeSelector": {"p": "x"}, "config": config}]},
                        where.replace("/config", "/nodePools/0/config"))):
        with pytest.raises(helm.HelmError) as err:
            render(values)
        line = next(x for x in str(err.value).splitlines() if f"at '{at}'" in x)
        assert error in line, str(err.value)
    conf = tmp_path / "c.yaml"
    conf.write_text(yaml.safe_dump(config))
    with pytest.raises(ConfigError, match=rf"(^|: ){re.escape(key)}: "):
        load(str(conf), env={})


def test_what_the_agent_accepts_the_schema_accepts(tmp_path):
    """The schema is no stricter than the agent: the whole built-in configuration (but mode and kubernetes.taints,
    which the chart sets from its own values) and the agent's lax readings (text for numbers and booleans, a
    comma-separated list at the top level, a number for a string) render."""
    import json

    from agent.settings import defaults

    full = json.loads(json.dumps(defaults()))  # (Xid codes as keys: text, as YAML values give Helm them)
    del full["mode"], full["kubernetes"]["taints"]
    lax = {"tick_seconds": "2.5", "max_problems": 4096.0, "journald": "yes", "udev": 1, "log_files": "/a.log,/b.log",
           "node_name": 7, "kubernetes": {"burst": "20", "repair_annotation": "true", "qps": 5}}
    for config in (full, lax):
        conf = tmp_path / "c.yaml"
        conf.write_text(yaml.safe_dump(config))
        load(str(conf), env={})  # the agent accepts it
        assert any(d["kind"] == "DaemonSet" for d in render({"config": config}))


def named_values(text: str) -> set[str]:
    """The chart values a page names: the first column of its values table (`| value | default | what |`), each
    `--set` path, and a value after "Helm" in prose (Helm `x: y`, Helm's `x`, Helm: `x`), list indices dropped."""
    names = set()
    table = re.search(r"^\| value \| default \| what \|\n\|[- |]+\|\n((?:\|.*\n)+)", text, re.M)
    if table:
        names |= {n for row in table.group(1).splitlines() for n in re.findall(r"`([^`]+)`", row.split("|")[1])}
    for arg in re.findall(r"--set '?([^ ']+)", text):
        names |= {a.split("=")[0] for a in arg.split(",") if "=" in a}
    names |= set(re.findall(r"Helm(?:'s|:)?\s+`([A-Za-z][\w.]*)", text))
    return {re.sub(r"\[\d+\]", "", n) for n in names}


def missing_value(name: str, values: dict, config_schema: dict) -> bool:
    """Whether a dotted value path is no value of the chart: `config.` paths are the agent's keys (the schema
    generated from agent/settings.py); a key under labels, annotations, a selector or a list is the user's own."""
    node, schema, parent = values, None, ""
    for key in name.split("."):
        if schema is not None:
            props = schema.get("properties")
            if props is None:
                return False  # a free-form block of the agent's configuration
            if key not in props:
                return True
            schema = props[key]
        elif isinstance(node, list) or parent.endswith(("labels", "Labels", "Annotations", "Selector")):
            return False  # the user's keys: nodePools' and imagePullSecrets' items, podMonitor.labels.release
        elif isinstance(node, dict) and key in node:
            if node is values and key == "config":
                schema = config_schema
            node, parent = node[key], key
        else:
            return True
    return False


@pytest.mark.parametrize("page", ["install.md", "operations.md"])
def test_every_chart_value_the_docs_name_is_one_of_values_yaml(page):
    """An SRE copies a value's name from the page into `--set` or a values file: each one docs/install.md's table, a
    `--set` or "Helm `x`" names is in values.yaml (or, under `config.`, one of the agent's keys), so a renamed or
    misspelt value fails here, not silently in a rollout (Helm ignores a value the chart does not read)."""
    import json

    values = values_of(CHART / "values.yaml")
    schema = json.loads((CHART / "values.schema.json").read_text())
    text = (DEPLOY.parent / "docs" / page).read_text()
    names = named_values(text)
    assert len(names) >= {"install.md": 40, "operations.md": 3}[page], names  # the parse found them
    config = schema["definitions"]["config"]
    missing = sorted(n for n in names if missing_value(n, values, config))
    assert not missing, missing
    for name, wrong in [("podMonitor.labels.release", False), ("config.kubernetes.max_tainted_fraction", False),
                        ("nodePools.mode", False), ("podMonitor.enabeld", True), ("rbac.extraConditions", True),
                        ("config.kubernetes.max_tainted_fractions", True), ("metricsPort.host", True),
                        ("image.registry", True)]:
        assert missing_value(name, values, config) is wrong, name  # the check has teeth
