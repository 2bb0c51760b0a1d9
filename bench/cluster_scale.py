"""The cluster component (`gpu-npd cluster`, a real process) at fleet scale, against the API double.

    python bench/cluster_scale.py [--nodes 1000] [--pods 10000] [--events 100000] [--failing-jobs 200]

  sync    the first lists: N nodes, M pods (batch Jobs of 20 pods each, owners served), nothing failing
  storm   E Event writes by the node agents of the failing jobs' pods: new Pod Events (the agents' reasons and
          message shapes, one per pod, rank and reason) and their aggregation updates (count and message), plus
          an Xid 79 Node Event on one node of each failing job; written straight into the double's store (the
          agents' HTTP writes are not what is measured), faster than any watch can follow, so the double's
          change log (HISTORY) overflows and the controller's watch gets 410 Gone and relists, as it would when
          a real API server's watch cache moves past it
  catch-up  from the storm's start until the controller has applied the newest Event (its resourceVersion gauge)

Prints the controller's peak RSS and CPU seconds for each phase, and the incidents it opened (their Events are
written at --events-per-minute: the incident count is what matters here, not how fast the Events drain).
Targets (issue 25): RSS < 256 MiB, catch-up within 60 s.  Three processes: this one (samples the controller's
RSS and CPU, reads its /metrics), the API double (its own process, which also writes the storm: it serves what
a real API server would, and the GIL it holds is not the sampler's) and the controller.  Synthetic input,
labelled: the message texts are agent/workloads.py's shapes with made-up ranks; the Xid line is the driver's
(tests/agent/test_agent_e2e.py).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)
sys.path.insert(1, str(ROOT / "tests"))

from apiserver_double import ApiDouble  # noqa: E402
from harness import free_port  # noqa: E402

TIMEOUT_LINE = ("[rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation timeout: "
                "WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=545914880, Numel\u2026")
REASONS = [("NCCLWatchdogTimeout", "NCCL watchdog timeout on rank {r}: no hardware or fabric fault on this node in "
            "the preceding 10 min; the cause is likely elsewhere (another node or link: find the first failing rank) "
            "or in the application [container main] Container output: \"" + TIMEOUT_LINE + "\""),
           ("NCCLRemoteError", "NCCL remote error on rank {r}: no hardware or fabric fault on this node in the "
            "preceding 10 min [container main] Container output: \"NCCL WARN NET/IB : Got completion from peer "
            "{peer} with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.1\""),
           ("CUDAError", "CUDA error 'unspecified launch failure' on rank {r} [container main] Container output: "
            "\"RuntimeError: CUDA error: unspecified launch failure seq {seq}\"")]
STORM_BURST = 1_000  # Event writes per hold of the double's lock: between bursts it serves (leases, watches, lists)
XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus"


def stamp(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def pod_ip(job: str, r: int) -> str:
    """A pod's IP (10.<job / 250 + 1>.<job % 250>.<rank>): a remote error's peer is another pod of its job."""
    j = int(job.rsplit("-", 1)[1])
    return f"10.{j // 250 + 1}.{j % 250}.{r}"


def populate(d: ApiDouble, nodes: int, pods: int) -> list[tuple[str, str, int, str]]:
    """Nodes (with their InternalIP), batch Jobs of 20 pods each (pods spread over the nodes, each with its pod IP
    and host IP); returns (job, pod, rank, node)."""
    now = stamp(time.time() - 3600)
    out = []
    for i in range(nodes):
        d.add_node(f"gpu-{i:04d}")["status"]["addresses"] = [
            {"type": "InternalIP", "address": f"172.16.{i // 250}.{i % 250}"},
            {"type": "Hostname", "address": f"gpu-{i:04d}"}]
    per_job = 20
    for j in range(pods // per_job):
        job = f"train-{j:04d}"
        d.jobs[("train", job)] = {"apiVersion": "batch/v1", "kind": "Job",
                                  "metadata": {"name": job, "namespace": "train", "uid": f"uid-{job}"}}
        for r in range(per_job):
            name = f"{job}-{r}-x"
            node = f"gpu-{(j * per_job + r) // max(1, pods // nodes) % nodes:04d}"
            p = {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": name, "namespace": "train", "uid": f"uid-{name}", "creationTimestamp": now,
                              "labels": {"job-name": job, "batch.kubernetes.io/job-name": job},
                              "annotations": {"batch.kubernetes.io/job-completion-index": str(r)},
                              "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job,
                                                   "uid": f"uid-{job}", "controller": True}]},
                 "spec": {"nodeName": node, "containers": [{"name": "main", "image": "train:1"}]},
                 "status": {"phase": "Running", "podIP": pod_ip(job, r), "podIPs": [{"ip": pod_ip(job, r)}],
                            "hostIP": f"172.16.{int(node[4:]) // 250}.{int(node[4:]) % 250}"}}
            d.pods[("train", name)] = p
            out.append((job, name, r, node))
    return out


def storm(d: ApiDouble, members: list[tuple[str, str, int, str]], failing: int, total: int) -> int:
    """`total` Event writes (new Events, then updates of them); returns the resourceVersion of the last."""
    jobs = sorted({m[0] for m in members})[:failing]
    chosen = [m for m in members if m[0] in set(jobs)]
    t = time.time()
    first_node = {}
    for job, _pod, _r, node in chosen:
        first_node.setdefault(job, node)
    for job, node in first_node.items():  # the fault: an Xid 79 on one node of each failing job
        d.event_store[("default", f"{node}.xid79")] = {
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{node}.xid79", "namespace": "default"},
            "involvedObject": {"kind": "Node", "name": node, "uid": node, "apiVersion": "v1"},
            "reason": "Xid79FallenOffBus", "type": "Warning", "count": 1,
            "message": f"Xid 79 on GPU 0000:5d:00: {XID79}. Recommended action: RESTART_BM",
            "firstTimestamp": stamp(t), "lastTimestamp": stamp(t), "source": {"component": "gpu-npd", "host": node}}
    written = len(first_node)
    keys = []
    i = 0
    while written < total:
        with d.lock:
            written, i = burst(d, chosen, keys, written, i, min(total, written + STORM_BURST), total // 2, t)
    return d.rv


def burst(d: ApiDouble, chosen: list, keys: list, written: int, i: int, until: int, new: int,
          t: float) -> tuple[int, int]:
    while written < until:
        job, pod, r, node = chosen[i % len(chosen)]
        variant = i // len(chosen)
        reason, text = REASONS[variant % len(REASONS)]
        key = ("train", f"{pod}.{reason}.{variant // len(REASONS)}")
        if len(keys) < new:
            keys.append(key)
        else:  # the other half: aggregation updates of Events already written (count and message move)
            key = keys[(written * 7919) % len(keys)]
        ev = d.event_store.get(key)
        count = (ev or {}).get("count", 0) + 1
        d.event_store[key] = {
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": key[1], "namespace": "train"},
            "involvedObject": {"kind": "Pod", "name": pod, "namespace": "train", "uid": f"uid-{pod}",
                               "apiVersion": "v1"},
            "reason": reason, "type": "Warning", "count": count,
            "message": text.format(r=r, peer=pod_ip(job, (r + 1) % 20), seq=22631 + count), "firstTimestamp": stamp(t + 1),
            "lastTimestamp": stamp(t + 1), "source": {"component": "gpu-npd", "host": node}}
        written += 1
        i += 1
    return written, i


def metrics(port: int) -> dict[str, float]:
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


class Sampler:
    def __init__(self, pid: int):
        self.p = psutil.Process(pid)
        self.peak = 0

    def sample(self) -> int:
        rss = self.p.memory_info().rss
        self.peak = max(self.peak, rss)
        return rss

    def cpu(self) -> float:
        t = self.p.cpu_times()
        return t.user + t.system


def wait(pred, sampler: Sampler, timeout: float) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        sampler.sample()
        if pred():
            return time.monotonic() - t0
        time.sleep(0.2)
    raise SystemExit(f"timed out after {timeout} s")


def double(conn, nodes: int, pods: int) -> None:
    """The API double's process: populate, say where it is, write the storm when asked, serve until told to stop."""
    with ApiDouble() as d:
        t = time.monotonic()
        members = populate(d, nodes, pods)
        conn.send((d.url, len(members), len(d.jobs), time.monotonic() - t))
        failing, events = conn.recv()
        t = time.monotonic()
        last_rv = storm(d, members, failing, events)
        conn.send((last_rv, time.monotonic() - t))
        conn.recv()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=10_000)
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--failing-jobs", type=int, default=200)
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    conn, theirs = multiprocessing.Pipe()
    server = multiprocessing.get_context("spawn").Process(target=double, args=(theirs, args.nodes, args.pods),
                                                          name="api-double", daemon=True)
    server.start()
    theirs.close()  # the double's end: if its process dies, recv() here ends instead of waiting
    try:
        url, pods, jobs, took = conn.recv()
        print(f"double: {args.nodes} nodes, {pods} pods in {jobs} Jobs ({took:.1f} s; its own process)")
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "gpunpd", "cluster", "--api-server", url, "--identity",
                                 "bench", "--metrics-address", f"127.0.0.1:{port}", "--log-level", "warning"],
                                stdout=subprocess.DEVNULL, cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT)})
        s = Sampler(proc.pid)
        try:
            took = wait(lambda: metrics(port).get('gpu_npd_cluster_tracked{what="pods"}') == pods, s, args.timeout)
            cpu_sync = s.cpu()
            rss_sync = s.sample()
            print(f"sync     {took:6.1f} s   CPU {cpu_sync:6.1f} s   RSS {rss_sync / 2**20:6.1f} MiB   "
                  f"(start, lists of {args.nodes} nodes and {pods} pods)")
            t0 = time.monotonic()
            conn.send((args.failing_jobs, args.events))
            last_rv, wrote = conn.recv()
            after = wait(lambda: metrics(port).get('gpu_npd_cluster_resource_version{resource="events"}', 0)
                         >= last_rv, s, args.timeout)
            caught = time.monotonic() - t0
            time.sleep(2.0)  # the last settle: attribution of what the last Events changed
            m = metrics(port)
            cpu = s.cpu() - cpu_sync
            opened = sum(v for k, v in m.items() if k.startswith("gpu_npd_job_incidents_total{"))
            gone = sum(v for k, v in m.items() if k.startswith("gpu_npd_cluster_watch_restarts_total{")
                       and 'reason="gone"' in k)
            hardware = m.get('gpu_npd_job_incidents_total{category="hardware"}', 0)
            print(f"storm    {args.events:,} Event writes in {wrote:.1f} s (bursts of {STORM_BURST:,} into the "
                  "double's store, in its process)")
            print(f"catch-up {caught:6.1f} s from the storm's start ({after:.1f} s after its last write)   CPU "
                  f"{cpu:6.1f} s   peak RSS {s.peak / 2**20:6.1f} MiB   incidents opened {opened:.0f} of "
                  f"{args.failing_jobs} failing jobs; relists after 410 Gone: {gone:.0f}; hardware {hardware:.0f}")
            ok = s.peak < 256 * 2**20 and caught < 60
            print(f"targets  RSS < 256 MiB and catch-up < 60 s: {'met' if ok else 'NOT met'} (load average "
                  f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the end)")
        finally:
            proc.terminate()
            proc.wait(15)
    finally:
        conn.send("stop")
        server.join(10)


if __name__ == "__main__":
    main()
