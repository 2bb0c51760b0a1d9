"""vLLM's NVLink probe on a machine without NVLink, and NCCL's refusal of an NVLink pair whose P2P NVML says is
disabled (h712; the real lines are in tests/fixtures/realworld/nvlink-p2p-2026h712.yaml).

Lines marked CONSTRUCTED are vLLM's format strings (vllm/platforms/cuda.py logger.exception, 0.6-0.1x; 2024's
custom_all_reduce.py logger.info; the later logger.debug) with vLLM's record header and pynvml's traceback as Python
prints it: no public log of them was found. They test the rule, never the formats.
"""

from __future__ import annotations

import pytest

from parsers import parse_line
from triage import Clock, attribute, read_lines

# CONSTRUCTED: cuda.py's logger.exception, then the traceback it prints (pynvml's NVMLError for an unsupported query)
PROBE = [
    "ERROR 01-23 10:00:00 [cuda.py:400] NVLink detection failed. This is normal if your machine has no NVLink "
    "equipped.",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/platforms/cuda.py", line 395, in is_fully_connected',
    "    p2p_status = pynvml.nvmlDeviceGetP2PStatus(",
    '  File "/usr/local/lib/python3.12/dist-packages/pynvml.py", line 3000, in nvmlDeviceGetP2PStatus',
    "    _nvmlCheckReturn(ret)",
    '  File "/usr/local/lib/python3.12/dist-packages/pynvml.py", line 979, in _nvmlCheckReturn',
    "    raise NVMLError(ret)",
    "pynvml.NVMLError_NotSupported: Not Supported",
]
SERVING = "INFO 01-23 10:00:05 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000"


@pytest.mark.parametrize("line", [
    PROBE[0],
    # CONSTRUCTED: 2024's custom_all_reduce.py (logger.info) and the later debug record
    'INFO 05-13 08:48:35 custom_all_reduce.py:166] NVLink detection failed with message "Not Supported". This is '
    "normal if your machine has no NVLink equipped",
    "DEBUG 03-02 11:00:00 [cuda.py:610] NVLink detection failed for devices 0-1: Not Supported. This is normal if your "
    "machine has no NVLink.",
])
def test_vllms_nvlink_probe_on_a_machine_without_nvlink_is_no_finding(line):
    """Was: the generic nvlink row's NVLink hardware error (attribution hardware) on every PCIe-only TP job."""
    assert parse_line(line) is None


def test_the_probes_traceback_makes_no_finding_and_no_incident():
    """The traceback logger.exception prints is a handled exception: no finding, and triage names no failure (was: an
    application incident, the NVMLError_NotSupported)."""
    assert [line for line in PROBE if parse_line(line) is not None] == []
    assert attribute(read_lines(PROBE + [SERVING], "vllm.log", Clock())) == []


def test_a_real_nvlink_fault_is_still_reported():
    """The probe's words make no other NVLink line quiet: a driver's NVLink failure stays the nvlink kind."""
    f = parse_line("NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask failed!")
    assert f is not None and f.kind == "nvlink"
    f = parse_line("NVLink detection failed: link 3 down")  # CONSTRUCTED: another program's NVLink failure
    assert f is not None and f.kind == "nvlink"


# REAL: NVIDIA/nccl #2329 (the WARN's text); the prefix, NCCL's trace and PyTorch's exception around it are
# CONSTRUCTED from NCCL's and PyTorch's formats (SYNTHETIC job)
P2P = ("P2P is disabled between NVLINK connected GPUs 1 and 0. This should not be the case given their connectivity, "
       "and is probably due to a hardware issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.")
ABORT = [
    "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
    "1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
    "[rank1]: ncclUnhandledCudaError: Call to CUDA function failed.",
    "[rank1]: Last error:",
    "[rank1]: " + P2P,
]


def test_nccls_disabled_nvlink_p2p_is_the_nodes_fabric():
    """Was: the NCCL WARN row's warning, unknown (nothing for PyTorch's quote of it)."""
    for line in (f"node1:3052669:3052713 [1] graph/paths.cc:301 NCCL WARN {P2P}", ABORT[-1]):
        f = parse_line(line)
        assert (f.kind, f.severity, f.attribution, f.action) == ("nvlink", "error", "fabric", "CHECK_FABRIC_MANAGER")


@pytest.mark.parametrize("lines", [[f"node1:3052669:3052713 [1] graph/paths.cc:301 NCCL WARN {P2P}"] + ABORT, ABORT])
def test_triage_names_the_nodes_nvlink_fault_before_nccls_abort(lines):
    """SYNTHETIC: with NCCL_DEBUG=WARN and without (the quote alone): the node's NVLink fault, not the application's
    NCCL error (was: the NCCL error, unknown)."""
    (incident,) = attribute(read_lines(lines, "train.log", Clock()))
    assert (incident.category, incident.rule, incident.root.kind) == ("hardware", "node_fault", "nvlink")
