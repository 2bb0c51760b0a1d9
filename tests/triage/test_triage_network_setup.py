"""The job's network not set up at its start (facts.py network_setup): the store's address that did not resolve, the
store's port already taken, NCCL's bootstrap with no socket interface: the job's or the cluster's configuration (or a
race at start), named by its words, never an application's exception nor a node's fault.  REAL lines, verbatim, their
sources beside them."""
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from triage import attribute, read_lines
from triage.clock import Clock
from triage.model import Evidence

# kubeflow/pytorch-operator #125 (`kubectl logs optimizer-worker-0`: a PyTorchJob's worker started before the
# master's Service had its DNS record; torch 1.x's TCPStore)
HOST_NOT_FOUND = [
    "2019-01-11 05:43:30,310 INFO     init_distribution",
    "Traceback (most recent call last):",
    '  File "optimizer.py", line 413, in init_distribution',
    "    torch.distributed.init_process_group(backend=backend)",
    '  File "/root/.local/lib/python3.7/site-packages/torch/distributed/distributed_c10d.py", line 354, in '
    "init_process_group",
    "    store, rank, world_size = next(rendezvous(url))",
    '  File "/root/.local/lib/python3.7/site-packages/torch/distributed/rendezvous.py", line 143, in '
    "_env_rendezvous_handler",
    "    store = TCPStore(master_addr, master_port, start_daemon)",
    "ValueError: host not found: Name or service not known",
]

# EasonXiao-888/MambaTree #14 (NCCL 2.14.3's ncclInternalError, its "Last error:")
NO_INTERFACE = [
    "Traceback (most recent call last):",
    '  File "/home/hqu/user/MambaTree-main/GrootV/classification/main.py", line 627, in <module>',
    "    torch.distributed.barrier()",
    '  File "/home/hqu/anaconda3/envs/grootv/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py", line '
    "3145, in barrier",
    "    work = default_pg.barrier(opts=opts)",
    "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1201, internal error, NCCL "
    "version 2.14.3",
    "ncclInternalError: Internal check failed.",
    "Last error:",
    "Bootstrap : no socket interface found",
]

# hao-ai-lab/FastVideo #575 (torchrun's own store on port 29500, taken)
PORT_IN_USE = [
    "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in "
    "use).",
    "[W socket.cpp:464] [c10d] The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in "
    "use).",
    "[E socket.cpp:500] [c10d] The server socket has failed to listen on any local network address.",
]

# meta-pytorch/torchtune #392 (two distributed finetunes on one machine: torchrun's default store port, 29500, taken;
# the launcher's exception, 2.x's words in one line)
PORT_IN_USE_RAISED = [
    "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The "
    "server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has "
    "failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).",
]


def _incident(lines):
    (incident,) = attribute(read_lines(lines, "worker-0.log", Clock()))
    return incident


def test_a_store_address_that_did_not_resolve_is_the_networks_setup_not_the_application():
    # was: APPLICATION, the ValueError the program's own
    incident = _incident(HOST_NOT_FOUND)
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")
    assert "host not found (Name or service not known)" in incident.reason


def test_nccls_bootstrap_with_no_interface_is_the_networks_setup():
    # was: UNDETERMINED, the NCCL error's internal error a consequence
    incident = _incident(NO_INTERFACE)
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")
    assert "no socket interface found" in incident.reason


def test_a_store_port_already_in_use_is_the_networks_setup():
    # was: nothing ("No failure found")
    incident = _incident(PORT_IN_USE)
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")


def test_the_launchers_exception_of_a_store_port_in_use_names_the_port():
    incident = _incident(PORT_IN_USE_RAISED)
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")
    assert "port 29500" in incident.reason


def test_the_retried_connects_and_lookups_warnings_are_no_failure():
    """c10d's warnings while it retries (the store not up yet: a headless Service's record, the master's pod starting)
    are no failure by themselves: kubernetes-sigs/jobset #93 ("spammed in logs while its waiting for other pods to be
    ready"), hpcaitech/Open-Sora #667's retried connect."""
    lines = ["[W socket.cpp:558] [c10d] The IPv6 network addresses of (pytorch-workers-0-0.pytorch-workers, 3389) "
             "cannot be retrieved (gai error: -2 - Name or service not known).",
             "[W socket.cpp:697] [c10d] The client socket has failed to connect to 0.104.99.143:47389 (errno: 110 - "
             "Connection timed out)."]
    assert attribute(read_lines(lines, "worker-0.log", Clock())) == []


# allenai/FineGrainedRLHF #12 (torch 2.x: c10d's lookups of the store's address retried until its connect timeout)
UNRESOLVED_STORE = [
    "[W socket.cpp:601] [c10d] The IPv6 network addresses of (cernet2.net, 52533) cannot be retrieved (gai error: -5 "
    "- No address associated with hostname).",
] * 5 + [
    "[E socket.cpp:860] [c10d] The client socket has timed out after 1800s while trying to connect to (cernet2.net, "
    "52533).",
]

# meta-pytorch/torchx #540 (1.12: one IPv6 and one IPv4 lookup, then every address failed; behind Ray's prefix)
UNRESOLVED_RAY = [
    "(CommandActor pid=369, ip=10.131.6.134) [0]:[W socket.cpp:558] [c10d] The IPv6 network addresses of "
    "(codeflare-ray-jiajie-csqcn-head-sjvwx, 50176) cannot be retrieved (gai error: -2 - Name or service not known).",
    "(CommandActor pid=369, ip=10.131.6.134) [0]:[W socket.cpp:558] [c10d] The IPv4 network addresses of "
    "(codeflare-ray-jiajie-csqcn-head-sjvwx, 50176) cannot be retrieved (gai error: -2 - Name or service not known).",
    "(CommandActor pid=369, ip=10.131.6.134) [0]:[E socket.cpp:610] [c10d] The client socket has failed to connect to "
    "any network address of (codeflare-ray-jiajie-csqcn-head-sjvwx, 50176).",
]


def test_a_store_timeout_after_its_address_never_resolved_is_the_networks_setup():
    # was: UNDETERMINED, "only consequences were logged, the first store error 'The client socket has timed out'"
    incident = _incident(UNRESOLVED_STORE)
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")
    assert "cernet2.net:52533: the store's address did not resolve (gai error: -5 - No address associated with " \
           "hostname), then 'The client socket has timed out'" in incident.reason


def test_every_address_failed_after_its_lookups_failed_is_the_networks_setup():
    # was: UNDETERMINED, the store_error of c10d's "failed to connect to any network address"
    incident = _incident(UNRESOLVED_RAY)
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")
    assert "codeflare-ray-jiajie-csqcn-head-sjvwx:50176: the store's address did not resolve" in incident.reason


def test_a_store_timeout_to_another_address_than_the_one_that_did_not_resolve_stays_a_store_error():
    """CONSTRUCTED from REAL lines: allenai/FineGrainedRLHF #12's lookups of (cernet2.net, 52533), then
    lllyasviel/ControlNet #382's timeout to (127.0.0.1, 48391): another address, no cause of it."""
    lines = UNRESOLVED_STORE[:5] + ["[E socket.cpp:793] [c10d] The client socket has timed out after 1800s while "
                                    "trying to connect to (127.0.0.1, 48391)."]
    incident = _incident(lines)
    assert (incident.category, incident.root.kind) == ("undetermined", "store_error")


def test_lookups_long_before_a_store_timeout_are_not_its_cause():
    """SYNTHETIC evidence (no log line): a failed lookup stamped more than the connect's timeout before the store
    error to the same address is another connect's, which resolved in the end (c10d retries until its deadline)."""
    t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
    lookup = Evidence(kind="store_unresolved", severity="info", time=t0, file="w.log", line=1,
                      details={"unresolved": "master", "store_port": "29500",
                               "resolver_error": "gai error: -2 - Name or service not known"})
    timeout = Evidence(kind="store_error", severity="error", file="w.log", line=9,
                       details={"what": "The client socket has timed out", "store_host": "master",
                                "store_port": "29500", "store_timeout": "600000ms"})
    late = replace(timeout, time=t0 + timedelta(seconds=3600))
    (incident,) = attribute([lookup, late])
    assert incident.root.kind == "store_error"
    (incident,) = attribute([lookup, replace(timeout, time=t0 + timedelta(seconds=600))])
    assert incident.root.kind == "network_setup"


def test_a_name_ssh_could_not_resolve_is_the_networks_setup_not_that_node():
    """everpeace/kube-openmpi #26 (tests/fixtures/incidents/h548_kube-openmpi-26-ssh-resolve): mpirun's ssh could not
    resolve a worker's name (an MPIJob's launcher before its workers' DNS records): the name is the address that did
    not resolve, never a faulty node (was: INFRASTRUCTURE on host mpic-worker-0, a launch_error)."""
    incident = _incident(["ssh: Could not resolve hostname mpic-worker-0: Temporary failure in name resolution",
                          "ORTE was unable to reliably start one or more daemons."])
    assert (incident.category, incident.root.kind, incident.root.host) == ("infrastructure", "network_setup", None)
    assert "mpic-worker-0: Could not resolve hostname (Temporary failure in name resolution)" in incident.reason


# eth-cscs/cscs-docs, docs/software/communication/nccl.md: NCCL_NET="AWS Libfabric" with its plugin not in the
# environment (the warning "`invalid usage` error with NCCL_NET"); the same line NCCL_NET="IB" gives where the pod has
# no IB device (its RDMA resource or secondary network not attached: NET/IB finds none and never registers)
NET_NOT_FOUND = [
    "nid006365:180142:180163 [0] NCCL INFO NET/Plugin: Could not find: ofi libnccl-net-ofi.so. Using internal network "
    "plugin.",
    "nid006365:180142:180163 [0] net.cc:626 NCCL WARN Error: network AWS Libfabric not found.",
    "nid006352: Test NCCL failure common.cu:958 'invalid usage (run with NCCL_DEBUG=WARN for details)",
]


def test_a_forced_network_nccl_did_not_find_in_the_pod_is_the_networks_setup_not_the_application():
    # was: APPLICATION, the NCCL test's "invalid usage" (its WARN a warning, unknown)
    incident = _incident(NET_NOT_FOUND)
    assert (incident.category, incident.root.kind, incident.root.host) == ("infrastructure", "network_setup",
                                                                          "nid006365")
    assert "NCCL_NET's network 'AWS Libfabric' not found in the pod" in incident.reason


def test_the_forced_ib_network_not_found_names_ib():
    # CONSTRUCTED from net.cc's WARN("Error: network %s not found.", netName) with NCCL_NET=IB, the prefix as above
    incident = _incident(["nid006365:180142:180163 [0] net.cc:626 NCCL WARN Error: network IB not found."])
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")
    assert "network 'IB' not found in the pod (its RDMA devices or plugin not there)" in incident.reason


def test_nccls_fallback_to_sockets_without_ib_is_no_failure():
    """NCCL without NCCL_NET: no IB device opened, it uses sockets and says so (INFO), the job runs (slower):
    NVIDIA/nccl #451 (a container without its IB device; the WARNs of the device it could not open), Oneflow-Inc/oneflow
    PR #9115 (no IB device at all). No failure, no network_setup."""
    lines = ["misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed",
             "transport/net_ib.cc:148 NCCL WARN NET/IB : Unable to open device mlx5_bond_0",
             "NCCL INFO NET/IB : No device found.",
             "NCCL INFO NET/Socket : Using [0]bond0:200.1.93.2<0>",
             "NCCL INFO Using network Socket",
             "oneflow-15:3907318:3907604 [1] NCCL INFO NET/IB : No device found.",
             "oneflow-15:3907318:3907604 [1] NCCL INFO NET/Socket : Using [0]eno1:192.168.1.15<0> [1]veth2ea2288:fe80::"
             "78d8:4eff:fe15:8fed%veth2ea2288<0> [2]vethae2223a:fe80::b43d:18ff:fee2:b08f%vethae2223a<0>",
             "oneflow-15:3907318:3907604 [1] NCCL INFO Using network Socket"]
    assert attribute(read_lines(lines, "worker-0.log", Clock())) == []


# SGLang's PD decode server that could not reach the prefill's bootstrap server, each cause's line verbatim:
# sgl-project/sglang PR #11747 (lx-eotk's comment: refused, the bootstrap port the router passed);
# sgl-project/sglang #6413 (no bootstrap host: 'none' did not resolve); sgl-project/sglang #6017 (no port)
SGLANG_BOOTSTRAP = [
    ("[2025-10-29 11:00:44] Error fetching prefill parallel info from bootstrap: HTTPConnectionPool(host='127.0.0.1', "
     "port=8998): Max retries exceeded with url: /route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1 (Caused by "
     "NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7fedda7b95d0>: Failed to establish a new "
     "connection: [Errno 111] Connection refused'))",
     "(port 8998: Connection refused)"),
    ("[2025-05-19 14:37:28 TP4] Error fetching prefill parallel info from bootstrap: HTTPConnectionPool(host='none', "
     "port=8998): Max retries exceeded with url: /route?engine_rank=-1&target_dp_group=-1 (Caused by "
     "NameResolutionError(\"<urllib3.connection.HTTPConnection object at 0x7f235c5ebd40>: Failed to resolve 'none' "
     "([Errno -2] Name or service not known)\"))",
     "none: Error fetching prefill parallel info from bootstrap (Name or service not known)"),
    ("[2025-05-07 14:43:04 DP9 TP9] Error fetching prefill parallel info from bootstrap: Failed to parse: "
     "http://192.168.0.108:None/route?engine_rank=-1&target_dp_group=-1",
     "(Failed to parse)"),
]


@pytest.mark.parametrize("line,named", SGLANG_BOOTSTRAP)
def test_sglangs_decode_that_cannot_reach_the_prefills_bootstrap_is_the_networks_setup(line, named):
    # was: "No failure found" (no rule nor fact read the line)
    incident = _incident([line])
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")
    assert named in incident.reason
