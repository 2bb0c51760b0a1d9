"""libfabric's EFA provider under aws-ofi-nccl (parsers/rules.py efa_cq_error, ofi_completion, efa_eq_abort): a failed
completion names the peer's EC2 instance where libfabric knows it, in `gpu-npd parse` and the agent's path alike, also
when NCCL's own line for the completion came first; the provider's abort of the process is libfabric's failed
completion, whoever its program is. Lines
marked REAL are copied verbatim from the public source beside them (tests/fixtures/realworld/ib-transports.yaml holds
them in context); lines marked SOURCE are the plugin's and libfabric's format strings filled in, a test, never a
sample."""

from __future__ import annotations

import io

from parsers import Classifier, Scanner
import realworld

# REAL: https://github.com/aws/aws-ofi-nccl/issues/346 (libfabric 1.18+: both ends of the connection named)
INVALID_ADDRESS = ("libfabric:451707:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, message: Invalid "
                   "address My EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:1072483550 My host id: "
                   "i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[fe80::b8:aff:fe44:425]:0:947699476 Peer host "
                   "id: i-0ce6d3d57139f053c (7)")
# REAL: https://github.com/aws/aws-ofi-nccl/issues/156 (libfabric 1.1x: no peer in the line)
OLD_ERA = ("[1,13]<stderr>:libfabric:35:1668017255::efa:cq:rxr_cq_write_tx_error():243<warn> rxr_cq_write_tx_error: "
           "err: 20, prov_err: Not a directory (20)")
# SOURCE: prov/efa efa_write_error_msg before the handshake told the peer's instance ("Peer host id: N/A")
NO_PEER_YET = ("libfabric:1:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 113, message: Unresponsive "
               "receiver (connection never established or unknown) My EFA addr: fi_addr_efa://[fe80::1]:0:1 My host "
               "id: i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[fe80::2]:0:2 Peer host id: N/A (13)")
# SOURCE: aws-ofi-nccl's ofi_process_cq warning for the same completion (NCCL_OFI_WARN "Request %p completed with
# error. RC: %d. Error: %s"), NCCL's prefix as in aws/aws-ofi-nccl #156
NCCL_LINE = ("ip-172-31-69-127:451707:453373 [4] ofi_process_cq:1039 NCCL WARN NET/OFI Request 0x7fbb944701b8 "
             "completed with error. RC: 5. Error: unknown error.")


def _events(lines: list[str]) -> list:
    return realworld.events(Scanner().scan(io.BytesIO("\n".join(lines).encode()), name="efa"))


def test_an_efa_completion_error_names_the_peers_instance():
    f = Classifier().classify(INVALID_ADDRESS)
    assert (f.kind, f.peer, f.details["error"], f.details["error_code"]) == (
        "ib_completion_error", "i-0ce6d3d57139f053c", "Invalid address", 5)


def test_no_peer_where_libfabric_names_none():
    for line in (OLD_ERA, NO_PEER_YET):
        f = Classifier().classify(line)
        assert (f.kind, f.peer) == ("ib_completion_error", None), line
    assert Classifier().classify(NO_PEER_YET).details["error"] == "Unresponsive receiver (connection never established " \
                                                                   "or unknown)"


def test_nccls_line_first_then_libfabrics_is_one_event_with_the_peer():
    """aws-ofi-nccl's warning, then libfabric's line for the same completion: one event, its peer the instance
    libfabric names (an amendment), in `gpu-npd parse` and the agent's record path alike (was: no peer)."""
    found = _events([NCCL_LINE, INVALID_ADDRESS])
    assert [(f.kind, f.peer) for f in found] == [("ib_completion_error", "i-0ce6d3d57139f053c")]
    assert [(f.kind, f.peer) for f in realworld.events(realworld.classified([NCCL_LINE, INVALID_ADDRESS]))] == [
        ("ib_completion_error", "i-0ce6d3d57139f053c")]


def test_the_efa_providers_abort_is_one_completion_error_per_process():
    """The "<warn>" line and its stderr copy with the source line (aws/aws-ofi-nccl #141) are one event; the memory
    registration failures before it none of their own (was: nothing)."""
    item = next(i for i in realworld.samples() if i["source"].endswith("aws-ofi-nccl/issues/141"))
    found = realworld.findings(item["text"])
    assert [(f.kind, f.severity, f.details["error_code"], f.details["error"]) for f in found] == [
        ("ib_completion_error", "error", 12, "Cannot allocate memory")]


def test_the_efa_providers_abort_is_libfabrics_completion_error_not_nccls():
    """The abort as libfabric prints it under any program (ofiwg/libfabric #6249 and #5716: programs of their own on
    fi_cq_read, no NCCL in them; aws/aws-ofi-nccl #20: a PyTorch job's), the provider's CQ error path: a failed
    completion of libfabric's, read as its "efa:cq .. <warn> err: N" lines are, the error its words (was: nccl_error,
    an NCCL failure two of the programs never had)."""
    for source in ("libfabric/issues/6249", "libfabric/issues/5716", "aws-ofi-nccl/issues/20"):
        item = next(i for i in realworld.samples() if i["source"].endswith(source))
        (f,) = realworld.findings(item["text"])
        assert (f.kind, f.attribution, f.details["error"], f.details["error_code"]) == (
            "ib_completion_error", "fabric", "Input/output error", 5), source
        assert f.kind == Classifier().classify(OLD_ERA).kind


# REAL: https://github.com/gnosia93/training-on-eks/blob/2a65a75c676ec3b7fb890c7d35f6ed1d7190df85/appendix/a1-karpenter-message.md
# (aws-ofi-nccl's newer line quoting libfabric's message: both ends of the connection, the peer's instance not known)
OFI_QUOTING = ("[2026-01-01 12:08:32] llama-3-8b-node-0-0:194:710 [0] int cm_req_handle_error_entry(nccl_net_ofi_context_"
               "t*, fid_cq*, fi_cq_err_entry*, uint16_t):46 NCCL WARN NET/OFI Request 0x7f456c222f60 completed with "
               "error. RC: 103. Error: 4126 (Unresponsive receiver (reachable by EFA device but handshake failed) My EFA "
               "addr: fi_addr_efa://[fe80::c55:2eff:fe44:db5]:0:142160333 My host id: i-07792e0f955a9673b Peer EFA "
               "addr: fi_addr_efa://[fe80::454:14ff:fedd:d5b3]:0:825957744 Peer host id: N/A). Completed length: 0")


def test_aws_ofi_nccls_line_quoting_libfabrics_message_names_its_peer():
    """aws-ofi-nccl's own line quoting libfabric 1.18+'s message: the error the words before the addresses, the peer
    the instance "Peer host id" names (SOURCE: the REAL line with the peer's instance told, as #346's libfabric line
    tells it), none for "N/A" (was: the addresses in the error, cut at "N/A"'s dot, and never a peer)."""
    f = Classifier().classify(OFI_QUOTING)
    assert (f.kind, f.peer, f.details["error"]) == (
        "ib_completion_error", None, "4126 (Unresponsive receiver (reachable by EFA device but handshake failed)")
    told = Classifier().classify(OFI_QUOTING.replace("Peer host id: N/A", "Peer host id: i-0ce6d3d57139f053c"))
    assert (told.kind, told.peer) == ("ib_completion_error", "i-0ce6d3d57139f053c")


# SOURCE: aws-ofi-nccl's RDMA protocol (src/nccl_ofi_rdma.cpp, aws/aws-ofi-nccl at 8d3c295: NCCL_OFI_WARN("Request %p
# seq %d completed with error. RC: %d. Error: %d (%s). Completed length: %ld, Request: %s", ...)) filled in, NCCL's
# prefix as in NCCL_LINE; its "Request" without the pointer (the GIN requests' "Request completed with error. RC: ..")
RDMA_SEQ_LINE = ("ip-172-31-69-127:451707:453373 [4] NCCL WARN NET/OFI Request 0x7fbb944701b8 seq 12 completed with "
                 "error. RC: 113. Error: 2 (UNDELIVERABLE). Completed length: 0, Request: { dev: 0, size: 0, state: "
                 "CREATED, direction: SEND }")


def test_the_rdma_protocols_request_with_its_sequence_number_is_a_completion_error():
    """The RDMA protocol names the request's message sequence number after its pointer: the same completion error as
    the send/recv protocol's (before: NCCL's generic warning)."""
    f = Classifier().classify(RDMA_SEQ_LINE)
    assert (f.kind, f.details["error_code"], f.details["error"]) == ("ib_completion_error", 113, "2 (UNDELIVERABLE)")
