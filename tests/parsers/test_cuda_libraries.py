"""A failed CUDA call as the GPU libraries beyond PyTorch word it (tests/fixtures/realworld/jobs-cuda-2026g.yaml): the
kind and attribution each status is, whichever library's words carry it."""

from __future__ import annotations

import pytest
import realworld

LINES = {
    # numba/numba #7769: status 700 under an old Numba's UNKNOWN_CUDA_ERROR: an illegal address, the application's
    "numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuCtxSynchronize results in UNKNOWN_CUDA_ERROR":
        ("cuda_error", "application", "CUDA_ERROR_ILLEGAL_ADDRESS"),
    # chainer/chainer #748: CuPy's runtime error by the enum name of an out of memory
    "cupy.cuda.runtime.CUDARuntimeError: cudaErrorMemoryAllocation: out of memory": ("cuda_oom", "application", None),
    # mpi4jax/mpi4jax #106
    "\tError 2 cudaErrorMemoryAllocation: out of memory---------------------------------------------------------------"
    "-----------": ("cuda_oom", "application", None),
    # rapidsai/dask-cuda #225
    "numba.cuda.cudadrv.driver.CudaAPIError: [2] Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY":
        ("cuda_oom", "application", None),
    # marian-nmt/marian #383 (the title): cuBLAS's status by its number alone, named
    "Error: Cublas Error: 13": ("cuda_error", "unknown", "CUBLAS_STATUS_EXECUTION_FAILED"),
    # bitsandbytes-foundation/bitsandbytes #383, NVIDIA/CUDALibrarySamples #277: the cuBLASLt samples' checkCublasStatus()
    # by number (was nothing); its "CuBLAS .., <line>, <file>" variant CONSTRUCTED from the copies' printf
    "cuBLAS API failed with status 15": ("cuda_error", "application", "CUBLAS_STATUS_NOT_SUPPORTED"),
    "cuBLAS API failed with status 1": ("cuda_error", "unknown", "CUBLAS_STATUS_NOT_INITIALIZED"),
    "CuBLAS API failed with status 13, 88, helpers.h": ("cuda_error", "unknown", "CUBLAS_STATUS_EXECUTION_FAILED"),
    # mozilla/translations #1002: Marian's status by number and text; the text decides, the node's driver
    "[2025-01-21 16:30:37] Error: CUDA error 999 'unknown error' - /builds/worker/fetches/marian-source/src/tensors/gpu/"
    "algorithm.cu:54: cudaStreamSynchronize(0)": ("cuda_error", "driver", "unknown error"),
    # ggml-org/llama.cpp #3199: llama.cpp 2023's status 2 by number, the file and line before its text: the job's memory
    "CUDA error 2 at /data/llama.cpp/ggml-cuda.cu:5509: out of memory": ("cuda_oom", "application", None),
    # CONSTRUCTED from caffe_cuda_check's Caffe2 shape (pytorch/pytorch #8979: no "(N vs. 0)") with status 2's text,
    # cudaGetErrorString(cudaErrorMemoryAllocation): the job's memory as Caffe's numbered check is
    "Check failed: error == cudaSuccess out of memory": ("cuda_oom", "application", None),
    # JuliaGPU/CUDAdrv.jl #210: the text without Julia's number and name after it
    "\u2502    CUDA error: unknown error (code 999, ERROR_UNKNOWN)": ("cuda_error", "driver", "unknown error"),
    # sasha0552/pascal-pkgs-ci #50: a kernel configuration the GPU model cannot hold
    "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 49152. "
    "Reducing block sizes or `num_stages` may help.": ("cuda_error", "application", "out of resource: shared memory"),
}


@pytest.mark.parametrize("line", sorted(LINES))
def test_library_status_kind_and_attribution(line):
    kind, attribution, error = LINES[line]
    found = realworld.findings(line + "\n")
    assert [(f.kind, f.attribution) for f in found] == [(kind, attribution)]
    if error:
        assert found[0].details["cuda_error"] == error
