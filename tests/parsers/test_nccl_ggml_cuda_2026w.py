"""A CUDA status inside NCCL's WARN reads as the same status in every other wrapper's words (CUDA_ERRORS, one table),
and the GPU ggml's CUDA backend (llama.cpp, ollama) names on the line after its CUDA error is that finding's GPU.
Lines marked REAL are copied verbatim from the public source beside them
(tests/fixtures/realworld/jobs-cuda-nccl-ggml-2026w.yaml holds them in context); CONSTRUCTED ones say from what."""

from __future__ import annotations

import pytest

from parsers import Classifier
from parsers.rules import CUDA_ERRORS, cuda_reading

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

# REAL: https://github.com/ollama/ollama/issues/9247 (ollama 0.5.x)
OLLAMA = ("Error: an error was encountered while running the model: CUDA error: unspecified launch failure",
          "  current device: 0, in function ggml_backend_cuda_synchronize at llama/ggml-cuda/ggml-cuda.cu:2317",
          "  cudaStreamSynchronize(cuda_ctx->stream())",
          "llama/ggml-cuda/ggml-cuda.cu:96: CUDA error")
# REAL: https://github.com/ggml-org/llama.cpp/issues/4563 (2023's wording)
LLAMA_2023 = ("CUDA error 719 at ggml-cuda.cu:8021: unspecified launch failure",
              "current device: 1",
              'GGML_ASSERT: ggml-cuda.cu:8021: !"CUDA error"')
# REAL: https://github.com/ollama/ollama/issues/1649 (journald)
OLLAMA_JOURNALD = ("Dec 20 17:03:11 NightFuryX ollama[12288]: CUDA error 700 at /go/src/github.com/jmorganca/ollama/llm/"
                   "llama.cpp/gguf/ggml-cuda.cu:8111: an illegal memory access was encountered",
                   "Dec 20 17:03:11 NightFuryX ollama[12288]: current device: 1")


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
        assert (f.kind, f.severity, f.attribution, f.action) == cuda_reading(text)  # a status naming its kind: that kind


def test_an_unlisted_text_stays_nccls_warning_and_nvls_stays_the_fabric_managers():
    f = Classifier().classify(NCCL_UNLISTED)
    assert (f.kind, f.severity) == ("nccl_error", "warning")
    nvls = Classifier().classify(NCCL_NVLS_999)
    assert (nvls.kind, nvls.attribution) == ("driver_unusable", "fabric")


def _read(lines):
    c = Classifier()
    return [c.read(line) for line in lines]


@pytest.mark.parametrize("lines, gpu, text", [(OLLAMA, 0, "unspecified launch failure"),
                                              (LLAMA_2023, 1, "unspecified launch failure"),
                                              (OLLAMA_JOURNALD, 1, "an illegal memory access was encountered")])
def test_ggmls_current_device_is_the_cuda_errors_gpu(lines, gpu, text):
    out = _read(lines)
    first, _ = out[0]
    assert first.kind == "cuda_error" and first.details["cuda_error"] == text
    found, amended = out[1]  # was: nothing (the index lost)
    assert found is None and len(amended) == 1
    assert (amended[0].kind, amended[0].details["gpu"], amended[0].details["amends"]) == ("cuda_error", gpu, "gpu")
    assert amended[0].details["cuda_error"] == text and amended[0].attribution == first.attribution
    assert all(f is None and not a for f, a in out[2:])  # the rest of the report: nothing more


def test_the_device_line_alone_or_past_the_error_is_nothing():
    assert _read([LLAMA_2023[1]]) == [(None, ())]
    assert _read([OLLAMA[1]]) == [(None, ())]
    out = _read([LLAMA_2023[0], "a", "b", "c", LLAMA_2023[1]])  # past the event's window: another failure's, if any
    assert out[0][0] is not None and out[-1] == (None, ())
