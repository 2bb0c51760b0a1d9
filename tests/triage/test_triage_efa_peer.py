"""A peer libfabric's EFA provider names by its EC2 instance ("Peer host id: i-..", libfabric 1.18+) is the job's host
whose own lines say that instance is theirs ("My host id: i-..", in the same completion errors): triage.facts
efa_host_id read beside the line's finding (triage.read), the job's address map (triage.attribute.Job), and the
cluster's map of Nodes by their spec.providerID (triage.inventory.node_addresses, cluster/book.py) live.  Lines
marked REAL are copied verbatim from the public source beside them; CONSTRUCTED ones say what they were built from."""

from __future__ import annotations

from triage import Clock, attribute, read_lines
from triage.inventory import node_addresses

# REAL: https://github.com/aws/aws-ofi-nccl/issues/346 (its NCCL lines of the same process: host ip-172-31-69-127)
REPORTER = ("libfabric:451707:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, message: Invalid "
            "address My EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:1072483550 My host id: "
            "i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[fe80::b8:aff:fe44:425]:0:947699476 Peer host "
            "id: i-0ce6d3d57139f053c (7)")
# REAL: https://github.com/gnosia93/training-on-eks/blob/2a65a75c676ec3b7fb890c7d35f6ed1d7190df85/appendix/a1-karpenter-message.md
# (aws-ofi-nccl's own line for a failed handshake: its host's instance, the peer's not known yet)
HANDSHAKE = ("[2026-01-01 12:08:32] llama-3-8b-node-0-0:194:710 [0] int cm_req_handle_error_entry(nccl_net_ofi_context_t*"
             ", fid_cq*, fi_cq_err_entry*, uint16_t):46 NCCL WARN NET/OFI Request 0x7f456c222f60 completed with error. "
             "RC: 103. Error: 4126 (Unresponsive receiver (reachable by EFA device but handshake failed) My EFA addr: "
             "fi_addr_efa://[fe80::c55:2eff:fe44:db5]:0:142160333 My host id: i-07792e0f955a9673b Peer EFA addr: "
             "fi_addr_efa://[fe80::454:14ff:fedd:d5b3]:0:825957744 Peer host id: N/A). Completed length: 0")
# CONSTRUCTED: one job of the two logs above, #346's line naming as its peer the instance the second log's host says
# is its own (its "Peer host id" set to i-07792e0f955a9673b; the rest verbatim)
TO_NODE_0 = REPORTER.replace("i-0ce6d3d57139f053c", "i-07792e0f955a9673b")


def read(files: dict[str, list[str]], year: int = 2024) -> list:
    clock = Clock()
    ev = []
    for name, lines in files.items():
        ev += read_lines(lines, f"job/{name}", clock, root="job", year=year)
    return clock.align(ev)


def test_a_completion_error_is_both_its_finding_and_its_hosts_instance():
    """The line is the completion error naming the peer's instance, and the fact that its writer (the file's node,
    the line's own prefix, a syslog envelope's host) is the instance it calls its own (before: the finding alone)."""
    for files, host in (({"ip-172-31-69-127/train.log": [REPORTER]}, "ip-172-31-69-127"),
                        ({"train.log": [HANDSHAKE]}, "llama-3-8b-node-0-0"),
                        # CONSTRUCTED: #346's line in an RFC 3164 syslog envelope naming its host, a file of no node
                        ({"messages": ["Feb 21 13:06:47 ip-172-31-69-127 python[451707]: " + REPORTER]},
                         "ip-172-31-69-127")):
        got = [(e.kind, e.host, e.address, e.peer) for e in read(files)]
        own = "i-07792e0f955a9673b" if "handshake" in str(files) else "i-0db7083f3fcbebb65"
        peer = None if "handshake" in str(files) else "i-0ce6d3d57139f053c"
        assert got == [("nccl_address", host, own, None), ("ib_completion_error", host, None, peer)], files


def test_no_instance_where_libfabric_knows_none():
    """"My host id: N/A" (no instance metadata; the format of prov/efa efa_write_error_msg) states no address."""
    line = HANDSHAKE.replace("My host id: i-07792e0f955a9673b", "My host id: N/A")  # CONSTRUCTED from the REAL above
    assert [e.kind for e in read({"train.log": [line]})] == ["ib_completion_error"]


def test_the_peer_named_by_its_instance_is_the_host_that_says_it_is_that_instance():
    """#346's reporter names peer i-07792e0f955a9673b; llama-3-8b-node-0-0's own line says that instance is it: the
    peer is that host (before: the bare instance id, no host of the job)."""
    first = attribute(read({"ip-172-31-69-127/train.log": [TO_NODE_0], "node-0/train.log": [HANDSHAKE]}))[0]
    assert (first.category, first.rule, first.root.host) == ("fabric", "peer_error", "llama-3-8b-node-0-0")
    assert "peer llama-3-8b-node-0-0 (i-07792e0f955a9673b)" in first.reason
    alone = attribute(read({"ip-172-31-69-127/train.log": [TO_NODE_0]}))[0]
    assert "peer i-07792e0f955a9673b" in alone.reason


def test_a_nodes_provider_id_is_its_instance():
    """A Node's spec.providerID on EC2 ("aws:///<zone>/<instance id>", the cloud provider's documented format) is one
    of its addresses, as its status.addresses are: the cluster's map resolves a peer named by its instance live and in
    `gpu-npd triage --inventory` alike; another cloud's providerID is no address."""
    node = {"metadata": {"name": "ip-10-0-1-10.us-west-2.compute.internal"},
            "spec": {"providerID": "aws:///us-west-2a/i-0cd1c351f3c0d11a1"},
            "status": {"addresses": [{"type": "InternalIP", "address": "10.0.1.10"}]}}
    assert node_addresses(node) == ("10.0.1.10", "i-0cd1c351f3c0d11a1")
    node["spec"]["providerID"] = "gce://my-project/us-central1-a/gke-pool-1-abcd"
    assert node_addresses(node) == ("10.0.1.10",)
