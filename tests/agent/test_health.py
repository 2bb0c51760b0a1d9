"""Health engine lifecycle with a fake clock: raise, dedupe, escalate, clear, expire, restore."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from fakeclock import Clock
from opcount import calls

from agent.config import load
from agent.health import HealthEngine
from parsers import Classifier, parse_line
from parsers.model import Boot, Change, Verdict

XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
XID95 = "NVRM: Xid (PCI:0000:9a:00): 95, pid=4411, name=python, Uncontained: FBHUB. RST: Yes, D-RST: No"
XID63 = "NVRM: Xid (PCI:0000:3b:00): 63, pid=1, name=p, Row Remapper: New row marked for remapping, reset gpu to activate."




@pytest.fixture
def clock():
    return Clock(1_795_000_000.0)


@pytest.fixture
def engine(clock):
    return HealthEngine(load(env={}, flags={"warning_expire_seconds": 600}), clock)


def cond(engine, name):
    c = engine.conditions[name]
    return c.status, c.reason


def test_fatal_xid_raises_gpu_unhealthy_with_specific_reason(engine):
    change = engine.observe(parse_line(XID79))
    assert cond(engine, "GPUUnhealthy") == (True, "Xid79FallenOffBus")
    assert "0000:5d:00" in engine.conditions["GPUUnhealthy"].message
    assert "RESTART_BM" in engine.conditions["GPUUnhealthy"].message
    assert len(change.new_problems) == 1 and change.conditions


def test_storm_is_one_problem_with_a_count(engine):
    f = parse_line(XID95)
    for _ in range(50_000):
        engine.observe(f)
    assert len(engine.problems) == 1
    assert next(iter(engine.problems.values())).count == 50_000


def test_transition_time_moves_only_on_status_change(engine, clock):
    engine.observe(parse_line(XID79))
    t0 = engine.conditions["GPUUnhealthy"].last_transition
    clock.t += 100
    engine.observe(parse_line(XID79))
    engine.observe(parse_line(XID95))  # another problem on the same condition: message changes, status not
    assert engine.conditions["GPUUnhealthy"].last_transition == t0


# The catalog's Xids with no stated action (162-172), decided in catalog.XID_UNSTATED_ACTION. CONSTRUCTED lines (no public
# one found): the Xid line's form of the real ones above, the text the catalog's Description (the power smoothing and
# PCIe Xids' text is the GSP firmware's, not in the open driver), and for 48 + 172 the pair kernel_gsp_ecc_gb100.c
# (NVIDIA/open-gpu-kernel-modules 595.45.04) logs for one GSP SRAM error.
def _xid(code: int, text: str) -> str:
    return f"NVRM: Xid (PCI:0000:1b:00): {code}, pid='<unknown>', name=<unknown>, {text}"


@pytest.mark.parametrize("code, text, raised", [
    (162, "Power Smoothing HW Circuitry capability reengaged", None),  # good news: nothing raised
    (163, "Power Smoothing HW Circuitry disengaged", ("GPUDegraded", "warning", "MONITOR")),
    (164, "Power Smoothing HW Circuitry low lifetime reached", ("GPUDegraded", "warning", "REPLACE")),
    (165, "Power Smoothing HW Circuitry lifetime exhausted", ("GPUDegraded", "error", "REPLACE")),
    (167, "PCIe fatal timeout", ("GPUUnhealthy", "fatal", "RESTART_BM")),
    (169, "Internal micro-controller halt", ("GPUUnhealthy", "fatal", "RESET_GPU")),
])
def test_xids_the_catalog_gives_no_action_raise_what_the_table_decides(engine, code, text, raised):
    engine.observe(parse_line(_xid(code, text)))
    problems = [(p.condition, p.severity, p.action) for p in engine.problems.values()]
    assert problems == ([raised] if raised else [])


def test_xid_162_ends_its_gpus_163_problem_alone(engine):
    """Power smoothing reengaged (162) ends the disengaged (163) problem of its GPU at once (GPUDegraded did but
    expire): not another GPU's 163, not its own GPU's other Xids' problems."""
    engine.observe(parse_line(_xid(163, "Power Smoothing HW Circuitry disengaged")))
    engine.observe(parse_line(_xid(163, "Power Smoothing HW Circuitry disengaged").replace("1b:00", "2c:00")))
    engine.observe(parse_line(_xid(164, "Power Smoothing HW Circuitry low lifetime reached")))
    engine.observe(parse_line(_xid(162, "Power Smoothing HW Circuitry capability reengaged")))
    assert sorted((p.subject, p.code) for p in engine.problems.values()) == [("gpu:0000:1b:00", 164),
                                                                              ("gpu:0000:2c:00", 163)]
    engine.observe(parse_line(_xid(162, "Power Smoothing HW Circuitry capability reengaged").replace("1b:00", "2c:00")))
    engine.observe(parse_line(_xid(162, "Power Smoothing HW Circuitry capability reengaged")))  # nothing left: no-op
    assert [p.code for p in engine.problems.values()] == [164] and cond(engine, "GPUDegraded")[0]


def test_xid_154_back_to_none_ends_its_gpus_154_problem_alone(engine):
    """Xid 154 going back to None ends the GPU reset problem of that GPU's earlier 154: the driver logs 154 when the
    action it recomputes from the GPU's live state changes (open-gpu-kernel-modules 595.45.04 gpu.c
    _gpuRefreshRecoveryActionInLock), so None says nothing is pending. Not another GPU's 154, not its own GPU's other
    Xids' problems (the 48's asks its own reset). The None line: CONSTRUCTED in gpu.c's format, as NVSentinel's
    csv_test.go "XID 154 recovery action returned to None" (no captured one found)."""
    reset = "154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"
    none = "154, GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)"
    for line in (f"NVRM: Xid (PCI:0000:1b:00): {reset}", f"NVRM: Xid (PCI:0000:2c:00): {reset}",
                 _xid(48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at "
                          "partition 6, subpartition 0.")):
        engine.observe(parse_line(line))
    assert cond(engine, "GPUUnhealthy")[0]
    engine.observe(parse_line(f"NVRM: Xid (PCI:0000:1b:00): {none}"))
    assert sorted((p.subject, p.code) for p in engine.problems.values()) == [("gpu:0000:1b:00", 48),
                                                                              ("gpu:0000:2c:00", 154)]
    engine.observe(parse_line(f"NVRM: Xid (PCI:0000:2c:00): {none}"))
    assert [p.code for p in engine.problems.values()] == [48]
    # a 154 naming an action is no lifecycle mark: it raises its problem again
    engine.observe(parse_line(f"NVRM: Xid (PCI:0000:2c:00): {reset}"))
    assert sorted(p.code for p in engine.problems.values()) == [48, 154]


# real line: gpud health_state_test.go (leptonai/gpud@4a8de33, components/accelerator/nvidia/xid/health_state_test.go
# L345; realworld xid.yaml), an NVLink5 Xid the driver calls Nonfatal that NVIDIA's decode leaves a warning (RLW_REMAP
# Error Status 0x1: XID_154_EVAL, the Xid 154 beside it says)
NVLINK5_WARNING = "NVRM: Xid (PCI:0000:04:00): 145, RLW_REMAP Nonfatal XC0 i0 Link 00 (0x00000004 0x00000001 0x00000000 0x00000000)"
# CONSTRUCTED in that line's format, for the same GPU: RLW_REMAP (V2 subcode 0x04) with Error Status 0x80, a row NVIDIA's
# "Xid 144-150 Decode" sheet sends to RESET_GPU (as NVSentinel csv_test.go's real 0x40 lines, realworld gb200-2026c.yaml)
NVLINK5_RESET = "NVRM: Xid (PCI:0000:04:00): 145, RLW_REMAP Nonfatal XC0 i0 Link 00 (0x00000004 0x00000080 0x00000000 0x00000000)"


@pytest.mark.parametrize("line", [
    # real lines: gpud health_state_test.go (leptonai/gpud@4a8de33, L341 and L392; realworld xid.yaml): RLW_CTRL's Error
    # Status bit 31 and a NETIR_LINK_EVT link down of reason 0x26, both rows NVIDIA's "Xid 144-150 Decode" says IGNORE
    "NVRM: Xid (PCI:0000:04:00): 145, RLW_CTRL Nonfatal XC0 i0 Link 00 (0x00000003 0x80000000 0x00000000 0x00000000)",
    "NVRM: Xid (PCI:0000:00:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x026001c6 0x00000000 0x00000000 0x00000000 "
    "0x00000000 0x00000000)",
])
def test_an_nvlink5_xid_nvidias_decode_ignores_raises_no_condition(engine, line):
    """The decode's IGNORE is an info record: no problem, no condition, whichever verdict the line prints.  Was: the
    Nonfatal one raised GPUDegraded, the Fatal one NVLinkUnhealthy until a reset."""
    engine.observe(parse_line(line))
    assert not engine.problems and not any(c.status for c in engine.conditions.values())


@pytest.mark.parametrize("first,worse,condition", [
    (NVLINK5_WARNING, NVLINK5_RESET, "NVLinkUnhealthy"),
    # CONSTRUCTED in gpu.c's format (as test_xid_154_back_to_none_ends_its_gpus_154_problem_alone's): a drain, then a reset
    ("NVRM: Xid (PCI:0000:04:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Drain P2P)",
     "NVRM: Xid (PCI:0000:04:00): 154, GPU recovery action changed from 0x2 (Drain P2P) to 0x3 (Drain and Reset)",
     "GPUUnhealthy"),
])
def test_a_gpus_xid_a_later_line_makes_worse_raises_the_worse_condition(engine, first, worse, condition):
    """One Xid of one GPU whose lines another rule decides (the same code and reason: the same problem id before): a
    later line's worse condition is raised, a problem of its own, and the first's stands.  Was: the later line was
    counted on the warning's GPUDegraded problem, and the GPU a reset was asked for stayed schedulable."""
    engine.observe(parse_line(first))
    assert cond(engine, "GPUDegraded")[0] and not cond(engine, condition)[0]
    change = engine.observe(parse_line(worse))
    assert cond(engine, condition)[0] and cond(engine, "GPUDegraded")[0]
    assert [(p.condition, p.severity) for p in change.new_problems] == [(condition, "fatal")]
    engine.observe(parse_line(worse))  # the worse line again: one more sighting of its own problem
    engine.observe(parse_line(first))  # the first again: of the first's
    assert sorted((p.condition, p.count) for p in engine.problems.values()) == [("GPUDegraded", 2), (condition, 2)]


def test_xid_48s_detail_is_no_second_problem(engine):
    """Xid 171 / 172 add detail to the Xid 48 logged with them (the catalog): one problem, the 48's."""
    engine.observe(parse_line(_xid(48, "GSP-RISCV uncorrectable ECC error")))
    engine.observe(parse_line(_xid(172, "GSP-RISCV, Uncorrectable SRAM error")))
    engine.observe(parse_line(_xid(171, "Uncorrectable DRAM error")))
    assert [p.reason for p in engine.problems.values()] == ["Xid48DoubleBitECC"]
    assert cond(engine, "GPUUnhealthy") == (True, "Xid48DoubleBitECC")


def test_application_xid_alone_does_not_make_node_unhealthy(engine):
    for _ in range(5):
        engine.observe(parse_line("NVRM: Xid (PCI:0000:b1:00): 31, pid=2573, name=python3, Ch 00000008, MMU Fault"))
    assert not any(c.status for c in engine.conditions.values())


def test_application_xid_from_different_processes_escalates(engine, clock):
    for pid in (100, 200, 300):
        clock.t += 60
        engine.observe(parse_line(f"NVRM: Xid (PCI:0000:b1:00): 13, pid={pid}, name=python3, Graphics Exception"))
    assert cond(engine, "GPUDegraded") == (True, "Xid13GraphicsExceptionRepeated")
    assert not engine.conditions["GPUUnhealthy"].status


@pytest.mark.parametrize("xid, text", [
    (43, "Ch 00000008"),  # catalog: user app fault, the GPU stays healthy (IGNORE)
    (45, "Ch 00000008"),  # catalog: follows another Xid, or a process killed (alone: restart Fabric Manager)
    (137, "NVLink: fatal error detected on link 2(0x0)"),  # catalog: XID_137_FLOW, the application's
])
def test_application_xids_without_nvidias_repeat_workflow_do_not_escalate(engine, clock, xid, text):
    """Only the Xids whose catalog row names NVIDIA's repeat workflow (investigatory WORKFLOW_XID_13 /
    WORKFLOW_XID_31) call for diagnostics when they repeat on one GPU: three jobs cancelled in an hour (an Xid 45
    each) or three runs of one faulting program (Xid 43) leave the GPU healthy."""
    for pid in (100, 200, 300, 400):
        clock.t += 60
        f = engine.observe(parse_line(f"NVRM: Xid (PCI:0000:b1:00): {xid}, pid={pid}, name=python3, {text}"))
    assert parse_line(f"NVRM: Xid (PCI:0000:b1:00): {xid}, pid=1, name=python3, {text}").attribution == "application"
    assert not any(c.status for c in engine.conditions.values()), engine.problems


def test_application_xid_repeats_outside_window_do_not_escalate(engine, clock):
    for pid in (100, 200, 300):
        clock.t += 7200
        engine.observe(parse_line(f"NVRM: Xid (PCI:0000:b1:00): 13, pid={pid}, name=python3, Graphics Exception"))
    assert not engine.conditions["GPUDegraded"].status


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(-4000, 4000)), max_size=60))
def test_application_xid_escalation_counts_the_processes_within_the_window(sightings):
    """Whatever the order of the sightings' times (sources interleave, clocks step), each escalation step
    counts exactly the kept processes whose last sighting lies within the window, as a plain scan would."""
    from collections import OrderedDict
    from datetime import datetime, timezone
    from agent.health import REPEAT_PIDS
    engine = HealthEngine(load(env={}, flags={"warning_expire_seconds": 10**9}), Clock(2_000_000_000.0))
    window, need = engine.cfg.app_xid_window_seconds, engine.cfg.app_xid_distinct_processes
    last: OrderedDict = OrderedDict()
    escalations = 0
    for pid, offset in sightings:
        seen = 1_900_000_000.0 + offset
        f = parse_line(f"NVRM: Xid (PCI:0000:b1:00): 13, pid={pid}, name=python3, Graphics Exception")
        f.timestamp = datetime.fromtimestamp(seen, timezone.utc)
        engine.observe(f)
        last.pop(pid, None)
        last[pid] = seen
        if len(last) > max(need, REPEAT_PIDS):
            last.popitem(last=False)
        if len(last) >= need and sum(seen - t <= window for t in last.values()) >= need:
            escalations += 1
    problems = [p for p in engine.problems.values() if p.reason == "Xid13GraphicsExceptionRepeated"]
    assert sum(p.count for p in problems) == escalations


def test_application_xid_escalation_expired_is_raised_anew(engine, clock):
    """A storm adds to the problem its escalation raised; once that problem expired, the next sighting
    raises it again as a new problem (announced), not into the void."""
    def xid13(pid):
        return parse_line(f"NVRM: Xid (PCI:0000:b1:00): 13, pid={pid}, name=python3, Graphics Exception")
    for pid in (100, 200, 300, 400):
        clock.t += 1
        engine.observe(xid13(pid))
    [p] = [p for p in engine.problems.values() if p.reason == "Xid13GraphicsExceptionRepeated"]
    assert p.count == 2 and "pid=400" in p.message and "[4 processes within 3600 s: pids 100, 200, 300, 400]" in p.message
    clock.t += 601
    engine.tick()
    assert not engine.conditions["GPUDegraded"].status
    change = engine.observe(xid13(500))
    assert [q.reason for q in change.new_problems] == ["Xid13GraphicsExceptionRepeated"]
    assert change.new_problems[0].count == 1 and engine.conditions["GPUDegraded"].status


def test_only_lifecycle_kinds_clear_problems():
    """The lifecycle kinds (the kind table's `clears`) clear problems (given the device and state they need); any
    other kind, whatever its fields, clears nothing."""
    from parsers import Finding
    from parsers.finding import KINDS
    from parsers.kinds import BY_NAME
    from agent import health
    lifecycle = {k for k in KINDS if BY_NAME[k].clears}
    assert lifecycle == {"gpu_reset", "driver_load", "ib_link", "xid"}
    for kind in KINDS:
        f = Finding(kind, "info", "unknown", "NONE", "m", pci="0000:9a:00", xid=162, details={"state": "up"})
        assert (health._clears(f) is not None) == (kind in lifecycle), kind
    down = Finding("ib_link", "error", "fabric", "CHECK_LINK", "m", pci="0000:9a:00", details={"state": "down"})
    no_device = Finding("gpu_reset", "info", "driver", "NONE", "m")
    assert health._clears(down) is None and health._clears(no_device) is None


def test_gpu_reset_clears_that_gpus_reset_class_problems(engine):
    engine.observe(parse_line(XID95))  # RESET_GPU class on 0000:9a:00
    engine.observe(parse_line(XID79))  # RESTART_BM class on 0000:5d:00: a reset does not clear it
    engine.observe(parse_line("NVRM: GPU 0000:9a:00.0: GPU reset complete"))
    assert [p.code for p in engine.problems.values()] == [79]
    assert engine.conditions["GPUUnhealthy"].status


def test_driver_reload_clears_reset_class_on_all_gpus(engine):
    engine.observe(parse_line(XID95))
    engine.observe(parse_line("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024"))
    assert not engine.problems and not engine.conditions["GPUUnhealthy"].status


def test_new_boot_clears_kernel_problems(engine):
    engine.observe(parse_line(XID79))
    engine.new_boot()
    assert not engine.problems and not engine.conditions["GPUUnhealthy"].status


def test_warning_class_expires_after_quiet_period(engine, clock):
    engine.observe(parse_line(XID63))
    assert cond(engine, "GPUDegraded")[0]
    clock.t += 599
    engine.tick()
    assert cond(engine, "GPUDegraded")[0]
    clock.t += 2
    engine.tick()
    assert not cond(engine, "GPUDegraded")[0]


def test_link_up_clears_port_down(engine):
    engine.observe(parse_line("mlx5_core 0000:0c:00.0 ibp12s0: Link down"))
    assert cond(engine, "InfiniBandUnhealthy") == (True, "IBPortDown")
    engine.observe(parse_line("mlx5_core 0000:0c:00.0 ibp13s0: Link up"))  # another port: no effect
    assert cond(engine, "InfiniBandUnhealthy")[0]
    engine.observe(parse_line("mlx5_core 0000:0c:00.0 ibp12s0: Link up"))
    assert not cond(engine, "InfiniBandUnhealthy")[0]


def test_aer_fatal_and_nvlink(engine):
    engine.observe(parse_line("pcieport 0000:16:02.0: AER: Uncorrected (Fatal) error received: 0000:18:00.0"))
    engine.observe(parse_line("NVRM: Xid (PCI:0000:2d:00): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 10"))
    assert cond(engine, "PCIeUnhealthy") == (True, "PCIeFatalError")
    assert cond(engine, "NVLinkUnhealthy") == (True, "Xid74NVLinkError")
    assert not cond(engine, "GPUUnhealthy")[0]


# real lines: phatut/nmx-c-analyzers@70f8d9f examples/sample_input_logs.txt L5 and L19 (realworld
# fabric-manager-nvl5-2026.yaml): Fabric Manager's Non Fatal GPU NVL error (the block's header) and a trunk port failure,
# both warnings (parsers/rules.py fm_gpu_nvl_error, fm_trunk_port_failure)
NVLINK_WARNINGS = [
    "[Jul 19 2025 18:34:55] [ERROR] [tid 192] Fabric Manager detected GPU NVL Non Fatal error on :",
    "[Jul 19 2025 18:34:57] [WARNING] [tid 134] Trunk port failure detected for switch GUID 0xb0cf0e0300e42e00 and "
    "switch chassis sn 1825124190179, slot 7 port number 61 port GUID 0xb0cf0e0300e42e00 cage 7.",
]
NVLINK_ERRORS = [
    # real line: leptonai/gpud#1271 (realworld nvlink-fabric.yaml), an NVLink training failure
    "Jul 09 10:42:47 pool0-0082 kernel: NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask "
    "failed!",
    # CONSTRUCTED: the Fatal block's header of tests/parsers/test_fabric_manager_nvl5.py (nmx-c-analyzers' format)
    "[Oct 13 2025 18:14:38] [ERROR] [tid 202] Fabric Manager detected GPU NVL Fatal error on :",
    # real line: leptonai/gpud@4a8de33 fabric-manager/log_matcher_test.go L163 (realworld fabric-manager-2026q.yaml),
    # Fabric Manager aborting at start: fatal, RESTART_BM
    "[Sep 08 2025 23:21:50] [ERROR] detected number of NVSwitches don't match with any supported system topology, "
    "aborting fabric manager",
]


@pytest.mark.parametrize("line", NVLINK_WARNINGS)
def test_an_nvlink_warning_degrades_the_gpu_until_it_stops_and_taints_nothing(engine, clock, line):
    """A corrected or non-fatal NVLink finding (a warning) raises GPUDegraded, which expires, never the tainting
    NVLinkUnhealthy only a GPU reset ends.  Was: NVLinkUnhealthy until a reset for any nvlink finding, a Non Fatal
    error or a trunk port's failure a node's drain."""
    engine.observe(parse_line(line))
    assert not cond(engine, "NVLinkUnhealthy")[0]
    assert cond(engine, "GPUDegraded") == (True, "NVLinkError")
    assert [p.clear for p in engine.problems.values()] == ["expire"]
    clock.t += 601
    engine.tick()
    assert not engine.problems and not cond(engine, "GPUDegraded")[0]


@pytest.mark.parametrize("line", NVLINK_ERRORS)
def test_an_nvlink_error_raises_nvlink_unhealthy_until_a_reset(engine, clock, line):
    """An NVLink finding of severity error or fatal raises NVLinkUnhealthy, which outlasts the warning window: a GPU
    reset or driver load ends it (a new boot where its action asks a reboot)."""
    engine.observe(parse_line(line))
    assert cond(engine, "NVLinkUnhealthy") == (True, "NVLinkError") and not cond(engine, "GPUDegraded")[0]
    assert [p.clear for p in engine.problems.values()] in (["reset"], ["boot"])
    clock.t += 601
    engine.tick()
    assert cond(engine, "NVLinkUnhealthy")[0]
    engine.new_boot()
    assert not engine.problems and not cond(engine, "NVLinkUnhealthy")[0]


# lore.kernel.org/qemu-devel/m7p7ubuyfhqxhcxqt4qs6rbi24pgxtnbq52maqpdom2da75g7e@laluifinsegp/ (mlx5-more.yaml): two
# functions of one ConnectX, each its own health failure
MLX5_FUNCTIONS = ("[  445.937186] mlx5_core 0000:0d:00.0: poll_health:801:(pid 0): device's health compromised - "
                  "reached miss count",
                  "[  447.473192] mlx5_core 0000:0d:00.1: poll_health:801:(pid 0): device's health compromised - "
                  "reached miss count")


def test_two_functions_of_one_device_are_two_problems_and_two_events(engine):
    """A dual-port NIC's two functions, two root ports of one bridge (00:1c.6 real, pcie-link-retrain.yaml; 00:1c.4
    the same line with the function changed, constructed): each its own problem (one Node Event each, the sink's key
    the problem's id) whose subject and message name the function; the port at function 0 keeps the bare address."""
    new = []
    for line in (*MLX5_FUNCTIONS, "[  987.073607] pcieport 0000:00:1c.6: retraining failed",
                 "[  987.073607] pcieport 0000:00:1c.4: retraining failed"):
        new += engine.observe(parse_line(line)).new_problems
    assert [p.subject for p in new] == ["nic:0000:0d:00", "nic:0000:0d:00.1", "pci:0000:00:1c.6", "pci:0000:00:1c.4"]
    assert len({p.id for p in new}) == 4 and "0000:0d:00.1" in new[1].message


def test_a_problem_says_what_and_where_in_the_kind_tables_words(engine):
    """A condition's message names the fault as the kind table words it and the device by its noun
    (parsers/correlate.py describe, the wording triage and the workload Events use), not by the kind's key."""
    engine.observe(parse_line("pcieport 0000:16:02.0: AER: Uncorrected (Fatal) error received: 0000:18:00.0"))
    assert engine.conditions["PCIeUnhealthy"].message.startswith("PCIe AER error on PCIe device 0000:18:00: pcieport")
    engine.observe(parse_line("mlx5_core 0000:0c:00.0 ibp12s0: Link down"))
    message = next(c.message for c in engine.conditions.values() if c.status and "Link down" in c.message)
    assert message.startswith("link down on port ibp12s0: mlx5_core 0000:0c:00.0 ibp12s0: Link down")
    engine.observe(parse_line(XID79))
    assert engine.conditions["GPUUnhealthy"].message.startswith("Xid 79 on GPU 0000:5d:00: NVRM: Xid")


def test_workload_findings_never_touch_node_conditions(engine):
    for line in ("RuntimeError: CUDA error: uncorrectable ECC error encountered",
                 "ncclRemoteError: A call failed possibly due to a network error",
                 "NET/IB : Got completion from peer 10.42.0.2<47534> with error 5, opcode 48, len 32764, vendor err 244"):
        engine.observe(parse_line(line))
    assert not engine.problems


def test_problems_are_bounded(clock):
    engine = HealthEngine(load(env={}, flags={"max_problems": 10}), clock)
    for bus in range(40):
        engine.observe(parse_line(f"NVRM: Xid (PCI:0000:{bus:02x}:00): 63, pid=1, name=p, Row Remapper"))
    assert len(engine.problems) == 10


def test_a_saved_problem_whose_time_is_nan_or_infinity_is_dropped_alone(engine, clock):
    """A state file's NaN or Infinity (Python's json reads both) in a problem's time: that problem is dropped with
    its one-line fault, the rest restored (was: restored, and a NaN last_seen never expires)."""
    import json
    engine.observe(parse_line(XID79))
    engine.observe(parse_line(XID79.replace("5d:00", "5e:00")))
    state = json.loads(json.dumps(engine.to_state()))
    assert len(state["problems"]) == 2
    state["problems"][0]["last_seen"] = float("nan")
    again = HealthEngine(engine.cfg, clock)
    faults = again.restore(json.loads(json.dumps(state)))
    assert faults == ["problems[0].last_seen: expected a finite number"]
    assert [p.id for p in again.problems.values()] == [state["problems"][1]["id"]]


def test_restore_brings_back_conditions_without_flap(engine, clock):
    engine.observe(parse_line(XID79))
    state = engine.to_state()
    t0 = engine.conditions["GPUUnhealthy"].last_transition
    clock.t += 3600
    again = HealthEngine(engine.cfg, clock)
    again.restore(state)
    assert cond(again, "GPUUnhealthy") == (True, "Xid79FallenOffBus")
    assert again.conditions["GPUUnhealthy"].last_transition == t0
    assert not again.observe(parse_line(XID79)).conditions  # same problem: count only


def _moved_rules(action: str, condition: str | None) -> list[dict]:
    """The default condition_rules with the rule of Xids asking `action` raising `condition` now (None: removed)."""
    rules = load(env={}, flags={}).condition_rules
    ours = [r for r in rules if action in r["match"].get("action", ())]
    assert len(ours) == 1
    if condition is None:
        return [r for r in rules if r is not ours[0]]
    return [{**r, "condition": condition, "clear": "expire"} if r is ours[0] else r for r in rules]


@pytest.mark.parametrize("moved_to", ["GPUDegraded", None])
def test_a_restored_kernel_problem_takes_the_condition_its_rules_give_now(engine, clock, moved_to):
    """(h503) A node's `condition_rules` changed between runs (a rule moved to another condition, or removed): the
    problem restored for it stands where the rules put it now, with the rule's clear (Xid 79, RESTART_BM, `boot`-cleared
    under GPUUnhealthy: moved under GPUDegraded, `expire`), or, no rule raising it any longer, is gone (a line of it
    now would raise nothing). Was: restored under the old condition, which stayed True (and its
    taint) until the node rebooted. Another standing problem of the old condition keeps it, its transition time."""
    engine.observe(parse_line(XID79))
    engine.observe(parse_line(XID95))  # (Xid 95 stays a GPUUnhealthy one: its rules did not move)
    t0 = engine.conditions["GPUUnhealthy"].last_transition
    state = json.loads(json.dumps(engine.to_state()))
    clock.t += 60
    again = HealthEngine(load(env={}, flags={"warning_expire_seconds": 600,
                                              "condition_rules": _moved_rules("RESTART_BM", moved_to)}), clock)
    assert not again.restore(state)
    xid79 = [p for p in again.problems.values() if p.code == 79]
    if moved_to is None:
        assert not xid79 and not again.conditions["GPUDegraded"].status
    else:
        assert [(p.condition, p.clear) for p in xid79] == [("GPUDegraded", "expire")]
        assert cond(again, "GPUDegraded") == (True, "Xid79FallenOffBus")
    assert cond(again, "GPUUnhealthy") == (True, "Xid95UncontainedECC") and \
        again.conditions["GPUUnhealthy"].last_transition == t0
    alone = HealthEngine(again.cfg, clock)  # Xid 79's problem alone: GPUUnhealthy clears, at the restore
    alone.restore({**state, "problems": [p for p in state["problems"] if p["code"] == 79]})
    assert not alone.conditions["GPUUnhealthy"].status and alone.conditions["GPUUnhealthy"].last_transition == clock.t


def test_restored_kernel_problems_stay_as_they_were_under_the_same_rules(engine, clock):
    """The same rules: every restored problem keeps its condition, clear and id, whatever its fields (an escalated
    Xid 13 repeated by several processes, a problem made worse by an amendment)."""
    for line in (XID79, XID95, XID63):
        engine.observe(parse_line(line))
    for pid in range(3):  # Xid 13 by three processes: the kind's `repeated` row's GPUDegraded
        clock.t += 1
        engine.observe(parse_line(f"NVRM: Xid (PCI:0000:3b:00): 13, pid={100 + pid}, name=python, Graphics "
                                  "Exception: ESR 0x514648=0x1000f 0x514650=0x0 0x514644=0xd3eff2 0x51464c=0x17f"))
    state = json.loads(json.dumps(engine.to_state()))
    again = HealthEngine(engine.cfg, clock)
    again.restore(state)
    assert [(p.id, p.condition, p.clear) for p in again.problems.values()] == \
        [(p.id, p.condition, p.clear) for p in engine.problems.values()]
    assert len(engine.problems) >= 4


@pytest.mark.parametrize("saved", [None, "x", [{"match": "kind", "condition": "GPUDegraded"}], [{"match": {}}]])
def test_rules_saved_by_no_run_or_not_as_saved_leave_the_problems_as_saved(engine, clock, saved):
    """A state of a version that saved no rules (or rules not as saved, said in one fault): its problems stand as
    saved under rules that moved (nothing to compare with)."""
    engine.observe(parse_line(XID79))
    state = {**json.loads(json.dumps(engine.to_state())), "condition_rules": saved}
    again = HealthEngine(load(env={}, flags={"condition_rules": _moved_rules("RESTART_BM", None)}), clock)
    faults = again.restore(state)
    assert faults == ([] if saved is None else
                      ["condition_rules: expected a list of rules, each a match and a condition"]), faults
    assert cond(again, "GPUUnhealthy") == (True, "Xid79FallenOffBus")


def _rate(condition: str, reason: str = "NVLinkCRCErrorRate") -> Verdict:
    return Verdict(condition, reason, "warning", "hardware", "CHECK_MECHANICALS", f"{reason} holds", {})


@pytest.mark.parametrize("down", [False, True])
def test_a_restored_telemetry_problem_takes_its_rules_condition_now(engine, clock, down):
    """An agent whose rule raised NVLinkUnhealthy for a corrected-error rate (before h467's table), saved; the agent
    started again on a table whose row raises GPUDegraded: while the rate holds, its problem stands under
    GPUDegraded, NVLinkUnhealthy clears as at the problem's end (was: NVLinkUnhealthy kept, and its taint, while the
    rate held). A condition another problem still holds (a link down) does not move: no flap, the same transition."""
    link = "gpu:0000:ba:00/nvlink2"
    judged = {link: [_rate("NVLinkUnhealthy")]}
    if down:
        judged["gpu:0000:18:00/nvlink4"] = [_rate("NVLinkUnhealthy", "NVLinkDown")]
    engine.sync("nvml", judged)
    assert engine.conditions["NVLinkUnhealthy"].status
    t0 = engine.conditions["NVLinkUnhealthy"].last_transition
    state = json.loads(json.dumps(engine.to_state()))  # as the state file holds it
    clock.t += 30
    again = HealthEngine(engine.cfg, clock)
    again.restore(state)
    assert again.conditions["NVLinkUnhealthy"].status  # restored as it was: no flap before the first reading
    judged[link] = [_rate("GPUDegraded")]
    change = again.sync("nvml", judged)
    assert again.problems[f"{link}|nvml|NVLinkCRCErrorRate"].condition == "GPUDegraded"
    assert cond(again, "GPUDegraded") == (True, "NVLinkCRCErrorRate")
    assert again.conditions["NVLinkUnhealthy"].status is down
    if down:
        assert cond(again, "NVLinkUnhealthy") == (True, "NVLinkDown")
        assert again.conditions["NVLinkUnhealthy"].last_transition == t0
    assert not change.new_problems  # the same problem (no second Event), under another condition
    assert not again.sync("nvml", judged).conditions  # and it stays there


def test_a_telemetry_problem_whose_rule_now_raises_a_condition_not_kept_is_cleared(engine, clock):
    engine.sync("nvml", {"gpu:x": [_rate("GPUDegraded", "R")]})
    assert engine.conditions["GPUDegraded"].status
    engine.sync("nvml", {"gpu:x": [_rate("NoSuchCondition", "R")]})
    assert not engine.problems and not engine.conditions["GPUDegraded"].status


def test_findings_from_a_previous_boot_raise_nothing(engine, clock):
    engine = HealthEngine(engine.cfg, clock, Boot("this-boot", clock.t - 100))
    f = parse_line("[Sun Nov 22 02:05:37 2020] " + XID79)
    assert not engine.observe(f) and not engine.problems


_CLASSIFIER = Classifier()


@settings(max_examples=150)
@given(st.lists(st.tuples(st.integers(0, 9), st.sampled_from([79, 63, 48]), st.integers(0, 30)), max_size=80))
def test_at_the_cap_the_problem_evicted_is_the_first_in_eviction_order(ops):
    """Warning class first, then the least recently seen, then the oldest: as a sort of every problem said,
    now found by a heap (issue 31: a sort of 4,096 problems per new problem at the cap)."""
    clock = Clock(1_795_000_000.0)
    engine = HealthEngine(load(env={}, flags={"max_problems": 4}), clock)
    classify = _CLASSIFIER.classify
    for gpu, xid, dt in ops:
        clock.t += dt
        order = sorted(engine.problems.values(), key=lambda p: (p.clear != "expire", p.last_seen))
        before = set(engine.problems)
        engine.observe(classify(f"NVRM: Xid (PCI:0000:{gpu:02x}:00): {xid}, pid=1, name=p, text"))
        gone = before - set(engine.problems)
        assert gone == ({order[0].id} if gone else set()) and len(engine.problems) <= 4


def test_a_problem_raised_at_the_cap_costs_the_same_whatever_the_cap():
    """Evicting at the cap looks at a few problems, not all of them: the calls 200 new problems make are the
    same with 4,000 problems standing as with 100 (an operation count, not a time)."""
    classify = _CLASSIFIER.classify

    def cost(cap: int) -> int:
        engine, change = HealthEngine(load(env={}, flags={"max_problems": cap})), Change()
        for i in range(cap):
            engine.decide(classify(f"NVRM: Xid (PCI:{i:04x}:5d:00): 79, pid=1, name=p, text"), "kernel", change)
        lines = [classify(f"NVRM: Xid (PCI:{i:04x}:3b:00): 79, pid=1, name=p, text") for i in range(200)]

        n = calls(lambda: [engine.decide(f, "kernel", change) for f in lines])
        assert len(engine.problems) == cap
        return n

    assert cost(4_000) <= cost(100) * 1.05


def test_a_problem_raised_and_evicted_within_one_batch_is_still_said_with_its_message():
    """A problem's message is rendered by `derive`, once per batch: one raised and evicted at the cap before it (its
    batch's Change still lists it, so the sinks record its Event) is said like one that stands, never with an empty
    message (before the message moved to `derive` it was rendered as the problem was raised)."""
    classify = _CLASSIFIER.classify
    engine, change = HealthEngine(load(env={}, flags={"max_problems": 1})), Change()
    for pci in ("0000:5d:00", "0000:3b:00"):
        engine.decide(classify(f"NVRM: Xid (PCI:{pci}): 79, pid=1, name=p, GPU has fallen off the bus."), "kernel",
                      change)
    snap = engine.snapshot(engine.derive(change))
    assert [p.subject for p in snap.new_problems] == ["gpu:0000:5d:00", "gpu:0000:3b:00"]
    assert [p.subject for p in snap.problems] == ["gpu:0000:3b:00"]
    for p in snap.new_problems:
        assert p.message.startswith(f"Xid 79 on GPU {p.subject[4:]}: NVRM: Xid") and p.message.endswith(
            "Recommended action: RESTART_BM"), p.message


def test_a_problem_decided_is_said_in_its_snapshot_and_saved_state_without_a_derive():
    """A batch's slice that raises after a line was decided (agent/app.py Held.slices: its cursor moved past, the
    batch skipped) leaves its problems without a derive; the next batch a handler that derives nothing (pod findings,
    NodeInfo) publishes them, and a stop saves them: each said with its message, never the empty one it is raised
    with (before the fix both were empty, and a problem restored from that state said nothing until raised again)."""
    line = "NVRM: Xid (PCI:0000:5d:00): 79, pid=1, name=p, GPU has fallen off the bus."
    for read in (lambda e: e.snapshot(Change()).problems[0].message,
                 lambda e: e.to_state()["problems"][0]["message"]):
        engine = HealthEngine(load(env={}, flags={}))
        engine.decide(_CLASSIFIER.classify(line), "kernel", Change())
        said = read(engine)
        assert said.startswith("Xid 79 on GPU 0000:5d:00: NVRM: Xid") and said.endswith("RESTART_BM"), said


def test_an_application_xid_burst_on_several_gpus_is_the_jobs_and_degrades_no_gpu(engine, clock):
    """One job's MMU faults on every GPU it runs on, from its many processes: the escalation table says the
    application (parsers/escalation.py, a row with `jobs`), so the distinct-process rule raises nothing on any GPU;
    the same processes on one GPU alone still point at that GPU."""
    for pid in range(100, 112):
        clock.t += 1
        engine.observe(parse_line(f"NVRM: Xid (PCI:0000:{0xb1 + pid % 4:02x}:00): 31, pid={pid}, name=python3, "
                                  "Ch 00000008, MMU Fault"))
    assert not engine.conditions["GPUDegraded"].status
    assert not [p for p in engine.problems.values() if p.reason.endswith("Repeated")]
    clock.t += 7200  # a later burst, one GPU alone
    for pid in (200, 300, 400):
        clock.t += 1
        engine.observe(parse_line(f"NVRM: Xid (PCI:0000:c1:00): 31, pid={pid}, name=python3, Ch 00000008, MMU Fault"))
    assert engine.conditions["GPUDegraded"].status


@pytest.mark.parametrize("line", [
    # open-gpu-kernel-modules #1200 and #1125 (tests/fixtures/realworld/gsp.yaml), verbatim
    "NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out",
    "[37803.140481] NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out",
    # open-gpu-kernel-modules #446 (gpu-kernel-3.yaml), without its Talos prefix
    "NVRM: _issueRpcAndWait: rpcRecvPoll timedout for fn 76 sequence 4129!",
])
def test_a_gsp_timeout_without_its_xid_line_raises_what_xid_119_raises(line):
    """A GSP timeout line with no Xid 119 on it is what Xid 119 reports: the same condition and reason."""
    xid119 = ("NVRM: Xid (PCI:0000:00:06): 119, pid='<unknown>', name=<unknown>, Timeout waiting for RPC from GSP! "
              "Expected function FREE (0x0 0x0).")  # lore.kernel.org (gpu-kernel-3.yaml)
    want, got = (HealthEngine(load(env={}, flags={}), Clock(1_795_000_000.0)) for _ in range(2))
    want.observe(parse_line(xid119))
    got.observe(parse_line(line))
    raised = {n: cond(want, n) for n in want.conditions if want.conditions[n].status}
    assert raised and {n: cond(got, n) for n in got.conditions if got.conditions[n].status} == raised


def _observe_read(engine, lines) -> None:
    """Each line read by one Classifier, its own finding then those it amended observed, as the pipeline does."""
    c = Classifier()
    for line in lines:
        own, amended = c.read(line)
        for f in (own, *amended):
            if f is not None:
                engine.observe(f)


def test_an_amended_event_is_one_problem_its_severity_and_gpu_the_amendments(engine):
    """An event's finding amended by a later line (parsers/rules.py EVENT_AMENDS) is the event's one problem: a PCIe error
    whose recovery then failed (lines from geerlingguy/raspberry-pi-pcie-devices #116) is fatal, counted once; a GSP
    timeout naming no GPU, then the Xid 154 naming it (open-gpu-kernel-modules #1200), the GPU's problem, no node's."""
    c = Classifier()
    for line in ("pcieport 0000:00:00.0: AER: Uncorrected (Non-Fatal) error received: 0000:00:00.0",
                 "ahci 0000:01:00.0: AER: can't recover (no error_detected callback)",
                 "pcieport 0000:00:00.0: AER: device recovery failed"):
        f = c.classify(line)
        if f is not None:
            engine.observe(f)
    aer = [p for p in engine.problems.values() if p.kind == "pcie_aer"]
    assert [(p.subject, p.severity, p.reason, p.count) for p in aer] == [
        ("pci:0000:00:00", "fatal", "PCIeFatalError", 1)]
    _observe_read(engine, ("NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out",
                           "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU "
                           "Reset Required)"))
    gsp = sorted((p.subject, p.code, p.count) for p in engine.problems.values() if p.kind == "xid")
    assert gsp == [("gpu:0000:01:00", 119, 1), ("gpu:0000:01:00", 154, 1)]


def test_an_amendment_naming_the_gpu_driver_is_its_problems_attribution(engine):
    """A soft lockup (open-gpu-kernel-modules #1177's line) whose RIP line is in nvidia_modeset (#1246's; the two
    JOINED, tests/parsers/test_lockup_events.py): one KernelDegraded problem, its attribution the amendment's (the
    driver's), its count one. Was: unknown, the lockup line's, while its amendment named the driver."""
    _observe_read(engine, ("Jun 03 10:40:15 pop-os kernel: watchdog: BUG: soft lockup - CPU#2 stuck for 104s! "
                           "[nvidia-modeset/:1314]", "RIP: 0010:nvWriteGpEntry+0xf0/0x370 [nvidia_modeset]"))
    assert [(p.kind, p.condition, p.attribution, p.count) for p in engine.problems.values()] == [
        ("cpu_lockup", "KernelDegraded", "driver", 1)]


def test_a_joining_line_asking_a_reboot_is_its_event_problems_action(engine):
    """A GPU's NV_ERR_RESET_REQUIRED event (RESET_GPU), then UVM's global fatal error joining it: one problem, its
    action the reboot the driver asks for (the line's amendment of the event's finding, details "amends": "action"),
    counted once. Constructed: scitix/sichek #51's assertion then open-gpu-kernel-modules #1342's line, each real, their
    sequence built here (tests/parsers/test_nvrm_2026f.py RESET_THEN_UVM)."""
    c = Classifier()
    for line in ("NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) "
                 "returned from status @ kernel_channel.c:2874",
                 "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to "
                 "recover"):
        own, amended = c.read(line)
        for f in (own, *amended):
            if f is not None:
                engine.observe(f)
    assert [(p.kind, p.severity, p.action, p.count) for p in engine.problems.values()] == [
        ("gpu_reset_required", "fatal", "RESTART_BM", 1)]


# The kernel's lines of processes that crashed in the GPU driver's user-space library (libcuda), verbatim from the
# corpus tests/fixtures/realworld/process-crash.yaml, each with its address. The tests below replay lines of
# different sources as one node's (their times the fake clock's): a combination of real lines, not one real log.
LIBCUDA_CRASHES = [
    # https://github.com/ikawrakow/ik_llama.cpp/issues/381
    "[Sun May  4 22:19:21 2025] llama-bench[2015]: segfault at 204803fe0 ip 00007efcfc1189d7 sp 00007ffe21474280 "
    "error 4 in libcuda.so.575.51.03[7efcfbdc5000+e97000] likely on CPU 21 (core 5, socket 1)",
    # https://github.com/ikawrakow/ik_llama.cpp/issues/425
    "May 15 08:57:36 red kernel: llama-server[80906]: segfault at 204803fe0 ip 00007f00399189d7 sp 00007ffc4a6104f0 "
    "error 4 in libcuda.so.575.51.03[7f00395c5000+e97000] likely on CPU 11 (core 11, socket 0)",
    # https://github.com/ikawrakow/ik_llama.cpp/issues/485
    "[ 5022.930157] llama-server[16980]: segfault at 20d803fdc ip 00007dbe270a3e47 sp 00007ffff184bf00 error 4 in "
    "libcuda.so.570.133.20[4a3e47,7dbe26d79000+d1c000] likely on CPU 29 (core 14, socket 0)",
]
# https://github.com/ikawrakow/ik_llama.cpp/issues/721: one llama-server's five threads (the kernel names each
# thread's id) faulting in libcuda in the same second, as printed (their own timestamps)
ONE_PROCESS_THREADS = [
    f"[Sat Aug 23 11:05:44 2025] llama-server[{tid}]: segfault at 20e403fd8 ip 00007fe8ef318637 sp {sp} error 4 in "
    f"libcuda.so.575.64.05[518637,7fe8eefc5000+e97000] likely on CPU {cpu} (core {core}, socket 0)"
    for tid, sp, cpu, core in ((383019, "00007fe84ee2ff80", 114, 50), (383020, "00007fe8558d2f80", 29, 29),
                               (383021, "00007fe841276f80", 117, 53), (383022, "00007fe84c62af80", 72, 8),
                               (383023, "00007fe84742df80", 68, 4))]
# crashes in the programs' own libraries (attribution application): NCCL's (leptonai/gpud's testdata
# components/accelerator/nvidia/nccl/testdata/dmesg.decode.iso.log at 9217be88), a Python extension's
# (biodatageeks/polars-bio docs/faq.md at ada7c248), ncurses' (https://hpc-community.unige.ch/t/3962)
APP_CRASHES = [
    "kern  :warn  : 2025-01-21T04:41:44,285060+00:00 pt_main_thread[2536443]: segfault at 7f797fe00000 ip "
    "00007f7c7ac69996 sp 00007f7c12fd7c30 error 4 in libnccl.so.2[7f7c7ac00000+d3d3000]",
    "polars-bio-intel kernel: [ 1611.175045] traps: python[8844] trap invalid opcode ip:709d3ec253cc sp:7ffcc28754e8 "
    "error:0 in polars_bio.abi3.so[709d36533000+9aab000]",
    "[Fri May 30 08:29:18 2025] traps: nano[3312930] general protection fault ip:14f27ed59a3f sp:7fffd97387b8 error:0 "
    "in libncursesw.so.6.5[14f27ed45000+25000]",
    "[Fri May 30 08:29:29 2025] traps: nano[3313050] general protection fault ip:15414c952a3f sp:7ffdaee4d928 error:0 "
    "in libncursesw.so.6.5[15414c93e000+25000]",
]


def crash(line, stamped=False):
    f = parse_line(line)
    assert f.kind == "process_crash", line
    if not stamped:
        f.timestamp = None  # seen now, by the fake clock
    return f


def test_driver_library_crashes_of_several_processes_flag_the_driver_stack(engine, clock):
    """The GPU driver's library crashing in 3 different processes within the window raises GPUDriverDegraded (a
    warning, no taint by default) naming the libraries and the pids; fewer raise nothing, and no GPU condition."""
    from agent.kube.settings import DEFAULT_TAINTS
    for i, line in enumerate(LIBCUDA_CRASHES):
        assert not engine.conditions["GPUDriverDegraded"].status
        clock.t += 60
        change = engine.observe(crash(line))
    assert cond(engine, "GPUDriverDegraded") == (True, "GPUDriverLibraryCrashRepeated")
    [p] = change.new_problems
    assert (p.subject, p.severity, p.attribution, p.action, p.clear) == ("node", "warning", "driver", "CHECK_DRIVER",
                                                                         "expire")
    assert p.details["pids"] == [2015, 80906, 16980]
    assert p.details["library"] == ["libcuda.so.575.51.03", "libcuda.so.570.133.20"]
    assert ("[3 processes within 600 s in libcuda.so.575.51.03, libcuda.so.570.133.20: pids 2015, 80906, 16980]"
            in engine.conditions["GPUDriverDegraded"].message)
    assert "GPUDriverDegraded" not in DEFAULT_TAINTS
    assert [c for c in engine.conditions.values() if c.status] == [engine.conditions["GPUDriverDegraded"]]
    clock.t += 60  # a fourth process adds to the problem standing
    engine.observe(crash(ONE_PROCESS_THREADS[0]))
    assert p.id in engine.problems and engine.problems[p.id].count == 2
    assert "pids 2015, 80906, 16980, 383019]" in engine.conditions["GPUDriverDegraded"].message


def test_one_process_crashing_again_or_its_threads_together_are_one_process(engine, clock):
    """The same pid again (a line read twice) is one process; so are one process's threads faulting in the same
    second at one address (the kernel names each thread's id: ik_llama.cpp #721's five lines are one llama-server).
    Another process of that name in that second faults elsewhere (its own address space): another process."""
    for _ in range(5):
        clock.t += 60
        engine.observe(crash(LIBCUDA_CRASHES[0]))
    clock.t += 60
    for line in ONE_PROCESS_THREADS:
        engine.observe(crash(line))
    assert not engine.conditions["GPUDriverDegraded"].status and not engine.problems
    engine.observe(crash(LIBCUDA_CRASHES[1]))  # llama-server[80906], the same second
    assert engine.conditions["GPUDriverDegraded"].status
    assert ("[3 processes within 600 s in libcuda.so.575.51.03, libcuda.so.575.64.05: pids 2015, 383019, 80906]"
            in engine.conditions["GPUDriverDegraded"].message)


def test_crashes_in_the_programs_own_libraries_flag_nothing(engine, clock):
    for line in APP_CRASHES * 2:
        clock.t += 10
        f = crash(line)
        assert f.attribution == "application"
        engine.observe(f)
    assert not any(c.status for c in engine.conditions.values()) and not engine.problems


def test_driver_library_crashes_spread_past_the_window_flag_nothing(engine, clock):
    window = 600  # the process_crash row's (parsers/kinds.py)
    for line in LIBCUDA_CRASHES * 2:
        clock.t += window + 1
        engine.observe(crash(line))
    assert not engine.conditions["GPUDriverDegraded"].status and not engine.problems


def test_the_driver_stack_flag_expires(engine, clock):
    """GPUDriverDegraded clears after warning_expire_seconds (600 here) without another crash; the next crashes
    count afresh (the earlier ones have left the window)."""
    for line in LIBCUDA_CRASHES:
        clock.t += 1
        engine.observe(crash(line))
    assert engine.conditions["GPUDriverDegraded"].status
    clock.t += 599
    engine.tick()
    assert engine.conditions["GPUDriverDegraded"].status
    clock.t += 2
    engine.tick()
    assert cond(engine, "GPUDriverDegraded") == (False, "GPUDriverIsHealthy") and not engine.problems
    engine.observe(crash(ONE_PROCESS_THREADS[0]))
    assert not engine.conditions["GPUDriverDegraded"].status


# A GPU's reset event (open-gpu-kernel-modules #659: "Rate limiting GSP RPC error prints .. The GPU likely needs to be
# reset.", tests/fixtures/realworld/gsp.yaml) then UVM's global fatal error joining it (#1342's line, the NVRM prefix
# and the stamp fitted): each line real, their sequence built here. A GPU reset of that GPU: the line of
# tests/fixtures/dmesg/kernel-misc.log with the address changed (constructed); the driver load as above.
RESET_THEN_UVM_ON_0A = ("[612992.634545] NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:0a:00 (printing 1 "
                        "of every 30).  The GPU likely needs to be reset.",
                        "[612993.100000] NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, "
                        "requiring os reboot to recover")
RESET_0A = "NVRM: GPU 0000:0a:00.0: GPU reset complete"
DRIVER_LOAD = "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024"


def test_a_problem_asking_a_reboot_outlasts_a_gpu_reset_and_ends_at_a_boot(engine):
    """gpu_reset_required's rule clears at a GPU reset, but a problem of it whose action is a reboot (UVM's global
    fatal error: "requiring os reboot to recover"; the reset event that line joined, amended to RESTART_BM) clears
    only at a boot: neither that GPU's reset nor a driver load ends it. The same kind asking a reset still ends
    at one. Was: the reset cleared both."""
    from parsers import Finding
    _observe_read(engine, RESET_THEN_UVM_ON_0A)
    # the same fault, its action the reboot from its first finding (a GPU named: uvm_global_fatal's row names none)
    engine.observe(Finding("gpu_reset_required", "fatal", "driver", "RESTART_BM", "m", pci="0000:9a:00"))
    engine.observe(parse_line("NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x40:2168)"))  # #1058: a reset's
    assert sorted((p.subject, p.action, p.clear) for p in engine.problems.values()) == [
        ("gpu:0000:01:00", "RESET_GPU", "reset"), ("gpu:0000:0a:00", "RESTART_BM", "boot"),
        ("gpu:0000:9a:00", "RESTART_BM", "boot")]
    engine.observe(parse_line(RESET_0A))
    engine.observe(parse_line("NVRM: GPU 0000:9a:00.0: GPU reset complete"))
    engine.observe(parse_line(DRIVER_LOAD))
    assert sorted(p.subject for p in engine.problems.values()) == ["gpu:0000:0a:00", "gpu:0000:9a:00"]
    assert engine.conditions["GPUUnhealthy"].status
    engine.new_boot()
    assert not engine.problems and not engine.conditions["GPUUnhealthy"].status


# A root port's downstream link it could not retrain (tanezky.github.io, pcie-link-retrain.yaml) and a GPU's corrected
# Data Link Layer timeout (wenku.csdn.net/answer/26sjj6j1cb, gpu-nic-pcie.yaml): each real, on one node here
ROOT_PORT = "[  987.073607] pcieport 0000:00:1c.6: retraining failed"
GPU_AER = ("[一 8月 25 16:20:28 2025] nvidia 0000:01:00.0: PCIe Bus Error: severity=Correctable, type=Data Link Layer, "
           "(Transmitter ID)")


def test_a_gpu_reset_leaves_a_pcie_device_that_is_no_gpu():
    """A PCIe problem a reset would end (a rule with clear `reset`) is a GPU's only where the GPU map named its
    device (agent/gpu/collector.py annotate: its UUID, and so its subject `gpu:`): a driver load ends the GPU's, not a
    root port's (`pci:0000:00:1c.6`); a boot ends both. Was: the driver load cleared the root port's too."""
    from agent.gpu.collector import annotate
    from parsers.gpus import GpuMap
    from parsers.kinds import condition_rules
    rules = [{"match": {"kind": "pcie_aer"}, "condition": "PCIeUnhealthy", "clear": "reset"}, *condition_rules()]
    engine = HealthEngine(load(env={}, flags={"condition_rules": rules}), Clock(1_795_000_000.0))
    gpus = GpuMap.build([("0000:01:00", {"uuid": "GPU-1", "gpu_index": "0"})])
    for line in (ROOT_PORT, GPU_AER):
        f = parse_line(line)
        annotate(f, gpus)
        engine.observe(f)
    assert sorted(p.subject for p in engine.problems.values()) == ["gpu:0000:01:00", "pci:0000:00:1c.6"]
    engine.observe(parse_line(DRIVER_LOAD))
    assert [p.subject for p in engine.problems.values()] == ["pci:0000:00:1c.6"]
    assert engine.conditions["PCIeUnhealthy"].status
    engine.new_boot()
    assert not engine.problems and not engine.conditions["PCIeUnhealthy"].status


# A root port's fatal AER event (Surprise Down) above a GPU (github.com/wilicc/gpu-burn/issues/1, pcie-aer.yaml) and a
# GPU's own uncorrectable error its driver could not recover (github.com/NVIDIA/open-gpu-kernel-modules/issues/1229:
# three of the lines, verbatim): each real, on one node here
ROOT_PORT_FATAL = (
    "[74889.542031] pcieport 0000:00:02.0: AER: Uncorrected (Fatal) error received: id=0010",
    "[74889.542044] pcieport 0000:00:02.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, "
    "id=0010(Receiver ID)",
    "[74889.542125] pcieport 0000:00:02.0:   device [8086:6f04] error status/mask=00000020/00000000",
    "[74889.542184] pcieport 0000:00:02.0:    [ 5] Surprise Down Error    (First)")
GPU_UNRECOVERED = ("pcieport 0000:00:01.2: AER: Uncorrectable (Non-Fatal) error received from 0000:63:00.0",
                   "nvidia 0000:63:00.0: AER: can't recover (no error_detected callback)",
                   "pcieport 0000:62:00.0: AER: device recovery failed")


def observed(engine, lines, gpus, known=frozenset()):
    """Each line classified in order (an event's amendments with it), annotated from the GPU map and the GPUs sysfs
    listed (`known`) as the pipeline does; the problems they raised."""
    from agent.gpu.collector import annotate
    c, new = Classifier(), []
    for line in lines:
        own, amended = c.read(line)
        for f in (own, *amended):
            if f is not None:
                annotate(f, gpus, known)
                new += engine.observe(f).new_problems
    return new


def test_a_root_ports_pcie_problem_names_no_gpu_in_any_hand_off(engine):
    """A PCIe problem's subject is `gpu:` only where the GPU map named its device (agent/gpu/collector.py annotate: its
    UUID); a root port's is `pci:`. So the repair hand-off, the DRA device taints and the pod fault conditions (each a
    reader of `gpu:` subjects) name the GPU whose own AER event was fatal and not the root port's. Was: the root port
    `gpu:0000:00:02`, a GPU in all three."""
    from agent.kube.desired import TaintRule
    from agent.kube.dra import faulty_gpus
    from agent.kube.podfault import fatal_gpus
    from agent.kube.repair import repair_annotation
    from agent.kube.settings import KubeSettings
    from parsers.gpus import GpuMap
    import json
    gpus = GpuMap.build([("0000:02:00", {"uuid": "GPU-660d987e-5b28-3bf6-2a2d-1d5ecae7f6df", "gpu_index": "0"}),
                         ("0000:63:00", {"uuid": "GPU-constructed-63", "gpu_index": "1"})])  # the map: test data
    observed(engine, ROOT_PORT_FATAL + GPU_UNRECOVERED, gpus)
    problems = list(engine.problems.values())
    assert [g["pci"] for g in json.loads(repair_annotation(problems))["gpus"]] == ["0000:63:00"]
    settings = KubeSettings(taints=(TaintRule("PCIeUnhealthy"),))
    assert faulty_gpus(problems, settings) == {"0000:63:00": ("GPU-constructed-63", "PCIeFatalError")}
    assert list(fatal_gpus(problems)) == ["0000:63:00"]
    assert sorted((p.subject, p.severity) for p in problems) == [("gpu:0000:63:00", "fatal"),
                                                                  ("pci:0000:00:02", "fatal")]
    assert cond(engine, "PCIeUnhealthy") == (True, "PCIeFatalError")


def test_a_gpu_whose_driver_printed_its_aer_line_is_a_gpu_without_nvml(engine):
    """NVML down (a GPU's link failing is when it is: the driver crashed, the GPU fell off the bus), no GPU map: the
    port's line naming the device says nothing of what it is (`pci:`), but the GPU driver's own line for it ("nvidia
    0000:63:00.0: AER: can't recover", parsers/pci.py GPU_DRIVERS) does: the event's problem is the GPU's, one problem
    (the port's line's sighting moved to it), fatal, and the repair hand-off, DRA device taints and pod fault
    conditions name it. Was: `pci:0000:63:00` (and the port's line's problem, not moved, with it), so it left the DRA
    taints and the repair list."""
    from agent.kube.desired import TaintRule
    from agent.kube.dra import faulty_gpus
    from agent.kube.podfault import fatal_gpus
    from agent.kube.repair import repair_annotation
    from agent.kube.settings import KubeSettings
    from parsers.gpus import GpuMap
    import json
    observed(engine, GPU_UNRECOVERED, GpuMap())
    problems = list(engine.problems.values())
    assert [(p.subject, p.severity, p.count, p.details) for p in problems] == [("gpu:0000:63:00", "fatal", 1,
                                                                                {"uuid": ""})]
    assert [g["pci"] for g in json.loads(repair_annotation(problems))["gpus"]] == ["0000:63:00"]
    settings = KubeSettings(taints=(TaintRule("PCIeUnhealthy"),))
    assert faulty_gpus(problems, settings) == {"0000:63:00": ("", "PCIeFatalError")}
    assert list(fatal_gpus(problems)) == ["0000:63:00"]


# the port's and the GPU driver's lines of one event whose port could not recover a GPU behind it (returnn #1500,
# tests/fixtures/realworld/pcie-aer.yaml, verbatim): the event is the port's, keyed to 0000:00:03.0
PORT_EVENT_GPU_BELOW = (
    "[  +0.000001] pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: 0000:00:03.0",
    "[  +0.000004] pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, "
    "(Requester ID)",
    "[  +0.000921] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)",
    "[  +0.000041] pcieport 0000:00:03.0: AER: device recovery failed")


def test_a_gpu_drivers_line_for_another_device_leaves_the_ports_event_the_ports(engine):
    """The GPU driver's line in a port's event names its own device (0000:03:00.0), not the port the event is
    keyed to: the problem stays the port's (`pci:`), whatever sysfs lists as GPUs."""
    from parsers.gpus import GpuMap
    observed(engine, PORT_EVENT_GPU_BELOW, GpuMap(), known=frozenset({"0000:03:00"}))
    assert [(p.subject, p.severity) for p in engine.problems.values()] == [("pci:0000:00:03", "fatal")]
    assert not engine.learn_gpus({"0000:03:00"}).renamed


def test_a_gpu_sysfs_lists_is_a_gpu_without_nvml_and_one_raised_before_is_renamed(engine):
    """No GPU map and no GPU driver's line, but sysfs lists an NVIDIA GPU at the address (the poll's `gpus`,
    annotate's `known`): the problem is the GPU's. One raised `pci:` before the first poll named the GPUs (the
    kernel log is read at start, before it) is renamed `gpu:` when they are learned (HealthEngine.learn_gpus): the
    change lists it (a snapshot is published) with no new problem and no condition moved, and the device's next
    line is the same problem. Was: `pci:` for as long as NVML was down."""
    from parsers.gpus import GpuMap
    port_line = GPU_UNRECOVERED[:1]
    observed(engine, port_line, GpuMap(), known=frozenset({"0000:63:00"}))
    assert [(p.subject, p.details) for p in engine.problems.values()] == [("gpu:0000:63:00", {"uuid": ""})]
    engine.new_boot()
    observed(engine, port_line, GpuMap())
    assert [p.subject for p in engine.problems.values()] == ["pci:0000:63:00"]
    t0 = engine.conditions["PCIeUnhealthy"].last_transition
    change = engine.learn_gpus({"0000:63:00", "0000:5d:00"})
    (p,) = engine.problems.values()
    assert change.renamed == [p.id] and not change.new_problems and not change.conditions and change
    assert (p.subject, p.id.split("|")[0], p.details) == ("gpu:0000:63:00", "gpu:0000:63:00", {"uuid": ""})
    assert engine.snapshot(change).problems[0].subject == "gpu:0000:63:00"
    new = observed(engine, port_line, GpuMap(), known=frozenset({"0000:63:00", "0000:5d:00"}))  # NVML still down
    assert not new and [q.count for q in engine.problems.values()] == [2]
    assert engine.conditions["PCIeUnhealthy"].last_transition == t0
    state = engine.to_state()
    again = HealthEngine(engine.cfg, engine.clock)
    again.restore(state)  # the empty uuid saved with it: restored `gpu:`, not renamed back
    assert [p.subject for p in again.problems.values()] == ["gpu:0000:63:00"]


def test_a_problem_renamed_gpu_before_its_batchs_derive_says_its_message(engine):
    """A port's line raised `pci:` and its GPU learned in the same batch (the poll's `gpus`, or the GPU driver's own
    line after it: HealthEngine._as_gpus, before the batch's one derive): the problem under its new id is said, its
    message rendered from the line as any new problem's (not the empty one the problem it was renamed from was raised
    with and kept)."""
    from agent.gpu.collector import annotate
    from parsers.gpus import GpuMap
    f = Classifier().read(GPU_UNRECOVERED[0])[0]
    annotate(f, GpuMap(), frozenset())
    change = Change()
    engine.decide(f, "kernel", change)  # (no derive: the batch goes on)
    change = engine.learn_gpus({"0000:63:00"}, change)
    (p,) = engine.snapshot(change).problems
    assert (p.subject, p.message) == (
        "gpu:0000:63:00", f"PCIe AER error on PCIe device 0000:63:00: {GPU_UNRECOVERED[0]}. Recommended action: INVESTIGATE")


def test_a_problem_saved_under_the_old_gpu_subject_is_restored_under_pci(engine, clock):
    """State saved before a PCIe device that is no GPU had `pci:` (every PCIe problem's subject was `gpu:`) is restored
    under the subject it has now: its condition stands without a transition, the same port's next line is the same
    problem (no second problem, no second Event), and a GPU's (the GPU map named it: its `uuid`) keeps `gpu:`."""
    from parsers.gpus import GpuMap
    gpus = GpuMap.build([("0000:63:00", {"uuid": "GPU-constructed-63", "gpu_index": "1"})])
    observed(engine, (ROOT_PORT, *GPU_UNRECOVERED), gpus)
    state = engine.to_state()
    for p in state["problems"]:  # as the version before wrote them
        p["id"], p["subject"] = p["id"].replace("pci:", "gpu:", 1), p["subject"].replace("pci:", "gpu:", 1)
    assert sorted(p["subject"] for p in state["problems"]) == ["gpu:0000:00:1c.6", "gpu:0000:63:00"]
    t0 = engine.conditions["PCIeUnhealthy"].last_transition
    clock.t += 60
    again = HealthEngine(engine.cfg, clock)
    again.restore(state)
    assert sorted((p.id.split("|")[0], p.subject) for p in again.problems.values()) == [
        ("gpu:0000:63:00", "gpu:0000:63:00"), ("pci:0000:00:1c.6", "pci:0000:00:1c.6")]
    assert cond(again, "PCIeUnhealthy")[0] and again.conditions["PCIeUnhealthy"].last_transition == t0
    change = again.observe(parse_line(ROOT_PORT))
    assert not change.new_problems and not change.conditions
    (port,) = [p for p in again.problems.values() if p.subject == "pci:0000:00:1c.6"]
    assert port.count == 2


def test_a_lifecycle_kinds_finding_is_tested_with_no_table_read_per_finding():
    """Every Xid line is of a lifecycle kind (the xid kind's `clears`: Xid 162 ends the Xid 163 it re-engages), so
    `_clears` tests each one: against its kind's match read once (agent/health.py _LIFECYCLE), no kind-table lookup
    or match items per finding (bench/inprocess.py --instructions: ~1.5k instructions a record).  The answers
    stand."""
    import sys

    from agent.health import _clears
    from parsers import Finding
    xid31 = Finding("xid", "warning", "application", "NONE", "m", pci="0000:9a:00", xid=31)
    seen: list[str] = []

    def record(frame, event, arg):
        if event == "c_call" and arg is not sys.setprofile:
            seen.append(arg.__name__)
    sys.setprofile(record)
    try:
        cleared = _clears(xid31)
    finally:
        sys.setprofile(None)
    assert cleared is None and seen == ["get"]  # the one lookup: the finding's kind in the lifecycle table
    assert _clears(Finding("xid", "info", "driver", "NONE", "m", pci="0000:9a:00", xid=162)) is not None


def test_a_lifecycle_kinds_finding_that_fits_no_clears_is_turned_away_at_one_test():
    """The xid kind's `clears` (Xid 162, Xid 154 to None) all match on the Xid: every other Xid line reads its Xid once,
    against the values they want together (agent/health.py _gate), not once per `clears` (bench/inprocess.py
    --instructions: the flood's Xid 31 passes here).  The Xids they want still clear."""
    from agent.health import _clears
    from parsers import Finding
    reads: list[str] = []

    class Counted(Finding):
        __slots__ = ()

        def __getattribute__(self, name):
            if name == "xid":
                reads.append(name)
            return super().__getattribute__(name)
    assert _clears(Counted("xid", "warning", "application", "NONE", "m", pci="0000:9a:00", xid=31)) is None
    assert reads == ["xid"]
    assert _clears(Finding("xid", "info", "driver", "NONE", "m", pci="0000:9a:00", xid=162)) is not None
    assert _clears(Finding("xid", "info", "driver", "IGNORE", "m", pci="0000:9a:00", xid=154)) is not None
    assert _clears(Finding("xid", "info", "driver", "NONE", "m", pci="0000:9a:00", xid=154)) is None
    assert _clears(Finding("ib_link", "info", "fabric", "NONE", "m", pci="0000:9a:00", details={"state": "down"})) is None


def test_a_clears_match_reads_as_a_condition_rules_match(monkeypatch):
    """A kind's `clears` take a condition rule's match keys (parsers/kinds.py Clears): a list is any of its values,
    `not_attribution` none of them, as `_match` reads a rule's.  Was: each value compared equal to the finding's, so a
    list matched nothing, `not_attribution` read as the attribution it excludes, and `_gate` could not hash a list."""
    from agent import health
    from parsers import Finding
    from parsers.kinds import Clears
    monkeypatch.setitem(health._LIFECYCLE, "ib_link", health._lifecycle(
        (Clears("link_up", match={"state": ["up", "active"], "not_attribution": "application"}),)))

    def link(state: str, attribution: str = "fabric") -> Finding:
        return Finding("ib_link", "info", attribution, "NONE", "m", pci="0000:9a:00", details={"state": state})
    assert health._clears(link("up")) is not None and health._clears(link("active")) is not None
    assert health._clears(link("up", "application")) is None  # the attribution it names none of
    assert health._clears(link("down")) is None
    gate, _ = health._LIFECYCLE["ib_link"]
    assert gate[1] == {"up", "active"}  # every value the one clears wants; `not_attribution` gates nothing


def test_the_host_a_line_names_is_never_the_agents_word(clock):
    """The agent knows its node: a syslog line's host (a forwarded log's, another machine's name) changes nothing it
    writes: the same problems, conditions and saved state as the line from any other host, that host nowhere in
    them (Finding.host is `gpu-npd parse`'s). REAL: https://gist.github.com/kohsuke/84ce815d0a8ad85ecaf6."""
    line = "Dec 23 23:32:27 rescue kernel: [ 270.439207] NVRM: Xid (PCI:0000:01:00): 62, 0096(1c54) 00000000 00000000"
    said = []
    for host in ("rescue", "gpu-node-1"):
        engine = HealthEngine(load(env={}, flags={"warning_expire_seconds": 600}), clock)
        f = Classifier(year=2024).classify(line.replace(" rescue ", f" {host} "))
        assert f.host == host
        change = engine.observe(f)
        said.append(json.dumps([engine.to_state(), [p.message for p in change.new_problems]], default=str))
    assert said[0] == said[1] and "rescue" not in said[0]
