"""The real promtool checks the agent's /metrics exposition."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import yaml

from harness import AgentProc
from telemetry_kit import copy_sysfs, hgx_scenario

XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
PROMTOOL = shutil.which("promtool")


@pytest.mark.skipif(PROMTOOL is None and not os.environ.get("CI"), reason="promtool not installed (.ci/run installs it)")
def test_promtool_check_metrics(tmp_path: Path):
    """Every family the agent can export: kernel findings plus NVML (fake, 8 GPUs) and sysfs telemetry."""
    assert PROMTOOL, "promtool missing: .ci/run installs Debian's prometheus package"
    scen = tmp_path / "scenario.yaml"
    scen.write_text(yaml.safe_dump(hgx_scenario(timeline=[{"at": 0, "gpu": 2, "set": {"ecc_uncorrected_volatile": 1}}])))
    env = {"GPU_NPD_NVML": f"fake:{scen}", "GPU_NPD_SYSFS_ROOT": str(copy_sysfs(tmp_path)), "GPU_NPD_POLL_SECONDS": "0.2"}
    a = AgentProc(tmp_path, env=env)
    # (written at once: an Xid read before NVML's first inventory waits for it and has the GPU's index and UUID)
    # the port was up before it went down (a port down since boot is an unused port, no error)
    a.write(f"3,1,1000,-;{XID79}\n6,2,1500,-;mlx5_core 0000:0c:00.0 ibp12s0: Link up\n"
            "6,3,2000,-;mlx5_core 0000:0c:00.0 ibp12s0: Link down\n")
    a.wait_for(lambda: a.value("gpu_npd_problems", condition="InfiniBandUnhealthy", severity="error") == 1)
    a.wait_for(lambda: a.value("gpu_npd_gpus", seen_by="nvml") == 8)
    a.wait_for(lambda: a.value("gpu_npd_problems", condition="GPUUnhealthy", severity="fatal") == 2)  # Xid + ECC
    assert a.value("gpu_npd_xid_errors_total", xid="79", pci_bus_id="0000:5d:00", gpu="3",
                   uuid="GPU-00000003-1111-2222-3333-444455550003") == 1
    body = a.metrics()
    a.stop()
    assert 'gpu_npd_gpu_nvlink_data_bytes_total{direction="tx",gpu="3"' in body  # NVML's KiB counters, in bytes
    r = subprocess.run([PROMTOOL, "check", "metrics"], input=body.encode(), capture_output=True, timeout=30)
    # The one lint finding allowed: gpu_npd_gpu_info carries dcgm-exporter's camelCase label names (modelName,
    # Hostname, UUID) on purpose, so that PromQL joins both exporters' series (docs/install.md, test_joins.py).
    found = (r.stdout + r.stderr).decode().splitlines()
    dcgm_names = "gpu_npd_gpu_info label names should be written in 'snake_case' not 'camelCase'"
    assert found and all(line == dcgm_names for line in found), found  # no other lint warning
    assert r.returncode == (3 if found else 0)  # promtool: 3 = lint findings only, 1 = invalid exposition
