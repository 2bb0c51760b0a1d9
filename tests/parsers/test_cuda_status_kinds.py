"""A CUDA status that is the pod's GPU access (no device: cudaErrorNoDevice, 100, 38 before CUDA 10.1; refused:
cudaErrorDevicesUnavailable, 46) is kind gpu_access_lost (46: gpu_busy) in every framework's words: one decision, the
status's row of parsers/rules.py CUDA_ERRORS, read by every row that refines a CUDA status (was: cuda_error, the node's
driver; 46 RESET_GPU, 100 INVESTIGATE; then 46 gpu_access_lost, RESTART_APP). The real lines are
tests/fixtures/realworld/jobs-gpu-access-2026.yaml and jobs-cuda-busy-2026s.yaml; these are CONSTRUCTED from each
wrapper's format string, as named beside it."""

from __future__ import annotations

import pytest

from parsers import Classifier
from parsers.kinds import BY_NAME as KIND
from parsers.rules import CUDA_ERRORS, cuda_reading

NO_DEVICE, BUSY = "no CUDA-capable device is detected", "CUDA-capable device(s) is/are busy or unavailable"
# (format, the status's text) -> one line per wrapper, CONSTRUCTED from its source's format
FORMATS = [
    # NVIDIA/nccl src/include/checks.h CUDACHECK ("Cuda failure '%s'") and CUCHECK ("Cuda failure %d '%s'") in a WARN
    "host:1:2 [0] init.cc:1200 NCCL WARN Cuda failure '{text}'",
    "host:1:2 [0] init.cc:1200 NCCL WARN Cuda failure {code} '{text}'",
    # PyTorch's quote of NCCL's last error (ProcessGroupNCCL: "Last error:\n" + ncclGetLastError())
    "Last error: Cuda failure '{text}'",
    # the CUDA samples' checkCudaErrors (helper_cuda.h: "CUDA error at %s:%d code=%d(%s) \"%s\"")
    'CUDA error at simpleP2P.cu:63 code={code}({name}) "cudaGetDeviceCount(&gpu_n)"',
    # TensorRT-LLM's check_cuda_error (cudaUtils.h: "[TensorRT-LLM][ERROR] CUDA runtime error in %s: %s (%s:%d)")
    "RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in cudaGetDeviceCount(&deviceCount): {text} "
    "(/app/tensorrt_llm/cpp/tensorrt_llm/runtime/utils/mpiUtils.cpp:95)",
    # TensorRT's "Cuda Error in <call>: <n> (<text>)" and "Error Code 1: Cuda Runtime (<text>)" (the shapes of NVIDIA/
    # TensorRT #1173's and #2266's real lines): a text with parentheses of its own read whole
    "[03/08/2021-11:02:17] [E] [TRT] ../rtExt/cuda/cudaFusedConvActRunner.cpp (302) - Cuda Error in executeFused: "
    "{code} ({text})",
    "[TRT] [E] 1: [defaultAllocator.cpp::allocate::20] Error Code 1: Cuda Runtime ({text})",
    # PyTorch's C10_CUDA_CHECK ("CUDA error: %s") and CuPy's CUDARuntimeError ("%s: %s", name and text)
    "RuntimeError: CUDA error: {text}",
    "cupy_backends.cuda.api.runtime.CUDARuntimeError: {name}: {text}",
]
STATUSES = [(100, "cudaErrorNoDevice", NO_DEVICE, "gpu_access_lost"),
            (46, "cudaErrorDevicesUnavailable", BUSY, "gpu_busy"),
            (46, "cudaErrorDevicesUnavailable", "all CUDA-capable devices are busy or unavailable", "gpu_busy")]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("code,name,text,kind", STATUSES)
def test_the_status_is_its_kind_in_every_wrappers_words(fmt, code, name, text, kind):
    line = fmt.format(code=code, name=name, text=text)
    f = Classifier().classify(line)
    row = KIND[kind]
    assert f is not None and (f.kind, f.severity, f.attribution, f.action) == (
        kind, row.severity, row.attribution, row.action), line


def test_the_table_names_the_kind_once_per_status_and_its_reading_is_the_kinds():
    """The kind stands in the table (no row of its own per framework); a status the table gives three values for
    keeps the row's kind."""
    for kind, texts in (("gpu_access_lost", (NO_DEVICE, "cudaErrorNoDevice")),
                        ("gpu_busy", (BUSY, "cudaErrorDevicesUnavailable", "CUDA_ERROR_DEVICE_UNAVAILABLE"))):
        for text in texts:
            assert CUDA_ERRORS[text] == kind
            assert cuda_reading(text)[0] == kind


def test_busy_is_not_restarted_nor_blamed_on_the_driver_when_it_repeats():
    """46 is a process holding the GPU: a restarted pod fails again while it lives, and its repeat is a GPU held, not
    the driver stack (were: gpu_access_lost's RESTART_APP and GPUDriverDegraded / CHECK_DRIVER)."""
    row = KIND["gpu_busy"]
    assert row.action == "CHECK_GPU_PROCESSES" and row.pod_holds_gpus
    assert (row.repeated.condition, row.repeated.action) == ("GPUDegraded", "CHECK_GPU_PROCESSES")
    assert cuda_reading("an illegal memory access was encountered") == ("cuda_error", "error", "application",
                                                                        "RESTART_APP")
    assert cuda_reading("not a CUDA status") is None


def test_a_cpu_only_tensorflows_cuinit_stays_silent():
    """TensorFlow's "failed call to cuInit: CUDA_ERROR_NO_DEVICE: .." (every CPU-only container's start) names no
    wrapper a row reads (REAL: tensorflow/tensorflow #62494)."""
    line = ("2023-11-28 16:42:02.591947: E tensorflow/stream_executor/cuda/cuda_driver.cc:328] failed call to cuInit: "
            "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected")
    assert Classifier().classify(line) is None
