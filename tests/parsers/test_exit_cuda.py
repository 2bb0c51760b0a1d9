"""CUDA's "driver shutting down" (cudaErrorCudartUnloading): a CUDA call made while the process exits, after its
runtime unloaded.  The program's exit order, never the GPU's or the node's; PyTorch's watchdog saying it caught one
and ended is no finding at all, nor are NCCL's frees failing so.  Lines marked REAL are copied verbatim from the
public source beside them (tests/fixtures/realworld/jobs-exit-2026j.yaml holds them in context)."""

from __future__ import annotations

from parsers import Classifier

# REAL: https://github.com/HPDL-Group/Merak/issues/3 (ProcessGroupNCCL's cleanup loop at exit, PyTorch 1.13)
TORCH_WHAT = "  what():  CUDA error: driver shutting down"
# REAL: https://github.com/NVIDIA/Fuser/issues/2497 (PyTorch 2.4's watchdog ending on it, an INFO line)
WATCHDOG_ENDS = ("[I628 20:15:42.000370615 ProcessGroupNCCL.cpp:1501] [PG  Rank 1] main process destroyed cuda before "
                 "watchdog loop exited, terminating watchdog. (Watchdog caught exception: CUDA error: driver shutting "
                 "down")
# REAL: https://github.com/NVIDIA/nccl/issues/1485 (NCCL's free at the exit after an out-of-memory)
NCCL_FREE = "node2:24881:25568 [0] include/alloc.h:250 NCCL WARN Cuda failure 'driver shutting down'"
# REAL: https://github.com/taishan1994/BERT-BILSTM-CRF/issues/42 (PyTorch's CUDAGuard at exit)
GUARD = "[W CUDAGuardImpl.h:46] Warning: CUDA warning: driver shutting down (function uncheckedGetDevice)"
# REAL: https://github.com/sgl-project/sglang/issues/3713 (an illegal address: the job's kernel, an error as ever)
ILLEGAL = "RuntimeError: CUDA error: an illegal memory access was encountered"


def test_the_exit_time_cuda_error_is_the_programs_not_the_gpus():
    f = Classifier().classify(TORCH_WHAT)
    assert (f.kind, f.severity, f.attribution, f.details["cuda_error"]) == (
        "cuda_error", "error", "application", "driver shutting down")  # was: unknown, INVESTIGATE


def test_the_watchdogs_end_nccls_frees_and_the_guards_warning_are_no_finding():
    for line in (WATCHDOG_ENDS, NCCL_FREE, GUARD):  # were: a cuda_error (error), an nccl_error (warning), nothing
        assert Classifier().classify(line) is None, line


def test_any_other_cuda_error_keeps_its_attribution():
    f = Classifier().classify(ILLEGAL)
    assert (f.kind, f.attribution) == ("cuda_error", "application")
