"""GCP's FastSocket NCCL plugin's flow placement (parsers/rules.py nccl_fastsocket_placement): its fallbacks at a
connection's set-up are no finding; its failure to find any socket stays NCCL's warning. Lines marked REAL are copied
verbatim from the public source beside them (tests/fixtures/realworld/noise-fastsocket-2026.yaml holds them in
context); the line marked SOURCE is the plugin's format string ("Cannot find empty socket for %d.", net_fastsocket.cc at
google/nccl-fastsocket b3ff1c6) after REAL's prefix, a test, never a sample."""

from __future__ import annotations

from parsers import Classifier

# REAL: https://github.com/google/nccl-fastsocket/issues/4
NO_CPU = "full-debug2-test-1:4024:4048 [0] net_fastsocket.cc:765 NCCL WARN Cannot get incoming CPU."
ACCEPT = "full-debug2-test-0:4300:4325 [0] net_fastsocket.cc:785 NCCL WARN Maximum retry reached for accept 3."
CONNECT = "full-debug2-test-1:4024:4055 [0] net_fastsocket.cc:674 NCCL WARN Maximum retry reached for connect 3."
# SOURCE: the connection failing (ncclInternalError)
NO_SOCKET = "full-debug2-test-1:4024:4055 [0] net_fastsocket.cc:730 NCCL WARN Cannot find empty socket for 3."


def test_the_placement_fallbacks_are_no_finding():
    """Were: an nccl_error warning each (a Pod Event for every rank of a healthy job on GCP)."""
    assert [Classifier().classify(line) for line in (NO_CPU, ACCEPT, CONNECT)] == [None, None, None]


def test_no_free_socket_stays_a_warning():
    f = Classifier().classify(NO_SOCKET)
    assert (f.kind, f.severity) == ("nccl_error", "warning")
