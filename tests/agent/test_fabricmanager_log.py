"""NVIDIA Fabric Manager's own log (fabricmanager.log) followed as its own source, through the real process."""

from __future__ import annotations

import json
import time
from pathlib import Path

from harness import AgentProc

# leptonai/gpud components/accelerator/nvidia/fabric-manager/log_matcher_test.go (also in
# tests/fixtures/realworld/sxid-fabricmanager.yaml): a line of an earlier boot, stamped 2024
OLD = ("[Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 on NVSwitch pci bus "
       "id 00000000:86:00.0 physical id 3 port 33\n")


def fresh(line: str) -> str:
    """synthetic: the real line above with its time stamp replaced by now (fabricmanager.log is in local time)."""
    return time.strftime("[%b %d %Y %H:%M:%S]", time.localtime()) + line[line.index("]") + 1:]


def test_fabricmanager_log_is_followed_and_its_errors_raise_conditions(tmp_path: Path):
    fm = tmp_path / "fabricmanager.log"
    fm.write_text(OLD)
    a = AgentProc(tmp_path, env={"GPU_NPD_FABRICMANAGER_LOG": str(fm)})
    try:
        a.wait_for(lambda: a.value("gpu_npd_source_records_total", source="fabricmanager") == 1,
                   what="the old line read")
        assert a.value("gpu_npd_source_up", source="fabricmanager") == 1
        # the 2024 line belongs to an earlier boot: recognised, raises nothing
        assert a.value("gpu_npd_node_condition", condition="NVLinkUnhealthy", reason="SXid20034") is None
        with fm.open("a") as fh:
            fh.write(fresh(OLD))
        a.wait_for(lambda: a.value("gpu_npd_node_condition", condition="NVLinkUnhealthy", reason="SXid20034") == 1,
                   what="NVLinkUnhealthy from the fabric manager's line")
        assert a.value("gpu_npd_findings_total", kind="sxid", severity="fatal", attribution="fabric") == 2
        status, body = a.healthz()
        assert status == 200 and "fabricmanager=up" in body
    finally:
        code, _ = a.stop()
    assert code == 0
    state = json.loads((tmp_path / "state" / "state.json").read_text())
    assert str(fm) in state["cursors"]["fabricmanager"]  # its own cursor: not read twice after a restart


def test_absent_fabricmanager_log_is_reported_absent_not_down(tmp_path: Path):
    a = AgentProc(tmp_path, env={"GPU_NPD_FABRICMANAGER_LOG": str(tmp_path / "no-such" / "fabricmanager.log")})
    try:
        a.wait_for(lambda: "fabricmanager=absent" in a.healthz()[1], what="the source reported absent")
        status, body = a.healthz()
        assert status == 200, body  # absent is not down: /healthz stays ok
        assert a.value("gpu_npd_source_up", source="fabricmanager") is None
    finally:
        a.stop()
    err = a.stderr()
    assert "not present on this host" in err
    # said once, and not among the sources the start-up line names as followed
    running = next(line for line in err.splitlines() if "gpu-npd running on node" in line)
    assert "fabricmanager" not in running, running
