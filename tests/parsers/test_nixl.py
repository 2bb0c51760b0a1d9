"""NIXL (ai-dynamo/nixl, the KV-cache transfer library of disaggregated prefill/decode serving) failing a call, in its
Python binding's exception and its C++ log's status line: NIXL_ERR_REMOTE_DISCONNECT (and NIXL 0.2-0.3's warning of
UCX's peer failure) the peer's connection gone, a remote error; any other status NIXL's nccl_error named by it. And
UCX's completion error in the interface's shared words (EFA's SRD transport under NIXL): the fabric's completion
error, its status and device.  Lines marked REAL are copied verbatim from the public source beside them
(tests/fixtures/realworld/jobs-nixl-2026.yaml holds them in context)."""

from __future__ import annotations

from parsers import Classifier
from parsers.kinds import BY_NAME, named_as

# REAL: https://github.com/ai-dynamo/dynamo/issues/1108
BACKEND_PY = "nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND"
# REAL: https://github.com/sgl-project/sglang/pull/27894
BACKEND_LOG = ("E0717 07:30:06.719655  994396 nixl_agent.cpp:359] createBackend: backend 'UCX' encountered error "
               "during intra-agent transfer setup with status NIXL_ERR_BACKEND")
# REAL: https://github.com/wtdcode/vllm-backport/issues/33 (the exception all 4 decode TP workers raised)
DISCONNECT_PY = "nixlRemoteDisconnectError: NIXL_ERR_REMOTE_DISCONNECT"
# CONSTRUCTED from nixl's src/bindings/python/nixl_bindings.cpp under a CUDA build's wheel (nixl_cu12, the module
# vLLM's tracebacks name), with DISCONNECT_PY's status
DISCONNECT_CU12 = "nixl_cu12._bindings." + DISCONNECT_PY
# REAL: https://github.com/LMCache/LMCache/issues/725 (NIXL 0.2-0.3's ucx_utils.cpp)
ENDPOINT_TIMEOUT = "W0613 08:28:11.555796    7053 ucx_utils.cpp:43] Unexpected UCX error: Endpoint timeout"
# REAL: https://github.com/sgl-project/sglang/pull/27894 (before BACKEND_LOG: the status line after it is the finding)
UCX_OOM = "W0717 07:30:06.719567  994396 ucx_enums.cpp:58] Unexpected UCX error: Out of memory"
# REAL: https://github.com/ai-dynamo/nixl/issues/1983 (EFA's SRD transport, a prefill pod of SGLang on B200)
SRD = ("[1784621081.896649] [kimi-k2-7-disagg-on-sp-v1-prefill-92c6hc-07210529-x04q3qgn-pod:537  :1]       "
       "srd_iface.c:221  UCX  ERROR send completion[0] with error on rdmap132s0/0x55cf4425cfb0: Work Request Flushed "
       "Error, vendor_err 0x1 wr_id 0x7f8b20022480")
# CONSTRUCTED from UCX's src/uct/ib/base/ib_iface.h (UCT_IB_IFACE_VERBS_COMPLETION_FATAL("receive", ..), rc_verbs_impl.h
# line 104) with rc_verbs' retries exceeded
RECEIVE = ("[node1:1234:0:1234] rc_verbs_impl.h:104 Fatal: receive completion[3] with error on mlx5_0/0x1e3f0a0: "
           "transport retry counter exceeded, vendor_err 0x81 wr_id 0x7f00aa001000")
# REAL: https://github.com/ai-dynamo/nixl/pull/656 (NIXL's start)
INFO = ("I0801 15:40:05.041813    1049 nixl_plugin_manager.cpp:316] Discovered and loaded plugin: UCX",
        "I0801 15:40:04.429156    1049 nixl_agent.cpp:92] NIXL ETCD is disabled")


def _alone(line):
    c = Classifier()
    return c.classify(line)


def test_a_nixl_status_is_nixls_error_named_by_it():
    for line in (BACKEND_PY, BACKEND_LOG):
        f = _alone(line)  # was: nothing
        assert (f.kind, f.severity, f.details["nixl_status"]) == ("nccl_error", "error", "NIXL_ERR_BACKEND")
        assert named_as(BY_NAME["nccl_error"].named, f) == "NIXL error 'NIXL_ERR_BACKEND'"


def test_a_remote_disconnect_is_the_peers_connection_gone():
    for line in (DISCONNECT_PY, DISCONNECT_CU12):
        f = _alone(line)  # was: nothing
        assert (f.kind, f.details["nixl_status"]) == ("nccl_remote_error", "NIXL_ERR_REMOTE_DISCONNECT")
    f = _alone(ENDPOINT_TIMEOUT)  # NIXL's older warning of the same peer failure; was: nothing
    assert (f.kind, f.details["ucx_error"]) == ("nccl_remote_error", "Endpoint timeout")


def test_ucxs_other_statuses_in_nixls_words_are_left_to_the_status_after_them():
    assert _alone(UCX_OOM) is None
    c = Classifier()
    found = [c.classify(line) for line in (UCX_OOM, BACKEND_LOG, BACKEND_PY)]
    # one failure: the C++ line, then the binding's exception of the same call, one event
    assert [f.kind for f in found if f] == ["nccl_error"]


def test_ucxs_completion_in_the_interfaces_words_names_its_status_and_device():
    f = _alone(SRD)  # was: nothing
    assert (f.kind, f.attribution) == ("ib_completion_error", "fabric")
    assert (f.details["wc_status"], f.details["netdev"], f.details["vendor_err"]) == ("IBV_WC_WR_FLUSH_ERR",
                                                                                      "rdmap132s0", 1)
    f = _alone(RECEIVE)
    assert (f.kind, f.details["wc_status"], f.details["netdev"]) == ("ib_completion_error", "IBV_WC_RETRY_EXC_ERR",
                                                                     "mlx5_0")


def test_nixls_start_stays_silent():
    assert [_alone(line) for line in INFO] == [None, None]
