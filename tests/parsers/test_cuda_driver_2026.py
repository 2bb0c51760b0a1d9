"""PyTorch's "CUDA driver error: <text>" (C10_CUDA_DRIVER_CHECK: symmetric memory, 2.5+) read as its "CUDA error:
<text>", "invalid device ordinal" (cudaErrorInvalidDevice) the job's configuration in every wrapper's words, and NET/IB's
queue pair that cannot reach its peer's (ibv_modify_qp timing out or unreachable) the fabric's, a buffer the NIC refused
to register (ibv_reg_mr, ibv_reg_mr_iova2, ibv_reg_dmabuf_mr) the node's driver stack.  Lines
marked REAL are copied verbatim from the public source beside them (tests/fixtures/realworld/jobs-cuda-driver-2026.yaml
holds them in context)."""

from __future__ import annotations

from parsers import Classifier
from parsers.rules import CUDA_ERRORS

# REAL: https://github.com/pytorch/torchtitan/issues/1475
DRIVER_INVALID = "  RuntimeError: CUDA driver error: invalid argument"
# REAL: https://github.com/yifuwang/symm-mem-recipes/issues/1
DRIVER_UNSUPPORTED = "[rank0]: RuntimeError: CUDA driver error: operation not supported"
# REAL: https://github.com/pytorch/pytorch/issues/137145
DRIVER_OOM = "[rank0]: RuntimeError: CUDA driver error: out of memory"
# REAL: https://github.com/pytorch/pytorch/issues/167537
DRIVER_802 = "[rank0]: RuntimeError: CUDA driver error: system not yet initialized"
# REAL: the title of https://github.com/NVIDIA/nccl/issues/1948 (NCCL 2.28.9)
NCCL_101 = "transport/p2p.cc:275 NCCL WARN Cuda failure 101 'invalid device ordinal'"
# REAL: https://github.com/NVIDIA/nccl-tests/issues/263
NCCL_TESTS = "g0010: Test CUDA failure common.cu:941 'invalid device ordinal'"
# REAL: https://github.com/NVIDIA/nccl-tests/issues/2 (NCCL 2.0's nccl-tests; the poster's quote marks)
NCCL_TESTS_2017 = ">> Cuda failure common.cu:891 'invalid device ordinal'"
# REAL: https://github.com/NovaSearch-Team/RAG-Retrieval/issues/27
TORCH = "[rank5]: RuntimeError: CUDA error: invalid device ordinal"
# REAL: the title of https://github.com/NVIDIA/semantic-segmentation/issues/10 (THC)
THC = "RuntimeError: cuda runtime error (10) : invalid device ordinal"


def test_a_driver_api_check_is_the_jobs_cuda_error_with_its_text():
    for line, text, rank in ((DRIVER_INVALID, "invalid argument", None),
                             (DRIVER_UNSUPPORTED, "operation not supported", 0)):
        f = Classifier().classify(line)  # was: nothing
        assert (f.kind, f.severity, f.attribution, f.rank) == ("cuda_error", "error", "unknown", rank)
        assert f.details["cuda_error"] == text


def test_a_driver_api_check_out_of_memory_is_the_jobs_and_802_stays_the_nodes():
    oom = Classifier().classify(DRIVER_OOM)  # was: nothing
    assert (oom.kind, oom.attribution, oom.rank) == ("cuda_oom", "application", 0)
    assert Classifier().classify(DRIVER_802).kind == "driver_unusable"


def test_invalid_device_ordinal_is_the_jobs_configuration_in_every_wrappers_words():
    assert CUDA_ERRORS["invalid device ordinal"] == CUDA_ERRORS["cudaErrorInvalidDevice"]
    for line in (NCCL_101, NCCL_TESTS, NCCL_TESTS_2017, TORCH, THC):
        f = Classifier().classify(line)  # was: unknown, INVESTIGATE; NCCL's numbered form an nccl_error warning
        assert (f.kind, f.severity, f.attribution, f.action) == ("cuda_error", "error", "application", "CHECK_APP"), line
        assert f.details["cuda_error"] == "invalid device ordinal"


def test_nccls_numbered_cuda_failure_of_another_text_stays_its_warning():
    # CONSTRUCTED from NCCL_101's shape (src/include/checks.h CUDACHECK: "Cuda failure %d '%s'"): a text no row lists
    f = Classifier().classify("transport/p2p.cc:1128 NCCL WARN Cuda failure 1 'invalid argument'")
    assert (f.kind, f.severity) == ("nccl_error", "warning")


# REAL: https://github.com/NVIDIA/nccl/issues/2013 (NCCL 2.27; the poster's redactions)
QP_227 = ("[2026-03-13 22:26:02] host-01.example.com:XXXXXX [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed "
          "with 110 Connection timed out, on dev mlx_x:1, curr state INIT, next state RTR, local GID index 3, local GID "
          "::ffff:xxx.xx.xx.xx, remote GID ::ffff:xxx.xx.xxx.xx")
# REAL: the title of https://github.com/NVIDIA/nccl-tests/issues/185
QP_UNREACHABLE = "misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable"
# REAL: https://github.com/NVIDIA/nccl/issues/562 (NCCL 2.8.3; workload-frameworks.yaml holds it in context)
CREATE_QP = "hai-a100-3:3778851:3779883 [4] ibvwrap.c:130 NCCL WARN Call to ibv_create_qp failed"


def test_a_queue_pair_that_cannot_reach_its_peer_is_the_fabrics_in_every_era():
    f = Classifier().classify(QP_227)  # was: the NCCL WARN row's warning, unknown
    assert (f.kind, f.severity, f.attribution, f.action) == ("nccl_error", "error", "fabric", "CHECK_FABRIC")
    assert (f.details["ibv_error"], f.details["errno"], f.details["ib_dev"], f.details["qp_next"]) == (
        "Connection timed out", 110, "mlx_x", "RTR")
    old = Classifier().classify(QP_UNREACHABLE)
    assert (old.severity, old.attribution, old.details["ibv_error"]) == ("error", "fabric", "Network is unreachable")


def test_another_verbs_calls_failure_stays_nccls_warning():
    f = Classifier().classify(CREATE_QP)
    assert (f.kind, f.severity, f.attribution) == ("nccl_error", "warning", "unknown")


# REAL: https://github.com/NVIDIA/nccl/issues/1842 (two A100 nodes, driver 470; the trailing space is the issue's)
REG_MR_IOVA2 = "misc/ibvwrap.cc:182 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Invalid argument "
# REAL: https://github.com/NVIDIA/nccl/issues/778 (NCCL 2.13, nccl-tests on two nodes)
REG_DMABUF = "misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not supported"
# REAL: https://github.com/modelscope/ms-swift/issues/6107 (NCCL 2.26+'s stamp, the host:pid:tid prefix)
REG_MR_STAMPED = ("[2025-10-13 10:12:54] iv-ydin754tmoxjd1twgixh:1458548:1480527 [0] misc/ibvwrap.cc:182 NCCL WARN "
                  "Call to ibv_reg_mr_iova2 failed with error Invalid argument")


def test_a_buffer_the_nic_refused_to_register_is_the_nodes_driver_stack_in_every_call():
    for line, call, error in ((REG_MR_IOVA2, "ibv_reg_mr_iova2", "Invalid argument"),
                              (REG_DMABUF, "ibv_reg_dmabuf_mr", "Operation not supported"),
                              (REG_MR_STAMPED, "ibv_reg_mr_iova2", "Invalid argument")):
        f = Classifier().classify(line)  # was: the NCCL WARN row's warning, unknown
        assert (f.kind, f.severity, f.attribution) == ("nccl_error", "error", "driver"), line
        assert (f.details["ibv_call"], f.details["ibv_error"]) == (call, error)
    # CONSTRUCTED from the same IBV_PTR_CHECK_ERRNO (src/misc/ibvwrap.cc: "Call to ibv_reg_mr failed with error %s"),
    # the call NCCL makes where rdma-core has no ibv_reg_mr_iova2
    plain = Classifier().classify("misc/ibvwrap.cc:170 NCCL WARN Call to ibv_reg_mr failed with error Bad address")
    assert (plain.severity, plain.attribution, plain.details["ibv_call"]) == ("error", "driver", "ibv_reg_mr")
