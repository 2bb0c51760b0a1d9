"""Xid semantics as data (issue 29 (3)): the escalation table (parsers/escalation.py) on its own, and through the
agent's record path (policy, coalescer, engine) with real Xid lines. The lines are copied from public sources (the
address beside each); when they happen is the test's: a second burst is the same real line an hour later."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.app import build
from agent.config import load
from agent.sources import Record
from parsers import Classifier
from parsers.escalation import BURST_SECONDS, DAY, ESCALATIONS, MAX_GPUS, SCOPES, Escalations, unit_of
from parsers.finding import SEVERITIES
from parsers.model import Boot

# https://github.com/3dem/relion/issues/436 (one fault: an Xid 13 per unit it hit, within microseconds)
RELION = ["NVRM: Xid (PCI:0000:41:00): 13, Graphics Exception: ESR 0x5067b0=0x9 0x5067b4=0x24 0x5067a8=0x4c1eb72 "
          "0x5067ac=0x174",
          "NVRM: Xid (PCI:0000:41:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Illegal Instruction "
          "Encoding",
          "NVRM: Xid (PCI:0000:41:00): 13, Graphics SM Global Exception on (GPC 1, TPC 0, SM 0): Multiple Warp Errors"]
# https://github.com/openwall/john/issues/2491 (another GPU)
JOHN = ["NVRM: Xid (PCI:0000:05:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 0): Out Of Range Address",
        "NVRM: Xid (PCI:0000:05:00): 13, Graphics SM Global Exception on (GPC 0, TPC 0): Physical Multiple Warp Errors"]
# https://pastebin.com/HDtNJn5t (an MMU fault)
XID31 = "NVRM: Xid (PCI:0000:01:00): 31, Ch 00000009, engmask 00000101, intr 10000000"
# https://github.com/leptonai/gpud/blob/4a8de33a3f02e207f39e9023d67125592d599731/components/accelerator/nvidia/xid/kmsg_test.go#L72
XID79 = "NVRM: Xid (PCI:0000:05:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
HOUR = 3600.0


def test_the_table_is_well_formed():
    names = [r.name for r in ESCALATIONS]
    assert len(set(names)) == len(names)
    for r in ESCALATIONS:
        assert r.scope in SCOPES and r.count >= 2 and r.window > 0 and (r.xids or r.severities)
        assert r.severity in (None, *SEVERITIES) and r.says


def test_unit_is_read_from_the_line():
    assert unit_of(RELION[1]) == "1/0" and unit_of(JOHN[0]) == "0/0" and unit_of(RELION[0]) is None


@given(st.lists(st.floats(0, 3 * DAY, allow_nan=False), min_size=1, max_size=60))
def test_a_gpu_rule_counts_bursts_within_its_window(times):
    """Whatever the sightings (in time order), a fatal Xid escalates exactly when 5 bursts (sightings closer than
    BURST_SECONDS joined) lie within 24 h of the latest."""
    times = sorted(times)
    esc = Escalations()
    for i, t in enumerate(times):
        verdict = esc.see(79, "fatal", "0000:05:00", XID79, t)
        bursts: list[float] = []
        for s in times[:i + 1]:
            if bursts and s - bursts[-1] <= BURST_SECONDS:
                bursts[-1] = s
            else:
                bursts.append(s)
        want = sum(1 for b in bursts if t - b <= DAY)
        assert (verdict is not None) == (want >= 5)
        if verdict is not None:
            assert verdict.rule.name == "fatal_xid_recurring" and verdict.count == want


def test_xid13_repeating_on_one_unit_is_the_hardware_spread_over_units_or_gpus_the_application():
    esc = Escalations()
    assert all(esc.see(13, "warning", "0000:41:00", line, 0.0) is None for line in RELION)  # one burst: nothing yet
    assert esc.see(13, "warning", "0000:41:00", RELION[1], HOUR).rule.name == "xid13_same_unit"
    other = Escalations()  # different units of one GPU, an hour apart: no unit repeats
    assert other.see(13, "warning", "0000:05:00", JOHN[0], 0.0) is None
    assert other.see(13, "warning", "0000:05:00", RELION[1].replace("41:00", "05:00"), HOUR) is None
    spread = Escalations()  # a job faulting on two GPUs at once, twice: the application's, however it repeats
    for t in (0.0, HOUR):
        spread.see(13, "warning", "0000:41:00", RELION[1], t)
        verdict = spread.see(13, "warning", "0000:05:00", JOHN[0], t + 0.001)
        assert verdict.rule.name == "app_xid_across_gpus" and verdict.rule.attribution == "application"


def test_a_gpu_whose_burst_began_alone_is_re_decided_when_another_gpu_joins_it():
    """The storm fast path keeps a GPU's last verdict for its burst; a burst another GPU then joins is the job's
    for the first GPU too (it kept saying "nothing" for the whole burst, so the flood's first GPU alone was
    called degraded).  Once every GPU is in the burst, repeats take the fast path again."""
    esc = Escalations()
    a, b = "0000:41:00", "0000:05:00"
    assert esc.see(31, "error", a, XID31, 0.0) is None  # alone so far
    assert esc.see(31, "error", b, XID31, 0.5).rule.name == "app_xid_across_gpus"
    assert esc.see(31, "error", a, XID31, 1.0).rule.name == "app_xid_across_gpus"
    calls = []
    original = esc._sighting
    esc._sighting = lambda *args: calls.append(args) or original(*args)
    for i in range(100):
        assert esc.see(31, "error", (a, b)[i % 2], XID31, 2.0 + i).rule.name == "app_xid_across_gpus"
    assert len(calls) <= 2  # at most one re-decision per GPU, then the fast path


def test_state_survives_a_restart():
    esc = Escalations()
    for i in range(4):
        esc.see(79, "fatal", "0000:05:00", XID79, i * HOUR)
    again = Escalations()
    again.restore(esc.to_state())
    assert again.see(79, "fatal", "0000:05:00", XID79, 4 * HOUR).rule.name == "fatal_xid_recurring"
    # hostile state: each bad entry dropped and counted, a time past a float's range too (was an OverflowError)
    assert again.restore({"bursts": [[["x"], ["not a time"]], "junk", [[79, "g"], [[1, "x"], 5, [10**400, 1]]]]}) == 5
    assert again.restore([]) == 1 and again.restore(None) == 0


@pytest.mark.parametrize("state, dropped", [
    ("bursts", 1), ([{"bursts": []}], 1), ({"bursts": {"79": []}}, 1),  # the state, its list: not their types
    ({"bursts": [{"key": [79, "g"], "bursts": [[1.0, 2.0]]}]}, 1),  # a GPU's entry a mapping, not [key, bursts]
    ({"bursts": [[{"xid": 79}, [[1.0, 2.0]]]]}, 1),  # its key a mapping
    ({"bursts": [[[79, "g"], {"0": [1.0, 2.0]}]]}, 1),  # its bursts a mapping
    ({"bursts": [[[79, "g"], [{"start": 1.0, "end": 2.0}, [1.0, 2.0], None]]]}, 2),  # a burst a mapping, one none
])
def test_an_entry_not_a_list_where_one_is_saved_is_dropped_and_counted(state, dropped):
    """Every saved entry not of its type counts in the dropped entries the agent says (a mapping where a list is
    saved, or anything else), from the whole state to one burst; the good burst beside them is restored."""
    esc = Escalations()
    assert esc.restore(state) == dropped
    assert list(esc._bursts.values()) in ([], [[[1.0, 2.0]]])


def test_saved_bursts_are_restored_each_alone_through_json():
    """The bursts path of restore, through the state file's JSON (which reads NaN and Infinity): a GPU's saved bursts
    and a unit's (a key of three) count again after a restart; in one GPU's list a burst not of its type (NaN,
    Infinity, text, one time) is dropped alone and counted, its good bursts kept; an entry whose key is not of its
    type is dropped whole, the next entry read."""
    import json
    gpu = "0000:05:00"
    saved = json.loads('{"bursts": ['
                       f'[[79, "{gpu}"], [[NaN, 1], [0, 1], [Infinity, 2], ["x", 3], [5], [3600, 3601], [7200, 7201],'
                       ' [10800.0, 10801.0]]], '
                       '[["79", "g"], [[0, 1]]], '
                       '[[13, "0000:41:00", "1/0"], [[0.5, 0.5]]]]}')
    esc = Escalations()
    assert esc.restore(saved) == 5  # four bad bursts, one bad key
    assert esc.see(79, "fatal", gpu, XID79, 4 * HOUR).rule.name == "fatal_xid_recurring"  # the four kept and this one
    again = Escalations()
    again.restore(json.loads(json.dumps(esc.to_state())))
    assert sorted(again._bursts) == [(13, "0000:41:00", "1/0"), (79, gpu)] and len(again._bursts[(79, gpu)]) == 5
    # the unit's saved burst and this one, an hour later on the same GPC/TPC: two bursts on one unit
    assert again.see(13, "warning", "0000:41:00", RELION[1], HOUR).rule.name == "xid13_same_unit"


# ---- through the agent's record path ----------------------------------------------------------------------

def make(tmp: Path):
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp), "fallback_log_files": [],
                              "fabricmanager_log": "", "nvml": "off", "mode": "off"})
    return build(cfg, out=io.StringIO(), boot=Boot("this-boot", 1_000_000_000.0))


def kmsg(seq: int, uptime: float, line: str, level: int = 3) -> Record:
    return Record("kmsg", f"{level},{seq},{int(uptime * 1e6)},-;{line}")


def test_a_fatal_xid_in_five_bursts_a_day_asks_for_inspection_even_when_its_repeats_are_coalesced(tmp_path):
    """The same Xid 79 line an hour apart: the coalescer counts the repeats without deciding them, the policy still
    counts each sighting, and the fifth burst re-decides the problem with action HARDWARE_INSPECTION."""
    agent = make(tmp_path)
    for i in range(4):
        agent.pipeline.process([kmsg(i, 100 + i * HOUR, XID79)])
    (p,) = agent.engine.problems.values()
    assert p.action == "RESTART_BM" and p.count == 4
    assert agent.pipeline.coalescer._table  # the repeats were coalesced, not decided
    agent.pipeline.process([kmsg(9, 100 + 4 * HOUR, XID79)])
    (p,) = agent.engine.problems.values()
    assert p.action == "HARDWARE_INSPECTION" and p.count == 5
    assert "5 bursts on this GPU within 24 h" in p.message
    assert "HARDWARE_INSPECTION" in agent.engine.conditions["GPUUnhealthy"].message
    state = agent.engine.to_state()["policy"]["escalations"]
    assert state["bursts"]  # kept with the state: a restart keeps the day's count


def test_the_same_fatal_xid_in_one_burst_does_not_escalate(tmp_path):
    agent = make(tmp_path)
    agent.pipeline.process([kmsg(i, 100 + i * 0.5, XID79) for i in range(50)])
    (p,) = agent.engine.problems.values()
    assert p.action == "RESTART_BM" and p.count == 50


def test_xid13_on_one_unit_twice_degrades_the_gpu_spread_across_gpus_does_not(tmp_path):
    agent = make(tmp_path)
    agent.pipeline.process([kmsg(i, 100, line, 4) for i, line in enumerate(RELION)])
    assert not agent.engine.conditions["GPUDegraded"].status  # one fault: the application's
    agent.pipeline.process([kmsg(10 + i, 100 + HOUR, line, 4) for i, line in enumerate(RELION)])
    cond = agent.engine.conditions["GPUDegraded"]
    assert cond.status and "0000:41:00" in cond.message and "RUN_DIAGNOSTICS" in cond.message
    assert "2 bursts on this GPC/TPC within 24 h" in cond.message

    spread = make(tmp_path / "spread")
    for t in (100, 100 + HOUR):
        spread.pipeline.process([kmsg(int(t) + i, t, line, 4) for i, line in enumerate(RELION[1:] + JOHN)])
    assert not spread.engine.conditions["GPUDegraded"].status


def test_xid31_on_one_gpu_twice_degrades_it(tmp_path):
    agent = make(tmp_path)
    agent.pipeline.process([kmsg(1, 100, XID31, 4)])
    assert not agent.engine.conditions["GPUDegraded"].status
    agent.pipeline.process([kmsg(2, 100 + 2 * HOUR, XID31, 4)])
    cond = agent.engine.conditions["GPUDegraded"]
    assert cond.status and "0000:01:00" in cond.message and "RUN_DIAGNOSTICS" in cond.message


@pytest.mark.parametrize("line", RELION + JOHN + [XID31, XID79])
def test_the_lines_are_what_the_rules_say(line):
    f = Classifier().classify(line)
    assert f.kind == "xid" and f.xid in (13, 31, 79)


def test_a_flood_of_distinct_gpus_costs_a_bounded_scan():
    """A line can name any PCI address: thousands of 'GPUs' with Xid 13 at once keep the state and each sighting's
    scan bounded (the GPUs remembered per Xid: MAX_GPUS)."""
    import time

    from parsers.escalation import MAX_GPUS, MAX_KEYS

    esc = Escalations()
    start = time.process_time()
    for i in range(5000):
        esc.see(13, "warning", f"{i // 256:04x}:{i % 256:02x}:00", JOHN[0], float(i))
    assert time.process_time() - start < 10  # (about 0.5 s; quadratic it was minutes)
    assert all(len(g) <= MAX_GPUS for g in esc._gpus.values()) and len(esc._bursts) <= MAX_KEYS


def test_a_storm_on_a_unit_whose_bursts_were_forgotten_is_decided_afresh_not_an_error():
    """The bursts and the last verdicts are bounded apart (MAX_KEYS each): a unit's bursts may be forgotten while
    its last verdict is still remembered. The storm's fast path then decides afresh instead of raising KeyError
    (or extending bursts no longer counted: the memo held the list the bursts table forgot)."""
    from parsers.escalation import MAX_KEYS, Escalations

    e = Escalations()
    line = "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0)"
    e.see(13, "error", "0000:5d:00", line, 0.0)
    e.see(13, "error", "0000:5d:00", line, 1.0)
    e.see(13, "error", "0000:5d:00", line.replace("TPC 0", "TPC 1"), 1.5)  # the GPU's bursts newer than the unit's
    for i in range(MAX_KEYS - 2):  # other scopes, one each: the oldest, the unit's bursts, is forgotten
        e.see(31, "error", f"{i // 256:04x}:{i % 256:02x}:00", XID31, 1.6)
    assert (13, "0000:5d:00", "1/0") not in e._bursts and (13, "0000:5d:00") in e._bursts
    assert (13, "0000:5d:00", "1/0") in e._last
    e.see(13, "error", "0000:5d:00", line, 2.0)
    assert e._bursts[(13, "0000:5d:00", "1/0")] == [[2.0, 2.0]]  # counted again from this sighting


def test_every_table_is_bounded_and_what_the_bursts_table_forgets_is_emptied():
    """Each table keeps MAX_KEYS entries (parsers/bounded.py's keep_newest, tested in tests/parsers/test_bounded.py),
    the oldest forgotten first; the bursts table's forgotten lists are emptied as they go (a storm's memo, _Last,
    may hold one: it must not count bursts no longer kept)."""
    from parsers.escalation import MAX_KEYS

    e = Escalations()
    e.see(31, "error", "0000:01:00", XID31, 0.0)
    oldest = e._bursts[(31, "0000:01:00")]
    for i in range(MAX_KEYS + 5):
        e.see(31, "error", f"{i // 256:04x}:{i % 256:02x}:01", XID31, 1.0)
    assert all(len(t) <= MAX_KEYS for t in (e._bursts, e._gpus, e._reached, e._last))
    assert (31, "0000:01:00") not in e._bursts and oldest == []


def test_a_storms_sighting_reads_its_latest_burst_once():
    """Issue 24: a sighting on the storm path (a GPU's burst going on, bench/inprocess.py's flood of Xid 31s on 256
    GPUs) reads its scope's latest burst once, not three times; counted in
    bytecodes (sys.settrace's opcode events), the same on any host.  The verdict and the burst's end are as before."""
    import sys

    table = Escalations()
    for i in range(300):
        table.see(31, "error", f"0000:{i % 256:02x}:00", "", 1000.0 + i / 1000)
    count = 0

    def trace(frame, event, arg):
        nonlocal count
        frame.f_trace_opcodes = True
        count += event == "opcode"
        return trace

    sys.settrace(trace)
    try:
        verdict = table.see(31, "error", "0000:05:00", "", 1000.5)
    finally:
        sys.settrace(None)
    assert count <= 82, count  # (84 before)
    assert verdict.rule.name == "app_xid_across_gpus" and verdict.count == MAX_GPUS and not verdict.crossed
    assert table._bursts[(31, "0000:05:00")][-1] == [1000.005, 1000.5]
