"""The real promtool checks the agent's /metrics exposition."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness import AgentProc

XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
PROMTOOL = shutil.which("promtool")


@pytest.mark.skipif(PROMTOOL is None and not os.environ.get("CI"), reason="promtool not installed (.ci/run installs it)")
def test_promtool_check_metrics(tmp_path: Path):
    assert PROMTOOL, "promtool missing: .ci/run installs Debian's prometheus package"
    a = AgentProc(tmp_path)
    a.write(f"3,1,1000,-;{XID79}\n6,2,2000,-;mlx5_core 0000:0c:00.0 ibp12s0: Link down\n")
    a.wait_for(lambda: a.value("gpu_npd_problems", condition="InfiniBandUnhealthy", severity="error") == 1)
    body = a.metrics()
    a.stop()
    r = subprocess.run([PROMTOOL, "check", "metrics"], input=body.encode(), capture_output=True, timeout=30)
    assert r.returncode == 0, (r.stdout + r.stderr).decode()
    assert (r.stdout + r.stderr).strip() == b"", (r.stdout + r.stderr).decode()  # no lint warnings either
