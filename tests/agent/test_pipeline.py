"""The record path's contract: one immutable snapshot per change for every sink, results returned (no hidden
state read back), a failing sink never stops the others, and the Kubernetes writer never calls into the agent."""

from __future__ import annotations

import io
import logging
from dataclasses import asdict, replace
from pathlib import Path

from fakeclock import Clock
from hypothesis import given, settings
from hypothesis import strategies as st

from opcount import calls
from agent.app import build
from agent.config import load
from agent.health import HealthEngine
from agent.kube.sink import KubernetesSink
from agent.sources import Record
from apiserver_double import ApiDouble
from kubeapi.client import make_api
from parsers import Classifier
from parsers.model import Boot, Change, NodeInfo, Problem, Snapshot

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
                              "fabricmanager_log": "", "imex_log": "", "nvml": "off", "mode": "off"})
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


def test_a_snapshot_copies_only_the_problems_that_changed(tmp_path, monkeypatch):
    """Issue 24's flood cost: a snapshot copied every standing problem once per batch.  Now the problems a batch
    left alone are the very copies the previous snapshot handed out; only those raised or changed are copied."""
    import agent.health as health

    agent = make(tmp_path)
    agent.pipeline.process([Record("kmsg", XID79.replace("5d:00", f"{i:02x}:00")) for i in range(200)])
    before = agent.pipeline.publish(Change(), always=True)
    copies = []
    def counting(o):  # Problems and Conditions: the problems are counted
        if isinstance(o, Problem):
            copies.append(o.id)
        return replace(o)
    monkeypatch.setattr(health, "_copied", counting)
    after = agent.pipeline.process([Record("kmsg", XID79.replace("5d:00", "07:00")),  # one more of a standing one
                                    Record("kmsg", XID79.replace("5d:00", "f0:00"))])  # a new one
    assert sorted(copies) == ["gpu:0000:07:00|xid|79|Xid79FallenOffBus", "gpu:0000:f0:00|xid|79|Xid79FallenOffBus"]
    shared = [a is b for a, b in zip(before.problems, after.problems)]
    assert shared.count(False) == 1 and not shared[7] and len(after.problems) == 201
    assert before.problems[7].count == 1 and after.problems[7].count == 2  # the earlier snapshot did not move


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["raise", "reset", "tick", "publish"]), st.integers(0, 5),
                          st.sampled_from([79, 95, 63])), max_size=60))
def test_every_snapshot_is_the_state_as_it_stands_and_stays_as_it_was(ops):
    """Whatever raises, adds to, clears, expires or evicts problems in between (8 at most here), each snapshot
    holds every standing problem as it stands, in the engine's order, and keeps holding what it held."""
    clock = Clock(1_795_000_000.0)
    engine = HealthEngine(load(env={}, flags={"max_problems": 8, "warning_expire_seconds": 60}), clock, Boot("b"))
    classify, taken = Classifier().classify, []
    for op, gpu, xid in ops:
        clock.t += 20
        if op == "raise":
            engine.observe(classify(f"NVRM: Xid (PCI:0000:{gpu:02x}:00): {xid}, pid=1, name=p, text"))
        elif op == "reset":
            engine.observe(classify(f"NVRM: GPU 0000:{gpu:02x}:00.0: GPU reset complete"))
        elif op == "tick":
            engine.tick()
        else:
            snap = engine.snapshot(engine.tick())
            assert [asdict(p) for p in snap.problems] == [asdict(p) for p in engine.problems.values()]
            taken.append((snap, [asdict(p) for p in snap.problems]))
    for snap, held in taken:
        assert [asdict(p) for p in snap.problems] == held


def test_a_pod_finding_costs_the_same_whatever_the_problems_standing(tmp_path):
    """Issue 31 item 8: each pod finding went over every standing problem (27 s of CPU at 4,096 problems, the
    engine stalled up to 8 s).  Now a batch of pod findings looks at them once: the cost a finding adds to its
    batch is the same with 2,000 fatal problems standing as with 10."""
    from parsers import parse_line
    from parsers.model import PodRef, WorkloadFindings

    nccl = "NCCL WARN Net : Connection closed by remote peer gpu-node-2<43342>"  # synthetic: real shape
    ref = PodRef("ns", "train-worker-0", "uid", "main")
    per_finding, per_batch = {}, {}
    for standing in (10, 2_000):
        agent = make(tmp_path / str(standing))
        agent.pipeline.process([Record("kmsg", f"3,{i},1000,-;NVRM: Xid (PCI:{i:04x}:5d:00): 79, pid='<unknown>', "
                                               "name=<unknown>, GPU has fallen off the bus.") for i in range(standing)])
        assert len(agent.engine.problems) == standing
        agent.pipeline.process(WorkloadFindings([(ref, parse_line(nccl))]))  # the causes' index, built once
        small, big = (calls(lambda b=WorkloadFindings([(ref, parse_line(nccl)) for _ in range(n)]):
                             agent.pipeline.process(b)) for n in (50, 150))
        per_finding[standing], per_batch[standing] = (big - small) / 100, small
    assert per_finding[2_000] == per_finding[10], per_finding
    assert per_batch[2_000] - per_batch[10] <= 3 * (2_000 - 10), per_batch  # one look at each problem a batch


def test_a_pod_batch_is_taken_once_processed_or_skipped_on_an_internal_error(tmp_path):
    """WorkloadFindings.done (the pod log source saves its offsets no further than the pipeline took): called
    once a batch is processed, and once when a bug stops it (the batch is skipped, not read again forever)."""
    import pytest

    from parsers import parse_line
    from parsers.model import PodRef, WorkloadFindings

    agent = make(tmp_path)
    ref = PodRef("ns", "train-worker-0", "uid", "main")
    line = "NCCL WARN Net : Connection closed by remote peer gpu-node-2<43342>"  # synthetic: real shape
    taken: list[str] = []
    agent.pipeline.process(WorkloadFindings([(ref, parse_line(line))], done=lambda: taken.append("ok")))
    def boom(*_):
        raise RuntimeError("a bug on this input")
    agent.pipeline.workloads.observe = boom
    with pytest.raises(RuntimeError):
        agent.pipeline.process(WorkloadFindings([(ref, parse_line(line))], done=lambda: taken.append("skipped")))
    assert taken == ["ok", "skipped"]


def test_a_line_joining_an_event_with_the_address_its_finding_lacked_is_that_events_one_problem(tmp_path):
    """A GPU needing reset whose first line named no GPU, then the driver's rate-limiting line naming it (joining the
    event, no finding of its own: parsers/rules.py EVENT_FILLS): through the pipeline (Classifier.read, the
    admission and the engine) one problem, on that GPU, its one sighting; none left on the node.  Lines shaped on
    open-gpu-kernel-modules #1045 and #659 (tests/parsers/test_multiline_events.py)."""
    agent = make(tmp_path)
    unnamed = ("NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) "
               "returned from status @ kernel_channel.c:2874")
    rate = ("NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:0a:00 (printing 1 of every 30).  The GPU "
            "likely needs to be reset.")
    agent.pipeline.process([Record("kmsg", f"3,{i},{1000 + i},-;{line}")
                            for i, line in enumerate([unnamed, unnamed, rate, unnamed])])
    got = [(p.subject, p.kind, p.count) for p in agent.engine.problems.values()]
    assert got == [("gpu:0000:0a:00", "gpu_reset_required", 1)]


# A firmware-first record's memory error, then the kernel's handling of its page (production arm64, 6.16: lore
# aeD6hpM3t0RZm5mW@gmail.com, tests/fixtures/realworld/host-memory-2026f.yaml), as /dev/kmsg records
_CPER_PAGE = (
    "{1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 784",
    "{1}[Hardware Error]: event severity: recoverable",
    "{1}[Hardware Error]:  Error 0, type: recoverable",
    "{1}[Hardware Error]:   section_type: memory error",
    "{1}[Hardware Error]:   physical_address: 0x00000040272d5080",
    "{1}[Hardware Error]:   error_type: 3, multi-bit ECC",
    "Memory failure: 0x40272d: unhandlable page.",
    "Memory failure: 0x40272d: recovery action for get hwpoison page: Ignored",
)


def test_a_firmware_records_memory_error_and_its_pages_handling_count_once(tmp_path):
    """(h94) The record's section and hwpoison's lines about its page are one event (parsers/rules.py "follows"): through
    the pipeline one memory_error problem, one sighting, and gpu_npd_findings_total counts it once (the page's line an
    amendment of the record's finding, details "pfn"). Was two findings, two sightings."""
    agent = make(tmp_path)
    agent.pipeline.process([Record("kmsg", f"3,{i},{1000 + i},-;{line}") for i, line in enumerate(_CPER_PAGE)])
    assert [(p.kind, p.count) for p in agent.engine.problems.values()] == [("memory_error", 1)]
    labels = {"kind": "memory_error", "severity": "error", "attribution": "hardware"}
    assert agent.metrics.registry.get_sample_value("gpu_npd_findings_total", labels) == 1


# x86 firmware-first: the machine check log's line for the record's error, then the record (Intel Ice Lake, 6.0-rc3:
# Tony Luck's console, lore ZhCQPwgMWo9w3LlO@agluck-desk3, tests/fixtures/realworld/host-memory-2026g.yaml), as
# /dev/kmsg records
_MCE_CPER = (
    "mce: [Hardware Error]: Machine check events logged",
    "{1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 0",
    "{1}[Hardware Error]: event severity: recoverable",
    "{1}[Hardware Error]:  Error 0, type: recoverable",
    "{1}[Hardware Error]:  fru_text: Card02, ChnA, DIMM0",
    "{1}[Hardware Error]:   section_type: memory error",
    "{1}[Hardware Error]:    error_status: Storage error in DRAM memory (0x0000000000000400)",
    "{1}[Hardware Error]:   physical_address: 0x00000008a398a400",
    "{1}[Hardware Error]:   node:1 card:0 module:0 rank:0 bank:2 device:0 row:1136 column:584",
    "{1}[Hardware Error]:   error_type: 14, scrub uncorrected error",
    "{1}[Hardware Error]:   DIMM location: NODE 4 CPU1_DIMM_A1",
    "mce: Uncorrected hardware memory error in user-access at 8a398a400",
    "Memory failure: 0x8a398a: recovery action for dirty LRU page: Recovered",
    "Memory failure: 0x8a398a: already hardware poisoned",
    "mce: [Hardware Error]: Machine check events logged",
    "Memory failure: 0x8a398a: already hardware poisoned",
)


def test_a_machine_check_line_and_the_firmware_record_of_its_error_count_once(tmp_path):
    """(h98) x86 firmware-first: ghes.c logs the record's memory error as a machine check (apei_mce_report_mem_error),
    so "Machine check events logged" right before the record, and again among its page's handling, is the record's
    error (parsers/rules.py EVENT_ECHOES): through the pipeline one memory_error problem, one sighting, at the record's
    severity, and gpu_npd_findings_total counts it once (the record's section an amendment of the machine check's
    finding). Was three findings: the machine check, the record, the second machine check."""
    agent = make(tmp_path)
    agent.pipeline.process([Record("kmsg", f"3,{i},{1000 + i},-;{line}") for i, line in enumerate(_MCE_CPER)])
    assert [(p.kind, p.severity, p.count) for p in agent.engine.problems.values()] == [("memory_error", "error", 1)]
    total = sum(s.value for m in agent.metrics.registry.collect() if m.name == "gpu_npd_findings"
                for s in m.samples if s.name == "gpu_npd_findings_total")
    assert total == 1


def test_labels_of_each_counter_shape():
    """A finding's counter labels (agent/pipeline.py labels_of, made once as a finding is admitted): an Xid's by Xid,
    an unclassified line's by driver (unknown when unnamed), any other kind's by kind only; the Xid's GPU labels
    empty where NVML named none."""
    from agent.pipeline import labels_of  # noqa: PLC0415
    from parsers import Finding  # noqa: PLC0415

    xid = Finding("xid", "error", "application", "NONE", "m", pci="0000:5d:00", xid=31,
                  details={"gpu_index": 3, "uuid": "GPU-1"})
    assert labels_of(xid) == (("xid", "error", "application"), None, ("31", "0000:5d:00", "3", "GPU-1"))
    bare = Finding("xid", "error", "application", "NONE", "m", xid=31)
    assert labels_of(bare) == (("xid", "error", "application"), None, ("31", "unknown", "", ""))
    assert labels_of(Finding("xid", "info", "unknown", "NONE", "m")) == (("xid", "info", "unknown"), None, None)
    driver = Finding("unclassified", "warning", "unknown", "NONE", "m", details={"driver": "mlx5_core"})
    assert labels_of(driver) == (("unclassified", "warning", "unknown"), "mlx5_core", None)
    assert labels_of(Finding("unclassified", "warning", "unknown", "NONE", "m"))[1] == "unknown"
    assert labels_of(Finding("gpu_reset", "info", "driver", "NONE", "m")) == (("gpu_reset", "info", "driver"), None, None)


def test_a_repeat_noted_as_a_possible_cause_carries_its_gpu_index_as_its_first_did(tmp_path):
    """A repeat of a decided finding is noted as a possible cause of job failures (at most once a second of its time)
    without a decision: it was noted before `annotate`, so its GPU index was missing and a failure after it was blamed
    on "GPU 0000:5d:00" where the first said "GPU 3" (a second wording of one cause, and a second Event key)."""
    from parsers.gpus import GpuMap

    agent = make(tmp_path)
    agent.pipeline.gpu.gpu_map = GpuMap.build([("0000:5d:00", {"uuid": "GPU-5d", "gpu_index": "3"})])
    line = XID79.split(";", 1)[1]
    agent.pipeline.process([Record("kmsg", f"3,{i},{i * 2_000_000},-;{line}") for i in (1, 2, 3)])
    causes = agent.pipeline.workloads.causes
    assert len(causes) == 3 and [c[-1] for c in causes] == [3, 3, 3], causes


def test_a_kernel_finding_is_annotated_without_a_call_into_the_gpu_map():
    """Issue 24: every kernel finding the pipeline decides is annotated (agent/gpu/collector.py annotate), which asks
    the map's `aliases` itself rather than `in gpus` (GpuMap.__contains__: one more Python call a record of the
    flood, bench/inprocess.py --instructions).  The annotation is the same: the index and UUID of a GPU the map
    names, none for one it does not (NVML off: the empty map)."""
    from agent.gpu.collector import annotate
    from parsers.gpus import GpuMap

    # bench/inprocess.py's flood line (synthetic), its message
    line = "NVRM: Xid (PCI:0000:05:00): 31, pid=5, name=python3, Ch 00000008, MMU Fault 5"
    empty, named = GpuMap(), GpuMap.build([("0000:05:00", {"uuid": "GPU-5", "gpu_index": "2"})])
    f, g = Classifier().classify(line), Classifier().classify(line)
    # the lambda, annotate and the GPU-driver test of a line the map does not name (was 4: GpuMap.__contains__)
    assert calls(lambda: annotate(f, empty, frozenset())) == 3
    annotate(g, named, frozenset())
    assert "uuid" not in f.details and (g.details["uuid"], g.details["gpu_index"]) == ("GPU-5", 2)


def test_a_fabric_manager_journal_line_is_a_node_problem_and_its_xid_shaped_line_is_not(tmp_path):
    """A syslog file the agent follows (`fallback_log_files`) holds Fabric Manager's own line under its program name
    (tests/fixtures/realworld/daemon-journal-2026.yaml, akash-network/website#632): its kind is one the daemon reports
    (parsers.finding.DAEMON_KINDS), so it is a node problem (failed before h676: dropped as another program's line,
    counted in gpu_npd_forged_or_userspace_total).  The daemon's tag before a kernel Xid line and another program's
    tag before Fabric Manager's message (both CONSTRUCTED, tests/offline/test_parse_daemon_lines.py's) stay dropped."""
    from test_parse_daemon_lines import AS_XID, OTHER, REAL  # noqa: PLC0415 - tests/offline's lines, one copy

    agent = make(tmp_path)
    agent.pipeline.process([Record("files", line) for line in (REAL + AS_XID + OTHER).splitlines()])
    assert [p.kind for p in agent.engine.problems.values()] == ["driver_mismatch"]
    forged = agent.pipeline.metrics.forged
    assert [forged.labels("files", kind)._value.get() for kind in ("xid", "driver_mismatch")] == [1, 1]
