"""NCCL's own failures in jobs' logs, NCCL 2.18-2.28 (parsers/rules.py, the NCCL rows): NCCL's GPU memory allocation
failing is the job out of GPU memory (cuda_oom), its calloc's line after it the same failure; a CUDA driver call at
the process's exit is no finding, in either of NCCL's wordings.  Lines marked REAL are copied verbatim from the public
source beside them (tests/fixtures/realworld/nccl-2026k.yaml holds them in context); lines marked SOURCE are NCCL's
format strings (src/include/checks.h, src/include/cudawrap.h, src/include/alloc.h) filled in, a test, never a sample."""

from __future__ import annotations

import pytest

from parsers import Classifier

# REAL: https://github.com/vllm-project/vllm/issues/25597 (NCCL 2.2x, B200, the driver's cuMem path: status 2)
CUMEM_OOM = ("2025-09-24T03:57:03.905654827Z [2025-09-23 23:57:03] vllm-deepseek-ep-decode-0:1673:9080 [0] "
             "include/alloc.h:228 NCCL WARN Cuda failure 2 'out of memory'")
# REAL: https://github.com/NVIDIA/nccl/issues/962 (NCCL 2.18.1, the runtime's cudaMalloc, then its calloc's line)
RT_OOM = "node:2134736:2285781 [0] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'"
CALLOC = "node:2134736:2285781 [0] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes"
# SOURCE: 2.2x's async calloc (src/include/alloc.h ncclCudaCallocAsync) and NCCL's 2.30 prefix with the function
CALLOC_ASYNC = "host:1:2 [0] include/alloc.h:346 NCCL WARN Failed to CUDA calloc async 4096 bytes"
CUMEM_OOM_230 = "host:1:2 [0] include/alloc.h:320 (ncclCuMemAlloc) NCCL WARN Cuda failure 2 'out of memory'"
# SOURCE: CUCHECK's wording of CUDA_ERROR_DEINITIALIZED (4) at the process's exit; the runtime's, REAL, is NCCL_FREE of
# tests/parsers/test_exit_cuda.py
CUMEM_EXIT = "host:1:2 [0] include/alloc.h:250 NCCL WARN Cuda failure 4 'driver shutting down'"
# REAL: https://github.com/NVIDIA/nccl/issues/1562 (another status stays NCCL's error)
INVALID = "gpu46:78367:78492 [0] transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'"


def test_nccls_allocation_out_of_memory_is_the_jobs_out_of_memory():
    for line in (CUMEM_OOM, RT_OOM, CUMEM_OOM_230):
        f = Classifier().classify(line)
        assert (f.kind, f.severity, f.attribution, f.action) == ("cuda_oom", "error", "application", "RESTART_APP"), line
        # was: nccl_error, warning, unknown


def test_the_calloc_line_after_it_is_the_same_failure_and_alone_stays_a_warning():
    c = Classifier()
    first, _ = c.read(RT_OOM)
    second, _ = c.read(CALLOC)
    assert first.kind == "cuda_oom" and second is None
    for line in (CALLOC, CALLOC_ASYNC):  # alone: its cause unknown, NCCL's warning as before
        f = Classifier().classify(line)
        assert (f.kind, f.severity) == ("nccl_error", "warning"), line


def test_other_statuses_and_the_exits_driver_calls_keep_their_rows():
    f = Classifier().classify(TEARDOWN_CUDA)  # 'invalid argument' outside nvls.cc
    assert (f.kind, f.severity) == ("nccl_error", "warning")
    assert Classifier().classify(CUMEM_EXIT) is None  # was: an nccl_error warning


# REAL: https://github.com/pytorch/pytorch/pull/155740 (NCCL 2.27, a communicator destroyed after its watchdog joined:
# a CUDA call of the teardown fails, then commReclaim reports the cleanup it failed)
TEARDOWN_CUDA = ("[2025-06-17 21:49:04] devvm5552:3355146:3355146 [0] transport/p2p.cc:1128 NCCL WARN Cuda failure 1 "
                 "'invalid argument'")
RECLAIM = ("[2025-06-17 21:49:04] devvm5552:3355146:3355146 [0] init.cc:2143 NCCL WARN commReclaim: cleanup comm "
           "0x9801e10 rank 0 failed in destroy/abort, error 1")
# REAL: https://github.com/microsoft/mscclpp/pull/760 (at every exit of a job under mscclpp's interposed NCCL)
RECLAIM_EXIT = "NCCL WARN commReclaim: cleanup comm 0x55a0dcadaa90 rank 3 failed in destroy/abort, error 3"
# SOURCE: NCCL src/init.cc commReclaim, 2.14-2.17 ("in abort") and 2.18+ ("in commDestroySync"), filled in
RECLAIM_ABORT = "host:1:2 [0] init.cc:1800 NCCL WARN commReclaim: comm 0x5581c0e0 (rank = 2) in abort, error 6"
RECLAIM_SYNC = "host:1:2 [0] init.cc:2130 NCCL WARN commReclaim: comm 0x5581c0e0 (rank = 2) in commDestroySync, error 1"


def test_a_communicators_failed_reclaim_is_its_teardown_and_the_cause_keeps_its_line():
    for line in (RECLAIM, RECLAIM_EXIT, RECLAIM_ABORT, RECLAIM_SYNC):
        assert Classifier().classify(line) is None, line  # was: an nccl_error warning, a second one of each failure
    c = Classifier()
    f = c.classify(TEARDOWN_CUDA)
    assert (f.kind, f.severity) == ("nccl_error", "warning")
    assert c.classify(RECLAIM) is None


# REAL (tests/fixtures/realworld/jobs-nvls-2026p.yaml): NCCL 2.26's CUCHECK of cuMulticastAddDevice (NVIDIA/nccl #1788)
# and NCCL 2.29's own words for the same failure (pytorch/pytorch PR #177472)
NVLS_226 = ("[2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 401 'the "
            "operation cannot be performed in the present state'")
NVLS_229 = ("Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot "
            "be performed in the present state'. ")


def test_nvls_multicast_that_cannot_be_bound_is_the_nodes_fabric_in_either_era():
    for line in (NVLS_226, NVLS_229):
        f = Classifier().classify(line)
        assert (f.kind, f.severity, f.attribution, f.action) == ("driver_unusable", "error", "fabric",
                                                                 "CHECK_FABRIC_MANAGER"), line
        assert f.details["driver_error"] == "the operation cannot be performed in the present state"
        # was: nccl_error, a warning (2.26); the generic nvlink row's GPU hardware fault (2.29)



# REAL: NVLS's CUCHECKs failing 'invalid argument' or 'unknown error' in every NCCL era, the Fabric Manager's state in
# each report that found a cause (NVIDIA/nccl #976 2.18's line without the number, #1562, #1672; nccl-tests #276, its
# closing quote lost in the paste)
NVLS_INVALID = [INVALID,
                "transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'",
                "[2025-04-06 22:31:56] ccw-gpu-128:3485254:3487188 [0] transport/nvls.cc:598 NCCL WARN Cuda failure 1 "
                "'invalid argument'",
                "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error"]


@pytest.mark.parametrize("line", NVLS_INVALID)
def test_nvls_multicast_set_up_failing_invalid_or_unknown_is_the_nodes_fabric(line):
    f = Classifier().classify(line)
    assert (f.kind, f.severity, f.attribution, f.action) == ("driver_unusable", "error", "fabric",
                                                             "CHECK_FABRIC_MANAGER"), line
    assert f.details["driver_error"] in ("invalid argument", "unknown error")
    # was: nccl_error, a warning
