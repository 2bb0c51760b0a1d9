"""TensorRT-LLM throwing the NCCLCHECK of NCCL's documentation examples (h150).  Every line is a real one, copied
verbatim from the thread beside it (tests/fixtures/realworld/workload-serving-2026c.yaml holds them with their
sources)."""

from __future__ import annotations

import pytest

from parsers import parse_line


@pytest.mark.parametrize("line,code,attribution,rank", [
    # NVIDIA/TensorRT-LLM #213 (2023: the allreduce plugin, under mpirun with no rank prefix)
    ("Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:295 'internal "
     "error - please report this issue to the NCCL developers'", "ncclInternalError", "unknown", None),
    # NVIDIA/TensorRT-LLM #9263 (2025: the PyTorch backend's executor on rank 0, its logger's "[RANK 0]")
    ("[11/18/2025-09:33:30] [TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: [TensorRT-LLM][ERROR] "
     "Assertion failed: Failed, NCCL error ../tensorrt_llm/runtime/ncclCommunicator.cpp:90 'invalid usage (run with "
     "NCCL_DEBUG=WARN for details)'", "ncclInvalidUsage", "application", 0),
])
def test_trtllms_failed_nccl_call_is_an_nccl_error(line, code, attribution, rank):
    """Was: nothing; the ncclResult_t its text names, the rank TensorRT-LLM's "[RANK N]" tag names."""
    f = parse_line(line)
    assert (f.kind, f.details["nccl_code"], f.attribution, f.rank) == ("nccl_error", code, attribution, rank)
