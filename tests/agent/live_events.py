"""A job's pods' logs through the node agent's own code (PodLogSource, WorkloadTracker) to its Pod Events, and those
read back by the cluster component (cluster/evidence.py Reader) into the evidence triage.attribute decides: the live
path of a job fact, for tests (tests/agent/test_live_*.py)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from agent.metrics import Metrics
from agent.sources.podlogs import PodLogSource
from agent.workloads import WorkloadTracker
from cluster.evidence import Reader

UID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4{}"


def event_time(at: float | None) -> str | None:
    """The Event's eventTime as the agent writes it (kubeapi.events: the quoted line's own time)."""
    return datetime.fromtimestamp(at, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ") if at is not None else None


def cri(lines: list[str]) -> str:
    """`lines` as kubelet writes them (CRI), a second apart."""
    return "".join(f"2026-03-18T10:{i // 60:02d}:{i % 60:02d}.000000000Z stderr F {line}\n"
                   for i, line in enumerate(lines))


def live(tmp_path: Path, pods: list[tuple[str, list[str]]]):
    """Each (node, lines) one pod of the job on that node, read by that node's agent from its start: (its Events, the
    evidence the cluster component reads of them)."""
    events, evidence = [], []
    for n, (node, lines) in enumerate(pods):
        root = tmp_path / f"node{n}"
        log = root / f"train_job-worker-{n}_{UID.format(n)}" / "main" / "0.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(cri(lines))
        src = PodLogSource(str(root), from_start=True)
        src.discover()
        tracker = WorkloadTracker(Metrics())
        said = {}
        while more := src.poll():
            for ref, f in more:
                ev = tracker.observe(ref, f)
                if ev is not None:
                    said[ev.key] = ev
        for ev in said.values():
            events.append(ev)
            evidence += Reader().pod_event({"reason": ev.reason, "message": ev.message, "source": {"host": node},
                                            "eventTime": event_time(ev.at),
                                            "involvedObject": {"kind": "Pod", "name": ev.ref.pod}})
    return events, evidence
