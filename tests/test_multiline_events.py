"""Multi-line events outside PCIe AER (rules.EVENT_LINES): one finding per event, on real blocks from the corpus.

mlx5 firmware health dumps and mlx5e TX timeouts are kept apart per PCI function (rules.EVENT_PER_DEVICE);
the NVRM post-RX-detect NVLink failure pair is one event while it repeats."""

from __future__ import annotations

import collections

import pytest
import realworld

ITEMS = {(i["file"], i["text"].splitlines()[0]): i for i in realworld.samples()}


def _item(file: str, first_line_part: str) -> dict:
    hits = [i for (f, first), i in ITEMS.items() if f == file and first_line_part in first]
    assert len(hits) == 1, (file, first_line_part, len(hits))
    return hits[0]


@pytest.mark.parametrize("file,first,want", [
    # print_health_info dump of one function (kernel 5.16 wording, netdev post): one fatal nic_error
    ("mlx5-more.yaml", "print_health_info:425:(pid 912): Health issue observed", {("nic_error", "0000:08:00"): 1}),
    # miss-count + dump on 0d:00.0, then five more functions each with their own health failure
    ("mlx5-more.yaml", "[  445.937186] mlx5_core 0000:0d:00.0: poll_health", {("nic_error", "0000:0d:00"): 6}),
    # TX timeout detected + the per-queue line + the EQ line: one event
    ("mlx5-more.yaml", "[ 6756.098429] mlx5_core 0000:13:00.1 eth1: TX timeout detected", {("nic_error", "0000:13:00"): 1}),
    # the knvlink pair: one nvlink event
    ("nvlink-fabric.yaml", "[6619715.535712] NVRM: knvlinkUpdatePostRxDetectLinkMask_IMPL", {("nvlink", None): 1}),
    # PyTorch's NCCL exception and NCCL's description of its code on the next line: one failure each
    ("nccl-pytorch.yaml", "NCCLUtils.hpp:268, unhandled cuda error", {("nccl_error", None): 1}),
    ("nccl-pytorch.yaml", "NCCLUtils.hpp:268, remote process exited", {("nccl_remote_error", None): 1}),
])
def test_one_finding_per_event(file, first, want):
    got = collections.Counter((f.kind, f.pci) for f in realworld.findings(_item(file, first)["text"]))
    assert got == want


def test_health_dump_severity_is_fatal_and_members_are_silent():
    text = _item("mlx5-more.yaml", "print_health_info:425:(pid 912)")["text"]
    found = realworld.findings(text)
    assert [f.severity for f in found] == ["fatal"]
    assert found[0].message.endswith("Health issue observed, firmware internal error, severity(3) ERROR:")
    # a dump line alone (no banner before it) is a member: never a finding, never unclassified
    assert realworld.findings(text.splitlines()[1] + "\n") == []


def test_an_nccl_code_line_alone_is_a_failure_and_each_wrapper_counts():
    """The description line joins the wrapper before it; alone (or past the event's 2 lines) it is its own
    failure, and two ranks' wrappers in a row are two failures (synthetic lines, shaped as the real block above)."""
    wrapper = "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled system error"
    code = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error."
    assert [f.kind for f in realworld.findings(code)] == ["nccl_error"]
    assert [f.kind for f in realworld.findings("\n".join([wrapper, code, wrapper, code]))] == ["nccl_error"] * 2
    assert [f.kind for f in realworld.findings("\n".join([wrapper, "a", "b", "c", code]))] == ["nccl_error"] * 2
