"""(h476) A node-wide kernel table full: connection tracking dropping new flows' packets and the system-wide file table
exhausted, each era's wording (tests/fixtures/realworld/kernel-tables-2026.yaml holds the real lines and addresses)."""

from __future__ import annotations

import pytest

from parsers import Classifier


def finding(line: str):
    return Classifier().read(line)[0]


@pytest.mark.parametrize("line, table", [
    # kubernetes/kubernetes #18604 (3.x-4.x: no stop)
    ("[1454500.910215] nf_conntrack: table full, dropping packet", "conntrack"),
    # kubernetes-retired/kube-aws #476 (4.x+: the prefix twice, a trailing blank as posted)
    ("[2834232.639992] nf_conntrack: nf_conntrack: table full, dropping packet ", "conntrack"),
    # 2.6's own module and full stop: constructed from its format string (ip_conntrack_core.c), no verbatim instance found
    ("ip_conntrack: table full, dropping packet.", "conntrack"),
    # leptonai/gpud #224
    ("[Sun Dec  1 14:54:40 2024] VFS: file-max limit 1000000 reached", "file-max"),
])
def test_a_full_kernel_table_is_found_naming_it(line, table):
    """Connection tracking full a warning (no condition); the file table full, every open failing, an error."""
    f = finding(line)
    assert (f.kind, f.severity, f.details["table"]) == (
        "kernel_table_full", "error" if table == "file-max" else "warning", table)


def test_file_max_gives_the_limit():
    assert finding("VFS: file-max limit 51200 reached").details["limit"] == 51200


@pytest.mark.parametrize("line", [
    # healthy boot lines of the same subsystems (tests/fixtures/realworld healthy logs; kubernetes/kubernetes #72472)
    "[    3.336653] VFS: Disk quotas dquot_6.6.0",
    "[    3.336653] VFS: Dquot-cache hash table entries: 512 (order 0, 4096 bytes)",
    "nf_conntrack: falling back to vmalloc.",
    # a sysctl or a how-to naming the message is no kernel line of it
    "net.netfilter.nf_conntrack_max = 2097152",
])
def test_healthy_lines_of_those_subsystems_stay_silent(line):
    f = finding(line)
    assert f is None or f.severity == "info"
