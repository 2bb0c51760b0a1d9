"""End to end: four real `gpu-npd run` processes (one per simulated node, each with its kmsg FIFO and pod log
tree) and a real `gpu-npd cluster` process, against the API double.  An Xid 79 on node-b while the ranks on
node-a..d log NCCL watchdog timeouts is one incident, on the JobSet, naming node-b's GPU, within 10 s of the
last evidence."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from datetime import datetime, timezone

import pytest

from apiserver_double import ApiDouble
from harness import AgentProc, free_port, start_fleet, wait_until
from test_cluster import NODES, doc, gang, incidents

# synthetic variation of a real line: tests/fixtures/pods' torch watchdog timeout (its sources in
# tests/fixtures/dmesg/README.md) with the rank changed; the Xid 79 line is the driver's, as test_agent_e2e uses it
TIMEOUT = ("{ts} stderr F [rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=22631, OpType=ALLREDUCE, NumelIn=545914880, NumelOut=545914880, "
           "Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n")
XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


def now_stamp() -> str:
    """kubelet's stamp of a line written now: an agent's Event carries its line's own time, which the cluster compares
    with the node's Xid (recorded when the agent read it): lines the test writes now are stamped now."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f000Z")


def kmsg_now() -> int:
    """kmsg's stamp of a record written now (microseconds since boot, as agent/app.py `boot_epoch` counts them): the
    node's Event carries its Xid's own time, which the cluster compares with the ranks' lines stamped now (a fixed
    stamp is this host's uptime ago)."""
    with open("/proc/uptime", encoding="ascii") as fh:
        return int(float(fh.read().split()[0]) * 1e6)


def metric(port: int, name: str) -> float | None:
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read().decode()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None


@pytest.mark.slow
def test_xid79_on_node_b_while_every_rank_times_out_is_one_incident_naming_its_gpu(tmp_path):
    with ApiDouble() as api:
        gang(api, gpus=0)  # this machine has no GPU, and the nodes' capacity says so
        uids = [f"{i:08d}-0000-4000-8000-000000000000" for i in range(len(NODES))]
        for i, uid in enumerate(uids):  # the pods' uids, as their log directories name them (the agents' Events)
            api.pods[("train", f"llm-w-0-{i}")]["metadata"]["uid"] = uid
            api.pods.touch(("train", f"llm-w-0-{i}"))
        port = free_port()
        out = open(tmp_path / "cluster.log", "w+")
        ctl = subprocess.Popen([sys.executable, "-m", "gpunpd", "cluster", "--api-server", api.url, "--identity",
                                "ctl-0", "--metrics-address", f"127.0.0.1:{port}"], stdout=out,
                               stderr=open(tmp_path / "cluster.err", "w"))
        agents: list[AgentProc] = []
        try:
            agents, by_pod = start_fleet(tmp_path, api.url, {
                node: [f"train_llm-w-0-{i}_{uids[i]}"] for i, node in enumerate(NODES)})
            logs = [by_pod[f"llm-w-0-{i}"] for i in range(len(NODES))]
            wait_until(lambda: metric(port, "gpu_npd_cluster_leader") == 1, "controller leads", timeout=20)
            wait_until(lambda: (metric(port, "gpu_npd_cluster_objects_total") or 0) > 0, "controller lists")
            for a in agents:  # the agents' first scan took the empty logs as history: waited for, not slept
                a.wait_pods_listed()
            for i in (0, 2, 3):
                with open(logs[i], "a") as fh:
                    fh.write(TIMEOUT.format(ts=now_stamp(), r=i))
            agents[1].write(f"3,100,{kmsg_now()},-;{XID79}\n")
            with open(logs[1], "a") as fh:
                fh.write(TIMEOUT.format(ts=now_stamp(), r=1))
            last = time.monotonic()

            def verdict():
                evs = incidents(api)
                ok = [e for e in evs if doc(e)["incident"]["category"] == "hardware"
                      and "4 ranks (0,1,2,3)" in e["message"]]
                return ok[0] if ok else None

            ev = wait_until(verdict, "one hardware incident on the JobSet", timeout=10)
            took = time.monotonic() - last
            assert took < 10, took
            root = doc(ev)["incident"]["root"]
            assert (root["host"], root["pci"], root["kind"]) == ("node-b", "0000:5d:00", "xid")
            assert ev["involvedObject"]["kind"] == "JobSet" and ev["involvedObject"]["name"] == "llm"
            assert "GPU 0000:5d:00" in ev["message"] and "node node-b" in ev["message"]
            time.sleep(1.0)
            assert len(incidents(api)) == 1  # one incident, updated as evidence came: never a storm
            out.seek(0)
            lines = [json.loads(x) for x in out if x.startswith("{")]
            assert lines and lines[-1]["incident"]["root"]["host"] == "node-b"
            # one incident opened, counted under the category of its first verdict (the timeouts may come first)
            first = lines[0]["incident"]["category"]
            assert metric(port, f'gpu_npd_job_incidents_total{{category="{first}"}}') == 1.0
            print(f"incident {took:.2f} s after the last evidence")
        finally:
            ctl.terminate()
            code = ctl.wait(10)
            for a in agents:
                a.stop()
        assert code == 0
