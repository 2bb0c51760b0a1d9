"""A CUDA status PyTorch's NCCL exception quotes after "Last error:" reads as NCCL's WARN of it does (CUDA_ERRORS, one
table), one finding with that WARN; ollama's server echo of its runner's CUDA error is that error's event. Lines marked
REAL are copied verbatim from the public source beside them (tests/fixtures/realworld/jobs-cuda-nccl-ggml-2026w.yaml
and nccl-pytorch-2.yaml hold them in context); CONSTRUCTED ones say from what."""

from __future__ import annotations

import pytest

from parsers import Classifier
from parsers.rules import CUDA_ERRORS, cuda_reading

# REAL: https://github.com/NVIDIA/nccl/issues/1935 (the one-line statement of PyTorch's exception)
ONE_LINE = "ncclUnhandledCudaError: Call to CUDA function failed. Last error: Cuda failure 999 'unknown error'"
# REAL: https://github.com/THUDM/slime/issues/1305 (NCCL 2.28.9, no WARN before it)
SLIME = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:93, "
         "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.28.9",
         "ncclUnhandledCudaError: Call to CUDA function failed.",
         "Last error:",
         "Cuda failure 999 'unknown error'")
# REAL: https://github.com/alisson-anjos/diffusion-pipe-ui/issues/10 (torchrun's rank prefix)
RANKED = ("[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.",
          "[rank0]: Last error:",
          "[rank0]: Cuda failure 999 'unknown error'")
# REAL: https://github.com/NVIDIA/nccl/issues/1653 (NCCL's WARN, its INFO trace, then PyTorch's quote of it)
NCCL_1653 = ("DESKTOP-1CE5APL:1689:2800 [0] include/alloc.h:112 NCCL WARN Cuda failure 999 'unknown error'",
             "DESKTOP-1CE5APL:1689:2800 [0] NCCL INFO include/alloc.h:199 -> 1",
             "DESKTOP-1CE5APL:1689:2800 [0] NCCL INFO channel.cc:41 -> 1",
             "DESKTOP-1CE5APL:1689:2800 [0] NCCL INFO init.cc:526 -> 1",
             "DESKTOP-1CE5APL:1689:2800 [0] NCCL INFO init.cc:1259 -> 1",
             "DESKTOP-1CE5APL:1689:2800 [0] NCCL INFO init.cc:1548 -> 1",
             "DESKTOP-1CE5APL:1689:2800 [0] NCCL INFO group.cc:64 -> 1 [Async thread]",
             "DESKTOP-1CE5APL:1689:1689 [0] NCCL INFO group.cc:418 -> 1",
             "DESKTOP-1CE5APL:1689:1689 [0] NCCL INFO init.cc:1929 -> 1",
             "2025-03-21 17:08:31,569 - finetrainers - ERROR - Error during training: NCCL error in: /pytorch/torch/csrc/"
             "distributed/c10d/NCCLUtils.hpp:268, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL "
             "version 2.21.5",
             "ncclUnhandledCudaError: Call to CUDA function failed.",
             "Last error:",
             "Cuda failure 999 'unknown error'")
# REAL: https://github.com/verl-project/verl/issues/2044 (a status CUDA_ERRORS does not list)
VERL = ("ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", "Cuda failure 1 'invalid argument'")

# REAL: https://github.com/ollama/ollama/issues/1649 (journald; the runner's error, then the server's echo of it)
OLLAMA = ("Dec 20 17:03:11 NightFuryX ollama[12288]: CUDA error 700 at /go/src/github.com/jmorganca/ollama/llm/llama.cpp/"
          "gguf/ggml-cuda.cu:8111: an illegal memory access was encountered",
          "Dec 20 17:03:11 NightFuryX ollama[12288]: current device: 1",
          'Dec 20 17:03:11 NightFuryX ollama[12288]: GGML_ASSERT: /go/src/github.com/jmorganca/ollama/llm/llama.cpp/gguf/'
          'ggml-cuda.cu:8111: !"CUDA error"',
          "Dec 20 17:03:12 NightFuryX ollama[12288]: 2023/12/20 17:03:12 llama.go:451: 700 at /go/src/github.com/"
          "jmorganca/ollama/llm/llama.cpp/gguf/ggml-cuda.cu:8111: an illegal memory access was encountered",
          "Dec 20 17:03:12 NightFuryX ollama[12288]: current device: 1",
          'Dec 20 17:03:12 NightFuryX ollama[12288]: GGML_ASSERT: /go/src/github.com/jmorganca/ollama/llm/llama.cpp/gguf/'
          'ggml-cuda.cu:8111: !"CUDA error"')


def _findings(lines):
    c = Classifier()
    return [f for f in (c.read(line)[0] for line in lines) if f is not None]


def _reading(f):
    return f.kind, f.severity, f.attribution, f.action


def test_the_one_line_exceptions_status_reads_as_nccls_warn_of_it():
    f = Classifier().classify(ONE_LINE)  # was: nccl_error, unknown, INVESTIGATE
    assert _reading(f) == ("cuda_error", *CUDA_ERRORS["unknown error"])
    assert (f.details["cuda_error"], f.details["cu_status"]) == ("unknown error", 999)


@pytest.mark.parametrize("lines, rank", [(SLIME, None), (RANKED, 0)])
def test_the_status_on_the_line_after_last_error_is_its_own_finding_beside_the_exception(lines, rank):
    found = _findings(lines)  # was: the exception's nccl_error alone, unknown
    assert sorted(f.kind for f in found) == ["cuda_error", "nccl_error"]
    (cuda,) = [f for f in found if f.kind == "cuda_error"]
    assert _reading(cuda) == ("cuda_error", *CUDA_ERRORS["unknown error"]) and cuda.rank == rank


def test_after_nccls_warn_of_it_the_quote_is_the_warns_event_not_a_second_finding():
    found = _findings(NCCL_1653)
    assert [f.kind for f in found] == ["cuda_error", "nccl_error"]
    assert _reading(found[0]) == ("cuda_error", *CUDA_ERRORS["unknown error"])


def test_a_quote_of_another_status_after_the_warn_is_its_own_finding():
    """NCCL's last error is its last WARN: a quote of another status within the WARN's window is another failure (a
    second process's, interleaved), not the WARN's echo. CONSTRUCTED: NVIDIA/nccl #1653's WARN (REAL, above), then
    PyTorch's quote of another status in NCCL's CUDACHECK words (src/include/checks.h)."""
    quote = "Last error: Cuda failure 'an illegal memory access was encountered'"
    found = _findings((NCCL_1653[0], *NCCL_1653[1:4], quote))  # was: the quote absorbed by the WARN's event
    assert [f.details["cuda_error"] for f in found] == ["unknown error", "an illegal memory access was encountered"]


def test_a_status_the_table_lacks_stays_the_exceptions():
    assert [f.kind for f in _findings(VERL)] == ["nccl_error"]


# every text of the table in both of NCCL's formats (CONSTRUCTED from NVIDIA/nccl src/include/checks.h CUDACHECK and
# CUCHECK, as PyTorch prints ncclGetLastError() after "Last error:"); rows before it keep theirs
@pytest.mark.parametrize("text", [t for t in CUDA_ERRORS if t != "driver shutting down"])
def test_every_status_text_after_last_error_reads_as_its_table_row(text):
    for line in (f"Last error: Cuda failure '{text}'", f"Cuda failure 999 '{text}'", f"[rank3]: Cuda failure '{text}'"):
        f = Classifier().classify(line)
        assert f is not None and f.details["cuda_error"] == text, line
        assert (f.kind, f.severity, f.attribution, f.action) == cuda_reading(text), line


def test_ollamas_echo_of_its_runners_cuda_error_is_that_errors_event():
    found = _findings(OLLAMA)  # was: a second cuda_error
    assert [f.kind for f in found] == ["cuda_error"]
    assert found[0].details["cu_status"] == 700


def test_ollamas_echo_alone_is_the_error_it_quotes():
    f = Classifier().classify(OLLAMA[3])  # the runner's lines lost
    assert _reading(f) == ("cuda_error", *CUDA_ERRORS["an illegal memory access was encountered"])
    assert f.details["cu_status"] == 700
