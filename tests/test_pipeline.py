"""The record path's contract: one immutable snapshot per change for every sink, results returned (no hidden
state read back), a failing sink never stops the others, and the Kubernetes writer never calls into the agent."""

from __future__ import annotations

import io
import logging
from dataclasses import replace
from pathlib import Path

from agent.app import build
from agent.config import load
from agent.health import HealthEngine
from agent.kube.sink import KubernetesSink
from agent.sources import Record
from apiserver_double import ApiDouble
from kubeapi.client import make_api
from parsers import Classifier
from parsers.model import Boot, Change, NodeInfo, Snapshot

# the Xid 79 line of tests/fixtures/dmesg (its GPU fell off the bus), in the kmsg envelope
XID79 = "3,1,1000,-;NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
BENIGN = "6,2,2000,-;eth0: link becomes ready"  # synthetic: a line that is no finding


class Recording:
    def __init__(self):
        self.got: list[Snapshot] = []

    def apply(self, snapshot: Snapshot) -> None:
        self.got.append(snapshot)


class Broken:
    def apply(self, snapshot: Snapshot) -> None:
        raise RuntimeError("boom")


def make(tmp: Path):
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp), "fallback_log_files": [],
                              "fabricmanager_log": "", "nvml": "off", "mode": "off"})
    return build(cfg, out=io.StringIO(), boot=Boot("this-boot", 1_000_000_000.0))


def test_one_snapshot_per_change_shared_by_every_sink_and_never_mutated(tmp_path, caplog):
    agent = make(tmp_path)
    first, second = Recording(), Recording()
    agent.pipeline.sinks[:] = [first, Broken(), second]
    with caplog.at_level(logging.ERROR):
        returned = agent.pipeline.process([Record("kmsg", XID79)])
    assert "sink Broken failed" in caplog.text  # said, and the next sink still got it
    (snap,) = first.got
    assert second.got == [snap] and returned is snap  # one value, built once, handed to each sink
    assert [c.type for c in snap.changed] == ["GPUUnhealthy"] and snap.condition("GPUUnhealthy").status
    assert [p.reason for p in snap.new_problems] == ["Xid79FallenOffBus"] and len(snap.problems) == 1
    (live,) = agent.engine.problems.values()
    live.count += 10  # the engine moves on ...
    assert snap.problems[0].count == 1 and snap.problems[0] is not live  # ... the snapshot does not
    assert agent.pipeline.process([Record("kmsg", BENIGN)]) is None and len(first.got) == 1  # no change: no call


def test_the_engine_returns_its_decision(tmp_path):
    """What a repeat may skip is returned by `decide`; nothing is left on the engine for the caller to read."""
    engine = HealthEngine(load(env={}, flags={}), boot=Boot("b"))
    change = Change()
    f = Classifier().classify(XID79)
    outcome = engine.decide(f, "kernel", change)
    assert outcome == ("problem", next(iter(engine.problems))) and change.new_problems
    assert not hasattr(engine, "outcome")


def test_the_node_s_gpu_capacity_comes_back_as_an_input(tmp_path):
    """The Kubernetes writer reads the Node on its own thread and hands what it says on through `emit` (the
    intake), never calling into the agent."""
    emitted = []
    with ApiDouble() as api:
        api.add_node("gpu-1", gpus=4)
        cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": []})
        s = replace(cfg.kube, api_server=api.url)
        engine = HealthEngine(cfg)
        sink = KubernetesSink(make_api(s), "gpu-1", s, "observe", emit=emitted.append)
        sink.apply(engine.snapshot(engine.tick()))
        sink.sync()
        sink.sync()
    assert emitted == [NodeInfo(gpus=4)]  # once, at the first read
    agent = make(tmp_path)
    agent.pipeline.process(emitted[0])
    assert agent.gpu.expected_gpus == 4
