"""PyTorch's "CUDA driver error: <text>" (C10_CUDA_DRIVER_CHECK: symmetric memory, 2.5+) read as its "CUDA error:
<text>", and "invalid device ordinal" (cudaErrorInvalidDevice) the job's configuration in every wrapper's words.  Lines
marked REAL are copied verbatim from the public source beside them (tests/fixtures/realworld/jobs-cuda-driver-2026.yaml
holds them in context)."""

from __future__ import annotations

from parsers import Classifier
from parsers.rules import CUDA_ERRORS

# REAL: https://github.com/pytorch/torchtitan/issues/1475
DRIVER_INVALID = "  RuntimeError: CUDA driver error: invalid argument"
# REAL: https://github.com/yifuwang/symm-mem-recipes/issues/1
DRIVER_UNSUPPORTED = "[rank0]: RuntimeError: CUDA driver error: operation not supported"
# REAL: https://github.com/pytorch/pytorch/issues/137145
DRIVER_OOM = "[rank0]: RuntimeError: CUDA driver error: out of memory"
# REAL: https://github.com/pytorch/pytorch/issues/167537
DRIVER_802 = "[rank0]: RuntimeError: CUDA driver error: system not yet initialized"
# REAL: the title of https://github.com/NVIDIA/nccl/issues/1948 (NCCL 2.28.9)
NCCL_101 = "transport/p2p.cc:275 NCCL WARN Cuda failure 101 'invalid device ordinal'"
# REAL: https://github.com/NVIDIA/nccl-tests/issues/263
NCCL_TESTS = "g0010: Test CUDA failure common.cu:941 'invalid device ordinal'"
# REAL: https://github.com/NVIDIA/nccl-tests/issues/2 (NCCL 2.0's nccl-tests; the poster's quote marks)
NCCL_TESTS_2017 = ">> Cuda failure common.cu:891 'invalid device ordinal'"
# REAL: https://github.com/NovaSearch-Team/RAG-Retrieval/issues/27
TORCH = "[rank5]: RuntimeError: CUDA error: invalid device ordinal"
# REAL: the title of https://github.com/NVIDIA/semantic-segmentation/issues/10 (THC)
THC = "RuntimeError: cuda runtime error (10) : invalid device ordinal"


def test_a_driver_api_check_is_the_jobs_cuda_error_with_its_text():
    for line, text, rank in ((DRIVER_INVALID, "invalid argument", None),
                             (DRIVER_UNSUPPORTED, "operation not supported", 0)):
        f = Classifier().classify(line)  # was: nothing
        assert (f.kind, f.severity, f.attribution, f.rank) == ("cuda_error", "error", "unknown", rank)
        assert f.details["cuda_error"] == text


def test_a_driver_api_check_out_of_memory_is_the_jobs_and_802_stays_the_nodes():
    oom = Classifier().classify(DRIVER_OOM)  # was: nothing
    assert (oom.kind, oom.attribution, oom.rank) == ("cuda_oom", "application", 0)
    assert Classifier().classify(DRIVER_802).kind == "driver_unusable"


def test_invalid_device_ordinal_is_the_jobs_configuration_in_every_wrappers_words():
    assert CUDA_ERRORS["invalid device ordinal"] == CUDA_ERRORS["cudaErrorInvalidDevice"]
    for line in (NCCL_101, NCCL_TESTS, NCCL_TESTS_2017, TORCH, THC):
        f = Classifier().classify(line)  # was: unknown, INVESTIGATE; NCCL's numbered form an nccl_error warning
        assert (f.kind, f.severity, f.attribution, f.action) == ("cuda_error", "error", "application", "CHECK_APP"), line
        assert f.details["cuda_error"] == "invalid device ordinal"


def test_nccls_numbered_cuda_failure_of_another_text_stays_its_warning():
    # CONSTRUCTED from NCCL_101's shape (src/include/checks.h CUDACHECK: "Cuda failure %d '%s'"): a text no row lists
    f = Classifier().classify("transport/p2p.cc:1128 NCCL WARN Cuda failure 1 'invalid argument'")
    assert (f.kind, f.severity) == ("nccl_error", "warning")
