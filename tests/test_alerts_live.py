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
RULES = Path(__file__).resolve().parent.parent / "deploy" / "monitoring" / "prometheusrule.yaml"
XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
XID48 = "NVRM: Xid (PCI:0000:18:00): 48, pid=2411, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 1, subpartition 0."  # synthetic: shape of NVIDIA's Xid 48 line

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(PROMETHEUS is None and not os.environ.get("CI"),
                                 reason="prometheus not installed (.ci/run installs Debian's prometheus)")]


def scaled_rules() -> dict:
    spec = yaml.safe_load(RULES.read_text())["spec"]
    for group in spec["groups"]:
        group["interval"] = "1s"
        for rule in group["rules"]:
            if "for" in rule:  # 1m -> 2s, 5m -> 10s, 15m -> 30s
                n, unit = re.fullmatch(r"(\d+)([smh])", rule["for"]).groups()
                seconds = int(n) * {"s": 1, "m": 60, "h": 3600}[unit]
                rule["for"] = f"{max(2, seconds // 30)}s"
    return spec


class Prometheus:
    def __init__(self, tmp: Path, target_port: int, node: str):
        self.port = free_port()
        (tmp / "rules.yaml").write_text(yaml.safe_dump(scaled_rules()))
        (tmp / "prometheus.yml").write_text(yaml.safe_dump({
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": [str(tmp / "rules.yaml")],
            "scrape_configs": [{"job_name": "gpu-npd/gpu-npd",  # what the PodMonitor's job is called
                                "static_configs": [{"targets": [f"127.0.0.1:{target_port}"],
                                                    "labels": {"node": node}}]}]}))
        self.proc = subprocess.Popen([PROMETHEUS, f"--config.file={tmp / 'prometheus.yml'}",
                                      f"--storage.tsdb.path={tmp / 'tsdb'}",
                                      f"--web.listen-address=127.0.0.1:{self.port}"],
                                     stdout=subprocess.DEVNULL, stderr=open(tmp / "prometheus.log", "w"))
        self.wait(lambda: self.query("up") == [1.0], "first scrape")

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


def test_one_page_per_broken_node_and_silence_on_a_healthy_one(tmp_path: Path):
    agent = AgentProc(tmp_path)  # local mode: no Kubernetes, as on a laptop or with `mode: off`
    prom = Prometheus(tmp_path, agent.port, "gpu-node-1")
    try:
        time.sleep(4)  # several scrapes and evaluations of a healthy agent: nothing pending, nothing firing
        assert prom.alerts() == []
        agent.write(f"3,100,4254197860,-;{XID79}\n")
        prom.wait(lambda: [a["state"] for a in prom.alerts() if a["labels"]["alertname"] == "GPUNodeUnhealthy"]
                  == ["firing"], "GPUNodeUnhealthy firing")
        (first,) = [a for a in prom.alerts() if a["labels"]["alertname"] == "GPUNodeUnhealthy"]
        agent.write(f"3,101,4254297860,-;{XID48}\n")  # a second fatal fault on another GPU
        agent.wait_for(lambda: agent.value("gpu_npd_xid_errors_total", xid="48", pci_bus_id="0000:18:00") == 1)
        # the condition's reason moved to the newer fault: the old series is 0, a new one is 1
        agent.wait_for(lambda: agent.value("gpu_npd_node_condition", condition="GPUUnhealthy",
                                           reason="Xid79FallenOffBus") in (None, 0.0), what="reason change")
        for _ in range(10):  # through the change: still exactly one, the same one, firing
            time.sleep(0.5)
            now = [a for a in prom.alerts() if a["labels"]["alertname"] == "GPUNodeUnhealthy"]
            assert [(a["state"], a["activeAt"]) for a in now] == [("firing", first["activeAt"])]
        others = {a["labels"]["alertname"] for a in prom.alerts()} - {"GPUNodeUnhealthy"}
        assert not others & {"GPUNPDKubernetesAPIWritesFailing", "GPUNPDSourceDown", "GPUNPDAgentMissing"}
    finally:
        prom.stop()
        agent.stop()


def test_a_blind_agent_is_unhealthy_exported_and_alerted(tmp_path: Path):
    port = free_port()  # an agent with no readable kernel log at all: no kmsg, no log file, no journald
    blind = subprocess.Popen([sys.executable, "-m", "gpunpd", "run", "--kmsg", str(tmp_path / "missing"),
                              "--no-journald", "--state-dir", str(tmp_path / "state"),
                              "--metrics-address", f"127.0.0.1:{port}"],
                             env={**os.environ, "GPU_NPD_FALLBACK_LOG_FILES": "", "NODE_NAME": "gpu-node-3"},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    prom = None
    try:
        prom = Prometheus(tmp_path, port, "gpu-node-3")
        with pytest.raises(urllib.error.HTTPError) as exc:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
        assert exc.value.code == 503 and b"kernel-log" in exc.value.read()
        prom.wait(lambda: [(a["labels"].get("source"), a["state"]) for a in prom.alerts()
                           if a["labels"]["alertname"] == "GPUNPDSourceDown"] == [("kernel-log", "firing")],
                  "GPUNPDSourceDown firing")
    finally:
        if prom is not None:
            prom.stop()
        blind.terminate()
        blind.wait(timeout=10)
