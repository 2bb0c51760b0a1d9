"""GCP's GPUDirect-TCPX NCCL plugin's slowness report (parsers/rules.py tcpx_ctrl_timeout): a connection waiting on its
peer's control message is a warning nccl_timeout naming the NIC and the peer, one event per NIC while the plugin
repeats it. Lines marked REAL are copied verbatim from the public source beside them
(tests/fixtures/realworld/nccl-tcpx-2026l.yaml holds them in context); lines marked SOURCE are the plugin's format
string ("%p:%p, nic %d, %s, %s %s ctrl timeout cnt %lu, nanos %lu", net_tcpx.cc) filled in, a test, never a sample."""

from __future__ import annotations

import io

from parsers import Classifier, Scanner

# REAL: https://github.com/google/nccl-plugin-gpudirecttcpx/issues/1
NIC0 = ("[0] tcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN 0xadca8062b70:0xadca805d0f0, nic 0, enp12s0, "
        "172.16.0.11<39187><-172.16.0.95<46723> rx rx ctrl timeout cnt 7331502, nanos 10000000585")
NIC1 = ("tcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN 0x13b9b0082580:0x13b9b007cb00, nic 1, enp134s0, "
        "172.16.0.49<45259><-172.16.0.48<52929> rx rx ctrl timeout cnt 7359786, nanos 10000015864")
# SOURCE: the same connection's next report, a period later
NIC0_AGAIN = NIC0.replace("cnt 7331502, nanos 10000000585", "cnt 7331612, nanos 20000001170")


def test_a_stalled_connection_is_a_warning_timeout_naming_its_nic_and_peer():
    f = Classifier().classify(NIC0)
    assert (f.kind, f.severity, f.peer, f.details["device"], f.details["local"]) == (
        "nccl_timeout", "warning", "172.16.0.95", "enp12s0", "172.16.0.11")


def test_one_event_per_nic_while_the_reports_repeat():
    """Was: an NCCL warning per line (an hour of them at a job's start)."""
    found = list(Scanner().scan(io.BytesIO("\n".join([NIC0, NIC1, NIC0_AGAIN]).encode()), name="tcpx"))
    assert [(f.kind, f.details["device"], f.peer) for f in found] == [
        ("nccl_timeout", "enp12s0", "172.16.0.95"), ("nccl_timeout", "enp134s0", "172.16.0.48")]


# SOURCE: the plugin's "Net : Connection closed by remote peer %s" (net_tcpx.cc taskProgress) with a receiving
# connection's flow string as NIC0 prints it, after NCCL's prefix as in NVIDIA/nccl #914
CLOSED = "a3-0:2:3 [0] NCCL WARN Net : Connection closed by remote peer 172.16.0.11<39187><-172.16.0.95<46723>"
# REAL: https://github.com/NVIDIA/nccl/issues/914 (NCCL's own socket: the peer alone)
CLOSED_NCCL = ("host:22337:22400 [6] misc/socket.cc:521 NCCL WARN Net : Connection closed by remote peer "
               "10.104.148.191<37877>")


def test_a_closed_tcpx_connection_names_the_peer_not_the_local_end():
    """Was: the local address (the first of the flow string) as the peer, triage's suspect the reporting node."""
    f = Classifier().classify(CLOSED)
    assert (f.kind, f.peer, f.details["peer_port"]) == ("nccl_remote_error", "172.16.0.95", 46723)
    f = Classifier().classify(CLOSED_NCCL)
    assert (f.kind, f.peer, f.details["peer_port"]) == ("nccl_remote_error", "10.104.148.191", 37877)
    quoted = Classifier().classify(CLOSED.split("NCCL WARN ")[1])  # PyTorch's "Last error:" quote of it
    assert (quoted.kind, quoted.peer) == ("nccl_remote_error", "172.16.0.95")
