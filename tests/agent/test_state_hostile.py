"""State and cursors that cannot be trusted, and a state directory that cannot be written (issues 16, 17),
through the real process."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.sources.kmsg import read_boot_id
from agent.state import StateStore
from harness import AgentProc

pytestmark = pytest.mark.slow
XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


def test_deeply_nested_state_is_moved_aside_and_the_agent_starts(tmp_path: Path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "state.json").write_text('{"version": 1, "cursors": ' + "[" * 100_000 + "]" * 100_000 + "}")
    a = AgentProc(tmp_path)
    a.write(f"3,100,4254197860,-;{XID79}\n")
    a.wait_for(lambda: a.value("gpu_npd_xid_errors_total", xid="79", pci_bus_id="0000:5d:00") == 1)
    assert (state / "state.corrupt").exists()
    assert a.stop()[0] == 0
    assert "cannot be trusted" in a.stderr()


def test_state_dir_that_cannot_be_written_keeps_detection_and_says_so(tmp_path: Path):
    if os.geteuid() == 0:  # root writes through permissions: make the state path a file instead of a dir
        (tmp_path / "state").write_text("not a directory")
    else:
        (tmp_path / "state").mkdir(mode=0o500)
    a = AgentProc(tmp_path)
    a.write(f"3,100,4254197860,-;{XID79}\n")
    a.wait_for(lambda: a.value("gpu_npd_xid_errors_total", xid="79", pci_bus_id="0000:5d:00") == 1)
    a.wait_for(lambda: (a.value("gpu_npd_state_write_errors_total") or 0) >= 1, what="state write errors")
    a.write(f"3,101,4254197999,-;{XID79.replace('5d:00', '5e:00')}\n")  # sources keep running from memory
    a.wait_for(lambda: a.value("gpu_npd_xid_errors_total", xid="79", pci_bus_id="0000:5e:00") == 1)
    # the state could not be saved at the end either: said in one line, and the exit says so (docs/operations.md)
    assert a.stop()[0] == 1
    assert "cannot write state to" in a.stderr() and "at shutdown" in a.stderr()


def test_an_impossible_kmsg_cursor_is_discarded_not_obeyed(tmp_path: Path):
    boot = read_boot_id()
    state = tmp_path / "state"
    state.mkdir()
    (state / "state.json").write_text(json.dumps({"version": 1, "boot_id": boot,
                                                  "cursors": {"kmsg": {"boot_id": boot, "seq": 10 ** 18}}}))
    a = AgentProc(tmp_path)
    a.write("6,5,1000,-;an old record the cursor claims to be past\n")
    # the backlog is read and the cursor found impossible before the next record comes (in one read with it, the
    # next record is taken as behind the cursor, and a stream cannot be read again)
    a.wait_for(lambda: "impossible, discarded" in a.stderr(), what="the cursor discarded")
    a.write(f"3,6,4254197860,-;{XID79}\n")
    a.wait_for(lambda: a.value("gpu_npd_xid_errors_total", xid="79", pci_bus_id="0000:5d:00") == 1)
    assert a.stop()[0] == 0
    assert "impossible, discarded" in a.stderr()


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                           lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids,
                                                                                    max_size=4), max_leaves=30)


@settings(max_examples=100)
@given(st.dictionaries(st.sampled_from(["version", "boot_id", "cursors", "totals", "samples", "problems",
                                        "conditions", "other"]), json_values, max_size=6))
def test_fuzz_state_loading_never_raises(tmp_path_factory, data):
    """Whatever JSON the state file holds, the agent's load + restore starts (fresh or restored), never raises."""
    from agent.app import build
    from agent.config import load

    tmp = tmp_path_factory.mktemp("s")
    (tmp / "state.json").write_text(json.dumps({"version": 1, **data}))
    assert isinstance(StateStore(str(tmp)).load(), dict)
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": [], "state_dir": str(tmp),
                              "nvml": "off", "pod_logs_root": ""})
    agent = build(cfg)
    agent.start(serve_http=False)
    agent.shutdown()


def test_a_state_of_another_layout_is_said_and_kept_aside(tmp_path, caplog):
    """Issue 31: state files of another version were replaced silently. Now one warning names both versions,
    and the file is kept as state.json.v<N> for a downgrade to find."""
    from agent.state import StateStore

    (tmp_path / "state.json").write_text(json.dumps({"version": 7, "problems": [], "cursors": {}}))
    with caplog.at_level("WARNING"):
        assert StateStore(str(tmp_path)).load() == {}
    assert "layout version 7, this agent reads version 1" in caplog.text
    assert (tmp_path / "state.json.v7").exists() and not (tmp_path / "state.json").exists()
    (tmp_path / "state.json").write_text("[1, 2]")
    assert StateStore(str(tmp_path)).load() == {}
    assert (tmp_path / "state.corrupt").exists()


def test_saved_problems_and_conditions_of_the_wrong_field_types_are_dropped_the_rest_restored(tmp_path, caplog):
    """A state file of the right shape whose entries hold the wrong types (an int subject, a null id, a text
    first_seen, a list where a problem is, a severity no table has, a condition's null status) restores the rest:
    each bad entry is dropped and one warning says how many and why (was: restore's renaming called .startswith on
    the int and the null, the AttributeError threw the whole state away and the good problem with it; the unknown
    severity a KeyError in derive, the same)."""
    from agent.app import build
    from agent.config import load

    def problem(**over):
        return {"id": "pci:0000:00:1c.6|pcie_aer|pcie_aer", "subject": "pci:0000:00:1c.6", "kind": "pcie_aer",
                "condition": "PCIeUnhealthy", "reason": "PCIeAER", "severity": "warning", "attribution": "hardware",
                "action": "monitor", "message": "m", "clear": "expire", "first_seen": 1.0, "last_seen": 2.0, **over}

    good = problem()
    bad = [problem(subject=5), problem(id=None), problem(first_seen="yesterday"), ["not", "a", "problem"],
           problem(severity="catastrophic")]
    cond = {"type": "PCIeUnhealthy", "status": True, "reason": "PCIeAER", "message": "m", "last_transition": 1.0}
    (tmp_path / "state.json").write_text(json.dumps({
        "version": 1, "problems": [*bad, good],
        "conditions": {"PCIeUnhealthy": cond, "GPUUnhealthy": {**cond, "type": "GPUUnhealthy", "status": None}}}))
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": [], "state_dir": str(tmp_path),
                              "nvml": "off", "pod_logs_root": ""})
    with caplog.at_level("WARNING"):
        agent = build(cfg)
    assert [p.id for p in agent.engine.problems.values()] == [good["id"]]
    assert agent.engine.conditions["PCIeUnhealthy"].last_transition == 1.0
    assert not agent.engine.conditions["GPUUnhealthy"].status
    said = [r.getMessage() for r in caplog.records if "cannot be restored" in r.getMessage()]
    assert len(said) == 1 and "6 saved entries" in said[0] and "problems[0].subject: expected a string" in said[0], \
        caplog.text
    assert not (tmp_path / "state.corrupt").exists()


GOOD_PROBLEM = {"id": "pci:0000:00:1c.6|pcie_aer|pcie_aer", "subject": "pci:0000:00:1c.6", "kind": "pcie_aer",
                "condition": "PCIeUnhealthy", "reason": "PCIeAER", "severity": "warning", "attribution": "hardware",
                "action": "monitor", "message": "m", "clear": "expire", "first_seen": 1.0, "last_seen": 2.0}
GOOD_CONDITION = {"type": "PCIeUnhealthy", "status": True, "reason": "PCIeAER", "message": "m", "last_transition": 1.0}
GOOD_SAMPLE = "gpu:0000:5d:00|pcie_replay#0"
GOOD_GUARD = "0000:08:00.1"
GOOD_TOTAL = "pcie_aer|warning|hardware"
GOOD_NOTICE = "node|KernelTableFull"
# every section the agent saves (pipeline.to_state, Checkpoint) with every field it holds
SECTIONS = {"problems": GOOD_PROBLEM, "conditions": GOOD_CONDITION,
            "policy": {"fatal_boots": {"gpu:0000:5d:00|79": ["b1"]}, "ports_up": ["mlx5_0/1"], "ports_boot": "b1",
                       "escalations": {"bursts": [[[79, "gpu:0000:5d:00"], [[1.0, 2.0]]]]}},
            "samples": {GOOD_SAMPLE: [[1.0, 2.0]], f"held|{GOOD_SAMPLE}": [1.0, 1.0]},
            "counter_guard": {"disabled": {GOOD_GUARD: "why"}, "devices": {GOOD_GUARD: ["mlx5_1"]}},
            "totals": {"findings": {GOOD_TOTAL: 3.0}, "xid_errors": {"79|0000:5d:00|0|GPU-1": 1.0}},
            "notices": {GOOD_NOTICE: 1.0}}
json_leaf = st.none() | st.booleans() | st.integers() | st.integers(min_value=10**308, max_value=10**400) | \
    st.floats() | st.text(max_size=8)
json_any = st.recursive(json_leaf, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(
    st.text(max_size=8), kids, max_size=3), max_leaves=12)


def _spoiled(good):
    """`good` with arbitrary JSON in its fields, at any depth (or in its place)."""
    if isinstance(good, dict):
        return st.fixed_dictionaries({}, optional={k: _spoiled(v) for k, v in good.items()}) | \
            st.dictionaries(st.text(max_size=8), json_any, max_size=3) | json_any
    if isinstance(good, list):
        return st.lists(st.one_of(*(_spoiled(v) for v in good)) if good else json_any, max_size=3) | json_any
    return json_any


@settings(max_examples=150, deadline=None)
@given(problems=st.lists(_spoiled(GOOD_PROBLEM), max_size=4),
       conditions=st.dictionaries(st.sampled_from(["PCIeUnhealthy", "GPUUnhealthy", "other"]),
                                  _spoiled(GOOD_CONDITION), max_size=2),
       policy=_spoiled(SECTIONS["policy"]),
       samples=st.dictionaries(st.sampled_from([GOOD_SAMPLE, "x", "held|", ""]), _spoiled([[1.0, 2.0]]),
                               max_size=2) | st.dictionaries(st.sampled_from([f"held|{GOOD_SAMPLE}", "held|x"]),
                                                             _spoiled([1.0, 1.0]), max_size=2),
       guard=_spoiled(SECTIONS["counter_guard"]),
       totals=st.dictionaries(st.sampled_from(["findings", "xid_errors", "unclassified", "xid_policy_held", "x"]),
                              _spoiled({GOOD_TOTAL: 3.0}), max_size=3),
       notices=_spoiled(SECTIONS["notices"]))
def test_fuzz_every_field_of_every_saved_section_is_dropped_alone(tmp_path_factory, problems, conditions, policy,
                                                                  samples, guard, totals, notices):
    """A state file of the right top-level shape with arbitrary JSON in every field of every section (problems,
    conditions, policy, samples, counter guard, totals, notices): the agent's load + build never raises nor moves the state
    aside, the good entry beside them in each section is restored, and what was dropped is said in one warning."""
    import logging

    from agent.app import build
    from agent.config import load

    tmp = tmp_path_factory.mktemp("s")
    boot = read_boot_id()
    state = {"version": 1, "boot_id": boot, "problems": [*problems, GOOD_PROBLEM],
             "conditions": {**conditions, "PCIeUnhealthy": GOOD_CONDITION}, "policy": policy,
             "samples": {**samples, GOOD_SAMPLE: [[1.0, 2.0]]},
             "counter_guard": guard if not isinstance(guard, dict) else
             {**guard, "disabled": {**(guard.get("disabled") if isinstance(guard.get("disabled"), dict) else {}),
                                    GOOD_GUARD: "why"}},
             "totals": {**totals, "xid_errors": {"79|0000:5d:00|0|GPU-1": 1.0}},
             "notices": {**notices, GOOD_NOTICE: time.time() + 300.0} if isinstance(notices, dict) else notices}
    (tmp / "state.json").write_text(json.dumps(state))
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": [], "state_dir": str(tmp),
                              "nvml": "off", "pod_logs_root": ""})
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger().addHandler(handler)
    try:
        agent = build(cfg)
    finally:
        logging.getLogger().removeHandler(handler)
    said = [r.getMessage() for r in records if r.levelno >= logging.WARNING]
    assert not (tmp / "state.corrupt").exists(), said
    engine = agent.engine
    assert GOOD_PROBLEM["id"] in engine.problems and engine.conditions["PCIeUnhealthy"].status
    assert ("gpu:0000:5d:00", "pcie_replay#0") in agent.pipeline.judge._hist
    assert agent.pipeline.guard.reading(GOOD_GUARD) is not isinstance(guard, dict)
    assert agent.metrics.totals()["xid_errors"]["79|0000:5d:00|0|GPU-1"] == 1.0
    assert (GOOD_NOTICE in engine.to_state()["notices"]) is isinstance(notices, dict)
    dropped = [m for m in said if "cannot be restored" in m]
    assert len(dropped) <= 1, said


def test_ten_thousand_bad_saved_entries_are_said_in_one_line(tmp_path, caplog):
    """Every section's bad entries, 10,000 of them, are dropped with one warning that names the first few (which
    entry, what was wrong) and counts the rest; the good entries beside them are restored."""
    from agent.app import build
    from agent.config import load

    state = {"version": 1, "boot_id": read_boot_id(),
             "problems": [{**GOOD_PROBLEM, "first_seen": "x"}] * 2000 + [GOOD_PROBLEM],
             "conditions": {"PCIeUnhealthy": {**GOOD_CONDITION, "status": [1]}},
             "samples": {**{f"gpu:{i}|x#0": [[10 ** 400, 1]] for i in range(2000)}, GOOD_SAMPLE: [[1.0, 2.0]]},
             "policy": {"fatal_boots": {f"gpu:{i}|79": [1] for i in range(2000)}},
             "counter_guard": {"disabled": {**{f"0001:{i:02x}:00.1": None for i in range(256)}, GOOD_GUARD: "why"}},
             "totals": {"findings": {**{f"k{i}|warning|hardware": "x" for i in range(3743)}, GOOD_TOTAL: 3.0}}}
    (tmp_path / "state.json").write_text(json.dumps(state))
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": [], "state_dir": str(tmp_path),
                              "nvml": "off", "pod_logs_root": ""})
    with caplog.at_level("WARNING"):
        agent = build(cfg)
    said = [r.getMessage() for r in caplog.records if "cannot be restored" in r.getMessage()]
    assert len(said) == 1 and ": 10000 saved entries cannot be restored" in said[0], caplog.text
    assert "(policy.fatal_boots['gpu:0|79'][0]: expected a string; " in said[0] and said[0].endswith("; and 9997 more)")
    assert len(said[0]) < 600
    assert list(agent.engine.problems) == [GOOD_PROBLEM["id"]]
    assert list(agent.pipeline.judge._hist) == [("gpu:0000:5d:00", "pcie_replay#0")]
    assert not agent.pipeline.guard.reading(GOOD_GUARD)
    assert agent.metrics.totals()["findings"] == {GOOD_TOTAL: 3.0}
    assert not (tmp_path / "state.corrupt").exists()


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["/p/0.log", "/p/1.log", "/p/x y"]), _spoiled([7, 100]), max_size=3))
def test_fuzz_saved_pod_log_offsets_are_dropped_alone(tmp_path_factory, offsets):
    """The pod log source's own state file (podlogs.json): an offset not of its type (Infinity, text, one number) is
    dropped alone and said once, the rest kept (was: Infinity's OverflowError escaped the source's start; any other
    bad entry dropped every file's offset, silently)."""
    import logging

    from agent.sources.podlogs import PodLogSource

    tmp = tmp_path_factory.mktemp("p")
    (tmp / "podlogs.json").write_text(json.dumps({"version": 1, "offsets": {**offsets, "/p/good.log": [7, 100]}}))
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger().addHandler(handler)
    try:
        saved = PodLogSource(str(tmp), StateStore(str(tmp), "podlogs.json"))._saved
    finally:
        logging.getLogger().removeHandler(handler)
    assert saved["/p/good.log"] == [7, 100] and all(len(v) == 2 and all(type(x) is int for x in v)
                                                    for v in saved.values())
    said = [r.getMessage() for r in records if "cannot be restored" in r.getMessage()]
    assert len(said) == (len(saved) < len(offsets) + 1), said


@settings(max_examples=100, deadline=None)
@given(files=_spoiled({"/var/log/kern.log": [1, 2, 3]}), fabric=_spoiled({"/var/log/fm.log": [1, 2]}),
       journal=json_any)
def test_fuzz_saved_cursors_are_dropped_alone(tmp_path_factory, files, fabric, journal):
    """The sources' saved cursors (state.json's `cursors`): a position not of its type (text, -1, 10**400, a list for
    the mapping) is dropped alone and said, the rest kept; a journal cursor that is no string is read as none (was:
    a list or a text for a section raised AttributeError out of the agent's start, every start; a mapping for the
    journal cursor went to journalctl as `--after-cursor={...}`, refused at each restart)."""
    from agent.config import load
    from agent.intake import fabricmanager_source, select_sources

    tmp = tmp_path_factory.mktemp("c")
    kern, fm = tmp / "kern.log", tmp / "fm.log"
    kern.write_text("")
    cfg = load(env={}, flags={"kmsg": "", "journald": True, "log_files": [str(kern)], "state_dir": str(tmp),
                              "fabricmanager_log": str(fm), "nvml": "off", "pod_logs_root": ""})
    good = {str(kern): [1, 2, 3]}
    cursors = {"files": {**files, **good} if isinstance(files, dict) else files, "fabricmanager": fabric,
               "journald": journal}
    state = json.loads(json.dumps({"cursors": cursors}))
    sources = {s.name: s for s in [*select_sources(cfg, state, "b"), fabricmanager_source(cfg, state)]}
    assert sources["files"].positions == (good if isinstance(files, dict) else {})
    assert all(len(v) == 3 and all(type(x) is int and x >= 0 for x in v)
               for v in sources["fabricmanager"].positions.values())
    assert sources["journald"].cursor == (journal if isinstance(journal, str) and journal.lower() != "null" else None)


def test_a_second_agent_on_one_state_directory_is_refused_in_one_line(tmp_path: Path):
    """Two agents on one state directory (a second `make run`, two releases on one node with other metrics ports)
    overwrote each other's state and wrote the node's conditions twice: the second exits 2 naming the directory and
    the first's pid; the first runs on, and its lock goes with it (the next agent starts)."""
    import subprocess
    import sys

    from harness import free_port

    a = AgentProc(tmp_path)
    second = [sys.executable, "-m", "gpunpd", "run", "--kmsg", "", "--no-journald", "--mode", "off",
              "--state-dir", str(a.state), "--metrics-address", f"127.0.0.1:{free_port()}"]
    try:
        r = subprocess.run(second, capture_output=True, text=True, timeout=20)  # before: it ran on beside the first
    except subprocess.TimeoutExpired:
        a.stop()
        raise
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        f"gpu-npd: cannot start: state directory {a.state} is in use by another gpu-npd (pid {a.proc.pid}, in its pid "
        "namespace): stop it, or give this one another --state-dir")
    a.write(f"3,100,4254197860,-;{XID79}\n")
    a.wait_for(lambda: a.value("gpu_npd_xid_errors_total", xid="79", pci_bus_id="0000:5d:00") == 1)
    assert a.stop()[0] == 0
    b = AgentProc(tmp_path)  # the lock went with the first agent
    assert b.stop()[0] == 0


def test_a_state_file_that_cannot_be_moved_aside_is_not_said_to_be(tmp_path, caplog):
    """The warning says where the untrusted file went: `moved aside as state.corrupt`, or why it was not (the state
    directory a file, so no state file to move: it said "moved aside" all the same)."""
    import logging

    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "state.json").write_text("{not json")
    (tmp_path / "file").write_text("not a directory")
    with caplog.at_level(logging.WARNING, "agent.state"):
        assert StateStore(str(tmp_path / "bad")).load() == {}
        assert StateStore(str(tmp_path / "file")).load() == {}
    moved, kept = [r.getMessage() for r in caplog.records]
    assert moved.endswith(": moved aside as state.corrupt, starting fresh")
    assert (tmp_path / "bad" / "state.corrupt").exists()
    assert kept.endswith(": not moved aside (Not a directory), starting fresh"), kept


def test_a_state_directory_that_refuses_locks_or_a_pid_is_no_crash_and_is_said(tmp_path, monkeypatch, caplog):
    """hold_state_dir's two failure paths after the lock file opened: a filesystem that refuses flock (ENOLCK, an
    NFS mount without its lock daemon) runs on unguarded with a warning saying so (before: nothing said); a disk too
    full for the holder's pid (ENOSPC on its write) keeps the lock taken (before: OSError out of `gpu-npd run`, a
    traceback at start)."""
    import errno
    import fcntl
    import logging

    from agent import state

    def refused(*_):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    with monkeypatch.context() as m, caplog.at_level(logging.WARNING, "agent.state"):
        m.setattr(fcntl, "flock", refused)
        assert state.hold_state_dir(str(tmp_path / "nfs")) is None
    assert [r.getMessage() for r in caplog.records] == [
        f"state directory {tmp_path / 'nfs'}: no lock can be taken on it (No locks available): a second agent on it "
        "is not refused"]

    def full(*_):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as m:
        m.setattr(os, "pwrite", full)
        fd = state.hold_state_dir(str(tmp_path / "full"))
    assert fd is not None
    try:
        with pytest.raises(state.StateDirInUse, match=r"\(pid unknown, in its pid namespace\)"):
            state.hold_state_dir(str(tmp_path / "full"))
    finally:
        os.close(fd)
