"""NCCL 2.30+ (h508): ranks sharing one GPU refused in the new words, and NCCL 2.30.7's WARN format, whose source file
and line are followed by the function in parentheses ("init.cc:1141 (initTransportsRank) NCCL WARN ..", src/debug.cc).
REAL lines: NVIDIA/nccl #1716 (NCCL 2.31.2; tests/fixtures/realworld/jobs-multi-rank-gpu-2026.yaml). The 2.30.3-2.30.4
wordings, the INFO of a shared GPU allowed, PyTorch's quote and the 2.30.7-format NVLS and shared-memory lines are
CONSTRUCTED from NVIDIA/nccl's source at v2.30.4-1 (src/graph/topo.cc ncclCheckMultiRank, src/init.cc) and v2.30.7-1
(src/debug.cc's "[%d] %s:%d (%s) NCCL WARN %s") around real lines of the older format."""

from __future__ import annotations

import pytest

from parsers import parse_line
from parsers.kinds import BY_NAME, named_as
from triage import Clock, attribute, read_lines

MULTI_RANK = ("init.cc:1141 (initTransportsRank) NCCL WARN Multiple Ranks are using the same GPU/Partition. Set "
              "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.")
NVLS_MULTI_RANK = ('transport/nvls.cc:255 (ncclNvlsInit) NCCL WARN NCCL_NVLS_ENABLE has been set to "1" and '
                   "communicator has multiple ranks using the same NVML device. This is not compatible with "
                   "NCCL_NVLS_ENABLE=1.")


@pytest.mark.parametrize("line", [
    MULTI_RANK,
    NVLS_MULTI_RANK,
    # 2.30.3-2.30.4 (constructed): topo.cc's check, init.cc's NVLS refusal, each behind NCCL's host:pid:tid prefix
    "node-a:2101743:2101803 [0] graph/topo.cc:1977 NCCL WARN Multiple ranks detected using the same GPU on this node. "
    "Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
    "node-a:2101743:2101803 [0] init.cc:1123 NCCL WARN Multiple ranks detected using the same GPU on this node and "
    'NCCL_NVLS_ENABLE has been set to "1". At this time multiple ranks per gpu is incompatible with NVLS.',
    # PyTorch's DistBackendError quotes NCCL's last error without its prefix (constructed)
    "Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
])
def test_ranks_sharing_a_gpu_in_nccl_2_30s_words_are_the_jobs_configuration(line):
    """Was: the NCCL WARN row's warning, attribution unknown (and nothing for the quote)."""
    f = parse_line(line)
    assert (f.kind, f.severity, f.attribution, f.action) == ("nccl_error", "error", "application", "CHECK_APP")
    assert f.details["shared_gpu"] in line
    assert named_as(BY_NAME["nccl_error"].named, f).startswith("ranks sharing one GPU (NCCL: '")


def test_the_older_wording_keeps_its_ranks():
    f = parse_line("qgpu2018:59522:59993 [0] init.cc:795 NCCL WARN Duplicate GPU detected : rank 6 and rank 4 both "
                   "on CUDA device 31000")
    assert (f.rank, f.details["other_rank"], f.attribution) == (6, 4, "application")
    assert "shared_gpu" not in f.details


def test_a_shared_gpu_allowed_is_no_finding():
    """2.30.4's INFO where NCCL_MULTI_RANK_GPU_ENABLE=1 allows it (constructed from src/init.cc)."""
    assert parse_line("node-a:2101743:2101803 [0] NCCL INFO Multiple ranks on the same GPU detected and allowed. "
                      "Disabling NVLS.") is None


def test_triage_blames_the_jobs_configuration():
    """Was: "No failure found in these logs"."""
    (incident,) = attribute(read_lines([MULTI_RANK], "rank0.log", Clock()))
    assert (incident.category, incident.root.kind) == ("application", "nccl_error")


def test_nvls_multicast_failure_in_the_2_30_7_format_is_the_fabrics():
    """NVIDIA/nccl #1788's line (REAL, 2.26.2) with the function 2.30.7 prints after the line: was nccl_error, a
    warning (the row read "nvls.cc:<line> NCCL WARN" only)."""
    for line in ("[2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 401 'the "
                 "operation cannot be performed in the present state'",
                 "[2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:344 (nvlsGroupCreate) NCCL WARN Cuda "
                 "failure 401 'the operation cannot be performed in the present state'"):
        f = parse_line(line)
        assert (f.kind, f.attribution, f.action) == ("driver_unusable", "fabric", "CHECK_FABRIC_MANAGER"), line


def test_a_storage_error_of_nccls_shm_code_in_the_2_30_7_format_is_dev_shms():
    """A refusal the parsers leave to NCCL's warning, on a line of NCCL's shared-memory code: /dev/shm's, named so in
    either format (was: "storage error (..)" in 2.30.7's)."""
    for line in ("node-a:1:1 [0] misc/shmutils.cc:72 NCCL WARN Call to posix_fallocate failed : Input/output error",
                 "node-a:1:1 [0] misc/shmutils.cc:72 (ncclShmOpen) NCCL WARN Call to posix_fallocate failed : "
                 "Input/output error"):
        (incident,) = attribute(read_lines([line], "rank0.log", Clock()))
        assert incident.reason.startswith("/dev/shm too small or full on "), (line, incident.reason)
