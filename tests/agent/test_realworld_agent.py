"""The agent's record path over the real-world corpus (tests/fixtures/realworld): every node event a sample of the
node's own logs expects is counted by the agent (gpu_npd_findings_total), as `gpu-npd parse` reports it
(tests/offline/test_parse_realworld.py). tests/parsers/test_realworld.py checks the classifier alone, which both share;
this checks what the pipeline adds in front of the engine (admission: the kernel's lines only, the Xid merge, the
coalescer). BY_DESIGN names the events the agent leaves out on purpose, each with why; one counted now fails too."""

from __future__ import annotations

import collections
import io
from pathlib import Path

import realworld

from agent.app import build
from agent.config import load
from agent.sources import Record
from parsers import keyword_prefilter
from parsers.correlate import WORKLOAD_KINDS
from parsers.model import Boot

_WORKLOAD_FROM_NODE_LOG = ("a job's failure in the node's syslog (another program's line): the agent reads a job's "
                           "failures from its pod's log; the kubelet's pod Events say a runtime's refusal "
                           "(gpu-npd cluster)")
# sample (file#index) -> why the agent does not count its expected events
BY_DESIGN = {
    **realworld.NOT_THIS_HOST,
    # Talos's machined writes its log to /dev/kmsg at the user facility: a record any local process can write, so
    # never a node fault (parsers/finding.py KERNEL_PROGRAMS; `gpu-npd parse` reports it, as a driver_unusable failure)
    "module-load-2026.yaml#7": "Talos's controller line, a userspace /dev/kmsg record (user: warning: [talos] ..)",
    # a syslog line of a program whose words are no node fault the agent takes (parsers/finding.py DAEMON_KINDS):
    # nvidia-persistenced failing to start (a warning `gpu-npd parse` reports), the kubelet's back-off of a GPU stack
    # container (its pod's BackOff Event is the cluster's word)
    "grace-2026i.yaml#10": "nvidia-persistenced's own syslog line: not the kernel's, not a daemon DAEMON_KINDS trusts",
    "k8s-gpu-stack-2026l.yaml#11": "nvidia-persistenced's own syslog line: not the kernel's, not a daemon DAEMON_KINDS trusts",
    "k8s-gpu-stack-2026k.yaml#19": "the kubelet's journal line (its back-off of a GPU stack container): not the kernel's",
    "process-crash.yaml#3": _WORKLOAD_FROM_NODE_LOG,
    "runtime-2026i.yaml#17": _WORKLOAD_FROM_NODE_LOG,
    "runtime-2026i.yaml#23": _WORKLOAD_FROM_NODE_LOG,
    "runtime-2026i.yaml#26": _WORKLOAD_FROM_NODE_LOG,
}


def _counted(agent) -> collections.Counter:
    got = collections.Counter()
    for family in agent.metrics.registry.collect():
        if family.name == "gpu_npd_findings":
            for s in family.samples:
                if s.name.endswith("_total") and s.value:
                    got[s.labels["kind"]] += int(s.value)
    return got


def test_the_agent_counts_every_node_event_the_corpus_expects(tmp_path: Path):
    missed = {}
    # one configuration and keyword test for all: an agent of its own a sample (what it counted, its alone), built
    # from them as `gpu-npd run` builds its one (nothing is saved: no tick runs, so the state directory stays empty)
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp_path), "fallback_log_files": [],
                              "fabricmanager_log": "", "imex_log": "", "nvml": "off", "mode": "off"})
    prefilter = keyword_prefilter().compile()
    for item in realworld.samples():
        if item["file"].startswith(realworld.WORKLOAD_FILES):
            continue
        name = f"{item['file']}#{item['index']}"
        agent = build(cfg, out=io.StringIO(), boot=Boot("this-boot", 1_000_000_000.0), prefilter=prefilter)
        # (a log file the agent follows: its lines as the files source hands them over, one batch)
        agent.pipeline.process([Record("files", line) for line in item["text"].splitlines()])
        want = collections.Counter(e["kind"] for e in item["expect"])
        if want - _counted(agent):
            missed[name] = (dict(want - _counted(agent)), item["text"][:160])
    assert sorted(set(missed) - set(BY_DESIGN)) == [], "\n".join(f"{n}: {w} {t!r}" for n, (w, t) in missed.items()
                                                                if n not in BY_DESIGN)
    assert sorted(set(BY_DESIGN) - set(missed)) == [], "stale BY_DESIGN entries: counted now"
    assert not any(tmp_path.iterdir())  # (the agents shared a state directory: none saved anything another read)
    # what the workload entries leave out is a workload kind, each; the rest of their samples is counted
    for name, why in BY_DESIGN.items():
        if why == _WORKLOAD_FROM_NODE_LOG:
            assert set(missed[name][0]) <= WORKLOAD_KINDS, name
