"""(h472) PyTorch's NCCL exception quoting NET/IB's failed verbs registration after "Last error:" reads as NCCL's WARN of
it does (the node's GPUDirect RDMA set-up: nccl_error, attribution driver), one finding with that WARN; UCX's report
of the adapter's failing asynchronous events is the fabric's completion error, as NCCL's.

The quote's lines below are CONSTRUCTED: PyTorch's "Last error:" shape is REAL in tests/fixtures/realworld/
jobs-cuda-nccl-ggml-2026w.yaml (THUDM/slime #1305, alisson-anjos/diffusion-pipe-ui #10: the exception, "Last error:",
NCCL's last error alone on the next line) and the WARN's text REAL in jobs-cuda-driver-2026.yaml (NVIDIA/nccl #1842:
"misc/ibvwrap.cc:182 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Invalid argument "). A verbatim quote of it
("[rank18]: Last error:" then "[rank18]: Call to ibv_reg_mr failed with error Bad address", NCCL 2.21.5) is in a public
note the search index stores without its address: its words are used here, not called a sourced fixture. The UCX lines
are REAL, copied from the threads named beside them (tests/fixtures/realworld/jobs-ucx-async-2026x.yaml)."""

from __future__ import annotations

import pytest

from parsers import Classifier

WARN = "misc/ibvwrap.cc:182 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Invalid argument "  # REAL: nccl #1842
TRACE = "node-1:1458548:1480527 [0] NCCL INFO transport/net_ib.cc:1234 -> 2"  # CONSTRUCTED: NCCL's INFO trace shape
EXCEPTION = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
             "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
             "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.")


def _findings(lines):
    c = Classifier()
    return [f for f in (c.read(line)[0] for line in lines) if f is not None]


def _driver(found):
    return [(f.kind, f.severity, f.attribution, f.details.get("ibv_call"), f.details.get("ibv_error"))
            for f in found if f.attribution == "driver"]


@pytest.mark.parametrize("quote, rank", [
    (("Last error:", "Call to ibv_reg_mr failed with error Bad address"), None),
    (("[rank18]: Last error:", "[rank18]: Call to ibv_reg_mr failed with error Bad address"), 18),
])
def test_the_quote_alone_is_the_nodes_registration_failure_beside_the_exception(quote, rank):
    found = _findings(EXCEPTION + quote)  # was: the exception's nccl_error alone, unknown
    assert _driver(found) == [("nccl_error", "error", "driver", "ibv_reg_mr", "Bad address")]
    assert [f.rank for f in found if f.attribution == "driver"] == [rank]
    assert len(found) == 2  # and the exception's own


def test_the_quote_on_the_exceptions_own_line_reads_alike():
    (f,) = _findings(("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device "
                      "error. Last error: Call to ibv_reg_mr failed with error Bad address",))
    assert (f.kind, f.attribution, f.details["ibv_error"]) == ("nccl_error", "driver", "Bad address")


@pytest.mark.parametrize("line", [
    # NVIDIA/nccl-tests #206's title (the pod's "ulimit -l" 8192: raising it fixed it); 2.27+ "failed with <errno>"
    "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory",
    "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr failed with 12 Cannot allocate memory",
    "Call to ibv_reg_mr failed with error Cannot allocate memory",
])
def test_a_registration_refused_for_want_of_locked_memory_is_no_node_driver_finding(line):
    # the pod's memlock limit (triage.facts memlock_limit), not the node's GPUDirect RDMA set-up: no driver finding
    # on any node it runs on (was: an error, attribution driver)
    assert _driver(_findings((line,))) == []


def test_after_nccls_warn_of_it_the_quote_is_the_warns_event_not_a_second_finding():
    lines = (WARN, TRACE, TRACE, *EXCEPTION, "Last error:", "Call to ibv_reg_mr_iova2 failed with error Invalid argument")
    assert _driver(_findings(lines)) == [("nccl_error", "error", "driver", "ibv_reg_mr_iova2", "Invalid argument")]


def test_a_quote_of_another_error_after_the_warn_is_its_own_finding():
    lines = (WARN, *EXCEPTION, "Last error:", "Call to ibv_reg_mr failed with error Bad address")
    assert [d[4] for d in _driver(_findings(lines))] == ["Invalid argument", "Bad address"]


# REAL: openucx/ucx #891 (UCX's WARN, 2016), #1770 (UCX's ERROR, 2017), #1845 (an event of no failure)
UCX_891 = ("[1469476417.048329] [pod9:29127:0]      ib_device.c:132  UCX  WARN  IB Async event on mlx4_0: local access "
           "violation work queue error on QPN 0x17fef")
UCX_1770 = ("[1502987696.852541] [hpc-test-node2:36589:3]      ib_device.c:171  UCX  ERROR IB Async event on mlx5_0: DCT "
            "access error on DCTN 0x2a8a3")
UCX_1845 = ("[1505656948.510874] [juno000:88430:0]      ib_device.c:171  UCX  WARN  IB Async event on mlx5_0: client "
            "reregistration on port 1")
UCX_FLUSHED = ("[1469476417.048359] [pod9:29127:0]      ib_device.c:132  UCX  WARN  IB Async event on mlx4_0: SRQ-attached "
               "QP 0x17fef was flushed")


@pytest.mark.parametrize("line, device, event", [
    (UCX_891, "mlx4_0", "IBV_EVENT_QP_ACCESS_ERR"), (UCX_1770, "mlx5_0", "IBV_EXP_EVENT_DCT_ACCESS_ERR")])
def test_ucxs_failing_async_event_is_the_fabrics_completion_error(line, device, event):
    f = Classifier().classify(line)  # was: nothing
    assert (f.kind, f.severity, f.attribution) == ("ib_completion_error", "error", "fabric")
    assert (f.details["netdev"], f.details["ibv_event"]) == (device, event)


@pytest.mark.parametrize("line", [UCX_1845, UCX_FLUSHED])
def test_ucxs_async_events_of_no_failure_stay_silent(line):
    assert Classifier().classify(line) is None
