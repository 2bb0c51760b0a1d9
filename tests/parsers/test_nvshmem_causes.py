"""NVSHMEM's error chain read by its cause where its first line says it: its IB transports failing to move a queue
pair to the peer's (ibv_modify_qp) because the local NIC cannot reach the peer's (the fabric's nccl_error, as NCCL's
own line is, tests/parsers/test_cuda_driver_2026.py), the CUDA driver's cuMem call out of GPU memory (cuda_oom), a
limit of NVSHMEM's own configuration (the job's).  Lines marked REAL are copied verbatim from the public source beside
them (tests/fixtures/realworld/jobs-nvshmem-ib-2026.yaml and jobs-nvshmem-limits-2026.yaml hold them in context)."""

from __future__ import annotations

from parsers import Classifier

# REAL: https://github.com/deepseek-ai/DeepEP/issues/38 (NVSHMEM's IBRC over RoCE)
IBRC_110 = "/work/nvshmem_src/src/modules/transport/ibrc/ibrc.cpp:418: non-zero status: 110 ibv_modify_qp failed "
# CONSTRUCTED from NVSHMEM's src/modules/transport/ibgda/ibgda.cpp (NVSHMEMI_NZ_ERROR_JMP's "non-zero status: %d "
# then its message "ibv_modify_qp init2rtr for dct failed.") under IBRC_110's build tree, ENETUNREACH's status
IBGDA_101 = ("/work/nvshmem_src/src/modules/transport/ibgda/ibgda.cpp:2503: non-zero status: 101 ibv_modify_qp "
             "init2rtr for dct failed.")
# CONSTRUCTED from IBRC_110 with EINVAL's status (a bad attribute, NVIDIA/nvshmem #21's uninitialized ah_attr)
IBRC_22 = IBRC_110.replace("110", "22")


def test_a_queue_pair_that_cannot_reach_its_peer_is_the_fabrics():
    for line, errno in ((IBRC_110, 110), (IBGDA_101, 101)):
        f = Classifier().classify(line)  # was: nccl_error, unknown, INVESTIGATE
        assert (f.kind, f.severity, f.attribution, f.action) == ("nccl_error", "error", "fabric", "CHECK_FABRIC")
        assert (f.details["errno"], f.details["ibv_call"]) == (errno, "ibv_modify_qp")


def test_another_status_of_the_same_call_stays_unknown():
    f = Classifier().classify(IBRC_22)
    assert (f.kind, f.attribution, f.action) == ("nccl_error", "unknown", "INVESTIGATE")


# REAL: https://github.com/deepseek-ai/DeepEP/issues/157 (mem_heap.cpp's cuMemCreate, CUresult 2)
CUMEM_OOM = "/nvshmem/src/host/mem/mem_heap.cpp:1509: non-zero status: 2 cuMemCreate failed "
# CONSTRUCTED from CUMEM_OOM with CUDA_ERROR_INVALID_VALUE's status (1): no out of memory
CUMEM_INVALID = CUMEM_OOM.replace("status: 2", "status: 1")
# REAL: https://github.com/NVIDIA/nvshmem/issues/100 (NVSHMEM 3.7)
TEAMS = ("/dvs/p4/build/sw/rel/gpgpu/toolkit/r13.2/main_nvshmem/src/host/team/team_internal.cpp:1821: error status: 2 "
         "(NVSHMEMX_ERROR_OUT_OF_MEMORY) No more teams available (max = 7), try setting NVSHMEM_MAX_TEAMS environment "
         "variable")
# CONSTRUCTED from NVSHMEM's src/host/mem/mem_heap.cpp (allocate_symmetric_memory's NVSHMEMI_ERROR_EXIT:
# "<file>:<function>:<line>: " then its message) under CUMEM_OOM's build tree
HEAP = ("/nvshmem/src/host/mem/mem_heap.cpp:allocate_symmetric_memory:2266: nvshmem malloc failed (hint: check if "
        "total allocation has exceeded NVSHMEM symmetric size = 1073741824, NVSHMEM symmetric size can be increased "
        "using NVSHMEM_SYMMETRIC_SIZE environment variable) ")


def test_a_cumem_call_out_of_memory_is_the_jobs_cuda_oom():
    f = Classifier().classify(CUMEM_OOM)  # was: nccl_error, unknown, INVESTIGATE
    assert (f.kind, f.severity, f.attribution) == ("cuda_oom", "error", "application")
    other = Classifier().classify(CUMEM_INVALID)
    assert (other.kind, other.attribution) == ("nccl_error", "unknown")


def test_a_limit_of_nvshmems_own_settings_is_the_jobs_configuration():
    for line, setting in ((TEAMS, "NVSHMEM_MAX_TEAMS"), (HEAP, "NVSHMEM_SYMMETRIC_SIZE")):
        f = Classifier().classify(line)  # was: unknown, INVESTIGATE
        assert (f.kind, f.severity, f.attribution, f.action) == ("nccl_error", "error", "application", "CHECK_APP")
        assert f.details["nvshmem_setting"] == setting
