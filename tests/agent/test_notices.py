"""(h491) A node's finding of warning or worse that raises no condition (no rule for it) is a Node Event of its kind's
reason: a notice (agent/health.py `_notice`), said at most once per subject and reason every `notice_seconds`, its lines
all counted.  Before, it was counted and logged only: no Event, nothing in `kubectl describe node` (peers write one:
aws/eks-node-monitoring-agent docs/node-health-issues.adoc, `ConntrackExceededKernel`, `AppBlocked`, `KernelBug`,
`NvidiaXID[Code]Warning` are Events). Every message below is a real line of the fixture named beside it."""

from __future__ import annotations

import copy

import io
import json
import time

import pytest

from agent.app import build
from agent.coalesce import Coalescer
from agent.config import ConfigError, load
from agent.health import NOTICE_KEYS, HealthEngine
from agent.kube.settings import KubeSettings
from agent.sources import Record
from fakeclock import Clock
from parsers import Classifier
from parsers.model import Boot, Change

# kernel-tables-2026.yaml: kubernetes/kubernetes #71261
CONNTRACK = "nf_conntrack: table full, dropping packet"
# host-thermal.yaml: mbusb/multibootusb #164
THROTTLE = "CPU3: Core temperature above threshold, cpu clock throttled (total events = 57536)"
# host-2.yaml: oxidecomputer/propolis #1156 (the abort an NVMe timeout starts with: a warning, no condition)
NVME_ABORT = "nvme nvme0: I/O 900 (I/O Cmd) QID 2 timeout, aborting"
FLAGS = {"kmsg": "", "journald": False, "fallback_log_files": [], "fabricmanager_log": "", "imex_log": ""}


def make_agent(tmp, clock=None, boot=None, **over):
    """An agent of a boot begun a day ago (not this host's: the lines' kmsg stamps are read as seconds since the boot's
    start, and a stamp later than the host has been up is read as now: on a host booted minutes ago, a line stamped
    601 s would fall on the first's minute)."""
    out = io.StringIO()
    boot = boot if boot is not None else Boot("test-boot", time.time() - 86_400.0)
    agent = build(load(env={}, flags={**FLAGS, "state_dir": str(tmp), **over}), out=out, boot=boot,
                  **({"clock": clock} if clock is not None else {}))
    return agent, out


def said(out: io.StringIO, event: str) -> list[dict]:
    return [j for j in map(json.loads, out.getvalue().splitlines()) if j.get("event") == event]


def kmsg(seq: int, usec: int, text: str, level: int = 4) -> Record:
    return Record("kmsg", f"{level},{seq},{usec},-;{text}")


def test_a_finding_that_raises_no_condition_is_said_as_a_notice(tmp_path):
    agent, out = make_agent(tmp_path)
    agent.pipeline.process([kmsg(1, 1_000_000, CONNTRACK)])
    (n,) = said(out, "notice")
    assert n["reason"] == "KernelTableFull" and n["severity"] == "warning" and n["subject"] == "node"
    assert CONNTRACK in n["message"] and "Recommended action" in n["message"]
    assert not said(out, "problem") and not any(c.status for c in agent.engine.conditions.values())
    agent.pipeline.process([kmsg(2, 2_000_000, THROTTLE)])
    assert [n["reason"] for n in said(out, "notice")] == ["KernelTableFull", "CPUThermalThrottle"]


def test_an_imex_daemon_error_in_the_hosts_log_is_a_node_event(tmp_path):
    """docs/concepts.md promised "an Event, no condition" for the IMEX log's errors: there was none (kubernetes-sigs/
    dra-driver-nvidia-gpu #948, imex-errors-2026h.yaml: the daemon's failed memory export)."""
    engine = HealthEngine(load(env={}, flags=FLAGS), Clock())
    change = Change()
    engine.decide(Classifier().classify("Failed to get new memory reference with rc: 87"), "kernel", change)
    assert [(n.reason, n.severity) for n in change.notices] == [("IMEXError", "error")] and not change.new_problems


def test_a_storm_is_one_notice_a_period_and_every_line_counted(tmp_path):
    """10,000 lines within a minute: one notice (one Event), all 10,000 counted, the repeats coalesced (not decided
    again); a line past `notice_seconds` (the default: 600 s) after the first is said again."""
    agent, out = make_agent(tmp_path)
    for b in range(10):
        agent.pipeline.process([kmsg(b * 1000 + i, 1_000_000 + (b * 1000 + i) * 5000, CONNTRACK)
                                for i in range(1000)])
    assert len(said(out, "notice")) == 1
    metrics = agent.metrics.registry
    assert metrics.get_sample_value("gpu_npd_findings_total", {"kind": "kernel_table_full", "severity": "warning",
                                                               "attribution": "unknown"}) == 10_000
    assert metrics.get_sample_value("gpu_npd_coalesced_records_total", {"source": "kmsg"}) == 9_999
    assert agent.engine.cfg.notice_seconds == 600.0
    later = 1_000_000 + int(agent.engine.cfg.notice_seconds * 1e6) + 1
    agent.pipeline.process([kmsg(10_000, later, CONNTRACK)])
    assert len(said(out, "notice")) == 2


def test_notices_are_the_same_deciding_every_line(tmp_path):
    """The coalescer's repeats (a "notice" outcome until it is due) give the notices deciding every line gives."""
    lines = [CONNTRACK, THROTTLE, NVME_ABORT] * 40
    got = []
    for size in (0, 4096):
        clock = Clock()
        engine = HealthEngine(load(env={}, flags=FLAGS), clock)
        co = Coalescer(engine, size)
        notices = []
        for i, text in enumerate(lines):
            clock.t += 60.0
            f = Classifier().classify(text)
            f.timestamp = None
            if co.repeat("kmsg", f) is None:
                change = Change()
                outcome = engine.decide(f, "kernel", change)
                if outcome is not None:
                    co.remember("kmsg", f, outcome, ())
                notices += [(i, n.reason) for n in change.notices]
        got.append(notices)
    assert got[0] == got[1] and len(got[0]) > 3


def test_no_notice_for_info_an_application_a_pod_or_a_routine_kind(tmp_path):
    """Not for an info finding, an application's (a segfault: its pod's Event and triage say it), a pod log's (its
    Pod Event), a kind whose lesser findings healthy machines print (an IOMMU fault warning: `node_event`), nor a
    finding that raised a problem (its own Event)."""
    engine = HealthEngine(load(env={}, flags=FLAGS), Clock())
    def notices(text: str, source: str = "kernel") -> list[str]:
        change = Change()
        engine.decide(Classifier().classify(text), source, change)
        return [n.reason for n in change.notices] + [p.reason for p in change.new_problems]

    assert notices(CONNTRACK, "pods") == []
    # process-crash.yaml: NCCL's library crashing in a job's process (attribution application)
    assert notices("pt_main_thread[2536443]: segfault at 7f797fe00000 ip 00007f7c7ac69996 sp 00007f7c12fd7c30 error 4 "
                   "in libnccl.so.2[7f7c7ac00000+d3d3000]") == []
    # iommu.yaml (pop-os/pop #853): an NVMe drive's IOMMU faults at boot, a warning healthy machines print
    f = Classifier().classify("nvme 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0xfc189000 "
                              "flags=0x0000]")
    assert f.kind == "iommu_fault" and f.severity == "warning"
    change = Change()
    engine.decide(f, "kernel", change)
    assert not change.notices and not change.new_problems
    # host.yaml: a CPU soft lockup raises KernelDegraded: its problem's Event, no notice besides
    assert notices("watchdog: BUG: soft lockup - CPU#18 stuck for 27s! [python3:2254956]") == ["CPUSoftLockup"]


def test_the_opt_out_says_no_notice(tmp_path):
    agent, out = make_agent(tmp_path, notice_events=False)
    agent.pipeline.process([kmsg(1, 1_000_000, CONNTRACK)])
    assert not said(out, "notice")


def test_a_restart_does_not_say_again_a_notice_said_within_its_period(tmp_path):
    """(h503) A notice's "said until" is saved with the state: an agent started again (a crash loop, a DaemonSet
    rollout over every node) says a notice again only when it is due, as the running agent would have; before, every
    node's first line of each reason was a new Event write at once. Through the state file, with real lines."""
    clock = Clock()
    boot = Boot("b", clock.t - 100.0)
    agent, out = make_agent(tmp_path, clock=clock, boot=boot)
    agent.pipeline.process([kmsg(1, 98_000_000, CONNTRACK)])  # seen: 2 s ago
    assert len(said(out, "notice")) == 1
    assert agent.shutdown()
    clock.t += 60.0
    again, out = make_agent(tmp_path, clock=clock, boot=boot)
    again.pipeline.process([kmsg(2, 159_000_000, CONNTRACK), kmsg(3, 159_500_000, THROTTLE)])
    assert [n["reason"] for n in said(out, "notice")] == ["CPUThermalThrottle"]  # (a reason not said before: said)
    clock.t += KubeSettings.event_aggregate_seconds  # notice_seconds' default
    again.pipeline.process([kmsg(4, int((clock.t - boot.epoch) * 1e6), CONNTRACK)])
    assert [n["reason"] for n in said(out, "notice")] == ["CPUThermalThrottle", "KernelTableFull"]  # due: said
    assert again.shutdown()


def test_saved_notice_times_are_bounded_and_expire(tmp_path):
    """What is restored of the notices' times: at most NOTICE_KEYS, the newest; none already due (an agent down
    longer than the period says its next line); none due later than a period from now (a clock set back, a hostile
    file: never a notice silenced for longer than a running agent would); an entry not a finite number dropped
    alone, said."""
    clock = Clock()
    engine = HealthEngine(load(env={}, flags=FLAGS), clock)
    now = clock.t
    saved = {f"node|R{i}": now + 300.0 for i in range(NOTICE_KEYS + 50)}
    saved |= {"node|Past": now - 1.0, "node|Far": now + 10 * KubeSettings.event_aggregate_seconds, "node|Bad": "soon", "node|NaN": "nan"}
    faults = engine.restore({"notices": saved})
    kept = engine.to_state()["notices"]
    assert len(kept) == NOTICE_KEYS and "node|R50" in kept and f"node|R{NOTICE_KEYS + 49}" in kept
    assert not {"node|R0", "node|Past", "node|Far", "node|Bad", "node|NaN"} & set(kept)
    assert faults == ["notices['node|Bad']: expected a number", "notices['node|NaN']: expected a finite number"]
    assert engine.restore({"notices": ["not", "a", "mapping"]}) and not engine.restore({})


def storm(engine: HealthEngine, clock: Clock, lines: int, every: float) -> list[float]:
    """`lines` full-conntrack lines `every` seconds apart, each decided: when a notice was said."""
    said_at = []
    line = Classifier().classify(CONNTRACK)  # (classified once: a classifier built a line was 20 s of 10,000 lines)
    line.timestamp = None
    for _ in range(lines):
        clock.t += every
        change = Change()
        engine.decide(copy.deepcopy(line), "kernel", change)
        said_at += [clock.t for _ in change.notices]
    return said_at


def test_the_notice_interval_is_its_own_key_defaulting_to_the_event_aggregation_period():
    """(h501) The interval was a constant, NOTICE_SECONDS, repeating kubernetes.event_aggregate_seconds' default; it is
    the key `notice_seconds`, whose default is that key's. Turning the recorder's aggregation off (0) leaves a storm
    of 10,000 lines one notice each 10 minutes, not one a line."""
    assert load(env={}, flags=FLAGS).notice_seconds == KubeSettings.event_aggregate_seconds == 600.0
    cfg = load(env={}, flags={**FLAGS, "kubernetes": {"event_aggregate_seconds": 0}})
    clock = Clock()
    assert len(storm(HealthEngine(cfg, clock), clock, 10_000, 0.12)) == 2  # 1,200 s: at 0 s and at 600 s
    cfg = load(env={}, flags={**FLAGS, "notice_seconds": 60})
    clock = Clock()
    assert len(storm(HealthEngine(cfg, clock), clock, 100, 6.0)) == 10  # 600 s: one a minute


@pytest.mark.parametrize("value", [0, 0.5, -1])
def test_a_notice_interval_under_a_second_is_refused_in_one_line(value):
    """0 would be a notice (an Event write) per line: refused, one line naming the key."""
    with pytest.raises(ConfigError, match="^notice_seconds: expected a number >= 1") as exc:
        load(env={}, flags={**FLAGS, "notice_seconds": value})
    assert "\n" not in str(exc.value)
