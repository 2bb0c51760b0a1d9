"""A CUDA graph capture broken by the job's own code (h401): the runtime's stream-capture statuses are the
application's, in every framework's words.  Every line is a real one, copied verbatim from the thread beside it
(tests/fixtures/realworld/workload-serving-2026d.yaml holds them with their sources)."""

from __future__ import annotations

import pytest

from parsers import parse_line
from parsers.rules import CUDA_CAPTURE_ERRORS, CUDA_ERRORS


@pytest.mark.parametrize("line,text,rank", [
    # SystemPanic/vllm-windows #5 (a vLLM engine's capture)
    ("ERROR 03-25 12:23:00 [engine.py:448] RuntimeError: CUDA error: operation not permitted when stream is capturing",
     "operation not permitted when stream is capturing", None),
    # noonghunna/club-3090 #106 (PyTorch 2.6+'s enum line, a vLLM 0.20 nightly's worker TP1)
    ("(Worker_TP1 pid=15193) ERROR 05-08 19:06:38 [multiproc_executor.py:962] Search for "
     "`cudaErrorStreamCaptureUnsupported' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html "
     "for more information.", "cudaErrorStreamCaptureUnsupported", 1),
    # NVIDIA/TensorRT #3011 (trtexec --useCudaGraph)
    ("[05/25/2023-20:44:13] [E] Error[1]: [executionContext.cpp::handleTrainStationRunnerPhase1::146] Error Code 1: "
     "Cuda Runtime (operation not permitted when stream is capturing)",
     "operation not permitted when stream is capturing", None),
    # vllm-project/vllm #4432 (NCCL's CUDACHECK in a capture; was an nccl_error warning)
    ("ts-1580615599d3449d98cf56a265c10977-worker-6:56890:56890 [0] enqueue.cc:267 NCCL WARN Cuda failure 'dependency "
     "created on uncaptured work in another stream'", "dependency created on uncaptured work in another stream", None),
])
def test_a_broken_capture_is_the_applications(line, text, rank):
    """Was: attribution unknown, INVESTIGATE (NCCL's: an nccl_error warning)."""
    f = parse_line(line)
    assert (f.kind, f.severity, f.attribution, f.action, f.rank) == ("cuda_error", "error", "application",
                                                                      "CHECK_APP", rank)
    assert f.details["cuda_error"] == text


def test_a_capture_invalidated_by_an_earlier_error_stays_unknown():
    """901 is the consequence of another error inside the capture, whatever it was: no verdict of its own
    (csarofeen/pytorch #2098)."""
    f = parse_line("ERROR:common:Failed for dynamo CUDA error: operation failed due to a previous error during capture")
    assert (f.kind, f.attribution, f.action, f.details["cuda_error"]) == (
        "cuda_error", "unknown", "INVESTIGATE", "operation failed due to a previous error during capture")


def test_every_capture_status_is_read_as_its_table_says():
    """The table is the one fact: each status (text and enum name) refines as CUDA_ERRORS does, and the cuda_error
    row reads each text behind NCCL's "Cuda failure '..'" as well as PyTorch's "CUDA error: ..".  CONSTRUCTED lines,
    from NCCL's CUDACHECK format (src/include/checks.h: "Cuda failure '%s'") and PyTorch's (c10/cuda/CUDAException.cpp)."""
    assert set(CUDA_CAPTURE_ERRORS) <= set(CUDA_ERRORS)
    texts = [t for t in CUDA_CAPTURE_ERRORS if " " in t]
    assert len(texts) == len(CUDA_CAPTURE_ERRORS) // 2 == 9
    for text in texts:
        for line in (f"host:1:2 [0] enqueue.cc:1 NCCL WARN Cuda failure '{text}'", f"RuntimeError: CUDA error: {text}"):
            f = parse_line(line)
            assert (f.kind, f.details["cuda_error"]) == ("cuda_error", text), line
            assert (f.severity, f.attribution, f.action) == CUDA_CAPTURE_ERRORS[text], line


def test_the_interposers_warning_alone_stays_silent():
    """nvshare's warning of the driver's status (grgalex/nvshare #28) is no failure of its own: the framework's "CUDA
    error: .." after it is."""
    assert parse_line("[NVSHARE][WARN]: cuCtxSynchronize returned CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: operation not "
                      "permitted when stream is capturing") is None
