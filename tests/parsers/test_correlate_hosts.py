"""A workload failure is blamed on a node fault of its own node where both name their host (`gpu-npd parse` of many
nodes' logs: parsers/correlate.py CauseIndex), one machine however its lines spell its name (envelope.host_key); a
failure naming none, or a cause naming none, as before.  The findings are CONSTRUCTED (the fields correlation reads:
kind, time, host), no log line claimed."""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone

import pytest

from offline.report import write_correlations
from parsers import CauseIndex, Finding, cause_of, likely_cause
from parsers.envelope import host_key

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


@pytest.mark.parametrize("failure_host, fault_host", [
    ("node-a", "node-a.cluster.local"),  # a node's syslog short name, its journal's or a collector's FQDN
    ("node-a", "NODE-A"),
    ("Node-A.cluster.local", "node-a"),
    ("ip-10-0-19-159", "ip-10-0-19-159.ec2.internal"),  # (EC2's: aws/amazon-ecs-ami #256 names its node so)
])
def test_one_machine_however_its_logs_spell_it(failure_host, fault_host):
    """A failure and a fault of one machine correlate whichever spelling each line's envelope gave (was: none, the two
    spellings two nodes); another node's fault still never explains it."""
    got = _cause(_timeout(failure_host), _xid(fault_host))
    assert got is not None and got.host == fault_host
    assert _cause(_timeout(failure_host), _xid("node-b.cluster.local"), _xid("NODE-B")) is None


@pytest.mark.parametrize("failure_host, fault_host", [
    ("10.0.0.1", "10.0.0.2"),  # an address is never cut to its first label ("10")
    ("10", "10.0.0.2"),
    ("123.rack-a.example", "123.rack-b.example"),  # a first label of digits alone names no machine
    ("fe80::1", "fe80::2"),
    ("node-a", "node-b.cluster.local"),
])
def test_other_machines_stay_apart(failure_host, fault_host):
    assert _cause(_timeout(failure_host), _xid(fault_host)) is None


@pytest.mark.parametrize("host, key", [
    ("node-a", "node-a"), ("NODE-A", "node-a"), ("node-a.cluster.local", "node-a"), ("node-a.", "node-a"),
    ("10.0.0.1", "10.0.0.1"), ("123.rack-a.example", "123.rack-a.example"), ("FE80::1", "fe80::1"),
    ("::ffff:10.0.0.1", "::ffff:10.0.0.1"), (".local", ".local"),
])
def test_host_key(host, key):
    assert host_key(host) == key
