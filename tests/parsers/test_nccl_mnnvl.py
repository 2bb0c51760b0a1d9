"""NCCL's multi-node NVLink (MNNVL) self-test failing at a communicator's init (h370): its two WARNs name two causes,
a process without an IMEX channel (the job's configuration) and an IMEX that does not serve the fabric handle (the
NVLink domain's IMEX). No log line of either was found whole in a public issue (2026: NCCL's own source, notes that
quote the message without NCCL's prefix): every line here is CONSTRUCTED from NVIDIA/nccl src/mnnvl.cc
(ncclMnnvlCheck's WARN and INFO format strings, the same words in 2.23 to 2.30) under NCCL's WARN prefix
(src/debug.cc: "host:pid:tid [dev] file:line NCCL WARN ..") or as PyTorch's DistBackendError quotes NCCL's last
error."""

from __future__ import annotations

import pytest

from parsers import parse_line
from triage import Clock, attribute, read_lines

CHANNEL = ("MNNVL (cliqueSize 72) is available but not working on this system. Check the IMEX channel configuration "
           "(/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.")
IMEX = ("MNNVL (cliqueSize 72) is available but not working on this system. Check the IMEX configuration "
        "(nvidia-imex-ctl -N). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.")
PREFIX = "gb200-rack1-03:2101743:2101803 [1] mnnvl.cc:{} NCCL WARN "


@pytest.mark.parametrize("line", [
    PREFIX.format(75) + CHANNEL,
    CHANNEL,  # after PyTorch's "Last error:"
    # a quote wrapping the message after "this system.": the cause's sentence alone
    "Check the IMEX channel configuration (/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this "
    "issue.",
])
def test_no_imex_channel_is_the_jobs_configuration(line):
    """Was: the NCCL WARN row's warning, attribution unknown (and nothing without the WARN prefix)."""
    f = parse_line(line)
    assert (f.kind, f.severity, f.attribution, f.action) == ("nccl_error", "error", "application", "CHECK_APP")


@pytest.mark.parametrize("line", [PREFIX.format(88) + IMEX, IMEX])
def test_a_fabric_handle_imex_does_not_serve_is_the_domains_imex(line):
    """Was: the NCCL WARN row's warning, attribution unknown."""
    f = parse_line(line)
    assert (f.kind, f.severity, f.attribution, f.action) == ("imex_error", "error", "fabric", "CHECK_IMEX")
    assert f.details["clique_size"] == 72


@pytest.mark.parametrize("line", [
    # the self-test's INFO lines (2.28+): MNNVL off for want of a clique, its candidate, the failure's detail before
    # its WARN, and a healthy GB200's per-GPU fabric line (REAL: NVIDIA/nccl #1769, healthMask 0xaa: every health
    # bit "false", nothing degraded)
    "gb200-rack1-03:2101743:2101803 [1] NCCL INFO MNNVL disabled: rank 3 fabric state 1 is not completed",
    "gb200-rack1-03:2101743:2101803 [1] NCCL INFO MNNVL candidate cliqueId 0x7ffe cliqueSize 72 cliqueRank 1 "
    "nvlDomainSize 72",
    "gb200-rack1-03:2101743:2101803 [1] NCCL INFO MNNVL FABRIC export/import failed with CUDA error 800 'operation "
    "not permitted'",
    "gb200a-04:2101743:2101803 [1] NCCL INFO MNNVL busId 0x901000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 "
    "cliqueId 0x7ffe state 3 healthMask 0xaa",
])
def test_the_self_tests_info_lines_are_no_finding(line):
    assert parse_line(line) is None


def test_triage_of_a_job_without_an_imex_channel_blames_its_configuration():
    """A rank's failed init as PyTorch reports it, NCCL's last error after it: the job's configuration, not an
    undetermined NCCL error (was: undetermined, the DistBackendError alone)."""
    lines = ["torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
             "ProcessGroupNCCL.cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version "
             "2.27.5",
             "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
             "Last error:",
             CHANNEL]
    (incident,) = attribute(read_lines(lines, "rank0.log", Clock()))
    assert (incident.category, incident.root.kind) == ("application", "nccl_error")


def test_triage_of_an_imex_that_fails_the_import_blames_the_nodes_fabric():
    (incident,) = attribute(read_lines([PREFIX.format(88) + IMEX], "rank1.log", Clock()))
    assert (incident.category, incident.root.kind, incident.root.host) == ("fabric", "imex_error", "gb200-rack1-03")
