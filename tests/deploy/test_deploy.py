"""Manifests, alert rules and the dashboard: validated by the real tools."""

from __future__ import annotations

import copy
import functools
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
from crd_schemas import validate as crd_validate
from parsers.model import Change

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
PROMTOOL = shutil.which("promtool")
KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None and not os.environ.get("CI"),
                                   reason="kubectl not installed (.ci/run installs it)")
OVERLAYS = ("overlays/observe", "overlays/enforce")
needs_promtool = pytest.mark.skipif(PROMTOOL is None and not os.environ.get("CI"),
                                    reason="promtool not installed (.ci/run installs it)")


def docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def render_kustomization(path: str) -> list[dict]:
    """What `kubectl apply -k deploy/<path>` applies: rendered by the real kubectl."""
    assert KUBECTL, "kubectl is needed to render the kustomizations"
    r = subprocess.run([KUBECTL, "kustomize", str(DEPLOY / path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [d for d in yaml.safe_load_all(r.stdout) if d]


@functools.cache
def _shipped(path: str) -> list[dict]:
    return render_kustomization(path)


def kustomize(path: str) -> list[dict]:
    """`render_kustomization` of a tree shipped in deploy/: rendered once a run (the suite changes none of them; the
    overlays a test writes are rendered each time, by render_kustomization), each caller given its own copy."""
    return copy.deepcopy(_shipped(path))


CRD_GROUPS = ("monitoring.coreos.com",)  # objects of other projects' CRDs, their schemas in tests/fixtures/crds/


def validate_strict(objs: list[dict], tmp_path: Path) -> subprocess.CompletedProcess:
    """Every object valid, unknown fields errors: kubernetes-validate --strict against the 1.30 schemas (the minimum
    version the README states), each one passed; Prometheus Operator's objects, for which it has no schema (it only
    warns), against the operator's own CRD schemas."""
    core = [d for d in objs if d["apiVersion"].split("/")[0] not in CRD_GROUPS]
    for d in objs:
        if d not in core:
            crd_validate(d)
    rendered = tmp_path / "rendered.yaml"
    rendered.write_text(yaml.safe_dump_all(core))
    exe = Path(sys.executable).with_name("kubernetes-validate")
    r = subprocess.run([str(exe), "--strict", "--kubernetes-version", "1.30", str(rendered)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count(" passed for resource ") == len(core), r.stdout
    return r


@needs_kubectl
@pytest.mark.parametrize("path", [*OVERLAYS, "monitoring"])
def test_what_kubectl_applies_passes_kubernetes_validate_strict(path, tmp_path):
    validate_strict(kustomize(path), tmp_path)


@needs_kubectl
def test_deploy_daemonset_yaml_is_the_observe_overlay_rendered():
    """deploy/daemonset.yaml (the design card's file, for `kubectl apply -f`): the observe overlay as kustomize renders
    it, whole (the generated ConfigMap with its hashed name included: a link to the base lacked it once the ConfigMap
    was generated, and its DaemonSet would have waited for a ConfigMap that never came). `make manifests` writes it."""
    assert docs(DEPLOY / "daemonset.yaml") == kustomize("overlays/observe"), "run `make manifests`"


@needs_kubectl
@pytest.mark.parametrize("overlay, mode", [("overlays/observe", "observe"), ("overlays/enforce", "enforce")])
def test_daemonset_wiring(overlay, mode, tmp_path):
    objs = {(d["kind"], d["metadata"]["name"]): d for d in kustomize(overlay)}
    ds = objs[("DaemonSet", "gpu-npd")]["spec"]["template"]["spec"]
    c = ds["containers"][0]
    assert ds["priorityClassName"] == "system-node-critical" and {"operator": "Exists"} in ds["tolerations"]
    env = {e["name"]: e for e in c["env"]}
    assert env["NODE_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "spec.nodeName"}}
    assert env["GPU_NPD_MODE"]["value"] == mode and env["GPU_NPD_METRICS_ADDRESS"]["value"] == "$(POD_IP):9810"
    assert (c["livenessProbe"]["httpGet"]["path"], c["readinessProbe"]["httpGet"]["path"]) == ("/livez", "/healthz")
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    for path in ("/dev/kmsg", "/var/log", "/host/sys", "/run/log/journal", "/host/proc", "/etc/gpu-npd"):
        assert mounts[path].get("readOnly") is True, path
    assert not mounts["/var/lib/gpu-npd"].get("readOnly")
    sc = c["securityContext"]  # privileged for /dev/kmsg only; the rest as tight as the pod allows
    assert sc == {"privileged": True, "runAsUser": 0, "readOnlyRootFilesystem": True,
                  "seccompProfile": {"type": "RuntimeDefault"}}
    assert ds["enableServiceLinks"] is False and not ds.get("hostPID") and not ds.get("hostIPC")
    image = re.search(r"^IMAGE\s*\?=\s*(\S+)", (DEPLOY.parent / "Makefile").read_text(), re.M)
    assert image and c["image"] == image.group(1).replace("$(VERSION)", "0.1.0")  # what `make image` tags
    rules = objs[("ClusterRole", "gpu-npd")]["rules"]
    assert {"apiGroups": [""], "resources": ["nodes/status"], "verbs": ["patch"]} in rules
    vap = objs[("ValidatingAdmissionPolicy", "gpu-npd-own-node-only")]
    assert "authentication.kubernetes.io/node-name" in vap["spec"]["validations"][0]["expression"]
    cm = agent_configmap(list(objs.values()))
    conf = tmp_path / "config.yaml"
    conf.write_text(cm["data"]["config.yaml"])
    cfg = load(str(conf), env={"GPU_NPD_MODE": env["GPU_NPD_MODE"]["value"], "GPU_NPD_METRICS_ADDRESS": "10.0.0.7:9810"})
    assert cfg.mode == mode and cfg.metrics_host_port == ("10.0.0.7", 9810)



def operator_overlay(base: str, extra: dict, files: dict[str, str] | None = None) -> list[dict]:
    """An operator's own overlay over deploy/<base>: `extra` added to its kustomization, `files` beside it."""
    import tempfile

    with tempfile.TemporaryDirectory(dir=DEPLOY / "overlays") as tmp:
        for name, text in (files or {}).items():
            (Path(tmp) / name).write_text(text)
        (Path(tmp) / "kustomization.yaml").write_text(yaml.safe_dump({
            "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
            "resources": [f"../../{base}"], **extra}))
        return render_kustomization(str(Path(tmp).relative_to(DEPLOY)))


def agent_configmap(objs: list[dict]) -> dict:
    """The agents' ConfigMap: the one the DaemonSet's `config` volume names (kustomize adds a content hash)."""
    ds = next(d for d in objs if d["kind"] == "DaemonSet")
    name = next(v["configMap"]["name"] for v in ds["spec"]["template"]["spec"]["volumes"] if v["name"] == "config")
    return next(d for d in objs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == name)


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_a_configuration_change_rolls_the_agents(overlay):
    """The agent reads its configuration once, at start: a `kubectl apply -k` that changes it must change the pod
    template, or every agent keeps the old configuration until it happens to restart (the fleet drifts silently),
    and then reads the new one at once, rolled or not (a bad one: every restarting agent down). kustomize: the
    ConfigMap is generated with a content hash in its name, which the DaemonSet's volume follows, and immutable (as
    the chart's, test_helm.py). Both ways an operator changes it: a patch of the ConfigMap, or a configMapGenerator
    merge of their own config.yaml (docs/install.md)."""
    shipped = kustomize(overlay)
    cm = agent_configmap(shipped)
    assert re.fullmatch(r"gpu-npd-[a-z0-9]{10}", cm["metadata"]["name"]), cm["metadata"]["name"]
    assert cm["immutable"] is True
    changed = yaml.safe_load(cm["data"]["config.yaml"])
    changed.setdefault("kubernetes", {})["max_tainted_fraction"] = 0.05
    patched = operator_overlay(overlay, {"patches": [{"target": {"kind": "ConfigMap", "name": "gpu-npd"}, "patch":
                                                      yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap",
                                                                      "metadata": {"name": "gpu-npd"},
                                                                      "data": {"config.yaml": yaml.safe_dump(changed)}})}]})
    # as docs/install.md's overlay: `immutable` said again (kustomize 5.5's merge drops the base's)
    merged = operator_overlay(overlay, {"configMapGenerator": [{"name": "gpu-npd", "namespace": "gpu-npd",
                                                                "behavior": "merge", "files": ["config.yaml"],
                                                                "options": {"immutable": True}}]},
                              {"config.yaml": yaml.safe_dump(changed)})
    template = lambda objs: next(d for d in objs if d["kind"] == "DaemonSet")["spec"]["template"]  # noqa: E731
    for objs in (patched, merged):
        assert yaml.safe_load(agent_configmap(objs)["data"]["config.yaml"]) == changed  # what the pods mount
        assert agent_configmap(objs)["immutable"] is True
        assert template(objs) != template(shipped)  # a new pod template: the DaemonSet rolls
        assert [d["metadata"]["name"] for d in objs if d["kind"] == "ConfigMap"] == [
            agent_configmap(objs)["metadata"]["name"]]  # one agent ConfigMap, the one mounted


def host_paths(pod: dict) -> dict[str, tuple[dict, list[dict]]]:
    """Each hostPath volume of a pod template by host path: the volume's hostPath and its mounts in every container."""
    mounts = [m for c in pod.get("initContainers", []) + pod["containers"] for m in c.get("volumeMounts", [])]
    return {v["hostPath"]["path"]: (v["hostPath"], [m for m in mounts if m["name"] == v["name"]])
            for v in pod["volumes"] if "hostPath" in v}


# What the kubelet does with each hostPath type (Kubernetes docs, Concepts > Storage > Volumes > hostPath) when the
# path is missing on the node: Directory, File, Socket, CharDevice, BlockDevice refuse the pod (it never starts:
# "hostPath type check failed"); DirectoryOrCreate and FileOrCreate create it on the host; "" checks nothing and the
# runtime (containerd, CRI-O) then creates a directory there.
NEEDS_THE_PATH = {"Directory", "File", "Socket", "CharDevice", "BlockDevice"}
# Host paths every Linux node running a kubelet has; the state directory is the agent's own (DirectoryOrCreate);
# /run/log/journal is created empty where journald keeps no volatile journal (DirectoryOrCreate, tmpfs).
ON_EVERY_NODE = {"/dev/kmsg", "/var/log", "/sys", "/proc", "/var/lib/kubelet/pod-resources"}


def assert_host_paths_safe(pod: dict, optional: frozenset = frozenset()) -> None:
    """The agent starts on any Linux node (no hostPath of a file some distributions lack: /etc/localtime is absent
    on Flatcar since 2605.5.0, flatcar/Flatcar#324; /etc/machine-id on RancherOS), never writes to the host
    through a mount (every hostPath read-only but its own state directory), and creates nothing on the host but
    its state directory and the journal's mount point."""
    for path, (source, mounts) in host_paths(pod).items():
        kind = source.get("type", "")
        assert kind in NEEDS_THE_PATH | {"DirectoryOrCreate"}, (path, kind)  # never "" nor FileOrCreate
        if kind == "DirectoryOrCreate":
            assert path in ("/var/lib/gpu-npd", "/run/log/journal"), path
        elif path not in optional:
            assert path in ON_EVERY_NODE, (path, kind)
        for m in mounts:
            assert m.get("readOnly") is True or path == "/var/lib/gpu-npd", (path, m)


@needs_kubectl
@pytest.mark.parametrize("path", [*OVERLAYS, "examples/cluster", "components/pod-fault-conditions",
                                  "components/unprivileged", "components/nvidia-runtime",
                                  "components/kube-rbac-proxy"])
def test_the_agent_starts_on_hosts_without_localtime_or_machine_id(path):
    objs = kustomize(path) if not path.startswith("components/") else kustomize_with(path, everything=True)
    for ds in (d for d in objs if d["kind"] == "DaemonSet"):
        pod = ds["spec"]["template"]["spec"]
        assert not {"/etc/localtime", "/etc/machine-id"} & set(host_paths(pod)), path
        assert_host_paths_safe(pod)


@needs_kubectl
def test_the_host_localtime_component_follows_the_host_zone_read_only():
    """Opt-in, for fleets whose nodes all have /etc/localtime and keep local time in their logs: the kubelet then
    refuses the pod on a node without the file (type File), as it did by default before."""
    pod = kustomize_with("components/host-localtime")["spec"]["template"]["spec"]
    source, mounts = host_paths(pod)["/etc/localtime"]
    assert source == {"path": "/etc/localtime", "type": "File"}
    assert [(m["mountPath"], m["readOnly"]) for m in mounts] == [("/etc/localtime", True)]
    assert_host_paths_safe(pod, optional=frozenset({"/etc/localtime"}))


CRITICAL = ("system-node-critical", "system-cluster-critical")


def critical_pods_unadmitted(objs: list[dict]) -> list[str]:
    """The pod templates of `objs` with a critical priority class that no ResourceQuota of their namespace admits.
    Clusters may limit those classes to namespaces holding a quota whose scope selects them (the ResourceQuota
    admission's limitedResources; GKE does by default: every pod of a DaemonSet outside kube-system is refused
    "insufficient quota to match these scopes: [{PriorityClass In [system-node-critical system-cluster-critical]}]",
    cilium/cilium#13852, open-policy-agent/gatekeeper#1120, odigos-io/odigos#1321). The quota must allow as many
    pods as a fleet runs: one agent per GPU node and its rolling update."""
    from kubernetes.utils.quantity import parse_quantity

    admits: dict[str, set[str]] = {}
    for q in (d for d in objs if d["kind"] == "ResourceQuota"):
        if parse_quantity(q["spec"].get("hard", {}).get("pods", "0")) < 100_000:
            continue
        for e in q["spec"].get("scopeSelector", {}).get("matchExpressions", []):
            if e["scopeName"] == "PriorityClass" and e["operator"] == "In":
                admits.setdefault(q["metadata"]["namespace"], set()).update(e["values"])
    missing = []
    for d in objs:
        pod = (d.get("spec", {}).get("jobTemplate", {}).get("spec", d.get("spec", {})).get("template", {})
               .get("spec", {}))
        cls = pod.get("priorityClassName")
        if cls in CRITICAL and cls not in admits.get(d["metadata"].get("namespace"), set()):
            missing.append(f"{d['kind']}/{d['metadata']['name']} ({cls})")
    return missing


@needs_kubectl
@pytest.mark.parametrize("path", [*OVERLAYS, "examples/cluster", "examples/cluster-recovery"])
def test_critical_priority_pods_are_admitted_where_the_class_is_quota_limited(path):
    objs = kustomize(path)
    assert any(d.get("spec", {}).get("template", {}).get("spec", {}).get("priorityClassName") for d in objs)
    assert critical_pods_unadmitted(objs) == []


# Pod Security Standards, baseline (https://kubernetes.io/docs/concepts/security/pod-security-standards): the
# controls an agent pod meets. Capabilities baseline allows to add; host namespaces, privileged containers and
# hostPath volumes it forbids.
BASELINE_CAPABILITIES = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                         "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}


def beyond_baseline(pod: dict) -> list[str]:
    """What in a pod spec the Pod Security `baseline` level refuses (so only `privileged` admits the pod)."""
    found = [f for f in ("hostNetwork", "hostPID", "hostIPC") if pod.get(f)]
    found += [f"hostPath {v['hostPath']['path']}" for v in pod.get("volumes", []) if "hostPath" in v]
    for c in pod.get("containers", []):
        sc = c.get("securityContext", {})
        found += ["privileged"] * bool(sc.get("privileged"))
        found += [f"capability {cap}" for cap in sc.get("capabilities", {}).get("add", [])
                  if cap not in BASELINE_CAPABILITIES]
    return found


@needs_kubectl
@pytest.mark.parametrize("path", [*OVERLAYS, "components/unprivileged"])
def test_the_namespace_admits_the_agents_where_pod_security_defaults_to_baseline(path):
    """Both kernel-log variants run on the host network with hostPath mounts (and the unprivileged one adds SYSLOG
    and DAC_READ_SEARCH): Pod Security `baseline` refuses either, so the agents' namespace must be `privileged`.
    Where a cluster sets a stricter default (an AdmissionConfiguration's `defaults`, as hardened distributions do),
    an unlabelled gpu-npd namespace got no agent pod at all (the DaemonSet's FailedCreate Events only)."""
    objs = kustomize(path) if not path.startswith("components/") else kustomize_with(path, everything=True)
    ds = next(d for d in objs if d["kind"] == "DaemonSet")
    assert beyond_baseline(ds["spec"]["template"]["spec"]), path
    ns = next(d for d in objs if d["kind"] == "Namespace" and d["metadata"]["name"] == ds["metadata"]["namespace"])
    assert ns["metadata"].get("labels", {}).get("pod-security.kubernetes.io/enforce") == "privileged", ns


@needs_kubectl
def test_components_and_monitoring_render():
    runtime = kustomize_with("components/nvidia-runtime")
    assert runtime["spec"]["template"]["spec"]["runtimeClassName"] == "nvidia"
    sc = kustomize_with("components/unprivileged")["spec"]["template"]["spec"]["containers"][0]["securityContext"]
    assert sc["privileged"] is False and sc["allowPrivilegeEscalation"] is False and sc["readOnlyRootFilesystem"]
    assert sc["capabilities"] == {"drop": ["ALL"], "add": ["SYSLOG", "DAC_READ_SEARCH"]}
    assert sc["seccompProfile"] == {"type": "RuntimeDefault"}
    mon = {d["kind"]: d for d in kustomize("monitoring")}
    assert set(mon) == {"PodMonitor", "PrometheusRule", "ConfigMap"}  # not the promtool test file
    assert all(d["metadata"]["labels"]["release"] == "kube-prometheus-stack" for d in kustomize("monitoring"))
    dash = mon["ConfigMap"]
    assert dash["metadata"]["labels"]["grafana_dashboard"] == "1" and json.loads(dash["data"]["gpu-npd.json"])["panels"]


def scrape_targets(monitors: list[dict], services: list[dict]) -> list[tuple[dict, object, str | int]]:
    """What each PodMonitor or ServiceMonitor scrapes, as Prometheus Operator reads them: (the pods' selector, their
    job from a pod's labels, the container port). A PodMonitor's job is the pod label it names as jobLabel, else
    <namespace>/<name>; a ServiceMonitor's, of each Service its selector matches, the Service's label it names as
    jobLabel, else the Service's name, and its port the Service port's targetPort."""
    out = []
    for m in monitors:
        spec, meta = m["spec"], m["metadata"]
        if m["kind"] == "PodMonitor":
            out += [(spec["selector"]["matchLabels"],
                     lambda labels, spec=spec, meta=meta: labels.get(spec.get("jobLabel", ""),
                                                                   f"{meta['namespace']}/{meta['name']}"),
                     ep["port"]) for ep in spec["podMetricsEndpoints"]]
            continue
        for svc in services:
            if spec["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items():
                job = svc["metadata"]["labels"].get(spec.get("jobLabel", ""), svc["metadata"]["name"])
                ports = {p["name"]: p["targetPort"] for p in svc["spec"]["ports"]}
                out += [(svc["spec"]["selector"], lambda labels, job=job: job, ports[ep["port"]])
                        for ep in spec["endpoints"]]
    return out


def scraped_by(monitors: list[dict], workloads: list[dict]) -> dict[str, list[tuple[str, int]]]:
    """Each DaemonSet's or Deployment's name -> (job, container port number) of each target scraping its pods:
    PodMonitors and ServiceMonitors (through the Services among the workloads)."""
    services = [w for w in workloads if w["kind"] == "Service"]
    out = {}
    for w in workloads:
        if w["kind"] in ("DaemonSet", "Deployment"):
            labels = w["spec"]["template"]["metadata"]["labels"]
            named = {p["name"]: p["containerPort"] for c in w["spec"]["template"]["spec"]["containers"]
                     for p in c.get("ports", [])}
            out[w["metadata"]["name"]] = [(job(labels), named.get(port, port))
                                          for selector, job, port in scrape_targets(monitors, services)
                                          if selector.items() <= labels.items()]
    return out


def assert_cluster_component_scraped(monitors: list[dict], workloads: list[dict]) -> None:
    """The agent's pods by the agent's PodMonitor (or ServiceMonitor) alone; the cluster component's by its own, on
    its metrics port (9811, docs/cluster.md), as job gpu-npd-cluster: what the cluster alerts select by and the
    agent's exclude."""
    scraped = scraped_by(monitors, workloads)
    cluster = next(w["metadata"]["name"] for w in workloads if w["kind"] == "Deployment")
    assert scraped[cluster] == [("gpu-npd-cluster", 9811)], scraped
    assert all(targets and all(job != "gpu-npd-cluster" for job, _ in targets)
               for n, targets in scraped.items() if n != cluster), scraped
    rules = (DEPLOY / "monitoring" / "prometheusrule.yaml").read_text()
    assert 'job!="gpu-npd-cluster"' in rules and 'job="gpu-npd-cluster"' in rules


@needs_kubectl
def test_the_cluster_components_replicas_are_scraped():
    # deploy/monitoring had only the agent's PodMonitor (app.kubernetes.io/name: gpu-npd): the cluster component's
    # replicas (gpu-npd-cluster) were never scraped, its metrics and the alerts on them had no data
    mons = [d for d in kustomize("monitoring") if d["kind"] == "PodMonitor"]
    assert_cluster_component_scraped(mons, kustomize("examples/cluster"))


@needs_kubectl
def test_kube_rbac_proxy_component_serves_metrics_on_localhost_only(tmp_path):
    """The agent binds loopback; the sidecar is the only listener on the node address; probes pass through it."""
    objs = kustomize_with("components/kube-rbac-proxy", everything=True)
    ds = next(d for d in objs if d["kind"] == "DaemonSet")
    agent, proxy = ds["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in agent["env"]}
    conf = tmp_path / "config.yaml"
    conf.write_text(next(d for d in objs if d["kind"] == "ConfigMap")["data"]["config.yaml"])
    assert load(str(conf), env={"GPU_NPD_METRICS_ADDRESS": env["GPU_NPD_METRICS_ADDRESS"]}).metrics_host_port == (
        "127.0.0.1", 9810)
    assert "ports" not in agent and proxy["ports"][0]["containerPort"] == 9443
    assert "--upstream=http://127.0.0.1:9810/" in proxy["args"]
    # the listen address as Go's net.SplitHostPort reads it (the proxy's net.Listen; go_split below): host and port
    # for an IPv4 and an IPv6 cluster's pod IP alike (was $(POD_IP):9443: "fd00::5:9443", too many colons, the proxy
    # never listened on an IPv6 cluster)
    listen = next(a.split("=", 1)[1] for a in proxy["args"] if a.startswith("--secure-listen-address="))
    for ip in ("10.0.0.5", "fd00::5"):
        assert go_split(listen.replace("$(POD_IP)", ip)) == (ip, "9443"), listen
    assert "--ignore-paths=/healthz,/livez" in proxy["args"] and not any("allow-paths" in a for a in proxy["args"])
    for probe, path in (("livenessProbe", "/livez"), ("readinessProbe", "/healthz")):
        assert agent[probe]["httpGet"] == {"path": path, "port": 9443, "scheme": "HTTPS"}
    assert proxy["securityContext"]["runAsNonRoot"] and proxy["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    kinds = {(d["kind"], d["metadata"]["name"]) for d in objs}
    assert {("ClusterRole", "gpu-npd-kube-rbac-proxy"), ("ClusterRole", "gpu-npd-metrics-reader"),
            ("Secret", "gpu-npd-metrics-scraper")} <= kinds
    validate_strict(objs, tmp_path)
    mon = kustomize_with("components/kube-rbac-proxy", base="monitoring", everything=True)
    endpoint = next(d for d in mon if d["kind"] == "PodMonitor")["spec"]["podMetricsEndpoints"][0]
    assert (endpoint["port"], endpoint["scheme"]) == ("https-metrics", "https")
    assert endpoint["authorization"]["credentials"] == {"name": "gpu-npd-metrics-scraper", "key": "token"}


def go_split(hostport: str) -> tuple[str, str]:
    """Go's net.SplitHostPort (src/net/ipsock.go) for the forms a listen address takes: "[host]:port" (any host in
    the brackets, IPv4 too) or "host:port" whose host holds no colon ("too many colons in address")."""
    if hostport.startswith("["):
        host, sep, port = hostport[1:].partition("]:")
        assert sep and "]" not in host, f"{hostport}: missing ']' or port"
        return host, port
    host, _, port = hostport.rpartition(":")
    assert host and ":" not in host, f"{hostport}: too many colons in address"
    return host, port


def kustomize_with(component: str, base: str = "overlays/observe", everything: bool = False):
    """An overlay (observe unless named) with one component added, as an operator's own overlay would."""
    import tempfile

    with tempfile.TemporaryDirectory(dir=DEPLOY / "overlays") as tmp:
        (Path(tmp) / "kustomization.yaml").write_text(yaml.safe_dump({
            "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
            "resources": [f"../../{base}"], "components": [f"../../{component}"]}))
        objs = render_kustomization(str(Path(tmp).relative_to(DEPLOY)))
    return objs if everything else next(d for d in objs if d["kind"] == "DaemonSet")


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
    # every alert of every group has a test (groups[0] alone left the cluster component's group untested)
    assert tested == {r["alert"] for g in rule["spec"]["groups"] for r in g["rules"]}


def test_every_alert_links_the_runbook_which_covers_it():
    # every PrometheusRule of deploy/monitoring/: the workload alerts (workload-rules.yaml) had no runbook_url
    rules = [r for path in sorted((DEPLOY / "monitoring").glob("*.yaml")) for d in docs(path)
             if d.get("kind") == "PrometheusRule" for g in d["spec"]["groups"] for r in g["rules"] if "alert" in r]
    assert {"GPUNodeUnhealthy", "WorkloadHangSuspected", "GPUStragglerSuspected"} <= {r["alert"] for r in rules}
    runbook = (DEPLOY.parent / "docs" / "operations.md").read_text()
    alerts = runbook[runbook.index("\n## Alerts\n"):].split("\n## ", 2)[1]  # the section the anchor names
    for r in rules:
        assert r["annotations"]["runbook_url"] == "https://github.com/gpu-npd/gpu-npd/blob/main/docs/operations.md#alerts"
        assert f"`{r['alert']}`" in alerts, f"docs/operations.md's Alerts section does not cover {r['alert']}"


def test_dashboard_queries_only_metrics_the_agent_exports(tmp_path):
    from prometheus_client.parser import text_string_to_metric_families
    from prometheus_client import generate_latest
    from test_telemetry import make, poll
    from telemetry_kit import copy_sysfs, hgx_scenario

    agent, _ = make(tmp_path, hgx_scenario(), copy_sysfs(tmp_path))
    try:  # closed here: conftest's _built_agents_closed closes only agents of modules that imported agent.app before
        # the test (run alone, this module imports it inside the test: its NVML workers outlived the module)
        poll(agent)
        agent.metrics.taint_held.labels("gpu-npd.io/GPUUnhealthy").set(0)
        agent.metrics.set_kube_api_up(1)  # as when the Kubernetes writer runs
        agent.pipeline.publish(Change(), always=True)
        agent.metrics.source_up.labels("kmsg").set(1)
        agent.metrics.xid_errors.labels("79", "0000:5d:00", "3", "u").inc()
        samples = {s.name for f in text_string_to_metric_families(generate_latest(agent.metrics.registry).decode())
                   for s in f.samples}
    finally:
        agent.close()
    dash = json.loads((DEPLOY / "monitoring" / "grafana-dashboard.json").read_text())
    # the cluster component's panels (job gpu-npd-cluster, what its PodMonitor and ServiceMonitor name it) query what
    # `gpu-npd cluster` exports, every other panel what the agent does (the row had none: its metrics were on no panel)
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
    used = {m for e in exprs if 'job="gpu-npd-cluster"' not in e for m in re.findall(r"gpu_npd_\w+", e)}
    assert used and used <= samples, used - samples
    from cluster.metrics import Metrics as ClusterMetrics
    cluster = ClusterMetrics()
    exported = {s.name for f in text_string_to_metric_families(generate_latest(cluster.registry).decode())
                for s in f.samples}
    used = {m for e in exprs if 'job="gpu-npd-cluster"' in e for m in re.findall(r"gpu_npd_\w+", e)}
    assert used <= exported, used - exported
    shown = {"gpu_npd_cluster_leader", "gpu_npd_job_incidents_total", "gpu_npd_cluster_internal_errors_total",
             "gpu_npd_cluster_queue", "gpu_npd_cluster_event_writes_total", "gpu_npd_cluster_api_errors_total",
             "gpu_npd_events_dropped_total"}
    assert shown <= used, shown - used
    rules = docs(DEPLOY / "monitoring" / "prometheusrule.yaml")[0]["spec"]["groups"][0]["rules"]
    alerted = {m for r in rules for m in re.findall(r"gpu_npd_\w+", r["expr"])}
    assert alerted <= samples, alerted - samples


def test_fabric_check_example_is_valid_and_grants_what_the_cli_calls(tmp_path):
    """deploy/examples/fabric-check: valid against the 1.30 schemas; its RBAC covers every API call of
    fabric/ (nodes, nodes/status, pods, pods/log, jobs, jobs/status, events) and the CronJob runs the CLI."""
    objs = docs(DEPLOY / "examples" / "fabric-check" / "fabric-check.yaml")
    validate_strict(objs, tmp_path)
    by_kind = {o["kind"]: o for o in objs}
    granted = {(res, verb) for kind in ("ClusterRole", "Role") for rule in by_kind[kind]["rules"]
               for res in rule["resources"] for verb in rule["verbs"]}
    needed = {("nodes", "list"), ("nodes/status", "get"), ("nodes/status", "patch"), ("pods", "list"),
              ("events", "create"), ("events", "patch"), ("jobs", "create"), ("jobs", "list"), ("jobs", "delete"),
              ("jobs/status", "get"), ("pods/log", "get")}
    assert needed <= granted, needed - granted
    pod = by_kind["CronJob"]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == by_kind["ServiceAccount"]["metadata"]["name"]
    assert pod["containers"][0]["args"][0] == "fabric-check"
    from click.testing import CliRunner  # the args parse as the CLI's options

    from gpunpd.cli import main
    res = CliRunner().invoke(main, [*pod["containers"][0]["args"], "--help"])
    assert res.exit_code == 0, res.output
    # SIGTERM (the CronJob's deadline, a drain): the CLI's cleanup retries end before the kubelet's SIGKILL,
    # so Jobs it could not delete are still named (--cleanup-timeout's default, 120 s, outlasted the 60 s grace)
    from fabric.cli import fabric_check
    args = pod["containers"][0]["args"]
    default = next(p.default for p in fabric_check.params if p.name == "cleanup_timeout")
    cleanup = float(args[args.index("--cleanup-timeout") + 1]) if "--cleanup-timeout" in args else default
    assert cleanup < pod["terminationGracePeriodSeconds"]
