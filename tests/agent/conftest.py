"""The agent's tests build agents (agent.app.build) and GPU collectors and drive them by hand; most never shut one
down.  Each owns threads (its NVML workers, one per GPU; udev's observer; the poller, Xid and checks threads once
started) that outlived the test: ~600 by the end of tests/agent.  Whatever a test built is closed after it."""

from __future__ import annotations

import pytest

from agent.app import Agent
from agent.gpu.collector import GpuCollector


@pytest.fixture(autouse=True)
def _built_are_closed(monkeypatch):
    agents: list[Agent] = []
    collectors: list[GpuCollector] = []

    def tracked(cls, into: list):
        init = cls.__init__

        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
            into.append(self)
        monkeypatch.setattr(cls, "__init__", __init__)

    tracked(Agent, agents)
    tracked(GpuCollector, collectors)
    yield
    for agent in agents:  # its threads first (the poller asks the collector), then its collector's workers
        agent.close()
    for collector in collectors:
        collector.close()
