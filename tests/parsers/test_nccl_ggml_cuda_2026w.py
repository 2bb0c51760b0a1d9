"""A CUDA status inside NCCL's WARN reads as the same status in every other wrapper's words (CUDA_ERRORS, one table).
Lines marked REAL are copied verbatim from the public source beside them
(tests/fixtures/realworld/jobs-cuda-nccl-ggml-2026w.yaml holds them in context); CONSTRUCTED ones say from what."""

from __future__ import annotations

import pytest

from parsers import Classifier
from parsers.rules import CUDA_ERRORS

# REAL: https://github.com/NVIDIA/nccl/issues/1653 (NCCL 2.21.5, CUCHECK: the driver's status by number and text)
NCCL_999 = "DESKTOP-1CE5APL:1689:2800 [0] include/alloc.h:112 NCCL WARN Cuda failure 999 'unknown error'"
# REAL: https://github.com/NVIDIA/nccl-tests/issues/230
NCCL_TESTS_999 = "DESKTOP-GGBQPHK:64756:64771 [0] include/alloc.h:123 NCCL WARN Cuda failure 999 'unknown error'"
# CONSTRUCTED from NVIDIA/nccl src/include/checks.h CUDACHECK, WARN("Cuda failure '%s'", cudaGetErrorString(err)): the
# runtime's status by its text alone (every release; the shape of NVIDIA/nccl #1528's real line below)
NCCL_TEXT_ONLY = "h:1:2 [0] enqueue.cc:58 NCCL WARN Cuda failure 'unknown error'"
# REAL: https://github.com/NVIDIA/nccl/issues/1528 (a text CUDA_ERRORS does not list)
NCCL_UNLISTED = "c76d92cccb6e:72:456 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'"
# REAL: https://github.com/NVIDIA/nccl-tests/issues/276 (NVLS's multicast call: the Fabric Manager's, its own row)
NCCL_NVLS_999 = "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error"


def test_nccls_unknown_error_is_the_nodes_driver_as_everywhere():
    for line in (NCCL_999, NCCL_TESTS_999, NCCL_TEXT_ONLY):
        f = Classifier().classify(line)  # was: the NCCL WARN row's warning, attribution unknown
        assert (f.kind, f.severity, f.attribution, f.action) == ("cuda_error", *CUDA_ERRORS["unknown error"]), line
        assert f.details["cuda_error"] == "unknown error"
    assert Classifier().classify(NCCL_999).details["cu_status"] == 999


# "driver shutting down" at a process's exit is the teardown row's (no finding), before this one
@pytest.mark.parametrize("text", [t for t in CUDA_ERRORS if t != "driver shutting down"])
def test_every_status_text_reads_as_its_table_row_in_either_era(text):
    # CONSTRUCTED from checks.h's two formats ("Cuda failure '%s'", "Cuda failure %d '%s'"): the table's every text
    for line in (f"h:1:2 [0] enqueue.cc:58 NCCL WARN Cuda failure '{text}'",
                 f"h:1:2 [0] include/alloc.h:112 NCCL WARN Cuda failure 999 '{text}'"):
        f = Classifier().classify(line)
        assert (f.kind, f.severity, f.attribution, f.action) == ("cuda_error", *CUDA_ERRORS[text])


def test_an_unlisted_text_stays_nccls_warning_and_nvls_stays_the_fabric_managers():
    f = Classifier().classify(NCCL_UNLISTED)
    assert (f.kind, f.severity) == ("nccl_error", "warning")
    nvls = Classifier().classify(NCCL_NVLS_999)
    assert (nvls.kind, nvls.attribution) == ("driver_unusable", "fabric")
