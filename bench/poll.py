"""Telemetry poll cycle cost: 8 fake H100s (18 NVLinks each) and the HGX fixture sysfs tree
(8 InfiniBand ports with 40 counters each, 48 PCI functions with AER files).

    python bench/poll.py [--cycles 500]

Reports the agent's own CPU per cycle (process CPU: poll threads, rules, engine, metrics state), the
fake NVML's own share measured separately, the sysfs files one cycle reads read alone (open, read, close: what the
host's system calls cost, which the agent cannot make cheaper and which differs tenfold between a sandboxed VM and
bare metal), and the cost of rendering /metrics once.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml
from prometheus_client import generate_latest

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # not bench/: its agent.py would shadow the agent package
sys.path.insert(1, str(ROOT / "tests"))
from telemetry_kit import copy_sysfs, hgx_scenario  # noqa: E402

from agent.app import build  # noqa: E402
from agent.config import load  # noqa: E402
from agent.gpu.nvml import GROUPS  # noqa: E402


def files_read(agent, root: str) -> list[str]:
    """The files under `root` (the sysfs tree) one poll cycle opens: the interpreter's `open` audit event, raised by
    os.open and open() alike, so a reader is counted whatever name it imported its reader under."""
    paths: list[str] = []
    prefix = root.rstrip(os.sep) + os.sep
    recording = [True]

    def hook(event: str, args: tuple) -> None:
        if recording[0] and event == "open" and isinstance(args[0], str) and args[0].startswith(prefix):
            paths.append(args[0])

    sys.addaudithook(hook)  # (a hook cannot be removed: it stops recording instead)
    try:
        agent.poller.poll_once()
    finally:
        recording[0] = False
    return paths


def syscalls(paths: list[str], cycles: int) -> float:
    """CPU seconds a cycle of reading `paths` alone takes: os.open, os.read, os.close, nothing else."""
    c0 = time.process_time()
    for _ in range(cycles):
        for path in paths:
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            try:
                os.read(fd, 65536)
            except OSError:
                pass
            os.close(fd)
    return (time.process_time() - c0) / cycles


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=500)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        scen = t / "s.yaml"
        scen.write_text(yaml.safe_dump(hgx_scenario()))
        root = str(copy_sysfs(t))
        cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(t / "state"),
                                  "fallback_log_files": [], "nvml": f"fake:{scen}", "sysfs_root": root})
        agent = build(cfg, out=io.StringIO())
        agent.pipeline.process(agent.poller.poll_once())  # warm: init, NVLink probe, device scan
        per_cycle = []
        for _ in range(args.cycles):
            c0 = time.process_time()
            agent.pipeline.process(agent.poller.poll_once())
            per_cycle.append(time.process_time() - c0)
        batch = agent.poller.poll_once()
        readings = len(batch.readings)
        values = sum(len(r.values) for r in batch.readings)

        fake = agent.gpu.backend  # the same reads, without the agent around them
        c0 = time.process_time()
        for _ in range(args.cycles):
            for g in agent.gpu.gpus:
                for group in GROUPS:
                    if group not in g.unsupported:  # (as the collector: a group NOT_SUPPORTED is read no more)
                        fake.read(g.ident.index, group)
                for link in g.links:
                    fake.nvlink(g.ident.index, link)
        nvml = (time.process_time() - c0) / args.cycles

        paths = files_read(agent, root)
        reads = syscalls(paths, args.cycles)

        c0 = time.process_time()
        for _ in range(50):
            body = generate_latest(agent.metrics.registry)
        scrape = (time.process_time() - c0) / 50

    med, p95 = statistics.median(per_cycle), sorted(per_cycle)[int(len(per_cycle) * 0.95)]
    print(f"poll cycle, {readings} readings / {values} values, {args.cycles} cycles")
    print(f"  process CPU per cycle: median {med * 1e3:.2f} ms, p95 {p95 * 1e3:.2f} ms")
    print(f"  fake NVML itself:      {nvml * 1e3:.2f} ms per cycle")
    print(f"  agent excluding NVML:  median {(med - nvml) * 1e3:.2f} ms (target <= 5 ms)")
    print(f"  of which sysfs syscalls: {reads * 1e3:.2f} ms ({len(paths)} files opened, read, closed alone: "
          f"{reads / max(1, len(paths)) * 1e6:.1f} us a file on this host)")
    print(f"  agent excluding NVML and the sysfs syscalls: {(med - nvml - reads) * 1e3:.2f} ms")
    print(f"  /metrics render:       {scrape * 1e3:.2f} ms ({len(body) // 1024} KiB)")
    print(f"  at poll_seconds=10:    {med / 10 * 100:.3f}% of one core")


if __name__ == "__main__":
    main()
