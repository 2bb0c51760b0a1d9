"""The shipped alerts as a real Prometheus evaluates them against a real agent (Debian's `prometheus`).

Prometheus scrapes a `gpu-npd run` process every second and evaluates deploy/monitoring's rules every
second. The rules are the shipped ones with their `for:` durations scaled from minutes to seconds (so the
test takes seconds); expressions, grouping and labels are exactly what operators load.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

from harness import AgentProc, free_port

PROMETHEUS = shutil.which("prometheus")
MONITORING = Path(__file__).resolve().parents[2] / "deploy" / "monitoring"
RULES = MONITORING / "prometheusrule.yaml"
WORKLOAD_RULES = MONITORING / "workload-rules.yaml"
PODMONITOR = yaml.safe_load((MONITORING / "podmonitor.yaml").read_text())["spec"]["podMetricsEndpoints"][0]
XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
XID48 = "NVRM: Xid (PCI:0000:18:00): 48, pid=2411, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 1, subpartition 0."  # synthetic: shape of NVIDIA's Xid 48 line

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(PROMETHEUS is None and not os.environ.get("CI"),
                                 reason="prometheus not installed (.ci/run installs Debian's prometheus)")]


def scaled_rules(path: Path = RULES, divisor: int = 30) -> dict:
    spec = yaml.safe_load(path.read_text())["spec"]
    for group in spec["groups"]:
        group["interval"] = "1s"
        for rule in group["rules"]:
            for key in ("for", "keep_firing_for"):  # by 30: 1m -> 2s, 5m -> 10s, 15m -> 30s
                if key in rule:
                    n, unit = re.fullmatch(r"(\d+)([smh])", rule[key]).groups()
                    seconds = int(n) * {"s": 1, "m": 60, "h": 3600}[unit]
                    rule[key] = f"{max(2, seconds // divisor)}s"
    return spec


class Prometheus:
    def __init__(self, tmp: Path, target_port: int | dict[str, int], node: str = "",
                 rules: tuple[Path, ...] = (RULES,), divisor: int = 30, wait: bool = True):
        """Scrapes `target_port` (labelled `node`), or each node -> port of a dict; evaluates `rules`.  Prometheus
        applies its targets about 5 s after it starts (its scrape manager's fixed reload tick), so a test that
        starts it before its agents (`wait=False`, then `wait_up()`) has that time for free."""
        self.port = free_port()
        targets = target_port if isinstance(target_port, dict) else {node: target_port}
        files = []
        for i, path in enumerate(rules):
            files.append(tmp / f"rules-{i}.yaml")
            files[-1].write_text(yaml.safe_dump(scaled_rules(path, divisor)))
        (tmp / "prometheus.yml").write_text(yaml.safe_dump({
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": [str(f) for f in files],
            "scrape_configs": [{"job_name": "gpu-npd/gpu-npd",  # what the PodMonitor's job is called
                                "honor_labels": PODMONITOR["honorLabels"],  # as the PodMonitor scrapes
                                "static_configs": [{"targets": [f"127.0.0.1:{p}"], "labels": {"node": n}}
                                                   for n, p in targets.items()]}]}))
        self.proc = subprocess.Popen([PROMETHEUS, f"--config.file={tmp / 'prometheus.yml'}",
                                      f"--storage.tsdb.path={tmp / 'tsdb'}",
                                      f"--web.listen-address=127.0.0.1:{self.port}"],
                                     stdout=subprocess.DEVNULL, stderr=open(tmp / "prometheus.log", "w"))
        self.targets = len(targets)
        if wait:
            self.wait_up()

    def wait_up(self):
        self.wait(lambda: self.query("up") == [1.0] * self.targets, "first scrape")

    def api(self, path: str) -> dict:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/v1/{path}", timeout=2) as r:
                return json.loads(r.read())["data"]
        except OSError:
            return {}

    def query(self, expr: str) -> list[float]:
        data = self.api("query?query=" + urllib.request.quote(expr))
        return [float(r["value"][1]) for r in data.get("result", [])]

    def alerts(self) -> list[dict]:
        return self.api("alerts").get("alerts", [])

    def wait(self, pred, what: str, timeout: float = 30.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if pred():
                return
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; alerts: {self.alerts()}")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):
    """One Prometheus scraping two agents for the first two tests: gpu-node-1 in local mode (no Kubernetes, as on
    a laptop or with `mode: off`) reading a kmsg FIFO, and gpu-node-3 with no readable kernel log at all (no kmsg,
    no log file, no journald). Their series differ by `node`, so neither test's alerts are the other's; the
    blind agent's GPUNPDSourceDown (`for:` 10 s) runs out while the first test runs."""
    tmp = tmp_path_factory.mktemp("alerts-live")
    (tmp / "healthy").mkdir()
    ports = {"gpu-node-1": free_port(), "gpu-node-3": free_port()}
    prom = Prometheus(tmp, ports, wait=False)
    agent = blind = None
    try:
        blind = subprocess.Popen([sys.executable, "-m", "gpunpd", "run", "--kmsg", str(tmp / "missing"),
                                  "--no-journald", "--state-dir", str(tmp / "blind-state"),
                                  "--metrics-address", f"127.0.0.1:{ports['gpu-node-3']}"],
                                 env={**os.environ, "GPU_NPD_FALLBACK_LOG_FILES": "", "NODE_NAME": "gpu-node-3"},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        agent = AgentProc(tmp / "healthy", port=ports["gpu-node-1"])
        prom.wait_up()
        yield prom, agent, ports["gpu-node-3"]
    finally:
        prom.stop()
        if agent is not None:
            agent.stop()
        if blind is not None:
            blind.terminate()
            blind.wait(timeout=10)


def on_node(alerts: list[dict], node: str) -> list[dict]:
    return [a for a in alerts if a["labels"].get("node", node) == node]  # a fleet-wide alert (no node) counts too


def test_one_page_per_broken_node_and_silence_on_a_healthy_one(two_nodes):
    prom, agent, _ = two_nodes
    # several scrapes and evaluations of a healthy agent: nothing pending, nothing firing
    prom.wait(lambda: prom.query('count_over_time(up{node="gpu-node-1"}[1m]) >= 4'), "four scrapes of gpu-node-1")
    assert on_node(prom.alerts(), "gpu-node-1") == []
    agent.write(f"3,100,4254197860,-;{XID79}\n")
    prom.wait(lambda: [a["state"] for a in prom.alerts() if a["labels"]["alertname"] == "GPUNodeUnhealthy"]
              == ["firing"], "GPUNodeUnhealthy firing")  # the whole fleet: the blind node pages no one
    (first,) = [a for a in prom.alerts() if a["labels"]["alertname"] == "GPUNodeUnhealthy"]
    assert first["labels"]["node"] == "gpu-node-1"
    agent.write(f"3,101,4254297860,-;{XID48}\n")  # a second fatal fault on another GPU
    agent.wait_for(lambda: agent.value("gpu_npd_xid_errors_total", xid="48", pci_bus_id="0000:18:00") == 1)
    # the condition's reason moved to the newer fault: the old series is 0, a new one is 1
    agent.wait_for(lambda: agent.value("gpu_npd_node_condition", condition="GPUUnhealthy",
                                       reason="Xid79FallenOffBus") in (None, 0.0), what="reason change")
    # through the change, until Prometheus has scraped it (the old reason's series 0 or gone) and evaluated the rule
    # about three times more: still exactly one, the same one, firing (a rule grouped by reason would have a second
    # one pending by then)
    old = 'gpu_npd_node_condition{node="gpu-node-1",condition="GPUUnhealthy",reason="Xid79FallenOffBus"}'
    deadline, until = time.time() + 30, None
    while until is None or time.time() < until:
        now = [a for a in prom.alerts() if a["labels"]["alertname"] == "GPUNodeUnhealthy"]
        assert [(a["state"], a["activeAt"]) for a in now] == [("firing", first["activeAt"])]
        if until is None and prom.query(old) in ([], [0.0]):
            until = time.time() + 3
        assert time.time() < deadline, "Prometheus never saw the reason change"
        time.sleep(0.5)
    others = {a["labels"]["alertname"] for a in on_node(prom.alerts(), "gpu-node-1")} - {"GPUNodeUnhealthy"}
    assert not others & {"GPUNPDKubernetesAPIWritesFailing", "GPUNPDSourceDown", "GPUNPDAgentMissing"}


def test_a_blind_agent_is_unhealthy_exported_and_alerted(two_nodes):
    prom, _, port = two_nodes
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
    assert exc.value.code == 503 and b"kernel-log" in exc.value.read()
    prom.wait(lambda: [(a["labels"].get("node"), a["labels"].get("source"), a["state"]) for a in prom.alerts()
                       if a["labels"]["alertname"] == "GPUNPDSourceDown"] == [("gpu-node-3", "kernel-log", "firing")],
              "GPUNPDSourceDown firing")  # the whole fleet: the local agent's sources are up


def test_workload_and_straggler_alerts_against_a_fleet_of_real_agents(tmp_path: Path):
    """deploy/monitoring/workload-rules.yaml and the node alerts, on three real agents (one pod of job `llama`
    each) scraped by a real Prometheus, `for:` scaled by 180 (15m -> 5s, 1m -> 2s: five and two evaluations at one
    a second; the last assertion counts pending alerts too, so a shorter `for:` hides none): the pod stepping 1.6 times
    slower than its job's median fires GPUStragglerSuspected (and no other pod does), its node's GPU whose SM
    clock sits far below its peers' fires GPUNodeDegraded{reason="StragglerSuspected"}, and a pod that stops
    printing fires WorkloadHangSuspected.  Progress lines are nanoGPT's shape (tests/fixtures/progress), step
    times synthetic; the eight H100s of the slow node are the stand-in's (synthetic clocks)."""
    from apiserver_double import ApiDouble
    from harness import start_fleet
    from telemetry_kit import hgx_scenario

    from datetime import datetime, timezone

    uids = {i: f"7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c{i:02d}" for i in range(3)}
    proc = tmp_path / "host"  # each pod has a live process (a finished job is never suspected hung)
    for i, uid in uids.items():
        (proc / "proc" / str(4242 + i)).mkdir(parents=True)
        (proc / "proc" / str(4242 + i) / "cgroup").write_text(
            f"0::/kubepods.slice/kubepods-pod{uid.replace('-', '_')}.slice/cri-containerd-{'a' * 64}.scope\n")
    clocks = [1980, 1965, 1980, 1500, 1980, 1970, 1980, 1975]  # GPU 3 of gpu-node-3 far below its peers
    (tmp_path / "h100.yaml").write_text(yaml.safe_dump(hgx_scenario(timeline=[
        {"at": 0, "gpu": i, "set": {"clock_sm": c, "clocks_event_mask": 0, "utilization_gpu": 100}}
        for i, c in enumerate(clocks)])))
    common = {"proc_root": str(proc), "workload_hang": {"k": 3, "floor_seconds": 6}}  # lines every 1 s: 6 s
    config = {"gpu-node-1": common, "gpu-node-2": common,
              "gpu-node-3": {**common, "nvml": f"fake:{tmp_path / 'h100.yaml'}", "poll_seconds": 0.5,
                             "sysfs_root": str(tmp_path / "nosys"), "peer_outliers": {"enabled": True}}}
    nodes = {f"gpu-node-{i + 1}": [f"train_llama-worker-{i}_{uid}"] for i, uid in uids.items()}
    ports = {node: free_port() for node in nodes}
    agents = []
    with ApiDouble() as api:
        prom = Prometheus(tmp_path, ports, rules=(RULES, WORKLOAD_RULES), divisor=180, wait=False)
        for node in nodes:  # the Node's GPU capacity is what the agent expects to see: the simulated ones
            api.add_node(node, gpus=8 if node == "gpu-node-3" else 0)
        try:
            agents, logs = start_fleet(tmp_path, api.url, nodes, config=config, ports=ports)
            prom.wait_up()

            def step(n: int, pods: tuple[int, ...] = (0, 1, 2)) -> None:
                stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f000Z")
                for i in pods:
                    ms = 1600.0 if i == 2 else 1000.0
                    with open(logs[f"llama-worker-{i}"], "a") as fh:
                        fh.write(f"{stamp} stdout F iter {n}: loss 3.9883, time {ms:.2f}ms, mfu 15.34%\n")

            def firing(name: str) -> list[dict]:
                return [a["labels"] for a in prom.alerts()
                        if a["labels"]["alertname"] == name and a["state"] == "firing"]

            n = 0
            deadline = time.time() + 60
            while not firing("GPUStragglerSuspected") and time.time() < deadline:
                step(n)
                n += 1
                time.sleep(1)
            (slow,) = firing("GPUStragglerSuspected")
            assert (slow["pod"], slow["node"], slow["job"], slow["namespace"]) == \
                ("llama-worker-2", "gpu-node-3", "llama", "train")
            assert prom.query('namespace_job:gpu_npd_workload_pods:count{job="llama"}') == [3.0]
            assert prom.query('namespace_job:gpu_npd_workload_step_seconds:median{job="llama"}') == [1.0]
            prom.wait(lambda: [(a["node"], a["reason"]) for a in firing("GPUNodeDegraded")]
                      == [("gpu-node-3", "StragglerSuspected")], "GPUNodeDegraded for the straggling GPU")
            assert firing("WorkloadHangSuspected") == []
            for _ in range(30):  # worker-1 falls silent, the others go on
                step(n, (0, 2))
                n += 1
                time.sleep(1)
                if firing("WorkloadHangSuspected"):
                    break
            prom.wait(lambda: [(a["pod"], a["node"]) for a in firing("WorkloadHangSuspected")]
                      == [("llama-worker-1", "gpu-node-2")], "WorkloadHangSuspected for the silent pod", timeout=20)
            assert [a["pod"] for a in firing("GPUStragglerSuspected")] == ["llama-worker-2"]
            others = {a["labels"]["alertname"] for a in prom.alerts()} - {"GPUStragglerSuspected", "GPUNodeDegraded",
                                                                          "WorkloadHangSuspected"}
            assert others == set()  # healthy otherwise: no GPUNodeUnhealthy, no source down
        finally:
            prom.stop()
            for a in agents:
                a.stop()
