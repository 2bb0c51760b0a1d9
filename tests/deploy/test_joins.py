"""gpu_npd_gpu_info joins gpu-npd's series with dcgm-exporter's, both ways, as Prometheus evaluates them (promtool).

dcgm-exporter's side is copied verbatim from its own example output in NVIDIA/dcgm-exporter pull request 326
(https://github.com/NVIDIA/dcgm-exporter/pull/326, "Example output", an RTX 3090 on host "debian"). gpu-npd's side is
what the agent itself exports for that GPU: the fake NVML is given that GPU's identity, the Xid line goes through
the agent's pipeline, and the /metrics text is scraped from its registry. The PromQL is the docs' (docs/install.md),
checked to appear there verbatim."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from agent.sources import Record
from test_deploy import needs_promtool
from test_telemetry import make, poll

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "install.md"
# NVIDIA/dcgm-exporter PR 326, "Example output" (verbatim)
DCGM = ('DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-96be9fff-fdfd-9b87-88d4-fe5b9a012148",pci_bus_id="00000000:08:00.0",'
        'device="nvidia0",modelName="NVIDIA GeForce RTX 3090",Hostname="debian"} 24268')
GPU = {"uuid": "GPU-96be9fff-fdfd-9b87-88d4-fe5b9a012148", "pci_bus_id": "00000000:08:00.0",
       "model": "NVIDIA GeForce RTX 3090"}
# Xid 79 as the driver prints it (tests/agent/kube/test_kube.py's XID79), on that GPU's bus
XID79 = "NVRM: Xid (PCI:0000:08:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."

# (PromQL from the docs, the series it must return at 10m)
JOINS = [
    ('sum by (UUID, device, modelName, Hostname) (increase(gpu_npd_xid_errors_total[10m])'
     ' * on (uuid) group_left (UUID, device, modelName, Hostname) gpu_npd_gpu_info)',
     '{UUID="GPU-96be9fff-fdfd-9b87-88d4-fe5b9a012148", device="nvidia0", modelName="NVIDIA GeForce RTX 3090", '
     'Hostname="debian"}', 1.0),
    ('DCGM_FI_DEV_FB_FREE and on (UUID) (gpu_npd_gpu_info and on (uuid) (increase(gpu_npd_xid_errors_total[10m]) > 0))',
     '{__name__="DCGM_FI_DEV_FB_FREE", gpu="0", UUID="GPU-96be9fff-fdfd-9b87-88d4-fe5b9a012148", '
     'pci_bus_id="00000000:08:00.0", device="nvidia0", modelName="NVIDIA GeForce RTX 3090", Hostname="debian", '
     'instance="10.0.0.7:9400", job="dcgm-exporter"}', 24268.0),
    ('DCGM_FI_DEV_FB_FREE * on (Hostname, pci_bus_id) group_left (uuid) gpu_npd_gpu_info',
     '{gpu="0", UUID="GPU-96be9fff-fdfd-9b87-88d4-fe5b9a012148", pci_bus_id="00000000:08:00.0", device="nvidia0", '
     'modelName="NVIDIA GeForce RTX 3090", Hostname="debian", instance="10.0.0.7:9400", job="dcgm-exporter", '
     'uuid="GPU-96be9fff-fdfd-9b87-88d4-fe5b9a012148"}', 24268.0),
]


def agent_series(tmp_path: Path) -> list[str]:
    """gpu_npd_gpu_info and gpu_npd_xid_errors_total as the agent exports them for the dcgm-exporter example's GPU."""
    proc = tmp_path / "proc"
    info = proc / "proc/driver/nvidia/gpus/0000:08:00.0"
    info.mkdir(parents=True)
    # the driver's file, reduced to the line read (synthetic values; shape of /proc/driver/nvidia/gpus/*/information)
    (info / "information").write_text("Model: \t\t NVIDIA GeForce RTX 3090\nDevice Minor: \t 0\n")
    agent, _ = make(tmp_path, {"driver_version": "550.54.15", "gpus": [GPU]}, node_name="debian",
                    proc_root=str(proc))
    poll(agent)
    agent.pipeline.process([Record("kmsg", f"3,1,1000,-;{XID79}")])
    text = generate_latest(agent.metrics.registry).decode()
    out = []
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name in ("gpu_npd_gpu_info", "gpu_npd_xid_errors_total"):
                labels = ",".join(f'{k}="{v}"' for k, v in {**s.labels, "instance": "10.0.0.7:9810",
                                                            "job": "gpu-npd", "node": "debian"}.items())
                out.append(f"{s.name}{{{labels}}}")
    return out


def test_info_carries_dcgm_exporters_labels_and_values(tmp_path):
    series = agent_series(tmp_path)
    (info,) = [s for s in series if s.startswith("gpu_npd_gpu_info")]
    dcgm_labels = DCGM[DCGM.index("{") + 1:DCGM.index("}")]
    for pair in dcgm_labels.split(","):  # every label dcgm-exporter puts on a GPU series, with its value
        assert pair in info, (pair, info)


@needs_promtool
def test_the_docs_joins_work_both_ways_in_prometheus(tmp_path):
    text = DOCS.read_text()
    for expr, _, _ in JOINS:
        assert expr in text, f"docs/install.md lost the example: {expr}"
    ours = agent_series(tmp_path)
    xid = next(s for s in ours if s.startswith("gpu_npd_xid_errors_total"))
    info = next(s for s in ours if s.startswith("gpu_npd_gpu_info"))
    dcgm = DCGM.rsplit(" ", 1)[0].replace("}", ',instance="10.0.0.7:9400",job="dcgm-exporter"}')
    tests = {"rule_files": [], "evaluation_interval": "1m", "tests": [{
        "interval": "1m",
        "input_series": [{"series": dcgm, "values": "24268x15"}, {"series": info, "values": "1x15"},
                         {"series": xid, "values": "0x5 1x10"}],  # the Xid counted at minute 6
        "promql_expr_test": [{"expr": expr, "eval_time": "10m", "exp_samples": [{"labels": labels, "value": value}]}
                             for expr, labels, value in JOINS]}]}
    (tmp_path / "joins-test.yaml").write_text(yaml.safe_dump(tests, sort_keys=False))
    promtool = shutil.which("promtool")
    assert promtool
    r = subprocess.run([promtool, "test", "rules", "joins-test.yaml"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and "SUCCESS" in r.stdout, r.stdout + r.stderr
