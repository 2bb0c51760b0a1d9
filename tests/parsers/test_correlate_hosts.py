"""A workload failure is blamed on a node fault of its own node where both name their host (`gpu-npd parse` of many
nodes' logs: parsers/correlate.py CauseIndex); a failure naming none, or a cause naming none, as before.  The findings
are CONSTRUCTED (the fields correlation reads: kind, time, host), no log line claimed."""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone

from offline.report import write_correlations
from parsers import CauseIndex, Finding, cause_of, likely_cause

T0 = datetime(2024, 12, 23, 23, 32, 27, tzinfo=timezone.utc)


def _xid(host: str | None, at: datetime = T0, pci: str = "0000:01:00") -> Finding:
    return Finding("xid", "fatal", "hardware", "RESET_GPU", "NVRM: Xid (PCI:0000:01:00): 79", at, xid=79, pci=pci,
                   host=host)


def _timeout(host: str | None, at: datetime = T0 + timedelta(seconds=30)) -> Finding:
    return Finding("nccl_timeout", "error", "unknown", "RESTART_APP", "Watchdog caught collective operation timeout",
                   at, host=host)


def _cause(failure: Finding, *faults: Finding):
    return likely_cause(failure, CauseIndex(cause_of(f) for f in faults))


def test_a_failure_takes_only_its_own_nodes_fault():
    assert _cause(_timeout("node-b"), _xid("node-a")) is None
    got = _cause(_timeout("node-b"), _xid("node-a"), _xid("node-b", T0 - timedelta(seconds=60), "0000:5d:00"))
    assert got is not None and got.host == "node-b" and "0000:5d:00" in got.text


def test_a_failure_or_a_fault_naming_no_node_correlates_as_before():
    assert _cause(_timeout(None), _xid("node-a")).host == "node-a"  # a failure naming none: any node's
    assert _cause(_timeout("node-b"), _xid(None)).host is None  # a fault naming none (a plain dmesg): any failure's
    # the better of its node's and the unnamed: the later of two equally severe
    got = _cause(_timeout("node-b"), _xid(None, T0 - timedelta(seconds=60)), _xid("node-b", T0, "0000:5d:00"),
                 _xid("node-a", T0 + timedelta(seconds=10)))
    assert got.host == "node-b"


def test_parse_reports_each_nodes_failure_with_its_own_cause():
    out = io.StringIO()
    causes = [cause_of(_xid("node-a"))]
    write_correlations([_timeout("node-a"), _timeout("node-b")], causes, out, "text")
    lines = [line for line in out.getvalue().splitlines() if "timeout" in line.lower()]
    assert len(lines) == 2
    assert "likely caused by Xid 79" in lines[0] and "likely caused" not in lines[1]
