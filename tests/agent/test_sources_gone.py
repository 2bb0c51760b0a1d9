"""Sources whose input vanishes (issues 16/17) through the real process: a followed log file or the pod-log
directory that disappears makes the source down (gpu_npd_source_up 0, /healthz 503) after the grace period;
back under the same name, it is read from its start and the source is up again. A rotation never flaps."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
import yaml

from harness import AgentProc

pytestmark = pytest.mark.slow
GRACE = {"GPU_NPD_SOURCE_GONE_GRACE_SECONDS": "2"}
PODS = Path(__file__).parents[1] / "fixtures" / "pods" / "var" / "log" / "pods"
W1 = "train_llama-70b-worker-3_7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
# the shape of torch's ProcessGroupNCCL watchdog line as in the fixture's pods (synthetic values)
TIMEOUT = ("{ts} stderr F [rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=22631, OpType=ALLREDUCE, NumelIn=545914880, NumelOut=545914880, "
           "Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n")


def xid13(i: int) -> str:  # synthetic: shape of NVRM's Xid 13 line (application class: raises no condition)
    return f"NVRM: Xid (PCI:0000:5d:00): 13, pid={1000 + i}, name=python3, Graphics SM Warp Exception\n"


def test_a_log_file_that_vanishes_is_down_after_grace_and_read_from_its_start_when_back(tmp_path: Path):
    log = tmp_path / "kern.log"
    log.write_text("".join(xid13(i) for i in range(3)))
    a = AgentProc(tmp_path, "--log-file", str(log), env=GRACE)
    xids = lambda: a.value("gpu_npd_xid_errors_total", xid="13", pci_bus_id="0000:5d:00")  # noqa: E731
    a.wait_for(lambda: xids() == 3, what="3 Xids")

    # rotation: renamed away, the new file a second later (inside the grace period): never down
    log.rename(tmp_path / "kern.log.1")
    seen = set()
    for _ in range(10):
        seen.add(a.value("gpu_npd_source_up", source="files"))
        seen.add(a.healthz()[0])
        time.sleep(0.1)
    log.write_text("".join(xid13(i) for i in range(3, 5)))
    deadline = time.time() + 3.0  # past the grace period as measured from the rename
    while time.time() < deadline:
        seen.add(a.value("gpu_npd_source_up", source="files"))
        seen.add(a.healthz()[0])
        time.sleep(0.1)
    assert seen == {1.0, 200}, seen
    a.wait_for(lambda: xids() == 5, what="the rotated file's lines")

    # deleted, nothing in its place: down after the grace period, in the gauge and in /healthz
    log.unlink()
    t0 = time.time()
    a.wait_for(lambda: a.value("gpu_npd_source_up", source="files") == 0, what="files reported down")
    assert time.time() - t0 >= 1.5  # not before the grace period
    code, body = a.healthz()
    assert code == 503 and "files" in body and "kern.log disappeared" in body, body

    # back (a new file): read from its start, up again
    log.write_text("".join(xid13(i) for i in range(5, 9)))
    a.wait_for(lambda: xids() == 9, what="the new file read from its start")
    a.wait_for(lambda: a.value("gpu_npd_source_up", source="files") == 1, what="files up again")
    assert a.healthz()[0] == 200
    assert a.value("gpu_npd_source_restarts_total", source="files") in (None, 0.0)
    assert a.stop()[0] == 0


def test_the_pod_log_directory_that_vanishes_is_down_and_its_files_read_from_the_start_when_back(tmp_path: Path):
    pods = tmp_path / "pods"
    shutil.copytree(PODS, pods)
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"nvml": "off", "pod_logs_root": str(pods)}))
    a = AgentProc(tmp_path, "--config", str(conf), env=GRACE)
    a.wait_for(lambda: a.value("gpu_npd_source_up", source="pods") == 1, what="pod source")
    found = lambda: a.value("gpu_npd_workload_findings_total", namespace="train", kind="nccl_timeout") or 0  # noqa: E731
    before = found()  # the fixture's existing lines are history at start: not read

    aside = tmp_path / "pods-aside"
    pods.rename(aside)
    a.wait_for(lambda: a.value("gpu_npd_source_up", source="pods") == 0, what="pods reported down")
    code, body = a.healthz()
    assert code == 503 and "source pods is down" in body and "disappeared" in body, body

    shutil.copytree(aside, pods)  # back: a new directory, new files (what kubelet writes after a remount)
    with open(pods / W1 / "pytorch" / "0.log", "a") as fh:
        fh.write(TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=21))
    a.wait_for(lambda: a.value("gpu_npd_source_up", source="pods") == 1, what="pods up again")
    # read from the start: the fixture's own lines count now, as well as the appended one
    a.wait_for(lambda: found() >= before + 2, what="files read from their start")
    assert a.healthz()[0] == 200
    assert a.stop()[0] == 0
