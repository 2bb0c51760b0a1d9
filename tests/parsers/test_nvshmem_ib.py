"""NVSHMEM's IB transports failing to move a queue pair to the peer's (ibv_modify_qp) because the local NIC cannot
reach the peer's: the fabric's nccl_error, as NCCL's own line is (tests/parsers/test_cuda_driver_2026.py).  Lines
marked REAL are copied verbatim from the public source beside them (tests/fixtures/realworld/jobs-nvshmem-ib-2026.yaml
holds them in context)."""

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
