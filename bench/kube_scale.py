"""The Kubernetes write path of N simulated nodes, in-process, against the API double.

    python bench/kube_scale.py [--nodes 200]

Virtual time (each node's sink is driven by a shared fake clock; the API double is real HTTP):
  steady   one hour, nothing wrong: heartbeats only
  storm    800,000 Xid 95 lines on one node (through the classifier and the health engine)
  misfire  a rule that fires on every node at once, in enforce mode: the taint budget must hold
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)
sys.path.insert(1, str(ROOT / "tests"))

from apiserver_double import ApiDouble  # noqa: E402
from fakeclock import Clock  # noqa: E402

from agent.config import load  # noqa: E402
from agent.health import HealthEngine  # noqa: E402
from kubeapi.client import make_api  # noqa: E402
from agent.kube.sink import KubernetesSink  # noqa: E402
from parsers import Classifier  # noqa: E402

XID95 = ("NVRM: Xid (PCI:0000:5d:00): 95, pid=2345, name=python, Uncontained: FBHUB. RST: Yes, D-RST: No")
XID79 = "NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."




def writes(d: ApiDouble) -> int:
    return d.status_patches + d.node_patches + len(d.events()) + d.event_patches


def fleet(d: ApiDouble, n: int, mode: str, clock: Clock):
    cfg = load(env={}, flags={"kmsg": ""})
    s = replace(cfg.kube, api_server=d.url, qps=1000, burst=1000)
    out = []
    for i in range(n):
        name = f"gpu-{i:04d}"
        d.add_node(name)
        engine = HealthEngine(cfg, clock)
        sink = KubernetesSink(make_api(s), name, s, mode, clock=clock)
        sink.apply(engine.snapshot(engine.tick()))
        out.append((engine, sink))
    return out


def run_for(nodes, clock: Clock, seconds: float, step: float = 10.0) -> None:
    end = clock.t + seconds
    while clock.t < end:
        clock.t += step
        for _, sink in nodes:
            sink.sync()


def steady(n: int) -> None:
    clock = Clock()
    with ApiDouble() as d:
        nodes = fleet(d, n, "enforce", clock)
        for _, sink in nodes:
            sink.sync()  # start-up write
        base = writes(d)
        run_for(nodes, clock, 3600)
        w = writes(d) - base
    print(f"steady: {n} nodes, 1 h: {w} writes = {w / n:.1f} writes/node/hour (target <= 12)")


def storm() -> None:
    clock = Clock()
    with ApiDouble() as d:
        nodes = fleet(d, 1, "enforce", clock)
        engine, sink = nodes[0]
        sink.sync()
        base = writes(d)
        c = Classifier()
        t0 = time.perf_counter()
        for i in range(800_000):
            change = engine.observe(c.classify(XID95))
            if change:
                sink.apply(engine.snapshot(change))
            if i % 10_000 == 0:  # the writer loop syncs as often as it is woken (coalesced)
                clock.t += 1
                sink.sync()
        sink.sync()
        took = time.perf_counter() - t0
        run_for(nodes, clock, 600)
        w = writes(d) - base
        (p,) = engine.problems.values()
    print(f"storm: 800,000 Xid 95 lines on one node in {took:.1f} s: one problem (count {p.count}), "
          f"{w} API writes incl. 10 min after (target <= 10)")


def misfire(n: int) -> None:
    clock = Clock()
    with ApiDouble() as d:
        nodes = fleet(d, n, "enforce", clock)
        for _, sink in nodes:
            sink.sync()
        base = writes(d)
        c = Classifier()
        for engine, sink in nodes:  # the same bogus finding on every node at once
            sink.apply(engine.snapshot(engine.observe(c.classify(XID79))))
        for _, sink in nodes:
            sink.sync()
        tainted = sum(1 for name in d.nodes if d.taints(name))
        cond = sum(1 for name in d.nodes if d.conditions(name)["GPUUnhealthy"]["status"] == "True")
        w = writes(d) - base
        lists = d.lists
        run_for(nodes, clock, 3600, step=30)  # the hour after, every writer woken every 30 s: the held ask again
        hour, listed = d.lists - lists, d.listed
    print(f"misfire: {n} nodes: condition on {cond}, tainted {tainted} (budget 10% = {max(1, n // 10)}), "
          f"{w} writes, {lists} budget list pages; the hour after: {hour} list pages ({listed} Node objects "
          "listed in all)")


def main() -> None:
    import logging
    logging.disable(logging.WARNING)
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=200)
    args = ap.parse_args()
    steady(args.nodes)
    storm()
    misfire(args.nodes)


if __name__ == "__main__":
    main()
