"""The kind table (parsers/kinds.py) is the one place that says what a finding kind means; every place that used
to repeat it derives from it, and what it declares holds together."""

from __future__ import annotations

import re

import pytest

from agent.config import MATCH_KEYS, load
from agent.health import subject_of
from agent.workloads import event_reason
from parsers import KINDS, WORKLOAD_KINDS, Finding, parse_line
from parsers.catalog import NVLINK_XIDS, XID_ACTION_CLEAR, XID_ACTION_POLICY, xid_catalog, xid_reason
from parsers.classify import PCI_KINDS
from parsers.correlate import CORRELATED_KINDS, DEVICE_NOUN, describe, what_of
from parsers.finding import ATTRIBUTIONS, SEVERITIES
from parsers.kinds import (BY_NAME, CATEGORIES, CLEAR_MODES, CLEAR_SCOPES, CONDITIONS, DEVICES, TABLE, condition_rules,
                           conditions, reason_of)
from parsers.rules import RULES
from opcount import cpu_seconds

CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")


def test_the_table_covers_every_kind_and_every_rule_row_names_one():
    assert [k.name for k in TABLE] == list(KINDS)
    assert {r.kind for r in RULES if r.kind is not None} <= set(BY_NAME)


def test_rule_rows_name_severity_attribution_action_only_where_they_differ_from_their_kind():
    """docs/extending-tables.md: a row gives them only where its line means something else; a row repeating its
    kind's default would keep the old value when the kind's default changes."""
    import ast
    from pathlib import Path

    import parsers.rules

    tree = ast.parse(Path(parsers.rules.__file__).read_text())
    restated = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_r" and len(node.args) > 1:
            row = BY_NAME.get(getattr(node.args[1], "value", None))
            for kw in node.keywords if row is not None else ():
                if kw.arg in ("severity", "attribution", "action") and \
                        getattr(kw.value, "value", None) == getattr(row, kw.arg):
                    restated.append((node.args[0].value, kw.arg))
    assert restated == []


@pytest.mark.parametrize("row", TABLE, ids=lambda k: k.name)
def test_each_row_is_complete_and_uses_the_vocabulary(row):
    assert row.wording and row.doc, row.name
    assert row.severity in SEVERITIES and row.attribution in ATTRIBUTIONS
    assert row.device is None or row.device in DEVICES
    assert re.fullmatch(r"[A-Z][A-Z0-9_]*", row.action)
    assert CAMEL.match(row.reason.replace("<code>", "").replace("<Name>", "")), row.reason
    assert not (row.workload and row.raises), "a workload kind never raises a node condition"
    for r in row.raises:
        assert r.condition in {c.type for c in CONDITIONS} and r.clear in CLEAR_MODES
        assert set(r.match) <= set(MATCH_KEYS) - {"kind"}
        assert r.reason is None or CAMEL.match(r.reason)
    assert row.floor is None or row.floor in SEVERITIES
    assert row.category is None or row.category in CATEGORIES
    assert not (row.peer and not row.consequence), "a peer's error is what its failure made this rank print"
    assert not row.never_the_node or row.workload, "only a job's output is explained by a node fault or not"
    # another kind's words read as this one's only in a pod that holds GPUs (agent/pipeline.py `_holds_gpus`)
    assert not row.takes or row.pod_holds_gpus
    assert all(of in KINDS and of != row.name and start for of, start in row.takes)
    for c in row.clears:
        assert c.mode in CLEAR_MODES and c.scope in CLEAR_SCOPES
        assert set(c.match) <= set(MATCH_KEYS) - {"kind"}
        assert set(c.ends) <= {"kind", "code"}  # fields of the problem it ends (agent/health.py)
    if row.repeated is not None:  # alone nothing; repeated by several processes a warning condition, never a taint
        r = row.repeated
        # (a workload kind only where its line is the node's in a pod that holds GPUs: its workloads counted)
        assert (not row.workload or row.pod_holds_gpus) and r.condition in {c.type for c in CONDITIONS if not c.taint}
        assert set(r.match) <= set(MATCH_KEYS) - {"kind"} and r.processes >= 2 and r.window_seconds > 0
        assert CAMEL.match(r.reason.replace("<reason>", "")) and re.fullmatch(r"[A-Z][A-Z0-9_]*", r.action)
        assert r.settings is None or {f"{r.settings}_distinct_processes", f"{r.settings}_window_seconds"} <= \
            set(vars(load(env={})))
    for r in row.raises if row.fault_states else ():
        assert set(r.match.get("state", ())) <= set(row.fault_states), "a link kind raises only in a fault state"
    assert set(row.unused_states) <= set(row.fault_states), "an unused port's states are fault states it forgives"


def test_rule_rows_without_their_own_values_take_the_kinds():
    """A rule row that leaves severity / attribution / action out gets its kind's (rules._r)."""
    for rule in RULES:
        if rule.kind is not None:
            assert rule.severity in SEVERITIES and rule.attribution in ATTRIBUTIONS and rule.action


def test_the_configuration_defaults_are_the_tables():
    cfg = load(env={})
    assert cfg.condition_rules == condition_rules()
    assert {name: spec for name, spec in cfg.conditions.items() if name in conditions()} == conditions()


def test_the_xid_rules_come_from_the_catalog():
    rules = [r for r in condition_rules() if r["match"]["kind"] == "xid"]
    assert rules[0]["match"]["xid"] == sorted(NVLINK_XIDS) and rules[0]["condition"] == "NVLinkUnhealthy"
    by_clear = {r["clear"]: set(r["match"]["action"]) for r in rules if "action" in r["match"]}
    assert by_clear == {mode: {a for a, m in XID_ACTION_CLEAR.items() if m == mode} for mode in ("boot", "reset")}
    # every fatal action of the catalog says what ends its problem
    fatal = {a for a, (severity, _) in XID_ACTION_POLICY.items() if severity == "fatal"}
    assert fatal <= set(XID_ACTION_CLEAR)
    assert {info.action for info in xid_catalog().values() if info.severity == "fatal"} <= set(XID_ACTION_CLEAR)


def test_xid_reasons_come_from_the_catalog():
    assert xid_reason(79) == reason_of("xid", xid=79) == "Xid79FallenOffBus"
    assert reason_of("sxid", sxid=12028) == "SXid12028"
    for code in xid_catalog():
        assert CAMEL.match(xid_reason(code)), code


def test_derived_places_agree_with_the_table():
    assert PCI_KINDS == {k.name for k in TABLE if k.device is not None}
    assert WORKLOAD_KINDS == {k.name for k in TABLE if k.workload}
    assert CORRELATED_KINDS == {k.name for k in TABLE if k.workload and k.correlated}
    assert DEVICE_NOUN == {k.name: DEVICES[k.device] for k in TABLE if k.device not in (None, "gpu")}
    for row in TABLE:
        f = Finding(row.name, row.severity, row.attribution, row.action, "synthetic", pci="0000:5d:00",
                    details={"netdev": "ib0"})
        subject = subject_of(f)
        prefix = {"nic": "nic:", "port": "nic:", "nvswitch": "nvswitch:", "pcie": "pci:"}.get(row.device, "gpu:")
        assert subject.startswith(prefix), (row.name, subject)
        if row.workload:
            assert event_reason(f) == row.reason or row.name == "cuda_error"
            assert what_of(f) == row.wording
        elif row.name not in ("xid", "sxid"):
            assert describe(f).startswith(row.wording)


def test_a_rule_without_a_reason_takes_the_kinds():
    cfg = load(env={}, flags={"condition_rules": [{"match": {"kind": "hung_task"}, "condition": "GPUDegraded"}]})
    from agent.health import HealthEngine  # noqa: PLC0415
    engine = HealthEngine(cfg, clock=lambda: 1000.0)
    change = engine.observe(Finding("hung_task", "warning", "unknown", "INVESTIGATE", "task x:1 blocked"))
    assert [p.reason for p in change.new_problems] == [BY_NAME["hung_task"].reason]


def test_a_findings_time_is_its_stamp_capped_at_the_clock_else_the_clock():
    """parsers/finding.py `seen_at`: the one reading of a line's time against the agent's clock (the health engine, its
    Events, the pipeline, the counter guard, the coalescer); was two (`line_time` uncapped, h501)."""
    from datetime import datetime, timezone

    from parsers.finding import seen_at

    f = parse_line("[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid=1, GPU has fallen off the bus.")
    assert f is not None and f.timestamp is None and f.uptime == 4254.19786
    assert seen_at(f, 1.5) == 1.5  # no wall time, no boot's start: the clock's
    assert seen_at(f, 1e9, since=1000.0) == 1000.0 + 4254.19786  # a kmsg stamp: this boot's start plus it
    assert seen_at(f, 1.5, since=2.0) == 1.5  # (capped at the clock as a stamped line)
    f.uptime = None
    assert seen_at(f, 1e9, since=1000.0) == 1e9  # neither: the clock's, whatever the boot
    f.timestamp = datetime(2025, 1, 2, 3, 4, 5, 250000, timezone.utc)
    assert seen_at(f, 1735787046.0) == 1735787045.25
    assert seen_at(f, 1735787000.0) == 1735787000.0  # stamped ahead of the clock: the clock's
    assert seen_at(f, 1735787046.0, since=1735787046.0) is None  # before this boot


def test_seen_at_caps_a_line_at_the_clock_and_since_refuses_an_earlier_boots():
    """parsers/finding.py `seen_at`: the line's time, never after the clock; with `since` (the health engine's boot
    start, its one call per decided finding and repeat: agent/health.py had a `_seen` method around it) None for a
    stamped line before it; a line with neither a wall time nor a kmsg stamp the clock's whatever `since` says."""
    from datetime import datetime, timezone

    from parsers.finding import seen_at

    f = parse_line("NVRM: Xid (PCI:0000:5d:00): 79, pid=1, GPU has fallen off the bus.")
    assert f is not None and seen_at(f, 5.0) == 5.0 and seen_at(f, 5.0, 9.0) == 5.0
    f.timestamp = datetime(2025, 1, 2, 3, 4, 5, 250000, timezone.utc)
    t = 1735787045.25
    assert seen_at(f, t + 1) == seen_at(f, t + 1, t) == seen_at(f, t + 1, None) == t
    assert seen_at(f, t - 1) == seen_at(f, t - 1, t - 2) == t - 1  # ahead of the clock: the clock's
    assert seen_at(f, t + 1, t + 0.5) is None  # before the boot's start: an earlier boot's line
    assert seen_at(f, t - 1, t - 0.5) is None  # (capped at a clock before the boot's start: as the engine's was)


def test_one_table_of_time_units_and_one_reader_of_a_duration():
    """parsers/units.py: the units of time a log or config prints (Go's time.ParseDuration's, a trainer's step time's)
    in one table, read by one reader: NPD's plugin configs (agent/checks/npd.py parse_duration, Go's form only, as NPD
    refuses anything else), a c10d store's timeout in triage (a bare number of seconds too, and Python's timedelta as
    PyTorch prints it: "0:30:00" was the 30-minute default by chance, "0:10:00" read as 30 minutes)."""
    import pytest

    from agent.checks.npd import ConfigError, parse_duration
    from parsers.progress import UNITS
    from parsers.units import SECONDS, duration, go_duration
    from triage.attribute import _seconds

    assert UNITS is SECONDS
    assert [go_duration(t) for t in ("30s", "1m30s", "500ms", "1.5h", "2\u00b5s", "2\u03bcs")] == [
        30.0, 90.0, 0.5, 5400.0, pytest.approx(2e-6), pytest.approx(2e-6)]
    assert [go_duration(t) for t in ("", "30", "0:30:00", "30 s", "-5s", "1d")] == [None] * 6
    assert parse_duration("1m30s") == 90.0
    with pytest.raises(ConfigError, match="not a duration: '0:30:00'"):
        parse_duration("0:30:00")
    assert [duration(t, bare=1.0) for t in ("1800", "600000ms", "0:10:00", "1:02:03.5", "soon")] == [
        1800.0, 600.0, 600.0, 3723.5, None]
    assert [_seconds(t) for t in ("600000ms", "0:10:00", None, "soon")] == [600.0, 600.0, 1800.0, 1800.0]


def test_a_completion_errors_words_read_back_as_its_status():
    """The inverse of ib_completion_error's `named` (parsers/kinds.py read_named; was: none, a cut Event excerpt's
    status lost live): every libibverbs status's words and number, as `what_of` says them before the rest of a
    sentence of `explain`, read back as the status; words of no status, nothing; each of LINE_WORDS has its inverse."""
    from parsers.correlate import read_what
    from parsers.kinds import IB_WC_STATUSES, LINE_WORDS, WORDS_READ

    assert set(WORDS_READ) == set(LINE_WORDS)
    for _, name, _ in IB_WC_STATUSES:
        said = what_of(Finding("ib_completion_error", "error", "fabric", "X", "..", details={"wc_status": name}))
        for rest in ("", " on rank 3: no hardware ..", " on 4 ranks (0,1,2,3): ..", " (peer 10.0.0.1): ..",
                     ", likely caused by IB link down at 10:00:00 on this node"):
            assert read_what("ib_completion_error", said + rest) == {"wc_status": name}, said + rest
    assert read_what("ib_completion_error", "IB async event 'port error' on rank 2: ..") == {"event": "port error"}
    assert read_what("ib_completion_error", "NET/IB completion error 'no such words' (status x): ..") == {}
    assert read_what("ib_completion_error", "NET/IB completion error on rank 2: ..") == {}


def test_a_cuda_errors_words_read_back_as_its_error():
    """The inverse of cuda_error's `named` (was parsers/correlate.py CUDA_WHAT, a pattern of its own): the error in
    full, a quote in it too; none for words that name none (the template's empty default)."""
    from parsers.correlate import read_what

    for error in ("an illegal memory access was encountered", "CUDA_ERROR_ECC_UNCORRECTABLE", "it's 'quoted' here"):
        said = what_of(Finding("cuda_error", "error", "unknown", "X", "..", details={"cuda_error": error}))
        assert read_what("cuda_error", said + " on rank 14: no hardware ..") == {"cuda_error": error}
    assert read_what("cuda_error", "CUDA error on rank 14: ..") == {}
    assert read_what("cuda_error", "CUDA error '' on rank 14: ..") == {}
    assert read_what("nccl_timeout", "NCCL watchdog timeout on rank 1: ..") == {}


@pytest.mark.parametrize("kind", [k.name for k in TABLE if k.workload and k.named])
def test_a_kinds_words_are_read_back_in_linear_time(kind):
    """Each template's pattern (parsers/kinds.py named_pattern) on hostile words: its literal text, then a long run of
    what its groups take, never the end they wait for: linear (a nested or repeated lazy group would be quadratic)."""
    from parsers.correlate import read_what

    for template in (BY_NAME[kind].named,) if isinstance(BY_NAME[kind].named, str) else BY_NAME[kind].named:
        head = template.split("{", 1)[0]
        for filler in ("a" * 50_000, "'" * 50_000, "' (status " * 5_000, ": " * 25_000, " on rank " * 5_000):
            cost = cpu_seconds(lambda: read_what(kind, head + filler + "\n"))  # (CPU time: not a loaded host's clock)
            assert cost < 0.5, (kind, template, filler[:12])
