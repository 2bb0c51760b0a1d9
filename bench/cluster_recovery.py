"""How long from a GPU's fatal kernel line to the restart of the gang that used it, with cascading recovery:
four real `gpu-npd run` processes (one per simulated node, each fed through its kmsg FIFO) and a real
`gpu-npd cluster --recovery enforce`, against the API double; the JobSet's pods opted in.

    python bench/cluster_recovery.py [--rounds 3]

Each round: an Xid 79 on node-b, then the time until every pod of the job is deleted (their owner recreates
them; here the bench does, as the JobSet controller would), printed next to NCCL's watchdog (600 s by default):
without gpu-npd the other ranks would wait that long before anything restarts.  The third round within the hour
is the last the budget (3 an hour) allows; a fourth is refused.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)
sys.path.insert(1, str(ROOT / "tests"))
sys.path.insert(2, str(ROOT / "tests" / "cluster"))

from apiserver_double import ApiDouble  # noqa: E402
from harness import free_port, start_fleet, wait_until  # noqa: E402
from test_cluster import NODES, gang  # noqa: E402

from cluster.recovery import OPT_IN  # noqa: E402

XID79 = "NVRM: Xid (PCI:0000:{bus:02x}:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
WATCHDOG = 600.0


def opt_in(api: ApiDouble) -> None:
    for i in range(len(NODES)):
        key = ("train", f"llm-w-0-{i}")
        api.pods[key]["metadata"]["labels"][OPT_IN] = "true"
        api.pods.touch(key)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    with ApiDouble() as api, tempfile.TemporaryDirectory() as tmp:
        gang(api, gpus=0)
        opt_in(api)
        port = free_port()
        ctl = subprocess.Popen([sys.executable, "-m", "gpunpd", "cluster", "--api-server", api.url, "--identity",
                                "bench", "--metrics-address", f"127.0.0.1:{port}", "--recovery", "enforce",
                                "--idle", "2", "--log-level", "warning"], stdout=subprocess.DEVNULL, cwd=str(ROOT))
        agents = []
        try:
            agents, _ = start_fleet(Path(tmp), api.url, {n: [] for n in NODES})
            time.sleep(3.0)  # the controller has listed
            seq = 100
            for n in range(args.rounds):
                deleted = len(api.pods_deleted)
                t0 = time.monotonic()
                seq += 1
                agents[1].write(f"3,{seq},{4254197860 + n * 10**7},-;{XID79.format(bus=0x18 + n)}\n")  # a GPU a round
                try:
                    wait_until(lambda: len(api.pods_deleted) >= deleted + len(NODES), "the gang deleted", timeout=40)
                    took = time.monotonic() - t0
                    print(f"round {n + 1}: gang of {len(NODES)} pods restarted {took:5.1f} s after the kernel line "
                          f"(NCCL watchdog: {WATCHDOG:.0f} s)")
                except AssertionError:
                    print(f"round {n + 1}: no restart within 40 s (budget: 3 an hour): "
                          f"{len(api.pods_deleted) - deleted} pods deleted")
                # the JobSet controller recreates the pods; the node's fault is repaired (the agent restarts clean)
                gang(api, gpus=0)
                opt_in(api)
                for key in [k for k, e in api.event_store.items() if e["involvedObject"]["kind"] == "Node"]:
                    del api.event_store[key]
                time.sleep(4.0)  # the incident closes (--idle 2): the next fault is a new incident
        finally:
            ctl.terminate()
            ctl.wait(10)
            for a in agents:
                a.stop()


if __name__ == "__main__":
    main()
